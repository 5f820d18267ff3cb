"""A test bot speaking the AI Games protocol (ids 1 and 2, '0' empty): see botlib.py."""

import sys

import botlib

botlib.setup()
field = macro = None
verb = "place_move"
for raw in sys.stdin:
    parts = raw.split()
    if not parts:
        continue
    if parts[0] == "update" and parts[2] == "field":
        field = parts[3].split(",")
    elif parts[0] == "update" and parts[2] == "macroboard":
        macro = parts[3].split(",")
    elif parts[0] == "action":
        free = [i for i in range(81)
                if field[i] == "0" and macro[3 * (i // 27) + (i % 9) // 3] == "-1"]
        taken = [i for i in range(81) if field[i] != "0"]
        i = botlib.rng.choice(free)
        good = f"{verb} {i % 9} {i // 9}"
        if botlib.MODE == "extra":
            good += " and some words"
        if botlib.MODE == "decimal":
            good = f"{verb} {i % 9}.0 {i // 9}.7"
        occ = f"{verb} {taken[0] % 9} {taken[0] // 9}" if taken else None
        botlib.answer(good, f"{verb} 6 1756", occ)
botlib.at_end()
