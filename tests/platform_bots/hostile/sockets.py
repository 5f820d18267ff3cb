"""Hostile: tries the network (DNS, TCP to the host, UDP out), then plays legally.

Besides the addresses below it tries each ``HOST PORT`` line of targets.txt. It prints
to stderr what every attempt gave: ``CONNECTED`` or ``cannot connect``.
"""

import os
import socket
import sys

TARGETS = [("1.1.1.1", 53), ("8.8.8.8", 443), ("127.0.0.1", 22)]


def say(text):
    print(text, file=sys.stderr, flush=True)


def main():
    try:
        say(f"RESOLVED example.com: {socket.getaddrinfo('example.com', 80)[0][4]}")
    except OSError as exc:
        say(f"cannot resolve example.com: {exc}")
    targets = list(TARGETS)
    if os.path.exists("targets.txt"):
        with open("targets.txt") as f:
            targets += [(h, int(p)) for h, p in (line.split() for line in f if line.strip())]
    for host, port in targets:
        try:
            with socket.create_connection((host, port), timeout=2):
                say(f"CONNECTED to {host}:{port}")
        except OSError as exc:
            say(f"cannot connect to {host}:{port}: {exc}")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"hello", ("1.1.1.1", 53))
            say("SENT a UDP packet to 1.1.1.1:53")
    except OSError as exc:
        say(f"cannot send UDP: {exc}")
    import bot

    bot.main()


if __name__ == "__main__":
    main()
