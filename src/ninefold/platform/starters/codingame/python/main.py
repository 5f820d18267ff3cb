"""A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).

Every turn it reads the opponent's last move (`row col`, `-1 -1` on the first
turn), the number of valid actions and that many `row col` lines, and answers
`row col`: here the first valid action. Put your strategy in `choose`.
"""

import sys


def choose(last, actions):
    """The action (row, col) to play: here the first valid one."""
    return actions[0]


def main():
    lines = iter(sys.stdin.readline, "")
    for line in lines:
        last = tuple(int(v) for v in line.split())
        actions = [tuple(int(v) for v in next(lines).split()) for _ in range(int(next(lines)))]
        row, col = choose(last, actions)
        print(f"{row} {col}", flush=True)


if __name__ == "__main__":
    main()
