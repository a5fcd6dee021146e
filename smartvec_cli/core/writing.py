"""One writer at a time, for every caller: the CLI's writer commands, the Python API, the MCP server."""

from __future__ import annotations

import json
import os
import socket
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from ..clock import Clock
from ..config import write_default_config
from ..errors import SmartvecError
from ..store.lock import DEFAULT_WAIT, Holder, LockBusyError
from ..store.protocols import Transactions
from ..store.store import RUNNING, Store
from .workspace import Workspace

OnWait = Callable[["Holder | None"], None]
OnNotice = Callable[[str], None]


@contextmanager
def writer_lock(
    ws: Workspace,
    command: str,
    wait: float = DEFAULT_WAIT,
    on_wait: OnWait | None = None,
    on_notice: OnNotice | None = None,
    narrow_modes: bool = True,
) -> Iterator[None]:
    """Hold the index's writer lock for the block, waiting up to ``wait`` seconds for another writer.

    ``on_wait`` hears whom it waits for; ``on_notice`` hears that a dead writer's lock was taken over.
    Every writer comes through here, so this is where an index folder made wider than its private vault
    (by an older smartvec, a copy, a sync tool, cron's shell) is narrowed again, unless ``narrow_modes``
    is False (``doctor --repair``, which reports what it narrows).
    """
    lock = ws.writer_lock(command)
    try:
        lock.acquire(wait, on_wait=on_wait)
    except LockBusyError as exc:
        raise SmartvecError(f"{exc} (try again later, or pass --wait SECONDS)") from None
    try:
        notice = lock.takeover_notice()
        if notice and on_notice is not None:
            on_notice(notice)
        if narrow_modes:
            ws.narrow_index_modes()
        yield
    finally:
        lock.release()


@contextmanager
def writing_store(
    ws: Workspace,
    command: str,
    wait: float = DEFAULT_WAIT,
    create: bool = False,
    on_wait: OnWait | None = None,
    on_notice: OnNotice | None = None,
    fresh_start: bool = False,
) -> Iterator[Store]:
    """The index store, opened under the writer lock and closed after the block (``fresh_start``: see
    ``Workspace.open_store``)."""
    with writer_lock(ws, command, wait, on_wait, on_notice):
        store = ws.open_store(create=create, fresh_start=fresh_start)
        if create:
            write_default_config(ws.layout.config)
        try:
            yield store
        finally:
            store.close()


@contextmanager
def recorded_if_unfinished(
    store: Transactions, clock: Clock, command: str, summary: Callable[[], dict]
) -> Iterator[None]:
    """Keep a ``running`` record while the block runs, so ``status`` never calls a killed run's predecessor the
    last word (``run_status`` tells a dead one from a live one); a run that does not finish becomes
    ``interrupted`` (Ctrl-C) or ``failed`` (an error), with ``summary()`` of what it had done, how long it ran
    and the error. A finished run records itself, and its ``running`` record goes."""
    started, timer = clock.now_iso(), time.perf_counter()
    run_id = store.start_run(command, started, {"pid": os.getpid(), "host": socket.gethostname()})
    try:
        yield
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        try:
            done = {**summary(), "seconds": round(time.perf_counter() - timer, 3), "error": str(exc) or status}
            store.end_run(run_id, clock.now_iso(), status, done)
        except Exception:  # a database that cannot take the record must not hide why the run stopped
            pass
        raise
    store.end_run(run_id, None, None, None)


def run_status(run: dict) -> tuple[str, str | None]:
    """(status, why) of a recorded run: a ``running`` record whose process is gone from this machine is a run that
    was killed (SIGKILL, a power cut) before it could record its end."""
    if run["status"] != RUNNING:
        return run["status"], None
    owner = json.loads(run["summary"] or "{}")
    if owner.get("host") != socket.gethostname():
        return RUNNING, f"on {owner.get('host')}"
    try:
        os.kill(int(owner.get("pid", 0)), 0)
    except ProcessLookupError:
        return "interrupted", "killed: its process ended without recording the end of the run"
    except (PermissionError, ValueError):
        pass
    return RUNNING, f"process {owner.get('pid')}"
