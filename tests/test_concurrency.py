"""Queries in a loop while ``index``, ``consolidate`` and ``refresh`` write: none fails, none sees half a write,
and the writers, started all at once, never run at the same time.

Writers are real subprocesses started together, each round, on a vault rewritten between
rounds; they log when their work starts and ends (CLOCK_MONOTONIC is one clock for every
process). Readers run meanwhile: ``query`` subprocesses (the real command, counting
accesses, so readers write too), and in-process readers that pin one SQLite snapshot per
question and check what the question saw against it: the vector index holds exactly the
passages of that snapshot, every hit is live in it, and every note appears in one version.
"""

import json
import random
import re
import subprocess
import sys
import threading
import time

from conftest import REPO, FakeEmbedder, both_stores
from fake_backend import subprocess_env, use_fake_backend
from test_watch import assert_consistent
from vaultgen import sentence

from smartvec_cli.core.search import SearchOptions, search
from smartvec_cli.core.workspace import Workspace
from smartvec_cli.store.store import Store

NOTES = 150
ROUNDS = 2

LOGGING_WRITER = """
import json, os, sys, time
from smartvec_cli.core.consolidate import Consolidator
from smartvec_cli.core.indexer import Indexer

def logged(cls, name):
    work = cls.run
    def run(self, *args, **kwargs):
        started = time.monotonic()
        try:
            return work(self, *args, **kwargs)
        finally:
            with open(os.environ["WRITER_LOG"], "a") as log:
                log.write(json.dumps([name, os.getpid(), started, time.monotonic()]) + "\\n")
    cls.run = run

logged(Indexer, "index")
logged(Consolidator, "consolidate")
from smartvec_cli.cli.app import run
sys.argv = ["smartvec", *sys.argv[1:]]
run()
"""


def write_round(vault, rnd: int, rng: random.Random) -> None:
    """Every note rewritten in a round carries the round's mark in each of its passages."""
    chosen = range(NOTES) if rnd == 0 else rng.sample(range(NOTES), NOTES // 3)
    for i in chosen:
        paragraphs = [f"{sentence(rng)} Mark n{i}r{rnd} in part {p}." for p in range(3)]
        (vault / f"note {i:03d}.md").write_text(f"# Note {i}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    if rnd:
        for i in rng.sample(range(NOTES), 3):
            (vault / f"note {i:03d}.md").unlink(missing_ok=True)


class Readers:
    """Reader threads that record every failure instead of raising, so the writers are never disturbed."""

    def __init__(self, vault, index_dir, env):
        self.vault, self.index_dir, self.env = vault, index_dir, env
        self.stop = threading.Event()
        self.failures: list[str] = []
        self.answered = {"cli": 0, "snapshot": 0, "tracked": 0}
        loops = (self.cli_loop, self.snapshot_loop, self.tracked_loop, self.tracked_loop)
        self.threads = [threading.Thread(target=loop, args=(n,)) for n, loop in enumerate(loops)]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def cli_loop(self, seed):
        rng = random.Random(seed)
        while not self.stop.is_set():
            question = f"mark n{rng.randrange(NOTES)} part"
            done = subprocess.run(
                [sys.executable, "-m", "smartvec_cli", "query", question, "--json", "-k", "5"],
                env=self.env,
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=60,
            )
            if done.returncode != 0 or done.stderr:
                self.failures.append(f"query {question!r}: exit {done.returncode}: {done.stderr.strip()}")
            else:
                json.loads(done.stdout)
                self.answered["cli"] += 1

    def snapshot_loop(self, seed):
        rng = random.Random(seed)
        embedder = FakeEmbedder()
        ws = Workspace.resolve(self.vault, self.index_dir)
        while not self.stop.is_set():
            i = rng.randrange(NOTES)
            try:
                self.failures.extend(self.one_snapshot(ws, embedder, i))
                self.answered["snapshot"] += 1
            except Exception as exc:  # noqa: BLE001 - any exception is a failed query
                self.failures.append(f"snapshot query: {type(exc).__name__}: {exc}")

    def tracked_loop(self, seed):
        """Questions as fast as they come, each counting its accesses: a reader that writes, often."""
        from smartvec_cli.core.query import QueryEngine, Question

        rng = random.Random(seed)
        ws = Workspace.resolve(self.vault, self.index_dir)
        while not self.stop.is_set():
            try:
                with ws.open_store() as store:
                    answer = QueryEngine(ws, store, FakeEmbedder).ask(
                        Question(f"mark n{rng.randrange(NOTES)}"), SearchOptions(top_k=3)
                    )
                    if store.notices:
                        self.failures.append(f"notices: {store.notices}")
                self.answered["tracked"] += len(answer.hits) > 0
            except Exception as exc:  # noqa: BLE001 - any exception is a failed query
                self.failures.append(f"tracked query: {type(exc).__name__}: {exc}")

    def one_snapshot(self, ws, embedder, i) -> list[str]:
        problems = []
        store = ws.open_store()
        try:
            store.db.conn.execute("BEGIN" if ws.backend.url is None else "BEGIN ISOLATION LEVEL REPEATABLE READ")
            store.db.execute("SELECT COUNT(*) FROM meta").fetchone()  # the snapshot starts here
            ann = store.load_ann()
            if store.notices:
                problems.append(f"notices: {store.notices}")
            expected = store.ann_expected_labels()
            if ann.live != expected:
                problems.append(
                    f"vector index holds {len(ann.live - expected)} extra, misses {len(expected - ann.live)}"
                )
            text = f"mark n{i} part"
            vector = embedder.embed([text])[0]
            hits, _ = search(
                store,
                ws.config,
                vector,
                text,
                SearchOptions(top_k=30, record_access=False, include_archived=True),
                ws.clock.now(),
            )
            live = {r[0] for r in store.db.execute("SELECT id FROM chunks WHERE state != 'DELETED'")}
            problems += [f"hit {h.chunk_id} is not live" for h in hits if h.row_id not in live]
            for note_id in {h.note_id for h in hits}:
                texts = [
                    r[0]
                    for r in store.db.execute(
                        "SELECT c.text FROM chunks c JOIN notes n ON n.id = c.note WHERE n.note_id = ? AND c.current "
                        "= 1 AND c.state != 'DELETED'",
                        [note_id],
                    )
                ]
                marks = {m for t in texts for m in re.findall(r"n\d+r\d+", t)}
                if len(marks) > 1:
                    problems.append(f"{note_id} is half written: {sorted(marks)}")
            store.db.conn.execute("COMMIT")
        finally:
            store.close()
        return problems


@both_stores
def test_queries_never_fail_or_see_half_a_write_and_writers_take_turns(tmp_path, store_backend):
    rng = random.Random(5)
    vault = tmp_path / "vault"
    vault.mkdir()
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    log = tmp_path / "writers.log"
    env = dict(subprocess_env(), SMARTVEC_VAULT=str(vault), SMARTVEC_INDEX=str(index_dir), WRITER_LOG=str(log))
    env.pop("SMARTVEC_NOW", None)

    def writers(*commands):
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", LOGGING_WRITER, *command, "--wait", "120"],
                env=env,
                cwd=REPO,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for command in commands
        ]
        return [(p.wait(timeout=180), p.stderr.read()) for p in procs]

    write_round(vault, 0, rng)
    first = writers(["index"])
    assert [code for code, _ in first] == [0], first[0][1][-2000:]
    with Readers(vault, index_dir, env) as readers:
        for rnd in range(1, ROUNDS + 1):
            write_round(vault, rnd, rng)
            results = writers(["index"], ["consolidate"], ["refresh", "--nightly"], ["index"])
            assert [code for code, _ in results] == [0, 0, 0, 0], results
            assert not [err for _, err in results if "error:" in err or "warning:" in err or "Traceback" in err], (
                results
            )
        time.sleep(0.5)

    assert readers.failures == []
    assert readers.answered["cli"] >= 3 and readers.answered["snapshot"] >= 20, readers.answered
    spans = sorted(tuple(json.loads(line)) for line in log.read_text().splitlines())
    spans = sorted(spans, key=lambda s: s[2])
    assert len(spans) == 1 + ROUNDS * 5  # refresh --nightly indexes and consolidates
    for before, after in zip(spans, spans[1:], strict=False):
        assert before[3] <= after[2], f"{before[:2]} and {after[:2]} wrote at the same time"
    if store_backend == "sqlite":
        assert_consistent(index_dir)  # PostgreSQL has no ANN file: its vectors are the rows the readers checked


def test_a_reader_that_writes_between_a_writers_read_and_its_write_never_fails_the_writer(
    vault, cli, fake_embedder, monkeypatch
):
    """A deferred transaction that read first fails at once ("database is locked") if another
    connection commits before it writes; writers begin IMMEDIATE, so the reader waits instead."""
    import sqlite3

    from conftest import write

    write(vault, "a.md", "# A\n\nApples grow on trees in the orchard.\n")
    cli.json("index", "--json")
    write(vault, "b.md", "# B\n\nSubmarines dive under the ocean waves.\n")
    reader = sqlite3.connect(vault.parent / "index" / "smartvec.db", timeout=0.2, isolation_level=None)
    interleaved = []
    original = Store.get_meta

    def get_meta(self, key, default=None):
        value = original(self, key, default)
        if self.db.conn.in_transaction:
            try:
                reader.execute("UPDATE chunks SET access_count = access_count + 1")
                interleaved.append("reader wrote inside the writer's transaction")
            except sqlite3.OperationalError:
                interleaved.append("reader waited")
        return value

    monkeypatch.setattr(Store, "get_meta", get_meta)
    result = cli("index", "--json")
    reader.close()
    assert result.exit_code == 0, result.stderr
    assert interleaved and set(interleaved) == {"reader waited"}
