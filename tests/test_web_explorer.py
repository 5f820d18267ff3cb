"""The opening explorer on the web (`ninefold.web.explorer`): its API over a small real
index (five games of a match record), the page in the browser (a move goes deeper, Back
goes up, the filters, the link to the analysis board, the engine's evaluation), axe, and
bad input in one line."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from accessibility import assert_accessible
from conftest import chromium_missing
from controls import assert_every_control_tested, control
from needs import require
from playwright.sync_api import Browser, Page, expect
from test_explorer import match_file

from ninefold.explorer import Explorer, read_games_from


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    return match_file(tmp_path_factory.mktemp("explorer") / "five.jsonl", 5)


@pytest.fixture(scope="module")
def explorer_server(tmp_path_factory, record):
    """A ``ninefold serve --explorer`` process over an index of the record's games."""
    from webserver import start_server, stop_server

    folder = tmp_path_factory.mktemp("explorer-web")
    ex = Explorer(folder / "index.sqlite")
    ex.add(read_games_from(record))
    ex.close()
    proc, url = start_server(folder / "games.sqlite", 0, "--explorer",
                             str(folder / "index.sqlite"))
    yield url
    stop_server(proc)


def first_moves(record: Path) -> Counter[str]:
    return Counter(json.loads(line)["moves"][0] for line in record.read_text().splitlines()[1:])


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=60) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def test_the_api_counts_the_games(explorer_server, record):
    status, view = get(explorer_server + "/api/explorer")
    assert status == 200
    assert view["games"] == 5 and view["rules"] == "standard"
    assert {m["move"]: m["games"] for m in view["moves"]} == dict(first_moves(record))
    move = view["moves"][0]["move"]
    status, deeper = get(explorer_server + "/api/explorer?" + urllib.parse.urlencode(
        {"moves": move}))
    assert deeper["games"] == view["moves"][0]["games"]
    assert deeper["board"]["turn"] == "o"
    _, web = get(explorer_server + "/api/explorer?source=web")
    assert web["games"] == 0 and web["moves"] == []


@pytest.mark.parametrize(("query", "says"), [
    ({"moves": "e5 zz"}, "zz"),
    ({"position": "standard 9/9"}, "5 fields"),
    ({"position": "open-boards 9/9/9/9/9/9/9/9/9 x - .........", "rules": "standard"},
     "under open-boards rules, not standard"),
    ({"source": "chess"}, "unknown source 'chess'"),
])
def test_bad_queries_are_400_in_one_line(explorer_server, query, says):
    status, body = get(explorer_server + "/api/explorer?" + urllib.parse.urlencode(query))
    assert status == 400 and says in body["detail"] and "\n" not in body["detail"]


def test_a_server_without_an_index_says_so(server):
    status, body = get(server + "/api/explorer")
    assert status == 404 and "ninefold serve --explorer FILE" in body["detail"]


def test_the_engine_evaluates_one_position_at_a_time(tmp_path, record):
    from ninefold.web.errors import TooMany
    from ninefold.web.explorer import ExplorerIndex

    ex = Explorer(tmp_path / "index.sqlite")
    ex.add(read_games_from(record))
    ex.close()
    index = ExplorerIndex(tmp_path / "index.sqlite")
    assert index.evaluating.acquire(blocking=False)  # as while another request evaluates
    with pytest.raises(TooMany, match=r"^the engine is evaluating another position"):
        index.ask(None, "", None, None, 50.0)
    _, answer = index.ask(None, "", None, None)  # a plain question is answered
    assert answer.games == 5 and not answer.evaluated
    index.evaluating.release()
    index.close()


def test_serve_refuses_a_file_that_is_no_index_in_one_line(tmp_path):
    games = tmp_path / "games.sqlite"
    sqlite3.connect(games).execute("CREATE TABLE web_games (id TEXT)").connection.commit()
    for index, says in ((tmp_path / "none.sqlite", "no explorer index"),
                        (games, "is no explorer index: it holds the tables web_games")):
        proc = subprocess.run([sys.executable, "-m", "ninefold.cli", "serve", "--port", "0",
                               "--db", str(tmp_path / "web.sqlite"), "--explorer", str(index)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and says in proc.stderr
        assert proc.stderr.count("\n") == 1


require("Debian's chromium", chromium_missing(), module=True)


def test_without_an_index_the_page_says_so_in_one_line(page: Page, server: str):
    page.goto(server + "/")
    control(page, "nav-explorer").click()
    expect(page).to_have_url(server + "/explorer")
    expect(page.get_by_test_id("error")).to_have_text(re.compile(
        r"^no explorer index on this server: start it with ninefold serve --explorer FILE"))


def test_a_move_goes_deeper_and_back_goes_up(page: Page, explorer_server: str, record):
    page.goto(explorer_server + "/explorer")
    move, games = first_moves(record).most_common(1)[0]
    expect(page.get_by_test_id("status")).to_contain_text("5 games reached this position")
    expect(control(page, "explorer-move")).to_have_count(len(first_moves(record)))
    control(page, "explorer-move").filter(has_text=re.compile(f"^{move}$")).click()
    expect(page).to_have_url(re.compile(r"moves=" + move + "$"))
    expect(page.get_by_test_id("line")).to_have_text(f"Moves: {move}")
    expect(page.get_by_test_id("status")).to_contain_text(f"{games} games reached")
    expect(page.locator(f".cell[data-square='{move}']")).to_have_text("X")
    reply = control(page, "explorer-move").first.inner_text()
    page.locator(f".cell[data-square='{reply}']").click()  # on the board: the same
    expect(page.get_by_test_id("line")).to_have_text(f"Moves: {move} {reply}")
    expect(control(page, "explorer-cell").and_(page.locator(f"[data-square='{reply}']"))
           ).to_have_text("O")
    control(page, "explorer-back").click()
    expect(page.get_by_test_id("line")).to_have_text(f"Moves: {move}")
    expect(page.locator(f".cell[data-square='{reply}']")).to_have_text("")
    page.go_back()  # the browser's own Back: the address holds the position
    expect(page.get_by_test_id("line")).to_have_text(f"Moves: {move} {reply}")
    shared = page.url
    control(page, "explorer-start").click()
    expect(page.get_by_test_id("line")).to_have_text("The first position.")
    expect(control(page, "explorer-back")).to_be_disabled()
    page.goto(shared)  # a link shows the same position
    expect(page.get_by_test_id("line")).to_have_text(f"Moves: {move} {reply}")


def test_the_filters_and_the_analysis_link(page: Page, explorer_server: str):
    page.goto(explorer_server + "/explorer?moves=" + "")
    expect(page.get_by_test_id("status")).to_contain_text("5 games")
    control(page, "explorer-source").select_option("arena")
    expect(page).to_have_url(re.compile(r"source=arena"))
    expect(page.get_by_test_id("status")).to_contain_text("No game from arena in the index")
    control(page, "explorer-source").select_option("records")
    expect(page.get_by_test_id("status")).to_contain_text("5 games from records")
    control(page, "explorer-rules").select_option("open-boards")
    expect(page.get_by_test_id("status")).to_contain_text("No game from records")
    expect(page).to_have_url(re.compile(r"rules=open-boards"))
    control(page, "explorer-analysis").click()
    expect(page).to_have_url(re.compile(r"/analysis\?position=open-boards"))


def test_a_position_from_another_preset_is_one_line(page: Page, explorer_server: str):
    position = urllib.parse.quote("open-boards 9/9/9/9/9/9/9/9/9 x - .........")
    page.goto(f"{explorer_server}/explorer?rules=standard&position={position}")
    expect(page.get_by_test_id("error")).to_have_text(
        "the position is under open-boards rules, not standard")


def test_the_engine_evaluates_the_moves(page: Page, explorer_server: str):
    page.goto(explorer_server + "/explorer")
    expect(control(page, "explorer-move")).not_to_have_count(0)
    rows = page.locator("#moves tbody tr")
    expect(rows.first.locator("td").last).to_have_text("—")
    control(page, "explorer-eval").click()
    expect(rows.first.locator("td").last).to_have_text(re.compile(r"^\d+%$|proven"),
                                                       timeout=240_000)
    expect(control(page, "explorer-eval")).to_be_hidden()
    page.reload()  # kept in the index: shown at once
    expect(rows.first.locator("td").last).to_have_text(re.compile(r"^\d+%$|proven"))


def test_every_control_has_a_test_and_axe_finds_nothing(browser: Browser,
                                                          explorer_server: str):
    for scheme, viewport in (("light", {"width": 1100, "height": 800}),
                             ("dark", {"width": 390, "height": 844})):
        context = browser.new_context(viewport=viewport, color_scheme=scheme)
        page = context.new_page()
        page.goto(explorer_server + "/explorer")
        expect(control(page, "explorer-move")).not_to_have_count(0)
        assert_every_control_tested(page, "/explorer")
        assert_accessible(page)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{scheme}: the page is {width} px wide"
        context.close()
