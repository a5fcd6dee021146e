"""``SqliteStore``: the ``Store`` in the index folder's SQLite database, with hnswlib's index as a cache of its
vectors beside it."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Iterator

import numpy as np

from ..errors import SmartvecError, index_folder_error
from . import db as schema
from .ann import CorruptIndexError, HnswIndex
from .db import SqliteDatabase, open_database
from .dialect import SQLITE
from .fts5 import Fts5Queries
from .health import EXAMPLES, Finding, Findings
from .inlist import in_lists
from .layout import ANN_SIDECAR_FILE, DB_FILE, SQLITE_SIDE_FILES, IndexLayout, is_ann_file_name
from .store import VECTORS_OF_CHUNKS, Migrations, Store

ONE_PASS_FROM = 2000  # rows asked for, above which ``vectors_for_chunks`` reads the whole table once


def vector_to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def blob_to_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


def is_read_only(layout: IndexLayout) -> bool:
    """Whether this user cannot write the database, or its folder where SQLite would have to make its -wal/-shm."""
    if not os.access(layout.db, os.W_OK):
        return True
    side_files = [layout.db_side_file(s) for s in SQLITE_SIDE_FILES]
    return not os.access(layout.root, os.W_OK) and not all(os.access(p, os.W_OK) for p in side_files)


def damaged_database_advice(layout: IndexLayout) -> str:
    """What to do about a database file that is empty, cut short or not a database: what is left of the
    index, and the two ways back (a copy, or the notes at the cost of history and feedback)."""
    kept = ""
    try:
        meta = json.loads(layout.ann_sidecar.read_text(encoding="utf-8"))
        if is_ann_file_name(meta["file"]) and (layout.root / meta["file"]).is_file():
            kept = (
                f"its vector file {meta['file']} ({meta.get('count', '?')} vectors) is intact "
                "but cannot be searched without it; "
            )
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return (
        f"{kept}restore {layout.db} from a backup or a copy, or run 'smartvec index --full' "
        "to rebuild it from the notes "
        "(it keeps the damaged files in backup/; feedback and history are lost)"
    )


DAMAGED_DATABASE = (
    f"the database file is damaged: restore it from a backup, or try 'sqlite3 {DB_FILE} .recover'; "
    "as a last resort move the index folder away and run 'smartvec index' (feedback and history would be lost)"
)
"""What to do about a database file SQLite cannot read whole."""


@lru_cache(maxsize=64)
def _insert_sql(table: str, columns: tuple[str, ...]) -> str:
    names = ", ".join(f'"{c}"' for c in columns)
    return f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'


class SqliteStore(Fts5Queries, Store):
    """The store of one machine: the SQLite database in the index folder (the source of truth, vectors
    included) and the hnswlib file beside it, which can always be rebuilt from it."""

    dialect = SQLITE
    migrations: ClassVar[Migrations] = schema
    DATABASE_ERRORS = (sqlite3.DatabaseError,)
    damage_advice = DAMAGED_DATABASE
    vector_index_check = "ann"
    db: SqliteDatabase

    def __init__(self, index_dir: Path, db: SqliteDatabase):
        super().__init__(index_dir, db)
        self._ann: HnswIndex | None = None

    @classmethod
    def open(cls, index_dir: Path, create: bool = False, fresh_start: bool = False) -> SqliteStore:
        """The index in ``index_dir``; ``create`` makes it when there is none (writers).

        A database its user cannot write is opened read-only (queries and reports work; a writer is
        refused with the reason). A database file that is empty or cut short is never taken for a new
        index: it is an error naming the file and the way out, unless ``fresh_start`` (``index --full``)
        moves it and the vector files that belong to it to ``backup/`` and starts again from the notes."""
        index_dir = Path(index_dir)
        layout = IndexLayout(index_dir)
        db_path = layout.db
        set_aside = db_path.is_file() and fresh_start and schema.database_file_problem(db_path)
        if set_aside:
            cls._set_aside(layout)
        if not db_path.is_file():
            if not create:
                raise SmartvecError(f"no index in {index_dir}; run 'smartvec index' first")
            try:
                index_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise index_folder_error(f"cannot create index folder {index_dir}", exc) from None
        read_only = db_path.is_file() and is_read_only(layout)
        if read_only and create:
            raise SmartvecError(
                f"the index in {index_dir} is read-only: queries work, "
                "writers need write access to the folder and its files"
            )
        try:
            db = open_database(db_path, read_only=read_only)
        except schema.DatabaseFileError as exc:
            raise schema.DatabaseFileError(f"{exc}; {damaged_database_advice(layout)}") from None
        store = cls(index_dir, db)
        store.read_only = read_only
        if set_aside:
            store.notices.append(
                f"{set_aside}: it and its vector files were moved to {layout.backup_dir}; "
                "the index starts again from the notes"
            )
        return store

    @classmethod
    def open_unmigrated(cls, index_dir: Path) -> SqliteStore:
        """The index database as it is, for ``doctor``: it reports pending migrations and applies them
        only when asked, and reads nothing before its integrity check."""
        layout = IndexLayout(Path(index_dir))
        read_only = is_read_only(layout)
        store = cls(index_dir, open_database(layout.db, apply_migrations=False, read_only=read_only))
        store.read_only = read_only
        return store

    @staticmethod
    def _set_aside(layout: IndexLayout) -> None:
        """Move the unusable database and the vector files made from it into ``backup/`` (renamed, not copied)."""
        layout.backup_dir.mkdir(exist_ok=True)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        files = [
            layout.db,
            *(layout.db_side_file(s) for s in SQLITE_SIDE_FILES),
            layout.ann_sidecar,
            *layout.saved_ann_files(),
        ]
        for path in files:
            if path.exists():
                os.replace(path, layout.backup_dir / f"{path.name}.{stamp}")

    @contextmanager
    def write(self) -> Iterator[None]:
        """A write transaction that takes SQLite's write lock up front (BEGIN IMMEDIATE).

        Readers that also write (a query counting accesses, feedback) run beside the one
        writer; a deferred transaction that read first would fail at once with "database
        is locked" when its snapshot went stale, where this one waits its turn. Every
        writer's transaction goes through here for that reason (sqlite-utils' ``atomic``
        begins deferred).
        """
        if self.db.conn.in_transaction:
            with self.db.atomic():
                yield
            return
        self.db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.conn.rollback()
            raise
        self.db.conn.execute("COMMIT")

    def data_version(self) -> tuple[int, int] | None:
        """SQLite's count of other connections' commits and this connection's changed rows; None inside a
        transaction, whose reads may be of rows it then rolls back."""
        conn = self.db.conn
        if conn.in_transaction:
            return None
        return self.db.execute("PRAGMA data_version").fetchone()[0], conn.total_changes

    def insert_row(self, table: str, values: dict[str, Any]) -> int:
        """One statement on the connection: sqlite-utils' ``insert`` reads the table's columns and keys before
        each row, which a git import's hundreds of thousands of writes would each pay."""
        cursor = self.db.conn.execute(_insert_sql(table, tuple(values)), list(values.values()))
        return int(cursor.lastrowid or 0)

    def insert_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        columns = tuple(rows[0]) if rows else ()
        if any(tuple(row) != columns for row in rows):
            super().insert_rows(table, rows)
        elif rows:
            self.db.conn.executemany(_insert_sql(table, columns), [[row[c] for c in columns] for row in rows])

    # -- vectors ------------------------------------------------------------------------------

    def vector_value(self, vector: np.ndarray) -> bytes:
        return vector_to_blob(vector)

    def vectors_for_chunks(self, chunk_ids: list[int]) -> np.ndarray:
        """Stored vectors of these chunk rows, in the order given.

        Many rows (exact search reads every live one) are read in one pass over the table: past
        ``ONE_PASS_FROM`` rows, that is cheaper than looking each batch up by ``IN``."""
        by_id: dict[int, bytes] = {}
        join = VECTORS_OF_CHUNKS
        if len(chunk_ids) > ONE_PASS_FROM:
            wanted = set(chunk_ids)
            by_id.update((r[0], r[1]) for r in self.db.execute(join) if r[0] in wanted)
        else:
            for part, marks in in_lists(chunk_ids, 500):
                by_id.update((r[0], r[1]) for r in self.db.execute(f"{join} WHERE c.id IN ({marks})", part))
        missing = [i for i in chunk_ids if i not in by_id]
        if missing:
            raise SmartvecError(
                f"{len(missing)} passages have no stored vector; run 'smartvec index --full' to embed them again"
            )
        if not chunk_ids:
            return np.zeros((0, self.dim), dtype=np.float32)
        return blob_to_vector(b"".join(by_id[i] for i in chunk_ids)).reshape(len(chunk_ids), -1)

    @property
    def ann(self) -> HnswIndex:
        """The ANN index object, not yet loaded (see ``load_ann``). Made on first use, because its
        dimension is read from the database, which ``open_unmigrated`` must not touch yet."""
        if self._ann is None:
            self._ann = HnswIndex(self.index_dir, self.dim)
        return self._ann

    def load_ann(self) -> HnswIndex:
        """The ANN index, brought in line with the database if it lags behind.

        A saved file that cannot be read, or whose labels cannot be this database's passages, is not
        used: the command searches the stored vectors exactly (``HnswIndex.exact_only``), says so once,
        and the next writer (or ``doctor --repair``) saves a rebuilt file, keeping a copy of the damaged one.
        """
        if not self._ann_loaded:
            try:
                damage = self._label_damage() if self.ann.load() else None
            except CorruptIndexError as exc:
                damage = str(exc)
            if damage:
                self.ann_damage = damage
                self.notices.append(
                    f"{damage}; searching the stored vectors exactly instead (run 'smartvec doctor --repair' or "
                    "'smartvec index' to rebuild it)"
                )
                self.ann.exact_only(sorted(self.ann_expected_labels()), self.vectors_for_chunks)
                self._ann_loaded = True
                self._warn_missing_vectors()
                return self.ann
            if self.ann.generation != self.generation:
                self.ann.reconcile(self.ann_expected_labels(), self.vectors_for_chunks)
                self._warn_missing_vectors()
            self._ann_loaded = True
        return self.ann

    def _label_damage(self) -> str | None:
        """Why the loaded index's labels cannot be this database's, or None: a cheap look (no checksum)
        that catches garbled labels, which would otherwise ask for vectors of passages that do not exist."""
        ann = self.ann
        labels = ann.live | ann.tombstones
        if ann.saved_count is not None and len(ann.live) != ann.saved_count:
            return (
                f"vector index in {self.index_dir} is damaged "
                f"({len(ann.live)} live labels, {ann.saved_count} were saved)"
            )
        if not labels:
            return None
        highest = self.db.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0
        if min(labels) < 1 or max(labels) > highest:
            return f"vector index in {self.index_dir} is damaged (it names passages that do not exist)"
        return None

    def rebuild_ann(self) -> int:
        """A fresh ANN index from the stored vectors (no re-embedding); the caller saves it."""
        labels = sorted(self.ann_expected_labels())
        self.ann.rebuild(np.asarray(labels, dtype=np.int64), self.vectors_for_chunks(labels))
        self.ann.generation = -1
        self._ann_loaded = True
        self._warn_missing_vectors()
        return len(labels)

    def keep_ann_copies(self) -> list[Path]:
        """Copy the saved vector index (the file its sidecar names, and the sidecar) into ``backup/``."""
        layout = IndexLayout(self.index_dir)
        named = self.ann.saved_file_name()
        kept = []
        for path in (layout.root / named if named else None, layout.ann_sidecar):
            if path is not None and path.is_file():
                try:
                    kept.append(layout.keep_copy(path))
                except OSError as exc:
                    raise SmartvecError(
                        f"cannot keep a copy of {path} before replacing it: {exc.strerror or exc}"
                    ) from None
        return kept

    def _warn_missing_vectors(self) -> None:
        missing = self.chunks_without_vectors()
        if missing:
            self.notices.append(
                f"{len(missing)} passages have no stored vector and cannot be found by search; "
                "run 'smartvec index --full' to embed them again"
            )

    def erase_freed(self) -> None:
        """Leave nothing of deleted rows in the index's files: the full-text indexes merged into one segment each
        (FTS5 keeps a deleted row's words in older segments until a merge), the database rewritten whole
        (``VACUUM``: no free page keeps an erased passage's text), and the write-ahead log emptied."""
        from .db import FTS_TABLE, WORDS_TABLE

        for table in (FTS_TABLE, WORDS_TABLE):
            if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [table]).fetchone():
                with self.write():
                    self.db.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def check_saved_ann(self) -> None:
        damage = self.ann.verify()
        if damage:
            self.mend_ann(f"vector index: {damage}")

    def save_ann(self) -> None:
        """Save the ANN index; a damaged one it replaces is copied to ``backup/`` first, and the user told."""
        kept = self.keep_ann_copies() if self.ann_damage else []
        self.ann.save(self.generation)
        if self.ann_damage:
            where = f"; the damaged file is kept as {kept[0]}" if kept else ""
            self.notices.append(f"{self.ann_damage}: rebuilt from the stored vectors and saved{where}")
            self.ann_damage = None

    # -- health (doctor) ----------------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        """SQLite's own check of the file, ``["ok"]`` when whole; raises ``sqlite3.DatabaseError``
        when the file cannot even be read that far."""
        return [r[0] for r in self.db.execute("PRAGMA integrity_check(20)").fetchall()]

    # -- health (doctor) ----------------------------------------------------------------------

    def check_database(self, findings: Findings) -> bool:
        """SQLite's integrity check; a damaged file stops the other checks, which would read it."""
        try:
            problems = self.integrity_problems()
        except sqlite3.DatabaseError as exc:
            findings.add("database", False, f"SQLite cannot read the index database ({exc}); {DAMAGED_DATABASE}")
            return False
        if problems != ["ok"]:
            findings.add(
                "database",
                False,
                f"SQLite integrity check failed: {'; '.join(problems[:EXAMPLES])}; {DAMAGED_DATABASE}",
            )
            return False
        size = IndexLayout(self.index_dir).db.stat().st_size
        findings.add("database", True, f"SQLite integrity ok ({size / 1048576:.1f} MB)")
        return True

    def check_vector_index(self, findings: Findings, repair: bool) -> None:
        """The saved hnswlib file, read afresh: ``ann_file`` (readable, its checksum whole, there when passages
        are) and ``ann_sync`` (its generation the database's, its labels the live passages). A repair keeps a
        copy of the old file in ``backup/``."""
        saved = HnswIndex(self.index_dir, self.dim)
        expected = self.ann_expected_labels()
        generation = self.generation
        file_check: Finding
        try:
            present = saved.load()
            damage = saved.verify() if present else None
        except CorruptIndexError as exc:
            present, damage = False, str(exc)
        if damage:
            file_check = findings.add(
                "ann_file",
                False,
                damage if damage.startswith("vector index") else f"vector index: {damage}",
                repairable=True,
            )
        elif not present and expected:
            file_check = findings.add(
                "ann_file", False, f"no saved vector index for {len(expected)} passages", repairable=True
            )
        else:
            file_check = findings.add(
                "ann_file",
                True,
                f"{ANN_SIDECAR_FILE} and its index file are readable and intact" if present else "no passages yet",
            )

        problems = []
        if present and not damage:
            if saved.generation != generation:
                problems.append(
                    f"saved at generation {saved.generation}, the database is at {generation}"
                    " (a writer stopped before saving)"
                )
            live = self.live_passage_ids()
            missing, orphans = expected - saved.live, saved.live - live
            if missing:
                examples = ", ".join(self.passage_names(sorted(missing)[:EXAMPLES]))
                problems.append(f"{len(missing)} passages are missing from it (e.g. {examples})")
            if orphans:
                problems.append(f"{len(orphans)} of its labels belong to no live passage")
        sync = (
            findings.add("ann_sync", False, "; ".join(problems), repairable=True)
            if problems
            else findings.add("ann_sync", True, _sync_summary(saved, present, damage))
        )
        broken = [c for c in (file_check, sync) if not c.ok]
        if broken and repair:
            kept = self.keep_ann_copies()
            count = self.rebuild_ann()
            self.save_ann()
            where = f" (the old file is kept as {kept[0].relative_to(self.index_dir)})" if kept else ""
            for check in broken:
                check.repaired = True
                check.detail += f"; rebuilt from {count} stored vectors and saved{where}"


def _sync_summary(saved: HnswIndex, present: bool, damage: str | None) -> str:
    if damage:
        return "not compared: the saved file is unusable"
    if not present:
        return "nothing saved to compare"
    return f"{len(saved.live)} live, {len(saved.tombstones)} tombstones, generation {saved.generation}"
