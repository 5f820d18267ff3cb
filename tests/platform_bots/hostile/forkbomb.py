"""Hostile: a fork bomb. Its processes keep forking (and hold their places) until the
game ends; the bot reports when it can no longer fork, says HOLDING, waits HOLD_S
seconds (a test plays another game meanwhile), then plays legally."""

import os
import sys
import time

HOLD_S = 2.0


def bomb():
    """Fork for ever: every process that cannot fork waits a little and tries again."""
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.05)


def main():
    if os.fork() == 0:
        bomb()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            pid = os.fork()
        except OSError as exc:
            print(f"fork failed: {exc}", file=sys.stderr, flush=True)
            break
        if pid == 0:
            bomb()
        time.sleep(0.01)
    print("HOLDING", file=sys.stderr, flush=True)
    time.sleep(HOLD_S)
    import bot

    bot.main()


if __name__ == "__main__":
    main()
