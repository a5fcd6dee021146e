"""What the store's statements are written against: the database's small API, the dialect, the write transaction.

The query mixins (``notes``, ``graph``, ``passages``, ``reports``, ``problems``) and the abstract ``Store`` run
on either database through these: SQLite's ``sqlite_utils.Database`` (``db.SqliteDatabase``) and PostgreSQL's
``postgres.database.PgDatabase`` both have this shape, and ``dialect`` holds the SQL pieces that differ.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any, Callable, ClassVar, Iterable, Iterator, Protocol, Sequence, TypeVar

import numpy as np

from ..memory.analysis import main_language
from .dialect import Dialect

T = TypeVar("T")


class Cursor(Protocol):
    """The rows of one statement (``sqlite3.Cursor``, ``psycopg.Cursor``)."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


class Inserted(Protocol):
    """What an insert returns, as far as the store reads it."""

    @property
    def last_pk(self) -> Any: ...


class Table(Protocol):
    """``db.table(name)``: the row calls of sqlite-utils' ``Table`` that the store makes."""

    def insert(self, record: dict[str, Any], /) -> Inserted: ...
    def insert_all(self, records: Iterable[dict[str, Any]], /) -> object: ...
    def upsert(self, record: dict[str, Any], /, pk: str) -> object: ...
    def upsert_all(self, records: Iterable[dict[str, Any]], /, pk: str) -> object: ...
    def update(self, pk_value: int, updates: dict[str, Any], /) -> object: ...
    def get(self, pk_value: int, /) -> dict[str, Any]: ...


class Database(Protocol):
    """A connection spoken to with ``?`` placeholders, as sqlite-utils speaks to SQLite."""

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor: ...
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> object: ...
    def query(self, sql: str, parameters: Sequence[Any] = (), /) -> Iterable[dict[str, Any]]: ...
    def table(self, name: str, /) -> Table: ...
    def close(self) -> None: ...


class StoreBase(ABC):
    """What every part of the store may use: the database, its dialect, the write transaction and ``meta``."""

    dialect: ClassVar[Dialect]
    db: Database
    _kept: dict[str, Any]  # what ``kept`` holds, under "" the ``data_version`` it was read at

    @abstractmethod
    def write(self) -> AbstractContextManager[None]:
        """A write transaction that waits its turn behind the other writing transactions (nested: a savepoint)."""

    @abstractmethod
    def upsert_vector(self, hash_: str, text: str, vector: np.ndarray, created_at: str) -> None:
        """Store the vector of one passage text (by its hash), replacing the one it had."""

    def data_version(self) -> Any:
        """A value that changes whenever what the database holds may have changed (a commit by any connection, a
        write of this one), or None where the database cannot tell: then nothing is kept (``kept``)."""
        return None

    def kept(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()``, read once and kept while ``data_version`` stays the same: for what every question reads
        and only a writer changes (a changed index is never answered from what was kept before)."""
        version = self.data_version()
        if version is None:
            return compute()
        cache = self._kept
        if cache.get("") != version:
            cache.clear()
            cache[""] = version
        if name not in cache:
            cache[name] = compute()
        return cache[name]

    def insert_row(self, table: str, values: dict[str, Any]) -> int:
        """One new row of ``table`` (whose key is ``id``); returns its id."""
        return self.db.table(table).insert(values).last_pk

    def insert_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        """New rows of ``table``, each with the same columns."""
        if rows:
            self.db.table(table).insert_all(rows)

    def update_row(self, table: str, pk: int, values: dict[str, Any]) -> None:
        """Set these columns of the row of ``table`` whose ``id`` is ``pk``."""
        if values:
            assignments = ", ".join(f'"{column}" = ?' for column in values)
            self.db.execute(f'UPDATE "{table}" SET {assignments} WHERE id = ?', [*values.values(), pk])

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: object) -> None:
        self.db.table("meta").upsert({"key": key, "value": str(value)}, pk="key")

    def delete_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key = ?", [key])

    def lexical_language(self) -> str:
        """The language the full-text index reads the vault's words in (``memory.analysis.main_language``)."""
        return main_language(self.get_meta("languages"))
