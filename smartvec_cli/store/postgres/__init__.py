"""The store on a PostgreSQL server with pgvector: one memory for a team, indexed from many machines.

Imported only when a ``postgresql://`` store is configured: psycopg and pgvector are never loaded for SQLite.
``PgStore`` is the abstract ``store.Store`` beside SQLite's: the shared statements run here with the PostgreSQL
``dialect``; ``PgStore`` itself does what the server does its own way: full-text search, vectors, the write lock.
"""
