"""smartvec as an agent's memory: an MCP server over the Python API (``core.api.Vault``).

Coding and chat agents speak the Model Context Protocol; this gives them the vault's
time-aware search (as-of questions, warnings about superseded and contradicted passages,
calibrated confidence), feedback that changes what they get next time, and the notes'
contents and lineage. It is transport only: every tool is one ``Vault`` call, whose
result is what the matching command prints with ``--json``.

The model and the index load once: the model in the background as the server starts, so a host sees it ready at
once (a search that comes first waits for it). Tools run one at a time (the
SDK runs them in worker threads; a ``Vault`` keeps one reader store), and a failure the
user could act on (a bad date, an unknown passage, a busy writer lock) is a tool error
with the same one-line message the command line would print, after which the server
keeps serving. Writers take the writer lock like every other writer, waiting at most
``wait`` seconds: an agent is better told at once that the index is busy than left
hanging. Over stdio, a malformed JSON-RPC message gets the error reply the JSON-RPC 2.0
specification asks for (``screen``) and the server goes on reading.

While it runs, the server also answers ``smartvec query`` processes over the query
socket, as ``watch`` does, unless a ``watch`` daemon already serves this index.
"""

from __future__ import annotations

import hmac
import inspect
import json
import os
import secrets
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, AsyncIterator, BinaryIO, Callable, Iterator, Literal, Protocol

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    ToolAnnotations,
    jsonrpc_message_adapter,
)
from pydantic import Field, ValidationError

from .. import __version__
from ..core.api import TOP_K_MAX, TOP_K_MIN, Vault
from ..errors import SmartvecError, UsageError
from ..store.lock import FileLock, LockBusyError
from .query_socket import QueryServer, QueryService, SharedEmbedder, socket_path

Log = Callable[[str], None]

SERVER_NAME = "smartvec"
DEFAULT_WAIT = 2.0
LOOPBACK = "127.0.0.1"
INSTRUCTIONS = (
    "smartvec is the user's long-term memory: their markdown notes, indexed with time, trust and relations. "
    "Use `search` before answering from memory; each hit has a calibrated `confidence`, its validity window and "
    "`warnings` (superseded, contradicted, expired, corrected): say so when a hit carries one. For questions about "
    "the past, pass `as_of` (or name the date in the query). When the user confirms or refutes a hit, send "
    "`feedback` on its `chunk_id` so the next search ranks it accordingly. `note` and `history` show a whole note "
    "and its versions, `related` the notes most like one, `graph` the links around one; `context` gives the "
    "hits of a search as one block to put in a prompt; `changes` says what changed since a date; `status` says "
    "what is indexed."
)

Query = Annotated[
    str,
    Field(
        description="What to look for, in plain words. A date in it ('back in 2023', 'in March 2022', 'mid-2022', "
        "'before 2023') sets as_of."
    ),
]
AsOf = Annotated[
    str | None,
    Field(
        description="Answer as of this date or time: ISO 8601 (e.g. 2023-03-01 or 2023-03-01T09:00) or the words "
        "a query may use ('March 2023', 'mid-2022', 'before 2023', 'last spring'). "
        "Default: a date named in the query, else now."
    ),
]
TopK = Annotated[
    int,
    Field(description="How many passages to return.", json_schema_extra={"minimum": TOP_K_MIN, "maximum": TOP_K_MAX}),
]
Mode = Annotated[
    Literal["smart", "cosine", "lexical"],
    Field(
        description="smart: ranked by meaning, time, trust and relations (use this). cosine: plain similarity over "
        "every stored version, for comparison. lexical: full-text (BM25) over every stored version, for exact "
        "words, names and identifiers. Only smart mode gives a hit a confidence; in the others it is null."
    ),
]
ChangesSince = Annotated[
    str, Field(description="From this day on: an ISO date or words such as 'March 2024' or 'last week'.")
]
ChangesUntil = Annotated[str | None, Field(description="Up to the end of this day (ISO date or words); default: now.")]
Depth = Annotated[int, Field(description="How many links away from the note to go (1: its direct neighbours).")]
Limit = Annotated[
    int | None,
    Field(description="At most this many notes, the nearest to the note first (default: all of them)."),
]
MaybeNote = Annotated[
    str | None, Field(description="The note to start from (path, id or title); default: the whole vault.")
]
PathGlobs = Annotated[
    list[str] | None,
    Field(
        description="Only notes whose vault path, or a folder of it, matches one of these globs ('projects/**', "
        "'*2023*')."
    ),
]
Tags = Annotated[
    list[str] | None,
    Field(description="Only notes carrying every one of these tags ('project' also matches 'project/alpha')."),
]
Fields = Annotated[
    dict[str, str] | None,
    Field(
        description='Only notes whose front matter holds each of these field values, e.g. {"status": "done"} (without '
        "case)."
    ),
]
Since = Annotated[
    str | None,
    Field(
        description="Only notes dated on or after this date (ISO or words such as 'March 2023'); a note's date is its "
        "updated, else date/created field, else its file time."
    ),
]
Until = Annotated[
    str | None,
    Field(description="Only notes dated on or before this date (ISO or words; 'March 2023' includes all of March)."),
]
IncludeArchived = Annotated[
    bool, Field(description="Also return archived (superseded) versions, even when not valid at the as-of time.")
]
ChunkId = Annotated[str, Field(description="The chunk_id of a search hit (CHUNK_ID@N names version N).")]
Verdict = Annotated[
    Literal["up", "down", "correct"],
    Field(
        description="up: the passage was right. down: it was wrong or stale. correct: it was wrong, and `correction` "
        "says what is right."
    ),
]
Correction = Annotated[str | None, Field(description="The right answer, in a sentence; only with verdict 'correct'.")]
NoteName = Annotated[
    str,
    Field(description="A note's vault path (with or without .md), note id, file name or title; a hit's `path` works."),
]

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)


class MemoryServer(MCPServer):
    """``MCPServer`` whose argument errors are one line (``top_k: Input should be ...``), like every other tool error,
    and whose stdio transport answers every malformed message (``ScreenedInput``)."""

    log: Log = staticmethod(lambda text: None)

    async def run_stdio_async(self) -> None:
        """``MCPServer.run_stdio_async`` with stdin read through ``ScreenedInput``."""
        stdin = ScreenedInput(sys.stdin.buffer, self.log)
        # The SDK asks for an ``AsyncFile[str]`` but only iterates it asynchronously, as ``ScreenedInput`` does.
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
            stdin.reply_on(write_stream)
            await self._lowlevel_server.run(
                read_stream, write_stream, self._lowlevel_server.create_initialization_options()
            )

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {argument_errors(exc.__cause__)}") from exc.__cause__
            raise


class _Replies(Protocol):
    """The transport's write stream, as far as error replies use it."""

    async def send(self, item: SessionMessage, /) -> None: ...


class ScreenedInput:
    """The stdio transport's stdin, with every line checked before the SDK sees it.

    The SDK decodes stdin with replacement characters (an invalid byte inside a method name
    becomes part of it) and drops, with no reply, each line it cannot read as a JSON-RPC
    message: a client that sends one waits forever for its answer. Here each raw line is
    screened (``screen``); a malformed one is answered as JSON-RPC 2.0 says, through the
    transport's own writer (so replies never interleave), and one line goes to the log; the
    rest pass on unchanged. Nothing else reads stdin while the server runs: its tools never do.
    """

    def __init__(self, raw: BinaryIO, log: Log):
        self._lines = anyio.wrap_file(raw)
        self._log = log
        self._replies: _Replies | None = None
        self._attached = anyio.Event()

    def reply_on(self, write_stream: _Replies) -> None:
        """Send error replies on the transport's write stream (it exists only once the transport runs)."""
        self._replies = write_stream
        self._attached.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for raw in self._lines:
            text, error = screen(raw)
            if error is not None:
                self._log(f"warning: MCP: answered a malformed message with {error.error.code}: {error.error.message}")
                await self._attached.wait()
                assert self._replies is not None, "set by reply_on before the wait ends"
                try:
                    await self._replies.send(SessionMessage(error))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
            elif text is not None:
                yield text


def screen(raw: bytes) -> tuple[str | None, JSONRPCError | None]:
    """One line from the client: (its text, to pass on) or (None, the error reply), or (None, None) for a
    line that gets no reply (a blank line, a notification with bad params: notifications are never answered).

    The JSON-RPC 2.0 codes: -32700 for what is not JSON (or not UTF-8, which JSON text must be), -32600
    for JSON that is not a request, notification or response (arrays too: MCP has no batches), -32602
    for a request whose ``params`` is not an object. The reply carries the request's id when it has a
    usable one, else null."""
    if not raw.strip():
        return None, None
    try:
        text = raw.decode("utf-8")
        message = json.loads(text, parse_constant=not_json)
    except UnicodeDecodeError:
        return None, rpc_error(None, PARSE_ERROR, "Parse error: the message is not UTF-8")
    except RecursionError:
        return None, rpc_error(None, PARSE_ERROR, "Parse error: nested too deeply")
    except ValueError as exc:
        return None, rpc_error(None, PARSE_ERROR, f"Parse error: {exc}")
    if isinstance(message, list):
        return None, rpc_error(
            None, INVALID_REQUEST, "Invalid Request: a batch (JSON array); send one message per line"
        )
    if not isinstance(message, dict):
        return None, rpc_error(None, INVALID_REQUEST, "Invalid Request: not a JSON object")
    has_id = "id" in message
    ident = message.get("id")
    usable_id = isinstance(ident, (str, int)) and not isinstance(ident, bool)
    reply_id = ident if usable_id else None
    if message.get("jsonrpc") != "2.0":
        return None, rpc_error(reply_id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if has_id and not usable_id:
        return None, rpc_error(None, INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    if "method" in message:
        if not isinstance(message["method"], str):
            return None, rpc_error(reply_id, INVALID_REQUEST, 'Invalid Request: "method" must be a string')
        if not isinstance(message.get("params"), (dict, type(None))):
            return None, rpc_error(
                reply_id, INVALID_PARAMS, 'Invalid params: "params" must be an object'
            ) if has_id else None
    elif not (has_id and ("result" in message or "error" in message)):
        return None, rpc_error(
            reply_id,
            INVALID_REQUEST,
            'Invalid Request: neither a request ("method") nor a response ("id" with "result" or "error")',
        )
    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        if "method" in message and not has_id:
            return None, None
        return None, rpc_error(reply_id, INVALID_REQUEST, f"Invalid Request: {argument_errors(exc)}")
    return text, None


def not_json(constant: str):
    """``json.loads`` takes NaN and Infinity; JSON does not."""
    raise ValueError(f"{constant} is not JSON")


def rpc_error(ident, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=ident, error=ErrorData(code=code, message=message))


def argument_errors(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"])
        parts.append(f"{where}: {item['msg']}" if where else item["msg"])
    return "; ".join(parts)


class Memory:
    """The tools' bodies over one ``Vault``, one call at a time; a ``SmartvecError`` becomes a tool error."""

    def __init__(self, vault: Vault):
        self.vault = vault
        self._lock = threading.Lock()

    def call(self, work: Callable[[Vault], Any]) -> Any:
        with self._lock:
            try:
                return work(self.vault)
            except SmartvecError as exc:
                raise ToolError(str(exc)) from None


@contextmanager
def plain_sdk_logging() -> Iterator[None]:
    """``MCPServer()`` with the SDK's log records going to stderr as plain lines, as ``logging.basicConfig`` writes
    them.

    The SDK sets its logging up with a rich handler; importing rich for it cost 0.15 s of CPU before the answer
    to ``initialize``, which an agent host waits for (and gives up on a slow server)."""
    import logging

    from mcp.server.mcpserver import server as sdk_server

    given = sdk_server.configure_logging
    sdk_server.configure_logging = lambda level="INFO": logging.basicConfig(level=level, format="%(message)s")
    try:
        yield
    finally:
        sdk_server.configure_logging = given


def build_server(vault: Vault, log: Log = lambda text: None, feedback_tool: bool = True) -> MemoryServer:
    """The MCP server and its tools over ``vault``; each tool's docstring is its description for the model.
    Without ``feedback_tool`` the server only reads: no client can change what the owner's next query ranks first."""
    with plain_sdk_logging():
        server = MemoryServer(
            SERVER_NAME, title="smartvec memory", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
        )
    server.log = log
    memory = Memory(vault)

    def tool(annotations: ToolAnnotations):
        def register(fn):
            server.add_tool(fn, description=inspect.cleandoc(fn.__doc__), annotations=annotations)
            return fn

        return register

    @tool(READ)
    def search(
        query: Query,
        as_of: AsOf = None,
        top_k: TopK = 5,
        mode: Mode = "smart",
        include_archived: IncludeArchived = False,
        path: PathGlobs = None,
        tag: Tags = None,
        where: Fields = None,
        since: Since = None,
        until: Until = None,
    ) -> dict[str, Any]:
        """Search the user's notes for passages that answer a question, ranked by meaning, time, trust and relations.

        Returns {"as_of", "as_of_phrase", "as_of_period", "as_of_rule", "hits"}: as_of is the moment the answer
        is about (null: now), as_of_phrase the words that named it, as_of_period the first and last day they
        name and as_of_rule how the moment was chosen from them. Each hit (the same as `smartvec query --json`) has
        chunk_id, path, heading, text, score, a calibrated confidence (the probability that this hit answers
        the question; never rising down the list; null in the cosine and lexical modes), state, its validity
        window (valid_from, valid_until), version, warnings
        and url (opens the note: obsidian:// in an Obsidian vault, else file://): read the
        warnings, they say when a passage was superseded, contradicted, expired or corrected. path, tag, where, since
        and until restrict the search to the notes they match (notes_matched says how many; 0 means no hits)."""
        return memory.call(
            lambda v: v.answer(
                query,
                as_of=as_of,
                top_k=top_k,
                mode=mode,
                include_archived=include_archived,
                path=path,
                tag=tag,
                where=where,
                since=since,
                until=until,
            ).to_dict()
        )

    def feedback(chunk_id: ChunkId, verdict: Verdict, correction: Correction = None) -> dict[str, Any]:
        """Tell the memory whether a passage was right, so that later searches rank it accordingly.

        up raises the passage's trust, down lowers it (the next search ranks it below better hits); correct
        lowers it a little (it was partly right: it stays findable) and stores `correction` as a passage of its
        own, linked to it, that answers wherever it is found (in the index, never in the user's notes). Returns
        the passage's trust before and after (trust_before, trust_after), and the correction's chunk_id."""
        if verdict == "correct" and not (correction and correction.strip()):
            raise ToolError("verdict 'correct' needs the right answer in `correction`")
        if verdict != "correct" and correction is not None:
            raise ToolError("`correction` goes with verdict 'correct' only")
        return memory.call(lambda v: v.feedback(chunk_id, verdict, correction).to_dict())

    if feedback_tool:
        tool(WRITE)(feedback)

    @tool(READ)
    def note(path_or_id: NoteName) -> dict[str, Any]:
        """One note as the index knows it: path, title, tags, links, and every passage with its version, state and
        validity window (what `smartvec show` prints)."""
        return memory.call(lambda v: v.show(path_or_id).to_dict())

    @tool(READ)
    def history(path_or_id: NoteName) -> dict[str, Any]:
        """A note's lineage over time: every version of every passage, what replaced what, which note supersedes it,
        whether it needs review, and its feedback events (what `smartvec history` prints)."""
        return memory.call(lambda v: v.history(path_or_id).to_dict())

    @tool(READ)
    def context(
        query: Query,
        as_of: AsOf = None,
        top_k: TopK = 5,
        mode: Mode = "smart",
        include_archived: IncludeArchived = False,
        path: PathGlobs = None,
        tag: Tags = None,
        where: Fields = None,
        since: Since = None,
        until: Until = None,
    ) -> dict[str, Any]:
        """The passages that answer a question as one block of text to put in a prompt (what `smartvec query
        --context` prints): each passage's note path and heading, chunk_id, validity window, confidence and
        warnings, then its text, best first. Same parameters as `search`. Returns {"context", "as_of", "hits"}:
        the block, the moment it is about (null: now) and how many passages it holds."""
        from ..core.context import context_block

        def block(v: Vault) -> dict[str, Any]:
            answer = v.answer(
                query,
                as_of=as_of,
                top_k=top_k,
                mode=mode,
                include_archived=include_archived,
                path=path,
                tag=tag,
                where=where,
                since=since,
                until=until,
            ).to_dict()
            return {
                "context": context_block(query, answer, mode),
                "as_of": answer["as_of"],
                "hits": len(answer["hits"]),
            }

        return memory.call(block)

    @tool(READ)
    def related(path_or_id: NoteName, top_k: TopK = 5) -> dict[str, Any]:
        """The notes most like this one, its own versions left out (what `smartvec related --json` prints): to find
        what else the vault says on a note's subject."""
        return memory.call(lambda v: v.related(path_or_id, top_k=top_k).to_dict())

    @tool(READ)
    def graph(path_or_id: MaybeNote = None, depth: Depth = 1, limit: Limit = None) -> dict[str, Any]:
        """The link graph around a note, or of the whole vault: nodes (note_id, path, title, importance) and edges
        (links, supersedes, contradicts, ...), what `smartvec graph --format json` prints."""
        return memory.call(lambda v: v.graph(path_or_id, depth=depth, limit=limit).to_dict())

    @tool(READ)
    def changes(since: ChangesSince, until: ChangesUntil = None) -> dict[str, Any]:
        """What changed in the notes in a window of time (what `smartvec changes --json` prints): the passages
        added (each naming the version it replaced), replaced (how: edited, superseded, retired, deleted or
        removed, and by what), expired and contradicted, with the time of each. The question a team asks on
        Monday: what changed since last week?"""
        return memory.call(lambda v: v.changes(since, until).to_dict())

    @tool(READ)
    def status() -> dict[str, Any]:
        """What is indexed: notes, passages by lifecycle state, the model, the vector index and the last run."""
        return memory.call(lambda v: v.status().to_dict())

    return server


def parse_http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host: loopback); ``[::1]:PORT`` for IPv6."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or LOOPBACK
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise UsageError(f"bad --http address {text!r}: use HOST:PORT, e.g. 127.0.0.1:8765")
    return host, int(port)


def is_loopback(host: str) -> bool:
    return host == "localhost" or host == "::1" or host.startswith("127.")


# -- who may talk to the HTTP server ----------------------------------------------------------------
# A port on 127.0.0.1 is open to every user of the machine, not only to the one who started the server: without a
# secret, another user who cannot even list a private vault would read its notes through it, and (with the
# feedback tool) plant a "correction" that the owner's next query ranks first.

TOKEN_BYTES = 32


def check_http_access(workspace, host: str, auth: bool) -> None:
    """Refuse what would open the vault to others: ``--no-auth`` off loopback, or on a vault that keeps other users
    out (a private vault served without a token is served to every local user)."""
    if auth:
        return
    if not is_loopback(host):
        raise UsageError(
            f"--no-auth serves only a loopback address, not {host}: anyone who reaches it could read the vault"
        )
    if workspace.private_bits & 0o004:  # others may not read the vault, yet could connect
        raise UsageError(
            f"{workspace.vault} is private to its owner; --no-auth would serve it to every user of this machine: "
            "leave the bearer token on"
        )


def http_token(index_dir: Path, log: Log) -> str:
    """The bearer token HTTP clients must send: read from ``<index>/mcp-token`` (0600, the owner's only), or made
    there at the first start and printed once, on stderr."""
    from ..store.layout import IndexLayout, open_regular
    from ..store.lock import make_index_folder

    path = IndexLayout(index_dir).mcp_token
    if path.exists() or path.is_symlink():
        with os.fdopen(open_regular(path), "rb") as fh:
            token = fh.read(1024).decode("ascii", "replace").strip()
        if len(token) >= 32 and token.isprintable():
            log(f"clients must send 'Authorization: Bearer <token>', the token in {path}")
            return token
        raise SmartvecError(f"{path} does not hold a token: remove it, and the next start makes a new one")
    make_index_folder(Path(index_dir))
    token = secrets.token_urlsafe(TOKEN_BYTES)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(token + "\n")
    log(f"bearer token (shown once; kept in {path}, mode 0600): {token}")
    return token


class BearerAuth:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401 and reaches nothing."""

    def __init__(self, app, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode("ascii")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized: send Authorization: Bearer <token> (see the server\'s mcp-token)"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_http(server: MemoryServer, host: str, port: int, token: str | None) -> None:
    """Streamable HTTP at ``host:port``, behind ``BearerAuth`` when there is a ``token``."""
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(BearerAuth(app, token) if token else app, host=host, port=port, log_level="warning")
    anyio.run(uvicorn.Server(config).serve)


@contextmanager
def query_socket(vault: Vault, embedder, log: Log) -> Iterator[bool]:
    """Answer ``smartvec query`` processes over the index's socket for the block (True), unless there is no
    index yet or a ``watch`` daemon already does (False)."""
    index_dir = vault.ws.index_dir
    if not index_dir.is_dir():
        log(
            f"no index at {index_dir} yet: run 'smartvec index'; queries from the command line will not use this server"
        )
        yield False
        return
    lock = FileLock.watch(index_dir, "smartvec mcp")
    try:
        lock.acquire(0)
    except LockBusyError as exc:
        who = exc.holder.describe() if exc.holder else "another process"
        log(f"{who} answers queries on {socket_path(index_dir)}; this server answers only its MCP client")
        yield False
        return
    except SmartvecError as exc:
        log(f"warning: {exc}; queries from the command line will not use this server")
        yield False
        return
    service = QueryService(vault.ws, embedder, log)
    server = QueryServer(socket_path(index_dir), service.answer, log)
    try:
        yield server.start()
    finally:
        server.close()
        service.close()
        lock.release()


def warm_up(embedder: SharedEmbedder, log: Log) -> None:
    """Load the model while the server already answers ``initialize`` and ``tools/list``: agent hosts give up on a
    server that takes seconds to start. A search that comes first waits for the load (``SharedEmbedder``'s lock)."""
    started = time.monotonic()
    try:
        embedder.embed(["warm up"])
    except Exception as exc:  # the first search reports it as a tool error; the server keeps serving
        log(f"warning: the model could not be loaded: {exc}")
        return
    log(f"model {embedder.name} ready in {time.monotonic() - started:.1f}s")


def start_warm_up(shared: SharedEmbedder, log: Log) -> None:
    """Start loading the model once the SDK and the core are imported: loaded beside those imports, it slowed the
    answer to ``initialize`` down. Not a daemon thread: onnxruntime aborts a process that ends while it makes or
    runs a session (``terminate called without an active exception``, exit 134, for a client that connects and
    leaves at once), so the interpreter waits for the load to end before it exits."""
    threading.Thread(target=warm_up, args=(shared, log), name="smartvec-mcp-warm-up").start()


def serve(
    workspace,
    embedder,
    http: tuple[str, int] | None = None,
    wait: float = DEFAULT_WAIT,
    log: Log = lambda text: None,
    auth: bool = True,
    feedback_tool: bool | None = None,
) -> None:
    """Serve MCP over stdio (or streamable HTTP at ``http``) until the client goes away, SIGINT or SIGTERM.

    Over HTTP a bearer token is required unless ``auth`` is False (loopback only, never for a private vault), and
    the feedback tool is off unless ``feedback_tool`` is True: a server reachable by others only reads."""
    token = None
    if http is not None:
        check_http_access(workspace, http[0], auth)
        if auth:
            token = http_token(workspace.index_dir, log)
        else:
            log(f"warning: --no-auth: every user of this machine can read {workspace.vault} through this server")
    writes = feedback_tool if feedback_tool is not None else http is None
    shared = SharedEmbedder(embedder)
    with Vault(workspace, embedder=shared, wait=wait) as vault:
        server = build_server(vault, log, feedback_tool=writes)
        start_warm_up(shared, log)
        with query_socket(vault, shared, log) as listening:
            where = f"; answering queries on {socket_path(workspace.index_dir)}" if listening else ""
            try:
                if http is None:
                    log(f"serving MCP on stdio for {workspace.vault}{where}")
                    server.run("stdio")
                else:
                    host, port = http
                    if not is_loopback(host):
                        log(f"warning: {host} is not a loopback address: anyone who can reach it can read this vault")
                    netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
                    mode = "" if writes else " (read-only: no feedback tool)"
                    log(f"serving MCP on http://{netloc}/mcp for {workspace.vault}{mode}{where}")
                    run_http(server, host, port, token)
            except KeyboardInterrupt:
                pass
    for notice in vault.notices:
        log(f"warning: {notice}")
    log("stopped")
