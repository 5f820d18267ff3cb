"""Sphinx's settings for ninefold's docs: Markdown pages (MyST), the reference made at build time.

``make docs`` builds them into docs/_build/html with warnings as errors (``-W``), every
cross-reference checked (``-n``): links between pages and to their headings' anchors, links to
files and folders of the repository, images, and the names in the docstrings. A page in no
toctree is a warning too, unless its front matter says ``orphan: true``.
The pages under docs/reference/ that say "generated" are written by
``_ext/reference_pages.py`` on every build (the CLI from ``--help``, the Python API from
the docstrings, the web API from the OpenAPI schema) and are not kept in git.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import ninefold
from ninefold import extras

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "ninefold"
author = "the ninefold authors"
copyright = "2026 the ninefold authors (MIT License)"
release = version = ninefold.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "reference_pages",
    "repo_links",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
html_theme = "furo"
html_title = "ninefold"

# Markdown that reads the same on GitHub (CommonMark and tables, no MyST-only syntax enabled):
# headings get GitHub's anchors (`page.md#a-heading`), and every link to another page, an
# anchor or a file is checked.
myst_heading_anchors = 6

nitpicky = True
# single backquotes in docstrings name an object: a link where the name is documented,
# code where it is not (a parameter, a name of another library): repo_links.py
default_role = "code-or-object"
# each name on the page of the module that defines it (not where it is re-exported)
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
# the libraries of the extras that the docs extra leaves out, where they are not installed:
# their names stand in (the docs extra brings the platform's, for the web API page)
autodoc_mock_imports = [module for extra in ("rl", "train", "cluster")
                        for module in extras.missing(extra)]


def _no_object_base(app: object, name: str, obj: object, options: object,
                    bases: list[type]) -> None:
    """Leave out "Bases: object": every class has it."""
    bases[:] = [base for base in bases if base is not object]


def setup(app: Any) -> None:
    app.connect("autodoc-process-bases", _no_object_base)
