"""The SQLite database: schema, migrations and connection settings.

SQLite holds everything that matters, vectors included (float32 blobs), so the ANN
index can always be rebuilt without re-embedding. Migrations are plain functions
applied once each, in order, recorded in ``_migrations`` (the pattern of simonw's llm).
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import threading
import weakref
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence
from urllib.parse import quote

import sqlite_utils

from ..errors import SmartvecError
from ..vault.hashing import sha256_text

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = []

CHUNK_STATES = ("UNCONSOLIDATED", "ACTIVE", "DORMANT", "ARCHIVED", "DELETED")
IN_ANN_STATES = ("UNCONSOLIDATED", "ACTIVE", "DORMANT", "ARCHIVED")
CURRENT_TEXT_HASH = "current = 1 AND state != 'DELETED' AND text_hash IS NOT NULL"
"""The rows the partial index on (text_hash, note) covers: the current text of vault notes (a deleted note's
passages are archived, no longer current; a correction's have no text hash)."""

# The schema's indexes and statements both dialects' migrations run as they are (``postgres.database``).
NOTE_INDEXES = (
    "CREATE UNIQUE INDEX idx_notes_note_id ON notes(note_id)",
    "CREATE UNIQUE INDEX idx_notes_live_path ON notes(path) WHERE deleted_at IS NULL",
)
PENDING_INDEX = "CREATE INDEX idx_notes_pending ON notes(pending)"
DELETED_PATH_INDEX = "CREATE INDEX idx_notes_deleted_path ON notes(path) WHERE deleted_at IS NOT NULL"
"""Finds the deleted note that lived at a path (``Store.deleted_note_at``, asked for every new note): without it
each ask scans every note row, so a first index would grow with the square of the vault."""
CHUNK_INDEXES = (
    "CREATE INDEX idx_chunks_note_state ON chunks(note, state)",
    "CREATE INDEX idx_chunks_chunk_id ON chunks(chunk_id)",
    "CREATE INDEX idx_chunks_hash ON chunks(hash)",
)
CURRENT_TEXT_HASH_INDEX = (
    f"CREATE INDEX idx_chunks_current_text_hash ON chunks(text_hash, note) WHERE {CURRENT_TEXT_HASH}"
)
NOTE_NAME_INDEXES = (
    "CREATE INDEX idx_note_names_path ON note_names(path)",
    "CREATE INDEX idx_note_names_note_id ON note_names(note_id)",
)
REREAD_EVERY_NOTE = "UPDATE notes SET mtime_ns = NULL"
"""What a migration that adds columns derived from the notes runs: the next index re-reads every note (no
re-embedding)."""


def edge_index(column: str) -> str:
    """The index on one of the edges' ends (``src_note``, ``dst_note``, ``src_chunk``, ``dst_chunk``)."""
    return f"CREATE INDEX idx_edges_{column} ON edges({column})"


def migration(fn: Callable[[sqlite_utils.Database], None]):
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("notes").create(
        {
            "id": int,
            "note_id": str,
            "path": str,
            "title": str,
            "size": int,
            "mtime_ns": int,
            "file_sha": str,
            "embedding_hash": str,
            "last_updated": str,
            "aclarai_id": str,
            "aclarai_ver": int,
            "metadata": str,
            "tags": str,
            "created_at": str,
            "updated_at": str,
            "deleted_at": str,
        },
        pk="id",
        not_null={"note_id", "path"},
    )
    for statement in NOTE_INDEXES:
        db.execute(statement)
    db.table("embeddings").create({"hash": str, "text": str, "vector": bytes, "created_at": str}, pk="hash")
    db.table("chunks").create(
        {
            "id": int,
            "note": int,
            "chunk_id": str,
            "key": str,
            "version": int,
            "ordinal": int,
            "heading": str,
            "text": str,
            "hash": str,
            "block_ids": str,
            "state": str,
            "created_at": str,
            "updated_at": str,
            "valid_from": str,
            "valid_until": str,
            "superseded_by": int,
            "access_count": int,
            "last_accessed": str,
            "feedback": float,
        },
        pk="id",
        not_null={"note", "chunk_id", "key", "hash", "state"},
        defaults={"version": 1, "access_count": 0, "feedback": 0.0},
        foreign_keys=[("note", "notes", "id")],
    )
    for statement in CHUNK_INDEXES:
        db.execute(statement)
    db.table("edges").create(
        {
            "id": int,
            "src_note": int,
            "dst_note": int,
            "src_chunk": int,
            "dst_chunk": int,
            "type": str,
            "target": str,
            "detail": str,
            "created_at": str,
        },
        pk="id",
        not_null={"type"},
    )
    db.execute(edge_index("src_note"))
    db.execute(edge_index("dst_note"))
    db.table("events").create(
        {"id": int, "at": str, "kind": str, "chunk": int, "note": int, "data": str},
        pk="id",
        not_null={"at", "kind"},
    )
    db.table("runs").create(
        {"id": int, "command": str, "started_at": str, "finished_at": str, "status": str, "summary": str},
        pk="id",
    )


@migration
def m002_time_and_trust(db: sqlite_utils.Database) -> None:
    """Validity windows, authority and graph importance per note; observed start per passage version."""
    notes = db.table("notes")
    notes.add_column("kind", str, not_null_default="vault")
    for column, kind in (
        ("source_type", str),
        ("authority", float),
        ("valid_from", str),
        ("valid_until", str),
        ("declared", int),
        ("doc_date", str),
        ("version", int),
        ("superseded_at", str),
        ("superseded_by", int),
        ("importance", float),
    ):
        notes.add_column(column, kind)
    db.table("chunks").add_column("observed_from", str)
    # The new columns are derived from the notes: the next index re-reads every note (no re-embedding).
    db.execute(REREAD_EVERY_NOTE)


@migration
def m003_consolidation(db: sqlite_utils.Database) -> None:
    """What consolidation needs: which rows are a note's current text, penalties, the work queue."""
    chunks = db.table("chunks")
    chunks.add_column("current", int, not_null_default=1)
    chunks.add_column("contradiction_penalty", float, not_null_default=0.0)
    chunks.add_column("ripple_penalty", float, not_null_default=0.0)
    db.execute("UPDATE chunks SET current = 0 WHERE state = 'ARCHIVED'")
    notes = db.table("notes")
    notes.add_column("pending", int, not_null_default=1)  # 0 consolidated, 1 new or re-described, 2 text changed
    notes.add_column("review_reason", str)
    notes.add_column("review_since", str)
    db.execute(PENDING_INDEX)
    db.execute(edge_index("src_chunk"))
    db.execute(edge_index("dst_chunk"))


@migration
def m004_note_problems(db: sqlite_utils.Database) -> None:
    """The last problem of each vault path (kept until the file is read without one), and each note's encoding."""
    db.table("note_problems").create({"path": str, "error": str, "seen_at": str}, pk="path")
    db.table("notes").add_column("encoding", str)
    db.execute("UPDATE notes SET encoding = 'utf-8'")  # before this migration only UTF-8 notes could be read


FTS_TABLE = "passages_fts"
FTS_FILL = f"""INSERT INTO {FTS_TABLE}(rowid, text, heading, title)
               SELECT c.id, c.text, c.heading, n.title FROM chunks c JOIN notes n ON n.id = c.note"""


@migration
def m005_lexical(db: sqlite_utils.Database) -> None:
    """A full-text index (FTS5, BM25) over every stored passage version with its note title and heading.

    Triggers keep it in step with the passage rows inside the very transaction that writes them, so no
    crash can leave the two apart; ``doctor --repair`` can rebuild it from the stored text all the same.
    Identifiers, numbers and rare names are found here when the embedding model blurs them.
    """
    db.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(text, heading, title, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    row = "new.id, new.text, new.heading, (SELECT title FROM notes WHERE id = new.note)"
    db.execute(
        f"""CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
              INSERT INTO {FTS_TABLE}(rowid, text, heading, title) VALUES ({row});
            END"""
    )
    db.execute(
        f"""CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text, heading, note ON chunks BEGIN
              DELETE FROM {FTS_TABLE} WHERE rowid = old.id;
              INSERT INTO {FTS_TABLE}(rowid, text, heading, title) VALUES ({row});
            END"""
    )
    db.execute(
        f"CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN "
        f"DELETE FROM {FTS_TABLE} WHERE rowid = old.id; END"
    )
    db.execute(
        f"""CREATE TRIGGER notes_fts_title AFTER UPDATE OF title ON notes BEGIN
              DELETE FROM {FTS_TABLE} WHERE rowid IN (SELECT id FROM chunks WHERE note = new.id);
              INSERT INTO {FTS_TABLE}(rowid, text, heading, title)
                SELECT id, text, heading, new.title FROM chunks WHERE note = new.id;
            END"""
    )
    db.execute(FTS_FILL)


@migration
def m006_stale_echoes(db: sqlite_utils.Database) -> None:
    """The trust a passage loses for repeating a superseded value (an ``echoes`` edge names the current one)."""
    db.table("chunks").add_column("echo_penalty", float, not_null_default=0.0)


@migration
def m007_bound_sources(db: sqlite_utils.Database) -> None:
    """Where each validity bound came from (declared, observed, inferred, git), and when the vault was first indexed.

    Notes present at the first index have an unknown past; a note first seen by a later run was not there
    before it. Existing indexes learn their first index from their oldest index run.
    """
    db.table("notes").add_column("from_source", str)
    chunks = db.table("chunks")
    for column in ("observed_by", "from_source", "until_source"):
        chunks.add_column(column, str)
    db.execute("UPDATE chunks SET observed_by = 'observed' WHERE observed_from IS NOT NULL")
    db.execute("UPDATE chunks SET until_source = 'observed' WHERE state = 'ARCHIVED' AND valid_until IS NOT NULL")
    first = db.execute("SELECT min(started_at) FROM runs WHERE command LIKE 'index%'").fetchone()[0]
    if first:
        db.table("meta").upsert({"key": "first_index_at", "value": first}, pk="key")
    # The note-level sources are derived from frontmatter: the next index re-reads every note (no re-embedding).
    db.execute(REREAD_EVERY_NOTE)


@migration
def m008_kinds_and_copies(db: sqlite_utils.Database) -> None:
    """Whether each note's kind was declared in its frontmatter or inferred by a rule (``status`` counts them), and
    the hash of each passage's text alone (the stored ``hash`` covers the note title too): copies of a note under
    another name share these."""
    db.table("notes").add_column("kind_source", str)
    db.table("chunks").add_column("text_hash", str)
    current = db.execute("SELECT id, text FROM chunks WHERE current = 1 AND state != 'DELETED'").fetchall()
    db.conn.executemany(
        "UPDATE chunks SET text_hash = ? WHERE id = ?", [(sha256_text(text or ""), pk) for pk, text in current]
    )
    db.execute(CURRENT_TEXT_HASH_INDEX)
    # The kinds are derived from frontmatter and the kind rules: the next index re-reads every note (no re-embedding).
    db.execute(REREAD_EVERY_NOTE)


@migration
def m009_kind_reasons(db: sqlite_utils.Database) -> None:
    """The rule that gave each inferred kind (``folder "Slack"``, ``tag #meeting``), which ``show`` prints; the kind
    rules now read tags and a chat export's shape too, so the next index re-reads every note (no re-embedding)."""
    db.table("notes").add_column("kind_reason", str)
    db.execute(REREAD_EVERY_NOTE)


@migration
def m010_note_names(db: sqlite_utils.Database) -> None:
    """The paths and ids a note had before it moved (``Store.rename_note``): ``show`` and ``history`` accept them,
    and the lineage of a moved or renamed note is told with them. Deleted notes' passages become history."""
    db.table("note_names").create(
        {"id": int, "note": int, "path": str, "note_id": str, "until": str}, pk="id", not_null={"note", "path"}
    )
    for statement in NOTE_NAME_INDEXES:
        db.execute(statement)
    restored = db.execute(KEEP_DELETED_NOTES_PASSAGES).rowcount
    if restored:
        generation = db.execute("SELECT value FROM meta WHERE key = 'ann_generation'").fetchone()
        db.table("meta").upsert(
            {"key": "ann_generation", "value": str(int(generation[0] if generation else 0) + 1)}, pk="key"
        )


WORDS_TABLE = "passages_words"
RECORDED_LANGUAGES = "(SELECT value FROM meta WHERE key = 'languages')"
WORDS_ROW = (
    "smartvec_words({text}, {languages}), smartvec_words({heading}, {languages}), smartvec_words({title}, {languages})"
)
WORDS_FILL = f"""INSERT INTO {WORDS_TABLE}(rowid, text, heading, title)
               SELECT c.id, {WORDS_ROW.format(text="c.text", heading="c.heading", title="n.title", languages="l.value")}
               FROM chunks c JOIN notes n ON n.id = c.note JOIN meta l ON l.key = 'languages'
               WHERE smartvec_analysed(l.value)"""
"""The analysed copy of every passage (``memory.analysis``) of a vault whose main language is not English; none else."""


@migration
def m011_words_in_every_language(db: sqlite_utils.Database) -> None:
    """A second full-text index for vaults not written in English: each passage's words stemmed in the vault's
    main language and its Chinese or Japanese text as character pairs (``memory.analysis``), which the query's
    words are analysed into too. FTS5's porter stems English only and reads a CJK sentence as one word.

    The triggers fill it only while the recorded languages (``meta``) call for it, with the functions every
    connection of ``open_database`` registers; an English vault's rows stay in ``passages_fts`` alone and rank
    as before. A change of the main language rebuilds it (``Store.rebuild_lexical_index``)."""
    db.execute(
        f"CREATE VIRTUAL TABLE {WORDS_TABLE} USING fts5(text, heading, title, "
        "tokenize = 'unicode61 remove_diacritics 2')"
    )
    row = WORDS_ROW.format(
        text="new.text",
        heading="new.heading",
        title="(SELECT title FROM notes WHERE id = new.note)",
        languages=RECORDED_LANGUAGES,
    )
    when = f"WHEN smartvec_analysed({RECORDED_LANGUAGES})"
    db.execute(
        f"""CREATE TRIGGER chunks_words_insert AFTER INSERT ON chunks {when} BEGIN
              INSERT INTO {WORDS_TABLE}(rowid, text, heading, title) VALUES (new.id, {row});
            END"""
    )
    db.execute(
        f"""CREATE TRIGGER chunks_words_update AFTER UPDATE OF text, heading, note ON chunks {when} BEGIN
              DELETE FROM {WORDS_TABLE} WHERE rowid = old.id;
              INSERT INTO {WORDS_TABLE}(rowid, text, heading, title) VALUES (new.id, {row});
            END"""
    )
    db.execute(
        f"CREATE TRIGGER chunks_words_delete AFTER DELETE ON chunks BEGIN "
        f"DELETE FROM {WORDS_TABLE} WHERE rowid = old.id; END"
    )
    title_row = WORDS_ROW.format(text="text", heading="heading", title="new.title", languages=RECORDED_LANGUAGES)
    db.execute(
        f"""CREATE TRIGGER notes_words_title AFTER UPDATE OF title ON notes {when} BEGIN
              DELETE FROM {WORDS_TABLE} WHERE rowid IN (SELECT id FROM chunks WHERE note = new.id);
              INSERT INTO {WORDS_TABLE}(rowid, text, heading, title)
                SELECT id, {title_row} FROM chunks WHERE note = new.id;
            END"""
    )
    db.execute(WORDS_FILL)


@migration
def m012_deleted_note_paths(db: sqlite_utils.Database) -> None:
    """An index of deleted notes' paths (``DELETED_PATH_INDEX``)."""
    db.execute(DELETED_PATH_INDEX)


def register_functions(conn: sqlite3.Connection) -> None:
    """The functions the analysed index's triggers call (``m011_words_in_every_language``)."""
    from ..memory.analysis import analyse, analysed, main_language

    conn.create_function(
        "smartvec_words", 2, lambda text, languages: analyse(text, main_language(languages)), deterministic=True
    )
    conn.create_function(
        "smartvec_analysed", 1, lambda languages: int(analysed(main_language(languages))), deterministic=True
    )


KEEP_DELETED_NOTES_PASSAGES = """
    UPDATE chunks SET
      state = 'ARCHIVED', current = 0,
      until_source = CASE WHEN current = 1 AND (valid_until IS NULL
                                OR valid_until > (SELECT deleted_at FROM notes WHERE id = chunks.note))
                          THEN 'observed' ELSE until_source END,
      valid_until = CASE WHEN current = 1 AND (valid_until IS NULL
                               OR valid_until > (SELECT deleted_at FROM notes WHERE id = chunks.note))
                         THEN (SELECT deleted_at FROM notes WHERE id = chunks.note) ELSE valid_until END
    WHERE state = 'DELETED' AND note IN (SELECT id FROM notes WHERE deleted_at IS NOT NULL)
"""
"""Passages an older version marked DELETED with their note become what deletion leaves now: archived history,
valid until the note was deleted (``Store.delete_note``). The vector index takes them back at its next load."""


def migrate(db: sqlite_utils.Database) -> None:
    """Apply every migration not yet recorded, each in its own transaction."""
    db.table("_migrations").create({"name": str, "applied_at": str}, pk="name", if_not_exists=True)
    done = {row["name"] for row in db.table("_migrations").rows}
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        with db.atomic():
            fn(db)
            db.table("_migrations").insert(
                {"name": fn.__name__, "applied_at": dt.datetime.now(dt.timezone.utc).isoformat()}
            )


def pending_migrations(db: sqlite_utils.Database) -> list[str]:
    done = {row["name"] for row in db.table("_migrations").rows} if db.table("_migrations").exists() else set()
    return [fn.__name__ for fn in MIGRATIONS if fn.__name__ not in done]


def unknown_migrations(db: sqlite_utils.Database) -> list[str]:
    """Migrations recorded by a newer smartvec than this one."""
    known = {fn.__name__ for fn in MIGRATIONS}
    done = [row["name"] for row in db.table("_migrations").rows] if db.table("_migrations").exists() else []
    return sorted(name for name in done if name not in known)


class SqliteDatabase(sqlite_utils.Database):
    """sqlite-utils' database with the one call the store makes that it lacks (``base.Database``)."""

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return self.conn.executemany(sql, rows)


SQLITE_HEADER = b"SQLite format 3\x00"


class DatabaseFileError(SmartvecError):
    """The database file is not a whole SQLite database: empty, cut short, or something else."""


_open_in_process: dict[str, int] = {}
"""How many connections of this process are open on each database file (by real path)."""
_open_in_process_lock = threading.Lock()


def _connections_open(path: Path) -> int:
    with _open_in_process_lock:
        return _open_in_process.get(os.path.realpath(path), 0)


def _count_connection(path: Path, db: sqlite_utils.Database) -> None:
    """Count ``db``'s connection against its file until it is garbage: see :func:`database_file_problem`."""
    key = os.path.realpath(path)
    with _open_in_process_lock:
        _open_in_process[key] = _open_in_process.get(key, 0) + 1

    def forget() -> None:
        with _open_in_process_lock:
            left = _open_in_process.get(key, 1) - 1
            if left > 0:
                _open_in_process[key] = left
            else:
                _open_in_process.pop(key, None)

    weakref.finalize(db, forget)


def database_file_problem(path: Path) -> str | None:
    """What is wrong with the database file itself, before SQLite is let at it, or None.

    SQLite takes a 0-byte file for a new database and would give it an empty schema: a reader
    must never do that to an index a full disk or a sync tool emptied. A file shorter than its
    header says was cut short (its WAL, when it has one, may still complete it: then SQLite decides).

    The header is read only while no connection of this process has the file open: closing any
    descriptor of a file drops every POSIX lock the process holds on it, SQLite's included, and
    its other connections then fail with "disk I/O error". Such a connection has already read the
    header, so the size check alone is left to do."""
    if _connections_open(path):
        try:
            return (
                f"{path.name} is empty (0 bytes: a full disk or a sync tool emptied it)"
                if path.stat().st_size == 0
                else None
            )
        except OSError:
            return None
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            header = fh.read(100)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path.name} cannot be read ({exc.strerror or exc})"
    if size == 0:
        return f"{path.name} is empty (0 bytes: a full disk or a sync tool emptied it)"
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return f"{path.name} is not an SQLite database ({size} bytes of something else)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages, counter, valid_for = (int.from_bytes(header[i : i + 4], "big") for i in (28, 24, 92))
    wal = path.with_name(path.name + "-wal")
    wal_size = wal.stat().st_size if wal.exists() else 0
    if pages and counter == valid_for and size < pages * page_size and not wal_size:
        return f"{path.name} is truncated ({size} of its {pages * page_size} bytes are left)"
    return None


def read_only_uri(path: Path) -> str:
    """The URI that opens the database without writing anything beside it, for a folder it cannot write.

    In WAL mode a reader needs the -shm file: where SQLite left it (and the -wal) it reads through them;
    where they are gone (the last writer closed cleanly) nothing can change the file while the folder is
    read-only, and ``immutable`` reads it without them."""
    side = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    immutable = "&immutable=1" if not all(p.exists() for p in side) else ""
    return f"file:{quote(str(path))}?mode=ro{immutable}"


def open_database(
    path: Path, busy_timeout_ms: int = 30_000, apply_migrations: bool = True, read_only: bool = False
) -> SqliteDatabase:
    """Open (creating and migrating if needed) the index database in WAL mode.

    ``doctor`` opens without migrating: it reports what is pending and changes nothing unless asked.
    ``read_only`` opens a database its user cannot write (a read-only index folder): queries work,
    nothing is migrated or written. A file that exists but is empty or cut short raises
    :class:`DatabaseFileError` before SQLite sees it.
    No sqlite-utils plugins run on it (``execute_plugins=False``): the index's SQL is smartvec's own, and
    finding plugins scans every installed package's entry points, a tenth of a cold query's time.
    """
    problem = database_file_problem(path)
    if problem:
        raise DatabaseFileError(problem)
    try:
        if read_only:
            conn = sqlite3.connect(
                read_only_uri(path), uri=True, timeout=busy_timeout_ms / 1000, check_same_thread=False
            )
        else:
            conn = sqlite3.connect(str(path), timeout=busy_timeout_ms / 1000, check_same_thread=False)
        register_functions(conn)
        db = SqliteDatabase(conn, execute_plugins=False)
        _count_connection(path, db)
        db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if not read_only and db.journal_mode != "wal":
            db.enable_wal()
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA synchronous = NORMAL")
        if read_only:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # fail here, not in the middle of a command
            pending = pending_migrations(db) if apply_migrations else []
            if pending:
                raise DatabaseFileError(
                    f"the index database {path} needs migrations ({', '.join(pending)}) but its folder is read-only; "
                    "run any writing command once with write access"
                )
        elif apply_migrations:
            migrate(db)
    except sqlite3.DatabaseError as exc:
        raise SmartvecError(f"cannot open index database {path}: {exc} (run 'smartvec doctor')") from None
    return db
