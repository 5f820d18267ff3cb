"""The competition platform: accounts, uploads compiled and run in a sandbox, ranked play.

Modules, bottom up: archive (unpacking uploads safely), unpacker (the child
that reads an archive), recipes (languages: how to compile, how to run),
sandbox (bubblewrap around every compile, game and archive reader), store (the database: SQLite or PostgreSQL, Alembic migrations),
accounts (argon2 passwords, sessions), ladder (openskill ratings, pairing),
uploads (archive to a tested, active version), house (ninefold's own players
entered as house bots), practice (unranked test games), jobs (a game,
self-contained, played in the sandbox), worker (a match worker that claims
games from the database under a lease), scheduler (queues, ratings, final
standings), pool
(workers and the scheduler on this machine), cluster (games on Ray).
"""
