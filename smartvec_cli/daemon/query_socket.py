"""Queries answered by a daemon (``watch`` or ``mcp``) over a Unix socket in the index folder.

A terminal query costs milliseconds when the model is already loaded, instead of the
seconds it takes to import and load it. The protocol is one JSON line each way over a
fresh connection:

    request   {"query": "...", "id": ..., "as_of": "<ISO time>" | null,
               "options": {<QueryRequest.to_json()>, "weights" may be the --weights text},
               "now": "<ISO time>" | null}
    response  {"hits": [<hit with explain>, ...], "as_of": "<ISO time>" | null, "as_of_phrase": "..." | null}
          or  {"error": "...", "exit_code": 1}

``now`` is the client's ``--now`` (null: the wall clock), so an answer does not depend on
how the daemon was started. The daemon checks the options as the command line would, so
a bad value is the same one-line error either way. ``exit_code: null`` means the daemon
could not understand the request (e.g. an older daemon and a newer client): the client
then answers by itself, as it does when there is no socket, nobody listens on it (a
stale file left by a killed daemon), or the daemon does not answer in time. The socket
file is mode 0600.

Many clients may ask at once (``QueryServer``): a request is at most ``MAX_REQUEST`` bytes and
must arrive within ``REQUEST_TIMEOUT`` of its connection; one that is larger, slower, not JSON,
nested too deeply or not an object gets ``{"error": "bad request: ...", "exit_code": null}``.

The client half (``ask_daemon``) imports nothing but the standard library, ``clock``,
``errors`` and ``store.layout``: a warm ``query`` process never loads numpy, the vector
index or SQLite.
"""

from __future__ import annotations

import json
import os
import selectors
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import SmartvecError
from ..store.layout import IndexLayout, guard_index_folder

CONNECT_TIMEOUT = 0.5
ANSWER_TIMEOUT = 15.0
REQUEST_TIMEOUT = 5.0  # from accepting a connection to its complete request line
REPLY_TIMEOUT = 10.0  # for writing a reply to a client that reads slowly
MAX_REQUEST = 1 << 20  # a question, its options and its id; a client with more answers by itself
MAX_LINE = 64 << 20  # a reply: up to 1000 hits with their explanations
BACKLOG = 512  # connections the kernel holds while the daemon is busy (Linux caps it at somaxconn)
MAX_OPEN = 256  # requests being read, queued or answered at once; more get a "busy" reply
WORKERS = 4
READ_CHUNK = 64 << 10
UNIX_PATH_MAX = 107  # sun_path is 108 bytes on Linux, with a terminating NUL

Log = Callable[[str], None]


def socket_path(index_dir: Path) -> Path:
    return IndexLayout(Path(index_dir)).socket


def usable_path(path: Path) -> bool:
    return len(os.fsencode(str(path))) <= UNIX_PATH_MAX


class DaemonError(SmartvecError):
    """The daemon answered with an error that the direct path would have raised too."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


def ask_daemon(
    index_dir: Path, text: str, options: dict, now: str | None = None, question_id=None, as_of: str | None = None
) -> dict | None:
    """The answer (``Answer.to_json()``: hits as dicts, and the as-of time it is about) of a running daemon,
    or None when there is none to ask. Raises ``DaemonError`` with the error the direct path would give."""
    path = socket_path(index_dir)
    if not usable_path(path) or not path.exists():
        return None
    guard_index_folder(Path(index_dir))  # a folder someone else planted: refused, as the direct path refuses it
    try:
        request = json.dumps(
            {"query": text, "id": question_id, "as_of": as_of, "options": options, "now": now}, ensure_ascii=False
        ).encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # an option the protocol cannot carry: answer directly
        return None
    if len(request) >= MAX_REQUEST:  # the daemon would refuse it
        return None
    conn = connect(path)
    if conn is None:
        return None
    if not served_by_us(conn):
        conn.close()
        return None
    try:
        conn.settimeout(ANSWER_TIMEOUT)
        conn.sendall(request + b"\n")
        with conn.makefile("rb") as stream:
            line = stream.readline(MAX_LINE)
        response = json.loads(line)
    except (OSError, ValueError):
        return None
    finally:
        conn.close()
    if isinstance(response, dict) and isinstance(response.get("hits"), list):
        return response
    if isinstance(response, dict) and isinstance(response.get("exit_code"), int):
        raise DaemonError(str(response.get("error")), response["exit_code"])
    return None


def served_by_us(conn: socket.socket) -> bool:
    """Whether the process at the other end runs as this user (Linux's ``SO_PEERCRED``; elsewhere the socket's
    0600 mode in a folder of ours stands for it): another user's daemon could answer anything."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    import struct

    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return False
    return uid == os.geteuid()


def connect(path: Path) -> socket.socket | None:
    """A connection to the daemon, or None when nobody listens. A full listen queue (EAGAIN: a burst of
    clients) is tried again until ``CONNECT_TIMEOUT``, rather than sending the client off to load the model."""
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(CONNECT_TIMEOUT)
        try:
            conn.connect(str(path))
            return conn
        except BlockingIOError:
            conn.close()
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.005)
        except OSError:
            conn.close()
            return None


class SharedEmbedder:
    """The daemon's one model, shared by its batches and its query threads one call at a time.

    A query that arrives during a batch waits for the current embedding call (one
    mini-batch), not for the whole batch.
    """

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._lock = threading.Lock()

    @property
    def fingerprint(self) -> str:
        return self.inner.fingerprint

    def embed(self, texts):
        with self._lock:
            return self.inner.embed(texts)

    def embed_query(self, texts):
        from ..embed import embed_queries

        with self._lock:
            return embed_queries(self.inner, texts)


class QueryService:
    """Answers requests from the index as last written, through a ``Vault`` of its own (``core.api``): the
    daemon's own batches hand over their store (``adopt``: its ANN index already in memory); a change by another
    writer is noticed through the database's ANN generation and the store is opened again. Each request is
    answered at its client's ``--now`` (``Vault.at``, the same store and model).

    Answers run one at a time, whichever worker of the socket asks: the store's database
    connection and its ANN index in memory serve one reader, and the model is shared with the
    daemon's batches (``SharedEmbedder``)."""

    def __init__(self, workspace, embedder, log: Log):
        from ..core.api import Vault

        self.vault = Vault(workspace, embedder)
        self.log = log
        self._lock = threading.Lock()

    def adopt(self, writer) -> None:
        """Serve from the store the ``writer`` vault's last ``update`` left open, its ANN index in step with the
        database."""
        with self._lock:
            self.vault.adopt_reader(writer)

    def close(self) -> None:
        with self._lock:
            self.vault.close()

    def answer(self, request: dict) -> dict:
        from ..core.api import QueryRequest, Question

        try:
            text = request["query"]
            if not isinstance(text, str):
                raise TypeError("'query' must be a string")
            options = request.get("options") or {}
            if not isinstance(options, dict):
                raise TypeError("'options' must be an object")
            as_of = request.get("as_of") or None  # a moment or words; the engine resolves them
            if as_of is not None and not isinstance(as_of, str):
                raise TypeError("'as_of' must be a string")
            vault = self.vault.at(request.get("now"))
        except (KeyError, TypeError, ValueError, SmartvecError) as exc:
            return {"error": f"bad request: {exc}", "exit_code": None}
        try:
            asked = QueryRequest.from_json(options)
        except (TypeError, ValueError, AttributeError) as exc:  # e.g. weights that are not numbers, or not a mapping
            return {"error": f"bad request: {exc}", "exit_code": None}
        except SmartvecError as exc:  # a bad value the command line would refuse the same way
            return {"error": str(exc), "exit_code": exc.exit_code}
        try:
            with self._lock:
                try:
                    answer = vault.ask(Question(text, request.get("id"), as_of), asked)
                finally:
                    for notice in self.vault.take_notices():
                        self.log(f"warning: {notice}")
        except SmartvecError as exc:
            return {"error": str(exc), "exit_code": exc.exit_code}
        except Exception as exc:  # one bad question must not take the daemon down
            self.log(f"error: query failed: {type(exc).__name__}: {exc}")
            return {"error": f"{type(exc).__name__}: {exc}", "exit_code": 1}
        return answer.to_json()


class QueryServer:
    """The socket, served from background threads. Start it only while holding the watch lock:
    it replaces whatever socket file a previous daemon left behind.

    One thread accepts connections and reads every request without blocking, each against its
    own deadline and size bound, so a slow or huge client costs a file descriptor and never
    holds up the others; a complete line goes to a small pool of workers, which parse it,
    answer and write the reply (the answers themselves run one at a time, see ``QueryService``).
    Whatever cannot be answered (too large, too slow, not JSON, nested too deeply, not an
    object) gets an error reply with ``exit_code: null``, which sends a real client back to
    answering by itself, and one line in the log.
    """

    def __init__(self, path: Path, answer: Callable[[dict], dict], log: Log, workers: int = WORKERS):
        self.path = Path(path)
        self.answer = answer
        self.log = log
        self.workers = workers
        self._listener: socket.socket | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._thread: threading.Thread | None = None
        self._inode: int | None = None
        self._open: set[socket.socket] = set()  # accepted and not yet closed: being read, queued or answered
        self._open_lock = threading.Lock()

    def start(self) -> bool:
        """Listen; False (and a log line) when the socket cannot be created, queries then work without it."""
        if not usable_path(self.path):
            self.log(f"warning: {self.path} is too long for a Unix socket; queries will not use the daemon")
            return False
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.path.unlink(missing_ok=True)
            old_umask = os.umask(0o177)
            try:
                listener.bind(str(self.path))
            finally:
                os.umask(old_umask)
            os.chmod(self.path, 0o600)
            listener.listen(BACKLOG)
            self._inode = self.path.stat().st_ino
        except OSError as exc:
            listener.close()
            self.log(f"warning: cannot listen on {self.path}: {exc.strerror or exc}; queries will not use the daemon")
            return False
        listener.setblocking(False)
        self._listener = listener
        self._wake = socket.socketpair()
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="query-answer")
        self._thread = threading.Thread(target=self._serve, name="query-socket", daemon=True)
        self._thread.start()
        return True

    def close(self) -> None:
        """Stop accepting, let the answers in progress finish (a reply waits at most ``REPLY_TIMEOUT``),
        drop the queued ones and remove the socket file if it is still ours."""
        listener, wake, thread, pool = self._listener, self._wake, self._thread, self._pool
        if listener is None or wake is None or thread is None or pool is None:
            return  # never started, or closed already: ``start`` sets all four together
        wake[1].send(b"x")
        thread.join()
        pool.shutdown(wait=True, cancel_futures=True)
        with self._open_lock:
            left, self._open = self._open, set()
        for conn in left:
            conn.close()
        listener.close()
        for end in wake:
            end.close()
        self._listener = None
        try:
            if self.path.stat().st_ino == self._inode:
                self.path.unlink()
        except OSError:
            pass

    def _serve(self) -> None:
        listener, wake = self._listener, self._wake
        assert listener is not None and wake is not None, "served only after start"
        selector = selectors.DefaultSelector()
        selector.register(listener, selectors.EVENT_READ)
        selector.register(wake[0], selectors.EVENT_READ)
        reading: dict[socket.socket, _Pending] = {}
        try:
            while True:
                deadline = min((pending.deadline for pending in reading.values()), default=None)
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                for key, _ in selector.select(timeout):
                    if key.fileobj is wake[0]:
                        return
                    if key.fileobj is listener:
                        self._accept(selector, reading, listener)
                    else:
                        conn = key.fileobj
                        assert isinstance(conn, socket.socket), "only sockets are registered"
                        self._read(selector, reading, conn)
                now = time.monotonic()
                for conn in [conn for conn, pending in reading.items() if pending.deadline <= now]:
                    self._refuse(selector, reading, conn, f"no complete request within {REQUEST_TIMEOUT:g}s")
        finally:
            selector.close()

    def _accept(self, selector, reading: dict, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of file descriptors: the clients still queued answer by themselves
                self.log(f"warning: query socket: cannot accept: {exc.strerror or exc}")
                return
            with self._open_lock:
                busy = len(self._open) >= MAX_OPEN
                if not busy:
                    self._open.add(conn)
            if busy:  # a fresh socket's send buffer is empty: this cannot block
                try:
                    conn.send(encode({"error": f"busy: {MAX_OPEN} requests in progress", "exit_code": None}))
                except OSError:
                    pass
                conn.close()
                continue
            conn.setblocking(False)
            reading[conn] = _Pending(time.monotonic() + REQUEST_TIMEOUT)
            selector.register(conn, selectors.EVENT_READ)

    def _read(self, selector, reading: dict, conn: socket.socket) -> None:
        pending = reading[conn]
        try:
            chunk = conn.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # the client went away: nobody to answer
            self._hand_over(selector, reading, conn)
            return self._finish(conn)
        start = len(pending.data)
        pending.data += chunk
        end = pending.data.find(b"\n", start)
        if end > MAX_REQUEST or (end < 0 and len(pending.data) > MAX_REQUEST):
            self._refuse(selector, reading, conn, f"larger than {MAX_REQUEST >> 20} MiB")
        elif end >= 0 or (not chunk and pending.data):  # a line, or the last one without its newline
            self._hand_over(selector, reading, conn)
            self._submit(self._respond, conn, bytes(pending.data[:end] if end >= 0 else pending.data))
        elif not chunk:
            self._hand_over(selector, reading, conn)
            self._finish(conn)

    def _hand_over(self, selector, reading: dict, conn: socket.socket) -> None:
        """From the reading loop to a worker: blocking, with the reply's time bound."""
        selector.unregister(conn)
        del reading[conn]
        conn.setblocking(True)
        conn.settimeout(REPLY_TIMEOUT)

    def _refuse(self, selector, reading: dict, conn: socket.socket, reason: str) -> None:
        self.log(f"warning: query socket: refused a request: {reason}")
        self._hand_over(selector, reading, conn)
        self._submit(self._reply, conn, {"error": f"bad request: {reason}", "exit_code": None})

    def _submit(self, work: Callable[..., None], *args: object) -> None:
        """Queue ``work`` for the pool, which exists from ``start`` to ``close``."""
        assert self._pool is not None, "requests are read only while the pool exists"
        self._pool.submit(work, *args)

    def _respond(self, conn: socket.socket, line: bytes) -> None:
        try:
            request = json.loads(line)
        except RecursionError:
            return self._bad(conn, "nested too deeply")
        except ValueError as exc:  # UnicodeDecodeError included
            return self._bad(conn, f"not JSON ({exc})")
        if not isinstance(request, dict):
            return self._bad(conn, "not a JSON object")
        try:
            response = self.answer(request)
        except Exception as exc:  # a last guard: QueryService.answer turns its own failures into replies
            self.log(f"error: query socket: {type(exc).__name__}: {exc}")
            response = {"error": f"{type(exc).__name__}: {exc}", "exit_code": 1}
        self._reply(conn, response)

    def _bad(self, conn: socket.socket, reason: str) -> None:
        self.log(f"warning: query socket: refused a request: {reason}")
        self._reply(conn, {"error": f"bad request: {reason}", "exit_code": None})

    def _reply(self, conn: socket.socket, response: dict) -> None:
        try:
            conn.sendall(encode(response))
        except OSError:
            pass  # the client went away or stopped reading; it answers by itself
        finally:
            self._finish(conn)

    def _finish(self, conn: socket.socket) -> None:
        with self._open_lock:
            self._open.discard(conn)
        conn.close()


@dataclass
class _Pending:
    """A request being read: its bytes so far and when it must be complete."""

    deadline: float
    data: bytearray = field(default_factory=bytearray)


def encode(response: dict) -> bytes:
    try:
        text = json.dumps(response, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        text = json.dumps({"error": f"cannot encode the answer: {type(exc).__name__}: {exc}", "exit_code": 1})
    return text.encode("utf-8") + b"\n"
