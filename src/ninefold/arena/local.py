"""The local seat: a built-in ninefold player, run in the referee's process as a `Bot`."""

from __future__ import annotations

import time

from ninefold.players.player import Player, PlayResult
from ninefold.protocols import Bot, BotFault, Clock, TimeControl
from ninefold.rules import Board, Mark, Move, Termination


class LocalBot(Bot):
    """A built-in ninefold player, run in the referee's process.

    Its time is measured like a bot's; a built-in player that overruns its
    deadline (with slack) loses on time.

    >>> from ninefold.players import make_player
    >>> bot = LocalBot(make_player("random:seed=1"))
    >>> bot.start(Mark.X, Board(), TimeControl())
    >>> bot.play(Board(), None, Clock(TimeControl())).move in Board().legal_moves
    True
    """

    def __init__(self, player: Player, name: str | None = None) -> None:
        self.player = player
        self.name = name or player.spec

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:
        self.player.new_game()

    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        deadline = clock.deadline_ms()
        limit = clock.limit()
        t0 = time.monotonic()
        try:
            result = self.player.play(board.copy(), limit)
        except Exception as exc:  # a built-in player's bug must not stop a tournament
            clock.charge((time.monotonic() - t0) * 1000)
            raise BotFault(Termination.BOT_FAILURE, f"player raised {exc!r}") from None
        elapsed = (time.monotonic() - t0) * 1000
        clock.charge(elapsed)
        if elapsed > deadline:
            raise BotFault(
                Termination.TIME_FORFEIT, f"took {elapsed:.0f} ms, deadline {deadline:.0f} ms"
            )
        if not board.is_legal(result.move):
            raise BotFault(
                Termination.ILLEGAL_MOVE, f"illegal move {result.move}: "
                f"{board.why_illegal(result.move)}"
            )
        result.info["ms"] = round(elapsed, 1)
        return result
