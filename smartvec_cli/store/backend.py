"""Which database holds an index, chosen once from the store URL: everything the core asks of it besides an open
``Store``.

``store_backend`` is the one place that looks at the URL; the core holds the ``StoreBackend`` it returns and never
asks which database it is. A backend opens its ``Store`` (as it is, for ``doctor``, or migrated), makes its writer
lock, reads the index's facts without opening it where it can (a cold ``query`` chooses its model before it imports
the store), and says what ``doctor`` should tell about an index it cannot open. Nothing heavy is imported here: a
backend imports its database's modules when it is first asked to open one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable, Protocol

from ..config import is_store_url
from ..errors import SmartvecError, UsageError
from .layout import IndexLayout

if TYPE_CHECKING:
    from .lock import Holder
    from .store import Store


class WriterLock(Protocol):
    """One writer at a time (``lock.FileLock`` in the index folder, ``postgres.lock.AdvisoryLock`` on the server)."""

    purpose: str

    def probe(self) -> tuple[bool, Holder | None]: ...
    def acquire(self, wait: float = ..., on_wait: Callable[[Holder | None], None] | None = None) -> object: ...
    def release(self) -> None: ...
    def takeover_notice(self) -> str | None: ...


class StoreBackend(Protocol):
    """Where one index's database is, and what differs between databases before a store is open."""

    @property
    def url(self) -> str | None:
        """The shared server's address (``postgresql://...``); None for the index folder's own database."""
        ...

    peekable: ClassVar[bool]
    """Whether ``peek_meta`` reads the index without opening its store (a file of this machine can be read so;
    a server's database tells only once opened, and a caller that needs its facts first must wait for that)."""

    def open(self, create: bool = False, fresh_start: bool = False) -> Store:
        """The store, migrated; ``create`` makes an index where there is none (writers); ``fresh_start`` (``index
        --full``) sets aside a database too damaged to open instead of refusing it, where the backend can."""
        ...

    def open_unmigrated(self) -> Store:
        """The store as it is, for ``doctor``: pending migrations are reported, not applied."""
        ...

    def writer_lock(self, command: str) -> WriterLock:
        """The lock every writer of this index holds, wherever it runs."""
        ...

    def peek_meta(self, keys: Iterable[str]) -> dict[str, str]:
        """These ``meta`` values of the index, read without opening its store, and without waiting for or
        disturbing a writer; those it cannot read so are missing (all of them, when not ``peekable``)."""
        ...

    def require_index(self) -> None:
        """Raise the error a reader gives when there is visibly no index yet, before anything is opened."""
        ...

    def open_failure(self, exc: SmartvecError) -> str:
        """What ``doctor`` reports of an index whose store could not be opened with ``exc``, with what to do."""
        ...

    def read_only(self) -> bool:
        """Whether this user cannot write the index (asked when its store could not be opened)."""
        ...


@dataclass(frozen=True)
class SqliteBackend:
    """The SQLite database in the index folder (``sqlite.SqliteStore``), locked by a file beside it."""

    index_dir: Path
    url: None = None
    peekable: ClassVar[bool] = True

    @property
    def layout(self) -> IndexLayout:
        return IndexLayout(self.index_dir)

    def open(self, create: bool = False, fresh_start: bool = False) -> Store:
        from .sqlite import SqliteStore

        return SqliteStore.open(self.index_dir, create=create, fresh_start=fresh_start)

    def open_unmigrated(self) -> Store:
        from .sqlite import SqliteStore

        return SqliteStore.open_unmigrated(self.index_dir)

    def writer_lock(self, command: str) -> WriterLock:
        from .lock import FileLock

        return FileLock.writer(self.index_dir, command)

    def peek_meta(self, keys: Iterable[str]) -> dict[str, str]:
        """A read-only connection of its own, which gives up after a second rather than wait for a writer; a
        missing or unreadable database reads as nothing."""
        import sqlite3

        wanted = list(keys)
        path = self.layout.db
        if not wanted or not path.is_file():
            return {}
        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
            try:
                marks = ", ".join("?" * len(wanted))
                rows = connection.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", wanted).fetchall()
            finally:
                connection.close()
        except sqlite3.Error:
            return {}
        return {key: value for key, value in rows if value is not None}

    def require_index(self) -> None:
        if not self.layout.db.is_file():
            raise SmartvecError(f"no index in {self.index_dir}; run 'smartvec index' first")

    def open_failure(self, exc: SmartvecError) -> str:
        """An emptied or cut database file is named before SQLite could take it for a new one, with what is left of
        the index; any other failure gets the advice for a damaged file."""
        from .db import DatabaseFileError
        from .sqlite import DAMAGED_DATABASE, damaged_database_advice

        if isinstance(exc, DatabaseFileError):
            return f"{exc}; {damaged_database_advice(self.layout)}"
        return f"{exc}; {DAMAGED_DATABASE}"

    def read_only(self) -> bool:
        from .sqlite import is_read_only

        return self.layout.db.is_file() and is_read_only(self.layout)


@dataclass(frozen=True)
class PostgresBackend:
    """A team's PostgreSQL database (``postgres.store.PgStore``), locked by an advisory lock on the server; the
    index folder keeps only what is local to this machine."""

    url: str
    index_dir: Path
    peekable: ClassVar[bool] = False

    def open(self, create: bool = False, fresh_start: bool = False) -> Store:
        """``fresh_start`` changes nothing: the server keeps its files whole."""
        from .postgres.store import PgStore

        return PgStore.open(self.url, self.index_dir, create=create)

    def open_unmigrated(self) -> Store:
        from .postgres.store import PgStore

        return PgStore.open_unmigrated(self.url, self.index_dir)

    def writer_lock(self, command: str) -> WriterLock:
        from .postgres.lock import AdvisoryLock

        return AdvisoryLock.writer(self.url, command)

    def peek_meta(self, keys: Iterable[str]) -> dict[str, str]:
        return {}

    def require_index(self) -> None:
        """Only the server can tell: opening the store says so (``PgStore.open_unmigrated``)."""

    def open_failure(self, exc: SmartvecError) -> str:
        return str(exc)

    def read_only(self) -> bool:
        """The server decides who writes, and says so when a writer tries."""
        return False


def store_backend(url: str | None, index_dir: Path) -> StoreBackend:
    """The backend of the index in ``index_dir`` whose database ``url`` names (None or empty: SQLite in the index
    folder). Anything but a ``postgresql://`` URL is a usage error."""
    if url and not is_store_url(url):
        raise UsageError(f"--store must be a postgresql:// URL, not {url!r}")
    if url:
        return PostgresBackend(url, Path(index_dir))
    return SqliteBackend(Path(index_dir))
