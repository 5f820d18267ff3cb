"""Classic 3x3 tic-tac-toe and its two disguises, Pick15 and Magic15.

One module per job:

- `ninefold.classic.game`: the one game state `ClassicBoard`, the three
  `View` s that read, write and draw its moves, and the pictures;
- `ninefold.classic.players`: the computer players (random, naive, centre,
  perfect);
- `ninefold.classic.stats`: exact odds, matches, Wilson intervals and plots;
- `ninefold.classic.terminal`: the game against the computer in a terminal.

The public names of the first three are importable from here.

>>> from ninefold.classic import ClassicBoard, View, make_classic_player, play_game
>>> board = play_game(make_classic_player("perfect"), make_classic_player("perfect"))
>>> board.outcome().winner is None, View.PICK15.text(board.move_stack[0]) in "8642"
(True, True)
"""

from ninefold.classic.game import (
    CELL_NAMES,
    CELL_OF_NUMBER,
    CENTRE,
    COLOURS,
    CORNERS,
    EDGES,
    LINE_NAMES,
    MAGIC,
    MARKS,
    ClassicBoard,
    View,
    parse_marks,
    parse_move,
    player_name,
    render,
    status,
)
from ninefold.classic.players import (
    PLAYERS,
    CentrePlayer,
    ClassicPlayer,
    NaivePlayer,
    PerfectPlayer,
    RandomPlayer,
    make_classic_player,
    play_game,
    value,
)
from ninefold.classic.stats import (
    Exploit,
    MatchResult,
    PlotPathError,
    best_win_chance,
    check_plot_path,
    line_text,
    outcome_probabilities,
    play_match,
    plot_match,
    wilson_interval,
)

__all__ = [
    "CELL_NAMES",
    "CELL_OF_NUMBER",
    "CENTRE",
    "COLOURS",
    "CORNERS",
    "EDGES",
    "LINE_NAMES",
    "MAGIC",
    "MARKS",
    "PLAYERS",
    "CentrePlayer",
    "ClassicBoard",
    "ClassicPlayer",
    "Exploit",
    "MatchResult",
    "NaivePlayer",
    "PerfectPlayer",
    "PlotPathError",
    "RandomPlayer",
    "View",
    "best_win_chance",
    "check_plot_path",
    "line_text",
    "make_classic_player",
    "outcome_probabilities",
    "parse_marks",
    "parse_move",
    "play_game",
    "play_match",
    "player_name",
    "plot_match",
    "render",
    "status",
    "value",
    "wilson_interval",
]
