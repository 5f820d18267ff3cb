"""`proof`: X with open boards from the empty board, a player that never fails.

With open boards the first player has a forced win (docs/guide/proof.md):
`ninefold.proof.search.prove` finds it under the ``refill`` guide, X's move
for every position X can face by ply 43. The package ships that strategy,
proved once and stored as arrays (`ninefold.proof.stored`, ``open-boards.npz``,
about 0.4 MB; a test checks it against the prover): `strategy` reads it once a
process, in about a tenth of a second, and every move after is a lookup.
Should the file be missing or unreadable, `strategy` proves the win again (a
minute or two of CPU), saying so stage by stage on stderr and in `preparing`,
and keeps it in the user's cache directory (`cache_path`) for the next
process. Asked to play O, under other rules, or from a position its
strategy does not reach (a game that did not start empty, or where X
strayed), it refuses (`CannotPlay`) and names the players that can play there.

`phase` names the part of the strategy a position is in, as docs/guide/proof.md
numbers them; `longest_defence` is O's reply that holds out longest against it
(the web board's ``/proof`` replays the win with it).

    $ ninefold play --opponent proof --rules open-boards --first computer   # you lose

>>> from ninefold import Board
>>> ProofPlayer().play(Board("standard"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ninefold.players.proof.CannotPlay: proof plays X with open-boards rules only, not standard: ...
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import register
from ninefold.rules import Board, Mark, Move, Rules

if TYPE_CHECKING:  # the store imports numpy, the prover numba: each only when needed
    from ninefold.proof.stored import Stored

RULES = Rules.parse("open-boards")
ROOT = Board(RULES).position()  # the position the strategy wins from
MAX_PLIES = 43  # the paper's bound, which the refill strategy meets
TABLE_BITS = 20  # 32 MB of table: as fast as the default's 512 MB here, a third of the memory
OTHERS = "level:10 or mcts:net=default"  # the players that play anywhere
CENTRE = 4
SHIPPED = Path(__file__).resolve().parent.parent / "proof" / "open-boards.npz"
Say = Callable[[str], None]


def cache_path() -> Path:
    """Where a strategy proved on this computer is kept: ``ninefold/open-boards.npz``
    under ``$XDG_CACHE_HOME`` (default ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ninefold" / "open-boards.npz"


def _stderr(line: str) -> None:
    print(f"proof: {line}", file=sys.stderr, flush=True)


_made: list[Stored] = []  # the strategy, once read or proved in this process
_stage: list[str] = []  # what the first `strategy` call is doing, while it does it
_LOCK = threading.Lock()  # one `strategy` call reads or proves it; the others wait
_START = threading.Lock()  # one `prepare` starts it


def strategy(say: Say = _stderr) -> Stored:
    """X's winning strategy with open boards from the empty board: read from the shipped
    file (or the cache's) once a process; proved and stored where neither can be read,
    each stage told to `say` (default: a line on stderr) and to `preparing`."""
    if _made:
        return _made[0]
    with _LOCK:
        if not _made:
            try:
                _made.append(_read_or_prove(say))
            finally:
                _stage.clear()
    return _made[0]


def prepare() -> None:
    """Start `strategy` in a thread of its own, unless this process holds the strategy or
    is preparing it already (a server's requests do not wait for it: `preparing`)."""
    with _START:
        if _made or _stage:
            return
        _stage.append("starting")
        threading.Thread(target=strategy, name="proof-strategy", daemon=True).start()


def ready() -> bool:
    """True once this process holds the strategy (`strategy` answers at once)."""
    return bool(_made)


def preparing() -> str | None:
    """What the `strategy` call under way is doing (a line), or None."""
    return None if _made or not _stage else _stage[-1]


def _read_or_prove(say: Say) -> Stored:
    """The shipped strategy, else the cache's, else one proved now and kept in the cache."""
    from ninefold.proof.stored import StoredError, load

    _stage.append("reading the stored strategy")
    for path in (SHIPPED, cache_path()):
        try:
            stored = load(path)
        except FileNotFoundError:
            continue
        except (OSError, StoredError) as exc:
            say(f"{path} is refused: {exc}")
            continue
        if stored.root == ROOT:
            return stored
        say(f"{path} is refused: it wins from {stored.root}, not the empty board")

    def tell(line: str) -> None:
        _stage.append(line)
        say(line)

    stored = make_strategy(tell)
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(stored.to_bytes())
        say(f"stored in {path}: the next process reads it at once")
    except OSError as exc:
        say(f"cannot store it in {path} ({exc}): the next process proves it again")
    return stored


def make_strategy(say: Say | None = None) -> Stored:
    """Prove X's win from `ROOT` and make it `Stored`, each stage told to `say` (what the
    shipped file must equal: a test checks it)."""
    from ninefold.proof.search import prove
    from ninefold.proof.stored import make

    tell = say or (lambda line: None)
    tell("preparing X's forced win (once for this computer): 1 of 2, proving it "
         "(about a minute of CPU)")
    proved = prove(Board.from_position(ROOT), "refill", max_plies=MAX_PLIES,
                   table_bits=TABLE_BITS)
    tell(f"preparing X's forced win: 2 of 2, storing its {len(proved.moves):,} positions "
         "(about a minute of CPU)")
    return make(proved)


class CannotPlay(ValueError):
    """The proof player was asked to move where its strategy does not reach."""


def longest_defence(board: Board) -> tuple[Move, int]:
    """O's reply on `board` (O to move, after a move of the strategy) after which X's win
    comes last, and the plies to it from `board`; `CannotPlay` where a reply of O's leads
    off the strategy (it was not X's move)."""
    won = strategy()
    best: tuple[Move, int] | None = None
    for reply in board.legal_moves:
        after = board.copy()
        after.push(reply)
        plies = won.plies_left(after)
        if plies is None:
            raise CannotPlay(f"proof's strategy does not reach {board.position()}: X's last "
                             "move there is not its own")
        if best is None or plies + 1 > best[1]:
            best = (reply, plies + 1)
    if best is None:
        raise CannotPlay("the game is over: O has no reply")
    return best


class Phase(NamedTuple):
    """A part of the strategy: its number (1-4, docs/guide/proof.md) and its name."""

    number: int
    name: str


def phase(board: Board) -> Phase:
    """The phase of the strategy `board` is in, read from the position: the opening
    while the centre board has room, then X's move to square k of board k (k the outer
    board whose centre X does not hold), O's refilling of board k while it has room,
    and the harvest.

    >>> phase(Board(RULES)).name
    'the opening: X sends O back to the centre board until O has filled it'
    """
    cells = board.cells
    if any(cells[9 * CENTRE + c] is None for c in range(9)):
        return Phase(1, "the opening: X sends O back to the centre board until O has filled it")
    k = next((b for b in range(9) if b != CENTRE and cells[9 * b + CENTRE] is not Mark.X),
             None)
    if k is not None and all(cells[9 * k + c] is None for c in range(9)):
        return Phase(2, f"X takes square {k + 1} of board {k + 1}, the board whose centre "
                        "X lacks")
    if k is not None and any(cells[9 * k + c] is None for c in range(9)):
        return Phase(3, f"O refills board {k + 1}: X sends O back to it after every move")
    return Phase(4, "the harvest: X wins each board it is sent to with one move")


@register("proof")
class ProofPlayer(Player):
    """X's proved winning strategy with open boards; refuses (`CannotPlay`) elsewhere."""

    instant = False  # its first move reads the strategy (a tenth of a second)

    def __init__(self) -> None:  # no options: a spec names it bare, ``proof``
        super().__init__()

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        if board.rules != RULES:
            raise CannotPlay(f"proof plays X with open-boards rules only, not "
                             f"{board.rules.name}: play {OTHERS} there")
        if board.turn is not Mark.X:
            raise CannotPlay(f"proof plays X only (it has a forced win as X): play {OTHERS} "
                             "as O")
        move = strategy().move(board)
        if move is None:
            raise CannotPlay(f"proof's strategy does not reach {board.position()} (it plays "
                             f"from the empty board on): play {OTHERS} there")
        return PlayResult(move, {"phase": phase(board).number})
