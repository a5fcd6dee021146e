"""Queries answered by a daemon (``watch`` or ``mcp``) over a Unix socket in the index folder.

A terminal query costs milliseconds when the model is already loaded, instead of the
seconds it takes to import and load it. The protocol is one JSON line each way over a
fresh connection:

    request   {"query": "...", "id": ..., "as_of": "<ISO time>" | null,
               "options": {<SearchOptions.to_json()>, "weights" may be the --weights text},
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

The client half (``ask_daemon``) imports nothing but the standard library, ``clock``,
``errors`` and ``store.layout``: a warm ``query`` process never loads numpy, the vector
index or SQLite.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable

from ..errors import SmartvecError
from ..store.layout import IndexLayout

CONNECT_TIMEOUT = 0.5
ANSWER_TIMEOUT = 15.0
REQUEST_TIMEOUT = 5.0
MAX_LINE = 64 << 20
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
    try:
        request = json.dumps(
            {"query": text, "id": question_id, "as_of": as_of, "options": options, "now": now}, ensure_ascii=False
        )
    except TypeError:  # an option the protocol cannot carry: answer directly
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(CONNECT_TIMEOUT)
        conn.connect(str(path))
        conn.settimeout(ANSWER_TIMEOUT)
        conn.sendall(request.encode("utf-8") + b"\n")
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


class QueryService:
    """Answers requests from the index as last written: the daemon's own batches hand over their
    store (its ANN index already in memory); a change by another writer is noticed through the
    database's ANN generation and the store is opened again."""

    def __init__(self, workspace, embedder, log: Log):
        self.ws = workspace
        self.embedder = embedder
        self.log = log
        self._lock = threading.Lock()
        self._store = None
        self._synced_generation = None

    def adopt(self, store) -> None:
        """Serve from ``store`` from now on; its ANN index must be in step with the database."""
        with self._lock:
            self._replace(store, store.generation)

    def close(self) -> None:
        with self._lock:
            self._replace(None, None)

    def _replace(self, store, generation) -> None:
        old, self._store, self._synced_generation = self._store, store, generation
        if old is not None and old is not store:
            old.close()

    def _current_store(self):
        store = self._store
        if store is not None and store.generation == self._synced_generation:
            return store
        fresh = self.ws.open_store()
        try:
            fresh.check_fingerprint(self.embedder.fingerprint)
            generation = fresh.generation
            fresh.load_ann()
        except BaseException:
            fresh.close()
            raise
        for notice in fresh.notices:
            self.log(f"warning: {notice}")
        self._replace(fresh, generation)
        return fresh

    def answer(self, request: dict) -> dict:
        from ..clock import Clock
        from ..core.api import search_options_from_json
        from ..core.query import Question, QueryEngine

        try:
            text = request["query"]
            if not isinstance(text, str):
                raise TypeError("'query' must be a string")
            options = request.get("options") or {}
            if not isinstance(options, dict):
                raise TypeError("'options' must be an object")
            as_of = request.get("as_of") or None  # a moment or words; the engine resolves them
            workspace = replace(self.ws, clock=Clock(request.get("now")))
        except (KeyError, TypeError, ValueError, SmartvecError) as exc:
            return {"error": f"bad request: {exc}", "exit_code": None}
        try:
            options = search_options_from_json(options)
        except TypeError as exc:
            return {"error": f"bad request: {exc}", "exit_code": None}
        except SmartvecError as exc:  # a bad value the command line would refuse the same way
            return {"error": str(exc), "exit_code": exc.exit_code}
        try:
            with self._lock:
                engine = QueryEngine(workspace, self._current_store(), lambda: self.embedder)
                answer = engine.ask(Question(text, request.get("id"), as_of), options)
        except SmartvecError as exc:
            return {"error": str(exc), "exit_code": exc.exit_code}
        except Exception as exc:  # one bad question must not take the daemon down
            self.log(f"error: query failed: {type(exc).__name__}: {exc}")
            return {"error": f"{type(exc).__name__}: {exc}", "exit_code": 1}
        return answer.to_json()


class _Handler(socketserver.StreamRequestHandler):
    timeout = REQUEST_TIMEOUT

    def handle(self) -> None:
        try:
            line = self.rfile.readline(MAX_LINE)
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                response = {"error": f"bad request: {exc}", "exit_code": None}
            else:
                response = self.server.answer(request)
            self.wfile.write(json.dumps(response, ensure_ascii=False).encode("utf-8") + b"\n")
        except OSError:
            pass  # the client went away or timed out; it answers by itself


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, path: str, answer: Callable[[dict], dict]):
        self.answer = answer
        super().__init__(path, _Handler)


class QueryServer:
    """The socket, served from a background thread. Start it only while holding the watch lock:
    it replaces whatever socket file a previous daemon left behind."""

    def __init__(self, path: Path, answer: Callable[[dict], dict], log: Log):
        self.path = Path(path)
        self.answer = answer
        self.log = log
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._inode: int | None = None

    def start(self) -> bool:
        """Listen; False (and a log line) when the socket cannot be created, queries then work without it."""
        if not usable_path(self.path):
            self.log(f"warning: {self.path} is too long for a Unix socket; queries will not use the daemon")
            return False
        try:
            self.path.unlink(missing_ok=True)
            old_umask = os.umask(0o177)
            try:
                self._server = _Server(str(self.path), self.answer)
            finally:
                os.umask(old_umask)
            os.chmod(self.path, 0o600)
            self._inode = self.path.stat().st_ino
        except OSError as exc:
            self.log(f"warning: cannot listen on {self.path}: {exc.strerror or exc}; queries will not use the daemon")
            return False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2}, name="query-socket", daemon=True)
        self._thread.start()
        return True

    def close(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self._server = None
        try:
            if self.path.stat().st_ino == self._inode:
                self.path.unlink()
        except OSError:
            pass

