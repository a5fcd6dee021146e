"""Persistence: SQLite (the source of truth) and the hnswlib index (a rebuildable cache)."""
