"""The guide's examples are the code's: the protocol exchanges of docs/guide/bots.md are
the lines the referee sends, and the tournament file of docs/guide/arena.md loads.

The exchanges were captured from ``ninefold bot``; these tests rebuild every line the bot
reads from the position the page names, so a change to a protocol's lines (or a slip in
the page) fails here.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ninefold.arena.config import load_toml
from ninefold.protocols.aigames import AIGamesConnection
from ninefold.protocols.clock import TimeControl
from ninefold.protocols.codingame import CodinGameConnection
from ninefold.protocols.connection import BotConnection
from ninefold.protocols.riddles import RiddlesConnection
from ninefold.rules import Board, Mark, Move

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"
OPENING = "a1 b2 d4 a2 a4 c2"  # the page's position: O has won board 0, X is sent to board 5


def section(page: str, heading: str) -> str:
    """The text of the ``## heading`` section of a guide page."""
    text = (GUIDE / page).read_text()
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def exchanges(text: str) -> list[tuple[list[str], list[str]]]:
    """Each ```text block made of ``< `` and ``> `` lines: (lines read, lines written)."""
    out = []
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        lines = block.splitlines()
        if lines and all(line[:2] in ("< ", "> ") for line in lines):
            out.append(([line[2:] for line in lines if line.startswith("< ")],
                         [line[2:] for line in lines if line.startswith("> ")]))
    return out


def seated(cls: type[BotConnection], seat: Mark) -> BotConnection:
    """A connection to no process, only to make lines with."""
    conn = cls.__new__(cls)
    conn.seat = seat
    return conn


def board_after(moves: str, rules: str = "standard") -> tuple[Board, Move | None]:
    board, last = Board(rules), None
    for text in moves.split():
        last = Move.parse(text)
        board.push(last)
    return board, last


def answer_move(conn: BotConnection, line: str) -> Move:
    x, y = conn.parse_answer(line)
    return Move.from_xy(x, y)


@pytest.mark.parametrize("heading, cls", [("AI Games", AIGamesConnection),
                                          ("Riddles.io", RiddlesConnection)])
def test_the_field_protocols_exchanges_are_the_referees_lines(heading, cls):
    blocks = exchanges(section("bots.md", heading))
    conn = seated(cls, Mark.X)
    tc = TimeControl.for_protocol(conn.protocol)
    board, last = board_after(OPENING)
    read, written = blocks[0]
    assert read == conn.setup_lines(tc) + conn.request_lines(board, last, tc.bank_ms)
    move = answer_move(conn, written[0])
    assert board.why_illegal(move) is None
    if heading == "AI Games":  # the next request, after the bot's move and the opponent's d8
        board.push(move)
        board.push(Move.parse("d8"))
        read, written = blocks[1]
        expected = conn.request_lines(board, Move.parse("d8"), 0)
        assert read[:-1] == expected[:-1] and read[-1].startswith("action move ")
        assert board.why_illegal(answer_move(conn, written[0])) is None
    else:  # the second player's first request after X's e5
        board, last = board_after("e5")
        read, written = blocks[1]
        assert read == seated(cls, Mark.O).request_lines(board, last, tc.bank_ms)
        assert board.why_illegal(answer_move(conn, written[0])) is None


def test_the_codingame_exchanges_are_the_referees_lines():
    blocks = exchanges(section("bots.md", "CodinGame"))
    conn = seated(CodinGameConnection, Mark.O)
    conn.rng = random.Random(0)
    board, last = board_after("e5", "codingame")
    for read, written in blocks:
        expected = conn.request_lines(board, last, 100)
        assert read[:2] == expected[:2] and sorted(read[2:]) == sorted(expected[2:])
        move = answer_move(conn, written[0])
        assert board.why_illegal(move) is None
        board.push(move)
        if board.ply == 2:  # the page's opponent then plays b7
            last = Move.parse("b7")
            board.push(last)
    assert len(blocks) == 2


def test_the_arena_guides_tournament_file_loads(tmp_path):
    text = section("arena.md", "Tournaments")
    toml = re.search(r"```toml\n(.*?)```", text, re.S)
    assert toml is not None
    path = tmp_path / "tournament.toml"
    path.write_text(toml.group(1))
    run = load_toml(path)
    assert [seat.name for seat in run.players] == ["mcts", "naive", "starter"]
    assert run.format == "round-robin" and run.games == 4
    starter = run.players[2]
    assert starter.protocol == "riddles" and starter.cwd == str(tmp_path / "starter")
