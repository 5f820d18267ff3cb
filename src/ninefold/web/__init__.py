"""The web board: ``ninefold serve``.

- `games`: a game and its seats, and what each request may change;
- `store`: the games in SQLite;
- `computer`: the computer's moves, in worker processes;
- `app`: the FastAPI application (JSON API, live updates, the page in ``static/``).
"""
