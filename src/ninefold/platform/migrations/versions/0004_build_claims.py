"""Build claims: uploads are built by the workers, not the web server, so a version's
build is claimed like a game (a claim token, the worker, a lease), and a build whose
worker died is taken again when its lease ends.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs, as in 0002 (a batch would reflect the tables)
    op.add_column("versions", sa.Column("claim", sa.String(32)))
    op.add_column("versions", sa.Column("worker", sa.Text))
    op.add_column("versions", sa.Column("lease_until", sa.Float))


def downgrade() -> None:
    with op.batch_alter_table("versions") as batch:
        for column in ("lease_until", "worker", "claim"):
            batch.drop_column(column)
