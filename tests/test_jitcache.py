"""numba's on-disk cache notices a change to code a cached function calls (`ninefold.jitcache`).

numba keys a cached function on its own file; a caller in another file keeps
its old machine code when only its callee's file changes. Two throwaway
packages of two modules each, a cached `f` in one calling a cached `g` in the
other, run in fresh processes before and after `g` changes: the covered one
sees the change, the plain one (numba alone) does not, which shows the trap
is real and this test able to fail.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ninefold
from ninefold import jitcache

CALLER = """\
from ninefold.jitcache import njit
from {package}.callee import g


@njit(cache=True)
def f():
    return g() + 1
"""

CALLEE = """\
from ninefold.jitcache import njit


@njit(cache=True)
def g():
    return {value}
"""

COVERED_INIT = """\
from pathlib import Path

from ninefold.jitcache import cover

cover({package!r}, Path(__file__).parent)
"""


def _package(root: Path, package: str, covered: bool) -> None:
    (root / package).mkdir()
    (root / package / "__init__.py").write_text(
        COVERED_INIT.format(package=package) if covered else "")
    (root / package / "caller.py").write_text(CALLER.format(package=package))
    (root / package / "callee.py").write_text(CALLEE.format(value=1))


def _run_f(root: Path, package: str, cache: Path) -> int:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", f"from {package}.caller import f; print(f())"],
        capture_output=True, text=True, env=env, timeout=300, check=True)
    return int(done.stdout)


@pytest.mark.parametrize(("covered", "after"), [(True, 101), (False, 2)])
def test_a_change_to_a_callee_reaches_its_cached_caller_only_when_covered(
        tmp_path: Path, covered: bool, after: int) -> None:
    package = "covered_pkg" if covered else "plain_pkg"
    _package(tmp_path, package, covered)
    cache = tmp_path / "cache"
    assert _run_f(tmp_path, package, cache) == 2
    assert _run_f(tmp_path, package, cache) == 2  # loaded from the cache
    assert list(cache.rglob("*.nbc")), "nothing was cached"
    (tmp_path / package / "callee.py").write_text(CALLEE.format(value=100))
    assert _run_f(tmp_path, package, cache) == after


def test_ninefold_is_covered_before_its_first_numba_function_is_decorated() -> None:
    """Every ninefold module that uses numba takes `njit` from `ninefold.jitcache`, and
    the cached functions' locator is the covering one."""
    from ninefold import kernel

    assert jitcache.covered("ninefold")
    locator = kernel.play._cache._impl.locator
    assert getattr(type(locator), "_ninefold_cover", False)
    assert locator.get_source_stamp()[1] == jitcache.package_stamp("ninefold")
    root = Path(ninefold.__file__).parent
    direct = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.ImportFrom) and node.module == "numba"
                    and any(alias.name == "njit" for alias in node.names)
                    and path.name != "jitcache.py"):
                direct.append(str(path.relative_to(root)))
    assert direct == [], f"njit imported from numba itself, not ninefold.jitcache: {direct}"
