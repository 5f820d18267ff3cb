"""Classic tic-tac-toe on the web board: the stateless API ``POST /api/classic`` through
FastAPI's test client (rules, the computer's replies, the three views, hostile input),
then the page ``/classic`` in a real browser: Playwright drives Debian's chromium
against a real ``ninefold serve`` process.

The browser tests take screenshots; with ``NINEFOLD_SHOTS=docs/images`` they go to
``docs/images/``, else to a temporary folder."""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

import pytest
import schemathesis
from controls import control, key, wait_until
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from ninefold.classic.game import CELL_NAMES, CELL_OF_NUMBER, MAGIC, ClassicBoard, View
from ninefold.classic.game import status as classic_status
from ninefold.web.app import MAX_BODY_BYTES, create_app
from ninefold.web.classic import ClassicRequest, answer
from ninefold.web.computer import Computer

ROOT = Path(__file__).resolve().parent.parent
CORNERS = {0, 2, 6, 8}


@pytest.fixture(scope="module")
def computer():
    c = Computer(workers=1)  # the big board's; the classic game never asks it
    yield c
    c.close()


@pytest.fixture
def client(tmp_path, computer):
    with TestClient(create_app(tmp_path / "g.sqlite", computer)) as c:
        yield c


def classic(client, **body):
    r = client.post("/api/classic", json=body)
    assert r.status_code == 200, r.text
    return r.json()


# --- the API ------------------------------------------------------------------------------


def test_a_new_game_against_a_friend_waits_for_x(client):
    view = classic(client, moves=[], opponent="friend")
    assert view["moves"] == [] and view["reply"] is None and view["computer"] is None
    assert view["turn"] == "x" and view["you"] == ["x", "o"]
    assert view["legal"] == list(range(9)) and view["cells"] == [""] * 9
    assert view["status"] == "X to move" and view["result"] is None and view["undo"] is None
    assert view["picked"] == {"x": [], "o": []}


def test_every_view_says_what_each_cell_shows():
    view = answer(ClassicRequest(moves=[4, 0], opponent="friend"))
    ttt, pick, magic = (view.views[v] for v in ("tictactoe", "pick15", "magic15"))
    assert ttt.cells == list(CELL_NAMES) and ttt.hint == "a1-c3" and ttt.layout == "grid"
    assert pick.cells == magic.cells == [str(n) for n in MAGIC]
    assert pick.hint == magic.hint == "1-9"
    assert pick.layout == "cards" and magic.layout == "grid"
    assert pick.order == [CELL_OF_NUMBER[n] for n in range(1, 10)]  # cards 1-9
    assert ttt.order == magic.order == list(range(9))
    assert [ttt.title, pick.title, magic.title] == ["TicTacToe", "Pick15", "Magic15"]
    assert view.picked == {"x": [5], "o": [8]}


def test_the_computer_replies_and_opens_when_the_player_is_o(client):
    view = classic(client, moves=[4], opponent="perfect", seed=3)
    assert len(view["moves"]) == 2 and view["reply"] == view["moves"][1] == view["last"]
    assert view["reply"] in CORNERS  # the only moves that do not lose
    assert view["turn"] == "x" and view["you"] == ["x"] and view["computer"] == "o"
    first = classic(client, moves=[], opponent="perfect", side="o", seed=3)
    assert first["moves"] == [first["reply"]] and first["reply"] in CORNERS
    assert first["turn"] == "o" and first["you"] == ["o"] and first["undo"] is None


def test_a_seed_makes_the_reply_repeat():
    replies = {answer(ClassicRequest(moves=[4], opponent="random", seed=7)).reply
               for _ in range(5)}
    assert len(replies) == 1
    unseeded = {answer(ClassicRequest(moves=[4], opponent="random")).reply for _ in range(60)}
    assert len(unseeded) > 1


def test_a_won_game_says_who_won_and_where_in_every_view(client):
    moves = [0, 3, 1, 4, 2]  # X: a1 b1 c1
    view = classic(client, moves=moves, opponent="friend")
    assert (view["result"], view["winner"], view["termination"]) == ("1-0", "x", "line")
    assert view["line"] == [0, 1, 2] and view["turn"] is None and view["legal"] == []
    board = ClassicBoard(moves)
    for v in View:
        assert view["views"][v.value]["status"] == classic_status(board, v)
    assert view["views"]["pick15"]["line"] == "8 + 1 + 6 = 15"
    assert view["views"]["magic15"]["line"] == "8 1 6 (top row)"
    assert view["status"] == "X wins with a1 b1 c1"
    # a computer does not move once the game is over
    assert classic(client, moves=moves, opponent="perfect", side="x")["reply"] is None


def test_a_draw(client):
    view = classic(client, moves=[4, 0, 8, 2, 1, 7, 6, 3, 5], opponent="friend")
    assert view["result"] == "1/2-1/2" and view["winner"] is None and view["line"] is None
    assert view["status"].startswith("Draw")


@pytest.mark.parametrize(("body", "undo"), [
    ({"moves": [4, 0], "opponent": "friend"}, [4]),
    ({"moves": [4], "opponent": "friend"}, []),
    ({"moves": [4, 0], "opponent": "perfect"}, []),  # the player's move and the reply
    ({"moves": [4, 0, 8], "opponent": "perfect"}, [4, 0]),  # X b2, O a1, X c3, O's reply
    ({"moves": [0, 4, 8], "opponent": "perfect", "side": "o"}, [0]),
])
def test_undo_goes_back_to_the_players_last_move(client, body, undo):
    assert classic(client, seed=1, **body)["undo"] == undo


def test_the_computer_opening_cannot_be_taken_back(client):
    assert classic(client, moves=[0], opponent="perfect", side="o")["undo"] is None


@pytest.mark.parametrize(("body", "code", "words"), [
    ({"moves": [4, 4]}, 422, "already taken"),  # a repeated cell
    ({"moves": [9]}, 422, "moves.0"),
    ({"moves": [-1]}, 422, "moves.0"),
    ({"moves": [*range(9), 0]}, 422, "at most 9"),  # ten moves
    ({"moves": [0, 3, 1, 4, 2, 5]}, 422, "the game is over"),  # a move after the win
    ({"moves": "4,0"}, 422, "moves"),
    ({"moves": ["4"]}, 422, "moves.0"),
    ({"moves": [4.5]}, 422, "moves.0"),
    ({"moves": [True]}, 422, "moves.0"),
    ({"moves": None}, 422, "moves"),
    ({"moves": [{"cell": 4}]}, 422, "moves.0"),
    ({"opponent": "minimax"}, 422, "opponent"),
    ({"opponent": 3}, 422, "opponent"),
    ({"side": "z"}, 422, "side"),
    ({"seed": "abc"}, 422, "seed"),
    ({"seed": -1}, 422, "seed"),
    ({"seed": 10**30}, 422, "seed"),
    ([4, 0], 422, "dictionary"),  # not an object
])
def test_hostile_requests_get_a_one_line_4xx(client, body, code, words):
    r = client.post("/api/classic", json=body)
    assert r.status_code == code, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and words in detail, detail


@pytest.mark.parametrize(("content", "code", "words"), [
    ('{"moves": [4, ', 422, "not valid JSON"),
    ("", 422, "Field required"),
    ('{"moves": [' + "4, " * MAX_BODY_BYTES + "4]}", 413, "bytes"),
])
def test_broken_bodies_get_a_one_line_4xx(client, content, code, words):
    r = client.post("/api/classic", content=content,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == code, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and words in detail, detail


def test_the_perfect_player_never_loses_whatever_the_player_does():
    """Every game a player can play against it, as X and as O (in-process: the same
    `answer` the route calls), with two seeds for its choice among equal moves."""
    games = 0
    for seed in (1, 2):
        for side in ("x", "o"):
            todo = [[]]
            while todo:
                moves = todo.pop()
                view = answer(ClassicRequest(moves=moves, opponent="perfect", side=side,
                                             seed=seed))
                if view.result is not None:
                    assert view.winner != side, view.moves
                    games += 1
                    continue
                todo.extend([*view.moves, cell] for cell in view.legal)
    assert games > 500


def test_the_perfect_player_never_loses_over_http(client):
    rng = random.Random(5)
    for start in range(9):
        for side in ("x", "o"):
            view = classic(client, moves=[start] if side == "x" else [],
                           opponent="perfect", side=side)
            while view["result"] is None:
                view = classic(client, moves=[*view["moves"], rng.choice(view["legal"])],
                               opponent="perfect", side=side)
            assert view["winner"] != side


def test_the_page_and_its_files_are_served(client):
    page = client.get("/classic")
    assert page.status_code == 200 and "/static/classic.js" in page.text
    assert "/static/style.css" in page.text and "/static/classic.css" in page.text
    for name in ("classic.js", "classic.css"):
        assert client.get(f"/static/{name}").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/classic" in paths and "/classic" not in paths
    assert 'href="/classic"' in client.get("/").text


APP = create_app(Path(tempfile.mkdtemp()) / "fuzz.sqlite", Computer(workers=1))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).include(path="/api/classic")


@schema.parametrize()
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
def test_fuzzed_requests_never_fail_and_fit_the_schema(case):
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance,
                                   response_schema_conformance])


# --- the page in a browser ---------------------------------------------------------------

OVER = re.compile(r" wins with |^Draw")


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def status(page) -> str:
    return page.get_by_test_id("status").inner_text()


def marks(page) -> list[str]:
    return [page.locator(f".cell[data-cell='{c}'] .mark").inner_text() for c in range(9)]


def labels(page) -> list[str]:
    return [page.locator(f".cell[data-cell='{c}'] .label").inner_text() for c in range(9)]


def fragment(page) -> dict[str, str]:
    return dict(p.split("=", 1) for p in page.url.split("#", 1)[1].split("&"))


def open_classic(page, server: str, link: str = "") -> None:
    page.goto(f"{server}/classic{link}")
    expect(page.get_by_test_id("status")).to_contain_text(re.compile(r"to move|wins|Draw"))


def new_game(page, server: str, opponent: str = "perfect", side: str = "x") -> None:
    open_classic(page, server)
    control(page, "opponent").select_option(opponent)
    (control(page, "side-x") if side == "x" else control(page, "side-o")).check()
    control(page, "new").click()
    expect(page.get_by_test_id("moves").locator("li")).to_have_count(
        0 if side == "x" else 1)
    expect(page.locator(".cell.legal").first).to_be_visible()
    expect(page.locator(".cell.cursor")).to_be_focused()  # the new game is drawn, not the old


def play(page, cell: int) -> None:
    """Click `cell` and wait for the answer (the computer's reply with it)."""
    before = page.locator(".cell.x, .cell.o").count()
    control(page, "cell").and_(page.locator(f"[data-cell='{cell}']")).click()
    wait_until(page,
        f"document.querySelectorAll('.cell.x, .cell.o').length > {before}")
    wait_until(page, "!document.getElementById('board').hasAttribute('aria-busy')")


def choose_view(page, title: str) -> None:
    views = {"TicTacToe": control(page, "view-tictactoe"), "Pick15": control(page, "view-pick15"),
             "Magic15": control(page, "view-magic15")}
    views[title].check()
    expect(page.get_by_role("radio", name=title)).to_be_checked()


def test_a_whole_game_against_the_perfect_player(page, server: str):
    new_game(page, server, "perfect", "x")
    for _ in range(5):
        if OVER.search(status(page)):
            break
        play(page, int(page.locator(".cell.legal").first.get_attribute("data-cell")))
    text = status(page)
    assert OVER.search(text) and not text.startswith("X wins"), text  # it never loses
    assert page.locator(".cell.legal").count() == 0
    if text.startswith("O wins"):
        expect(page.locator(".cell.win")).to_have_count(3)
    assert page.get_by_role("button", name="Undo").is_enabled()


def test_the_view_switch_keeps_the_game(page, server: str, shots: Path):
    new_game(page, server, "perfect", "x")
    play(page, 4)  # b2, the perfect player answers in a corner
    play(page, int(page.locator(".cell.legal").first.get_attribute("data-cell")))
    moves = fragment(page)["m"]
    cells = [int(c) for c in moves.split(",")]
    game_marks, game_status = marks(page), status(page)
    names = page.get_by_test_id("moves").inner_text().split()
    assert names == [CELL_NAMES[c] for c in cells] and labels(page) == list(CELL_NAMES)
    page.screenshot(path=str(shots / "web_classic.png"))

    choose_view(page, "Pick15")
    expect(page.locator("#board.cards")).to_be_visible()
    assert labels(page) == [str(n) for n in MAGIC] and marks(page) == game_marks
    assert status(page) == game_status and fragment(page)["m"] == moves
    assert fragment(page)["v"] == "pick15"
    assert page.get_by_test_id("moves").inner_text().split() == [str(MAGIC[c]) for c in cells]
    x_numbers = sorted(MAGIC[c] for c in cells[0::2])
    expect(page.get_by_test_id("picked-x")).to_have_text(" ".join(map(str, x_numbers)))
    # the cards lie in number order, 1 to 9
    lefts = [page.locator(f".cell[data-cell='{CELL_OF_NUMBER[n]}']").bounding_box()["x"]
             for n in range(1, 10)]
    assert lefts == sorted(lefts)
    page.screenshot(path=str(shots / "web_classic_pick15.png"))

    choose_view(page, "Magic15")
    expect(page.locator("#board.view-magic15")).to_be_visible()
    assert labels(page) == [str(n) for n in MAGIC] and marks(page) == game_marks
    assert status(page) == game_status and fragment(page)["m"] == moves
    expect(page.get_by_test_id("picked")).to_be_hidden()

    choose_view(page, "TicTacToe")
    expect(page.locator("#board.view-tictactoe")).to_be_visible()
    assert labels(page) == list(CELL_NAMES) and marks(page) == game_marks
    assert status(page) == game_status and fragment(page)["m"] == moves
    assert page.get_by_test_id("moves").inner_text().split() == names

    # a move in the Pick15 view is the same move
    choose_view(page, "Pick15")
    free = int(page.locator(".cell.legal").first.get_attribute("data-cell"))
    play(page, free)
    assert fragment(page)["m"].startswith(f"{moves},{free}")


def test_a_reload_and_a_shared_link_restore_the_game(browser, page, server: str):
    new_game(page, server, "naive", "o")  # the computer opens
    play(page, int(page.locator(".cell.legal").first.get_attribute("data-cell")))
    choose_view(page, "Magic15")
    game_marks = marks(page)
    moves = page.get_by_test_id("moves").locator("li").all_inner_texts()
    link = page.url
    assert fragment(page)["o"] == "naive" and fragment(page)["s"] == "o"
    page.reload()
    expect(page.locator("#board.view-magic15")).to_be_visible()
    expect(page.get_by_test_id("moves").locator("li")).to_have_text(moves)
    assert marks(page) == game_marks and page.url == link
    assert page.get_by_role("radio", name="Magic15").is_checked()
    assert page.locator("select[name=opponent]").input_value() == "naive"
    other = browser.new_context().new_page()
    try:
        other.goto(link)
        expect(other.get_by_test_id("moves").locator("li")).to_have_text(moves)
        assert marks(other) == game_marks
        expect(other.locator("#who")).to_have_text("You play O against the naive player.")
    finally:
        other.context.close()


def test_undo_takes_back_to_the_players_last_move(page, server: str):
    new_game(page, server, "perfect", "x")
    play(page, 4)
    play(page, int(page.locator(".cell.legal").first.get_attribute("data-cell")))
    two = fragment(page)["m"].split(",")[:2]
    control(page, "undo").click()
    expect(page.locator(".cell.x, .cell.o")).to_have_count(2)
    assert fragment(page)["m"].split(",") == two
    control(page, "undo").click()
    expect(page.locator(".cell.x, .cell.o")).to_have_count(0)
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()


def test_keyboard_play_with_arrows_and_enter(page, server: str):
    new_game(page, server, "friend")
    cursor = page.locator(".cell.cursor")
    key(page, "board", "ArrowUp")
    expect(cursor).to_have_attribute("aria-label", re.compile(r"^b1:"))
    key(page, "board", "ArrowDown")
    key(page, "board", "ArrowLeft")
    expect(cursor).to_have_attribute("aria-label", re.compile(r"^a2:"))
    key(page, "board", "ArrowRight")
    key(page, "board", "ArrowRight")  # from b2 to c2
    key(page, "board", "Enter")
    expect(page.locator(".cell[data-cell='5'] .mark")).to_have_text("X")
    expect(page.get_by_test_id("status")).to_contain_text("O to move")
    expect(page.locator(".cell[data-cell='5']")).to_have_attribute(
        "aria-label", re.compile(r"^c2: X, last move"))
    choose_view(page, "Pick15")  # the cursor moves along the cards, 7 -> 8
    page.locator(".cell[data-cell='5']").focus()
    key(page, "board", "ArrowRight")
    key(page, "board", "Space")
    expect(page.locator(".cell[data-cell='0'] .mark")).to_have_text("O")
    expect(page.get_by_test_id("picked-o")).to_have_text("8")


def test_a_hostile_link_is_refused_as_text(page, server: str):
    page.goto(f"{server}/classic#m=4,4&o=perfect")
    expect(page.get_by_test_id("error")).to_contain_text("cannot be restored")
    expect(page.get_by_test_id("error")).to_contain_text("already taken")
    expect(page.locator(".cell.legal")).to_have_count(9)  # a new game instead
    page.goto("about:blank")  # a page load, not a change of fragment: the game above may
    # still write its own fragment back when its answer comes, on a busy machine
    page.goto(f"{server}/classic#m=<img src=x onerror=alert(1)>")
    expect(page.get_by_test_id("error")).to_contain_text("its moves must be cells 0-8")
    assert page.locator("img").count() == 0


@pytest.mark.parametrize("moves", ["4,0,9", "4,-1", "4,1.5", "a1"])
def test_a_link_with_moves_that_are_not_cells_says_so_in_words(page, server: str, moves: str):
    page.goto(f"{server}/classic#m={moves}&o=friend")
    expect(page.get_by_test_id("error")).to_have_text(
        "The link's game cannot be restored (its moves must be cells 0-8 (0 is a1, 4 the"
        " centre, 8 is c3)): here is a new game.")
    expect(page.locator(".cell.legal")).to_have_count(9)


def test_the_page_sets_text_only_and_holds_no_rules():
    code = (ROOT / "src/ninefold/web/static/classic.js").read_text()
    assert "innerHTML" not in code and "insertAdjacentHTML" not in code
    assert "8, 1, 6" not in code and "[8,1,6" not in code  # no magic square of its own
