"""The `ninefold` command: thin wrappers that parse, call the library and print.

One module per group of commands; this one holds the `app`, the helpers they
share, and what every command gets from the root:

- errors are one line on stderr (``error: ...``, exit 2), cut to a few
  hundred characters, never read as markup; usage errors too, and a flag
  given a value (``--json true``) says that it is a flag;
- help shows flags as flags: typer 0.29's rich help panel prints a type
  (``<bool>``) for every option, flags included, while its plain help
  leaves flags bare, so the app uses the plain help (``rich_markup_mode=None``);
- a closed output pipe (``ninefold export t.db | head``) ends the command
  quietly with exit status 141, as a unix tool killed by SIGPIPE; Ctrl-C
  prints ``interrupted`` and exits with 130; neither shows a traceback;
- ``ninefold --version``.
"""

from __future__ import annotations

import errno
import importlib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from itertools import pairwise
from typing import Any, NoReturn, Protocol

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

import ninefold
from ninefold.extras import as_missing_extra
from ninefold.options import FALSE, TRUE
from ninefold.rules import Board, Move, Rules

MAX_ERROR = 300  # characters of an error message shown, at most (about)
BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader went away
INTERRUPTED = 130  # 128 + SIGINT

# click's exceptions, wherever this typer keeps them (recent typers vendor click)
_click_errors = importlib.import_module(typer.BadParameter.__module__)


class _ClickError(Protocol):
    """What is read of a click exception (its class lives where `_click_errors` says)."""

    def format_message(self) -> str: ...


class _Console(Console):
    """A rich console that leaves a closed pipe to the root (rich itself exits with 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True  # drop what is still to be written
        raise BrokenPipeError(errno.EPIPE, "the reader of the output went away")


console = _Console()
err = _Console(stderr=True)


def one_line(message: str, limit: int = MAX_ERROR) -> str:
    """`message` on one line, cut to about `limit` characters.

    >>> one_line("bad input:\\n  " + "x" * 400, 20)
    'bad input: xxxxxxxxx… (411 characters)'
    """
    text = re.sub(r"\s*\n\s*", " ", message.strip())
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _error(message: str) -> None:
    """Print ``error: message`` on one line of stderr."""
    err.print(f"[bold red]error:[/] {escape(one_line(message))}", soft_wrap=True)


def _fail(message: str) -> NoReturn:
    """Print ``error: message`` (one line) and exit with status 2.

    Called while a broken pipe is being handled, it lets the broken pipe go on
    instead: the root ends the command quietly.
    """
    handling = sys.exception()
    if isinstance(handling, BrokenPipeError):
        raise handling
    _error(message)
    raise typer.Exit(2)


def _rules(text: str) -> Rules:
    try:
        return Rules.parse(text)
    except ValueError as exc:
        _fail(str(exc))


def _board(rules: str, moves: str = "", position: str | None = None) -> Board:
    try:
        board = Board(_rules(rules)) if position is None else Board.from_position(position)
        for word in moves.replace(",", " ").split():
            board.push(Move.parse(word))
    except ValueError as exc:
        _fail(str(exc))
    return board


def _silence_stdout() -> None:
    """Point stdout at /dev/null after its reader went away, so that no later
    flush fails again (the Python docs' recipe for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a file (a test runner's buffer)
        pass


def _interrupted() -> None:
    if err.is_terminal:
        err.print()  # after the terminal's ^C
    err.print("interrupted", highlight=False)


@contextmanager
def _ending_quietly() -> Iterator[None]:
    """Turn a closed stdout pipe into exit status 141 and Ctrl-C into "interrupted", 130."""
    try:
        yield
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
    except BrokenPipeError:
        _silence_stdout()
        raise typer.Exit(BROKEN_PIPE) from None
    except KeyboardInterrupt:
        _interrupted()
        raise typer.Exit(INTERRUPTED) from None
    except SystemError as exc:
        # Ctrl-C while numba code runs: numba's dispatcher returns with the
        # KeyboardInterrupt set, and Python reports that as a SystemError caused by it
        if not isinstance(exc.__cause__, KeyboardInterrupt):
            raise
        _interrupted()
        raise typer.Exit(INTERRUPTED) from None


def _flag_with_a_value(exc: _ClickError, args: Sequence[str]) -> str | None:
    """The explanation if a usage error comes from a flag given a value (``--json true``;
    ``--json=true`` gets click's own clear "Option '--json' does not take a value")."""
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return None
    flags = {o for p in ctx.command.params if getattr(p, "is_flag", False) for o in p.opts}
    message = exc.format_message()  # "Got unexpected extra argument (true)", say
    for flag, word in pairwise(args):
        if flag in flags and word.lower() in TRUE + FALSE and word in message:
            return (f"{flag} is a flag and takes no value: give {flag} alone for true and "
                    f"leave it out for false, not {flag} {word}")
    return None


PANELS = ("Play", "Bots and arena", "Platform", "Research")  # the help's sections, in order


class Sections(TyperGroup):
    """A group whose help lists its commands in sections, `panels` in order (each
    command's ``rich_help_panel``; typer's plain help lists them in one), then any
    others under "Commands"; each with its summary, the docstring's first sentence."""

    panels: tuple[str, ...] = ()

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        shown = [(name, command) for name in self.list_commands(ctx)
                 if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if not shown:
            return
        width = max(len(name) for name, _ in shown)  # one column for every section
        limit = formatter.width - 6 - width
        rows = [(getattr(command, "rich_help_panel", None),
                 name.ljust(width), command.get_short_help_str(limit)) for name, command in shown]
        panels = {panel: [(name, text) for where, name, text in rows if where == panel]
                  for panel in self.panels}
        panels["Commands"] = [(name, text) for where, name, text in rows
                              if where not in self.panels]
        for panel, listed in panels.items():
            if listed:
                with formatter.section(panel):
                    formatter.write_dl(listed)


class _Root(Sections):
    """The root command: one-line errors, quiet broken pipes, Ctrl-C in one line, and
    the commands listed in sections (`PANELS`).

    Both ways in go through here: the ``ninefold`` process (`main`) and test
    runners that call ``app``.
    """

    panels = PANELS

    def make_context(self, *args: Any, **extra: Any) -> Any:
        with _ending_quietly():  # --help and --version print while the arguments are read
            return super().make_context(*args, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _ending_quietly():
            try:
                return super().invoke(ctx)
            except ModuleNotFoundError as exc:  # an extra's package: the line that installs it
                what = " ".join(["ninefold", *filter(None, [ctx.invoked_subcommand])])
                missing = as_missing_extra(exc, what)
                if missing is None:
                    raise
                _fail(str(missing))

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        args = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except _click_errors.ClickException as exc:
            help_asked = isinstance(exc, getattr(_click_errors, "NoArgsIsHelpError", ()))
            if help_asked:
                exc.show()  # the help, asked for by giving no arguments
            else:
                ctx = getattr(exc, "ctx", None)
                hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
                _error((_flag_with_a_value(exc, args) or exc.format_message()) + hint)
            code = exc.exit_code
        except typer.Abort:  # end of input at a prompt
            _error("aborted: the input ended")
            code = 1
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=_Root,
    help="Ultimate Tic-Tac-Toe: exact rules, a fast kernel, strong players.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version() -> str:
    try:
        return version("ninefold")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return ninefold.__version__


def _print_version(value: bool) -> None:
    if value:
        print(f"ninefold {_version()}", flush=True)
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                      help="Print the version and exit."),
) -> None:
    """Ultimate Tic-Tac-Toe: exact rules, a fast kernel, strong players."""


def main() -> None:
    """The ``ninefold`` command (``python -m ninefold.cli``; the console script goes
    through `ninefold.command`, which sends ``bot`` the lean way before typer loads)."""
    from ninefold.protocols.botmain import dispatch

    code = dispatch(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    try:
        app(prog_name="ninefold")
    except BrokenPipeError:  # printing an error's message, say
        _silence_stdout()
        sys.exit(BROKEN_PIPE)
    except KeyboardInterrupt:  # between the commands' own handling and the exit
        _interrupted()
        sys.exit(INTERRUPTED)


# the command modules add their commands to `app` (imported last: they import `app`),
# in the order `ninefold --help` lists them in each of its sections (`PANELS`)
from ninefold.cli import train  # noqa: E402

# isort: split
from ninefold.cli import proof  # noqa: E402

# isort: split
from ninefold.cli import game  # noqa: E402

# isort: split
from ninefold.cli import review  # noqa: E402

# isort: split
from ninefold.cli import classic  # noqa: E402

# isort: split
from ninefold.cli import puzzles  # noqa: E402

# isort: split
from ninefold.cli import explorer  # noqa: E402

# isort: split
from ninefold.cli import bot  # noqa: E402

# isort: split
from ninefold.cli import arena  # noqa: E402

# isort: split
from ninefold.cli import web  # noqa: E402

# isort: split
from ninefold.cli import platform  # noqa: E402

__all__ = ["app", "arena", "bot", "classic", "explorer", "game", "main", "platform", "proof",
           "puzzles", "review", "train", "web"]
