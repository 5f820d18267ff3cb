"""Organisers and each turn's stderr: the accounts an admin lets create contests, and a
game's stderr per turn (its tail) for the platform's viewer.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs, as in 0002 (a batch would reflect the tables)
    op.add_column("users", sa.Column("is_organiser", sa.Boolean, nullable=False,
                                     server_default=sa.false()))
    op.add_column("games", sa.Column("turn_logs", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("turn_logs")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("is_organiser")
