"""One writer at a time: a bounded wait with a message naming the holder, and stale locks taken over."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import REPO, write
from fake_backend import subprocess_env

from smartvec_cli.store.lock import FileLock, LockBusyError

HOLD = """
import sys, time
from smartvec_cli.store.lock import FileLock
FileLock.writer(sys.argv[1], sys.argv[2]).acquire(0)
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def holder(tmp_path):
    """Start a separate process that takes the writer lock of an index folder and keeps it."""
    started = []

    def start(index_dir, command="smartvec index"):
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(index_dir), command],
            cwd=REPO,
            env=subprocess_env(),
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        assert proc.stdout.readline().strip() == "held"
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_refresh_waits_then_names_the_holder(vault, tmp_path, cli, fake_embedder, holder):
    write(vault, "a.md", "# A\n\nSome text.\n")
    proc = holder(tmp_path / "index", "smartvec index --full")
    started = time.monotonic()
    result = cli("refresh", "--nightly", "--wait", "1")
    waited = time.monotonic() - started
    assert result.exit_code == 1
    assert 1.0 <= waited < 5
    line = result.stderr.strip()
    assert "\n" not in line
    assert f"pid {proc.pid} (smartvec index --full) since " in line
    assert "gave up after waiting 1s" in line and "--wait SECONDS" in line
    assert result.stdout == "" and fake_embedder.embedded == []


def test_index_takes_the_same_lock(vault, tmp_path, cli, fake_embedder, holder):
    write(vault, "a.md", "# A\n\nSome text.\n")
    proc = holder(tmp_path / "index", "smartvec refresh --nightly")
    result = cli("index", "--wait", "0.2")
    assert result.exit_code == 1 and f"pid {proc.pid} (smartvec refresh --nightly)" in result.stderr
    proc.kill()
    proc.wait()
    assert cli("index", "--wait", "0").exit_code == 0


def test_a_killed_writer_leaves_a_stale_lock_that_the_next_run_takes_over(vault, tmp_path, cli, fake_embedder, holder):
    write(vault, "a.md", "# A\n\nSome text.\n")
    lock_file = tmp_path / "index" / "writer.lock"
    proc = holder(tmp_path / "index", "smartvec index")
    assert json.loads(lock_file.read_text())["pid"] == proc.pid
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert json.loads(lock_file.read_text())["pid"] == proc.pid  # the dead writer's info is still there

    started = time.monotonic()
    result = cli("refresh", "--nightly", "--wait", "5")
    assert result.exit_code == 0, result.stderr
    assert time.monotonic() - started < 3
    assert (
        f"warning: took over the writer lock of {tmp_path / 'index'} left by pid {proc.pid} (smartvec index)"
        in result.stderr
    )
    assert "which is no longer running" in result.stderr
    assert lock_file.read_text() == ""  # released cleanly this time
    assert cli("refresh", "--nightly").stderr == ""  # and nothing left to take over


def test_holder_info_is_written_and_cleared(tmp_path):
    lock = FileLock.writer(tmp_path, "smartvec refresh --nightly").acquire(0)
    info = lock.holder()
    assert info.pid == os.getpid() and info.command == "smartvec refresh --nightly" and info.since.endswith("Z")
    assert lock.taken_over is None
    lock.release()
    assert lock.holder() is None and (tmp_path / "writer.lock").read_text() == ""
    with FileLock.writer(tmp_path, "again") as again:
        assert again.held and again.takeover_notice() is None
    assert not again.held


def test_a_second_lock_in_the_same_process_conflicts_and_gives_up_at_once(tmp_path):
    with FileLock.writer(tmp_path, "smartvec watch"):
        started = time.monotonic()
        with pytest.raises(LockBusyError) as caught:
            FileLock.writer(tmp_path, "smartvec index").acquire(0)
        assert time.monotonic() - started < 0.5
    assert caught.value.holder.pid == os.getpid()
    assert f"pid {os.getpid()} (smartvec watch) since" in str(caught.value)


def test_recorded_holder_that_no_longer_exists(tmp_path):
    """Free lock + dead pid: taken over with a notice. Held lock + dead pid: the message says so."""
    pid = dead_pid()
    info = json.dumps({"pid": pid, "command": "smartvec index", "since": "2026-01-01T00:00:00Z"})
    (tmp_path / "writer.lock").write_text(info)
    lock = FileLock.writer(tmp_path, "smartvec refresh --nightly").acquire(0)
    assert lock.taken_over.pid == pid
    assert lock.takeover_notice().endswith(
        f"left by pid {pid} (smartvec index) since 2026-01-01T00:00:00Z, which is no longer running"
    )
    lock.release()

    import fcntl

    fd = os.open(tmp_path / "writer.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, info.encode())
        with pytest.raises(LockBusyError) as caught:
            FileLock.writer(tmp_path, "smartvec index").acquire(0.2)
    finally:
        os.close(fd)
    assert f"the recorded holder, pid {pid} (smartvec index) since 2026-01-01T00:00:00Z, is no longer running" in str(
        caught.value
    )
