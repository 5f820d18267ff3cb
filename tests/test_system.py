"""What the OS says (`ninefold.system`): CPUs, memory and its limits, processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from ninefold import system


def test_the_memory_limit_is_the_least_of_the_computer_and_ulimit() -> None:
    memory = system.physical_memory_bytes()
    assert memory is not None and memory > 0
    assert system.memory_limit_mb() <= memory / 2**20
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
            "from ninefold.system import memory_limit_mb; print(memory_limit_mb())")
    if system.memory_limit_mb() < 3072:
        pytest.skip("this machine lets a process use less than 3 GB")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert float(out) == 3072.0


def test_cgroup_limits_are_read_for_v1_and_v2() -> None:
    assert system.cgroup_limit_files("0::/\n") == ["/sys/fs/cgroup/memory.max"]
    assert system.cgroup_limit_files("2:cpu,cpuacct:/a\n1:memory:/b/\nbroken\n") == [
        "/sys/fs/cgroup/memory/b/memory.limit_in_bytes"]


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="no /proc")
def test_processes_are_seen_with_their_user_state_and_threads() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in system.process_ids()
        status = system.process_status(child.pid)
        assert status is not None and status.uid == os.getuid() and status.threads >= 1
        assert status.state != "Z"
    finally:
        child.kill()
        child.wait()
    assert system.process_status(child.pid) is None  # reaped: gone


def test_this_process_has_an_age() -> None:
    age = system.process_age_s()
    time.sleep(0.05)
    assert 0 < age < system.process_age_s()
