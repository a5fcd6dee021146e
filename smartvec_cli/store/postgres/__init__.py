"""The store on a PostgreSQL server with pgvector: one memory for a team, indexed from many machines.

Imported only when a ``postgresql://`` store is configured: psycopg and pgvector are never loaded for SQLite.
The statements that read the same in both dialects are the SQLite store's own (the mixins of ``store``);
``PgStore`` overrides those that differ: full-text search, vectors, JSON, and the writer lock.
"""
