"""The first schema: users, sessions, contests, bots, versions, games, rating history.

A migration is a snapshot: it spells its tables out instead of importing
``store.py``'s, which will move on (a test checks that the two agree at head).

Revision ID: 0001
Revises:
Create Date: 2025-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _pk(table: str, column: str = "id") -> sa.PrimaryKeyConstraint:
    return sa.PrimaryKeyConstraint(column, name=f"pk_{table}")


def _fk(table: str, column: str, target: str,
        ondelete: str | None = None) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], [target], name=f"fk_{table}_{column}",
                                   ondelete=ondelete)


def _one_of(table: str, column: str, values: tuple[str, ...]) -> sa.CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=f"ck_{table}_{column}")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created", sa.Float, nullable=False),
        _pk("users"),
    )
    op.create_index("uq_users_name_lower", "users", [sa.text("lower(name)")], unique=True)

    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float, nullable=False),
        _pk("sessions", "token_hash"),
        _fk("sessions", "user_id", "users.id", ondelete="CASCADE"),
        _one_of("sessions", "kind", ("cookie", "api")),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires", "sessions", ["expires"])

    op.create_table(
        "contests",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("rules", sa.String(64), nullable=False),
        sa.Column("protocol", sa.String(16), nullable=False),
        sa.Column("time_control", sa.String(64), nullable=False),
        sa.Column("openings", sa.String(64), nullable=False),
        sa.Column("max_bots_per_user", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("created_by", sa.Integer),
        sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
        _pk("contests"),
        _fk("contests", "created_by", "users.id", ondelete="SET NULL"),
        sa.UniqueConstraint("name", name="uq_contests_name"),
    )

    op.create_table(
        "bots",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("contest_id", sa.Integer, nullable=False),
        sa.Column("owner_id", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        _pk("bots"),
        _fk("bots", "contest_id", "contests.id"),
        _fk("bots", "owner_id", "users.id"),
        sa.UniqueConstraint("contest_id", "name", name="uq_bots_contest_id_name"),
    )
    op.create_index("ix_bots_owner_id", "bots", ["owner_id"])

    op.create_table(
        "versions",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("bot_id", sa.Integer, nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("filename", sa.Text, nullable=False),
        sa.Column("archive", sa.LargeBinary, nullable=False),
        sa.Column("language", sa.String(32)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("compile_log", sa.Text),
        sa.Column("test_log", sa.Text),
        sa.Column("build", sa.LargeBinary),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        _pk("versions"),
        _fk("versions", "bot_id", "bots.id"),
        sa.UniqueConstraint("bot_id", "number", name="uq_versions_bot_id_number"),
        _one_of("versions", "status", ("uploaded", "compiling", "compile_failed", "testing",
                                       "test_failed", "active", "retired")),
    )
    op.create_index("ix_versions_status", "versions", ["status"])

    op.create_table(
        "games",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("contest_id", sa.Integer, nullable=False),
        sa.Column("pair", sa.Integer, nullable=False),
        sa.Column("x_version", sa.Integer, nullable=False),
        sa.Column("o_version", sa.Integer, nullable=False),
        sa.Column("opening", sa.Text),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("claim", sa.String(32)),
        sa.Column("worker", sa.Text),
        sa.Column("lease_until", sa.Float),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("result", sa.String(8)),
        sa.Column("reason", sa.Text),
        sa.Column("moves", sa.Text),
        sa.Column("times_ms", sa.Text),
        sa.Column("x_log", sa.Text),
        sa.Column("o_log", sa.Text),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("started", sa.Float),
        sa.Column("finished", sa.Float),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
        _pk("games"),
        _fk("games", "contest_id", "contests.id"),
        _fk("games", "x_version", "versions.id"),
        _fk("games", "o_version", "versions.id"),
        _one_of("games", "status", ("queued", "running", "done")),
        _one_of("games", "result", ("1-0", "0-1", "1/2-1/2")),
    )
    op.create_index("ix_games_status_id", "games", ["status", "id"])
    op.create_index("ix_games_contest_id_status", "games", ["contest_id", "status"])
    op.create_index("ix_games_x_version", "games", ["x_version"])
    op.create_index("ix_games_o_version", "games", ["o_version"])

    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("version_id", sa.Integer, nullable=False),
        sa.Column("game_id", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        _pk("rating_history"),
        _fk("rating_history", "version_id", "versions.id"),
        _fk("rating_history", "game_id", "games.id"),
    )
    op.create_index("ix_rating_history_version_id", "rating_history", ["version_id"])


def downgrade() -> None:
    for table in ("rating_history", "games", "versions", "bots", "contests", "sessions",
                  "users"):
        op.drop_table(table)
