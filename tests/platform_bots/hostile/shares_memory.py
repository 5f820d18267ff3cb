"""Hostile: starts CHILDREN processes that each take CHILD_MB of memory (each under its
own address-space limit, together over the sandbox's), says HOLDING once all have it,
then plays legally. Where the sandbox is capped as a whole it never gets that far."""

import os
import sys
import time

CHILDREN = 8
CHILD_MB = 200


def main():
    ready_r, ready_w = os.pipe()
    for _ in range(CHILDREN):
        if os.fork() == 0:
            block = bytearray(CHILD_MB << 20)
            block[::4096] = b"x" * (CHILD_MB << 8)  # touch every page: really use it
            os.write(ready_w, b".")
            time.sleep(3600)
    os.close(ready_w)
    got = 0
    while got < CHILDREN and (chunk := os.read(ready_r, CHILDREN)):
        got += len(chunk)
    print(f"HOLDING {got * CHILD_MB} MB in {got} processes", file=sys.stderr, flush=True)
    import bot

    bot.main()


if __name__ == "__main__":
    main()
