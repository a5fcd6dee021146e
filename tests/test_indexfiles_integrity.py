"""The index folder under damage and access rules it did not make: an emptied or truncated database, a
read-only folder, a garbled vector file, a private vault indexed under a loose umask.

Each case goes through the command line with real SQLite and hnswlib files: the user hears one line
naming the cause and the remedy, and nothing stored is lost or rebuilt from nothing.
"""

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys

import pytest
from conftest import REPO, index_six_notes_and_an_edit
from fake_backend import subprocess_env, use_fake_backend

QUESTION = "apples pears"


@pytest.fixture
def umask_022():
    """A loose umask for the test, and the test process's own umask back afterwards (a private vault narrows it)."""
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.fixture
def indexed(vault, cli, fake_embedder, umask_022):
    """Six notes indexed, an archived version, one piece of feedback; returns the index folder."""
    index_six_notes_and_an_edit(vault, cli)
    cli.json("query", QUESTION, "--json")
    cli.json("feedback", "--rank", "1", "--up", "--json")
    return vault.parent / "index"


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(result, *words):
    """The command failed with exit 1 and one line on stderr holding each of ``words``."""
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def checkpoint(index_dir) -> None:
    """Fold the WAL into the database file, so that cutting the file cuts the index."""
    with sqlite3.connect(index_dir / "smartvec.db") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for suffix in ("-wal", "-shm"):
        (index_dir / f"smartvec.db{suffix}").unlink(missing_ok=True)


def vector_file(index_dir):
    [path] = index_dir.glob("vectors-*.hnsw")
    return path


def backups(index_dir, prefix: str) -> list:
    return sorted((index_dir / "backup").glob(f"{prefix}.*"))


# -- an emptied or truncated database -----------------------------------------------------------


@pytest.mark.parametrize("damage", ["empty", "truncated"])
def test_a_cut_database_is_named_and_nothing_is_rebuilt_from_it(indexed, cli, damage):
    checkpoint(indexed)
    db_file = indexed / "smartvec.db"
    whole = db_file.read_bytes()
    db_file.write_bytes(b"" if damage == "empty" else whole[: len(whole) // 2])
    cut = db_file.read_bytes()
    hnsw = vector_file(indexed)
    vectors = digest(hnsw)
    words = ("smartvec.db", damage, "restore", "index --full")

    for command in (["query", QUESTION], ["status"], ["index"]):
        one_line(cli(*command), *words)
    assert db_file.read_bytes() == cut  # no reader and no plain writer gave it a schema

    for repair in ([], ["--repair"]):
        result = cli("doctor", "--json", *repair)
        assert result.exit_code == 1, result.stdout
        checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
        assert list(checks) == ["database", "access", "locks"]
        detail = checks["database"]["detail"]
        assert not checks["database"]["ok"] and not checks["database"]["repaired"]
        assert damage in detail and f"{hnsw.name} (13 vectors) is intact" in detail and "index --full" in detail
    assert db_file.read_bytes() == cut and digest(hnsw) == vectors  # --repair rebuilt nothing from it

    rebuilt = cli("index", "--full")
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert "moved to" in rebuilt.stderr and "starts again from the notes" in rebuilt.stderr
    [kept_db] = backups(indexed, "smartvec.db")
    [kept_vectors] = backups(indexed, hnsw.name)
    assert kept_db.read_bytes() == cut and digest(kept_vectors) == vectors
    hits = cli.json("query", QUESTION, "--json", "--no-track")
    assert hits and "apples" in hits[0]["text"]


# -- a read-only index folder -------------------------------------------------------------------

DROP_WRITE_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def as_reader(*args):
    """``smartvec`` in a process for which the read-only folder really is read-only: as root (tests and CI
    run as root) without the capabilities that let root write anyway; as anyone else, as it is."""
    prefix = DROP_WRITE_OVERRIDE if os.geteuid() == 0 else []
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "smartvec_cli", *args],
        cwd=REPO,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    done.exit_code = done.returncode
    return done


@pytest.fixture
def read_only_index(indexed):
    """The index folder 0555 and its files 0444; skipped where no process can be made to respect that."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: no process here would find the folder read-only")
    use_fake_backend(indexed)  # the subprocesses embed with the same fake as the fixture
    files = sorted(p for p in indexed.iterdir() if p.is_file())
    for path in files:
        path.chmod(0o444)
    indexed.chmod(0o555)
    probe = as_reader("--version")  # the capability drop itself must work here
    if probe.returncode != 0:
        indexed.chmod(0o755)
        pytest.skip(f"cannot start a process without write override: {probe.stderr.strip()}")
    touch = subprocess.run(
        [*(DROP_WRITE_OVERRIDE if os.geteuid() == 0 else []), "touch", str(indexed / "probe")], capture_output=True
    )
    assert touch.returncode != 0, "the folder is still writable for the reader process"
    yield indexed
    indexed.chmod(0o755)
    for path in files:
        path.chmod(0o644)


def test_a_read_only_index_answers_queries_and_doctor_says_why_writers_fail(read_only_index, vault):
    before = {p.name: digest(p) for p in read_only_index.iterdir()}
    where = ["--vault", str(vault), "--index-dir", str(read_only_index)]

    query = as_reader(*where, "query", QUESTION, "--json")
    assert query.returncode == 0 and query.stderr == "", query.stderr
    hits = json.loads(query.stdout)
    assert hits and "apples" in hits[0]["text"]
    status = as_reader(*where, "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["notes"] == 6, status.stderr

    doctor = as_reader(*where, "doctor", "--json")
    assert doctor.returncode == 0, (doctor.stdout, doctor.stderr)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert all(c["ok"] for c in checks.values())
    assert (
        "read-only: queries work, writers" in checks["access"]["detail"]
        and "need write access" in checks["access"]["detail"]
    )
    assert "move" not in doctor.stdout  # a healthy index is never advised away

    index = as_reader(*where, "index")
    assert index.returncode == 1 and index.stderr.count("\n") == 1 and "writable" in index.stderr, index.stderr
    assert {p.name: digest(p) for p in read_only_index.iterdir()} == before  # not one byte written, no file made


# -- a garbled vector file ----------------------------------------------------------------------


def garble(path, offset: int = 4096, size: int = 4096) -> bytes:
    """4 KB of noise written over the file in place: same size, so only a checksum or the labels tell."""
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(os.urandom(size))
    return path.read_bytes()


def ranked(cli, *extra):
    result = cli("query", QUESTION, "--json", "--no-track", "--top-k", "5", *extra)
    assert result.exit_code == 0, result.stderr
    return [(h["chunk_id"], h["version"]) for h in json.loads(result.stdout)], result.stderr


@pytest.mark.parametrize("candidates", ["exact", "graph"])
def test_a_garbled_vector_file_gives_the_right_answers_and_index_mends_it(
    indexed, cli, fake_embedder, monkeypatch, candidates
):
    if candidates == "graph":  # as an index above EXACT_CANDIDATES_UP_TO passages would ask the graph
        monkeypatch.setattr("smartvec_cli.core.search.EXACT_CANDIDATES_UP_TO", 0)
    expected, _ = ranked(cli)
    hnsw = vector_file(indexed)
    damaged = garble(hnsw)

    answer, warning = ranked(cli)
    assert answer == expected
    assert warning.count("\n") == 1 and "vector index" in warning and "damaged" in warning
    assert "smartvec doctor --repair" in warning and "no stored vector" not in warning
    assert hnsw.read_bytes() == damaged  # a reader repairs nothing on disk

    fake_embedder.embedded.clear()
    index = cli("index")
    assert index.exit_code == 0, index.stderr
    assert fake_embedder.embedded == []  # mended from the stored vectors: nothing embedded again
    assert "does not match the checksum" in index.stderr and "rebuilt from the stored vectors and saved" in index.stderr
    [kept] = backups(indexed, hnsw.name)
    assert kept.read_bytes() == damaged and str(kept) in index.stderr
    assert ranked(cli) == (expected, "")
    assert cli("doctor").exit_code == 0


def test_doctor_repair_keeps_a_copy_of_the_vector_file_it_replaces(indexed, cli, fake_embedder):
    hnsw = vector_file(indexed)
    damaged = garble(hnsw)
    checks = cli.json("doctor", "--json", expect=1)["checks"]
    assert [c["name"] for c in checks if not c["ok"]] == ["ann_file"]
    repaired = {c["name"]: c for c in cli.json("doctor", "--repair", "--json")["checks"]}
    assert repaired["ann_file"]["repaired"] and "the old file is kept as backup/" in repaired["ann_file"]["detail"]
    [kept] = backups(indexed, hnsw.name)
    assert kept.read_bytes() == damaged
    assert len(backups(indexed, "vectors.json")) == 1
    assert cli("doctor").exit_code == 0


# -- a private vault under a loose umask ------------------------------------------------------


def modes(index_dir) -> dict[str, int]:
    found = {".": stat.S_IMODE(index_dir.stat().st_mode)}
    for path in index_dir.rglob("*"):
        found[str(path.relative_to(index_dir))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_a_private_vault_gets_a_private_index_whatever_the_umask(vault, cli, fake_embedder, umask_022):
    index_dir = vault.parent / "index"
    vault.chmod(0o700)
    for i in range(3):
        note = vault / f"p{i}.md"
        note.write_text(f"# P{i}\n\nPrivate note {i} about apples and pears.\n", encoding="utf-8")
        note.chmod(0o600)
    cli.json("index", "--json")
    assert cli("refresh", "--nightly").exit_code == 0  # writes refresh.log
    cli.json("query", QUESTION, "--json")
    garble(vector_file(index_dir))
    assert cli("index").exit_code == 0  # a repair: backup/ and its copies

    os.umask(0o022)  # SQLite's -wal and -shm, made by a connection under the loose umask again, follow the database
    with sqlite3.connect(index_dir / "smartvec.db") as conn:
        conn.execute("UPDATE meta SET value = value WHERE key = 'dim'")
        found = modes(index_dir)
    for name in (
        "smartvec.db",
        "smartvec.db-wal",
        "smartvec.db-shm",
        "config.toml",
        "refresh.log",
        "writer.lock",
        "vectors.json",
        "backup",
    ):
        assert name in found, (name, sorted(found))
    assert {name: mode for name, mode in found.items() if mode & 0o077} == {}
    assert found["."] == 0o700 and found["backup"] == 0o700 and found["smartvec.db"] == 0o600


def test_a_too_wide_index_of_a_private_vault_is_reported_and_narrowed_by_the_next_writer(
    indexed, vault, cli, umask_022
):
    vault.chmod(0o700)
    indexed.chmod(0o755)
    (indexed / "smartvec.db").chmod(0o644)
    checks = {c["name"]: c for c in cli.json("doctor", "--json", expect=1)["checks"]}
    assert [n for n, c in checks.items() if not c["ok"]] == ["access"]
    detail = checks["access"]["detail"]
    assert detail.startswith("the vault folder is 0700 but ") and "index files or folders let others in" in detail
    assert "(index 0755, index/config.toml 0644, index/smartvec.db 0644)" in detail and "next writer narrows" in detail

    assert cli("index").exit_code == 0
    assert {name: mode for name, mode in modes(indexed).items() if mode & 0o077} == {}
    assert cli("doctor").exit_code == 0


def test_doctor_repair_narrows_a_too_wide_index(indexed, vault, cli, umask_022):
    vault.chmod(0o750)  # the group may read the vault, others may not: so the index too
    (indexed / "smartvec.db").chmod(0o664)
    repaired = {c["name"]: c for c in cli.json("doctor", "--repair", "--json")["checks"]}
    assert repaired["access"]["repaired"]
    assert stat.S_IMODE((indexed / "smartvec.db").stat().st_mode) == 0o640
    assert all(mode & 0o027 == 0 for mode in modes(indexed).values())
