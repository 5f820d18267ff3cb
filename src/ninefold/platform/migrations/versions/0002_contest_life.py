"""A contest's life and house bots: opening and closing times, final standings, house
bots' player specs, unranked test games.

Revision ID: 0002
Revises: 0001
Create Date: 2025-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs (SQLite and PostgreSQL both have them): a batch would reflect the
    # tables, and SQLAlchemy warns on stderr that it cannot reflect the expression index
    # on users' names, which a server's first line of output then is
    for column in ("opens", "closes", "frozen"):
        op.add_column("contests", sa.Column(column, sa.Float))
    op.add_column("versions", sa.Column("spec", sa.String(200)))
    op.add_column("games", sa.Column("ranked", sa.Boolean, nullable=False,
                                     server_default=sa.true()))
    op.create_table(
        "final_standings",
        sa.Column("contest_id", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("version_id", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("contest_id", "rank", name="pk_final_standings"),
        sa.ForeignKeyConstraint(["contest_id"], ["contests.id"],
                                name="fk_final_standings_contest_id"),
        sa.ForeignKeyConstraint(["version_id"], ["versions.id"],
                                name="fk_final_standings_version_id"),
    )


def downgrade() -> None:
    op.drop_table("final_standings")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("ranked")
    with op.batch_alter_table("versions") as batch:
        batch.drop_column("spec")
    with op.batch_alter_table("contests") as batch:
        for column in ("frozen", "closes", "opens"):
            batch.drop_column(column)
