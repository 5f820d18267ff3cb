"""Hostile: asks for 10 GB at once, then 64 MiB at a time for ever, says HOLDING and waits
HOLD_S seconds with all it got (a test plays another game meanwhile), lets it go, then
plays legally. It prints to stderr where it stopped."""

import sys
import time

HOLD_S = 2.0


def main():
    try:
        block = bytearray(10 << 30)
        print(f"ALLOCATED {len(block) >> 30} GiB", file=sys.stderr, flush=True)
        del block
    except MemoryError:
        print("MemoryError: 10 GiB refused", file=sys.stderr, flush=True)
    blocks = []
    try:
        while True:
            blocks.append(bytearray(64 << 20))
            blocks[-1][::4096] = b"x" * (16 << 10)  # touch every page: really use it
    except MemoryError:
        print(f"MemoryError after {len(blocks) * 64} MiB", file=sys.stderr, flush=True)
    print("HOLDING", file=sys.stderr, flush=True)
    time.sleep(HOLD_S)
    del blocks
    import bot

    bot.main()


if __name__ == "__main__":
    main()
