"""The competition platform: accounts, uploads compiled and run in a sandbox, ranked play.

Modules, bottom up: archive (unpacking uploads safely), unpacker (the child
that reads an archive), recipes (languages: how to compile, how to run),
sandbox (bubblewrap around every compile, game and archive reader), limits
(what one client or account may ask: rates, caps), store (the database: SQLite
or PostgreSQL, Alembic migrations), accounts (argon2 passwords, sessions),
ladder (openskill ratings, pairing), uploads (archive to a tested, active
version), house (ninefold's own players entered as house bots), practice
(unranked test games), jobs (a game, self-contained, played in the sandbox),
worker (a worker process: claims builds and games from the database under a
lease), scheduler (queues, ratings, final standings), pool (workers and the
scheduler on this machine), cluster (games on Ray).
"""

import hashlib

# Where a worker process finds the database's URL: the environment, not its command line
# (every user of the machine reads command lines; an environment only its user and root).
DB_URL_VARIABLE = "NINEFOLD_DB_URL"


def token_hash(token: str) -> str:
    """The SHA-256 (hex) under which a secret token is stored: a session's
    (`ninefold.platform.accounts`) and a web game's seat's (`ninefold.web.games`: here,
    where the web board reaches it without the platform extra's packages).

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode()).hexdigest()
