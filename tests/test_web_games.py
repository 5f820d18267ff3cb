"""A web game keeps its board (`ninefold.web.games.WebGame.board`): built once, changed with
every move and take-back, and always the position its moves describe."""

from __future__ import annotations

import pytest

from ninefold.rules import Board, Move
from ninefold.web.errors import IllegalMove, Stale
from ninefold.web.games import Mode, WebGame
from ninefold.web.notation import read_start
from ninefold.web.store import GameStore


def replayed(game: WebGame) -> Board:
    """The position `game`'s fields describe, built anew."""
    board = (Board.from_position(game.start) if game.start else
             Board(game.rules, opening=game.opening))
    for move in game.moves:
        board.push(move)
    return board


def test_the_kept_board_follows_moves_and_take_backs() -> None:
    game, tokens = WebGame.new("g", Mode.COMPUTER, opening="53271", level=1)
    token = tokens["x"]
    built = game.board
    for _ in range(6):
        if game.computer_to_move():
            game.computer_plays(next(iter(game.board.legal_moves)))
        else:
            game.play(list(game.board.legal_moves)[-1], token, game.ply)
        assert game.board == replayed(game)
    if game.computer_to_move():
        game.computer_plays(next(iter(game.board.legal_moves)))
    ply = game.ply
    with pytest.raises(IllegalMove):  # a refused move leaves the board as it was
        game.play(game.moves[0], token, game.ply)
    assert game.board == replayed(game) and game.ply == ply
    game.undo(token, game.ply)  # the computer's answer and the human's move
    assert game.ply == ply - 2 and game.board == replayed(game)
    assert game.board is built  # changed, never built again


def test_a_stale_request_changes_nothing() -> None:
    game, tokens = WebGame.new("g", Mode.LOCAL)
    game.play(Move.parse("e5"), tokens["x"], 0)
    with pytest.raises(Stale):
        game.play(Move.parse("e4"), tokens["x"], 0)
    assert [str(m) for m in game.moves] == ["e5"] and game.board == replayed(game)


def test_a_game_read_back_has_its_board(tmp_path) -> None:
    start = read_start('[Rules "standard"]\n1. e5 e4 *')
    game, tokens = WebGame.new("g", Mode.LOCAL, start=start)
    store = GameStore(tmp_path / "web.sqlite")
    store.add(game)
    back = store.get(game.id)
    assert back == game and back.board == game.board == start
    back.play(next(iter(back.board.legal_moves)), tokens["x"], back.ply)
    store.save(back, back.changes)
    assert store.get(game.id).board == back.board


def test_a_game_read_again_builds_its_board_from_the_kept_one(tmp_path) -> None:
    """`KeptBoards`: each read plays only the moves since the last (or takes back those
    gone), yet every board read is the one its moves make, and no two reads share one."""
    store = GameStore(tmp_path / "web.sqlite")
    game, tokens = WebGame.new(store.new_id(), Mode.LOCAL, opening="53271")
    store.add(game)
    first, second = store.get(game.id), store.get(game.id)
    assert first.board is not second.board and first.board == second.board
    first.board.push(next(iter(first.board.legal_moves)))  # a reader's own copy
    assert store.get(game.id).board == replayed(game)
    for _ in range(5):  # moves, then reads: each builds on the kept board
        back = store.get(game.id)
        back.play(next(iter(back.board.legal_moves)), tokens["x"], back.ply)
        store.save(back, back.changes)
        assert store.get(game.id).board == replayed(back)
    back = store.get(game.id)
    back.undo(tokens["x"], back.ply)  # a take-back: the kept board pops
    store.save(back, back.changes)
    assert store.get(game.id).board == replayed(back)
    other = store.get(game.id)  # another writer put other moves at the same ply
    other.undo(tokens["x"], other.ply)
    other.play(list(other.board.legal_moves)[-1], tokens["x"], other.ply)
    store.save(other, other.changes)
    again = store.get(game.id)
    assert again.moves == other.moves and again.board == replayed(other)
