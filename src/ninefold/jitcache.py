"""Numba's on-disk cache, made to notice when code a cached function calls has changed.

numba keys a ``cache=True`` function's cache on its own source file alone.
A search in ``mcts_tree.py`` compiles in the network's evaluation from
``net.py``; change ``net.py`` alone and the search loads its old machine
code from the cache, the old evaluation inside it, without a word (numba
issue 1833). A benchmark comparing a change in one module against its
callers then measures the wrong code.

`cover` fixes that for a package: the cache of each of its numba functions
is keyed on numba's own stamp *and* a hash of every module of the package
that uses numba (`package_stamp`: those that mention numba or njit), so a
change to any of them makes every function compile afresh on its next
call, as after a first install. ninefold covers itself when this module is
imported, and its numba modules take `njit` from here, so the cover is in
place before the first function is decorated:

>>> from ninefold.jitcache import njit
>>> covered("ninefold")
True

It works through numba's cache locators (`numba.core.caching`), the hook
numba offers for custom cache keys; if a numba release moved them, the
cache keeps numba's own behaviour and `covered` says False (a test checks it).
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path
from typing import Any

from numba import njit

__all__ = ["cover", "covered", "njit", "package_stamp"]

_ROOTS: dict[str, Path] = {}  # the packages covered, and their directories


@cache
def package_stamp(package: str) -> str:
    """A hash of the numba modules of a covered `package`: every ``.py`` file under its
    directory that mentions numba or njit, path and contents (computed once per process)."""
    root = _ROOTS[package]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        if b"numba" in data or b"njit" in data:
            digest.update(os.fsencode(path.relative_to(root).as_posix()) + b"\0")
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _locator_base() -> Any:
    """numba's cache-locator base class and the class holding the list of locators
    (``CacheImpl``; ``_CacheImpl`` before numba 0.61), or None."""
    try:
        from numba.core import caching
    except ImportError:
        return None
    base = getattr(caching, "_CacheLocator", None)
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if base is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return None
    return base, impl


def _make_locator(base: Any, others: list[Any]) -> Any:
    """A locator class that wraps numba's own (the first of `others` that takes the
    function) and adds its package's stamp to the source stamp."""

    class PackageLocator(base):  # type: ignore[misc]
        """numba's locator for the function, with a stamp that covers its package."""

        def __init__(self, inner: Any, package: str) -> None:
            self._inner = inner
            self._package = package

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> str:
            return str(self._inner.get_cache_path())

        def get_source_stamp(self) -> Any:
            return (self._inner.get_source_stamp(), package_stamp(self._package))

        def get_disambiguator(self) -> str:
            return str(self._inner.get_disambiguator())

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            package = getattr(py_func, "__module__", "").partition(".")[0]
            if package not in _ROOTS:
                return None
            for other in others:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, package)
            return None

    return PackageLocator


def _installed(impl: Any) -> bool:
    """True if numba's list of locators holds ours (`cover` puts it first)."""
    return any(getattr(c, "_ninefold_cover", False) for c in impl._locator_classes)


def cover(package: str, root: Path) -> bool:
    """Key the cache of `package`'s numba functions (its modules under `root`) on all of
    its numba modules, for the functions decorated from now on; returns `covered`."""
    found = _locator_base()
    if found is None:
        return False
    base, impl = found
    if not _installed(impl):
        locator = _make_locator(base, list(impl._locator_classes))
        locator._ninefold_cover = True  # marks the class as ours
        impl._locator_classes.insert(0, locator)
    _ROOTS[package] = Path(root)
    return covered(package)


def covered(package: str) -> bool:
    """True if `package`'s numba functions are cached under its stamp (`cover`)."""
    from numba import config

    found = _locator_base()
    return (package in _ROOTS and found is not None
            and not getattr(config, "CACHE_LOCATOR_CLASSES", None)  # the user's own list
            and _installed(found[1]))


cover("ninefold", Path(__file__).parent)
