"""A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).

It reads the position (`update game field`, `update game macroboard`) and, on
`action move`, answers `place_move X Y` with the first legal square. Squares
are numbered 9 * y + x; a small board may be played where the macroboard says -1.
Put your strategy in `choose`.
"""

import sys


def choose(field, macroboard):
    """The square (0-80) to play: here the first legal one."""
    empty = "." if "." in field else "0"  # Riddles.io's empty square, or AI Games'
    for i in range(81):
        board = 3 * (i // 27) + (i % 9) // 3
        if field[i] == empty and macroboard[board] == "-1":
            return i
    raise ValueError("no legal move")


def main():
    field, macroboard = [], []
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 4 and parts[:3] == ["update", "game", "field"]:
            field = parts[3].split(",")
        elif len(parts) == 4 and parts[:3] == ["update", "game", "macroboard"]:
            macroboard = parts[3].split(",")
        elif parts[:2] == ["action", "move"]:
            i = choose(field, macroboard)
            print(f"place_move {i % 9} {i // 9}", flush=True)


if __name__ == "__main__":
    main()
