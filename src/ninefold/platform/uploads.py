"""From an uploaded archive to an active, ranked version of a bot.

`submit` checks the archive at once (size, paths, links, bombs: see
`ninefold.platform.archive`) and recognises the language (`ninefold.platform
.recipes`): a bad upload is refused with one line and nothing is stored.
Outside the contest's opening and closing times an upload is refused
(`ContestClosed`). A good one becomes a new version of the author's bot, ``uploaded``. Then a
worker (`ninefold.platform.worker`, a process of its own: the web server
compiles nothing) claims it and takes it through the rest with `build`, each
step in the sandbox, each step's log kept for its author:

    uploaded -> compiling -> compile_failed
                          -> testing -> test_failed
                                     -> active (the bot's previous active version: retired)

A worker that dies mid-way loses its claim; another builds the version again
when the claim's lease ends.
"""

from __future__ import annotations

import io
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from ninefold.arena.checkbot import check_bot, passed, verdict
from ninefold.arena.referee import Seat
from ninefold.platform import recipes, sandbox
from ninefold.platform.archive import ArchiveError
from ninefold.platform.jobs import time_control
from ninefold.platform.limits import PlatformLimits
from ninefold.platform.store import (
    Bot,
    Contest,
    Store,
    TooManyBots,
    TooManyUploads,
    User,
    Version,
    existing,
)

MAX_BUILD_BYTES = 64 << 20  # a compiled folder kept in the database
UNFINISHED = ("uploaded", "compiling", "testing")


class UploadError(ValueError):
    """An upload refused (one line); nothing was stored."""


class ContestClosed(UploadError):
    """An upload before the contest opens or after it closes."""


class UploadLimit(UploadError):
    """An upload past its author's unfinished builds or uploads a day
    (`ninefold.platform.limits.PlatformLimits`)."""


class NotYours(PermissionError):
    """The bot belongs to someone else."""


def inspect(data: bytes, filename: str) -> recipes.Recipe:
    """Check an archive and recognise its language, or raise with the reason."""
    with tempfile.TemporaryDirectory(prefix="ninefold-upload-") as tmp:
        try:
            files = sandbox.unpack(data, filename, Path(tmp) / "src")
            return recipes.detect(files)
        except (ArchiveError, recipes.RecipeError) as exc:
            raise UploadError(str(exc)) from None


def submit(store: Store, contest: Contest, user: User, bot_name: str, filename: str,
           data: bytes, limits: PlatformLimits | None = None) -> tuple[Bot, Version]:
    """Store a new version of `user`'s bot `bot_name` in `contest` (the bot is made on
    its first upload); raises `UploadError` (`ContestClosed` outside its times,
    `UploadLimit` past the user's unfinished builds or uploads a day in `limits`) or
    `NotYours`."""
    limits = limits or PlatformLimits()
    caps = {"max_unfinished": limits.unfinished_builds_per_user,
            "max_per_day": limits.uploads_per_day_per_user}
    now = time.time()
    if contest.is_closed(now):
        raise ContestClosed(f"the contest {contest.name} closed at {_utc(contest.closes)}: "
                            "it takes no more uploads")
    if not contest.is_open(now):
        raise ContestClosed(f"the contest {contest.name} opens at {_utc(contest.opens)}: "
                            "upload then")
    try:
        store.check_uploads(user.id, **caps)  # before the archive is even opened
    except TooManyUploads as exc:
        raise UploadLimit(str(exc)) from None
    recipe = inspect(data, filename)
    bot = next((b for b in store.bots(contest_id=contest.id) if b.name == bot_name), None)
    if bot is None:
        try:
            bot = store.add_bot(contest.id, user.id, bot_name)
        except TooManyBots as exc:
            raise UploadError(f"{exc}: upload a new version of one of yours") from None
    elif bot.owner_id != user.id:
        raise NotYours(f"the bot {bot_name!r} belongs to someone else")
    # one insert, language and all: a builder may take the version the moment it is stored
    try:  # counted again with the insert: two uploads at once cannot both pass
        return bot, store.add_version(bot.id, filename, data, language=recipe.name, **caps)
    except TooManyUploads as exc:
        raise UploadLimit(str(exc)) from None


def _utc(t: float | None) -> str:
    """A time as the refusals write it.

    >>> _utc(0.0)
    '1970-01-01 00:00 UTC'
    """
    return datetime.fromtimestamp(t or 0.0, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _version(store: Store, version_id: int) -> Version:
    return existing(store.version(version_id), f"version {version_id}")


def build(store: Store, version_id: int) -> Version:
    """Compile and input-test one version; the version as it ends (`NotFound` if it, its
    bot or its contest is missing)."""
    version = _version(store, version_id)
    bot = existing(store.bot(version.bot_id), f"bot {version.bot_id}")
    contest = existing(store.contest(bot.contest_id), f"contest {bot.contest_id}")
    recipe = recipes.named(version.language or "")
    with tempfile.TemporaryDirectory(prefix="ninefold-build-") as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        archive = store.version_blob(version_id, "archive") or b""
        try:  # in a child, like the upload's check: a reader that crashes fails this one
            sandbox.unpack(archive, version.filename, src)
        except ArchiveError as exc:
            store.set_version_status(version_id, "compile_failed",
                                     compile_log=f"the archive was refused: {exc}")
            return _version(store, version_id)
        store.set_version_status(version_id, "compiling")
        made = sandbox.compile_bot(src, recipe, out)
        if not made.ok:
            store.set_version_status(version_id, "compile_failed", compile_log=made.log)
            return _version(store, version_id)
        tarred = tar_folder(out)
        if len(tarred) > MAX_BUILD_BYTES:
            store.set_version_status(version_id, "compile_failed", compile_log=made.log + (
                f"\nthe compiled folder is {len(tarred) >> 20} MiB: at most "
                f"{MAX_BUILD_BYTES >> 20} MiB"))
            return _version(store, version_id)
        store.set_version_status(version_id, "testing", compile_log=made.log, build=tarred)
        seat = Seat.external(sandbox.game_command(out, recipe), contest.protocol,
                             name=bot.name, tc=time_control(contest))
        checks = check_bot(seat, rules=contest.rules, log_dir=Path(tmp) / "logs")
        text = "\n".join([*(str(c) for c in checks), verdict(checks)])
        stderr = _logs(Path(tmp) / "logs")
        if stderr:
            text += "\n\nthe bot's stderr:\n" + stderr
    if passed(checks):
        store.set_version_status(version_id, "testing", test_log=text)
        store.activate(version_id)
    else:
        store.set_version_status(version_id, "test_failed", test_log=text)
    return _version(store, version_id)


def tar_folder(folder: Path) -> bytes:
    """The folder as an uncompressed tar (files at its top level)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buf.getvalue()


def _logs(folder: Path, limit: int = 16_000) -> str:
    parts = [p.read_bytes().decode(errors="replace") for p in sorted(folder.glob("*.log"))]
    return "".join(parts)[-limit:].strip()
