"""A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY."""

import sys

STRATEGY = "random"  # random | first | center | win-if-possible
SEED = 0
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MASK = (1 << 64) - 1


class Rng:
    """The fixtures' LCG, the same in every language."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 12345) & MASK

    def below(self, n):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & MASK
        return (self.state >> 33) % n


def cell(board, k):
    """The field index of cell k (0-8) of small board `board` (0-8)."""
    return 9 * (3 * (board // 3) + k // 3) + 3 * (board % 3) + k % 3


def wins(field, i, me):
    board = 3 * (i // 27) + (i % 9) // 3
    mine = {k for k in range(9) if field[cell(board, k)] == me or cell(board, k) == i}
    return any(all(k in mine for k in line) for line in LINES)


def choose(field, macro, me, rng):
    legal = [i for i in range(81)
             if field[i] == "." and macro[3 * (i // 27) + (i % 9) // 3] == "-1"]
    if STRATEGY == "first":
        return legal[0]
    best = legal
    if STRATEGY == "center":
        for group in ([i for i in legal if i % 3 == 1 and (i // 9) % 3 == 1],
                      [i for i in legal if i % 3 != 1 and (i // 9) % 3 != 1]):
            if group:
                best = group
                break
    if STRATEGY == "win-if-possible":
        best = [i for i in legal if wins(field, i, me)] or legal
    return best[rng.below(len(best))]


def main():
    rng = Rng(SEED)
    me, field, macro = "0", None, None
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 3 and parts[:2] == ["settings", "your_botid"]:
            me = parts[2]
        elif len(parts) == 4 and parts[:3] == ["update", "game", "field"]:
            field = parts[3].split(",")
        elif len(parts) == 4 and parts[:3] == ["update", "game", "macroboard"]:
            macro = parts[3].split(",")
        elif parts[:2] == ["action", "move"]:
            i = choose(field, macro, me, rng)
            print(f"place_disc {i % 9} {i // 9}", flush=True)


if __name__ == "__main__":
    main()
