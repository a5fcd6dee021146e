"""``watch``: changes reach query results within seconds; queries are answered over the daemon's socket."""

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO, FakeEmbedder, cli_process, write
from fake_backend import subprocess_env, use_fake_backend

from smartvec_cli.core.results import QueryRequest
from smartvec_cli.core.workspace import Workspace
from smartvec_cli.daemon.query_socket import QueryServer, QueryService, SharedEmbedder, ask_daemon, socket_path
from smartvec_cli.daemon.watch import Debouncer, Watcher, vault_path_of
from smartvec_cli.embed.select import select_embedder
from smartvec_cli.errors import ModelMismatchError, SmartvecError, UsageError
from smartvec_cli.store.ann import HnswIndex
from smartvec_cli.store.layout import WATCH_LOCK_FILE
from smartvec_cli.store.lock import FileLock
from smartvec_cli.store.sqlite import SqliteStore


def eventually(check, timeout=60.0, what="condition"):
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds (generous: a liveness
    wait, which returns as soon as the daemon has caught up, must not fail on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def top_paths(index_dir: Path, text: str, k: int = 3) -> list[str] | None:
    answer = ask_daemon(index_dir, text, QueryRequest(top_k=k, track=False).to_json())
    return None if answer is None else [h["path"] for h in answer["hits"] if h["explain"]["cosine"] > 0.2]


def assert_consistent(index_dir: Path) -> None:
    """The saved ANN file alone (no catching up) holds exactly the live passages, at the database's generation."""
    with SqliteStore.open(index_dir) as store:
        expected = store.ann_expected_labels()
        generation = store.generation
        saved = HnswIndex(index_dir, store.dim)
        assert saved.load()
        assert saved.generation == generation
        assert saved.live == expected


# -- the daemon, end to end -------------------------------------------------------------------


def test_watch_end_to_end(vault, tmp_path, cli):
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    write(vault, "zebra.md", "# Zebra\n\nThe zebra quantum note was written before the daemon started.\n")
    errors = tmp_path / "watch.err"
    with open(errors, "w") as err, open(tmp_path / "watch.out", "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "smartvec_cli", "watch", "--debounce", "0.2"],
            cwd=REPO,
            env=subprocess_env(),
            stdout=out,
            stderr=err,
        )
    try:
        # catch-up: a note written while no daemon ran
        assert eventually(lambda: top_paths(index_dir, "zebra quantum") == ["zebra.md"], what="catch-up")
        assert stat.S_IMODE(os.stat(socket_path(index_dir)).st_mode) == 0o600

        write(vault, "giraffe.md", "# Giraffe\n\nGiraffe mango report for the savanna team.\n")
        eventually(lambda: top_paths(index_dir, "giraffe mango") == ["giraffe.md"], what="create")

        write(vault, "giraffe.md", "# Giraffe\n\nGiraffe papaya report for the savanna team.\n")
        eventually(
            lambda: (
                "papaya"
                in (
                    (ask_daemon(index_dir, "giraffe papaya", {"top_k": 1}) or {"hits": [{"text": ""}]})["hits"][0][
                        "text"
                    ]
                )
            ),
            what="edit",
        )

        (vault / "animals").mkdir()
        (vault / "giraffe.md").rename(vault / "animals" / "tall giraffe.md")
        eventually(lambda: top_paths(index_dir, "giraffe papaya") == ["animals/tall giraffe.md"], what="rename")

        # editors' temp files and hidden folders are ignored; a broken note is logged and skipped
        write(vault, ".tall giraffe.md.swp", "giraffe giraffe")
        write(vault, "animals/tall giraffe.md~", "giraffe backup")
        write(vault, ".obsidian/workspace.md", "giraffe workspace")
        (vault / "broken.md").write_bytes(b"\x00\x01 not a note")
        eventually(lambda: "warning: broken.md: binary file" in errors.read_text(), what="the broken note's warning")

        (vault / "animals" / "tall giraffe.md").unlink()
        eventually(lambda: top_paths(index_dir, "giraffe papaya") == [], what="delete")
        assert top_paths(index_dir, "zebra quantum") == ["zebra.md"]  # the daemon is still fine
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=15)
    log = errors.read_text()
    assert code == 0, log
    assert (tmp_path / "watch.out").read_text() == ""
    assert "stopped" in log.splitlines()[-1] and "Traceback" not in log
    assert not socket_path(index_dir).exists()
    assert (index_dir / "writer.lock").read_text() == "" and (index_dir / WATCH_LOCK_FILE).read_text() == ""

    status = cli.json("status", "--json")
    assert status["ann"]["in_sync"] and status["notes"] == 1
    assert_consistent(index_dir)
    with SqliteStore.open(index_dir) as store:
        paths = {r[0] for r in store.db.execute("SELECT path FROM notes WHERE deleted_at IS NULL")}
    assert paths == {"zebra.md"}


def test_sigint_stops_the_daemon_cleanly(vault, tmp_path):
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    proc = subprocess.Popen(
        [sys.executable, "-m", "smartvec_cli", "watch"],
        cwd=REPO,
        env=subprocess_env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        eventually(lambda: top_paths(index_dir, "anything") is not None, what="the daemon")
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


# -- the daemon, in process -------------------------------------------------------------------


class Daemon:
    """A Watcher running in a thread of the test process."""

    def __init__(self, embedder, debounce=0.1):
        self.lines: list[str] = []
        self.watcher = Watcher(Workspace.resolve(), embedder, debounce=debounce, lock_wait=5, log=self.lines.append)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            self.watcher.run()
        except BaseException as exc:
            self.error = exc

    def __enter__(self):
        self.thread.start()
        eventually(lambda: self.watcher.ready or self.error, what="the daemon to start")
        return self

    def __exit__(self, *exc):
        self.watcher.request_stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


def test_own_writes_and_ignored_files_do_not_wake_the_daemon(vault, tmp_path, monkeypatch, fake_embedder):
    monkeypatch.setenv("SMARTVEC_INDEX", str(vault / ".smartvec"))  # the index inside the vault, as by default
    write(vault, "a.md", "# A\n\nText.\n")
    with Daemon(fake_embedder) as daemon:
        assert daemon.watcher.batches == 1
        write(vault, "notes.md.tmp", "x")
        write(vault, ".hidden.md", "x")
        write(vault, ".obsidian/workspace.md", "x")
        (vault / "picture.png").write_bytes(b"png")
        time.sleep(0.6)  # several debounce periods: long enough for a batch to have started
        assert daemon.watcher.batches == 1, daemon.lines
        write(vault, "b.md", "# B\n\nMore.\n")
        eventually(lambda: daemon.watcher.batches == 2, what="a batch for b.md")


def test_a_burst_of_writes_is_one_batch(vault, fake_embedder):
    with Daemon(fake_embedder, debounce=0.3) as daemon:
        for i in range(5):
            write(vault, f"n{i}.md", f"# N{i}\n\nNote {i}.\n")
            time.sleep(0.02)
        eventually(lambda: daemon.watcher.batches == 2, what="one batch")
        time.sleep(0.5)
        assert daemon.watcher.batches == 2
        assert any(line.startswith("changes (n0.md, n1.md, n2.md, n3.md, n4.md): 5 new") for line in daemon.lines), (
            daemon.lines
        )


def test_a_batch_log_line_names_at_most_five_files():
    from smartvec_cli.daemon.watch import named

    assert named(set()) == ""
    assert named({"b.md", "a.md"}) == " (a.md, b.md)"
    assert named({f"n{i}.md" for i in range(8)}) == " (n0.md, n1.md, n2.md, n3.md, n4.md and 3 more)"


def test_a_failing_batch_is_logged_and_retried(vault, fake_embedder, monkeypatch):
    from smartvec_cli.core.indexer import Indexer
    from smartvec_cli.daemon import watch

    monkeypatch.setattr(watch, "RETRY_FIRST_SECONDS", 0.1)
    original = Indexer.run
    failures = []

    def flaky(self, *args, **kwargs):
        if not failures:
            failures.append(1)
            raise OSError("disk on fire")
        return original(self, *args, **kwargs)

    with Daemon(fake_embedder) as daemon:
        monkeypatch.setattr(Indexer, "run", flaky)
        write(vault, "a.md", "# A\n\nalpha words\n")
        eventually(lambda: failures and daemon.watcher.batches == 2, what="the retried batch")
        assert any("error: changes batch failed: disk on fire; retrying in 0.1s" in line for line in daemon.lines)
        assert top_paths(Workspace.resolve().index_dir, "alpha words") == ["a.md"]


def test_stop_waits_for_the_batch_in_flight(vault, fake_embedder):
    started = threading.Event()

    class Slow(FakeEmbedder):
        def embed(self, texts):
            if any("slowpoke" in t for t in texts):
                started.set()
                time.sleep(0.5)
            return super().embed(texts)

    daemon = Daemon(Slow()).__enter__()
    write(vault, "slow.md", "# Slow\n\nslowpoke passage\n")
    assert started.wait(5)
    daemon.watcher.request_stop()
    daemon.thread.join(timeout=10)
    assert daemon.watcher.batches == 2 and daemon.lines[-1] == "stopped"
    with SqliteStore.open(Workspace.resolve().index_dir) as store:
        assert store.db.execute("SELECT COUNT(*) FROM notes WHERE path = 'slow.md'").fetchone()[0] == 1
    assert_consistent(Workspace.resolve().index_dir)


def test_one_daemon_per_index(vault, tmp_path, fake_embedder):
    with FileLock(tmp_path / "index" / WATCH_LOCK_FILE, "smartvec watch"):
        with pytest.raises(
            SmartvecError,
            match=rf"a watch daemon already serves {tmp_path / 'index'}: pid {os.getpid()} \(smartvec watch\)",
        ):
            Watcher(Workspace.resolve(), fake_embedder).run()


def test_an_index_of_another_model_is_refused_at_start(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nText.\n")
    cli("index")
    with pytest.raises(ModelMismatchError, match="run 'smartvec index --full'"):
        Watcher(Workspace.resolve(), FakeEmbedder("other@2")).run()
    assert not socket_path(Workspace.resolve().index_dir).exists()


# -- query over the socket --------------------------------------------------------------------


@pytest.fixture
def served(vault, fake_embedder):
    """Start a query server on the index (no watcher); yields the list of requests it answered."""
    ws = Workspace.resolve()
    ws.index_dir.mkdir()  # as the daemon has it before it listens
    requests: list[dict] = []
    service = QueryService(ws, SharedEmbedder(fake_embedder), log=lambda line: None)
    server = QueryServer(
        socket_path(ws.index_dir), lambda r: requests.append(r) or service.answer(r), log=lambda line: None
    )

    def start():
        assert server.start()
        return requests

    yield start
    server.close()
    service.close()


NOTES = {
    "remote.md": (
        "# Remote work\n\nEmployees may work remotely three days per week.\n\n## Office\n\n"
        "The office is open on weekdays.\n"
    ),
    "travel.md": "# Travel\n\nThe per diem for travel is 40 euros per day.\n",
    "oncall.md": "# On-call\n\nOn-call engineers are paid a weekly stipend.\n",
}


def test_query_via_socket_returns_what_the_direct_path_returns(vault, cli, fake_embedder, served):
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli("index")
    batch = '{"id": 1, "query": "travel per diem"}\n{"id": "b", "query": "office weekdays"}\n'
    asks = [  # --no-track: an access would change the trust the second asking sees
        ("query", "how many remote days per week", "--json", "--no-track"),
        ("query", "how many remote days per week", "--no-track"),
        ("query", "paid stipend", "--top-k", "1", "--mode", "cosine", "--json", "--no-track"),
        ("--now", "2024-05-01", "query", "office", "--include-archived", "--json", "--explain", "--no-track"),
        ("query", "remote days back in 2023", "--json", "--no-track"),
    ]
    direct = [cli(*args) for args in asks] + [cli("query", "--batch", "-", "--no-track", input=batch)]
    requests = served()
    via_socket = [cli(*args) for args in asks] + [cli("query", "--batch", "-", "--no-track", input=batch)]
    assert len(requests) == len(asks) + 2  # every question went to the daemon
    for before, after in zip(direct, via_socket, strict=False):
        assert (after.exit_code, after.stdout, after.stderr) == (before.exit_code, before.stdout, before.stderr)
    assert json.loads(direct[0].stdout)[0]["path"] == "remote.md"
    assert requests[2]["options"] == {
        "top_k": 1,
        "mode": "cosine",
        "as_of": None,
        "include_archived": False,
        "include_dormant": False,
        "weights": None,
        "record_access": False,
    }
    assert requests[0]["now"] is None and requests[3]["now"] == "2024-05-01T00:00:00+00:00"


def test_query_processes_print_what_the_command_prints_with_a_daemon_and_without(
    vault, tmp_path, cli, fake_embedder, served
):
    """Fresh processes through the console script (plain lines take the shortcut, the batch the Typer
    command): the same output, errors and exit codes as the command run in process; answered by the
    daemon, they import neither numpy, onnxruntime, hnswlib nor sqlite_utils."""
    use_fake_backend(tmp_path / "index")  # the processes that answer by themselves embed with the fake too
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli("index")
    batch = '{"id": 1, "query": "travel per diem"}\n{"id": "b", "query": "office weekdays", "as_of": "2024-01-01"}\n'
    asks = [
        (("query", "how many remote days per week", "--json", "--no-track"), None),
        (("query", "how many remote days per week", "--no-track", "--explain"), None),
        (
            (
                "--now",
                "2024-05-01",
                "query",
                "office",
                "--as-of",
                "2023-01-01",
                "--weights",
                "semantic=1,temporal=0,confidence=0,relational=0",
                "--json",
                "--no-track",
            ),
            None,
        ),
        (("query", "--batch", "-", "--no-track"), batch),
        (("query", "office", "--mode", "psychic"), None),
        (("query", "office", "--as-of", "someday"), None),
        (("--vault", str(tmp_path / "nowhere"), "query", "office"), None),
    ]
    direct = [cli(*args, input=stdin) for args, stdin in asks]
    assert [r.exit_code for r in direct] == [0, 0, 0, 0, 2, 2, 2]
    assert direct[4].stderr == "error: mode must be one of smart, cosine, lexical\n"
    for number in (0, 1, 5, 6):  # no daemon: the process answers by itself
        alone = cli_process(*asks[number][0], input=asks[number][1])
        assert (alone.exit_code, alone.stdout, alone.stderr) == (
            direct[number].exit_code,
            direct[number].stdout,
            direct[number].stderr,
        )
    requests = served()
    for number, ((args, stdin), before) in enumerate(zip(asks, direct, strict=False)):
        after = cli_process(*args, input=stdin)
        assert (after.exit_code, after.stdout, after.stderr) == (before.exit_code, before.stdout, before.stderr), args
        assert after.heavy == [] or number == 6, args  # a missing vault is found missing by the core
    # every good question with a vault went to the daemon (the batch has two); a bad --mode or --as-of is refused
    # by the client, as the daemon would refuse it, before any daemon is asked
    assert len(requests) == 4 + 1
    assert [r["query"] for r in requests] == [
        *(["how many remote days per week"] * 2),
        "office",
        *("travel per diem", "office weekdays"),
    ]


def test_the_shortcut_reads_only_plain_query_lines_into_the_commands_request(monkeypatch):
    import typer

    from smartvec_cli.cli.app import app
    from smartvec_cli.cli.query_line import QUERY_FLAGS, QUERY_VALUES, QueryLine, parse_query_line
    from smartvec_cli.core.results import QueryRequest
    from smartvec_cli.errors import UsageError

    command = typer.main.get_command(app).commands["query"]
    named = {*QUERY_FLAGS.values(), *QUERY_VALUES.values()}
    flags = {opt: param.name for param in command.params for opt in param.opts if param.name in named}
    assert flags == {**QUERY_FLAGS, **QUERY_VALUES}  # the shortcut's options are the command's, by the same names

    monkeypatch.setenv("SMARTVEC_VAULT", "/from/env")
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    line = parse_query_line(["--index-dir", "/i", "query", "per diem", "-k", "3", "--json", "--as-of", "2023-01-01"])
    assert line == QueryLine(
        vault="/from/env",
        index_dir="/i",
        now=None,
        store=None,
        text="per diem",
        request=QueryRequest(top_k=3, as_of="2023-01-01"),
        as_json=True,
    )
    line = parse_query_line(["query", "x", "--no-track", "--explain", "--include-dormant", "--mode", "lexical"])
    assert line is not None and line.request == QueryRequest(
        track=False, explain=True, include_dormant=True, mode="lexical"
    )
    with pytest.raises(UsageError, match="mode must be one of"):
        parse_query_line(["query", "x", "--mode", "psychic"])
    for declined in (
        ["query"],
        ["query", "a", "b"],
        ["query", "--batch", "-"],
        ["query", "x", "--help"],
        ["--help"],
        ["status"],
        ["query", "x", "--top-k=3"],
        ["query", "x", "--top-k", "0"],
        ["query", "x", "--top-k", "1001"],
        ["query", "x", "-k"],
        ["query", "x", "--mode", "--json"],
        ["query", "x", "--vault", "v"],
        ["--verbose", "query", "x"],
        ["--now", "query", "x"],
        ["query", "--", "-x"],
    ):
        assert parse_query_line(declined) is None, declined


def test_the_daemon_follows_other_writers(vault, cli, fake_embedder, served):
    write(vault, "a.md", NOTES["travel.md"])
    cli("index")
    served()
    assert top_paths(Workspace.resolve().index_dir, "stipend on-call") == []
    write(vault, "b.md", NOTES["oncall.md"])
    cli("index")  # another writer: the daemon's store notices the new ANN generation
    assert top_paths(Workspace.resolve().index_dir, "stipend on-call") == ["b.md"]


def test_daemon_errors_are_the_direct_path_errors(vault, cli, fake_embedder, served):
    direct = cli("query", "anything")
    served()
    via_socket = cli("query", "anything")
    assert direct.exit_code == via_socket.exit_code == 1
    assert via_socket.stderr == direct.stderr and "run 'smartvec index' first" in direct.stderr


def test_a_stale_socket_file_does_not_break_query(vault, cli, fake_embedder):
    write(vault, "a.md", NOTES["travel.md"])
    cli("index")
    expected = cli("query", "per diem", "--json", "--no-track")
    path = socket_path(Workspace.resolve().index_dir)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: a daemon killed by SIGKILL
    assert path.exists()
    started = time.monotonic()
    result = cli("query", "per diem", "--json", "--no-track")
    assert time.monotonic() - started < 2
    assert (result.exit_code, result.stdout, result.stderr) == (0, expected.stdout, expected.stderr)


def test_a_daemon_that_cannot_read_the_request_sends_the_client_back_home(vault, cli, fake_embedder):
    write(vault, "a.md", NOTES["travel.md"])
    cli("index")
    ws = Workspace.resolve()
    service = QueryService(ws, SharedEmbedder(fake_embedder), log=lambda line: None)
    assert service.answer({"query": "x", "options": {"top_k": 1, "from_the_future": True}})["exit_code"] is None
    server = QueryServer(
        socket_path(ws.index_dir), lambda r: {"error": "bad request: ...", "exit_code": None}, log=lambda line: None
    )
    assert server.start()
    try:
        assert ask_daemon(ws.index_dir, "per diem", {}) is None
        assert json.loads(cli("query", "per diem", "--json").stdout)[0]["path"] == "a.md"
    finally:
        server.close()
        service.close()


# -- pieces -----------------------------------------------------------------------------------


def test_which_events_matter(tmp_path):
    vault, index_dir = tmp_path / "v", tmp_path / "v" / "state"

    def rel(path, is_dir=False, exclude=()):
        return vault_path_of(str(vault / path), vault, index_dir, list(exclude), is_dir)

    assert rel("a.md") == "a.md" and rel("folder/B.MD") == "folder/B.MD"
    assert rel("folder", is_dir=True) == "folder"
    for ignored in [
        ".a.md.swp",
        "a.md~",
        "a.md.tmp",
        ".obsidian/ws.md",
        ".trash/x.md",
        ".git/x.md",
        "x/.hidden.md",
        "state/x.md",
        "image.png",
        "4913",
    ]:
        assert rel(ignored) is None, ignored
    assert rel(".smartvec", is_dir=True) is None and rel("state", is_dir=True) is None
    assert rel("drafts/a.md", exclude=["drafts/**"]) is None
    assert vault_path_of(str(tmp_path / "elsewhere.md"), vault, index_dir, [], False) is None


def test_debouncer_waits_for_quiet_but_not_forever():
    d = Debouncer(quiet=2.0, max_delay=10.0)
    assert d.due_in(0.0) is None
    d.add("a.md", 0.0)
    assert d.due_in(1.0) == 1.0
    for t in range(1, 10):
        d.add("a.md", float(t))  # an event every second: never quiet for 2 s
    assert d.due_in(9.5) == 0.5  # ...so the burst is cut at 10 s after its first event
    assert d.take() == {"a.md"} and d.due_in(11.0) is None
    d.retry_at(20.0, {"failed.md"})
    assert d.due_in(15.0) == 5.0
    d.add("b.md", 16.0)
    assert d.due_in(16.0) == 2.0
    assert d.take() == {"failed.md", "b.md"}


def test_embedder_backend_from_config(tmp_path):
    from smartvec_cli.config import load_config

    use_fake_backend(tmp_path)
    embedder = select_embedder(load_config(tmp_path / "config.toml"), tmp_path / "onnx")
    assert isinstance(embedder, FakeEmbedder) and embedder.fingerprint == "fake@1"
    (tmp_path / "config.toml").write_text('[embedder]\nbackend = "no_such_module:make"\n')
    with pytest.raises(SmartvecError, match="cannot be loaded"):
        select_embedder(load_config(tmp_path / "config.toml"), tmp_path / "onnx")
    (tmp_path / "config.toml").write_text('[embedder]\nbackend = "not a spec"\n')
    with pytest.raises(UsageError):
        load_config(tmp_path / "config.toml")
