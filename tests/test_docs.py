"""The docs build, ``make docs``: warnings are errors, and every link is checked.

The whole build (`test_the_docs_build_without_a_warning`) is slow: its reference pages
import every public module and build the web app. The others build small trees of pages
with the same command and settings (``make docs-build DOCS_SRC=...``), without the
generated reference, and show that each kind of broken link fails the build, and a page
in no toctree too, unless its front matter says ``orphan: true``. The API pages show what
has a docstring: every name a package exports has one.
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PNG = bytes.fromhex(  # a 1x1 image
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a0e5"
    "93a40000000049454e44ae426082")


def build(src: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``make docs-build``, the command ``make docs`` runs, on the pages in `src`."""
    return subprocess.run(
        ["make", "-s", "--no-print-directory", "docs-build", f"PY={sys.executable}",
         f"DOCS_SRC={src}", f"DOCS_OUT={out}", f"DOCS_OPTS={' '.join(options)}"],
        cwd=ROOT, capture_output=True, text=True, timeout=1200)


def warnings(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The build's warnings and errors, one a line."""
    return [line for line in (done.stdout + done.stderr).splitlines()
            if "WARNING" in line or "ERROR" in line]


@pytest.mark.slow
def test_the_docs_build_without_a_warning(tmp_path):
    done = build(ROOT / "docs", tmp_path / "html")
    assert done.returncode == 0, "\n".join(warnings(done)) or done.stderr[-4000:]
    # the reference pages are made from the code: the command tree, the routes, the modules
    reference = ROOT / "docs/reference"
    cli = "".join(page.read_text() for page in [reference / "cli.md", *reference.glob("cli/*.md")])
    assert re.search(r"^## ninefold play\n", cli, re.M)
    assert re.search(r"^### ninefold platform worker\n", cli, re.M)
    bot = cli[cli.index("\n## ninefold bot\n"):]  # its own entry point, before typer's
    assert "Usage: ninefold bot" in bot[:200] and "--protocol" in bot[:1000]
    webapi = "".join(page.read_text() for page in reference.glob("webapi/*.md"))
    assert "\n## POST /api/games\n" in webapi
    assert "\n## GET /api/platform/contests\n" in webapi  # the platform's routes too
    rules = (tmp_path / "html/reference/api/ninefold.rules.html").read_text()
    assert 'id="ninefold.rules.Board.push"' in rules


def test_every_name_a_package_exports_has_a_docstring():
    """The Python API pages show what has a docstring (autodoc's default): so every
    class and function that a user imports from a package has one."""
    sys.path.insert(0, str(ROOT / "docs/_ext"))
    try:
        from reference_pages import PACKAGES
    finally:
        sys.path.remove(str(ROOT / "docs/_ext"))
    modules = [importlib.import_module(package) for package in PACKAGES]
    bare = [f"{module.__name__}.{name}" for module in modules
            for name in getattr(module, "__all__", ())
            if (inspect.isclass(obj := getattr(module, name)) or inspect.isfunction(obj))
            and not obj.__doc__]
    assert not bare


def small_tree(root: Path, links: str) -> Path:
    """A repository with a folder of pages whose index holds `links`; its docs folder."""
    (root / "benchmarks").mkdir(parents=True)
    (root / "benchmarks/speed.py").write_text("print(1)\n")
    (root / "README.md").write_text("# Readme\n")
    docs = root / "docs"
    (docs / "images").mkdir(parents=True)
    (docs / "images/board.png").write_bytes(PNG)
    (docs / "page.md").write_text("# Page\n\n## A section\n\nText.\n")
    (docs / "aside.md").write_text("---\norphan: true\n---\n# In no toctree, and says so\n")
    (docs / "index.md").write_text(
        "# Home\n\n```{toctree}\npage\n```\n\n## Links\n\n" + links)
    return docs


GOOD = """\
- [a page](page.md), [its section](page.md#a-section), [this page's](#links)
- [a file of the repository](../benchmarks/speed.py), [a folder](../benchmarks/),
  [its README](../README.md)
- ![an image](images/board.png)
- {py:class}`ninefold.rules.Board` (left out of these pages: shown as code)
"""

BROKEN = {  # a broken link: what the build says of it
    "[x](nope.md)": "'myst' cross-reference target not found: 'nope.md'",
    "[x](page.md#no-such-section)": "local id not found in doc 'page': 'no-such-section'",
    "[x](#nowhere)": "'myst' cross-reference target not found: 'nowhere'",
    "[x](../benchmarks/gone.py)": "'myst' cross-reference target not found: "
                                  "'../benchmarks/gone.py'",
    "[x](../gone/)": "'myst' cross-reference target not found: '../gone/'",
    "[x](../GONE.md)": "'myst' cross-reference target not found: '../GONE.md'",
    "![x](images/gone.png)": "image file not readable: images/gone.png",
    "{py:class}`ninefold.rules.Bord`": "py:class reference target not found: "
                                       "ninefold.rules.Bord",
}


def test_pages_with_good_links_build(tmp_path):
    docs = small_tree(tmp_path / "repo", GOOD)
    done = build(docs, tmp_path / "html", "-D", "ninefold_reference=0")
    assert done.returncode == 0, "\n".join(warnings(done)) or done.stderr[-4000:]
    page = (tmp_path / "html/index.html").read_text()
    assert 'href="page.html#a-section"' in page
    assert re.search(r'href="_downloads/\w+/speed.py"', page)


def test_each_broken_link_fails_the_build(tmp_path):
    docs = small_tree(tmp_path / "repo", GOOD + "".join(f"- {link}\n" for link in BROKEN))
    (docs / "stray.md").write_text("# In no toctree, and does not say so\n")
    done = build(docs, tmp_path / "html", "-D", "ninefold_reference=0")
    assert done.returncode != 0
    said = warnings(done)
    for link, warning in BROKEN.items():
        assert any(warning in line for line in said), (link, said)
    assert any("stray.md: WARNING: document isn't included in any toctree" in line
               for line in said), said
    assert len(said) == len(BROKEN) + 1, said  # and nothing about the good links
