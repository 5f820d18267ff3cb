"""The optional installs (extras): what each adds, and the one line that names a missing one.

``pip install ninefold`` plays, analyses, runs bots, the arena and the web
board; an extra adds the rest (``pip install 'ninefold[platform]'``):

- ``platform``: SQLAlchemy, Alembic, psycopg, argon2-cffi, openskill,
  python-multipart, libarchive-c: the contest platform (``ninefold platform``,
  ``serve --platform``), and the web board's games in PostgreSQL;
- ``train``: PyTorch: training the network (``python -m ninefold.learn``,
  ``python -m ninefold.learn.distill``);
- ``rl``: Gymnasium and PettingZoo: the RL environments `ninefold.env.single` and
  `ninefold.env.aec` (the batched one, `ninefold.env.batch`, needs neither);
- ``cluster``: Ray: games and self-play on a Ray cluster (``--ray``).

A command that needs an extra calls `require` first; what is missing raises
`MissingExtra`, whose text is the one line a user reads (the command line
prints it as its one-line error):

>>> require("platform", "ninefold platform")   # installed here: nothing happens
>>> str(MissingExtra("train", "ninefold train", ("torch",)))
"ninefold train: needs the train extra (torch is missing): pip install 'ninefold[train]'"
>>> extra_of("sqlalchemy.engine"), extra_of("numpy")
('platform', None)
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

# extra -> {the module imported: the distribution pyproject.toml names}
EXTRAS: dict[str, dict[str, str]] = {
    "platform": {"sqlalchemy": "sqlalchemy", "alembic": "alembic", "psycopg": "psycopg",
                 "argon2": "argon2-cffi", "openskill": "openskill",
                 "python_multipart": "python-multipart", "libarchive": "libarchive-c"},
    "train": {"torch": "torch"},
    "rl": {"gymnasium": "gymnasium", "pettingzoo": "pettingzoo"},
    "cluster": {"ray": "ray"},
}


class MissingExtra(ModuleNotFoundError):
    """`what` needs the extra `extra`, and its modules `missing` are not installed.

    A `ModuleNotFoundError` (``except ImportError`` still catches it) whose text
    is one line that says how to install the extra.
    """

    def __init__(self, extra: str, what: str, missing: Sequence[str]) -> None:
        self.extra, self.what, self.missing = extra, what, tuple(missing)
        distributions = ", ".join(EXTRAS[extra].get(m, m) for m in self.missing)
        verb = "is" if len(self.missing) == 1 else "are"
        super().__init__(f"{what}: needs the {extra} extra ({distributions} {verb} missing): "
                         f"pip install 'ninefold[{extra}]'",
                         name=self.missing[0] if self.missing else None)


def missing(extra: str) -> list[str]:
    """The modules of `extra` that cannot be imported here (found, not imported)."""
    return [name for name in EXTRAS[extra] if _absent(name)]


def _absent(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):  # a broken install, or a module without a spec
        return True


def require(extra: str, what: str) -> None:
    """Raise `MissingExtra` if a module of `extra` is missing; `what` names the command
    (or module) that needs it, as the line shows it: ``ninefold platform``."""
    if extra not in EXTRAS:
        raise ValueError(f"no extra {extra!r}: {', '.join(EXTRAS)}")
    absent = missing(extra)
    if absent:
        raise MissingExtra(extra, what, absent)


def extra_of(module: str | None) -> str | None:
    """The extra that installs `module` (a dotted name: its package counts), or None."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def as_missing_extra(exc: ModuleNotFoundError, what: str) -> MissingExtra | None:
    """`exc` as a `MissingExtra` of `what` if the module it could not find belongs to an
    extra (a command that imported one without calling `require`); else None.

    >>> print(as_missing_extra(ModuleNotFoundError(name="torch.nn"), "ninefold train"))
    ninefold train: needs the train extra (torch is missing): pip install 'ninefold[train]'
    >>> as_missing_extra(ModuleNotFoundError(name="numpy"), "ninefold play") is None
    True
    """
    if isinstance(exc, MissingExtra):
        return exc
    extra = extra_of(exc.name)
    return None if extra is None else MissingExtra(extra, what, [(exc.name or "").split(".")[0]])
