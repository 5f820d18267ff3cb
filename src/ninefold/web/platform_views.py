"""The JSON the competition platform's API speaks: its models, and the functions that turn
the platform's records (`ninefold.platform.store`) into them, a bot's rating plot included.
"""

from __future__ import annotations

import io
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field
from pydantic_core import PydanticCustomError

from ninefold.platform import ladder
from ninefold.platform.store import Contest, Version

# --- names: the rules, in words when one is broken -------------------------------------

BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
BOT_NAME_RULE = ("a bot's name is 1 to 32 letters, digits, - and _, starting with a letter "
                 "or a digit")
CONTEST_NAME = re.compile(r"[a-z0-9][a-z0-9-]{2,31}\Z")
CONTEST_NAME_RULE = ("a contest's name is 3 to 32 lower-case letters, digits and -, "
                     "starting with a letter or a digit")


def _rule(pattern: re.Pattern[str], rule: str) -> AfterValidator:
    """A check of a name against `pattern`, refused with `rule` (not the pattern)."""
    def check(name: str) -> str:
        if not pattern.match(name):
            raise PydanticCustomError("name", rule)
        return name
    return AfterValidator(check)


BotName = Annotated[str, Field(max_length=64, description=BOT_NAME_RULE + "."),
                    _rule(BOT_NAME, BOT_NAME_RULE)]
ContestName = Annotated[str, Field(max_length=64, description=CONTEST_NAME_RULE + "."),
                        _rule(CONTEST_NAME, CONTEST_NAME_RULE)]

# --- what goes over the wire ---------------------------------------------------------


class Credentials(BaseModel):
    name: str = Field(..., max_length=64, description="3-32 letters, digits, - or _.")
    password: str = Field(..., max_length=256)


class Me(BaseModel):
    id: int
    name: str
    admin: bool
    organiser: bool = Field(False, description="May create contests (admins may too).")


class ApiToken(BaseModel):
    token: str = Field(..., description="Send as 'Authorization: Bearer TOKEN'.")


class SessionView(BaseModel):
    """One of a user's sessions: a browser's log-in or an API token (never its secret)."""

    id: str = Field(..., description="What DELETE /api/platform/sessions/{id} takes.")
    kind: Literal["cookie", "api"] = Field(..., description="cookie: a browser's log-in; "
                                           "api: an API token")
    created: float
    last_used: float = Field(..., description="Epoch seconds, to the minute.")
    expires: float
    current: bool = Field(..., description="The session this request was made with.")


class NewContest(BaseModel):
    name: ContestName
    title: str = Field("", max_length=100)
    rules: str = Field("standard", max_length=32)
    protocol: Literal["riddles", "aigames", "codingame"] = "riddles"
    time_control: str = Field("", max_length=100, description=(
        "Changes to the protocol's platform clock, as the arena reads them: "
        "'bank=10000,inc=500' (ms). Empty: the platform's own."))
    openings: Literal["random4", "none"] = "random4"
    max_bots_per_user: int = Field(3, ge=1, le=100)
    opens: float | None = Field(None, description=(
        "Epoch seconds: uploads and ranked games from then (none: at once)."))
    closes: float | None = Field(None, description=(
        "Epoch seconds: no uploads or ranked games after, and the final standings are "
        "stored (none: never)."))


class ContestTimes(BaseModel):
    opens: float | None = Field(None, description="Epoch seconds (none: open already).")
    closes: float | None = Field(None, description="Epoch seconds (none: never closes).")


class HouseBot(BaseModel):
    name: BotName
    spec: str = Field(..., min_length=1, max_length=200, description=(
        "One of ninefold's players, as the arena names them: 'level:3', 'mcts:net=default'."))


class AskTestGames(BaseModel):
    version: int = Field(..., ge=1, description="A version of one of your bots (any).")
    opponent: int = Field(..., ge=1, description="A bot of the contest: its active version.")


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
    opens: float | None
    closes: float | None
    frozen: float | None = Field(None, description="When the final standings were stored.")
    organiser: int | None = Field(None, description=(
        "The id of the account that created it (it sets its times and enters house bots; "
        "so may an admin)."))


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
    games: dict[str, int] = Field(..., description=(
        "Ranked games by status; 'rating': finished, not yet in the ratings ('done' ones "
        "are)."))
    final: bool = Field(False, description="The rows are the stored final standings.")


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
    ranked: bool = Field(True, description="False: a test game, never rated.")


class Games(BaseModel):
    games: list[GameSummary]


class GameLogs(BaseModel):
    x_log: str | None = Field(None, description="X's stderr, if X is yours.")
    o_log: str | None = Field(None, description="O's stderr, if O is yours.")


class Turn(BaseModel):
    ply: int = Field(..., description="The move's place in the game (1: the first move).")
    side: Literal["X", "O"]
    ms: float = Field(..., description="How long the bot took, as the referee timed it.")
    stderr: str | None = Field(None, description=(
        "What the bot wrote to stderr since its move before (the last KB), if it is yours."))


class GameTurns(BaseModel):
    """A game as the platform's viewer shows it beside the board: who played, each turn's
    time and (for its author) stderr."""

    game: int
    contest: str
    ranked: bool
    x: str
    o: str
    x_bot: int
    o_bot: int
    turns: list[Turn]
    x_end: str | None = Field(None, description="X's stderr after its last move, if yours.")
    o_end: str | None = Field(None, description="O's stderr after its last move, if yours.")


# --- from records to answers -------------------------------------------------------


def contest_view(c: Contest) -> ContestView:
    return ContestView(id=c.id, name=c.name, title=c.title, rules=c.rules, protocol=c.protocol,
                       time_control=c.time_control, openings=c.openings,
                       max_bots_per_user=c.max_bots_per_user, active=c.active,
                       opens=c.opens, closes=c.closes, frozen=c.frozen,
                       organiser=c.created_by)


def version_view(v: Version, mine: bool) -> VersionView:
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
