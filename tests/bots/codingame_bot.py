"""A test bot speaking the CodinGame protocol (row col, valid actions): see botlib.py."""

import sys

import botlib

botlib.setup()
seen = []
while True:
    head = sys.stdin.readline()
    if not head:
        break
    row, col = map(int, head.split())
    if row >= 0:
        seen.append(f"{row} {col}")
    count = int(sys.stdin.readline())
    actions = [sys.stdin.readline().strip() for _ in range(count)]
    pick = botlib.rng.choice(actions)
    good = pick + (" winrate 0.5 sims 1000" if botlib.MODE == "extra" else "")
    if botlib.MODE == "decimal":
        good = pick.replace(" ", ".0 ") + ".0"
    occ = seen[0] if seen else None
    botlib.answer(good, "9 9", occ)
    seen.append(pick)
botlib.at_end()
