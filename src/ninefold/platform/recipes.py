"""Language recipes: how to recognise a bot's language, compile it, and start it.

The recipes live in ``recipes.toml`` beside this module (its keys are described
at its top): adding a language is adding a table there.

>>> detect(["main.py", "strategy.py"]).name, detect(["bot.cpp", "util.c"]).name
('python', 'cpp')
>>> detect(["Bot.java", "gen.py"]).name    # *.java is Java's best pattern, *.py Python's worst
'java'
>>> print(named("c").compile)
/usr/bin/gcc -O2 -std=gnu17 -pipe -o bot {sources} -lm
"""

from __future__ import annotations

import functools
import re
import shlex
import tomllib
from dataclasses import dataclass, fields, replace
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

ENTRY_RULES = ("", "first-match", "main-class")
MAX_SOURCE_READ = 1 << 20  # bytes of a Java file searched for its main method and package
_MAIN = re.compile(r"(?:public\s+static|static\s+public)\s+(?:final\s+)?void\s+main\s*\(")
_PLACEHOLDER = re.compile(r"\{(sources|entry|main_class)\}")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


class RecipeError(ValueError):
    """No recipe fits, or a recipe cannot be read: the reason in one line."""


@dataclass(frozen=True)
class Recipe:
    """One language: see ``recipes.toml`` for what each field means.

    `compile` and `run` are templates until `for_folder` fills in ``{sources}``,
    ``{entry}`` and ``{main_class}`` for one bot.
    """

    name: str
    detect: tuple[str, ...]
    run: str
    compile: str = ""
    sources: tuple[str, ...] = ()
    entry: str = ""
    memory_mb: int = 512

    def rank(self, files: list[str]) -> int | None:
        """The index of the first `detect` entry that matches a top-level file, or None."""
        return next((i for i in range(len(self.detect)) if self._detected(files, i)), None)

    def _detected(self, files: list[str], rank: int) -> list[str]:
        """The top-level files that the `detect` entry `rank` matches."""
        patterns = self.detect[rank].split()
        return [f for f in files
                if "/" not in f and any(fnmatchcase(f, p) for p in patterns)]

    def for_folder(self, folder: Path) -> Recipe:
        """This recipe with its commands filled in for the bot in `folder`.

        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "bot.py").write_text("print(1)")
        >>> named("python").for_folder(folder).run
        '/usr/bin/python3 -u bot.py'
        """
        folder = Path(folder)
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                       if p.is_file())
        sources = [f for f in files if any(fnmatchcase(PurePosixPath(f).name, pattern)
                                           for pattern in self.sources)]
        entry = main_class = ""
        if self.entry == "first-match":
            entry = self._first_match(files)
        elif self.entry == "main-class":
            entry, main_class = self._main_class(folder, sources)
        values = {"sources": " ".join(shlex.quote(s) for s in sources),
                  "entry": shlex.quote(entry), "main_class": shlex.quote(main_class)}

        def fill(template: str) -> str:
            return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)

        return replace(self, compile=fill(self.compile), run=fill(self.run))

    def _first_match(self, files: list[str]) -> str:
        for rank in range(len(self.detect)):
            found = self._detected(files, rank)
            if len(found) == 1:
                return found[0]
        raise RecipeError(f"cannot tell which file starts the {self.name} bot: name it "
                          f"{self.detect[0]}")

    def _main_class(self, folder: Path, sources: list[str]) -> tuple[str, str]:
        """The source file with `public static void main`, and its class with its package."""
        found = []
        for source in sources:
            with open(folder / source, encoding="utf-8", errors="replace") as f:
                text = f.read(MAX_SOURCE_READ)
            if _MAIN.search(text):
                package = _PACKAGE.search(text)
                stem = PurePosixPath(source).stem
                found.append((source, f"{package.group(1)}.{stem}" if package else stem))
        if len(found) != 1:
            which = ", ".join(s for s, _ in found) if found else "none does"
            raise RecipeError("exactly one class must have `public static void main` "
                              f"({which})")
        return found[0]


def load(text: str) -> dict[str, Recipe]:
    """The recipes a TOML text describes, in its order; `RecipeError` for a bad one.

    >>> load('[go]\\ndetect = ["*.go"]\\ncompile = "go build -o bot"\\nrun = "./bot"')["go"].run
    './bot'
    >>> load('[go]\\ndetect = ["*.go"]\\nrun = "./bot"\\nspeed = 3')
    Traceback (most recent call last):
    ...
    ninefold.platform.recipes.RecipeError: recipe [go]: unknown key 'speed'
    """
    try:
        tables = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(f"recipes: {exc}") from None
    known = {f.name for f in fields(Recipe)} - {"name"}
    found = {}
    for name, table in tables.items():
        where = f"recipe [{name}]"
        if not isinstance(table, dict):
            raise RecipeError(f"{where}: not a table")
        for key, value in table.items():
            if key not in known:
                raise RecipeError(f"{where}: unknown key {key!r}")
            if key in ("detect", "sources"):
                ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
            elif key == "memory_mb":
                ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
            else:
                ok = isinstance(value, str)
            if not ok:
                raise RecipeError(f"{where}: {key} = {value!r} has the wrong type")
        for key in ("detect", "run"):
            if not table.get(key):
                raise RecipeError(f"{where}: {key} is required")
        if table.get("entry", "") not in ENTRY_RULES:
            raise RecipeError(f"{where}: entry must be one of {ENTRY_RULES}")
        # each value's type was checked against its field's above
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                                  for k, v in table.items()}
        found[name] = Recipe(name=name, **values)
    return found


@functools.cache
def recipes() -> dict[str, Recipe]:
    """The recipes of ``recipes.toml``, in its order."""
    return load(resources.files(__package__).joinpath("recipes.toml").read_text("utf-8"))


def named(name: str) -> Recipe:
    """The recipe called `name`; `RecipeError` if there is none."""
    try:
        return recipes()[name]
    except KeyError:
        raise RecipeError(f"no recipe for {name!r}: choose one of "
                          f"{', '.join(recipes())}") from None


def detect(files: list[str]) -> Recipe:
    """The recipe for a bot made of `files` (paths relative to its folder); `RecipeError`
    if none fits. The language whose best `detect` pattern comes first wins; on a tie,
    the one listed first in ``recipes.toml``."""
    ranked = [(rank, i, r) for i, r in enumerate(recipes().values())
              if (rank := r.rank(files)) is not None]
    if ranked:
        return min(ranked, key=lambda t: t[:2])[2]
    expected = [r.detect[0].split()[0] for r in recipes().values()]
    top = sorted({f.split("/")[0] + ("/" if "/" in f else "") for f in files})
    shown = ", ".join(top[:5]) + (", ..." if len(top) > 5 else "")
    raise RecipeError(f"no language recognised: expected {', '.join(expected[:-1])} or "
                      f"{expected[-1]} at the archive's top level (it has {shown or 'nothing'})")
