"""The PostgreSQL + pgvector store on a real server (``pg_server``): what only it has.

The behaviour both stores share (index, query, consolidate, feedback) is tested on both by the
``both_stores`` mark in those tests' own files; here: two writers at once, the doctor's checks of a
server store, the HNSW index in the database, and the way the backend is chosen and reported.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import REPO, FakeEmbedder, both_stores, cli_process, index_six_notes_and_an_edit, write
from vaultgen import sentence

from smartvec_cli.core.indexer import Indexer
from smartvec_cli.core.query import QueryEngine, Question
from smartvec_cli.core.search import SearchOptions
from smartvec_cli.core.workspace import Workspace
from smartvec_cli.core.writing import writing_store
from smartvec_cli.store.lexical import LexicalQuery

NOW = "2026-03-01"
HALF = 40  # notes in each half


def team_vault(root, rng: random.Random) -> None:
    """Two halves a team indexes from two machines, linking across, and a common part indexed first."""
    for i in range(5):
        write(root, f"common/c{i}.md", f"# Common {i}\n\n{sentence(rng)} Common mark c{i}.\n")
    for half in ("a", "b"):
        other = "b" if half == "a" else "a"
        for i in range(HALF):
            body = "\n\n".join(f"{sentence(rng)} Mark {half}{i} part {p}." for p in range(2))
            write(
                root,
                f"{half}/{half}{i:02d}.md",
                f"# {half.upper()} {i}\n\n{body}\n\nSee [[{other}{i:02d}]] and [[c{i % 5}]].\n",
            )


def indexed_half(ws: Workspace, half: str, on_wait=None) -> tuple[float, float]:
    """Index one part of the vault under the writer lock, as ``smartvec index`` does; (asked, finished) times."""
    asked = time.monotonic()
    embedder = FakeEmbedder()
    with writing_store(ws, f"smartvec index {half}", wait=120, create=True, on_wait=on_wait) as store:
        Indexer(ws, store, lambda: embedder).run(only=lambda path: path.startswith(f"{half}/"))
    return asked, time.monotonic()


def state(ws: Workspace) -> dict:
    """What the store holds, by natural keys (row ids depend on who wrote first)."""
    with ws.open_store() as store:
        rows = lambda sql: sorted(tuple(r) for r in store.db.execute(sql).fetchall())  # noqa: E731
        return {
            "notes": rows("SELECT path, note_id, title, deleted_at, valid_from, from_source FROM notes"),
            "passages": rows(
                "SELECT n.path, c.chunk_id, c.version, c.state, c.hash, c.text, c.valid_from, c.from_source, "
                "c.observed_from "
                "FROM chunks c JOIN notes n ON n.id = c.note"
            ),
            "vectors": rows("SELECT hash, text FROM embeddings"),
            "edges": rows(
                "SELECT s.path, e.type, e.target, d.path FROM edges e JOIN notes s ON s.id = e.src_note LEFT JOIN "
                "notes d ON d.id = e.dst_note"
            ),
        }


def test_two_writers_indexing_halves_at_once_end_as_one_writer_while_readers_never_fail(tmp_path, pg_databases):
    root = tmp_path / "vault"
    team_vault(root, random.Random(7))
    shared = Workspace.resolve(root, tmp_path / "index-1", NOW, pg_databases())
    indexed_half(shared, "common")

    failures: list[str] = []
    answered = [0]
    stop = threading.Event()

    def reader(seed: int) -> None:
        rng = random.Random(seed)
        embedder = FakeEmbedder()
        while not stop.is_set():
            try:
                with shared.open_store() as store:
                    half = rng.choice("ab")
                    answer = QueryEngine(shared, store, lambda: embedder).ask(
                        Question(f"mark {half}{rng.randrange(HALF)} part"), SearchOptions(top_k=3)
                    )
                answered[0] += bool(answer.hits)
            except Exception as exc:  # noqa: BLE001 - any exception is a failed question
                failures.append(f"{type(exc).__name__}: {exc}")

    readers = [threading.Thread(target=reader, args=(n,)) for n in range(2)]
    for thread in readers:
        thread.start()
    spans: dict[str, tuple[float, float]] = {}
    waited: list[str] = []

    def writer(half: str) -> None:
        # each writer is a machine of its own: its own workspace (index folder), the one shared database
        ws = Workspace.resolve(root, tmp_path / f"index-{half}", NOW, shared.backend.url)
        spans[half] = indexed_half(
            ws, half, on_wait=lambda holder: waited.append(f"{half} waited for {holder and holder.command}")
        )

    writers = [threading.Thread(target=writer, args=(half,)) for half in "ab"]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=300)
    time.sleep(0.3)
    stop.set()
    for thread in readers:
        thread.join(timeout=60)

    assert failures == []
    assert answered[0] > 0
    first, second = sorted("ab", key=lambda half: spans[half][1])
    assert spans[second][0] < spans[first][1], "the writers did not run at the same time"
    assert waited and waited[0].startswith(f"{second} waited for index {first}")

    alone = Workspace.resolve(root, tmp_path / "index-alone", NOW, pg_databases())
    for half in ("common", first, second):
        indexed_half(alone, half)
    together = state(shared)
    assert len(together["notes"]) == 5 + 2 * HALF
    assert together == state(alone)


@pytest.fixture
def pg_indexed(vault, cli, fake_embedder, pg_store_url, monkeypatch):
    """A small index on PostgreSQL with an archived version."""
    monkeypatch.setenv("SMARTVEC_STORE", pg_store_url)
    index_six_notes_and_an_edit(vault, cli)
    fake_embedder.embedded.clear()
    return pg_store_url


PG_CHECKS = [
    "database",
    "schema",
    "model",
    "model_files",
    "vectors",
    "orphans",
    "lexical",
    "ann_index",
    "leftovers",
    "notes",
    "access",
    "locks",
]


def doctor(cli, *args, expect):
    result = cli("doctor", "--json", *args)
    assert result.exit_code == expect, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    assert [c["name"] for c in report["checks"]] == PG_CHECKS
    return {c["name"]: c for c in report["checks"]}


def run_sql(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def test_doctor_checks_a_postgres_store_and_repairs_its_search_indexes(pg_indexed, cli, fake_embedder):
    checks = doctor(cli, expect=0)
    assert (
        checks["database"]["detail"].startswith("PostgreSQL at postgresql://")
        and "pgvector installed" in checks["database"]["detail"]
    )
    from smartvec_cli.store.postgres.database import MIGRATIONS

    assert checks["schema"]["detail"] == f"all {len(MIGRATIONS)} migrations applied"
    assert checks["ann_index"]["detail"] == "pgvector HNSW index serves 13 passages"

    run_sql(
        pg_indexed,
        "DROP INDEX idx_embeddings_hnsw_384",
        "DELETE FROM passages_fts WHERE id IN (SELECT min(id) FROM chunks)",
        "UPDATE passages_fts SET text = 'stale' WHERE id = (SELECT max(id) FROM chunks)",
    )
    checks = doctor(cli, expect=1)
    assert sorted(n for n, c in checks.items() if not c["ok"]) == ["ann_index", "lexical"]
    assert checks["lexical"]["detail"] == "full-text index out of step: 1 passages missing, 1 entries with old text"
    checks = doctor(cli, "--repair", expect=0)
    assert sorted(n for n, c in checks.items() if c["repaired"]) == ["ann_index", "lexical"]
    assert fake_embedder.embedded == []
    assert not [c for c in doctor(cli, expect=0).values() if not c["ok"]]
    assert cli.json("query", "plums", "--json", "--no-track")[0]["chunk_id"].startswith("n0")


def test_a_writer_on_another_machine_holds_the_lock_in_the_database(pg_indexed, cli, vault):
    from smartvec_cli.store.postgres.lock import AdvisoryLock

    other = AdvisoryLock.writer(pg_indexed, "smartvec index --full").acquire(0)
    try:
        checks = doctor(cli, expect=0)
        assert checks["locks"]["detail"].startswith("writer lock held by pid ")
        assert "(index --full)" in checks["locks"]["detail"]
        write(vault, "n9.md", "# N9\n\nA new note.\n")
        result = cli("index", "--wait", "0.3")
        assert result.exit_code == 1
        assert re.match(
            r"error: pid \d+ \(index --full\) since \S+ holds the writer lock of postgresql://postgres@/", result.stderr
        )
        assert len(result.stderr.strip().splitlines()) == 1
    finally:
        other.release()
    assert cli.json("index", "--json")["notes_new"] == 1


def test_hnsw_search_in_the_database_finds_what_exact_search_finds(
    vault, cli, fake_embedder, pg_store_url, monkeypatch
):
    monkeypatch.setenv("SMARTVEC_STORE", pg_store_url)
    rng = random.Random(3)
    for i in range(120):
        write(vault, f"n{i:03d}.md", f"# N{i}\n\n{sentence(rng)} Item {i}.\n\n{sentence(rng)} Other {i}.\n")
    cli.json("index", "--json")
    with Workspace.resolve().open_store() as store:
        ann = store.load_ann()
        query = fake_embedder.embed(["item basket river"])[0]
        exact = ann.exact_search(query, 10)
        graph = ann.search(query, 10)
        every = dict(ann.exact_search(query, 10_000))
        assert all(
            abs(every[label] - similarity) < 1e-5 for label, similarity in graph
        )  # true cosines, of live passages
        assert np.allclose([s for _, s in graph], [s for _, s in exact], atol=1e-5)  # as good a top 10 (ties may swap)
        plan = "\n".join(
            r[0]
            for r in store.db.conn.execute(
                "EXPLAIN SELECT hash FROM embeddings WHERE vector_dims(vector) = 384 ORDER BY vector::vector(384) "
                "<=> %s LIMIT 20",
                [query],
            )
        )
        assert "idx_embeddings_hnsw_384" in plan


@both_stores
def test_status_and_errors_name_the_store(vault, cli, fake_embedder, store_backend):
    write(vault, "a.md", "# A\n\nApples.\n")
    assert cli("query", "apples").stderr.startswith("error: no index in ")
    cli.json("index", "--json")
    assert cli.json("status", "--json")["notes"] == 1


def test_a_bad_or_unreachable_store_is_one_clear_line(vault, cli, tmp_path):
    result = cli("--store", "mysql://db/x", "status")
    assert (
        result.exit_code == 2
        and result.stderr.strip() == "error: --store must be a postgresql:// URL, not 'mysql://db/x'"
    )
    unreachable = f"postgresql://nobody:secret@/nothing?host={tmp_path}"
    result = cli("--store", unreachable, "index")
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(
        f"error: cannot connect to the store postgresql://nobody@/nothing?host={tmp_path}: "
    )
    assert "secret" not in result.stderr


def test_sqlite_runs_never_import_the_postgres_client(sample_vault):
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from smartvec_cli.cli.main import run; sys.argv = ['smartvec', '--help']\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('psycopg', 'pgvector', 'pgserver') if m in sys.modules), file=sys.stderr)",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr.strip().splitlines()[-1] == "[]"
    result = cli_process("status", "--json")
    assert result.exit_code == 1 and "no index" in result.stderr
    assert "sqlite_utils" in result.heavy and "psycopg" not in result.heavy and "pgvector" not in result.heavy


@both_stores
def test_full_text_signals_agree_on_both_stores(vault, cli, fake_embedder, store_backend):
    """The lexical statements PostgreSQL answers with tsvector: what FTS5 answers on SQLite."""
    write(
        vault, "a.md", "# Billing runbook\n\nError ERR-4012 means the invoices queue is stuck; restart the workers.\n"
    )
    write(vault, "b.md", "# Travel\n\nThe per diem is 60 euros, and the queue for visas is long.\n")
    cli.json("index", "--json")
    with Workspace.resolve().open_store() as store:
        assert store.unknown_terms(["invoices", "billing", "zebrafish"]) == frozenset({"zebrafish"})
        assert [store.passages([i])[i].path for i, _ in store.lexical_matches(LexicalQuery(("err", "4012")), 5)] == [
            "a.md"
        ]
        ids = sorted(store.live_passage_ids())
        frequency = store.term_frequencies(["queue", "restarting", "runbook"], cap=10)
        assert (len(ids), frequency["queue"], frequency["restarting"], frequency["runbook"]) == (
            2,
            2,
            1,
            0,
        )  # stems; text only
        assert store.term_frequencies(["queue"], cap=0) == {"queue": 1}  # counted only up to the cap + 1
        holders = store.term_holders(["queue", "restarting"], ids)
        assert holders["queue"] == set(ids) and len(holders["restarting"]) == 1
        a_id = next(i for i in ids if store.passages([i])[i].path == "a.md")
        assert store.body_neighbours(a_id, LexicalQuery(("queue",)), 5) == [i for i in ids if i != a_id]


def test_two_machines_index_query_and_consolidate_one_store_at_once_without_lost_or_double_rows(tmp_path, pg_databases):
    """Two team members' machines: two ``smartvec`` processes, each with its own checkout of the vault and its
    own index folder, index, ask and consolidate against one PostgreSQL store at the same time. The store ends
    as one machine doing it all alone leaves it: every note once, every passage version once, nothing lost."""
    import shutil

    from fake_backend import subprocess_env, use_fake_backend

    source = tmp_path / "vault"
    team_vault(source, random.Random(11))
    url = pg_databases()
    env = dict(subprocess_env(), SMARTVEC_NOW=NOW)

    def machine(name: str, store: str) -> subprocess.Popen:
        checkout, index = tmp_path / f"checkout-{name}", tmp_path / f"index-{name}"
        shutil.copytree(source, checkout)
        use_fake_backend(index)
        smartvec = [sys.executable, "-m", "smartvec_cli", "--vault", str(checkout), "--index-dir", str(index)]
        steps = [
            [*smartvec, "--store", store, "index", "--json", "--wait", "300"],
            *([*smartvec, "--store", store, "query", f"mark a{i} part", "--json"] for i in range(3)),
            [*smartvec, "--store", store, "consolidate", "--json", "--wait", "300"],
            [*smartvec, "--store", store, "query", "mark b7 part 1", "--json"],
        ]
        script = "import subprocess, sys\nfor step in %r:\n    subprocess.run(step, check=True)\n" % steps
        return subprocess.Popen(
            [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    machines = [machine(name, url) for name in ("ana", "ben")]
    outputs = [m.communicate(timeout=600) for m in machines]
    for process, (out, err) in zip(machines, outputs, strict=True):
        assert process.returncode == 0, err
        answers = [json.loads(line) for line in out.splitlines() if line.startswith("[")]
        assert len(answers) == 4 and all(answers), "every question was answered"
    shared = Workspace.resolve(tmp_path / "checkout-ana", tmp_path / "index-ana", NOW, url)
    with shared.open_store() as store:
        doubles = store.db.execute(
            "SELECT note, chunk_id, version, COUNT(*) FROM chunks GROUP BY note, chunk_id, version HAVING COUNT(*) > 1"
        ).fetchall()
        assert doubles == []
        assert store.db.execute("SELECT COUNT(*), COUNT(DISTINCT path) FROM notes").fetchone() == (5 + 2 * HALF,) * 2
    alone_url = pg_databases()
    alone = machine("alone", alone_url)
    _, err = alone.communicate(timeout=600)
    assert alone.returncode == 0, err
    by_one = state(Workspace.resolve(tmp_path / "checkout-alone", tmp_path / "index-alone", NOW, alone_url))
    assert state(shared) == by_one
