"""`python -m ninefold.learn.distill`: a smaller network taught by the shipped one's search."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ninefold.players.net import load_net, net_meta
from ninefold.players.net_inputs import DEFAULT_SHA256


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_distillation_runs_end_to_end_and_goes_on_where_it_stopped(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "ninefold.learn.distill", "--out", str(out), "--hidden", "16,8",
           "--games", "4", "--chunk", "2", "--sims", "12", "--cheap-games", "3",
           "--cheap-sims", "4", "--teacher-share", "0.5", "--epochs", "1", "--gate-pairs", "1",
           "--gate-sims", "8", "--seed", "5"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    student = out / "student.npz"
    assert done.stdout.strip() == str(student)
    net = load_net(student)
    assert net.w1.shape[1] == 16 and net.w2.shape[1] == 8
    meta = net_meta(student)
    assert meta["command"].startswith("python -m ninefold.learn.distill --out")
    assert meta["teacher"] == {"file": "net_default.npz", "sha256": DEFAULT_SHA256}
    assert meta["data"] == ["cheap_0.npz", "data_0.npz", "data_1.npz"]
    assert meta["course"]["hidden"] == [16, 8] and meta["course"]["teacher_share"] == 0.5
    assert set(meta["held_out"]) == {"student", "teacher"}
    assert "student against teacher at equal simulations" in done.stderr
    data = {k: (out / f"data_{k}.npz").read_bytes() for k in (0, 1)}
    again = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "teacher self-play" not in again.stderr  # the data was kept, not made again
    assert all((out / f"data_{k}.npz").read_bytes() == data[k] for k in (0, 1))


@pytest.mark.slow  # a numba self-play process: `make test-all` and CI run it
def test_distillation_data_only_keeps_the_self_play_and_trains_nothing(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "ninefold.learn.distill", "--out", str(out),
                           "--games", "3", "--chunk", "2", "--sims", "8", "--seed", "5",
                           "--data-only"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["data_0.npz", "data_1.npz"]
    assert done.stdout.strip() == str(out)
    assert "--data-only: no student" in done.stderr and "training" not in done.stderr


# Each case is a process that loads numba and PyTorch: `make test` runs one or two of a
# kind, `make test-all` and CI every one (SLOW).
SLOW = pytest.mark.slow


@pytest.mark.parametrize("hidden", ["128", pytest.param("0,32", marks=SLOW),
                                    pytest.param("a,b", marks=SLOW)])
def test_distillation_refuses_bad_sizes_in_one_line(tmp_path, hidden):
    done = subprocess.run([sys.executable, "-m", "ninefold.learn.distill", "--out",
                           str(tmp_path), "--hidden", hidden], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "hidden" in done.stderr


def test_distillation_refuses_a_missing_teacher_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "ninefold.learn.distill", "--out",
                           str(tmp_path / "run"), "--teacher", str(tmp_path / "none.npz")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"ninefold.learn.distill: --teacher: no network file "
                                    f"'{tmp_path / 'none.npz'}'")
    assert not (tmp_path / "run").exists()


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_training_on_positions_played_before(tmp_path):
    """``--games 0 --data FILE``: a network trained on positions another run played (how the
    shipped network was made); their files and checksums are in its `meta`."""
    from ninefold.learn import selfplay
    from ninefold.learn.selfplay import Searcher
    from ninefold.learn.tasks import Processes
    from ninefold.players.net import sha256
    from ninefold.players.net_inputs import DEFAULT_PATH

    tasks = Processes(1)
    try:
        played = selfplay.generate(3, 8, Searcher(str(DEFAULT_PATH), 1.0, 0.0), 3, tasks)
    finally:
        tasks.close()
    data = tmp_path / "played.npz"
    played.save(data)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "ninefold.learn.distill", "--out", str(out),
                           "--hidden", "16,8", "--games", "0", "--data", str(data), "--epochs",
                           "1", "--gate-pairs", "1", "--gate-sims", "8", "--device", "auto"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "self-play" not in done.stderr
    assert f"on {len(played) - max(1, len(played) // 10)} positions" in done.stderr
    meta = net_meta(out / "student.npz")
    assert meta["data"] == [] and meta["positions"] == len(played) - max(1, len(played) // 10)
    assert meta["more_data"] == [{"file": "played.npz", "sha256": sha256(data)}]


@pytest.mark.parametrize(("args", "says"), [
    pytest.param(["--games", "0"], "--games: 0: at least 2 games, or positions from --data",
                 marks=SLOW),
    pytest.param(["--data", "{tmp}/none.npz"], "'{tmp}/none.npz': no such file", marks=SLOW),
    (["--data", "{tmp}/text.npz"], "'{tmp}/text.npz': not a .npz file of positions"),
    (["--device", "gpu"], "--device: 'gpu': not cpu, cuda or auto"),
    pytest.param(["--rules", "chess"], "--rules: 'chess': not a rules preset", marks=SLOW),
    pytest.param(["--empty-share", "1.5"], "--empty-share", marks=SLOW),
])
def test_distillation_refuses_bad_data_or_device_in_one_line(tmp_path, args, says):
    (tmp_path / "text.npz").write_text("not positions\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    # a box as wide as the message: a long temporary path (pytest-xdist's) is not cut
    done = subprocess.run([sys.executable, "-m", "ninefold.learn.distill", "--out",
                           str(tmp_path / "run"), *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "1000"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert says.replace("{tmp}", str(tmp_path)) in " ".join(done.stderr.replace("│", "").split())
    assert not (tmp_path / "run").exists()


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_training_on_from_a_network(tmp_path):
    """``--start FILE``: the student starts from that network's weights (a new round of
    it), recorded in its `meta`; before any training it is that network."""
    from ninefold.players.net import random_net, save_net, sha256

    first = tmp_path / "first.npz"
    save_net(random_net(3, 16, 8), first, {})
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "ninefold.learn.distill", "--out", str(out), "--hidden", "16,8",
           "--games", "2", "--chunk", "2", "--sims", "8", "--epochs", "1", "--lr", "1e-6",
           "--gate-pairs", "1", "--gate-sims", "8", "--start", str(first)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"starting from {first}: held-out" in done.stderr
    meta = net_meta(out / "student.npz")
    assert meta["start"] == {"file": "first.npz", "sha256": sha256(first)}
    assert meta["course"]["lr"] == 1e-6
    # at a learning rate of 1e-6 for one step or two the weights barely move
    student, start = load_net(out / "student.npz"), load_net(first)
    assert abs(student.w1 - start.w1).max() < 1e-3


@pytest.mark.parametrize(("start", "says"), [
    pytest.param("{tmp}/none.npz",
                 "ninefold.learn.distill: --start: no network file '{tmp}/none.npz'", marks=SLOW),
    ("default", "ninefold.learn.distill: --start: 'default' is a 512-128 network, not "
                "--hidden's 16-8"),
])
def test_distillation_refuses_a_bad_start_in_one_line(tmp_path, start, says):
    done = subprocess.run([sys.executable, "-m", "ninefold.learn.distill", "--out",
                           str(tmp_path / "run"), "--hidden", "16,8",
                           "--start", start.replace("{tmp}", str(tmp_path))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == says.replace("{tmp}", str(tmp_path))
    assert not (tmp_path / "run").exists()
