"""The web board: ``ninefold serve``.

- `games`: a game (its board, kept) and its seats, and what each request may change;
  `clock`: its time control; `errors`: what a request may be refused, as HTTP
  statuses; `notation`: marks as ``"x"``/``"o"`` and pasted starts;
- `store`: the games in SQLite;
- `computer`: the computer's moves, in worker processes; `hub`: the computer's pending
  moves, the clocks and the pages watching;
- `views`: the JSON the API speaks;
- `app`: the FastAPI application, assembled from the routers (`routes_games`,
  `routes_viewer`, `routes_pages`, `arena`, `analysis`, `classic`, and with the
  platform `routes_platform`, on the service of `platform`), which get what they use
  through `dependencies`; `body_limit`: the request size cap.
"""
