"""The platform database's Alembic migrations (run by `ninefold.platform.store.migrate`)."""
