"""Shared misbehaviours for the test bots (imported from the bot's own folder).

Each bot takes a MODE argument; ``good`` plays a random legal move. The others:
crash, crash-late, hang, garbage, flood, longline, illegal, occupied, spin,
children, forks, escape, slow-once, skip-once, skip-alternate, stderr-spam, extra,
decimal, silent-exit, stamp (plays well and writes on stderr how long after its start the
first request came). PIDFILE (env) gets the pids of the bot and any children it
starts; BOT_PAUSE_S (env) makes every answer wait that long.
"""

import os
import random
import signal
import subprocess
import sys
import time


def process_age():
    """Seconds since this process was made (its fork, from /proc), so that the
    interpreter's own start-up counts: what a referee that waits from the spawn controls.
    Good to /proc's tick (10 ms); without /proc, from this module's import."""
    try:
        with open("/proc/self/stat") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return uptime - started / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.monotonic() - START


START = time.monotonic()
MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
SLOW = float(os.environ.get("BOT_SLOW_S", "1.5"))
PAUSE = float(os.environ.get("BOT_PAUSE_S", "0"))
rng = random.Random(int(os.environ.get("BOT_SEED", "0")) or None)
requests = 0


def record_pids(*pids):
    path = os.environ.get("PIDFILE")
    if path:
        with open(path, "a") as f:
            for pid in pids:
                f.write(f"{pid}\n")


SLEEPER = "import os, time; time.sleep(300)"


def sleeper(setsid=False):
    """A child that sleeps long (in a session of its own if `setsid`)."""
    code = SLEEPER.replace("time.sleep", "os.setsid(); time.sleep") if setsid else SLEEPER
    return subprocess.Popen([sys.executable, "-c", code]).pid


def double_fork(setsid=False):
    """A grandchild that sleeps long, orphaned at once (its parent exits): its pid."""
    code = ("import os, time, sys\n"
            + ("os.setsid()\n" if setsid else "")
            + "pid = os.fork()\n"
            "if pid: print(pid, flush=True); sys.exit(0)\n"
            "time.sleep(300)")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    orphan = int(parent.stdout.readline())
    parent.wait()
    return orphan


def setup():
    record_pids(os.getpid())
    if MODE == "children":  # a child and a double-forked grandchild
        record_pids(sleeper(), double_fork())
    if MODE == "forks":  # three children in the bot's own process group
        record_pids(sleeper(), sleeper(), sleeper())
    if MODE == "escape":
        # a child in a session of its own, and a grandchild that escapes by setsid
        # and a double fork: neither is in the bot's process group
        record_pids(sleeper(setsid=True), double_fork(setsid=True))
    if MODE == "spin":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if MODE == "stderr-spam":
        sys.stderr.write("debug " * 100000 + "\n")


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def answer(good_line, bad_range_line, occupied_line):
    """Print the answer to one move request, misbehaving as MODE says."""
    global requests
    requests += 1
    if MODE == "stamp" and requests == 1:
        sys.stderr.write(f"first request {process_age():.3f} s after start\n")
        sys.stderr.flush()
    if PAUSE:
        time.sleep(PAUSE)
    n = requests
    if MODE == "crash" or (MODE == "crash-late" and n == 3):
        sys.exit(3)
    if MODE == "silent-exit" and n == 2:
        sys.exit(0)
    if MODE == "hang":
        time.sleep(300)
    if MODE == "garbage":
        return say("hello world, I am a bot")
    if MODE == "flood":
        junk = ("flood " * 20 + "\n") * 1000
        for _ in range(300):
            sys.stdout.write(junk)
        sys.stdout.flush()
        time.sleep(300)
    if MODE == "longline":
        for _ in range(200):
            sys.stdout.write("x" * 100000)
        sys.stdout.flush()
        time.sleep(300)
    if MODE == "illegal":
        return say(bad_range_line)
    if MODE == "occupied" and occupied_line:
        return say(occupied_line)
    if (MODE == "skip-alternate" and n % 2 == 1) or (MODE == "skip-once" and n == 2):
        return None  # ignore every other request: a time-out, then a prompt retry answer
    if MODE == "slow-once" and n == 2:
        time.sleep(SLOW)
    return say(good_line)


def at_end():
    """Input closed: a spinning bot never exits."""
    if MODE == "spin":
        while True:
            pass
