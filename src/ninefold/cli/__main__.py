"""`python -m ninefold.cli`."""

from ninefold.cli import main

main()
