"""A child process serving its parent (`ninefold.protocols.child`): start, messages both
ways, a failing start, a stop obeyed at once, the death of the child, the death of the
parent, and the end with nothing left behind. The targets are functions of this module."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ninefold.protocols.child import COMMAND, Child, ChildGone, Parent

HERE = str(Path(__file__).resolve().parent)
# the child's Python, with this module importable
TEST_COMMAND = (sys.executable, "-c", f"import sys; sys.path.insert(0, {HERE!r}); "
                + COMMAND[-1])

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def echo(parent: Parent) -> None:
    """Says ``("ready", pid)``, then answers each message with it, tagged."""
    parent.send(("ready", os.getpid()))
    for message in parent:
        parent.send(("echo", *message))


def broken(parent: Parent) -> None:
    raise ValueError("cannot load")


SPIN_S = 30.0  # how long a piece of work lasts when nothing stops it


def spin(parent: Parent) -> None:
    """Works until the parent speaks (or `SPIN_S` has passed), then says when it
    stopped."""
    for message in parent:
        if message[0] == "work":
            halt = parent.halt()
            parent.send(("working",))
            end = time.monotonic() + SPIN_S
            while not halt.wait(0.0005) and time.monotonic() < end:
                pass
            parent.send(("stopped", time.monotonic()))


def child(target: str) -> Child:
    return Child(f"test_child:{target}", TEST_COMMAND)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_messages_go_both_ways_and_close_ends_the_child() -> None:
    c = child("echo")
    c.start()
    try:
        assert c.receive() == ("ready", c.pid)
        c.send(("play", 1, [1, 2]))
        c.send(("new_game",))
        assert c.receive() == ("echo", "play", 1, [1, 2])
        assert c.receive() == ("echo", "new_game")
        assert c.running
    finally:
        pid = c.pid
        c.close()
    assert pid is not None and not alive(pid) and not c.running
    with pytest.raises(ChildGone):
        c.send(("late",))


def test_a_child_that_fails_to_start_is_gone_and_can_start_again() -> None:
    c = child("broken")
    c.start()
    with pytest.raises(ChildGone):
        c.receive()
    assert not c.running
    c.target = "test_child:echo"
    c.start()
    try:
        assert c.receive()[0] == "ready"
    finally:
        c.close()


def test_a_message_stops_the_work_under_way_at_once() -> None:
    c = child("spin")
    c.start()
    try:
        c.send(("work",))
        assert c.receive() == ("working",)
        time.sleep(0.2)
        sent = time.monotonic()
        c.send(("stop",))
        kind, noticed = c.receive()
        # stopped by the message, not by the work's end: a margin no load crosses (the
        # work polls every 0.5 ms; how soon a busy machine runs it is not this test's)
        assert kind == "stopped" and noticed - sent < SPIN_S / 3
        c.send(("work",))  # a new piece of work, not stopped by the old stop
        assert c.receive() == ("working",)
        time.sleep(0.1)
        c.send(("stop",))
        assert c.receive()[0] == "stopped"
    finally:
        c.close()


def test_a_killed_child_is_gone_and_a_fresh_one_starts() -> None:
    c = child("echo")
    c.start()
    try:
        _, pid = c.receive()
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(ChildGone):
            c.receive()
        assert not c.running
        c.start()
        assert c.receive()[1] != pid
    finally:
        c.close()


def test_the_child_is_waited_for_on_an_event_loop() -> None:
    async def main() -> list[tuple]:
        c = child("echo")
        c.start()
        try:
            said = [await c.receive_async()]
            for n in range(50):
                c.send(("n", n))
            said += [await c.receive_async() for _ in range(50)]
            c.kill()
            with pytest.raises(ChildGone):
                await c.receive_async()
            return said
        finally:
            c.close()

    said = asyncio.run(main())
    assert said[0][0] == "ready" and said[1:] == [("echo", "n", n) for n in range(50)]


PARENT = f"""
import sys, time
sys.path.insert(0, {HERE!r})
import test_child
c = test_child.child("echo")
c.start()
print(c.receive()[1], flush=True)
time.sleep(60)
"""


def test_the_child_ends_with_its_parent_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        assert alive(pid)
        parent.kill()
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(pid)
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.stdout.close()
        parent.wait()
