"""A winning strategy for X as a certificate: written, read and checked with `Board` alone.

A certificate is text, one position a line: a position string
(`Board.position`) and the move X plays there, separated by a space. Lines
starting with ``#`` are comments. The first position is the root, the
position the strategy wins from (the empty board for the full theorem)::

    # ninefold proof certificate
    open-boards 9/9/9/9/9/9/9/9/9 x - ......... e5
    ...

`check` verifies one with nothing but the reference rules (`ninefold.rules`):
it plays X's move from the root, then every legal reply of O, and demands a
line for each position so reached, until every line of play ends in X's win.
It knows nothing of the search that wrote the certificate, nor of the kernel.

>>> text = "standard 9/9/9/9/9/9/9/9/9 x - ......... e5"
>>> check(text.splitlines())  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ninefold.proof.certificate.CertificateError: not covered: O's reply d4 to X's e5 in ... no line
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass

from ninefold.rules import Board, InvalidMoveError, InvalidPositionError, Move, X


class CertificateError(ValueError):
    """A certificate that cannot be read or does not prove X's win; the message names
    the position (and the line, for an unreadable one)."""


@dataclass(frozen=True)
class Report:
    """What a checked certificate shows."""

    root: str  # the position X wins from
    positions: int  # positions of X the strategy meets (lines used)
    longest: int  # plies of the longest line of play from the root to X's win
    unused: int  # lines never reached from the root


def write(strategy: dict[str, Move], root: str, comments: Iterable[str] = ()) -> str:
    """The certificate's text: the comments, the root's line first, then the rest sorted.

    >>> print(write({"p2 x": Move(0, 0), "p1 x": Move(4, 4), "root": Move(8, 8)}, "root",
    ...             ["a comment"]), end="")
    # a comment
    root i9
    p1 x e5
    p2 x a1
    """
    lines = [f"# {c}" for c in comments]
    lines.append(f"{root} {strategy[root]}")
    lines += [f"{p} {m}" for p, m in sorted(strategy.items()) if p != root]
    return "\n".join(lines) + "\n"


def read(lines: Iterable[str]) -> tuple[str, dict[str, Move]]:
    """(root position, X's move by position) from a certificate's lines;
    `CertificateError` naming the line for one that cannot be read."""
    strategy: dict[str, Move] = {}
    root: str | None = None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        position, _, move_text = line.rpartition(" ")
        if len(position.split()) != 5:
            raise CertificateError(
                f"line {number}: expected a position (5 fields) and a move, got {line[:80]!r}"
            )
        try:
            move = Move.parse(move_text)
        except InvalidMoveError as exc:
            raise CertificateError(f"line {number}: {exc}") from None
        if position in strategy:
            raise CertificateError(f"line {number}: position {position!r} is given twice")
        strategy[position] = move
        root = root or position
    if root is None:
        raise CertificateError("the certificate has no position lines")
    return root, strategy


def root_board(root: str) -> Board:
    """The board of a strategy's root position: a running game with X to move, or a
    `CertificateError` saying why not."""
    try:
        board = Board.from_position(root)
    except InvalidPositionError as exc:
        raise CertificateError(f"the root {root!r} is not a position: {exc}") from None
    if board.turn is not X or board.is_game_over():
        raise CertificateError(f"the root {root!r} is not a running game with X to move")
    return board


def check(lines: Iterable[str]) -> Report:
    """Verify a certificate with the reference `Board` alone; `CertificateError`
    naming the position where it fails."""
    root, strategy = read(lines)
    board = root_board(root)
    longest = plies_to_win(board, strategy)
    return Report(root, len(longest), longest[root], len(strategy) - len(longest))


def plies_to_win(board: Board, strategy: dict[str, Move]) -> dict[str, int]:
    """Plies to X's win along the longest line (O's longest defence) from each position
    of `strategy` met from `board` (X to move), checked as `check` checks them
    (`CertificateError` where it fails)."""
    longest: dict[str, int] = {}  # plies to X's win along the longest line, by position
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 1000))  # a line is at most 81 plies: 2 frames each
    try:
        _longest(board.copy(), board.position(), strategy, longest)
    finally:
        sys.setrecursionlimit(limit)
    return longest


def _longest(board: Board, position: str, strategy: dict[str, Move],
             longest: dict[str, int]) -> int:
    """Plies to X's win along the longest line from `board` (X to move, at
    `position`), every O reply followed; `CertificateError` where it fails."""
    known = longest.get(position)
    if known is not None:
        return known
    move = strategy[position]
    reason = board.why_illegal(move)
    if reason is not None:
        raise CertificateError(f"X's move {move} in {position!r} is illegal: {reason}")
    board.push(move)
    try:
        plies = 1 + _replies(board, position, move, strategy, longest)
    finally:
        board.pop()
    longest[position] = plies
    return plies


def _replies(board: Board, position: str, move: Move, strategy: dict[str, Move],
             longest: dict[str, int]) -> int:
    """Plies to X's win along the longest line after X's `move` (O to move on `board`)."""
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is X:
            return 0
        raise CertificateError(
            f"X's move {move} in {position!r} ends the game without X's win ({outcome.result()})"
        )
    plies = 0
    for reply in list(board.legal_moves):
        board.push(reply)
        try:
            after = board.position()
            outcome = board.outcome()
            if outcome is not None:
                raise CertificateError(
                    f"O's reply {reply} to X's {move} in {position!r} ends the game "
                    f"({outcome.result()})"
                )
            if after not in strategy:
                raise CertificateError(
                    f"not covered: O's reply {reply} to X's {move} in {position!r} "
                    f"reaches {after!r}, which has no line"
                )
            plies = max(plies, 1 + _longest(board, after, strategy, longest))
        finally:
            board.pop()
    return plies
