"""Alembic's entry point: `ninefold.platform.store.migrate` runs it with an open
connection in ``config.attributes["connection"]`` (no alembic.ini, no URL here).

A new migration: change the tables in ``store.py``, then let Alembic write the
difference against a database at the current head, and read it over::

    from alembic import command
    from ninefold.platform.store import Store, alembic_config
    store = Store("sqlite:///scratch.sqlite")
    with store.engine.begin() as conn:
        command.revision(alembic_config(conn), "what changed", autogenerate=True,
                         rev_id="0002")

Batch mode is on, so the same script alters tables on SQLite too.
"""

from __future__ import annotations

from alembic import context

from ninefold.platform.store import metadata


def run() -> None:
    context.configure(connection=context.config.attributes["connection"],
                      target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # Alembic is running this file (not an import for doctests)
    run()
