"""What runs beside the web board's requests: the computer's pending moves, the clocks'
flag falls, and the pages watching each game (`Hub`).

A route lets the computer answer at once where its level searches nothing
(`Hub.answer_at_once`, before the change is stored), then calls `Hub.changed`
once it is stored: the computer starts its move if it is still its turn (a task
a game, its search in `ninefold.web.computer`), a running clock gets a timer for
the moment the side to move's time runs out, and every page watching the game's
WebSocket gets its new view. That view is built once a change, for the watchers
and the answer alike (`Hub.view_json` adds the sides the asking token holds, its
JSON made once a version), and kept while pages watch the game, so their reads
of the version their socket brought build none (`Hub.view`). With several
processes on one PostgreSQL database, `ninefold.web.notify` hears the changes
the others store and calls `Hub.changed_elsewhere`.

Each of the computer's moves is owed to a client (`ninefold.web.limits.client_key`:
the address whose request called for it); a client may have at most
`Hub.moves_per_client` of them waiting or searched at once (`Hub.may_think`, asked
before a change that calls for one is stored: else `TooMany`, nothing stored), and
the computer's workers take the waiting moves client by client.

A clock's timer ends the game only once the time has run out on the clock the
moves are timed by (`time.time`; an event loop's timer may wake early: it sleeps
again), and the flag falls once (`Hub.settle`: a write that finds the game
changed is refused). If a change stored elsewhere moved the deadline, the timer
waits for the new one, so the game ends even if the process that stored the
change is gone. A page's read of a game (`Hub.read`: ``GET``, and the first view
a WebSocket sends) notes a time that ran out too, and times the game's clock in
this process from then on.

The store's reads and writes go through `GameStore.call`: on the event loop for
SQLite (tens of microseconds each: a thread hop would cost more), in a thread
for PostgreSQL (a round trip to a server); the computer's searches run in
worker processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from fastapi import WebSocket

from ninefold.web.computer import Computer, instant
from ninefold.web.errors import GameError, NotFound, Stale, TooMany
from ninefold.web.games import WebGame
from ninefold.web.notation import side
from ninefold.web.store import GameStore
from ninefold.web.views import GameView, game_view

# How long past its deadline a clock's timer asks to wake. An event loop's timers may
# wake early: uvloop rounds a delay to whole milliseconds and counts it from the loop's
# time as of its last wake, so a third of its sleeps ended up to half a millisecond
# or more before the time asked (the game then stayed unfinished). One that still
# wakes before the deadline sleeps again.
WAKE_AFTER_S = 0.001
RETRY_THINKING_S = 2.0  # a client told to wait for the computer's moves: about one search


@dataclass
class Kept:
    """A game's view as everyone sees it, and its JSON for each set of sides asked."""

    view: GameView
    texts: dict[tuple[str, ...], str] = field(default_factory=dict)


class Hub:
    """What runs beside the requests: the computer's pending moves (one task a game)
    and the pages watching each game."""

    def __init__(self, store: GameStore, computer: Computer, moves_per_client: int = 0,
                 ) -> None:
        self.store = store
        self.computer = computer
        self.moves_per_client = moves_per_client  # the computer's moves owed a client (0: any)
        self.thinking: dict[str, asyncio.Task[None]] = {}
        self.owed: dict[str, str] = {}  # the client each thinking game's move is owed to
        self.timers: dict[str, asyncio.Task[None]] = {}  # a running clock's flag fall
        self.watchers: dict[str, set[WebSocket]] = {}
        self.views: dict[str, Kept] = {}  # each watched game's last view (no clock)

    def view(self, game: WebGame, token: str | None = None) -> GameView:
        """`game` as everyone sees it now, with the sides `token` holds."""
        you = [side(m) for m in game.seat_of(token)]
        view = self._kept(game).view
        return view.model_copy(update={"you": you}) if you else view

    def view_json(self, game: WebGame, token: str | None = None) -> str:
        """`view` in JSON. A watched game's is made once a version for each set of sides
        (a game with a clock's, every time: its times run): the answer to a move, the
        message to its pages and their reads of the version it brought share it."""
        you = tuple(side(m) for m in game.seat_of(token))
        kept = self._kept(game)
        text = kept.texts.get(you)
        if text is None:
            view = kept.view.model_copy(update={"you": list(you)}) if you else kept.view
            kept.texts[you] = text = view.model_dump_json()
        return text

    def _kept(self, game: WebGame) -> Kept:
        """`game`'s view now: the one kept if it is still true, or a new one (kept while
        pages watch the game and it has no clock)."""
        thinking = game.id in self.thinking
        kept = self.views.get(game.id)
        if (kept is None or kept.view.version != game.changes
                or kept.view.thinking != thinking or game.clock is not None):
            kept = Kept(game_view(game, thinking=thinking))
            if game.id in self.watchers and game.clock is None:
                self.views[game.id] = kept
        return kept

    def watch(self, game_id: str, ws: WebSocket) -> None:
        """Send `ws` every change of the game from now on."""
        self.watchers.setdefault(game_id, set()).add(ws)

    def unwatch(self, game_id: str, ws: WebSocket) -> None:
        """`ws` is gone: forget it (and, with no page left watching, the game's view)."""
        watching = self.watchers.get(game_id, set())
        watching.discard(ws)
        if not watching:
            self.watchers.pop(game_id, None)
            self.views.pop(game_id, None)

    def answer_at_once(self, game: WebGame) -> None:
        """The computer's move, played now if it owes one at a level that searches nothing
        (`Computer.play_now`): stored with the change that called for it, it costs the
        game one write and its pages one message instead of two, and no page ever shows
        the computer "thinking" for a move it makes in microseconds."""
        if game.computer_to_move() and game.level is not None and instant(game.level):
            game.computer_plays(self.computer.play_now(game.level, game.board))

    def may_think(self, game: WebGame, client: str) -> None:
        """Before a change of `game` asked by `client` is stored: `TooMany` if it calls for
        a move the computer searches (a level not `instant`) and `client` already has
        `moves_per_client` such moves waiting or searched."""
        if (self.moves_per_client <= 0 or not game.computer_to_move() or game.level is None
                or instant(game.level) or game.id in self.thinking):
            return
        owed = sum(1 for c in self.owed.values() if c == client)
        if owed >= self.moves_per_client:
            raise TooMany(f"the computer is still thinking in {owed} of your games: try "
                          "again once it has moved", RETRY_THINKING_S)

    def stop_thinking(self, game_id: str) -> None:
        """The computer's search in game `game_id` is for a position gone (a take-back):
        stop it, and the move is owed no more."""
        task = self.thinking.pop(game_id, None)
        self.owed.pop(game_id, None)
        if task is not None:
            task.cancel()

    async def changed(self, game: WebGame, token: str | None = None, client: str = "",
                      ) -> str:
        """After a change is stored: let the computer move if it is its turn (the move
        owed to `client`), tell every page watching, and answer the view (built once for
        all) with `token`'s sides, in JSON."""
        if game.computer_to_move() and game.id not in self.thinking:
            self.owed[game.id] = client
            self.thinking[game.id] = asyncio.create_task(self._computer_moves(game))
        self._watch_clock(game)
        await self.broadcast(game.id, self.view_json(game))
        return self.view_json(game, token)

    async def read(self, game_id: str) -> WebGame:
        """Game `game_id` now, for a page: a time that ran out is noted, stored and told
        (`settle`: whether or not a timer here or elsewhere was set for it), and from
        now on this process times the game's clock too."""
        game = await self.store.call(self.store.get, game_id)
        try:
            await self.settle(game)
        except Stale:  # another request or process wrote first: the game as it is now
            game = await self.store.call(self.store.get, game_id)
        if game.id not in self.timers:
            self._watch_clock(game)
        return game

    async def settle(self, game: WebGame) -> bool:
        """If the side to move's time in `game` (as read from the store) has run out by
        now, note it, store it and tell the pages (`changed`); True if it had. `Stale`
        if the game changed since it was read (nothing written: another request, timer
        or process wrote first), so that the flag falls once."""
        changes = game.changes
        if not game.settle(time.time()):
            return False
        await self.store.call(self.store.save, game, changes)
        await self.changed(game)
        return True

    def _watch_clock(self, game: WebGame) -> None:
        """Be there when the side to move's time runs out (even if no one asks)."""
        timer = self.timers.pop(game.id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        deadline = game.deadline()
        if deadline is not None:
            self.timers[game.id] = asyncio.create_task(self._flag_falls(game.id, deadline))

    async def _flag_falls(self, game_id: str, deadline: float | None) -> None:
        """End game `game_id` once the side to move's time has run out, `deadline` (on
        the clock `WebGame.settle` is given) as this process last knew it: sleep until
        it has passed, then read the game and settle it; a change stored meanwhile
        (elsewhere: here it would have replaced this timer) gives the deadline to wait
        for next, None once the game is over or its clock stopped."""
        try:
            while deadline is not None:
                while (left := deadline - time.time()) > 0:  # a timer that woke early
                    await asyncio.sleep(left + WAKE_AFTER_S)
                game = await self.store.call(self.store.get, game_id)
                try:
                    await self.settle(game)
                except Stale:  # a change came first: the game as it is now
                    continue
                deadline = game.deadline()
        except NotFound:
            return
        finally:
            if self.timers.get(game_id) is asyncio.current_task():
                del self.timers[game_id]

    async def changed_elsewhere(self, game: WebGame) -> None:
        """After another process stored a change (`ninefold.web.notify`): a timer for its
        clock here too, and its view to the pages watching here (the computer, if it owes
        a move, thinks in the process that stored the change)."""
        self._watch_clock(game)
        await self.broadcast(
            game.id, game_view(game, thinking=game.computer_to_move()).model_dump_json())

    async def broadcast(self, game_id: str, data: str) -> None:
        """Send `data` (the game's view as everyone sees it, in JSON) to every page
        watching the game."""
        watching = self.watchers.get(game_id)
        if not watching:
            return
        for ws in list(watching):
            try:
                await ws.send_text(data)
            except Exception:  # a page gone: forget it
                self.unwatch(game_id, ws)

    async def _computer_moves(self, stored: WebGame) -> None:
        """The computer's move in `stored` (as it was just stored), searched, played and
        stored, unless a change came meanwhile."""
        game_id, game = stored.id, stored
        try:
            async with self.store.claim(game_id):  # other processes: one searches it
                if self.store.shared:  # and another may have changed the game meanwhile
                    game = await self.store.call(self.store.get, game_id)
                if not game.computer_to_move() or game.level is None:
                    return
                changes = game.changes
                move = await self.computer.move(game.level, game.board,
                                                self.owed.get(game_id, ""))
                game.computer_plays(move)
                # Stale if an undo came meanwhile: the move is for a position gone
                await self.store.call(self.store.save, game, changes)
        except GameError:
            return
        finally:
            if self.thinking.get(game_id) is asyncio.current_task():
                del self.thinking[game_id]
                self.owed.pop(game_id, None)
        await self.changed(game)

    async def resume(self) -> None:
        """At start-up: the computer moves in the games where it owes one."""
        call, store = self.store.call, self.store
        for game_id in await call(store.unfinished_computer_games):
            game = await call(store.get, game_id)
            if game.computer_to_move():
                await self.changed(game)
        for game_id in await call(store.running_clocks):
            self._watch_clock(await call(store.get, game_id))

    async def close(self) -> None:
        for task in [*self.thinking.values(), *self.timers.values()]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
