"""A puzzle and its solution tree, read from and written to one JSON line each.

A puzzle is a position from a real game where the side to move (the
*attacker*) has a forced win within `plies` plies and exactly one first move
wins that soon. Its solution is a tree: at each of the attacker's turns the
move to play (`Node.move`), and after it, for every legal reply of the
defender's, the attacker's next node (`Node.replies`); a node with no replies
ends the game. `line` is the main line: the defence that lasts longest, with
the attacker's answers.

One line of a puzzles file:

    {"id": "3f9a0c1e2b", "rules": "standard",
     "position": "standard 9/9/... x 4 .........", "plies": 3,
     "line": ["e5", "d4", "b2"], "tree": {"move": "e5", "replies": {"d4": {"move": "b2"}, ...}},
     "rating": 1340, "themes": ["middle", "two-threats"],
     "seen": 2, "missed": 1,
     "source": {"file": "records/x.jsonl", "game": 12, "ply": 34}}

>>> puzzle = next(p for p in load() if p.plies == 1)   # a shipped win in one
>>> puzzle.tree.replies, puzzle.line == (puzzle.tree.move,)
({}, True)
>>> Puzzle.from_json(puzzle.to_json()) == puzzle
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ninefold.rules import Board, InvalidMoveError, InvalidPositionError, Move, Rules

PHASES = ("opening", "middle", "end")
KINDS = ("win-at-once", "send-to-full", "two-threats")
THEMES = PHASES + KINDS
SHIPPED = "puzzles.jsonl"  # the package's own file


class InvalidPuzzleError(ValueError):
    """A puzzle line that cannot be read or does not fit its position."""


@dataclass(frozen=True)
class Node:
    """The attacker's move at one turn, and the next node after each defender reply."""

    move: Move
    replies: dict[Move, Node] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"move": str(self.move)}
        if self.replies:
            out["replies"] = {str(m): n.to_json() for m, n in self.replies.items()}
        return out

    @classmethod
    def from_json(cls, data: Any) -> Node:
        if not isinstance(data, dict) or not isinstance(data.get("move"), str):
            raise InvalidPuzzleError("a tree node must be an object with a \"move\"")
        replies = data.get("replies", {})
        if not isinstance(replies, dict):
            raise InvalidPuzzleError("a tree node's \"replies\" must be an object")
        return cls(Move.parse(data["move"]),
                   {Move.parse(k): cls.from_json(v) for k, v in replies.items()})

    def size(self) -> int:
        """The attacker's nodes in this tree."""
        return 1 + sum(n.size() for n in self.replies.values())

    def depth(self) -> int:
        """The plies of the longest defence from here, the attacker's move counted."""
        return 1 + max((1 + n.depth() for n in self.replies.values()), default=0)

    def longest_reply(self) -> Move:
        """The defender's reply that lasts longest (the first in board order of those)."""
        return max(self.replies, key=lambda m: (self.replies[m].depth(), -m.action))


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position, the solution, and what is known of it."""

    id: str
    position: str
    plies: int
    line: tuple[Move, ...]
    tree: Node
    rating: int
    themes: tuple[str, ...]
    seen: int  # the games where the position came with this side to move
    missed: int  # of those, the games where the mover did not play the winning move
    source: dict[str, Any]

    @property
    def rules(self) -> Rules:
        return self.board().rules

    def board(self) -> Board:
        """The puzzle's position."""
        return Board.from_position(self.position)

    def to_json(self) -> str:
        return json.dumps({
            "id": self.id, "rules": self.board().rules.name, "position": self.position,
            "plies": self.plies, "line": [str(m) for m in self.line],
            "tree": self.tree.to_json(), "rating": self.rating, "themes": list(self.themes),
            "seen": self.seen, "missed": self.missed, "source": self.source,
        }, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Puzzle:
        """A puzzle from its JSON line; `InvalidPuzzleError` (one line) if it is not one."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidPuzzleError(f"not JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(data, dict):
            raise InvalidPuzzleError("a puzzle must be a JSON object")
        try:
            puzzle = cls(
                str(data["id"]), str(data["position"]), int(data["plies"]),
                tuple(Move.parse(m) for m in data["line"]), Node.from_json(data["tree"]),
                int(data["rating"]), tuple(str(t) for t in data["themes"]),
                int(data["seen"]), int(data["missed"]), dict(data["source"]))
            board = puzzle.board()
        except KeyError as exc:
            raise InvalidPuzzleError(f"a puzzle needs the field {exc.args[0]!r}") from None
        except (InvalidMoveError, InvalidPositionError, TypeError, ValueError) as exc:
            raise InvalidPuzzleError(str(exc).splitlines()[0]) from None
        if data.get("rules") != board.rules.name:
            raise InvalidPuzzleError(f"rules {data.get('rules')!r} differ from the position's "
                                     f"{board.rules.name!r}")
        unknown = set(puzzle.themes) - set(THEMES)
        if unknown:
            raise InvalidPuzzleError(f"unknown theme {sorted(unknown)[0]!r}: themes are "
                                     f"{', '.join(THEMES)}")
        if not puzzle.line or puzzle.line[0] != puzzle.tree.move:
            raise InvalidPuzzleError("the line must begin with the tree's first move")
        return puzzle


def read_puzzles(lines: Iterable[str], where: str = "puzzles") -> Iterator[Puzzle]:
    """The puzzles of a file's lines (blank lines skipped); `InvalidPuzzleError` naming
    the line that is not a puzzle."""
    for number, text in enumerate(lines, 1):
        if text.strip():
            try:
                yield Puzzle.from_json(text)
            except InvalidPuzzleError as exc:
                raise InvalidPuzzleError(f"{where} line {number}: {exc}") from None


def load(path: Path | None = None) -> list[Puzzle]:
    """The puzzles of a file, or those shipped with ninefold."""
    if path is None:
        text = resources.files("ninefold.puzzles").joinpath(SHIPPED).read_text("utf-8")
        return list(read_puzzles(text.splitlines(), SHIPPED))
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise InvalidPuzzleError(f"cannot read {path}: {exc.strerror}") from None
    return list(read_puzzles(text.splitlines(), str(path)))


def write(puzzles: Iterable[Puzzle], path: Path) -> None:
    """Write puzzles, one JSON line each."""
    path.write_text("".join(p.to_json() + "\n" for p in puzzles), "utf-8")
