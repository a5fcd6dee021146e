"""The index folder as one object: the SQLite database, the ANN cache, and the model they belong to."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import sqlite_utils

from ..errors import ModelMismatchError, SmartvecError, index_folder_error
from . import db as schema
from .ann import CorruptIndexError, HnswIndex
from .db import open_database
from .graph import GraphQueries
from .inlist import in_lists
from .layout import SQLITE_SIDE_FILES, IndexLayout
from .notes import NoteQueries
from .passages import PassageQueries
from .problems import ProblemQueries
from .reports import ReportQueries

REEMBEDDING = "reembedding"
RUNNING = "running"
"""The status of a run's record while it runs (``start_run``); a process killed mid-run leaves it so."""
FIRST_INDEX_AT = "first_index_at"
"""When the vault was first indexed to the end (for ``index --from-git``, its first commit with notes): what its
notes held then has an unknown past; whatever a later run finds for the first time was not there before that run."""
LANGUAGES = "languages"
"""The vault's languages as the first index read them (``vault.language``), space-separated, the main one first."""
DEFAULT_DIM = 384
ONE_PASS_FROM = 2000  # rows asked for, above which ``vectors_for_chunks`` reads the whole table once
"""Vector size of an index that has not recorded its own (``meta.dim``): that of the packaged MiniLM model."""

DANGLING_EDGES = """FROM edges WHERE src_note NOT IN (SELECT id FROM notes)
            OR (dst_note IS NOT NULL AND dst_note NOT IN (SELECT id FROM notes))
            OR (src_chunk IS NOT NULL AND src_chunk NOT IN (SELECT id FROM chunks))
            OR (dst_chunk IS NOT NULL AND dst_chunk NOT IN (SELECT id FROM chunks))"""


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
        if (layout.root / meta["file"]).is_file():
            kept = f"its vector file {meta['file']} ({meta.get('count', '?')} vectors) is intact but cannot be searched without it; "
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return (
        f"{kept}restore {layout.db} from a backup or a copy, or run 'smartvec index --full' to rebuild it from the notes "
        "(it keeps the damaged files in backup/; feedback and history are lost)"
    )


class Store(NoteQueries, GraphQueries, PassageQueries, ReportQueries, ProblemQueries):
    """Owns every SQL statement and every file of the index folder; the statements are grouped by who
    needs them (``notes``, ``graph``, ``passages``, ``reports``, ``problems``) and mixed in here."""

    DATABASE_ERRORS: tuple[type[Exception], ...] = (sqlite3.DatabaseError,)  # what a damaged database raises

    SCHEMA = schema  # the dialect's numbered migrations (``store.db``; PostgreSQL names its own)
    # Why an edge ``e`` was inferred (NULL for a declared one), read from its JSON detail in the dialect's way;
    # the passage and report statements share it.
    INFERRED_REASON = "CASE WHEN json_extract(e.detail, '$.inferred') = 1 THEN json_extract(e.detail, '$.reason') END"

    def __init__(self, index_dir: Path, db: sqlite_utils.Database):
        self.index_dir = Path(index_dir)
        self.db = db
        self._ann: HnswIndex | None = None
        self._ann_loaded = False
        self.notices: list[str] = []  # things the user should hear about, e.g. a rebuilt cache
        self.read_only = False  # opened from a folder this user cannot write: nothing is recorded
        self.ann_damage: str | None = None  # what was wrong with the saved vector index this run found damaged

    @classmethod
    def open(cls, index_dir: Path, create: bool = False, fresh_start: bool = False) -> "Store":
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
                f"the index in {index_dir} is read-only: queries work, writers need write access to the folder and its files"
            )
        try:
            db = open_database(db_path, read_only=read_only)
        except schema.DatabaseFileError as exc:
            raise schema.DatabaseFileError(f"{exc}; {damaged_database_advice(layout)}") from None
        store = cls(index_dir, db)
        store.read_only = read_only
        if set_aside:
            store.notices.append(
                f"{set_aside}: it and its vector files were moved to {layout.backup_dir}; the index starts again from the notes"
            )
        return store

    @classmethod
    def open_unmigrated(cls, index_dir: Path) -> "Store":
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

    def close(self) -> None:
        self.db.close()

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

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- metadata -----------------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value) -> None:
        self.db["meta"].upsert({"key": key, "value": str(value)}, pk="key")

    def delete_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key = ?", [key])

    @property
    def dim(self) -> int:
        return int(self.get_meta("dim", str(DEFAULT_DIM)))

    @property
    def fingerprint(self) -> str | None:
        return self.get_meta("fingerprint")

    @property
    def known_since(self) -> str | None:
        """When the index first saw the vault (``FIRST_INDEX_AT``); None before any index run. Nothing the
        vault said before that moment was seen, except what its notes declare about their own windows."""
        return self.get_meta(FIRST_INDEX_AT)

    @property
    def reembedding(self) -> str | None:
        """The model an ``index --full`` was moving the index to, while (or if interrupted while) it runs."""
        return self.get_meta(REEMBEDDING)

    def check_fingerprint(self, fingerprint: str) -> None:
        """Refuse to mix vectors of different weights in one index."""
        stored = self.fingerprint
        if self.reembedding:
            raise ModelMismatchError(
                f"an 'index --full' that re-embeds the index with {self.reembedding} did not finish, so it holds "
                "vectors of two models; run 'smartvec index --full' again"
            )
        if stored and stored != fingerprint:
            raise ModelMismatchError(
                f"index was built with {stored} but the current model is {fingerprint}; "
                "run 'smartvec index --full' to re-embed everything with the current model"
            )

    @property
    def generation(self) -> int:
        return int(self.get_meta("ann_generation", "0"))

    def bump_generation(self) -> int:
        """Call inside the write transaction whose changes the ANN index must follow."""
        generation = self.generation + 1
        self.set_meta("ann_generation", generation)
        return generation

    # -- vectors ------------------------------------------------------------------------------

    def known_hashes(self, hashes: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for part, marks in in_lists(set(hashes), 500):
            found.update(r[0] for r in self.db.execute(f"SELECT hash FROM embeddings WHERE hash IN ({marks})", part))
        return found

    def store_vectors(self, vectors: dict[str, tuple[str, np.ndarray]], created_at: str) -> None:
        """Upsert (embedded text, vector) by passage hash; call inside the transaction that uses them."""
        self.db["embeddings"].upsert_all(
            [
                {"hash": h, "text": t, "vector": vector_to_blob(v), "created_at": created_at}
                for h, (t, v) in vectors.items()
            ],
            pk="hash",
        )

    def vectors_for_chunks(self, chunk_ids: list[int]) -> np.ndarray:
        """Stored vectors of these chunk rows, in the order given.

        Many rows (exact search reads every live one) are read in one pass over the table, which took
        a fifth of the time of batched ``IN`` lookups for 4,300 rows."""
        by_id: dict[int, bytes] = {}
        join = "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.hash = c.hash"
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

    def ann_expected_labels(self) -> set[int]:
        """The passages the ANN index must hold: every stored version that is not deleted and has a vector."""
        return {
            r[0]
            for r in self.db.execute(
                "SELECT c.id FROM chunks c WHERE c.state != 'DELETED' AND EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = c.hash)"
            )
        }

    def chunks_without_vectors(self) -> list[int]:
        """Passages whose vector is gone (damage from outside): search cannot see them until re-embedded."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT c.id FROM chunks c WHERE c.state != 'DELETED' AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = c.hash)"
            )
        ]

    # -- the ANN cache ------------------------------------------------------------------------

    @property
    def ann(self) -> HnswIndex:
        """The ANN index object, not yet loaded (see ``load_ann``). Made on first use, because its
        dimension is read from the database, which ``open_unmigrated`` must not touch yet."""
        if self._ann is None:
            self._ann = HnswIndex(self.index_dir, self.dim)
        return self._ann

    @property
    def ann_loaded(self) -> bool:
        """Whether this run touched the ANN index (a run that changed nothing never loads it)."""
        return self._ann_loaded

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
            return f"vector index in {self.index_dir} is damaged ({len(ann.live)} live labels, {ann.saved_count} were saved)"
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

    def mend_ann(self, damage: str) -> int:
        """Rebuild a damaged saved index from the stored vectors; ``save_ann`` keeps a copy of the old file."""
        self.ann_damage = damage
        return self.rebuild_ann()

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

    def save_ann(self) -> None:
        """Save the ANN index; a damaged one it replaces is copied to ``backup/`` first, and the user told."""
        kept = self.keep_ann_copies() if self.ann_damage else []
        self.ann.save(self.generation)
        if self.ann_damage:
            where = f"; the damaged file is kept as {kept[0]}" if kept else ""
            self.notices.append(f"{self.ann_damage}: rebuilt from the stored vectors and saved{where}")
            self.ann_damage = None

    # -- runs and events ----------------------------------------------------------------------

    def start_run(self, command: str, started_at: str, summary: dict) -> int:
        """A run's record while it runs (status ``running``): a run killed before it could record itself leaves
        this row, so ``status`` never shows the previous run as the last word."""
        return self.record_run(command, started_at, None, RUNNING, summary)

    def end_run(self, run_id: int, finished_at: str | None, status: str | None, summary: dict | None) -> None:
        """Close the ``running`` record: with the outcome, or (``status`` None) drop it, the run having recorded itself."""
        with self.write():
            if status is None:
                self.db.execute("DELETE FROM runs WHERE id = ?", [run_id])
            else:
                self.db.execute(
                    "UPDATE runs SET finished_at = ?, status = ?, summary = ? WHERE id = ?",
                    [finished_at, status, json.dumps(summary), run_id],
                )

    def record_run(self, command: str, started_at: str, finished_at: str | None, status: str, summary: dict) -> int:
        with self.write():
            return (
                self.db["runs"]
                .insert(
                    {
                        "command": command,
                        "started_at": started_at,
                        "finished_at": finished_at,
                        "status": status,
                        "summary": json.dumps(summary),
                    }
                )
                .last_pk
            )

    def latest_index_run(self) -> str | None:
        """When the latest index run started (by its clock): nothing may be observed before it. A ``running``
        record is the caller's own run (or a killed one, whose work is in the runs it recorded)."""
        return self.db.execute(
            "SELECT max(started_at) FROM runs WHERE command LIKE 'index%' AND status != ?", [RUNNING]
        ).fetchone()[0]

    def append_refresh_log(self, record: dict) -> None:
        """One JSON line per unattended run in ``refresh.log``, for whoever reads cron's output later."""
        path = IndexLayout(self.index_dir).refresh_log
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise SmartvecError(f"cannot append to {path}: {exc.strerror or exc}") from None

    # -- notes --------------------------------------------------------------------------------

    def live_note_hashes(self) -> list[tuple[str, str, str | None]]:
        """(note_id, path, aclarai embedding_hash) of every note not deleted."""
        return self.db.execute("SELECT note_id, path, embedding_hash FROM notes WHERE deleted_at IS NULL").fetchall()

    # -- health (doctor) ----------------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        """SQLite's own check of the file, ``["ok"]`` when whole; raises ``sqlite3.DatabaseError``
        when the file cannot even be read that far."""
        return [r[0] for r in self.db.execute("PRAGMA integrity_check(20)").fetchall()]

    def newer_migrations(self) -> list[str]:
        """Migrations recorded by a newer smartvec than this one."""
        return self.SCHEMA.unknown_migrations(self.db)

    def known_migration_count(self) -> int:
        """How many migrations this smartvec knows: all of them are applied once none is pending."""
        return len(self.SCHEMA.MIGRATIONS)

    def pending_migrations(self) -> list[str]:
        return self.SCHEMA.pending_migrations(self.db)

    def apply_migrations(self) -> None:
        self.SCHEMA.migrate(self.db)

    def passages_without_note(self) -> list[int]:
        """Live passage rows whose note row is gone (damage from outside)."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM chunks WHERE state != 'DELETED' AND note NOT IN (SELECT id FROM notes)"
            )
        ]

    def dangling_edge_count(self) -> int:
        """Edges from or to a note or passage row that does not exist."""
        return self.db.execute(f"SELECT COUNT(*) {DANGLING_EDGES}").fetchone()[0]

    def repair_orphans(self, homeless: list[int]) -> None:
        """Drop the dangling edges (derived data) and mark the ``homeless`` passages DELETED rather
        than erasing them, so that history still shows them."""
        with self.write():
            self.db.execute(f"DELETE {DANGLING_EDGES}")
            for part, marks in in_lists(homeless):
                self.db.execute(f"UPDATE chunks SET state = 'DELETED' WHERE id IN ({marks})", part)
