"""Self-play's tasks on worker processes and on a local Ray cluster (`ninefold.learn.tasks`,
`ninefold.raycluster`): the same positions either way, a killed worker's chunk played
again and counted once, the networks carried by value, one-line errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ninefold.learn import selfplay
from ninefold.learn.selfplay import FIELDS, Nets, Openings, Positions, Searcher
from ninefold.learn.tasks import Processes, RayTasks
from ninefold.players.net import random_net, save_net
from ninefold.raycluster import ClusterError, ray_module

ray = pytest.importorskip("ray")


# A local Ray cluster takes 10-20 s to start and its tasks seconds more: the tests on one
# run in `make test-all` and CI (slow); the Ray-free ones here run in `make test` too.
RAY_CLUSTER = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of two CPUs, started once for the module."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level="error", log_to_driver=False)
    # the test module's functions travel by value: the workers cannot import tests/
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    tasks = RayTasks("auto")  # joins the running cluster, and leaves it running
    yield tasks
    tasks.close()
    ray.shutdown()


def same(a: Positions, b: Positions) -> bool:
    return len(a) > 0 and all(np.array_equal(getattr(a, f), getattr(b, f)) for f in FIELDS)


@RAY_CLUSTER
def test_ray_self_play_makes_the_process_pools_positions(cluster):
    shown = []
    here = selfplay.generate(3, 12, Searcher(), 5, Processes(1), per_task=1)
    there = selfplay.generate(3, 12, Searcher(), 5, cluster, lambda n, *_: shown.append(n),
                              per_task=1)
    assert same(here, there)
    assert sorted(shown) == [1, 2, 3]
    assert cluster.layout() == {"engine": "ray", "address": "auto", "nodes": 1, "cpus": 2,
                                "retries": 3}


def _dies_once(nets: Nets, job: tuple[str, tuple[int, int, int, Searcher, Openings]]) -> Positions:
    """Chunk 1 kills its own worker on its first attempt (a marker file says which)."""
    marker, args = job
    Path(marker, f"{os.getpid()}").touch()  # one file a worker process that ran a task
    if args[1] % 1_000_003 == 1 and not Path(marker, "killed").exists():
        Path(marker, "killed").touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return selfplay._task(nets, args)


def test_self_play_aimed_at_one_platform_starts_where_told():
    """`Openings.only`: every game under that preset, from the empty board when the share
    is 1 (a game's first position is the empty board, X to move), from random-four
    openings when it is 0; the default mix is unchanged."""
    from ninefold import kernel
    from ninefold.rules import PRESETS, Board

    empty = kernel.from_board(Board(PRESETS["codingame"]))
    for share in (1.0, 0.0):
        played = selfplay.generate(2, 8, Searcher(), 11, Processes(1), per_task=1,
                                   openings=Openings.only("codingame", share))
        assert set(played.flags.tolist()) == {PRESETS["codingame"].flags}
        firsts = int(sum(np.array_equal(s, empty) for s in played.states))
        assert firsts == (2 if share else 0)
    mixed = selfplay.generate(2, 8, Searcher(), 11, Processes(1), per_task=1)
    assert same(mixed, selfplay.generate(2, 8, Searcher(), 11, Processes(1), per_task=1,
                                         openings=Openings()))
    with pytest.raises(ValueError, match="not a rules preset"):
        Openings.only("chess", 0.5)


@RAY_CLUSTER
def test_a_killed_workers_chunk_is_played_again_and_counted_once(cluster, tmp_path):
    chunks = [(1, 7 * 1_000_003 + k, 12, Searcher(), Openings()) for k in range(3)]
    finished: list[int] = []
    parts = cluster.map(_dies_once, Nets(), [(str(tmp_path), c) for c in chunks],
                        lambda k, _: finished.append(k))
    assert (tmp_path / "killed").exists()
    assert sorted(finished) == [0, 1, 2]
    reference = selfplay.generate(3, 12, Searcher(), 7, Processes(1), per_task=1)
    assert same(Positions.concat(parts), reference)


@RAY_CLUSTER
def test_matches_carry_the_network_to_ray_workers(cluster, tmp_path):
    path = tmp_path / "net.npz"
    save_net(random_net(3), path, {"test": True})
    who = Searcher(str(path), c=1.0, mix=0.5)
    here = selfplay.match(who, Searcher(), 8, 2, 11, Processes(1))
    there = selfplay.match(who, Searcher(), 8, 2, 11, cluster)
    assert here == there and len(there) == 2


def test_carried_networks_are_written_where_the_worker_runs(tmp_path):
    path = tmp_path / "net.npz"
    save_net(random_net(4), path, {"test": True})
    nets = Nets.carry(Searcher(str(path)), Searcher())
    path.rename(tmp_path / "gone.npz")  # as on another machine
    local = nets.local(Searcher(str(path), c=0.7))
    assert local.c == 0.7 and Path(local.net or "").read_bytes() == nets.files[str(path)]
    assert nets.local(Searcher()) == Searcher()
    assert Nets().local(Searcher("x.npz")) == Searcher("x.npz")


def test_missing_ray_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ClusterError, match=r"pip install 'ninefold\[cluster\]'"):
        ray_module()


@RAY_CLUSTER  # waits out Ray's attempts to connect
def test_learn_with_an_unreachable_cluster_says_so_in_one_line(tmp_path):
    pytest.importorskip("torch")
    done = subprocess.run([sys.executable, "-m", "ninefold.learn", "--out", str(tmp_path),
                           "--ray", "127.0.0.1:1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "ninefold.learn: cannot reach the Ray cluster at 127.0.0.1:1:")


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_a_network_trained_on_ray_records_the_cluster_in_its_meta(tmp_path):
    """One tiny round of ``python -m ninefold.learn --ray local``."""
    pytest.importorskip("torch")
    from ninefold.players.net import net_meta

    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "ninefold.learn", "--out", str(out), "--rounds",
                           "1", "--first-games", "4", "--pure-sims", "20", "--epochs", "1",
                           "--gate-pairs", "1", "--gate-sims", "10", "--ray", "local"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    meta = net_meta(out / "net_0.npz")
    assert meta["command"].endswith("--ray local") and meta["plan"]["ray"] == "local"
    layout = meta["tasks"]
    assert layout["engine"] == "ray" and layout["address"] == "local"
    assert layout["nodes"] == 1 and layout["cpus"] >= 1 and layout["games_per_task"] == 10
