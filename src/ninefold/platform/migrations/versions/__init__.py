"""One file a schema revision, oldest first: ``0001_initial``, ``0002_...``."""
