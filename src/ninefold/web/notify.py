"""Changes that other server processes store, pushed to the pages watching here (`Listener`).

With the games on PostgreSQL (`ninefold.web.postgres`) several server
processes share one database (``ninefold serve --processes N``, or servers on
several machines). Every stored change of a game notifies the others (a
trigger, ``NOTIFY`` with the game's id, sent when the change commits). Each
process's `Listener` (started by the app's lifespan) LISTENs: for a game that
pages here watch, it reads the game and hands it to `Hub.changed_elsewhere`,
which sends them its view and sets this process's timer for its clock. A
change this process stored itself (sent from one of its own connections) its
hub has already sent. If the listening connection is lost, it connects again
and sends every watched game's view, so a change missed meanwhile is not.

Who does what follows a change, with several processes:

- the computer's move: the process that stored the change starts it, as with
  one process; at start-up every process resumes the moves the computer owes
  (those of a process that died). A computer move is claimed in the database
  before its game is read (`ninefold.web.store.GameStore.claim`, an advisory
  lock), so one process searches it and any other, claiming it after, finds it
  played and stops;
- a clock's flag fall: the process that stored the change, and every process
  where pages watch the game, sets a timer; each re-reads the game once the
  deadline has passed (a timer that wakes early sleeps again), waits on if a
  change stored since moved the deadline, and the store's change count lets
  exactly one write the flag fall (`Hub.settle`: the others are stale, or find
  it already settled). A page's read of the game (``GET``, or a WebSocket's
  first view) settles a fallen flag too, wherever it comes, and times the clock
  in its process from then on: a game whose timing process died still ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import psycopg

from ninefold.web.errors import GameError
from ninefold.web.hub import Hub
from ninefold.web.postgres import CHANNEL, Postgres

START_S = 30.0  # the most the server's start waits for the listening connection
RETRY_S = 1.0  # wait before connecting again after the listening connection was lost
log = logging.getLogger(__name__)


class Listener:
    """A task LISTENing to the games' channel for the changes other processes store."""

    def __init__(self, hub: Hub, db: Postgres) -> None:
        self.hub, self.db = hub, db
        self.listening = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, hub: Hub) -> Listener | None:
        """Listen for the hub's store, once it is listening; None on SQLite (one process
        has nothing to hear)."""
        if not isinstance(hub.store.backend, Postgres):
            return None
        listener = cls(hub, hub.store.backend)
        listener.task = asyncio.create_task(listener._run())
        try:
            await asyncio.wait_for(listener.listening.wait(), START_S)
        except TimeoutError:  # the server does not start deaf to the others
            await listener.close()
            raise
        return listener

    async def _run(self) -> None:
        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                        self.db.conninfo, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    if not first:  # what changed while no one listened
                        for game_id in list(self.hub.watchers):
                            await self._push(game_id)
                    first = False
                    async for note in conn.notifies():
                        if note.pid not in self.db.pids:  # ours: the hub has sent it
                            await self._push(note.payload)
            except psycopg.OperationalError as exc:
                log.warning("listening for other processes' changes: %s", exc)
                await asyncio.sleep(RETRY_S)

    async def _push(self, game_id: str) -> None:
        """Send game `game_id` as it is now to the pages watching here (if any)."""
        if not self.hub.watchers.get(game_id):
            return
        try:
            game = await asyncio.to_thread(self.hub.store.get, game_id)
        except GameError:
            return
        await self.hub.changed_elsewhere(game)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
