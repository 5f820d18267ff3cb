"""Starter kits: a bot in each language that speaks a contest's protocol and plays a
legal move, ready to upload unchanged, for an author to grow their own from.

The kits live in ``starters/`` beside this module, one folder per protocol family
(`FAMILIES`: AI Games and Riddles.io share the settings-and-field protocol, and
the starters answer ``place_move``, which both accept) holding one folder per
language of ``recipes.toml``.

>>> sorted(files("rust", "codingame"))
['main.rs']
>>> name, data = archive("python", "riddles")
>>> name, data[:2]
('starter-python-riddles.zip', b'PK')
"""

from __future__ import annotations

import io
import zipfile
from importlib import resources
from importlib.resources.abc import Traversable

from ninefold.platform.recipes import named
from ninefold.protocols import check_protocol

FAMILIES = {"aigames": "fields", "riddles": "fields", "codingame": "codingame"}


def _folder(language: str, protocol: str) -> Traversable:
    """The kit's folder; ValueError naming the choices for an unknown language or protocol."""
    family = FAMILIES[check_protocol(protocol)]
    named(language)  # RecipeError (a ValueError) for an unknown language
    return resources.files(__package__).joinpath("starters", family, language)


def files(language: str, protocol: str) -> dict[str, bytes]:
    """The starter bot in `language` for `protocol`: file name -> content."""
    folder = _folder(language, protocol)
    return {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file()}


def archive(language: str, protocol: str) -> tuple[str, bytes]:
    """The starter bot as an upload: (file name, .zip bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in sorted(files(language, protocol).items()):
            z.writestr(name, content)
    return f"starter-{language}-{protocol}.zip", buf.getvalue()
