"""Puzzles on the web: the API answers tries from the solution tree, rates the first
finished try of each solver (Glicko-2), refuses bad input in one line; the page
``/puzzles`` is solved by clicking, gives a hint (the board, then the square), retries,
shows the solution at the end, moves on to the next puzzle, filters by theme, and reads
well on a phone and in the dark."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from accessibility import assert_accessible
from controls import control
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from webserver import app_client

from ninefold.puzzles.puzzle import Puzzle
from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.puzzles import shipped

SOLVER = "testsolver01"
LEGAL = re.compile(r"\blegal\b")


client = pytest.fixture(scope="module", name="client")(app_client)


def of_plies(plies: int, index: int = 0) -> Puzzle:
    return [p for p in shipped().values() if p.plies == plies][index]


def attempt(client: TestClient, puzzle: Puzzle, moves: list[str], solver: str = SOLVER) -> dict:
    r = client.post(f"/api/puzzles/{puzzle.id}/try", json={"solver": solver, "moves": moves})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_puzzle_is_shown_without_its_solution(client: TestClient):
    puzzle = of_plies(5)
    view = client.get(f"/api/puzzles/{puzzle.id}", params={"solver": SOLVER}).json()
    assert view["board"]["position"] == puzzle.position and view["plies"] == 5
    assert view["rating"] == {"rating": puzzle.rating, "rd": 250, "tries": 0}
    assert "line" not in view and "tree" not in json.dumps(view)
    assert view["source"].startswith("records/")


def test_the_solution_line_solves_and_rates_the_first_try_only(client: TestClient):
    puzzle = of_plies(5, 1)
    attackers = [str(m) for m in puzzle.line[0::2]]
    first = attempt(client, puzzle, attackers[:1], "solverfirst1")
    assert first["state"] == "going" and first["reply"] == str(puzzle.line[1])
    assert first["line"] is None and not first["rated"]
    solved = attempt(client, puzzle, attackers, "solverfirst1")
    assert solved["state"] == "solved" and solved["rated"]
    assert solved["line"] == [str(m) for m in puzzle.line]
    assert solved["solver"]["rating"] > 1500 and solved["solver"]["tries"] == 1
    assert solved["rating"]["rating"] < puzzle.rating
    again = attempt(client, puzzle, attackers, "solverfirst1")  # a retry: never rated
    assert not again["rated"] and again["solver"] == solved["solver"]


def test_a_wrong_move_fails_and_an_illegal_one_says_why(client: TestClient):
    puzzle = of_plies(3)
    board = puzzle.board()
    wrong = next(str(m) for m in board.legal_moves if m != puzzle.tree.move)
    failed = attempt(client, puzzle, [wrong], "solverwrong1")
    assert failed["state"] == "failed" and failed["rated"]
    assert failed["message"] == f"{wrong} is not the move: it lets the win slip"
    assert failed["line"] == [str(m) for m in puzzle.line]
    assert failed["solver"]["rating"] < 1500 and failed["rating"]["rating"] > puzzle.rating
    taken = next(str(m) for m in map(_square, range(81)) if board.cells[_action(m)] is not None)
    illegal = attempt(client, puzzle, [taken], "solverwrong2")
    assert illegal["state"] == "failed" and "is not legal here" in illegal["message"]


def _square(action: int) -> str:
    from ninefold.rules import Move

    return str(Move.from_action(action))


def _action(square: str) -> int:
    from ninefold.rules import Move

    return Move.parse(square).action


def test_a_hint_names_the_board_then_the_square_and_fails_the_try(client: TestClient):
    puzzle = of_plies(3, 1)
    r = client.post(f"/api/puzzles/{puzzle.id}/hint", json={"solver": "solverhint01", "moves": []})
    hint = r.json()
    assert (hint["board"], hint["square"]) == (puzzle.tree.move.board + 1, str(puzzle.tree.move))
    assert hint["solver"]["rating"] < 1500 and hint["solver"]["tries"] == 1
    solved = attempt(client, puzzle, [str(m) for m in puzzle.line[0::2]], "solverhint01")
    assert solved["state"] == "solved" and not solved["rated"]
    assert solved["solver"]["rating"] < 1500  # the hint was the rated try, failed


def test_a_damaged_puzzles_file_answers_one_line_not_500(tmp_path: Path):
    """The server reads its puzzles on the first request: a damaged file answers 503 with
    the file's line, and ``ninefold serve --puzzles`` refuses it in one line at once."""
    import subprocess
    import sys

    bad = tmp_path / "puzzles.jsonl"
    bad.write_text(next(iter(shipped().values())).to_json() + "\n{oops\n")
    with TestClient(create_app(tmp_path / "web.sqlite", puzzles=bad)) as c:
        for answer in (c.get("/api/puzzles", params={"solver": SOLVER}),
                       c.post("/api/puzzles/x/try", json={"solver": SOLVER, "moves": []})):
            assert answer.status_code == 503
            assert answer.json()["detail"] == (f"the puzzles cannot be read: {bad} line 2: "
                                               "not JSON: Expecting property name enclosed in "
                                               "double quotes at column 2")
    good = tmp_path / "good.jsonl"
    good.write_text("".join(p.to_json() + "\n" for p in list(shipped().values())[:2]))
    with TestClient(create_app(tmp_path / "web2.sqlite", puzzles=good)) as c:
        assert c.get("/api/puzzles", params={"solver": SOLVER}).json()["id"] in {
            p.id for p in list(shipped().values())[:2]}
    proc = subprocess.run([sys.executable, "-m", "ninefold.cli", "serve", "--port", "0",
                           "--db", str(tmp_path / "web3.sqlite"), "--puzzles", str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and f"{bad} line 2: not JSON" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_bad_input_is_one_line(client: TestClient):
    puzzle = of_plies(1)
    r = client.get("/api/puzzles/no-such-puzzle", params={"solver": SOLVER})
    assert r.status_code == 404 and r.json() == {"detail": "no puzzle 'no-such-puzzle' here"}
    r = client.post("/api/puzzles/no-such-puzzle/try", json={"solver": SOLVER, "moves": []})
    assert r.status_code == 404
    r = client.post(f"/api/puzzles/{puzzle.id}/try", json={"solver": SOLVER, "moves": ["j1"]})
    assert r.status_code == 422 and r.json()["detail"].startswith("cannot read move 'j1'")
    r = client.post(f"/api/puzzles/{puzzle.id}/try",
                    json={"solver": SOLVER, "moves": [str(puzzle.tree.move), "e5"]})
    assert r.status_code == 422 and "the puzzle ended after move 1" in r.json()["detail"]
    r = client.get("/api/puzzles", params={"solver": SOLVER, "theme": "forks"})
    assert r.status_code == 422 and r.json()["detail"].startswith("no theme 'forks'")
    r = client.get("/api/puzzles", params={"solver": "short"})
    assert r.status_code == 422
    for body in (r.json(),):
        assert "\n" not in json.dumps(body)


def test_the_next_puzzle_keeps_to_the_theme_and_avoids_the_one_seen(client: TestClient):
    seen = set()
    for _ in range(5):
        view = client.get("/api/puzzles", params={"solver": "solvertheme1",
                                                  "theme": "two-threats"}).json()
        assert "two-threats" in view["themes"]
        seen.add(view["id"])
        after = client.get("/api/puzzles", params={"solver": "solvertheme1",
                                                   "after": view["id"]}).json()
        assert after["id"] != view["id"]
    assert len(seen) > 1


def test_the_next_puzzle_keeps_to_the_rules(client: TestClient):
    presets = {p.position.split()[0] for p in shipped().values()}
    assert "standard" in presets
    for rules in presets:
        view = client.get("/api/puzzles", params={"solver": SOLVER, "rules": rules}).json()
        assert view["rules"] == rules and view["board"]["position"].startswith(rules + " ")
    r = client.get("/api/puzzles", params={"solver": SOLVER, "rules": "chess"})
    assert r.status_code == 422 and r.json()["detail"].startswith("no rules 'chess' here")


# --- the page ---------------------------------------------------------------------------


def test_the_page_is_solved_by_clicking_with_the_defence_played(page: Page, server: str):
    puzzle = of_plies(5, 2)
    page.goto(f"{server}/puzzles/{puzzle.id}")
    status = page.get_by_test_id("status")
    expect(page.get_by_test_id("task")).to_contain_text("win within 5 plies")
    for i, move in enumerate(puzzle.line[0::2]):
        expect(control(page, "puzzle-cell").and_(page.locator(f"[data-square={move}]"))
               ).to_have_class(LEGAL)
        control(page, "puzzle-cell").and_(page.locator(f"[data-square={move}]")).click()
        if 2 * i + 1 < len(puzzle.line):
            expect(status).to_have_text(f"The defence: {puzzle.line[2 * i + 1]}. Your move.")
    expect(status).to_contain_text("Solved")
    expect(page.get_by_test_id("solution")).to_be_visible()
    expect(page.get_by_test_id("solution").locator("li")).to_have_count((len(puzzle.line) + 1) // 2)
    expect(page.get_by_test_id("ratings")).to_contain_text("(1 rated)")


def test_the_hint_the_retry_the_failure_and_the_next_puzzle(page: Page, server: str):
    puzzle = of_plies(3, 2)
    page.goto(f"{server}/puzzles/{puzzle.id}")
    status = page.get_by_test_id("status")
    expect(status).to_contain_text("find the only move")
    control(page, "puzzle-hint").click()
    expect(status).to_have_text(f"Hint: play in board {puzzle.tree.move.board + 1}.")
    expect(page.get_by_test_id("ratings")).to_contain_text("(1 rated)")  # a hint: failed
    expect(page.locator(".small.hint-board")).to_have_attribute(
        "data-board", str(puzzle.tree.move.board))
    control(page, "puzzle-hint").click()
    expect(status).to_have_text(f"Hint: play {puzzle.tree.move}.")
    expect(page.locator(".cell.hint-cell")).to_have_attribute("data-square", str(puzzle.tree.move))
    wrong = next(str(m) for m in puzzle.board().legal_moves if m != puzzle.tree.move)
    page.locator(f"[data-square={wrong}]").click()
    expect(status).to_have_text(f"Failed: {wrong} is not the move: it lets the win slip.")
    expect(page.get_by_test_id("solution")).to_contain_text(str(puzzle.line[0]))
    expect(control(page, "puzzle-hint")).to_be_disabled()
    control(page, "puzzle-retry").click()
    expect(status).to_contain_text("find the only move")
    expect(page.get_by_test_id("solution")).to_be_hidden()
    expect(page.locator(f"[data-square={wrong}]")).to_have_class(LEGAL)
    control(page, "puzzle-next").click()
    expect(page).not_to_have_url(f"{server}/puzzles/{puzzle.id}")
    control(page, "puzzle-theme").select_option("send-to-full")
    expect(page.get_by_test_id("about")).to_contain_text("send-to-full")
    control(page, "puzzle-theme").select_option("")
    control(page, "puzzle-rules").select_option("open-boards")
    expect(page.get_by_test_id("about")).to_contain_text("Rules: open-boards.")


def test_the_site_leads_to_the_puzzles(page: Page, server: str):
    page.goto(server + "/")
    control(page, "nav-puzzles").click()
    expect(page).to_have_url(re.compile(re.escape(server) + r"/puzzles/\w+$"))
    expect(page.get_by_test_id("task")).to_contain_text("to play and win within")


def test_an_unknown_puzzle_says_so_in_one_line(page: Page, server: str):
    page.goto(f"{server}/puzzles/nothing-here")
    expect(page.get_by_test_id("error")).to_have_text("no puzzle 'nothing-here' here")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_passes_axe_and_fits_a_phone(browser: Browser, server: str, scheme: str,
                                              shots: Path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    puzzle = of_plies(5, 3)
    page.goto(f"{server}/puzzles/{puzzle.id}")
    expect(page.get_by_test_id("ratings")).to_contain_text("Your rating")
    assert_accessible(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    page.screenshot(path=str(shots / f"puzzles_phone_{scheme}.png"), full_page=True)
    context.close()


def test_a_logged_in_account_keeps_its_rating_across_browsers(tmp_path: Path):
    """With the platform, a logged-in player's tries rate the account, whichever browser
    id the page sends; logged out, the browser's own rating is untouched."""
    computer = Computer(workers=1)
    app = create_app(tmp_path / "web.sqlite", computer,
                     platform_url=f"sqlite:///{tmp_path / 'platform.sqlite'}")
    puzzle = of_plies(3, 3)
    line = [str(m) for m in puzzle.line[0::2]]
    with TestClient(app) as client:
        r = client.post("/api/platform/signup",
                        json={"name": "solver", "password": "puzzles all day long"})
        assert r.status_code in (200, 201), r.text
        solved = attempt(client, puzzle, line, "browserone1")
        assert solved["rated"] and solved["solver"]["rating"] > 1500
        other = client.get(f"/api/puzzles/{puzzle.id}", params={"solver": "browsertwo2"})
        assert other.json()["solver"] == solved["solver"]  # the account, not the browser
        assert not attempt(client, puzzle, line, "browsertwo2")["rated"]
        client.post("/api/platform/logout")
        alone = client.get(f"/api/puzzles/{puzzle.id}", params={"solver": "browserone1"})
        assert alone.json()["solver"] == {"rating": 1500, "rd": 350, "tries": 0}
    computer.close()
