"""Persistence: SQLite (the source of truth), the hnswlib index (a rebuildable cache), the files of
the index folder (``layout``) and the writer lock that lets one process at a time change them."""
