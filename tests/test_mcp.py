"""``smartvec mcp``: a real server subprocess, driven by the MCP SDK's own client.

The server gets the tests' fake embedder through ``config.toml`` (it is a subprocess and
cannot be patched); what is proven here is the transport: the same hits as the command
line, feedback that changes the ranking, one-line errors after which it keeps serving,
warm ``query`` processes over the socket, and a clean shutdown. Retrieval with the real
model through the server is the slow test at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from conftest import REPO, SAMPLE_VAULT, Cli, cli_process, write
from fake_backend import use_fake_backend
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from smartvec_cli.daemon.mcp import argument_errors, parse_http_address
from smartvec_cli.daemon.query_socket import socket_path
from smartvec_cli.errors import UsageError
from smartvec_cli.store.layout import WATCH_LOCK_FILE, WRITER_LOCK_FILE
from smartvec_cli.store.lock import FileLock

NOW = "2026-06-01"
POLICY_V1 = (
    "---\ntitle: Travel Policy v1\nsource_type: policy\nvalid_from: 2020-01-01\nvalid_until: 2022-01-01\n---\n"
    "# Travel Policy v1\n\nThe travel per diem is 30 euros per day.\n"
)
POLICY_V2 = (
    '---\ntitle: Travel Policy v2\nsource_type: policy\nvalid_from: 2022-01-01\nsupersedes: "[[Travel Policy v1]]"\n'
    "---\n"
    "# Travel Policy v2\n\nThe travel per diem is 45 euros per day.\n"
)
KIWI_MAY = "# Orchard\n\nThe kiwi harvest starts in May on the north slope.\n"
KIWI_JUNE = "# Farm diary\n\nThe kiwi harvest starts in June on the north slope.\n"


@pytest.fixture
def indexed(vault, tmp_path, cli, monkeypatch):
    """A small vault indexed with the fake embedder (the server subprocess uses the same one), at a fixed clock."""
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    monkeypatch.setenv("SMARTVEC_NOW", NOW)
    write(vault, "policies/travel-v1.md", POLICY_V1)
    write(vault, "policies/travel-v2.md", POLICY_V2)
    write(vault, "farm/orchard.md", KIWI_MAY)
    write(vault, "farm/diary.md", KIWI_JUNE)
    cli.json("index", "--json")
    return vault, index_dir


def server_parameters(vault: Path, index_dir: Path, *args: str) -> StdioServerParameters:
    """How an MCP client starts the server: a command, its arguments and the environment."""
    env = {
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")]),
        "SMARTVEC_VAULT": str(vault),
        "SMARTVEC_INDEX": str(index_dir),
        "SMARTVEC_NOW": NOW,
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "smartvec_cli", "mcp", *args], env=env, cwd=str(REPO)
    )


def run_client(parameters: StdioServerParameters, errlog: Path, scenario, timeout: float = 180.0):
    """Start the server, run ``scenario(session)`` against it, and close the connection (which stops it)."""

    async def main():
        with anyio.fail_after(timeout), open(errlog, "w") as err:
            async with stdio_client(parameters, errlog=err) as (read, write_stream):
                async with ClientSession(read, write_stream) as session:
                    await session.initialize()
                    return await scenario(session)

    return anyio.run(main)


def payload(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def error_text(result) -> str:
    assert result.is_error, result
    [content] = result.content
    assert "\n" not in content.text and "Traceback" not in content.text
    return content.text


def cli_hits(cli, *args: str) -> list[dict]:
    return cli.json("query", *args, "--json", "--no-track")


def test_the_server_answers_like_the_command_line_learns_from_feedback_and_stops_cleanly(indexed, cli, tmp_path):
    vault, index_dir = indexed
    errlog = tmp_path / "mcp.err"
    seen: dict = {}

    async def scenario(session: ClientSession):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        seen["tools"] = tools

        async def search(**arguments):
            return payload(await session.call_tool("search", arguments))

        # the same hits as `query --json`, now and as of a date (each MCP search counts as an access,
        # after answering: the CLI asks first, with --no-track, so both see the same state)
        seen["cli_now"] = cli_hits(cli, "travel per diem")
        seen["now"] = await search(query="travel per diem")
        seen["cli_past"] = cli_hits(cli, "travel per diem", "--as-of", "2021-03-01")
        seen["past"] = await search(query="travel per diem", as_of="2021-03-01")
        seen["cli_words"] = cli_hits(cli, "travel per diem back in 2021", "--top-k", "1")
        seen["words"] = await search(query="travel per diem back in 2021", top_k=1)

        # feedback changes what the next search ranks first
        before = await search(query="kiwi harvest north slope")
        first, second = (hit["chunk_id"] for hit in before["hits"][:2])
        seen["feedback"] = payload(await session.call_tool("feedback", {"chunk_id": first, "verdict": "down"}))
        after = await search(query="kiwi harvest north slope")
        seen["ranking"] = ([first, second], [hit["chunk_id"] for hit in after["hits"][:2]])

        # one clear error per bad input; the server keeps serving
        bad = {
            "unknown chunk": ("feedback", {"chunk_id": "no-such-note#nothing", "verdict": "up"}),
            "bad verdict": ("feedback", {"chunk_id": first, "verdict": "sideways"}),
            "correct without text": ("feedback", {"chunk_id": first, "verdict": "correct"}),
            "malformed date": ("search", {"query": "travel per diem", "as_of": "the day after tomorrow"}),
            "empty query": ("search", {"query": "   "}),
            "huge query": ("search", {"query": "travel per diem " * 20_000}),
            "top_k 0": ("search", {"query": "travel per diem", "top_k": 0}),
            "top_k 10000": ("search", {"query": "travel per diem", "top_k": 10_000}),
            "top_k not a number": ("search", {"query": "travel per diem", "top_k": "many"}),
            "bad mode": ("search", {"query": "travel per diem", "mode": "psychic"}),
            "missing query": ("search", {}),
            "unknown note": ("note", {"path_or_id": "no such note"}),
            "unknown history": ("history", {"path_or_id": "no such note"}),
        }
        seen["errors"] = {
            name: error_text(await session.call_tool(tool, arguments)) for name, (tool, arguments) in bad.items()
        }

        seen["note"] = payload(await session.call_tool("note", {"path_or_id": "policies/travel-v2"}))
        seen["history"] = payload(await session.call_tool("history", {"path_or_id": "Travel Policy v2"}))
        seen["status"] = payload(await session.call_tool("status", {}))
        seen["cosine"] = await search(query="travel per diem", mode="cosine", include_archived=True)

        # while the server runs, `smartvec query` is answered by it, without importing the core
        seen["cli_warm"] = cli.json("query", "kiwi harvest", "--json", "--no-track")
        seen["warm"] = await anyio.to_thread.run_sync(
            lambda: cli_process("query", "kiwi harvest", "--json", "--no-track")
        )
        seen["socket_while_serving"] = socket_path(index_dir).exists()

    run_client(server_parameters(vault, index_dir), errlog, scenario)

    assert set(seen["tools"]) == {
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
    schema = seen["tools"]["search"].input_schema
    assert schema["required"] == ["query"] and schema["properties"]["mode"]["enum"] == ["smart", "cosine", "lexical"]
    assert schema["properties"]["top_k"]["maximum"] == 1000 and seen["tools"]["search"].description
    assert (
        seen["tools"]["search"].annotations.read_only_hint and not seen["tools"]["feedback"].annotations.read_only_hint
    )

    assert seen["now"]["hits"] == seen["cli_now"] and seen["now"]["as_of"] is None
    assert seen["now"]["hits"][0]["path"] == "policies/travel-v2.md"
    assert (
        seen["past"]["hits"] == seen["cli_past"] and seen["past"]["as_of"] == "2021-03-01T12:00:00Z"
    )  # a day means its noon
    assert seen["past"]["hits"][0]["path"] == "policies/travel-v1.md"
    assert seen["words"]["hits"] == seen["cli_words"] and seen["words"]["as_of_phrase"] == "back in 2021"
    assert all("explain" not in hit for hit in seen["now"]["hits"])

    old, new = seen["ranking"]
    assert new == [old[1], old[0]]
    assert seen["feedback"]["chunk_id"] == old[0] and seen["feedback"]["trust_after"] < seen["feedback"]["trust_before"]

    errors = seen["errors"]
    assert "no passage 'no-such-note#nothing' in the index" in errors["unknown chunk"]
    assert "verdict: Input should be 'up', 'down' or 'correct'" in errors["bad verdict"]
    assert "needs the right answer in `correction`" in errors["correct without text"]
    assert "not a date: 'the day after tomorrow'" in errors["malformed date"]
    assert "the question is empty" in errors["empty query"]
    assert "characters long; at most 4,000 are answered" in errors["huge query"]
    assert "top_k must be a whole number from 1 to 1000" in errors["top_k 0"] == errors["top_k 10000"]
    assert "top_k: Input should be a valid integer" in errors["top_k not a number"]
    assert "mode: Input should be 'smart', 'cosine' or 'lexical'" in errors["bad mode"]
    assert "query: Field required" in errors["missing query"]
    assert errors["unknown note"] == "Error executing tool note: no note 'no such note' in the index"
    assert errors["unknown history"] == "Error executing tool history: no note 'no such note' in the index"
    assert all(text.startswith("Error executing tool ") for text in errors.values())

    assert seen["note"]["path"] == "policies/travel-v2.md" and seen["note"]["passages"]
    assert seen["history"]["path"] == "policies/travel-v2.md"
    assert seen["status"]["notes"] == 4
    assert {hit["path"] for hit in seen["cosine"]["hits"]} >= {"policies/travel-v1.md", "policies/travel-v2.md"}

    warm = seen["warm"]
    assert (warm.exit_code, warm.heavy) == (0, []) and json.loads(warm.stdout) == seen["cli_warm"]
    assert seen["socket_while_serving"]

    log = errlog.read_text()
    assert "Traceback" not in log and log.splitlines()[-1].endswith("stopped"), log
    assert not socket_path(index_dir).exists()
    assert (index_dir / WATCH_LOCK_FILE).read_text() == "" and (index_dir / WRITER_LOCK_FILE).read_text() == ""


def test_a_busy_writer_lock_is_a_tool_error_at_once(indexed, tmp_path):
    vault, index_dir = indexed
    seen: dict = {}

    async def scenario(session: ClientSession):
        hits = payload(await session.call_tool("search", {"query": "kiwi harvest"}))["hits"]
        with FileLock.writer(index_dir, "smartvec index"):
            started = time.monotonic()
            seen["busy"] = error_text(
                await session.call_tool("feedback", {"chunk_id": hits[0]["chunk_id"], "verdict": "up"})
            )
            seen["seconds"] = time.monotonic() - started
        seen["after"] = payload(await session.call_tool("feedback", {"chunk_id": hits[0]["chunk_id"], "verdict": "up"}))

    run_client(server_parameters(vault, index_dir, "--wait", "0.5"), tmp_path / "mcp.err", scenario)
    assert f"pid {os.getpid()} (smartvec index)" in seen["busy"] and "holds the writer lock" in seen["busy"]
    assert seen["seconds"] < 10  # the bound, not a hang (generous: a loaded machine)
    assert seen["after"]["trust_after"] > seen["after"]["trust_before"]


def test_beside_a_watch_daemon_the_server_leaves_the_socket_to_it(indexed, tmp_path):
    vault, index_dir = indexed
    seen: dict = {}
    with FileLock.watch(index_dir, "smartvec watch"):

        async def scenario(session: ClientSession):
            seen["hits"] = payload(await session.call_tool("search", {"query": "kiwi harvest"}))["hits"]

        run_client(server_parameters(vault, index_dir), tmp_path / "mcp.err", scenario)
    assert seen["hits"][0]["path"].startswith("farm/")
    assert f"pid {os.getpid()} (smartvec watch)" in (tmp_path / "mcp.err").read_text()


def start_http_server(vault, index_dir, tmp_path, *options: str):
    """``smartvec mcp --http PORT OPTIONS`` started, and (the process, its port, its stderr file)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    parameters = server_parameters(vault, index_dir, "--http", str(port), *options)
    err = open(tmp_path / "mcp.err", "w")
    proc = subprocess.Popen(
        [parameters.command, *parameters.args],
        cwd=REPO,
        env=dict(os.environ, **parameters.env),
        stdout=subprocess.DEVNULL,
        stderr=err,
    )
    err.close()
    return proc, port, tmp_path / "mcp.err"


async def http_session_answer(proc, port: int, err_path, token: str | None, work):
    """Wait for the server, connect with ``token`` (if any) and return ``work(session)``."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with anyio.fail_after(120):
        while f"http://127.0.0.1:{port}/mcp" not in err_path.read_text():
            assert proc.poll() is None, err_path.read_text()
            await anyio.sleep(0.2)
        await anyio.sleep(0.5)
        headers = {"Authorization": f"Bearer {token}"} if token else None
        async with create_mcp_http_client(headers=headers) as client:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as (
                read,
                write_stream,
                *_,
            ):
                async with ClientSession(read, write_stream) as session:
                    await session.initialize()
                    return await work(session)


def stop_server(proc) -> int:
    proc.terminate()
    return proc.wait(timeout=30)


def test_streamable_http_on_loopback_asks_for_its_token(indexed, tmp_path):
    vault, index_dir = indexed
    proc, port, err_path = start_http_server(vault, index_dir, tmp_path)

    async def search(session):
        tools = {tool.name for tool in (await session.list_tools()).tools}
        return tools, payload(await session.call_tool("search", {"query": "kiwi harvest", "top_k": 1}))

    try:
        token_file = index_dir / "mcp-token"
        deadline = time.monotonic() + 120
        while not token_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        token = token_file.read_text().strip()
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        tools, answer = anyio.run(http_session_answer, proc, port, err_path, token, search)
        import httpx2

        refused = httpx2.post(f"http://127.0.0.1:{port}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        wrong = httpx2.post(
            f"http://127.0.0.1:{port}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": "Bearer " + "x" * len(token)},
        )
    finally:
        code = stop_server(proc)
    assert answer["hits"][0]["path"].startswith("farm/")
    assert refused.status_code == 401 and wrong.status_code == 401
    assert "feedback" not in tools and "search" in tools  # read-only over HTTP by default
    stderr = err_path.read_text()
    assert stderr.count(token) == 1  # printed once, when made
    assert code == 0 and "Traceback" not in stderr


def test_http_without_a_token_only_on_loopback_never_for_a_private_vault(indexed, tmp_path):
    vault, index_dir = indexed
    os.chmod(vault, 0o700)
    try:
        for options in (["--http", "8799", "--no-auth"], ["--http", "0.0.0.0:8799", "--no-auth"], ["--no-auth"]):
            done = cli_process("mcp", *options, env={"SMARTVEC_VAULT": str(vault), "SMARTVEC_INDEX": str(index_dir)})
            assert done.exit_code == 2, (options, done.stderr)
            assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    finally:
        os.chmod(vault, 0o755)


def test_http_no_auth_on_loopback_warns_and_feedback_is_opt_in(indexed, tmp_path):
    vault, index_dir = indexed
    os.chmod(vault, 0o755)
    proc, port, err_path = start_http_server(vault, index_dir, tmp_path, "--no-auth", "--feedback")

    async def tools(session):
        return {tool.name for tool in (await session.list_tools()).tools}

    try:
        names = anyio.run(http_session_answer, proc, port, err_path, None, tools)
    finally:
        stop_server(proc)
    assert "feedback" in names
    assert "warning: --no-auth: every user of this machine can read" in err_path.read_text()


def test_http_addresses():
    assert parse_http_address("8765") == ("127.0.0.1", 8765)
    assert parse_http_address(":8765") == ("127.0.0.1", 8765)
    assert parse_http_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_http_address("[::1]:9000") == ("::1", 9000)
    for bad in ("localhost", "127.0.0.1:http", "127.0.0.1:0", "127.0.0.1:70000"):
        with pytest.raises(UsageError, match="bad --http address"):
            parse_http_address(bad)


def test_a_bad_http_address_is_a_usage_error(vault, cli):
    result = cli("mcp", "--http", "nowhere:port")
    assert result.exit_code == 2 and result.stderr.startswith("error: bad --http address 'nowhere:port'")


def test_argument_errors_are_one_line():
    from pydantic import BaseModel, ValidationError

    class Arguments(BaseModel):
        query: str
        top_k: int = 5

    with pytest.raises(ValidationError) as caught:
        Arguments(top_k="x")
    assert (
        argument_errors(caught.value)
        == "query: Field required; top_k: Input should be a valid integer, unable to parse string as an integer"
    )


def test_the_server_is_ready_before_its_model_is_loaded(indexed, tmp_path):
    """``initialize`` and ``tools/list`` are answered while the model still loads (agent hosts time out on slow
    servers); a search that comes first waits for the model and answers."""
    vault, index_dir = indexed
    release = tmp_path / "release-model"
    (index_dir / "config.toml").write_text('[embedder]\nbackend = "fake_backend:make_slow"\n', encoding="utf-8")
    parameters = server_parameters(vault, index_dir)
    parameters.env["SMARTVEC_TEST_MODEL_RELEASE"] = str(release)

    async def scenario(session: ClientSession):
        tools = await session.list_tools()  # initialize was answered by run_client already
        loaded_before = release.with_suffix(".loaded").exists()
        release.write_text("go", encoding="utf-8")
        hits = payload(await session.call_tool("search", {"query": "kiwi harvest"}))["hits"]
        return {t.name for t in tools.tools}, loaded_before, hits

    names, loaded_before, hits = run_client(parameters, tmp_path / "mcp.err", scenario)
    assert "search" in names and not loaded_before
    assert release.with_suffix(".loaded").exists() and hits and "kiwi" in hits[0]["text"]


@pytest.mark.slow
def test_the_real_model_through_the_server(tmp_path, real_embedder_session, onnx_export):
    """The sample vault with the real model: the server answers as `query` does, policy versions and all."""
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    shutil.copytree(SAMPLE_VAULT, vault, ignore=shutil.ignore_patterns(".smartvec"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: real_embedder_session)
        Cli().json("--vault", str(vault), "--index-dir", str(index_dir), "--now", NOW, "index", "--json")
    shutil.copytree(onnx_export, index_dir / "onnx")  # the server loads the verified fast path, as after a real `index`
    questions = ["What is the travel per diem?", "How many weeks of parental leave back in 2023?"]
    expected = [
        Cli().json(
            "--vault", str(vault), "--index-dir", str(index_dir), "--now", NOW, "query", q, "--json", "--no-track"
        )
        for q in questions
    ]

    async def scenario(session: ClientSession):
        return [payload(await session.call_tool("search", {"query": q})) for q in questions]

    per_diem, leave = run_client(server_parameters(vault, index_dir), tmp_path / "mcp.err", scenario)
    assert [h["chunk_id"] for h in per_diem["hits"]] == [h["chunk_id"] for h in expected[0]]
    assert [h["chunk_id"] for h in leave["hits"]] == [h["chunk_id"] for h in expected[1]]
    assert per_diem["hits"][0]["path"] == "policies/Travel Expense Policy v3.md"
    assert (
        leave["as_of"].startswith("2023-07-02") and leave["hits"][0]["path"] == "policies/Parental Leave Policy v2.md"
    )


def test_the_agent_tools_context_related_graph_and_lexical_search(indexed, cli, tmp_path):
    vault, index_dir = indexed
    seen: dict = {}

    async def scenario(session: ClientSession):
        async def call(name, **arguments):
            return payload(await session.call_tool(name, arguments))

        seen["lexical"] = await call("search", query="kiwi harvest", mode="lexical")
        seen["context"] = await call("context", query="travel per diem", as_of="2021-03-01", top_k=2)
        seen["filtered"] = await call("context", query="harvest", path=["farm/**"])
        seen["related"] = await call("related", path_or_id="farm/orchard.md", top_k=2)
        seen["graph"] = await call("graph", path_or_id="policies/travel-v2.md", depth=1)
        seen["whole"] = await call("graph")
        seen["history"] = await call("history", path_or_id="farm/diary.md")
        seen["changes"] = await call("changes", since="2026-05-01")

    run_client(server_parameters(vault, index_dir), tmp_path / "mcp.err", scenario)

    cli_lexical = cli.json("query", "kiwi harvest", "--mode", "lexical", "--json", "--no-track")
    assert [h["chunk_id"] for h in seen["lexical"]["hits"]] == [h["chunk_id"] for h in cli_lexical]
    context = seen["context"]
    assert context["as_of"] == "2021-03-01T12:00:00Z" and context["hits"] >= 1
    printed = cli("query", "travel per diem", "--as-of", "2021-03-01", "--top-k", "2", "--context", "--no-track").stdout
    assert context["context"] == printed  # the tool gives what `query --context` prints
    assert "policies/travel-v1.md" in printed and "30 euros" in printed and "valid: 2020-01-01 to 2022-01-01" in printed
    assert all(line.startswith("    |") for line in printed.splitlines() if "euros per day" in line)
    assert "farm/" in seen["filtered"]["context"] and "policies/" not in seen["filtered"]["context"]
    assert [n["path"] for n in seen["related"]["related"]][:1] == ["farm/diary.md"]
    assert {n["path"] for n in seen["graph"]["nodes"]} == {"policies/travel-v1.md", "policies/travel-v2.md"}
    assert len(seen["whole"]["nodes"]) == 4 and seen["history"]["path"] == "farm/diary.md"
    assert seen["changes"] == cli.json("changes", "--since", "2026-05-01", "--json")
    assert {a["path"] for a in seen["changes"]["added"]} == {
        "policies/travel-v1.md",
        "policies/travel-v2.md",
        "farm/orchard.md",
        "farm/diary.md",
    }
