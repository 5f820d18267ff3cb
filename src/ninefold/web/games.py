"""A game on the web board: who may move for which side, and what each request may do.

A `WebGame` is a board (rules, an opening, the moves since) with its seats;
it keeps its `Board`, built once when the game is made or read and changed
with every move and take-back, so asking about the position never replays
the game; reading a game again builds its board from the one kept from its
last read (`KeptBoards`), playing only the moves made since. Each seat a
person holds has a secret token; the server keeps only its SHA-256
(`ninefold.platform.token_hash`), and a request proves its seat by
sending the token. Three kinds of game (`Mode`):

- ``computer``: the creator holds one side, a level 1-10 player the other; in
  an open-boards game from the empty board where the creator plays O, the
  computer may be the `proof` player instead (`PROOF_LEVEL`, X's proved win);
- ``local``: two people on one device, one token for both sides;
- ``online``: each side its own token, the second handed out by link;
  anyone with the game's id may watch.

An online game may have a `WebTimeControl` (`ninefold.web.time_control`): a side whose time
runs out loses (`settle` notes it; the server calls it before every change, on
every page's read of the game, and once a time has run out: `ninefold.web.hub`).

Every change is checked here, before anything is stored: a move must be
legal, made for the side to move by that side's seat, and based on the
position the sender saw (`ply`), so a replayed or stale request changes
nothing. Failures are the `GameError`s of `ninefold.web.errors`, carrying the
HTTP status the API answers.

>>> game, tokens = WebGame.new("g1", mode=Mode.LOCAL)
>>> game.play(Move.parse("e5"), tokens["x"], ply=0)
>>> game.board.status()
'O to move, in board 4 (d4-f6)'
>>> game.play(Move.parse("e5"), tokens["x"], ply=1)
Traceback (most recent call last):
...
ninefold.web.errors.IllegalMove: illegal move e5: e5 is already taken by X
"""

from __future__ import annotations

import enum
import hmac
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ninefold.platform import token_hash
from ninefold.players import proof
from ninefold.records import Game
from ninefold.rules import (
    MARKS,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    Mark,
    Move,
    Outcome,
    Rules,
    Termination,
    opening_moves,
)
from ninefold.web.errors import Forbidden, IllegalMove, Stale
from ninefold.web.notation import side
from ninefold.web.time_control import TIMED_FROM_PLY, WebTimeControl

LEVELS = range(1, 11)  # the computer's levels (`ninefold.players.level`)
# The `proof` player (`ninefold.players.proof`) as a level past the ladder's: a level is
# one integer everywhere (API, store, the computer's workers), and 1-10 keep their meaning.
PROOF_LEVEL = 11
TOKEN_BYTES = 18  # a seat's secret: 24 URL-safe characters


class Mode(enum.Enum):
    COMPUTER = "computer"
    LOCAL = "local"
    ONLINE = "online"


@dataclass
class WebGame:
    """A game and its seats. `seats` maps ``"x"``/``"o"`` to a token's hash, or to
    None for the computer's side (and, in an online game, a seat no one took yet has
    its hash too: the link holds its token). `moves` and `board` change only through
    the methods, together."""

    id: str
    mode: Mode
    rules: Rules = field(default_factory=lambda: Rules.parse("standard"))
    opening: str | None = None
    moves: list[Move] = field(default_factory=list)  # after the opening
    seats: dict[str, str | None] = field(default_factory=dict)
    level: int | None = None  # the computer's level (computer games)
    resigned: Mark | None = None  # the side that resigned
    draw_offer: Mark | None = None  # the side whose draw offer stands
    agreed_draw: bool = False
    created: float = 0.0
    changes: int = 0  # how often it was stored: a write must name the count it read
    clock: WebTimeControl | None = None
    left_ms: dict[str, float] = field(default_factory=dict)  # "x"/"o": time left
    running_since: float | None = None  # when the side to move's time began to run
    flagged: Mark | None = None  # the side whose time ran out
    start: str | None = None  # the position string the game began from (None: the rules')
    invited: Mark | None = None  # online: the side whose invite link no one has opened yet
    _board: Board = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Build the position now once (the start or the opening, then the moves; from
        the board last built for this game, if it is kept: `BOARDS`); ValueError for an
        opening the rules do not have or a move that is illegal."""
        self._board = BOARDS.build(self)

    @classmethod
    def new(cls, game_id: str, mode: Mode = Mode.COMPUTER, rules: Rules | str = "standard",
            opening: str | None = None, human: Mark = Mark.X, level: int | None = None,
            created: float = 0.0, clock: WebTimeControl | None = None, start: Board | None = None,
            ) -> tuple[WebGame, dict[str, str]]:
        """A new game and the tokens of its seats (``"x"``, ``"o"``; a computer game and
        a local one have one token, for the human's side or for both). A game may go on
        from `start` (`ninefold.web.notation.read_start`: a position and moves), whose
        rules and opening it takes. ValueError for rules, an opening, a level or a clock
        that cannot be."""
        moves: list[Move] = []
        position = None
        if start is not None:
            if opening is not None:
                raise ValueError("a game that goes on from a position has no opening")
            if start.is_game_over():
                raise ValueError("that game is over: open it in the viewer instead")
            rules, opening = start.rules, start.opening
            skip = len(opening_moves(opening)) if opening else 0
            moves = list(start.move_stack[skip:])
            root = start.copy()
            while root.move_stack:
                root.pop()
            if root != Board(rules):
                position = root.position()
        rules = Rules.parse(rules)
        if mode is Mode.COMPUTER and level == PROOF_LEVEL:
            if rules != proof.RULES or human is not Mark.O or opening or position or moves:
                raise ValueError(f"level {PROOF_LEVEL} (proof) plays X with open-boards rules "
                                 "from the empty board: choose open-boards, side O, no opening "
                                 "and no start")
        elif mode is Mode.COMPUTER:
            if level not in LEVELS:
                raise ValueError(f"the computer's level must be 1-10, or {PROOF_LEVEL} (proof) "
                                 "in open-boards games")
        elif level is not None:
            raise ValueError("only a game against the computer has a level")
        if clock is not None and mode is not Mode.ONLINE:
            raise ValueError("only an online game has a clock")
        if mode is Mode.LOCAL:
            token = secrets.token_urlsafe(TOKEN_BYTES)
            tokens = {"x": token, "o": token}
        else:  # the computer's side has no token
            tokens = {side(m): secrets.token_urlsafe(TOKEN_BYTES) for m in MARKS
                      if mode is Mode.ONLINE or m is human}
        seats: dict[str, str | None] = {
            side(m): token_hash(tokens[side(m)]) if side(m) in tokens else None for m in MARKS}
        game = cls(game_id, mode, rules, opening, moves, seats, level, created=created,
                   clock=clock, start=position,
                   invited=human.other if mode is Mode.ONLINE else None)
        if clock is not None:
            game.left_ms = {"x": float(clock.bank_ms), "o": float(clock.bank_ms)}
        return game, tokens

    # --- what the game is now

    @property
    def board(self) -> Board:
        """The position now (the start or the opening, then the moves): the game's own,
        to read, never to change."""
        return self._board

    @property
    def ply(self) -> int:
        """Moves played since the opening: the version a request must be based on."""
        return len(self.moves)

    def outcome(self) -> Outcome | None:
        """How the game ended (by the rules, a resignation or an agreed draw), or None."""
        if self.resigned is not None:
            return Outcome(self.resigned.other, Termination.RESIGNATION)
        if self.flagged is not None:
            return Outcome(self.flagged.other, Termination.TIME_FORFEIT)
        if self.agreed_draw:
            return Outcome(None, Termination.ADJUDICATION)
        return self._board.outcome()

    def computer_side(self) -> Mark | None:
        """The side the computer plays (computer games: the seat with no token)."""
        if self.mode is not Mode.COMPUTER:
            return None
        return Mark.X if self.seats.get("x") is None else (
            Mark.O if self.seats.get("o") is None else None)

    def computer_name(self) -> str:
        """The computer's player in words: ``level 3``, or ``proof``."""
        return "proof" if self.level == PROOF_LEVEL else f"level {self.level}"

    def player_name(self, mark: Mark) -> str:
        """Who plays `mark`, as a game record names players: the computer by its player
        spec (``level:3``, ``proof``), a person as ``Anonymous`` (web games have no
        accounts)."""
        if mark is not self.computer_side():
            return "Anonymous"
        return "proof" if self.level == PROOF_LEVEL else f"level:{self.level}"

    def record(self) -> Game:
        """The game's record (`ninefold.records`): its moves and result, the players,
        the UTC date and time it was made and its time control (PGN's ``TimeControl``:
        ``bank+increment`` in seconds, ``-`` for none).

        >>> game, _ = WebGame.new("g1", Mode.COMPUTER, level=3, created=1_780_000_000.0)
        >>> tags = game.record().tags
        >>> tags["X"], tags["O"], tags["Date"], tags["UTCTime"], tags["TimeControl"]
        ('Anonymous', 'level:3', '2026.05.28', '20:26:40', '-')
        """
        made = datetime.fromtimestamp(self.created, tz=UTC)
        clock = ("-" if self.clock is None else
                 f"{self.clock.bank_ms / 1000:g}+{self.clock.increment_ms / 1000:g}")
        record = Game.from_board(
            self._board, Event=f"ninefold web game {self.id}", Date=made.strftime("%Y.%m.%d"),
            UTCTime=made.strftime("%H:%M:%S"), X=self.player_name(Mark.X),
            O=self.player_name(Mark.O), TimeControl=clock)
        outcome = self.outcome()
        if outcome is not None and self._board.outcome() is None:  # ended off the board
            record.tags["Result"] = outcome.result()
            record.tags["Termination"] = str(outcome.termination)
        return record

    def computer_to_move(self) -> bool:
        computer = self.computer_side()
        return (computer is not None and self.outcome() is None
                and self._board.turn is computer)

    def seat_of(self, token: str | None) -> list[Mark]:
        """The sides `token` holds (both in a local game; none for a spectator)."""
        if not token:
            return []
        digest = token_hash(token)
        return [mark for mark in MARKS
                if (h := self.seats.get(side(mark))) and hmac.compare_digest(h, digest)]

    # --- the clock

    def time_left(self, now: float) -> dict[str, float]:
        """Each side's time left at `now` (seconds since the epoch), in ms; {} without
        a clock."""
        left = dict(self.left_ms)
        if self.running_since is not None and self.flagged is None:
            left[side(self._board.turn)] -= (now - self.running_since) * 1000
        return left

    def deadline(self) -> float | None:
        """When the side to move's time runs out (seconds since the epoch), or None."""
        if self.running_since is None or self.outcome() is not None:
            return None
        return self.running_since + self.left_ms[side(self._board.turn)] / 1000

    def settle(self, now: float) -> bool:
        """Note a time that ran out by `now`; True if it did just now (the game is over
        and needs storing)."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return False
        self.flagged = self._board.turn
        self.left_ms[side(self.flagged)] = 0.0
        self.running_since = None
        return True

    def _tick(self, mover: Mark, now: float) -> None:
        """After `mover`'s move at `now`: charge its time, start the other side's."""
        if self.clock is None:
            return
        if self.running_since is not None:
            spent = (now - self.running_since) * 1000
            self.left_ms[side(mover)] = self.clock.after(self.left_ms[side(mover)], spent)
        over = self.outcome() is not None
        self.running_since = now if self.ply >= TIMED_FROM_PLY and not over else None

    # --- changes

    def _check(self, token: str | None, ply: int | None, mover: Mark | None = None,
               ) -> list[Mark]:
        if self.outcome() is not None:
            raise Stale("the game is over")
        if ply is not None and ply != self.ply:
            raise Stale(f"the game is at move {self.ply}, not {ply}: reload it")
        held = self.seat_of(token)
        if not held:
            raise Forbidden("this needs the token of a seat in this game")
        if mover is not None and mover not in held:
            raise Forbidden(f"it is {mover}'s move, and this token is not {mover}'s")
        if self.invited in held:  # (a request from the invited seat: it is taken)
            self.invited = None
        return held

    def join(self, token: str | None) -> bool:
        """The invited player opened the game: `token` holds the seat the invite link
        gave. True if that is news (the game changed: the host no longer waits)."""
        if self.invited is None or self.invited not in self.seat_of(token):
            return False
        self.invited = None
        return True

    def play(self, move: Move, token: str | None, ply: int | None, now: float = 0.0) -> None:
        """Play `move` for the side to move, whose seat `token` must hold; `ply` is the
        move count the sender saw (None: whatever it is now); `now` (seconds since the
        epoch) runs the clock, if the game has one (`settle` first)."""
        mover = self._board.turn
        self._check(token, ply, mover)
        self._push(move)
        self._tick(mover, now)

    def computer_plays(self, move: Move) -> None:
        """The computer's move, for the side it plays."""
        if not self.computer_to_move():
            raise Stale("it is not the computer's move")
        self._push(move)

    def _push(self, move: Move) -> None:
        """Play `move` on the board (nothing changes if it is refused) and note it."""
        try:
            self._board.push(move)
        except (IllegalMoveError, InvalidMoveError) as exc:
            raise IllegalMove(str(exc)) from None
        self.moves.append(move)
        if self.draw_offer is not None and self.draw_offer is not self._board.turn.other:
            self.draw_offer = None  # the other side moved instead of accepting: it lapses

    def _pop(self) -> None:
        """Take back the last move."""
        self._board.pop()
        self.moves.pop()

    def can_undo(self) -> bool:
        """A seat holder could take back a move now (`undo`): not in online games or
        games resigned or agreed drawn, and against the computer only once the human
        has a move to take back (playing O, the computer's opening is not one)."""
        if self.mode is Mode.ONLINE or self.resigned is not None or self.agreed_draw:
            return False
        computer = self.computer_side()
        if computer is None or len(self.moves) >= 2:
            return bool(self.moves)
        # one move at most: the human's only if the computer is to move after it
        return bool(self.moves) and self._board.turn is computer

    def undo(self, token: str | None, ply: int | None) -> None:
        """Take back moves: against the computer, back to the human's last move (two
        plies, or one if the computer has not answered); on one device, one ply. Not in
        online games, and never the computer's move alone (`can_undo`)."""
        if self.mode is Mode.ONLINE:
            raise Forbidden("no take-backs in an online game: offer a draw or resign")
        if ply is not None and ply != self.ply:
            raise Stale(f"the game is at move {self.ply}, not {ply}: reload it")
        if not self.seat_of(token):
            raise Forbidden("this needs the token of a seat in this game")
        if self.resigned is not None or self.agreed_draw:
            raise Stale("the game is over")
        if not self.can_undo():
            raise Stale("no move of yours to take back")
        self._pop()
        computer = self.computer_side()
        if computer is not None and self.moves and self._board.turn is computer:
            self._pop()  # the human's move too: the human is to move again
        self.draw_offer = None

    def resign(self, token: str | None, now: float = 0.0) -> None:
        held = self._check(token, None)
        self._stop_clock(now)
        turn = self._board.turn
        self.resigned = turn if turn in held else held[0]

    def _stop_clock(self, now: float) -> None:
        """The game ends off the board at `now`: the clock stops where it is."""
        self.left_ms = self.time_left(now)
        self.running_since = None

    def offer_draw(self, token: str | None, now: float = 0.0) -> None:
        """Offer a draw, or accept the other side's offer (online games). An offer
        stands until the other side accepts it, declines it (`decline_draw`) or moves
        instead: an offer made on one's own turn outlasts one's move."""
        if self.mode is not Mode.ONLINE:
            raise Forbidden("draw offers are for online games")
        offering = self._check(token, None)[0]
        if self.draw_offer is offering.other:
            self._stop_clock(now)
            self.agreed_draw = True
        else:
            self.draw_offer = offering

    def decline_draw(self, token: str | None) -> None:
        """Decline the other side's draw offer (online games)."""
        held = self._check(token, None)
        if self.draw_offer is None or self.draw_offer in held:
            raise Stale("there is no draw offer of the other side's to decline")
        self.draw_offer = None


class KeptBoards:
    """The boards last built for the `size` games read most recently, so that reading a
    game again (every request reads its game) plays only the moves made since, or takes
    back those taken back, instead of replaying the whole game. A board is always what
    the game's rules, opening or start, and moves make; the kept one is never handed
    out, only copies of it.

    >>> kept = KeptBoards(size=1)
    >>> game = WebGame("g1", Mode.LOCAL, moves=[Move.parse("e5"), Move.parse("e4")])
    >>> kept.build(game).status()
    'X to move, in board 1 (d1-f3)'
    >>> game.moves.pop()  # as if read again after a take-back: the kept board pops one
    Move(board=4, cell=1)
    >>> kept.build(game).status()
    'O to move, in board 4 (d4-f6)'
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[str, tuple[tuple[Rules, str | None, str | None], list[Move],
                                           Board]] = OrderedDict()

    def build(self, game: WebGame) -> Board:
        """`game`'s board now (from the start or the opening, then its moves)."""
        base = (game.rules, game.opening, game.start)
        kept = self._kept.pop(game.id, None)  # back only once it is the game's board
        if kept is not None and kept[0] == base:
            _, done, board = kept
            same = min(len(done), len(game.moves))
            if done[:same] != game.moves[:same]:  # (the same Move objects: no Python calls)
                same = next(i for i, a in enumerate(done) if a != game.moves[i])
            for _ in range(len(done) - same):
                board.pop()
        else:
            board = (Board.from_position(game.start) if game.start else
                     Board(game.rules, opening=game.opening))
            same = 0
        for move in game.moves[same:]:
            board.push(move)
        self._kept[game.id] = (base, list(game.moves), board)
        if len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return board.copy()


BOARDS = KeptBoards(size=1024)  # the games of this process (a board is a few kB)
