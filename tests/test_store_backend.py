"""The store URL is read in one place (``store.backend.store_backend``), and what differs between the databases
before a store is open is the backend's: the core holds a ``StoreBackend`` and never asks which one it is.

Real SQLite indexes in temporary folders, a real PostgreSQL database from the session's server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import write

from smartvec_cli.errors import SmartvecError, UsageError
from smartvec_cli.store.backend import PostgresBackend, SqliteBackend, store_backend

ROOT = Path(__file__).resolve().parent.parent


def test_the_url_chooses_the_backend_and_anything_else_is_a_usage_error(tmp_path):
    assert store_backend(None, tmp_path) == SqliteBackend(tmp_path)
    assert store_backend("", tmp_path) == SqliteBackend(tmp_path)
    shared = store_backend("postgresql://team@db/notes", tmp_path)
    assert isinstance(shared, PostgresBackend) and shared.url == "postgresql://team@db/notes"
    assert store_backend(None, tmp_path).url is None
    with pytest.raises(UsageError, match=r"--store must be a postgresql:// URL, not 'mysql://db/notes'"):
        store_backend("mysql://db/notes", tmp_path)


def test_sqlite_is_peeked_at_without_opening_its_store(vault, cli, fake_embedder, tmp_path):
    backend = SqliteBackend(tmp_path / "index")
    assert backend.peekable
    assert backend.peek_meta(["fingerprint"]) == {}  # no database yet: nothing, and no file made
    assert not (tmp_path / "index" / "smartvec.db").exists()
    with pytest.raises(SmartvecError, match="no index in .*; run 'smartvec index' first"):
        backend.require_index()

    write(vault, "a.md", "# A\n\nApples grow on trees.\n")
    assert cli("index").exit_code == 0
    found = backend.peek_meta(["fingerprint", "languages", "no such key"])
    assert found == {"fingerprint": "fake@1", "languages": "en"}
    backend.require_index()  # an index now: no error
    assert not backend.read_only()


def test_a_postgresql_store_tells_only_once_opened(pg_store_url, tmp_path):
    backend = store_backend(pg_store_url, tmp_path)
    assert not backend.peekable
    assert backend.peek_meta(["fingerprint"]) == {}
    backend.require_index()  # the server is asked when the store is opened, not before
    with pytest.raises(SmartvecError, match="no index in") as refused:
        backend.open_unmigrated()
    assert backend.open_failure(refused.value) == str(refused.value)
    assert not backend.read_only()


def test_an_emptied_sqlite_file_is_reported_with_what_is_left(vault, cli, fake_embedder, tmp_path):
    """``doctor`` names a database cut to nothing before SQLite could take it for a new one, with the way back."""
    write(vault, "a.md", "# A\n\nApples grow on trees.\n")
    assert cli("index").exit_code == 0
    database = tmp_path / "index" / "smartvec.db"
    database.write_bytes(b"")
    backend = SqliteBackend(tmp_path / "index")
    with pytest.raises(SmartvecError) as refused:
        backend.open_unmigrated()
    said = backend.open_failure(refused.value)
    assert said.startswith(str(refused.value)) and "restore" in said and "index --full" in said


def test_the_core_reads_no_store_url_and_writes_no_sql_or_full_text_syntax():
    """The URL is the backend factory's to read; SQL is the store's to write, and so is a full-text query's syntax:
    the core asks in words (``store.lexical.LexicalQuery``), and FTS5's MATCH expressions (quoted words joined by OR,
    ``text :`` and ``title :`` column filters) are written in ``store/fts5.py`` alone."""
    core = ROOT / "smartvec_cli" / "core"
    statement = re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|PRAGMA)\b")
    full_text = re.compile(r"\bMATCH\b|\bNEAR\(|[\"'] OR [\"']|\b(text|title|heading) : ")
    for path in sorted(core.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "store_url" not in text, path.name
        assert not statement.search(text), path.name
        assert not full_text.search(text), (path.name, full_text.search(text))
