"""The PostgreSQL database: connection, schema, numbered migrations, and the small table API the store uses.

The shared statements are written with ``?`` placeholders and sqlite-utils' ``db.table(name).insert`` calls
(``store.base.Database``); ``PgDatabase`` takes them as they are: ``?`` becomes psycopg's ``%s`` and the
table calls become plain INSERT / UPDATE / upsert statements. Migrations are applied once each, in order, recorded in
``_migrations`` like SQLite's, under a transaction-level advisory lock so that two machines opening a
new database at once do not both create it.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

import psycopg
from psycopg.rows import dict_row

from ...errors import SmartvecError
from ..db import (
    CHUNK_INDEXES,
    CURRENT_TEXT_HASH_INDEX,
    DELETED_PATH_INDEX,
    KEEP_DELETED_NOTES_PASSAGES,
    NOTE_INDEXES,
    NOTE_NAME_INDEXES,
    PENDING_INDEX,
    REREAD_EVERY_NOTE,
    edge_index,
)
from .secrets import safe_url  # noqa: F401  (the store's modules import it from here)

MIGRATIONS: list[Callable[["PgDatabase"], None]] = []
MIGRATION_LOCK = (0x736D7663, 0)  # 'smvc', 0: held for the transaction that applies migrations
TRANSACTION_LOCK = "SELECT pg_advisory_xact_lock(%s, %s)"
"""Wait for, then hold until the transaction ends, the advisory lock of a key pair (``MIGRATION_LOCK``,
``lock.WRITE_TRANSACTION``)."""
DEFAULT_DIM = 384
TEXT = 'text COLLATE "C"'
"""Text compares byte by byte, as in SQLite: paths and ISO times sort the same on every server, whatever its locale."""

PLACEHOLDER = re.compile(r"\?")
EMPTY_IN = re.compile(r"\b(NOT\s+)?IN\s*\(\s*\)", re.IGNORECASE)
"""SQLite takes ``IN ()`` (an empty list of marks); PostgreSQL takes the same test against an empty array."""


def migration(fn: Callable[["PgDatabase"], None]):
    MIGRATIONS.append(fn)
    return fn


@lru_cache(maxsize=4096)
def to_pg(sql: str) -> str:
    """A statement with SQLite's ``?`` placeholders in psycopg's style (a literal ``%`` doubled)."""
    sql = EMPTY_IN.sub(lambda m: "<> ALL('{}')" if m.group(1) else "= ANY('{}')", sql)
    return PLACEHOLDER.sub("%s", sql.replace("%", "%%"))


def connect(url: str, application_name: str = "smartvec") -> psycopg.Connection:
    """An autocommit connection (writers open their transactions explicitly); a server that cannot be
    reached is one clear line."""
    try:
        return psycopg.connect(url, autocommit=True, application_name=application_name[:63], connect_timeout=10)
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SmartvecError(f"cannot connect to the store {safe_url(url)}: {reason}") from None


def one(cursor: psycopg.Cursor[Any]) -> Any:
    """The value of the one row a statement always answers with (a count, a ``RETURNING id``, a test)."""
    row = cursor.fetchone()
    if row is None:
        raise SmartvecError("the database answered no row where a statement always returns one")
    return row[0]


class Inserted:
    """What sqlite-utils' ``insert`` returns, as far as the store reads it."""

    def __init__(self, last_pk):
        self.last_pk = last_pk


class PgTable:
    """``db["table"]``: the sqlite-utils calls the shared statements make, as SQL."""

    def __init__(self, db: "PgDatabase", name: str):
        self.db = db
        self.name = name

    def insert(self, values: dict) -> Inserted:
        columns = list(values)
        names = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join(["%s"] * len(columns))
        return Inserted(
            one(
                self.db.conn.execute(
                    f'INSERT INTO "{self.name}" ({names}) VALUES ({marks}) RETURNING id', [values[c] for c in columns]
                )
            )
        )

    def insert_all(self, rows: Iterable[dict]) -> None:
        for row in rows:
            self.insert(row)

    def upsert(self, values: dict, pk: str) -> None:
        self.upsert_all([values], pk)

    def upsert_all(self, rows: Iterable[dict], pk: str) -> None:
        for values in rows:
            columns = list(values)
            names = ", ".join(f'"{c}"' for c in columns)
            marks = ", ".join(["%s"] * len(columns))
            updates = ", ".join(f'"{c}" = EXCLUDED."{c}"' for c in columns if c != pk) or f'"{pk}" = EXCLUDED."{pk}"'
            self.db.conn.execute(
                f'INSERT INTO "{self.name}" ({names}) VALUES ({marks}) ON CONFLICT ("{pk}") DO UPDATE SET {updates}',
                [values[c] for c in columns],
            )

    def update(self, pk_value, values: dict) -> None:
        if not values:
            return
        assignments = ", ".join(f'"{c}" = %s' for c in values)
        self.db.conn.execute(f'UPDATE "{self.name}" SET {assignments} WHERE id = %s', [*values.values(), pk_value])

    def get(self, pk_value) -> dict:
        with self.db.conn.cursor(row_factory=dict_row) as cursor:
            row = cursor.execute(f'SELECT * FROM "{self.name}" WHERE id = %s', [pk_value]).fetchone()
        if row is None:
            raise SmartvecError(f"no row {pk_value} in {self.name}")
        return row

    def exists(self) -> bool:
        return self.db.table_exists(self.name)


class PgDatabase:
    """The connection, spoken to as the shared statements speak to sqlite-utils."""

    def __init__(self, conn: psycopg.Connection, url: str):
        self.conn = conn
        self.url = url

    def execute(self, sql: str, params: Iterable = ()) -> psycopg.Cursor:
        return self.conn.execute(to_pg(sql), list(params))

    def query(self, sql: str, params: Iterable = ()) -> list[dict]:
        with self.conn.cursor(row_factory=dict_row) as cursor:
            return cursor.execute(to_pg(sql), list(params)).fetchall()

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(to_pg(sql), rows)

    def table(self, name: str) -> PgTable:
        return PgTable(self, name)

    def table_exists(self, name: str) -> bool:
        return bool(one(self.conn.execute("SELECT to_regclass(%s) IS NOT NULL", [f'"{name}"'])))

    def close(self) -> None:
        self.conn.close()


# -- migrations ---------------------------------------------------------------------------------


@migration
def p001_initial(db: PgDatabase) -> None:
    """The SQLite schema as its seven migrations left it, in PostgreSQL's types; vectors as pgvector values."""
    db.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    db.conn.execute(f"CREATE TABLE meta (key {TEXT} PRIMARY KEY, value {TEXT})")
    db.conn.execute(
        f"""CREATE TABLE notes (
          id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
          note_id {TEXT} NOT NULL, path {TEXT} NOT NULL, title {TEXT}, size bigint, mtime_ns bigint, file_sha {TEXT},
          embedding_hash {TEXT}, last_updated {TEXT}, aclarai_id {TEXT}, aclarai_ver bigint, metadata {TEXT}, tags
          {TEXT},
          created_at {TEXT}, updated_at {TEXT}, deleted_at {TEXT},
          kind {TEXT} NOT NULL DEFAULT 'vault', source_type {TEXT}, authority double precision, valid_from {TEXT},
          valid_until {TEXT}, declared bigint, doc_date {TEXT}, version bigint, superseded_at {TEXT}, superseded_by
          bigint,
          importance double precision, pending bigint NOT NULL DEFAULT 1, review_reason {TEXT}, review_since {TEXT},
          encoding {TEXT}, from_source {TEXT})"""
    )
    for statement in (*NOTE_INDEXES, PENDING_INDEX):
        db.conn.execute(statement)
    db.conn.execute(f"CREATE TABLE embeddings (hash {TEXT} PRIMARY KEY, text {TEXT}, vector vector, created_at {TEXT})")
    db.conn.execute(
        f"""CREATE TABLE chunks (
          id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
          note bigint NOT NULL REFERENCES notes(id), chunk_id {TEXT} NOT NULL, key {TEXT} NOT NULL, version bigint
          DEFAULT 1,
          ordinal bigint, heading {TEXT}, text {TEXT}, hash {TEXT} NOT NULL, block_ids {TEXT}, state {TEXT} NOT NULL,
          created_at {TEXT}, updated_at {TEXT}, valid_from {TEXT}, valid_until {TEXT}, superseded_by bigint,
          access_count bigint DEFAULT 0, last_accessed {TEXT}, feedback double precision DEFAULT 0.0, observed_from
          {TEXT},
          current bigint NOT NULL DEFAULT 1, contradiction_penalty double precision NOT NULL DEFAULT 0.0,
          ripple_penalty double precision NOT NULL DEFAULT 0.0, echo_penalty double precision NOT NULL DEFAULT 0.0,
          observed_by {TEXT}, from_source {TEXT}, until_source {TEXT})"""
    )
    for statement in CHUNK_INDEXES:
        db.conn.execute(statement)
    db.conn.execute(
        f"""CREATE TABLE edges (
          id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, src_note bigint, dst_note bigint, src_chunk bigint,
          dst_chunk bigint, type {TEXT} NOT NULL, target {TEXT}, detail {TEXT}, created_at {TEXT})"""
    )
    for column in ("src_note", "dst_note", "src_chunk", "dst_chunk"):
        db.conn.execute(edge_index(column))
    db.conn.execute(
        f"""CREATE TABLE events (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, at {TEXT} NOT NULL,
          kind {TEXT} NOT NULL, chunk bigint, note bigint, data {TEXT})"""
    )
    db.conn.execute("CREATE INDEX idx_events_note ON events(note)")
    db.conn.execute(
        f"""CREATE TABLE runs (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, command {TEXT}, started_at
          {TEXT},
          finished_at {TEXT}, status {TEXT}, summary {TEXT})"""
    )
    db.conn.execute(f"CREATE TABLE note_problems (path {TEXT} PRIMARY KEY, error {TEXT}, seen_at {TEXT})")


FTS_TABLE = "passages_fts"
TS_CONFIG = "smartvec"
FTS_FILL = f"""INSERT INTO {FTS_TABLE} (id, text, heading, title)
               SELECT c.id, c.text, c.heading, n.title FROM chunks c JOIN notes n ON n.id = c.note"""


def stemming_configuration(db: PgDatabase, config: str, dictionary: str, language: str) -> None:
    """A text search configuration ``config`` that stems every word with Snowball's ``language`` (its
    ``dictionary``) and, unlike PostgreSQL's own configurations, drops none as a stopword."""
    db.conn.execute(f"CREATE TEXT SEARCH DICTIONARY {dictionary} (TEMPLATE = snowball, Language = {language})")
    db.conn.execute(f"CREATE TEXT SEARCH CONFIGURATION {config} (COPY = simple)")
    db.conn.execute(
        f"ALTER TEXT SEARCH CONFIGURATION {config} ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, "
        f"hword, hword_part WITH {dictionary}"
    )


@migration
def p002_lexical(db: PgDatabase) -> None:
    """Full-text search beside every stored passage version, as SQLite's FTS5 table: its text, heading and
    note title, kept in step by triggers inside the transaction that writes the passage.

    The text search configuration stems English words (Snowball, as FTS5's porter) but keeps every word:
    PostgreSQL's ``english`` drops stopwords, which FTS5 indexes, and the lexical signal counts them alike.
    """
    stemming_configuration(db, TS_CONFIG, f"{TS_CONFIG}_stem", "english")
    config = f"'{TS_CONFIG}'::regconfig"
    db.conn.execute(
        f"""CREATE TABLE {FTS_TABLE} (
          id bigint PRIMARY KEY, text {TEXT}, heading {TEXT}, title {TEXT},
          body tsvector GENERATED ALWAYS AS (to_tsvector({config}, coalesce(text, ''))) STORED,
          document tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector({config}, coalesce(text, '')), 'A') ||
            setweight(to_tsvector({config}, coalesce(heading, '') || ' ' || coalesce(title, '')), 'B')) STORED)"""
    )
    db.conn.execute(f"CREATE INDEX idx_{FTS_TABLE}_body ON {FTS_TABLE} USING gin (body)")
    db.conn.execute(f"CREATE INDEX idx_{FTS_TABLE}_document ON {FTS_TABLE} USING gin (document)")
    db.conn.execute(
        f"""CREATE FUNCTION smartvec_fts_passage() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                DELETE FROM {FTS_TABLE} WHERE id = OLD.id;
                RETURN OLD;
              END IF;
              INSERT INTO {FTS_TABLE} (id, text, heading, title)
                VALUES (NEW.id, NEW.text, NEW.heading, (SELECT title FROM notes WHERE id = NEW.note))
                ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, heading = EXCLUDED.heading, title = EXCLUDED.title;
              RETURN NEW;
            END $$"""
    )
    db.conn.execute(
        "CREATE TRIGGER chunks_fts AFTER INSERT OR DELETE OR UPDATE OF text, heading, note ON chunks "
        "FOR EACH ROW EXECUTE FUNCTION smartvec_fts_passage()"
    )
    db.conn.execute(
        f"""CREATE FUNCTION smartvec_fts_title() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              UPDATE {FTS_TABLE} SET title = NEW.title WHERE id IN (SELECT id FROM chunks WHERE note = NEW.id);
              RETURN NEW;
            END $$"""
    )
    db.conn.execute(
        "CREATE TRIGGER notes_fts_title AFTER UPDATE OF title ON notes "
        "FOR EACH ROW EXECUTE FUNCTION smartvec_fts_title()"
    )


@migration
def p003_kinds_and_copies(db: PgDatabase) -> None:
    """SQLite's ``m008_kinds_and_copies``: where each note's kind came from, and the hash of each passage's text
    alone, which copies of a note under another name share (a new store has no rows to fill)."""
    db.conn.execute(f"ALTER TABLE notes ADD COLUMN kind_source {TEXT}")
    db.conn.execute(f"ALTER TABLE chunks ADD COLUMN text_hash {TEXT}")
    db.conn.execute(CURRENT_TEXT_HASH_INDEX)


@migration
def p004_kind_reasons(db: PgDatabase) -> None:
    """SQLite's ``m009_kind_reasons``: the rule that gave each inferred kind."""
    db.conn.execute(f"ALTER TABLE notes ADD COLUMN kind_reason {TEXT}")
    db.conn.execute(REREAD_EVERY_NOTE)


@migration
def p005_note_names(db: PgDatabase) -> None:
    """SQLite's ``m010_note_names``: the paths and ids a note had before it moved; deleted notes' passages become
    history."""
    db.conn.execute(
        f"""CREATE TABLE note_names (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, note bigint NOT NULL,
          path {TEXT} NOT NULL, note_id {TEXT}, until {TEXT})"""
    )
    for statement in NOTE_NAME_INDEXES:
        db.conn.execute(statement)
    if db.conn.execute(KEEP_DELETED_NOTES_PASSAGES).rowcount:
        db.conn.execute("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'ann_generation'")


WORDS_CONFIG = "smartvec_words_config((SELECT value FROM meta WHERE key = 'languages'))"
"""The text search configuration of the vault's main language (``p006_words_in_every_language``)."""


@migration
def p006_words_in_every_language(db: PgDatabase) -> None:
    """SQLite's ``m011_words_in_every_language``: for a vault whose main language is not English, each passage's
    words stemmed by PostgreSQL's Snowball dictionary of that language (stopwords kept, as in ``smartvec``) and
    its CJK runs as overlapping character pairs, in ``words_body`` and ``words_document`` beside the English
    columns, which an English vault keeps using alone. A trigger fills them from the recorded languages."""
    from ...memory.analysis import CJK, ENGLISH, SNOWBALL

    have = {row[0] for row in db.conn.execute("SELECT dictname FROM pg_ts_dict")}
    for code, name in sorted(SNOWBALL.items()):
        if code == ENGLISH or f"{name}_stem" not in have:
            continue
        stemming_configuration(db, f"{TS_CONFIG}_{code}", f"{TS_CONFIG}_stem_{code}", name)
    db.conn.execute(
        f"""CREATE FUNCTION smartvec_words_config(languages text) RETURNS regconfig LANGUAGE sql STABLE AS $$
              SELECT coalesce((SELECT oid::regconfig FROM pg_ts_config
                               WHERE cfgname = '{TS_CONFIG}_' || split_part(coalesce(languages, ''), ' ', 1)),
                               'simple'::regconfig) $$"""
    )
    db.conn.execute(
        f"""CREATE FUNCTION smartvec_analysed(languages text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
              SELECT coalesce(split_part(btrim(languages), ' ', 1), '') NOT IN ('', '{ENGLISH}') $$"""
    )
    db.conn.execute(
        """CREATE FUNCTION smartvec_pairs(run text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
             SELECT CASE WHEN char_length(run) < 2 THEN run
                    ELSE (SELECT string_agg(substr(run, i, 2), ' ' ORDER BY i) FROM generate_series(1,
                    char_length(run) - 1) i) END $$"""
    )
    db.conn.execute(
        f"""CREATE FUNCTION smartvec_cjk_pairs(source text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
            DECLARE
              result text := '';
              run text := '';
              ch text;
            BEGIN
              IF source IS NULL OR source !~ '[{CJK}]' THEN
                RETURN source;
              END IF;
              FOREACH ch IN ARRAY regexp_split_to_array(source, '') LOOP
                IF ch ~ '[{CJK}]' THEN
                  run := run || ch;
                ELSE
                  IF run <> '' THEN
                    result := result || ' ' || smartvec_pairs(run) || ' ';
                    run := '';
                  END IF;
                  result := result || ch;
                END IF;
              END LOOP;
              IF run <> '' THEN
                result := result || ' ' || smartvec_pairs(run) || ' ';
              END IF;
              RETURN result;
            END $$"""
    )
    db.conn.execute(f"ALTER TABLE {FTS_TABLE} ADD COLUMN words_body tsvector, ADD COLUMN words_document tsvector")
    db.conn.execute(f"CREATE INDEX idx_{FTS_TABLE}_words_body ON {FTS_TABLE} USING gin (words_body)")
    db.conn.execute(f"CREATE INDEX idx_{FTS_TABLE}_words_document ON {FTS_TABLE} USING gin (words_document)")
    db.conn.execute(
        """CREATE FUNCTION smartvec_fts_words() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
              languages text := (SELECT value FROM meta WHERE key = 'languages');
              config regconfig;
            BEGIN
              IF NOT smartvec_analysed(languages) THEN
                NEW.words_body := NULL;
                NEW.words_document := NULL;
                RETURN NEW;
              END IF;
              config := smartvec_words_config(languages);
              NEW.words_body := to_tsvector(config, smartvec_cjk_pairs(coalesce(NEW.text, '')));
              NEW.words_document := setweight(NEW.words_body, 'A') ||
                setweight(to_tsvector(config, smartvec_cjk_pairs(coalesce(NEW.heading, '') || ' ' ||
                coalesce(NEW.title, ''))), 'B');
              RETURN NEW;
            END $$"""
    )
    db.conn.execute(
        f"CREATE TRIGGER passages_fts_words BEFORE INSERT OR UPDATE OF text, heading, title ON {FTS_TABLE} "
        "FOR EACH ROW EXECUTE FUNCTION smartvec_fts_words()"
    )
    db.conn.execute(f"UPDATE {FTS_TABLE} SET text = text")


@migration
def p007_deleted_note_paths(db: PgDatabase) -> None:
    """SQLite's ``m012_deleted_note_paths``: an index of deleted notes' paths."""
    db.conn.execute(DELETED_PATH_INDEX)


def migrate(db: PgDatabase) -> None:
    """Apply every migration not yet recorded, each in its own transaction, one machine at a time."""
    db.conn.execute(f"CREATE TABLE IF NOT EXISTS _migrations (name {TEXT} PRIMARY KEY, applied_at {TEXT})")
    if not pending_migrations(db):
        return
    for fn in MIGRATIONS:
        with db.conn.transaction():
            db.conn.execute(TRANSACTION_LOCK, MIGRATION_LOCK)
            if db.conn.execute("SELECT 1 FROM _migrations WHERE name = %s", [fn.__name__]).fetchone():
                continue  # applied meanwhile by another machine
            fn(db)
            db.conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (%s, %s)",
                [fn.__name__, dt.datetime.now(dt.timezone.utc).isoformat()],
            )


def applied_migrations(db: PgDatabase) -> list[str]:
    if not db.table_exists("_migrations"):
        return []
    return [row[0] for row in db.conn.execute("SELECT name FROM _migrations")]


def pending_migrations(db: PgDatabase) -> list[str]:
    done = set(applied_migrations(db))
    return [fn.__name__ for fn in MIGRATIONS if fn.__name__ not in done]


def unknown_migrations(db: PgDatabase) -> list[str]:
    """Migrations recorded by a newer smartvec than this one."""
    known = {fn.__name__ for fn in MIGRATIONS}
    return sorted(name for name in applied_migrations(db) if name not in known)
