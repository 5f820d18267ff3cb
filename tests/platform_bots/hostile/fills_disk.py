"""Hostile: tries one 100 MiB file, fills the disk (up to 1 GiB, in 16 MiB files), tries
the read-only places, says HOLDING and waits HOLD_S seconds with its disk full (a test plays
another game meanwhile), then plays legally. It prints to stderr where it stopped."""

import os
import sys
import time

HOLD_S = 2.0
CHUNK = bytes(16 << 20)


def say(text):
    print(text, file=sys.stderr, flush=True)


def main():
    try:
        with open("big", "wb") as f:
            for _ in range(100):
                f.write(bytes(1 << 20))
        say("WROTE a 100 MiB file")
    except OSError as exc:
        say(f"cannot write a 100 MiB file: {exc.strerror}")
    if os.path.exists("big"):
        os.remove("big")
    written = 0
    try:
        while written < 1 << 30:
            with open(f"fill-{written >> 24}", "wb") as f:
                f.write(CHUNK)
            written += len(CHUNK)
        say(f"WROTE {written >> 20} MiB")
    except OSError as exc:
        say(f"disk full after {written >> 20} MiB: {exc.strerror}")
    for path in ("/fill", "/usr/fill", "/dev/shm/fill", "/dev/fill", "/proc/fill"):
        try:
            with open(path, "wb") as f:
                f.write(CHUNK)
            say(f"WROTE {path}")
        except OSError as exc:
            say(f"cannot write {path}: {exc.strerror}")
    say("HOLDING")
    time.sleep(HOLD_S)
    import bot

    bot.main()


if __name__ == "__main__":
    main()
