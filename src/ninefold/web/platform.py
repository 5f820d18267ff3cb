"""The competition platform's API and pages, on the web board's server.

``ninefold serve --platform URL`` mounts these on the app (`mount`); the
platform's database is at URL (SQLite by default, or PostgreSQL), and the
same server builds uploads (`ninefold.platform.uploads.Builder`) and, with
``--workers N``, runs the scheduler and N match workers
(`ninefold.platform.workers.Pool`).

Who is asking: a session cookie (``ninefold_session``: HttpOnly, SameSite=Lax,
Secure over HTTPS) from sign-up or log-in, or an API token in the
``Authorization: Bearer`` header (``POST /api/platform/tokens``, for
``ninefold platform upload``). Anyone may read contests, leaderboards, bots,
games and replays; a version's compile log, input test and every game's
stderr are its author's only (403 for anyone else). An unknown id is 404.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Annotated, Literal

from fastapi import (
    APIRouter,
    Depends,
    FastAPI,
    File,
    Form,
    Path,
    Query,
    Request,
    Response,
    UploadFile,
)
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from ninefold.platform import ladder
from ninefold.platform.accounts import LIFETIMES, Accounts, AuthError
from ninefold.platform.archive import ArchiveLimits
from ninefold.platform.store import (
    Bot,
    Contest,
    GameRow,
    NameTaken,
    Store,
    User,
    Version,
    existing,
)
from ninefold.platform.uploads import Builder, NotYours, UploadError, submit
from ninefold.platform.workers import Pool
from ninefold.protocols.clock import TimeControl
from ninefold.rules import Board, Move, Rules, opening_moves
from ninefold.web.games import Forbidden, GameError, IllegalMove, NotFound
from ninefold.web.views import ERRORS, Replay, replay

COOKIE = "ninefold_session"
STATIC = FilePath(__file__).with_name("static")
MAX_UPLOAD_BYTES = ArchiveLimits().max_upload_bytes
PAGE = 100  # games listed at most per request
MAX_ID = 2**62  # ids above this exist nowhere (and would not fit the database's integers)
Id = Annotated[int, Path(ge=1, le=MAX_ID)]


class Unauthorized(GameError):
    status = 401


class Conflict(GameError):
    status = 409


# --- what goes over the wire ---------------------------------------------------------


class Credentials(BaseModel):
    name: str = Field(..., max_length=64, description="3-32 letters, digits, - or _.")
    password: str = Field(..., max_length=256)


class Me(BaseModel):
    id: int
    name: str
    admin: bool


class ApiToken(BaseModel):
    token: str = Field(..., description="Send as 'Authorization: Bearer TOKEN'.")


class NewContest(BaseModel):
    name: str = Field(..., min_length=3, max_length=32, pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field("", max_length=100)
    rules: str = Field("standard", max_length=32)
    protocol: Literal["riddles", "aigames", "codingame"] = "riddles"
    time_control: str = Field("", max_length=100, description=(
        "Changes to the protocol's platform clock, as the arena reads them: "
        "'bank=10000,inc=500' (ms). Empty: the platform's own."))
    openings: Literal["random4", "none"] = "random4"
    max_bots_per_user: int = Field(3, ge=1, le=100)


class ContestView(BaseModel):
    id: int
    name: str
    title: str
    rules: str
    protocol: str
    time_control: str
    openings: str
    max_bots_per_user: int
    active: bool


class Row(BaseModel):
    rank: int
    bot: int
    name: str
    owner: str
    version: int
    language: str
    score: float = Field(..., description="mu - 3 sigma: the leaderboard's order.")
    mu: float
    sigma: float
    games: int


class Leaderboard(BaseModel):
    contest: ContestView
    rows: list[Row]
    games: dict[str, int] = Field(..., description="Games by status.")


class VersionView(BaseModel):
    id: int
    bot: int
    number: int
    filename: str
    language: str
    status: str
    created: float
    mu: float
    sigma: float
    games: int
    compile_log: str | None = Field(None, description="Its author's only.")
    test_log: str | None = Field(None, description="Its author's only.")


class RatingPointView(BaseModel):
    game: int
    mu: float
    sigma: float
    at: float


class BotView(BaseModel):
    id: int
    name: str
    contest: str
    owner: str
    mine: bool
    versions: list[VersionView]
    ratings: list[RatingPointView]


class GameSummary(BaseModel):
    id: int
    contest: str
    x: str
    o: str
    x_bot: int
    o_bot: int
    status: str
    result: str | None
    reason: str | None
    plies: int
    finished: float | None


class Games(BaseModel):
    games: list[GameSummary]


class GameLogs(BaseModel):
    x_log: str | None = Field(None, description="X's stderr, if X is yours.")
    o_log: str | None = Field(None, description="O's stderr, if O is yours.")


# --- the service ---------------------------------------------------------------------


@dataclass
class Platform:
    """What the routes use: the store, the accounts, the builder and the workers."""

    store: Store
    accounts: Accounts
    builder: Builder
    pool: Pool | None = None

    @classmethod
    def open(cls, url: str, workers: int = 0, cache: FilePath | None = None) -> Platform:
        store = Store(url)
        pool = Pool(url, workers, cache or FilePath(".ninefold-cache")) if workers else None
        return cls(store, Accounts(store), Builder(store), pool)

    def start(self) -> None:
        self.builder.start()
        if self.pool is not None:
            self.pool.start()

    def close(self) -> None:
        self.builder.close()
        if self.pool is not None:
            self.pool.close()


def _contest_view(c: Contest) -> ContestView:
    return ContestView(id=c.id, name=c.name, title=c.title, rules=c.rules, protocol=c.protocol,
                       time_control=c.time_control, openings=c.openings,
                       max_bots_per_user=c.max_bots_per_user, active=c.active)


def _version_view(v: Version, mine: bool) -> VersionView:
    return VersionView(id=v.id, bot=v.bot_id, number=v.number, filename=v.filename,
                       language=v.language or "", status=v.status, created=v.created,
                       mu=v.mu, sigma=v.sigma, games=v.games,
                       compile_log=v.compile_log if mine else None,
                       test_log=v.test_log if mine else None)


def rating_png(points: list[tuple[float, float]], title: str) -> bytes:
    """A bot's rating after each of its games: mu, and the band mu ± 3 sigma."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), dpi=100)
    ax = fig.add_subplot()
    ax.set_xlabel("games rated")
    ax.set_ylabel("rating")
    ax.set_title(title)
    if not points:
        ax.text(0.5, 0.5, "no rated games yet", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        points = [ladder.INITIAL, *points]  # from where every bot starts
        n = list(range(len(points)))
        ax.fill_between(n, [m - 3 * s for m, s in points], [m + 3 * s for m, s in points],
                        alpha=0.25, label="mu ± 3 sigma")
        ax.plot(n, [p[0] for p in points], label="mu")
        ax.plot(n, [ladder.ordinal(m, s) for m, s in points], "--",
                label="score (mu - 3 sigma)")
        ax.legend(loc="upper left", fontsize=8, ncols=3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


async def viewer(request: Request) -> User | None:
    """Who asks: the user of the session cookie or of the Bearer API token (None: nobody)."""
    token = request.cookies.get(COOKIE)
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    if not token:
        return None
    return await asyncio.to_thread(request.app.state.platform.accounts.user_for, token)


async def signed_in(who: Annotated[User | None, Depends(viewer)]) -> User:
    if who is None:
        raise Unauthorized("log in first (a session cookie or an API token)")
    return who


Viewer = Annotated[User | None, Depends(viewer)]
Signed = Annotated[User, Depends(signed_in)]


def mount(app: FastAPI, url: str, workers: int = 0, cache: FilePath | None = None,
          ) -> Callable[[], AsyncIterator[None]]:
    """Add the platform's routes and pages to `app`; returns its lifespan (start the
    builder and workers, stop them)."""
    platform = Platform.open(url, workers, cache)
    store, accounts = platform.store, platform.accounts
    app.state.platform = platform
    routes = APIRouter(prefix="/api/platform", tags=["platform"])

    def set_cookie(request: Request, response: Response, token: str) -> None:
        response.set_cookie(COOKIE, token, max_age=int(LIFETIMES["cookie"]), httponly=True,
                            samesite="lax", secure=request.url.scheme == "https", path="/")

    def me(u: User) -> Me:
        return Me(id=u.id, name=u.name, admin=u.is_admin)

    def contest_named(name: str) -> Contest:
        contest = store.contest_by_name(name)
        if contest is None:
            raise NotFound(f"no contest {name!r}")
        return contest

    def bot_by_id(bot_id: int) -> Bot:
        bot = store.bot(bot_id)
        if bot is None:
            raise NotFound(f"no bot {bot_id}")
        return bot

    @routes.post("/signup", response_model=Me, status_code=201, responses=ERRORS)
    async def sign_up(req: Credentials, request: Request, response: Response) -> Me:
        try:
            u = await asyncio.to_thread(accounts.sign_up, req.name, req.password)
            _, token = await asyncio.to_thread(accounts.log_in, req.name, req.password,
                                               "cookie")
        except AuthError as exc:  # the name is taken
            raise Conflict(str(exc)) from None
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        set_cookie(request, response, token)
        return me(u)

    @routes.post("/login", response_model=Me, responses={**ERRORS, 401: ERRORS[403]})
    async def log_in(req: Credentials, request: Request, response: Response) -> Me:
        try:
            u, token = await asyncio.to_thread(accounts.log_in, req.name, req.password,
                                               "cookie")
        except (AuthError, ValueError) as exc:
            raise Unauthorized(str(exc)) from None
        set_cookie(request, response, token)
        return me(u)

    @routes.post("/logout", status_code=204, response_class=Response)
    async def log_out(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            await asyncio.to_thread(accounts.log_out, token)
        response = Response(status_code=204)
        response.delete_cookie(COOKIE, path="/")
        return response

    @routes.get("/me", response_model=Me, responses={401: ERRORS[403]})
    async def who_am_i(u: Signed) -> Me:
        return me(u)

    @routes.post("/tokens", response_model=ApiToken, status_code=201,
                 responses={401: ERRORS[403]})
    async def new_token(u: Signed) -> ApiToken:
        """An API token for scripts and ``ninefold platform upload``."""
        token = await asyncio.to_thread(accounts.api_token, u)
        return ApiToken(token=token)

    @routes.get("/contests", response_model=list[ContestView])
    async def contests() -> list[ContestView]:
        return [_contest_view(c) for c in await asyncio.to_thread(store.contests)]

    @routes.post("/contests", response_model=ContestView, status_code=201,
                 responses={**ERRORS, 401: ERRORS[403]})
    async def new_contest(req: NewContest, u: Signed) -> ContestView:
        """A new contest (admins only)."""
        if not u.is_admin:
            raise Forbidden("only an admin can create a contest")
        try:
            Rules.parse(req.rules)
            if req.time_control.strip():
                TimeControl.parse(req.time_control)
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        try:
            made = await asyncio.to_thread(
                lambda: store.add_contest(**req.model_dump(), created_by=u.id))
        except NameTaken as exc:
            raise Conflict(str(exc)) from None
        return _contest_view(made)

    @routes.get("/contests/{name}", response_model=Leaderboard, responses=ERRORS)
    async def leaderboard(name: str) -> Leaderboard:
        def rows() -> Leaderboard:
            contest = contest_named(name)
            bots = {b.id: b for b in store.bots(contest_id=contest.id)}
            owners: dict[int, str] = {}
            active = sorted(store.active_versions(contest.id),
                            key=lambda v: -ladder.ordinal(v.mu, v.sigma))
            out = []
            for rank, v in enumerate(active, 1):
                bot = bots[v.bot_id]
                if bot.owner_id not in owners:
                    owner = store.user(bot.owner_id)
                    owners[bot.owner_id] = owner.name if owner else "?"
                out.append(Row(rank=rank, bot=bot.id, name=bot.name,
                               owner=owners[bot.owner_id], version=v.number,
                               language=v.language or "", score=ladder.ordinal(v.mu, v.sigma),
                               mu=round(v.mu, 3), sigma=round(v.sigma, 3), games=v.games))
            return Leaderboard(contest=_contest_view(contest), rows=out,
                               games=store.counts(contest.id))
        return await asyncio.to_thread(rows)

    @routes.post("/contests/{name}/bots", response_model=VersionView, status_code=201,
                 responses={**ERRORS, 401: ERRORS[403]})
    async def upload(name: str, u: Signed,
                     bot: Annotated[str, Form(min_length=1, max_length=32,
                                              pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$")],
                     file: Annotated[UploadFile, File(description=(
                         ".zip, .tar.gz or .tar of the sources, files at the top level"))],
                     ) -> VersionView:
        """Upload a bot (a new one, or a new version of your own): it is compiled and
        input-tested in the sandbox; watch its status at ``/api/platform/versions/{id}``."""
        data = await file.read(MAX_UPLOAD_BYTES + 1)
        if len(data) > MAX_UPLOAD_BYTES:
            raise IllegalMove(f"the archive is over {MAX_UPLOAD_BYTES >> 20} MiB")

        def store_it() -> Version:
            contest = contest_named(name)
            try:
                return submit(store, contest, u, bot, file.filename or "bot.zip", data)[1]
            except NotYours as exc:
                raise Forbidden(str(exc)) from None
            except UploadError as exc:
                raise IllegalMove(str(exc)) from None
        version = await asyncio.to_thread(store_it)
        platform.builder.wake.set()
        return _version_view(version, True)

    @routes.get("/versions/{version_id}", response_model=VersionView, responses=ERRORS)
    async def version(version_id: Id, who: Viewer) -> VersionView:
        def read() -> VersionView:
            v = store.version(version_id)
            if v is None:
                raise NotFound(f"no version {version_id}")
            owner = existing(store.bot(v.bot_id), f"bot {v.bot_id}").owner_id
            return _version_view(v, who is not None and owner == who.id)
        return await asyncio.to_thread(read)

    @routes.get("/bots/{bot_id}", response_model=BotView, responses=ERRORS)
    async def bot_page(bot_id: Id, who: Viewer) -> BotView:
        def read() -> BotView:
            b = bot_by_id(bot_id)
            mine = who is not None and b.owner_id == who.id
            versions = store.versions(b.id)
            points = [RatingPointView(game=p.game_id, mu=p.mu, sigma=p.sigma, at=p.at)
                      for v in versions for p in store.rating_history(v.id)]
            owner = store.user(b.owner_id)
            contest = store.contest(b.contest_id)
            return BotView(id=b.id, name=b.name, contest=contest.name if contest else "?",
                           owner=owner.name if owner else "?", mine=mine,
                           versions=[_version_view(v, mine) for v in versions],
                           ratings=sorted(points, key=lambda p: p.at))
        return await asyncio.to_thread(read)

    @routes.get("/bots/{bot_id}/rating.png", response_class=Response,
                responses={200: {"content": {"image/png": {}}}, **ERRORS})
    async def rating_plot(bot_id: Id) -> Response:
        """The bot's rating after each game it played (every version), as a PNG."""
        def draw() -> bytes:
            b = bot_by_id(bot_id)
            points = sorted((p for v in store.versions(b.id)
                             for p in store.rating_history(v.id)), key=lambda p: p.at)
            return rating_png([(p.mu, p.sigma) for p in points], f"{b.name}: rating")
        return Response(await asyncio.to_thread(draw), media_type="image/png",
                        headers={"Cache-Control": "no-cache"})

    def summary(g: GameRow, names: dict[int, tuple[str, int]],
                contests: dict[int, str]) -> GameSummary:
        for vid in (g.x_version, g.o_version):
            if vid not in names:
                v = existing(store.version(vid), f"version {vid}")
                bot = existing(store.bot(v.bot_id), f"bot {v.bot_id}")
                names[vid] = (f"{bot.name} v{v.number}", v.bot_id)
        if g.contest_id not in contests:
            c = store.contest(g.contest_id)
            contests[g.contest_id] = c.name if c else "?"
        return GameSummary(id=g.id, contest=contests[g.contest_id], x=names[g.x_version][0],
                           o=names[g.o_version][0], x_bot=names[g.x_version][1],
                           o_bot=names[g.o_version][1], status=g.status, result=g.result,
                           reason=g.reason, plies=len(g.moves.split()) if g.moves else 0,
                           finished=g.finished)

    @routes.get("/games", response_model=Games, responses=ERRORS)
    async def games(contest: Annotated[str | None, Query(max_length=32)] = None,
                    bot: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
                    status: Literal["queued", "running", "done"] | None = "done",
                    limit: Annotated[int, Query(ge=1, le=PAGE)] = 50,
                    offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0) -> Games:
        """Games, newest first: of a contest, or of a bot (every version)."""

        def read() -> Games:
            contest_id = contest_named(contest).id if contest else None
            rows = []
            if bot is not None:
                for v in store.versions(bot_by_id(bot).id):
                    rows += store.games(version_id=v.id, status=status, limit=limit + offset)
                rows = sorted(rows, key=lambda g: -g.id)[offset:offset + limit]
            else:
                rows = store.games(contest_id=contest_id, status=status, limit=limit,
                                   offset=offset)
            names: dict[int, tuple[str, int]] = {}
            contests: dict[int, str] = {}
            return Games(games=[summary(g, names, contests) for g in rows])
        return await asyncio.to_thread(read)

    def game_row(game_id: int) -> GameRow:
        g = store.game(game_id)
        if g is None:
            raise NotFound(f"no game {game_id}")
        return g

    @routes.get("/games/{game_id}/replay", response_model=Replay, responses=ERRORS)
    async def game_replay(game_id: Id) -> Replay:
        def read() -> Replay:
            g = game_row(game_id)
            s = summary(g, {}, {})
            contest = store.contest(g.contest_id)
            try:
                board = Board(contest.rules if contest else "standard")
                moves = [Move.parse(m) for m in (g.moves or "").split()]
                opening = len(opening_moves(g.opening)) if g.opening else 0
                return replay(f"{s.contest} game {g.id}", s.x, s.o, board, moves, opening,
                              g.result, g.reason, g.reason or "")
            except ValueError as exc:
                raise IllegalMove(f"game {game_id} cannot be replayed: {exc}") from None
        return await asyncio.to_thread(read)

    @routes.get("/games/{game_id}/logs", response_model=GameLogs,
                responses={**ERRORS, 401: ERRORS[403]})
    async def game_logs(game_id: Id, u: Signed) -> GameLogs:
        """The stderr of your bots in this game (403 if neither side is yours)."""
        def read() -> GameLogs:
            g = game_row(game_id)
            owner: dict[int, int] = {}
            for vid in (g.x_version, g.o_version):
                bot_id = existing(store.version(vid), f"version {vid}").bot_id
                owner[vid] = existing(store.bot(bot_id), f"bot {bot_id}").owner_id
            x_mine, o_mine = owner[g.x_version] == u.id, owner[g.o_version] == u.id
            if not (x_mine or o_mine):
                raise Forbidden("neither bot of this game is yours")
            return GameLogs(x_log=g.x_log if x_mine else None,
                            o_log=g.o_log if o_mine else None)
        return await asyncio.to_thread(read)

    app.include_router(routes)

    @app.get("/platform", include_in_schema=False)
    @app.get("/platform/{rest:path}", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "platform.html")

    async def lifespan() -> AsyncIterator[None]:
        await asyncio.to_thread(platform.start)
        try:
            yield
        finally:
            await asyncio.to_thread(platform.close)

    return lifespan
