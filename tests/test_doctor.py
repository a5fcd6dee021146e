"""``doctor`` finds each kind of damage, says what to do, and ``--repair`` fixes what needs no model."""

import json
import os
import sqlite3

import numpy as np
import pytest
from conftest import index_six_notes_and_an_edit, write

from smartvec_cli.store import db as dbmod
from smartvec_cli.store.ann import HnswIndex
from smartvec_cli.store.sqlite import SqliteStore

CHECKS = [
    "database",
    "schema",
    "model",
    "model_files",
    "vectors",
    "orphans",
    "lexical",
    "ann_file",
    "ann_sync",
    "leftovers",
    "notes",
    "access",
    "locks",
]


@pytest.fixture
def indexed(vault, cli, fake_embedder):
    """A small index with an archived version, ready to be damaged; returns its folder."""
    index_six_notes_and_an_edit(vault, cli)
    fake_embedder.embedded.clear()
    return vault.parent / "index"


def doctor(cli, *args, expect):
    result = cli("doctor", "--json", *args)
    assert result.exit_code == expect, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    assert [c["name"] for c in report["checks"]] == CHECKS
    assert report["ok"] is (expect == 0)
    return {c["name"]: c for c in report["checks"]}, result.stderr


def failing(checks):
    return sorted(name for name, c in checks.items() if not c["ok"])


def repaired_cleanly(cli, fake_embedder, *names):
    """``--repair`` fixes exactly these checks without embedding anything, and a second look finds nothing."""
    checks, _ = doctor(cli, "--repair", expect=0)
    assert sorted(n for n, c in checks.items() if c["repaired"]) == sorted(names)
    assert fake_embedder.embedded == []
    checks, _ = doctor(cli, expect=0)
    assert failing(checks) == []


def test_a_healthy_index(indexed, cli):
    checks, stderr = doctor(cli, expect=0)
    assert failing(checks) == [] and stderr == ""
    text = cli("doctor")
    lines = text.stdout.splitlines()
    assert text.exit_code == 0 and lines[0] == "index" and lines[1].startswith("  ok     database")


def test_no_index_yet(vault, cli):
    result = cli("doctor")
    assert result.exit_code == 1 and "run 'smartvec index' first" in result.stderr


@pytest.mark.parametrize("damage", ["truncate", "garbage", "missing file", "bad sidecar", "bit flip"])
def test_a_damaged_vector_index_is_named_and_rebuilt_without_the_model(indexed, cli, fake_embedder, damage):
    [hnsw] = indexed.glob("vectors-*.hnsw")
    data = hnsw.read_bytes()
    if damage == "truncate":
        hnsw.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        hnsw.write_bytes(os.urandom(len(data)))
    elif damage == "missing file":
        hnsw.unlink()
    elif damage == "bad sidecar":
        (indexed / "vectors.json").write_text('{"file": ')
    else:
        flipped = bytearray(data)
        flipped[len(data) // 2] ^= 0xFF
        hnsw.write_bytes(bytes(flipped))

    checks, stderr = doctor(cli, expect=1)
    assert failing(checks) == ["ann_file"]
    assert "doctor --repair" in stderr
    if damage != "bit flip":  # a flipped byte passes every cheap check: only doctor's checksum sees it
        query = cli("query", "apples pears", "--json")
        assert query.exit_code == 0 and json.loads(query.stdout)
        assert "unreadable" in query.stderr and "smartvec doctor --repair" in query.stderr
        fake_embedder.embedded.clear()
    repaired_cleanly(cli, fake_embedder, "ann_file")
    assert cli("query", "apples pears").stderr == ""


def test_an_index_that_lags_the_database(indexed, cli, fake_embedder, vault, monkeypatch):
    write(vault, "late.md", "# Late\n\nWritten while the vector index could not be saved.\n")
    with monkeypatch.context() as patch:
        patch.setattr(HnswIndex, "save", lambda self, generation: None)  # as if killed between commit and save
        cli.json("index", "--json")
    fake_embedder.embedded.clear()
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["ann_sync"]
    assert "generation" in checks["ann_sync"]["detail"] and "1 passages are missing" in checks["ann_sync"]["detail"]
    repaired_cleanly(cli, fake_embedder, "ann_sync")


def test_orphan_labels_and_missing_passages_in_the_saved_index(indexed, cli, fake_embedder):
    with SqliteStore.open(indexed) as store:
        generation = store.generation
        live = sorted(store.ann_expected_labels())
    saved = HnswIndex(indexed, 384)
    saved.load()
    saved.remove([live[0]])
    saved.add(np.array([987654]), np.ones((1, 384), dtype=np.float32))
    saved.save(generation)  # the same generation: nothing but a full comparison can tell
    checks, _ = doctor(cli, expect=1)
    detail = checks["ann_sync"]["detail"]
    assert (
        failing(checks) == ["ann_sync"]
        and "1 passages are missing" in detail
        and "1 of its labels belong to no live passage" in detail
    )
    repaired_cleanly(cli, fake_embedder, "ann_sync")


def test_lost_vectors_need_the_model_and_index_full_restores_them(indexed, cli, fake_embedder):
    with SqliteStore.open(indexed) as store:
        archived, current = (
            store.db.execute(f"SELECT hash FROM chunks WHERE state {op} 'ARCHIVED' LIMIT 1").fetchone()[0]
            for op in ("=", "!=")
        )
        store.db.execute("DELETE FROM embeddings WHERE hash IN (?, ?)", [archived, current])
        store.db.conn.commit()
    checks, stderr = doctor(cli, expect=1)
    assert failing(checks) == ["vectors"]
    assert (
        "2 passages have no stored vector" in checks["vectors"]["detail"]
        and "index --full" in checks["vectors"]["detail"]
    )
    assert "--repair" not in stderr  # nothing doctor could do about it
    checks, _ = doctor(cli, "--repair", expect=1)
    assert failing(checks) == ["vectors"] and fake_embedder.embedded == []
    cli.json("index", "--full", "--json")
    checks, _ = doctor(cli, expect=0)
    with SqliteStore.open(indexed) as store:
        assert store.known_hashes([archived, current]) == {archived, current}


def test_dangling_edges_are_dropped(indexed, cli, fake_embedder):
    with SqliteStore.open(indexed) as store:
        store.db.execute("PRAGMA foreign_keys = OFF")
        store.db["edges"].insert(
            {"src_note": 1, "dst_chunk": 99999, "type": "contradicts", "created_at": "2025-01-01T00:00:00Z"}
        )
        store.db.conn.commit()
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["orphans"] and "1 edges point to" in checks["orphans"]["detail"]
    repaired_cleanly(cli, fake_embedder, "orphans")


def test_a_full_text_index_out_of_step_is_rebuilt_from_the_stored_text(indexed, cli, fake_embedder):
    with SqliteStore.open(indexed) as store:
        store.db.execute("DELETE FROM passages_fts WHERE rowid IN (SELECT id FROM chunks LIMIT 2)")
        store.db.execute(
            "UPDATE passages_fts SET text = 'words nobody wrote' WHERE rowid = (SELECT max(id) FROM chunks)"
        )
        store.db.execute("INSERT INTO passages_fts(rowid, text, heading, title) VALUES (99999, 'ghost', '', '')")
        store.db.conn.commit()
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["lexical"]
    assert "2 passages missing, 1 entries for no passage, 1 entries with old text" in checks["lexical"]["detail"]
    repaired_cleanly(cli, fake_embedder, "lexical")
    hits = cli.json("query", "plums", "--mode", "lexical", "--json")
    assert hits and "plums" in hits[0]["text"]


def test_leftover_files_of_a_killed_writer_and_daemon(indexed, cli, fake_embedder):
    for name in ("vectors-99.hnsw.tmp", "vectors.json.tmp", "vectors-98.hnsw", "query.sock"):
        (indexed / name).write_bytes(b"x")
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["leftovers"] and "4 files" in checks["leftovers"]["detail"]
    repaired_cleanly(cli, fake_embedder, "leftovers")
    assert sorted(p.name for p in indexed.glob("vectors*")) == [p.name for p in indexed.glob("vectors-*.hnsw")] + [
        "vectors.json"
    ]


def test_a_stale_lock_is_reported_and_cleared(indexed, cli, fake_embedder):
    from test_lock import dead_pid

    pid = dead_pid()
    holder = {"pid": pid, "command": "smartvec index", "since": "2026-03-01T03:00:00Z", "host": ""}
    (indexed / "writer.lock").write_text(json.dumps(holder) + "\n")
    checks, _ = doctor(cli, expect=0)  # harmless: the next writer takes it over
    assert failing(checks) == [] and checks["locks"]["severity"] == "note"
    assert (
        f"pid {pid} (smartvec index)" in checks["locks"]["detail"] and "no longer running" in checks["locks"]["detail"]
    )
    repaired_cleanly(cli, fake_embedder, "locks")
    assert (indexed / "writer.lock").read_text() == ""


def test_pending_migrations_are_applied_by_repair(tmp_path, cli, monkeypatch, vault, fake_embedder):
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    with monkeypatch.context() as patch:
        patch.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:2])  # an index made by an older smartvec
        dbmod.open_database(index_dir / "smartvec.db").close()
    result = cli("doctor", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    schema = next(c for c in report["checks"] if c["name"] == "schema")
    assert not schema["ok"] and "m003_consolidation" in schema["detail"]
    checks, _ = doctor(cli, "--repair", expect=0)
    assert checks["schema"]["repaired"]


def test_another_model_is_named_with_the_fix(indexed, cli, fake_embedder):
    fake_embedder._fingerprint = "fake@2"
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["model"]
    assert (
        "fake@1" in checks["model"]["detail"]
        and "fake@2" in checks["model"]["detail"]
        and "index --full" in checks["model"]["detail"]
    )


def test_an_interrupted_reembedding_with_a_new_model_is_never_mistaken_for_a_finished_one(
    indexed, cli, fake_embedder, vault
):
    fake_embedder._fingerprint = "fake@2"
    calls = {"n": 0}
    original = type(fake_embedder).embed

    def interrupted(self, texts):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(self, texts)

    type(fake_embedder).embed = interrupted
    try:
        result = cli("index", "--full")
    finally:
        type(fake_embedder).embed = original
    assert result.exit_code == 130
    for command in (("index",), ("query", "apples")):
        result = cli(*command)
        assert result.exit_code == 1 and "did not finish" in result.stderr and "index --full" in result.stderr
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["model"]
    cli.json("index", "--full", "--json")
    checks, _ = doctor(cli, expect=0)
    assert "fake@2" in checks["model"]["detail"]


def test_a_damaged_database_is_reported_plainly(indexed, cli):
    db_file = indexed / "smartvec.db"
    with sqlite3.connect(db_file) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db_file.read_bytes())
    data[4096 : 4096 * 3] = os.urandom(4096 * 2)  # pages of the tables, not the header
    db_file.write_bytes(bytes(data))
    result = cli("doctor", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    database = report["checks"][0]
    assert database["name"] == "database" and not database["ok"] and "backup" in database["detail"]
    query = cli("query", "apples")
    assert query.exit_code == 1 and query.stderr.count("\n") == 1 and "doctor" in query.stderr


def test_an_unreadable_database_file(indexed, cli):
    (indexed / "smartvec.db").write_bytes(b"this is not a database" * 100)
    for name in ("smartvec.db-wal", "smartvec.db-shm"):
        (indexed / name).unlink(missing_ok=True)
    result = cli("doctor")
    assert result.exit_code == 1 and "FAIL   database" in result.stdout and "backup" in result.stdout
    status = cli("status")
    assert status.exit_code == 1 and status.stderr.count("\n") == 1 and "Traceback" not in status.stderr
    assert "not an SQLite database" in status.stderr and "restore" in status.stderr and "index --full" in status.stderr


def test_damage_found_in_the_middle_of_a_command_is_one_line(indexed, cli, monkeypatch):
    import smartvec_cli.core.report as report

    def malformed(*args, **kwargs):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(report, "status", malformed)
    result = cli("status")
    assert result.exit_code == 1
    assert (
        result.stderr
        == "error: the index database is damaged (database disk image is malformed); run 'smartvec doctor'\n"
    )


def test_passages_whose_note_is_gone_are_retired_not_erased(indexed, cli, fake_embedder):
    with SqliteStore.open(indexed) as store:
        store.db.execute("PRAGMA foreign_keys = OFF")
        store.db.execute("UPDATE chunks SET note = 99999 WHERE id = (SELECT min(id) FROM chunks)")
        store.db.conn.commit()
        chunk = store.db.execute("SELECT id FROM chunks WHERE note = 99999").fetchone()[0]
    checks, _ = doctor(cli, expect=1)
    assert failing(checks) == ["orphans"] and "1 passages belong to no note" in checks["orphans"]["detail"]
    checks, _ = doctor(cli, "--repair", expect=0)
    assert checks["orphans"]["repaired"] and checks["ann_sync"]["repaired"]  # its label leaves the vector index
    with SqliteStore.open(indexed) as store:
        assert store.db.execute("SELECT state FROM chunks WHERE id = ?", [chunk]).fetchone()[0] == "DELETED"
    assert failing(doctor(cli, expect=0)[0]) == []


def test_a_killed_watch_leaves_a_note_and_problem_notes_are_listed_with_their_check(indexed, cli, vault, fake_embedder):
    from test_lock import dead_pid

    pid = dead_pid()
    holder = {"pid": pid, "command": "smartvec watch", "since": "2026-03-01T03:00:00Z", "host": ""}
    (indexed / "watch.lock").write_text(json.dumps(holder) + "\n")
    write(vault, "broken.md", "---\ntitle: [unclosed\n---\n# Broken\n\nText.\n")
    cli("index")
    (indexed / "vectors.json.tmp").write_bytes(b"x")  # a writer's temporary file, left by a killed one

    result = cli("doctor")
    lines = result.stdout.splitlines()
    assert result.exit_code == 1  # the leftover file, not the lock
    groups = [line for line in lines if line and not line.startswith(" ")]
    assert groups == ["index folder", "vault", "index", "model"]  # worst first: a failure, a warning, then all ok
    folder = lines[1 : lines.index("")]
    assert [line.split()[:2] for line in folder] == [["FAIL", "leftovers"], ["note", "locks"], ["ok", "access"]]
    assert f"pid {pid} (smartvec watch)" in folder[1] and "harmless" in folder[1]
    notes = lines.index(next(line for line in lines if line.startswith("  warn   notes")))
    assert (
        lines[notes + 1].split() == ["broken.md:", *lines[notes + 1].split()[1:]] and "frontmatter" in lines[notes + 1]
    )
    assert notes + 2 == lines.index("index") - 1  # the problem notes come with their check, not after the locks

    report = json.loads(cli("doctor", "--json").stdout)
    kinds = {c["name"]: (c["kind"], c["severity"]) for c in report["checks"]}
    assert kinds["locks"] == ("index folder", "note") and kinds["notes"] == ("vault", "warn")
    assert kinds["leftovers"] == ("index folder", "fail") and kinds["database"] == ("index", "ok")
    (indexed / "vectors.json.tmp").unlink()
    assert cli("doctor").exit_code == 0  # a harmless lock alone is no failure
