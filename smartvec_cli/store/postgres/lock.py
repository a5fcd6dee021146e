"""One writer at a time across machines: a PostgreSQL advisory lock instead of a lock file.

The writer holds a session-level advisory lock on its own connection for as long as it writes. The
server releases it when that session ends, however it ends (a killed process, a lost machine once its
connection drops), so a stale lock cannot exist and nothing is ever taken over. Who holds it is the
session's ``application_name`` (``smartvec <pid> <host> <command>``), read from ``pg_stat_activity``,
only so that a waiting writer can say whom it waits for.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Callable

import psycopg

from ..lock import DEFAULT_WAIT, POLL_SECONDS, Holder, LockBusyError
from .database import connect, one, safe_url

WRITER_LOCK = (0x736D7663, 1)  # 'smvc', 1: the writer lock of the database (migrations use 0)
WRITE_TRANSACTION = (0x736D7663, 2)  # held by each store transaction that writes, for its length (``PgStore.write``)
PREFIX = "smartvec "


class AdvisoryLock:
    """The writer lock of one PostgreSQL store, with the interface of ``store.lock.FileLock``."""

    purpose = "writer lock"
    taken_over: Holder | None = None  # the server frees a dead writer's lock: there is never one to take over

    def __init__(self, url: str, command: str, key: tuple[int, int] = WRITER_LOCK):
        self.url = url
        self.command = command
        self.key = key
        self._conn: psycopg.Connection | None = None

    @classmethod
    def writer(cls, url: str, command: str) -> "AdvisoryLock":
        return cls(url, command)

    @property
    def held(self) -> bool:
        return self._conn is not None

    @property
    def where(self) -> str:
        return f"the {self.purpose} of {safe_url(self.url)}"

    def holder(self) -> Holder | None:
        conn = connect(self.url)
        try:
            return self._holder(conn)
        finally:
            conn.close()

    def _holder(self, conn) -> Holder | None:
        row = conn.execute(
            """SELECT a.application_name, a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
               WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objid = %s AND l.objsubid = 2
                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())""",
            [self.key[0] & 0xFFFFFFFF, self.key[1]],
        ).fetchone()
        if row is None:
            return None
        name, since = row
        parts = (name or "").split(" ", 3)
        if len(parts) == 4 and parts[0] + " " == PREFIX and parts[1].isdigit():
            return Holder(int(parts[1]), parts[3], since.strftime("%Y-%m-%dT%H:%M:%SZ"), parts[2])
        return Holder(0, name or "another client", since.strftime("%Y-%m-%dT%H:%M:%SZ"), "")

    def probe(self) -> tuple[bool, Holder | None]:
        """(held by a running writer, who): a lock nobody holds says nothing about earlier holders."""
        holder = self.holder()
        return holder is not None, holder

    def acquire(
        self, wait: float = DEFAULT_WAIT, on_wait: Callable[[Holder | None], None] | None = None
    ) -> "AdvisoryLock":
        if self._conn is not None:
            raise RuntimeError("lock already held by this object")
        command = self.command.removeprefix("smartvec ")
        conn = connect(self.url, application_name=f"{PREFIX}{os.getpid()} {socket.gethostname()} {command}")
        deadline = time.monotonic() + max(0.0, wait)
        told = False
        try:
            while not one(conn.execute("SELECT pg_try_advisory_lock(%s, %s)", self.key)):
                holder = self._holder(conn)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    who = f"{holder.describe()} holds {self.where}" if holder else f"another process holds {self.where}"
                    raise LockBusyError(f"{who}; gave up after waiting {wait:g}s", holder)
                if not told and on_wait is not None:
                    on_wait(holder)
                    told = True
                time.sleep(min(POLL_SECONDS, remaining))
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return self

    def release(self) -> None:
        """Unlock and close the session (closing alone would unlock too)."""
        if self._conn is None:
            return
        conn, self._conn = self._conn, None
        try:
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", self.key)
        finally:
            conn.close()

    def __enter__(self) -> "AdvisoryLock":
        return self.acquire() if self._conn is None else self

    def __exit__(self, *exc) -> None:
        self.release()

    def takeover_notice(self) -> str | None:
        return None
