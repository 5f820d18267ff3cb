"""The competition platform: accounts, uploads compiled and run in a sandbox, ranked play.

Modules, bottom up: archive (unpacking uploads safely), recipes (languages:
how to compile, how to run), sandbox (bubblewrap around every compile and
game), store (the database: SQLite or PostgreSQL, Alembic migrations),
accounts (argon2 passwords, sessions), ladder (openskill ratings, pairing),
uploads (archive to a tested, active version), workers (match workers that
claim games from the database, on this machine or on Ray).
"""
