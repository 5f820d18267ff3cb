"""`python -m ninefold`: the ``ninefold`` command."""

from ninefold.command import main

main()
