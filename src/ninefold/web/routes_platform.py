"""The competition platform's routes (`router`, under ``/api/platform``) and its pages.

They use the `ninefold.web.platform.Platform` that the app keeps on
``app.state.platform`` (FastAPI dependencies: `Service`, `PlatformStore`,
`PlatformAccounts`), and ask who is asking through `viewer`.

Who is asking: a session cookie (``ninefold_session``: HttpOnly, SameSite=Lax,
Secure over HTTPS) from sign-up or log-in, or an API token in the
``Authorization: Bearer`` header (``POST /api/platform/tokens``, for
``ninefold platform upload``); ``GET /api/platform/sessions`` lists one's log-ins
and API tokens and ``DELETE /api/platform/sessions/{id}`` ends one. Anyone may read
contests, leaderboards, bots, games and replays, and download a contest's starter
bots; a version's compile log, input test and every game's stderr are its author's
only (403 for anyone else). An unknown id is 404.

An organiser (an account an admin made one) or an admin creates contests; the
contest's organiser (the account that created it) or an admin sets its opening
and closing times and enters house bots (ninefold's own players); an author asks
for unranked test games of their bots. Once a contest has closed and its final
standings are stored, its leaderboard shows them (``final``).

The pages: ``/platform``, ``/platform/account`` (one's log-ins and API tokens, each
ended by a button), ``/platform/c/{name}`` and ``/platform/bot/{id}``
(``static/platform.html``, 404 for no such contest or bot, as for any other
address under ``/platform/``) and ``/platform-game/{id}``, the web board's viewer
with the turns' times, stderr and links (``static/platform-game.js``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path as FilePath
from typing import Annotated, Literal, TypeVar

from fastapi import (
    APIRouter,
    Depends,
    Path,
    Query,
    Request,
    Response,
)
from fastapi.responses import FileResponse, HTMLResponse
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from ninefold.platform import house, ladder, practice, recipes, starters, token_hash
from ninefold.platform.accounts import LIFETIMES, Accounts, AuthError, session_id
from ninefold.platform.jobs import TurnLogs
from ninefold.platform.limits import Busy, RateLimited
from ninefold.platform.scheduler import ranking
from ninefold.platform.store import (
    Bot,
    Contest,
    GameRow,
    NameTaken,
    Store,
    StoreError,
    User,
    Version,
    existing,
)
from ninefold.platform.uploads import ContestClosed, NotYours, UploadError, UploadLimit, submit
from ninefold.protocols.clock import TimeControl
from ninefold.rules import Board, Move, Rules, opening_moves
from ninefold.web.errors import Forbidden, GameError, IllegalMove, NotFound, TooMany
from ninefold.web.limits import client_key
from ninefold.web.platform import MAX_UPLOAD_BYTES, Platform
from ninefold.web.platform_views import (
    BOT_NAME,
    BOT_NAME_RULE,
    ApiToken,
    AskTestGames,
    BotView,
    ContestTimes,
    ContestView,
    Credentials,
    GameLogs,
    Games,
    GameSummary,
    GameTurns,
    HouseBot,
    Leaderboard,
    Me,
    NewContest,
    RatingPointView,
    Row,
    SessionView,
    Turn,
    VersionView,
    contest_view,
    rating_png,
    version_view,
)
from ninefold.web.routes_pages import index_page
from ninefold.web.views import ERRORS, Replay, replay

T = TypeVar("T")
COOKIE = "ninefold_session"
STATIC = FilePath(__file__).with_name("static")
PAGE = 100  # games listed at most per request
MAX_ID = 2**62  # ids above this exist nowhere (and would not fit the database's integers)
Id = Annotated[int, Path(ge=1, le=MAX_ID)]
UPLOAD_PATH = r"/api/platform/contests/[^/]+/bots"  # the one route with a large body
UPLOAD_FORM = {"requestBody": {"required": True, "content": {"multipart/form-data": {
    "schema": {"type": "object", "required": ["bot", "file"], "properties": {
        "bot": {"type": "string", "maxLength": 32, "description": BOT_NAME_RULE},
        "file": {"type": "string", "format": "binary", "description": (
            ".zip, .rar, .tar.gz or .tar of the sources, files at the top level")}}}}}}}


class Unauthorized(GameError):
    status = 401


class Capped(GameError):
    """An upload past its author's caps (`ninefold.platform.limits.PlatformLimits`)."""

    status = 429


class Overloaded(TooMany):
    """The password hashing's queue is full: try again in a moment."""

    status = 503


class Conflict(GameError):
    status = 409


# --- what the routes are given -------------------------------------------------------


def platform_of(conn: HTTPConnection) -> Platform:
    """The app's platform (``app.state.platform``)."""
    platform: Platform = conn.app.state.platform
    return platform


def platform_store(conn: HTTPConnection) -> Store:
    """The platform's database."""
    return platform_of(conn).store


def platform_accounts(conn: HTTPConnection) -> Accounts:
    """The platform's sign-ups, log-ins and sessions."""
    return platform_of(conn).accounts


Service = Annotated[Platform, Depends(platform_of)]
PlatformStore = Annotated[Store, Depends(platform_store)]
PlatformAccounts = Annotated[Accounts, Depends(platform_accounts)]


def session_token(request: Request) -> str | None:
    """The session token a request sends: its Bearer API token, else its cookie."""
    token = request.cookies.get(COOKIE)
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    return token or None


async def viewer(request: Request) -> User | None:
    """Who asks: the user of the session cookie or of the Bearer API token (None: nobody)."""
    token = session_token(request)
    if not token:
        return None
    return await asyncio.to_thread(platform_of(request).accounts.user_for, token)


async def signed_in(who: Annotated[User | None, Depends(viewer)]) -> User:
    if who is None:
        raise Unauthorized("log in first (a session cookie or an API token)")
    return who


Viewer = Annotated[User | None, Depends(viewer)]
Signed = Annotated[User, Depends(signed_in)]


# --- helpers -----------------------------------------------------------------------


def client_of(request: Request) -> str:
    """The client a request counts as for the rate limits: its address as uvicorn gives
    it (a proxy's ``X-Forwarded-For`` only where ``--forwarded-allow-ips`` trusts it),
    an IPv6 address's /64 block (`ninefold.web.limits.client_key`)."""
    return client_key(request.client.host if request.client else None)


async def hashing(accounts: Accounts, work: Callable[[], T]) -> T:
    """`work` (a sign-up or a log-in: an argon2 hash) in the accounts' own bounded pool,
    never in the thread pool every route shares; 429 or 503 (a full queue) at once."""
    try:
        return await accounts.hashing.run(work)
    except RateLimited as exc:
        raise TooMany(str(exc), exc.retry_after) from None
    except Busy as exc:
        raise Overloaded(str(exc), 1.0) from None


def set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(COOKIE, token, max_age=int(LIFETIMES["cookie"]), httponly=True,
                        samesite="lax", secure=request.url.scheme == "https", path="/")


def me(u: User) -> Me:
    return Me(id=u.id, name=u.name, admin=u.is_admin, organiser=u.is_organiser)


def contest_named(store: Store, name: str) -> Contest:
    contest = store.contest_by_name(name)
    if contest is None:
        raise NotFound(f"no contest {name!r}")
    return contest


def bot_by_id(store: Store, bot_id: int) -> Bot:
    bot = store.bot(bot_id)
    if bot is None:
        raise NotFound(f"no bot {bot_id}")
    return bot


def summary(store: Store, g: GameRow, names: dict[int, tuple[str, int]],
            contests: dict[int, str]) -> GameSummary:
    """`g` as the game lists show it; `names` and `contests` remember the versions' and
    contests' names already read."""
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
                       finished=g.finished, ranked=g.ranked)


def game_row(store: Store, game_id: int) -> GameRow:
    g = store.game(game_id)
    if g is None:
        raise NotFound(f"no game {game_id}")
    return g


# --- the routes ---------------------------------------------------------------------

router = APIRouter(prefix="/api/platform", tags=["platform"])
# sign-up and log-in: also rate-limited (429) and hashed in a bounded pool (503)
HASHED = {**ERRORS, 429: ERRORS[403], 503: ERRORS[403]}


@router.post("/signup", response_model=Me, status_code=201, responses=HASHED)
async def sign_up(req: Credentials, request: Request, response: Response,
                  accounts: PlatformAccounts) -> Me:
    address = client_of(request)

    def made() -> tuple[User, str]:
        u = accounts.sign_up(req.name, req.password, address)
        return u, accounts.session(u, "cookie")
    try:
        u, token = await hashing(accounts, made)
    except AuthError as exc:  # the name is taken
        raise Conflict(str(exc)) from None
    except ValueError as exc:
        raise IllegalMove(str(exc)) from None
    set_cookie(request, response, token)
    return me(u)


@router.post("/login", response_model=Me, responses={**HASHED, 401: ERRORS[403]})
async def log_in(req: Credentials, request: Request, response: Response,
                 accounts: PlatformAccounts) -> Me:
    address = client_of(request)
    try:
        u, token = await hashing(accounts, lambda: accounts.log_in(
            req.name, req.password, "cookie", address))
    except (AuthError, ValueError) as exc:
        raise Unauthorized(str(exc)) from None
    set_cookie(request, response, token)
    return me(u)


@router.post("/logout", status_code=204, response_class=Response)
async def log_out(request: Request, accounts: PlatformAccounts) -> Response:
    token = request.cookies.get(COOKIE)
    if token:
        await asyncio.to_thread(accounts.log_out, token)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/me", response_model=Me, responses={401: ERRORS[403]})
async def who_am_i(u: Signed) -> Me:
    return me(u)


@router.post("/tokens", response_model=ApiToken, status_code=201,
             responses={401: ERRORS[403]})
async def new_token(u: Signed, accounts: PlatformAccounts) -> ApiToken:
    """An API token for scripts and ``ninefold platform upload``."""
    token = await asyncio.to_thread(accounts.api_token, u)
    return ApiToken(token=token)


@router.get("/sessions", response_model=list[SessionView], responses={401: ERRORS[403]})
async def sessions(u: Signed, request: Request, accounts: PlatformAccounts
                   ) -> list[SessionView]:
    """Your sessions still valid, newest first: each browser's log-in and each API
    token (its id, never the token)."""
    token = session_token(request)
    mine = session_id(token_hash(token)) if token else None
    return [SessionView(id=session_id(s.token_hash), kind=s.kind,  # type: ignore[arg-type]
                        created=s.created, last_used=s.last_used, expires=s.expires,
                        current=session_id(s.token_hash) == mine)
            for s in await asyncio.to_thread(accounts.sessions, u)]


@router.delete("/sessions/{session}", status_code=204, response_class=Response,
               responses={**ERRORS, 401: ERRORS[403]})
async def revoke(session: Annotated[str, Path(pattern=r"^[0-9a-f]{16}$")], u: Signed,
                 accounts: PlatformAccounts) -> Response:
    """End one of your sessions (a browser's log-in or an API token): it logs no one in
    from now on; 404 if you have none with that id."""
    if not await asyncio.to_thread(accounts.revoke, u, session):
        raise NotFound(f"you have no session {session}")
    return Response(status_code=204)


@router.get("/contests", response_model=list[ContestView])
async def contests(store: PlatformStore) -> list[ContestView]:
    return [contest_view(c) for c in await asyncio.to_thread(store.contests)]


@router.post("/contests", response_model=ContestView, status_code=201,
             responses={**ERRORS, 401: ERRORS[403]})
async def new_contest(req: NewContest, u: Signed, store: PlatformStore) -> ContestView:
    """A new contest, which its creator then organises (organisers and admins only)."""
    if not u.may_create_contests:
        raise Forbidden("only an organiser or an admin can create a contest "
                        "(an admin makes an account an organiser)")
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
    except ValueError as exc:  # it closes before it opens
        raise IllegalMove(str(exc)) from None
    return contest_view(made)


@router.get("/contests/{name}", response_model=Leaderboard, responses=ERRORS)
async def leaderboard(name: str, store: PlatformStore) -> Leaderboard:
    """The live leaderboard, or once the contest has closed its stored final standings."""
    def rows() -> Leaderboard:
        contest = contest_named(store, name)
        # counted before the rows are read: a rating only adds to them, so they never lag
        games = store.counts(contest.id, by_rating=True)
        bots = {b.id: b for b in store.bots(contest_id=contest.id)}
        owners: dict[int, str] = {}
        final = contest.frozen is not None
        if final:
            active = []
            for s in store.standings(contest.id):
                v = existing(store.version(s.version_id), f"version {s.version_id}")
                active.append(replace(v, mu=s.mu, sigma=s.sigma, games=s.games))
        else:
            active = ranking(store.active_versions(contest.id))
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
        return Leaderboard(contest=contest_view(contest), rows=out, games=games, final=final)
    return await asyncio.to_thread(rows)


@router.put("/contests/{name}/times", response_model=ContestView,
            responses={**ERRORS, 401: ERRORS[403]})
async def contest_times(name: str, req: ContestTimes, u: Signed,
                        store: PlatformStore) -> ContestView:
    """Set when a contest opens and closes (its organiser or an admin; 409 once its
    final standings are stored)."""
    def change() -> Contest:
        contest = contest_named(store, name)
        if not contest.organised_by(u):
            raise Forbidden("only the contest's organiser or an admin can change its times")
        try:
            return store.set_contest_times(contest.id, req.opens, req.closes)
        except StoreError as exc:
            raise Conflict(str(exc)) from None
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
    return contest_view(await asyncio.to_thread(change))


@router.post("/contests/{name}/house", response_model=VersionView, status_code=201,
             responses={**ERRORS, 401: ERRORS[403]})
async def house_bot(name: str, req: HouseBot, u: Signed, store: PlatformStore) -> VersionView:
    """Enter one of ninefold's players as a house bot, ranked like the others (the
    contest's organiser or an admin); entered again under its name, a new version."""
    def enter() -> Version:
        contest = contest_named(store, name)
        try:
            return house.enter(store, contest, u, req.name, req.spec)
        except PermissionError as exc:
            raise Forbidden(str(exc)) from None
        except NameTaken as exc:
            raise Conflict(str(exc)) from None
        except house.HouseError as exc:
            raise IllegalMove(str(exc)) from None
    return version_view(await asyncio.to_thread(enter), True)


@router.post("/test-games", response_model=Games, status_code=201,
             responses={**ERRORS, 401: ERRORS[403]})
async def ask_test_games(req: AskTestGames, u: Signed, store: PlatformStore) -> Games:
    """Queue two unranked test games (colours swapped) of a version of your bot against
    a bot's active version; watch them in the viewer. They never change a rating. 409
    while the same two versions' test games wait (the request sent twice)."""
    def queue() -> Games:
        try:
            ids = practice.ask(store, u, req.version, req.opponent)
        except PermissionError as exc:
            raise Forbidden(str(exc)) from None
        except practice.Waiting as exc:
            raise Conflict(str(exc)) from None
        except practice.PracticeError as exc:
            raise IllegalMove(str(exc)) from None
        names: dict[int, tuple[str, int]] = {}
        return Games(games=[summary(store, game_row(store, i), names, {}) for i in ids])
    return await asyncio.to_thread(queue)


@router.post("/contests/{name}/bots", response_model=VersionView, status_code=201,
             responses={**ERRORS, 401: ERRORS[403], 429: ERRORS[403]},
             openapi_extra=UPLOAD_FORM)
async def upload(name: str, u: Signed, request: Request, store: PlatformStore,
                 platform: Service) -> VersionView:
    """Upload a bot (a new one, or a new version of your own): it is compiled and
    input-tested in the sandbox; watch its status at ``/api/platform/versions/{id}``.
    The form (``bot``, ``file``) is read only once its author is known, into a file on
    disk; 429 past your builds waiting or uploads a day."""
    limits = platform.accounts.limits
    caps = {"max_unfinished": limits.unfinished_builds_per_user,
            "max_per_day": limits.uploads_per_day_per_user}
    try:  # before a byte of the archive is read
        await asyncio.to_thread(lambda: store.check_uploads(u.id, **caps))
    except StoreError as exc:
        raise Capped(str(exc)) from None
    async with request.form(max_files=1, max_fields=1) as form:
        bot, file = form.get("bot"), form.get("file")
        if not isinstance(bot, str) or not isinstance(file, UploadFile):
            raise IllegalMove("send a form with a bot's name (bot) and an archive (file)")
        if not BOT_NAME.match(bot):
            raise IllegalMove(BOT_NAME_RULE)
        filename = file.filename or "bot.zip"
        data = await file.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        raise IllegalMove(f"the archive is over {MAX_UPLOAD_BYTES >> 20} MiB")

    def store_it() -> Version:
        contest = contest_named(store, name)
        try:
            return submit(store, contest, u, bot, filename, data, limits)[1]
        except NotYours as exc:
            raise Forbidden(str(exc)) from None
        except ContestClosed as exc:
            raise Conflict(str(exc)) from None
        except UploadLimit as exc:
            raise Capped(str(exc)) from None
        except UploadError as exc:
            raise IllegalMove(str(exc)) from None
    version = await asyncio.to_thread(store_it)  # a worker takes it from the database
    return version_view(version, True)


@router.get("/languages", response_model=list[str])
async def languages() -> list[str]:
    """The languages a bot may be written in, each with a starter bot."""
    return list(recipes.recipes())


@router.get("/contests/{name}/starters/{language}", response_class=Response,
            responses={200: {"content": {"application/zip": {}}}, **ERRORS})
async def starter(name: str, language: str, store: PlatformStore) -> Response:
    """A starter bot in `language` for the contest's protocol, as a .zip: it plays a
    legal move and passes the input test as it is."""
    def make() -> tuple[str, bytes]:
        contest = contest_named(store, name)
        try:
            return starters.archive(language, contest.protocol)
        except ValueError as exc:
            raise NotFound(str(exc)) from None
    filename, data = await asyncio.to_thread(make)
    return Response(data, media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@router.get("/versions/{version_id}", response_model=VersionView, responses=ERRORS)
async def version(version_id: Id, who: Viewer, store: PlatformStore) -> VersionView:
    def read() -> VersionView:
        v = store.version(version_id)
        if v is None:
            raise NotFound(f"no version {version_id}")
        owner = existing(store.bot(v.bot_id), f"bot {v.bot_id}").owner_id
        return version_view(v, who is not None and owner == who.id)
    return await asyncio.to_thread(read)


@router.get("/bots/{bot_id}", response_model=BotView, responses=ERRORS)
async def bot_page(bot_id: Id, who: Viewer, store: PlatformStore) -> BotView:
    def read() -> BotView:
        b = bot_by_id(store, bot_id)
        mine = who is not None and b.owner_id == who.id
        versions = store.versions(b.id)
        points = [RatingPointView(game=p.game_id, mu=p.mu, sigma=p.sigma, at=p.at)
                  for v in versions for p in store.rating_history(v.id)]
        owner = store.user(b.owner_id)
        contest = store.contest(b.contest_id)
        return BotView(id=b.id, name=b.name, contest=contest.name if contest else "?",
                       owner=owner.name if owner else "?", mine=mine,
                       versions=[version_view(v, mine) for v in versions],
                       ratings=sorted(points, key=lambda p: p.at))
    return await asyncio.to_thread(read)


@router.get("/bots/{bot_id}/rating.png", response_class=Response,
            responses={200: {"content": {"image/png": {}}}, **ERRORS})
async def rating_plot(bot_id: Id, store: PlatformStore, platform: Service) -> Response:
    """The bot's rating after each game it played (every version), as a PNG (drawn
    again only when the bot's ratings have changed)."""
    def draw() -> bytes:
        b = bot_by_id(store, bot_id)

        def drawn() -> bytes:
            points = sorted((p for v in store.versions(b.id)
                             for p in store.rating_history(v.id)), key=lambda p: p.at)
            return rating_png([(p.mu, p.sigma) for p in points], f"{b.name}: rating")
        return platform.plots.get(b.id, (store.last_rating(b.id), b.name), drawn)
    return Response(await asyncio.to_thread(draw), media_type="image/png",
                    headers={"Cache-Control": "no-cache"})


@router.get("/games", response_model=Games, responses=ERRORS)
async def games(store: PlatformStore, platform: Service,
                contest: Annotated[str | None, Query(max_length=32)] = None,
                bot: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
                status: Literal["queued", "running", "done"] | None = "done",
                limit: Annotated[int, Query(ge=1, le=PAGE)] = 50,
                offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
                ranked: bool | None = None) -> Games:
    """Games, newest first: of a contest, or of a bot (every version); ranked or test
    games only, or both (the default). The offset is capped (422 past it)."""
    if offset > (most := platform.accounts.limits.max_offset) > 0:
        raise IllegalMove(f"offset: at most {most}")

    def read() -> Games:
        contest_id = contest_named(store, contest).id if contest else None
        bot_id = bot_by_id(store, bot).id if bot is not None else None
        rows = store.games(contest_id=contest_id, bot_id=bot_id, status=status, limit=limit,
                           offset=offset, ranked=ranked)  # one query, one page
        names: dict[int, tuple[str, int]] = {}
        contests: dict[int, str] = {}
        return Games(games=[summary(store, g, names, contests) for g in rows])
    return await asyncio.to_thread(read)


@router.get("/games/{game_id}/replay", response_model=Replay, responses=ERRORS)
async def game_replay(game_id: Id, store: PlatformStore) -> Replay:
    def read() -> Replay:
        g = game_row(store, game_id)
        s = summary(store, g, {}, {})
        contest = store.contest(g.contest_id)
        try:
            board = Board(contest.rules if contest else "standard")
            moves = [Move.parse(m) for m in (g.moves or "").split()]
            opening = len(opening_moves(g.opening)) if g.opening else 0
            title = f"Ranked game {g.id}" if g.ranked else f"Test game {g.id} (unranked)"
            return replay(title, s.x, s.o, board, moves, opening,
                          g.result, g.reason, g.reason or "")
        except ValueError as exc:
            raise IllegalMove(f"game {game_id} cannot be replayed: {exc}") from None
    return await asyncio.to_thread(read)


@router.get("/games/{game_id}/logs", response_model=GameLogs,
            responses={**ERRORS, 401: ERRORS[403]})
async def game_logs(game_id: Id, u: Signed, store: PlatformStore) -> GameLogs:
    """The stderr of your bots in this game (403 if neither side is yours)."""
    def read() -> GameLogs:
        g = game_row(store, game_id)
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


@router.get("/games/{game_id}/turns", response_model=GameTurns, responses=ERRORS)
async def game_turns(game_id: Id, who: Viewer, store: PlatformStore) -> GameTurns:
    """Each turn of a game: who moved and how long it took, and what the bot wrote to
    stderr then (the last KB; only for the bots that are yours), with the bots' and the
    contest's names for links."""
    def read() -> GameTurns:
        g = game_row(store, game_id)
        s = summary(store, g, {}, {})
        mine = {}
        for mark, bot_id in (("X", s.x_bot), ("O", s.o_bot)):
            owner = existing(store.bot(bot_id), f"bot {bot_id}").owner_id
            mine[mark] = who is not None and owner == who.id
        logs = TurnLogs.from_json(g.turn_logs)
        moves = (g.moves or "").split()
        first = len(moves) - len(g.times_ms or ())  # the opening's plies
        turns = []
        for i, ms in enumerate(g.times_ms or ()):
            side: Literal["X", "O"] = "X" if (first + i) % 2 == 0 else "O"
            text = logs.turns[i] if i < len(logs.turns) else ""
            turns.append(Turn(ply=first + i + 1, side=side, ms=ms,
                              stderr=text if mine[side] else None))
        return GameTurns(game=g.id, contest=s.contest, ranked=g.ranked, x=s.x, o=s.o,
                         x_bot=s.x_bot, o_bot=s.o_bot, turns=turns,
                         x_end=logs.end[0] if mine["X"] else None,
                         o_end=logs.end[1] if mine["O"] else None)
    return await asyncio.to_thread(read)


pages = APIRouter(include_in_schema=False)  # the platform's pages


@pages.get("/platform")
@pages.get("/platform/account")
async def page() -> FileResponse:
    return FileResponse(STATIC / "platform.html")


@pages.get("/platform/c/{name}")
async def contest_page(name: str, store: PlatformStore) -> FileResponse:
    """A contest's page; 404 (the not-found page) for no such contest."""
    if await asyncio.to_thread(store.contest_by_name, name) is None:
        raise HTTPException(404, f"There is no contest called {name!r}.")
    return FileResponse(STATIC / "platform.html")


@pages.get("/platform/bot/{bot_id}")
async def bot_page_html(bot_id: str, store: PlatformStore) -> FileResponse:
    """A bot's page; 404 (the not-found page) for no such bot."""
    found = bot_id.isdigit() and len(bot_id) < 19 and \
        await asyncio.to_thread(store.bot, int(bot_id)) is not None
    if not found:
        raise HTTPException(404, f"There is no bot {bot_id!r}.")
    return FileResponse(STATIC / "platform.html")


@pages.get("/platform-game/{rest:path}")
async def game_page(rest: str, store: PlatformStore) -> HTMLResponse:
    """A platform game in the web board's viewer (the page), with status 404 where
    `rest` names no game: the page then says so in words."""
    found = rest.isdigit() and len(rest) < 19 and \
        await asyncio.to_thread(store.game, int(rest)) is not None
    return HTMLResponse(viewer_page(), status_code=200 if found else 404)


def viewer_page() -> str:
    """The web board's page, with the platform's part of the viewer (its module)."""
    html = index_page(platform=True)
    return html.replace("</body>", f"{VIEWER_MODULE}\n</body>", 1)


VIEWER_MODULE = '<script type="module" src="/static/platform-game.js"></script>'

