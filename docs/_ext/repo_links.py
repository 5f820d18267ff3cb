"""Links the docs' Markdown holds, checked; names in docstrings linked where they are documented.

MyST checks a link to another page, to a heading's anchor and to a file (a file
outside the docs becomes a download); a link to a missing one is a warning, which
``make docs`` (``-W``) makes an error. `RepositoryLinks` adds the repository's
Markdown files and folders outside the pages, which GitHub shows and MyST would
warn of even where they exist.

In docstrings, ``default_role = "code-or-object"`` reads `Board` as a link to the
documented object of that name (nearest first: in the class, the module, then
anywhere) and, where none or several are documented (a parameter's name, another
library's, a method's that many classes have), as code. Python names
that ``-n`` would report (every type in a signature is a reference) are reported
only when they name nothing: another library's names, and ninefold's names that
the API pages leave out, are shown as code (`missing`).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.python import PyXRefRole
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform
from sphinx.util.nodes import make_refnode

SOFT = "ninefold_soft"  # the mark of a reference made by the default role


class CodeOrObject(PyXRefRole):
    """A name in a docstring: resolved by `missing`, as no domain's role."""

    def process_link(self, env: BuildEnvironment, refnode: nodes.Element,
                     has_explicit_title: bool, title: str, target: str) -> tuple[str, str]:
        title, target = super().process_link(env, refnode, has_explicit_title, title, target)
        refnode[SOFT] = True
        return title, target


def soft(app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref,
         contnode: nodes.TextElement) -> nodes.Node:
    """The documented Python object `node` names, nearest first (in its class, its module,
    then anywhere; a name re-exported, ``ninefold.players.Limit``, where it is defined),
    when there is one; its text as code when there is none or several."""
    python = env.domains["py"]
    module, cls, target = node.get("py:module"), node.get("py:class"), node["reftarget"]
    matches = python.find_obj(env, module, cls, target, "obj", searchmode=1)
    if not matches:
        for dotted in (target, f"{module}.{target}"):
            obj = lookup(dotted)
            if obj is not MISSING and hasattr(obj, "__qualname__"):
                defined = f"{getattr(obj, '__module__', '')}.{obj.__qualname__}"
                matches = python.find_obj(env, "", "", defined, "obj", searchmode=1)
                break
    if len(matches) != 1:
        return contnode
    name, entry = matches[0]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                        contnode, name)


MISSING = object()


def lookup(dotted: str) -> Any:
    """What `dotted` names in ninefold (a module, or something in one), else `MISSING`."""
    parts = dotted.split(".")
    if parts[0] != "ninefold":
        return MISSING
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return MISSING
        return obj
    return MISSING


def missing(app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref,
            contnode: nodes.TextElement) -> nodes.Node | None:
    """A reference to nothing documented: code, unless it is ninefold's and names nothing."""
    if node.get(SOFT):
        return soft(app, env, node, contnode)
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if target.split(".")[0] != "ninefold" or lookup(target) is not MISSING:
        return contnode
    return None


class RepositoryLinks(SphinxTransform):
    """Markdown links to the repository's files and folders outside the pages: checked.

    A link to a file outside the docs that is not a page (``../../benchmarks/x.py``)
    is MyST's download, checked by MyST; one to a Markdown file outside the docs
    (``../../CONTRIBUTING.md``) MyST takes for a page and warns of; one to a folder
    (``../../records/``) it warns of too. Here a Markdown file that exists becomes a
    download too, and a folder that exists its text, unlinked (the site has no page
    for it); a missing one is left to MyST's warning.
    """

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        srcdir = Path(self.env.srcdir).resolve()
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst":
                continue
            if node.get("refdomain") == "doc":  # a .md file: a page, or outside the pages
                page = Path(node["reftarget"] + ".md")
                if not page.is_absolute() or page.resolve().is_relative_to(srcdir):
                    continue
                if page.is_file():
                    here = Path(self.env.doc2path(self.env.docname)).parent
                    download = addnodes.download_reference(
                        refdomain=None, reftarget=os.path.relpath(page, here),
                        refdoc=self.env.docname, reftype="myst",
                        refexplicit=node.get("refexplicit", False))
                    download += node.children
                    node.replace_self(download)
                continue
            parts = urlsplit(node["reftarget"])
            if parts.scheme or parts.netloc or not parts.path:
                continue
            _, path = self.env.relfn2path(unquote(parts.path), self.env.docname)
            if Path(path).is_dir():
                node.replace_self(nodes.inline("", "", *node.children))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_role("code-or-object", CodeOrObject())
    app.connect("missing-reference", missing)
    app.add_transform(RepositoryLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
