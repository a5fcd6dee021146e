"""Hostile and unlucky clients of the daemons: the query socket and the MCP server.

The query socket is the real ``QueryServer`` and ``QueryService`` over an index in a temporary
vault (the fake embedder); the MCP server is a real ``smartvec mcp`` subprocess fed raw JSON lines.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import REPO, write
from fake_backend import subprocess_env, use_fake_backend

from smartvec_cli.core.results import QueryRequest
from smartvec_cli.core.workspace import Workspace
from smartvec_cli.daemon import query_socket
from smartvec_cli.daemon.query_socket import QueryServer, QueryService, SharedEmbedder, ask_daemon, socket_path

NOTES = {
    "remote.md": "# Remote work\n\nEmployees may work remotely three days per week.\n",
    "travel.md": "# Travel\n\nThe per diem for travel is 40 euros per day.\n",
    "oncall.md": "# On-call\n\nOn-call engineers are paid a weekly stipend.\n",
}
OPTIONS = QueryRequest(top_k=3, track=False).to_json()


@pytest.fixture
def daemon(vault, cli, fake_embedder):
    """The notes indexed and a query server on them; yields (index folder, answered requests, log lines)."""
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli("index")
    ws = Workspace.resolve()
    answered: list[dict] = []
    log: list[str] = []
    service = QueryService(ws, SharedEmbedder(fake_embedder), log=log.append)

    def answer(request: dict) -> dict:
        response = service.answer(request)
        answered.append(response)
        return response

    server = QueryServer(socket_path(ws.index_dir), answer, log=log.append)
    assert server.start()
    yield ws.index_dir, answered, log
    server.close()
    service.close()


def raw_exchange(index_dir, data: bytes, timeout: float = 10.0) -> dict:
    """Send ``data`` as it is and read the one reply line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(socket_path(index_dir)))
        conn.sendall(data)
        with conn.makefile("rb") as stream:
            return json.loads(stream.readline())


def paths(answer: dict | None) -> list[str] | None:
    return None if answer is None else [hit["path"] for hit in answer["hits"]]


def test_sixteen_clients_at_once_are_all_answered_by_the_daemon(daemon):
    index_dir, answered, log = daemon
    questions = ["travel per diem euros", "remote days per week", "weekly stipend on-call"]
    expected = {q: paths(ask_daemon(index_dir, q, OPTIONS)) for q in questions}
    assert expected["travel per diem euros"][0] == "travel.md" and expected["remote days per week"][0] == "remote.md"
    answered.clear()
    start = threading.Barrier(16)

    def client(number: int) -> list:
        start.wait()
        return [paths(ask_daemon(index_dir, questions[(number + i) % 3], OPTIONS)) for i in range(50)]

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(client, range(16)))
    got = [
        (questions[(number + i) % 3], result)
        for number, answers in enumerate(results)
        for i, result in enumerate(answers)
    ]
    assert sum(result is None for _, result in got) == 0  # none refused, none sent back to answer by itself
    assert len(answered) == 16 * 50
    assert all(result == expected[question] for question, result in got)
    assert log == []


def test_a_huge_request_does_not_delay_a_small_one(daemon):
    index_dir, answered, log = daemon
    huge: dict = {}

    def send_huge():
        line = json.dumps({"query": "x" * (20 << 20), "options": OPTIONS}).encode() + b"\n"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(str(socket_path(index_dir)))
            huge["started"] = time.monotonic()
            try:
                conn.sendall(line)
            except OSError as exc:  # the daemon stopped reading at its bound and closed
                huge["send"] = type(exc).__name__
            with conn.makefile("rb") as stream:
                huge["reply"] = json.loads(stream.readline())
            huge["seconds"] = time.monotonic() - huge["started"]

    sender = threading.Thread(target=send_huge)
    sender.start()
    while "started" not in huge:
        time.sleep(0.001)
    started = time.monotonic()
    small = ask_daemon(index_dir, "travel per diem euros", OPTIONS)
    small_seconds = time.monotonic() - started
    sender.join(30)
    assert paths(small)[0] == "travel.md" and small_seconds < 1.0, small_seconds
    assert huge["reply"] == {"error": "bad request: larger than 1 MiB", "exit_code": None}
    assert huge["seconds"] < 5, huge
    assert log == ["warning: query socket: refused a request: larger than 1 MiB"]
    # a client that sends more than the bound never asks: it answers by itself
    assert ask_daemon(index_dir, "x" * (1 << 20), OPTIONS) is None and len(answered) == 1


def test_stalled_clients_do_not_hold_the_others_and_are_cut_off(daemon, monkeypatch):
    index_dir, answered, log = daemon
    monkeypatch.setattr(query_socket, "REQUEST_TIMEOUT", 1.0)
    stalled = []
    for _ in range(3 * query_socket.WORKERS):  # more than the workers: reading is not theirs to do
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(10)
        conn.connect(str(socket_path(index_dir)))
        conn.sendall(b'{"query": "travel')
        stalled.append(conn)
    try:
        started = time.monotonic()
        assert paths(ask_daemon(index_dir, "travel per diem euros", OPTIONS))[0] == "travel.md"
        assert time.monotonic() - started < 1.0
        for conn in stalled:
            with conn.makefile("rb") as stream:
                assert json.loads(stream.readline()) == {
                    "error": "bad request: no complete request within 1s",
                    "exit_code": None,
                }
        assert time.monotonic() - started < 5
    finally:
        for conn in stalled:
            conn.close()
    assert log == ["warning: query socket: refused a request: no complete request within 1s"] * len(stalled)


MALFORMED = {
    "nested too deeply": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "nested object": b'{"query": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_000 + b"}\n",
    "not JSON": b"hello daemon\n",
    "not UTF-8": b'{"query": "caf\xe9"}\n',
    "not an object": b"[1, 2, 3]\n",
    "query not a string": b'{"query": 7}\n',
    "no query": b'{"options": {}}\n',
    "options not an object": b'{"query": "travel", "options": [1]}\n',
    "as_of not a string": b'{"query": "travel", "as_of": [2023]}\n',
    "unknown option": b'{"query": "travel", "options": {"from_the_future": true}}\n',
}


def test_malformed_requests_get_an_error_reply_and_the_daemon_keeps_answering(daemon, capfd):
    index_dir, answered, log = daemon
    replies = {name: raw_exchange(index_dir, data) for name, data in MALFORMED.items()}
    # a well-formed request with a bad value gets the command line's own usage error (exit 2), as without a daemon
    not_numbers = raw_exchange(index_dir, b'{"query": "travel", "options": {"weights": {"semantic": "lots"}}}\n')
    assert not_numbers == {
        "error": "weight semantic=lots must be a finite number, 0 or more (use e.g. "
        "semantic=0.35,temporal=0.25,confidence=0.25,relational=0.15)",
        "exit_code": 2,
    }
    not_a_mapping = raw_exchange(index_dir, b'{"query": "travel", "options": {"weights": [1, 2]}}\n')
    assert not_a_mapping["exit_code"] == 2 and not_a_mapping["error"].startswith(
        "weights must map signal names to numbers"
    )
    for name, reply in replies.items():
        assert set(reply) == {"error", "exit_code"} and reply["exit_code"] is None, (name, reply)
        assert reply["error"].startswith("bad request: ") and "\n" not in reply["error"], (name, reply)
    assert (
        replies["nested too deeply"]["error"] == replies["nested object"]["error"] == "bad request: nested too deeply"
    )
    assert replies["not JSON"]["error"].startswith("bad request: not JSON (Expecting value")
    assert replies["not UTF-8"]["error"].startswith("bad request: not JSON (")
    assert replies["not an object"]["error"] == "bad request: not a JSON object"
    assert replies["query not a string"]["error"] == "bad request: 'query' must be a string"
    assert replies["as_of not a string"]["error"] == "bad request: 'as_of' must be a string"
    # every refusal is one line in the log, and nothing else is written anywhere
    assert len(log) == 5 and all(line.startswith("warning: query socket: refused a request: ") for line in log), log
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and err == ""
    assert paths(ask_daemon(index_dir, "travel per diem euros", OPTIONS))[0] == "travel.md"


def test_weights_through_the_socket_are_checked_by_the_command_line_s_parser(daemon, cli):
    """The daemon parses ``--weights`` with the same function as the command line: the same outcome, both ways."""
    index_dir, answered, log = daemon
    asks = [
        (
            "query",
            "travel per diem",
            "--weights",
            "semantic=1,temporal=0,confidence=0,relational=0",
            "--json",
            "--no-track",
        ),
        ("query", "travel per diem", "--weights", "semantic=-1", "--json", "--no-track"),
        ("query", "travel per diem", "--weights", "semantic=lots", "--json", "--no-track"),
        (
            "query",
            "travel per diem",
            "--weights",
            "semantic=nan,temporal=0.25,confidence=0.25,relational=0.15",
            "--json",
            "--no-track",
        ),
        ("query", "travel per diem", "--weights", "semantic=inf", "--json", "--no-track"),
    ]
    via_socket = [cli(*args) for args in asks]
    assert len(answered) == 1  # the good weights were the daemon's to answer; bad ones never leave the command line
    socket_path(index_dir).rename(index_dir / "moved.sock")  # the same commands, answered by the process itself
    direct = [cli(*args) for args in asks]
    assert len(answered) == 1
    for args, before, after in zip(asks, direct, via_socket, strict=False):
        assert (after.exit_code, after.stdout, after.stderr) == (before.exit_code, before.stdout, before.stderr), args
    assert direct[0].exit_code == 0 and all(result.exit_code == 2 for result in direct[1:])
    assert all(result.stdout == "" and result.stderr.count("\n") == 1 for result in direct[1:])
    assert "semantic=nan must be a finite number" in direct[3].stderr


# -- the MCP server over stdio ----------------------------------------------------------------


class RawMcp:
    """``smartvec mcp`` in a subprocess (the fake backend), spoken to in raw lines over its stdin and stdout."""

    def __init__(self, vault, index_dir, errlog):
        env = dict(
            subprocess_env(), SMARTVEC_VAULT=str(vault), SMARTVEC_INDEX=str(index_dir), SMARTVEC_NOW="2026-06-01"
        )
        self.errlog = errlog
        self.err = open(errlog, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smartvec_cli", "mcp"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
        )

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60.0) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"no reply within {timeout}s; log: {self.errlog.read_text()}"
        return json.loads(self.proc.stdout.readline())

    def request(self, ident, method: str, params: dict | None = None) -> dict:
        self.send(
            json.dumps(
                {"jsonrpc": "2.0", "id": ident, "method": method, **({} if params is None else {"params": params})}
            ).encode()
        )
        return self.receive()

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self.err.close()
        return code


MALFORMED_RPC = [  # (what, the line, the error code, the id of the reply)
    ("not JSON", b"hello server", -32700, None),
    ("invalid UTF-8", b'{"jsonrpc": "2.0", "id": 3, "method": "tools/l\xffist"}', -32700, None),
    ("NaN", b'{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"x": NaN}}', -32700, None),
    ("nested too deeply", b"[" * 100_000 + b"]" * 100_000, -32700, None),
    ("a batch", b"[1, 2, 3]", -32600, None),
    ("an empty batch", b"[]", -32600, None),
    ("an empty object", b"{}", -32600, None),
    ("a number", b"7", -32600, None),
    ("method not a string", b'{"jsonrpc": "2.0", "id": 5, "method": 7}', -32600, 5),
    ("method not a string, no id", b'{"jsonrpc": "2.0", "method": 1, "params": "bar"}', -32600, None),
    ("params a string", b'{"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": "all of them"}', -32602, 6),
    (
        "params a list",
        b'{"jsonrpc": "2.0", "id": "seven", "method": "tools/call", "params": ["search"]}',
        -32602,
        "seven",
    ),
    ("id an object", b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}', -32600, None),
    ("id a boolean", b'{"jsonrpc": "2.0", "id": true, "method": "tools/list"}', -32600, None),
    ("JSON-RPC 1.0", b'{"jsonrpc": "1.0", "id": 8, "method": "tools/list"}', -32600, 8),
    ("no jsonrpc", b'{"id": 9, "method": "tools/list"}', -32600, 9),
    ("a result without an id", b'{"jsonrpc": "2.0", "result": {}}', -32600, None),
    ("result not an object", b'{"jsonrpc": "2.0", "id": 10, "result": 5}', -32600, 10),
]


def test_every_malformed_mcp_message_is_answered_and_the_server_keeps_serving(vault, cli, tmp_path, monkeypatch):
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")
    server = RawMcp(vault, index_dir, tmp_path / "mcp.err")
    try:
        hello = server.request(
            0,
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        )
        assert hello["result"]["serverInfo"]["name"] == "smartvec"
        server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        replies = {}
        for what, line, _, _ in MALFORMED_RPC:
            server.send(line)
            replies[what] = server.receive()
        server.send(b"")  # a blank line, and a notification with bad params: no reply to either
        server.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}')
        tools = server.request(11, "tools/list")
        search = server.request(
            12, "tools/call", {"name": "search", "arguments": {"query": "travel per diem", "top_k": 1}}
        )
        unknown = server.request(13, "no/such/method")
    finally:
        code = server.close()
    for what, _, error_code, ident in MALFORMED_RPC:
        reply = replies[what]
        assert set(reply) == {"jsonrpc", "id", "error"} and reply["jsonrpc"] == "2.0", (what, reply)
        assert (reply["error"]["code"], reply["id"]) == (error_code, ident), (what, reply)
        assert reply["error"]["message"] and "\n" not in reply["error"]["message"], (what, reply)
    assert replies["invalid UTF-8"]["error"]["message"] == "Parse error: the message is not UTF-8"
    assert replies["nested too deeply"]["error"]["message"] == "Parse error: nested too deeply"
    assert tools["id"] == 11 and {tool["name"] for tool in tools["result"]["tools"]} == {
        "search",
        "context",
        "feedback",
        "note",
        "history",
        "related",
        "graph",
        "changes",
        "status",
    }
    assert search["id"] == 12 and not search["result"]["isError"]
    assert search["result"]["structuredContent"]["hits"][0]["path"] == "travel.md"
    assert unknown["id"] == 13 and unknown["error"]["code"] == -32601  # the SDK's own answer, untouched
    log = (tmp_path / "mcp.err").read_text()
    assert code == 0 and "Traceback" not in log and log.splitlines()[-1].endswith("stopped"), log
    warnings = [line for line in log.splitlines() if "MCP: answered a malformed message" in line]
    assert len(warnings) == len(MALFORMED_RPC), log
