"""Hostile: tries to read the server's files and other bots' folders, then plays legally.

Besides the paths below it tries each line of targets.txt (the test's own secrets).
It prints to stderr, for every path, what it got: ``READ`` or ``cannot read``.
"""

import os
import sys

TARGETS = ["/etc/shadow", "/etc/passwd", "/etc/hostname", "/work", "/root", "/home", "/var",
           "/proc/1/root/work", "/proc/1/root/etc/shadow", "/proc/1/environ", "/src"]


def probe(path):
    try:
        if os.path.isdir(path):
            return f"READ {path}: {sorted(os.listdir(path))[:8]}"
        with open(path, "rb") as f:
            return f"READ {path}: {f.read(4000)!r}"
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"


def main():
    extra = []
    if os.path.exists("targets.txt"):
        with open("targets.txt") as f:
            extra = [line.strip() for line in f if line.strip()]
    for path in TARGETS + extra:
        if not os.path.exists(path):
            print(f"cannot read {path}: not there", file=sys.stderr, flush=True)
        else:
            print(probe(path), file=sys.stderr, flush=True)
    import bot

    bot.main()


if __name__ == "__main__":
    main()
