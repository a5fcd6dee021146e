"""SIGKILL during ``index`` never corrupts the index, loses feedback or history, or changes the outcome.

The run under test is a real ``python -m smartvec_cli index`` subprocess (the fake
embedder through ``config.toml``, real SQLite, hnswlib and files), killed with SIGKILL
at several points of a large run: while starting, early, midway, and once every note is
written (links, deletions and the vector-index save still to do). The points are found by
watching the database grow, with seeded jitter; once midway it is a Ctrl-C (SIGINT) instead,
which must stop it cleanly with exit code 130. After the last kill one more ``index``
and ``doctor`` must leave exactly what one uninterrupted run leaves on a copy.
"""

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import REPO
from fake_backend import subprocess_env, use_fake_backend
from test_watch import assert_consistent
from vaultgen import copy_tree, index_state, make_vault, mutate

from smartvec_cli.store.sqlite import SqliteStore

NOW_SETUP = "2025-01-10T09:00:00Z"
NOW_EDIT = "2025-02-01T09:00:00Z"
NOW_CRASH = "2025-03-01T09:00:00Z"
NOTES = 400


def smartvec(vault, index_dir, *args, now=NOW_CRASH):
    env = dict(subprocess_env(), SMARTVEC_VAULT=str(vault), SMARTVEC_INDEX=str(index_dir), SMARTVEC_NOW=now)
    return [sys.executable, "-m", "smartvec_cli", *args], env


def run(vault, index_dir, *args, now=NOW_CRASH, expect=0):
    argv, env = smartvec(vault, index_dir, *args, now=now)
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert expect is None or done.returncode == expect, (args, done.returncode, done.stderr)
    return done


def written_at(index_dir, now) -> int:
    """Notes the run stamped so far, read without disturbing the writer (WAL readers never block it)."""
    try:
        conn = sqlite3.connect(f"file:{index_dir / 'smartvec.db'}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM notes WHERE updated_at = ?", [now]).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def answer_ctrl_c() -> None:
    """In the child: SIGINT back to its default. A suite started in the background (``make test &``,
    ``nohup``) ignores SIGINT, and an ignored signal stays ignored across ``exec``: the run would never
    see the Ctrl-C this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def kill_index_when(vault, index_dir, ready, rng, sig=signal.SIGKILL) -> str:
    """Start ``index``, send ``sig`` once ``ready()`` holds (plus a little seeded jitter); how it ended."""
    argv, env = smartvec(vault, index_dir, "index", "--json")
    proc = subprocess.Popen(
        argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=answer_ctrl_c
    )
    t0 = time.monotonic()
    deadline = time.monotonic() + 60
    while proc.poll() is None and not ready() and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(rng.uniform(0, 0.02))
    if proc.poll() is not None:
        proc.communicate()
        return f"finished ({proc.returncode})"
    written_when_signalled, signalled_after = written_at(index_dir, NOW_CRASH), time.monotonic() - t0
    proc.send_signal(sig)
    out, stderr = proc.communicate(timeout=30)
    if sig == signal.SIGINT:  # Ctrl-C: a clean stop, saying so in one line
        assert proc.returncode == 130, (
            signal.getsignal(signal.SIGINT),
            sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
            written_when_signalled,
            round(signalled_after, 2),
            round(time.monotonic() - t0, 2),
            stderr,
            out[-300:],
        )
        assert (
            stderr.strip().splitlines()[-1]
            == "error: interrupted; everything committed before the interruption is kept"
        )
        return "interrupted"
    return "killed"


def preserved(index_dir) -> tuple[set, set]:
    """Feedback events and archived old versions (text edited away, or of a deleted note), as they must outlive
    any crash; by row, since a passage's id follows its note when the note is renamed."""
    with SqliteStore.open(index_dir) as store:
        events = {(r[0], r[1]) for r in store.db.execute("SELECT kind, data FROM events WHERE kind = 'feedback'")}
        archived = {
            tuple(r) for r in store.db.execute("SELECT id, version, hash, valid_until FROM chunks WHERE current = 0")
        }
    return events, archived


def test_sigkill_during_index_loses_nothing_and_converges(tmp_path):
    rng = random.Random(8)
    vault = make_vault(tmp_path / "vault", NOTES, seed=1)
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)

    # history worth keeping: edited passages (archived versions), consolidation, feedback, a correction
    run(vault, index_dir, "index", now=NOW_SETUP)
    mutate(vault, NOTES, seed=2, added=0, edited=30, deleted=0, renamed=0)
    run(vault, index_dir, "index", now=NOW_EDIT)
    run(vault, index_dir, "consolidate", now=NOW_EDIT)
    with SqliteStore.open(index_dir) as store:
        picks = [
            r[0]
            for r in store.db.execute("SELECT chunk_id FROM chunks WHERE state = 'ACTIVE' ORDER BY chunk_id LIMIT 3")
        ]
    run(vault, index_dir, "feedback", picks[0], "--up", now=NOW_EDIT)
    run(vault, index_dir, "feedback", picks[1], "--down", now=NOW_EDIT)
    run(vault, index_dir, "feedback", picks[2], "--correct", "The corrected figure is 42.", now=NOW_EDIT)
    events_before, archived_before = preserved(index_dir)
    assert len(events_before) == 3 and len(archived_before) >= 30

    # a large run: new notes, edits, deletions, renames
    mutate(vault, NOTES, seed=3, added=250, edited=80, deleted=20, renamed=10)
    control = copy_tree(index_dir, tmp_path / "control")
    run(vault, control, "index")
    total = written_at(control, NOW_CRASH)
    assert total >= 300

    outcomes = [kill_index_when(vault, index_dir, lambda: rng.random() < 0.02, rng)]  # while starting up
    for fraction, sig in ((0.1, signal.SIGKILL), (0.3, signal.SIGINT), (0.5, signal.SIGKILL), (1.0, signal.SIGKILL)):
        # a share of what is left: a run interrupted "midway" still has work to do when the signal comes
        done = written_at(index_dir, NOW_CRASH)
        target = done + int((total - done) * fraction)
        outcomes.append(
            kill_index_when(
                vault, index_dir, lambda target=target: written_at(index_dir, NOW_CRASH) >= target, rng, sig
            )
        )
        events, archived = preserved(index_dir)
        assert events_before <= events and archived_before <= archived
    assert outcomes.count("killed") >= 3 and "interrupted" in outcomes, outcomes

    after_crash = run(vault, index_dir, "doctor", "--json", expect=None)
    checks = {c["name"]: c for c in json.loads(after_crash.stdout)["checks"]}
    assert {name for name, c in checks.items() if not c["ok"]} <= {"ann_sync", "locks", "leftovers"}, checks
    if outcomes[-1] == "killed":
        assert "no longer running" in checks["locks"]["detail"]  # it died holding the writer lock

    run(vault, index_dir, "index")
    doctor = json.loads(run(vault, index_dir, "doctor", "--json").stdout)
    assert doctor["ok"], doctor
    assert_consistent(index_dir)
    assert preserved(index_dir) == preserved(control)
    final, expected = index_state(index_dir), index_state(control)
    for part in expected:
        assert final[part] == expected[part], part
