"""The starter kits (`ninefold.platform.starters`): one in every language for every
protocol, written by ``ninefold platform starter``, each passing the input test as it is
(in the sandbox, with the real compilers: the whole set is a long run)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from needs import require
from platform_fixtures import missing_compiler
from typer.testing import CliRunner

from ninefold.arena.checkbot import check_bot, passed
from ninefold.arena.referee import Seat
from ninefold.cli import app
from ninefold.platform import sandbox, starters
from ninefold.platform.archive import unpack
from ninefold.platform.recipes import detect, recipes
from ninefold.protocols import PROTOCOLS, TimeControl

KITS = [(language, protocol) for language in recipes() for protocol in PROTOCOLS]


@pytest.mark.parametrize("language,protocol", KITS)
def test_every_language_has_a_kit_for_every_protocol(tmp_path, language, protocol):
    name, data = starters.archive(language, protocol)
    assert name == f"starter-{language}-{protocol}.zip"
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == sorted(
        starters.files(language, protocol))
    assert detect(unpack(data, name, tmp_path / "src")).name == language


def test_unknown_languages_and_protocols_are_refused():
    with pytest.raises(ValueError, match=r"^no recipe for 'cobol': choose one of python, "):
        starters.files("cobol", "riddles")
    with pytest.raises(ValueError, match=r"^unknown protocol 'telnet': choose one of "):
        starters.files("c", "telnet")


def test_the_cli_writes_a_starter(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["platform", "starter", "go", "--protocol", "codingame"])
    assert result.exit_code == 0, result.output
    written = Path("starter-go-codingame.zip")
    assert written.read_bytes() == starters.archive("go", "codingame")[1]
    assert "wrote starter-go-codingame.zip (main.go); upload it with: ninefold platform " \
           "upload starter-go-codingame.zip --contest NAME" in " ".join(result.output.split())
    result = CliRunner().invoke(app, ["platform", "starter", "cobol", "--out", "x.zip"])
    assert result.exit_code != 0 and "no recipe for 'cobol'" in result.output
    assert not Path("x.zip").exists()


@pytest.mark.slow
@pytest.mark.parametrize("language,protocol", KITS)
def test_every_starter_passes_the_input_test_as_it_is(tmp_path, language, protocol):
    require("the sandbox (bubblewrap)", sandbox.available())
    missing = missing_compiler(language)
    require(f"the {language} compiler", missing and f"no {missing} (make debs installs it)")
    name, data = starters.archive(language, protocol)
    recipe = detect(unpack(data, name, tmp_path / "src"))
    made = sandbox.compile_bot(tmp_path / "src", recipe, tmp_path / "out")
    assert made.ok, made.log
    seat = Seat.external(sandbox.game_command(tmp_path / "out", recipe), protocol,
                         name="starter", tc=TimeControl.for_protocol(protocol))
    checks = check_bot(seat, rules="standard", log_dir=tmp_path / "logs")
    assert passed(checks), "\n".join(str(c) for c in checks)
