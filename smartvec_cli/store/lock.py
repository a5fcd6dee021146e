"""One writer at a time: an ``fcntl.flock`` on a file in the index folder.

Every command that writes the index (``index``, ``refresh``, each batch of ``watch``)
holds the writer lock while it writes; queries never take it (SQLite's WAL and the ANN
generation check already give readers a consistent view). flock belongs to the open
file, so the kernel releases it when its holder dies, even by SIGKILL: a stale lock is
simply a free one. The holder writes who it is (pid, command, since when) into the
file, only so that a waiting process can say whom it waits for; a clean release empties
the file, so leftover holder info on a free lock means its writer died, and the next one
reports what it took over.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import errno
import fcntl
import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import SmartvecError, index_folder_error
from .layout import IndexLayout, guard_index_folder, refusal

POLL_SECONDS = 0.1
DEFAULT_WAIT = 30.0  # seconds a writer waits for another one, unless told otherwise (--wait)


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) a lock, as written into the lock file."""

    pid: int
    command: str
    since: str
    host: str = ""

    @property
    def alive(self) -> bool:
        if self.host and self.host != _host():
            return True  # a process on another machine cannot be checked from here
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def describe(self) -> str:
        return f"pid {self.pid} ({self.command}) since {self.since}"


class LockBusyError(SmartvecError):
    """Another process held the lock for longer than we were willing to wait."""

    def __init__(self, message: str, holder: Holder | None):
        super().__init__(message)
        self.holder = holder


class FileLock:
    """An exclusive flock on ``path``, with a bounded wait and holder info for messages."""

    def __init__(self, path: Path, command: str, purpose: str = "writer lock"):
        self.path = Path(path)
        self.command = command
        self.purpose = purpose
        self.taken_over: Holder | None = None  # info left by a holder that died without releasing
        self._fd: int | None = None

    @classmethod
    def writer(cls, index_dir: Path, command: str) -> "FileLock":
        return cls(IndexLayout(Path(index_dir)).writer_lock, command)

    @classmethod
    def watch(cls, index_dir: Path, command: str) -> "FileLock":
        """One watch daemon per index folder: it holds this lock for as long as it runs."""
        return cls(IndexLayout(Path(index_dir)).watch_lock, command, purpose="watch lock")

    @property
    def held(self) -> bool:
        return self._fd is not None

    def holder(self) -> Holder | None:
        """What the lock file says about its current (or last) holder; None if empty or unreadable."""
        try:
            with open(self.path, "rb") as fh:
                return _parse_holder(fh.read(4096))
        except OSError:
            return None

    def probe(self) -> tuple[bool, Holder | None]:
        """(held by a running process, what the file says about its holder), for reports.

        It takes a shared lock for an instant when the lock is free: a writer starting at
        that very moment finds it busy and simply polls again.
        """
        if refusal(self.path, folder=False):
            return False, None
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return False, None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True, _parse_holder(os.pread(fd, 4096, 0))
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False, _parse_holder(os.pread(fd, 4096, 0))
        finally:
            os.close(fd)

    def acquire(self, wait: float = DEFAULT_WAIT, on_wait: Callable[[Holder | None], None] | None = None) -> "FileLock":
        """Take the lock, polling for up to ``wait`` seconds; ``on_wait`` is told once if we have to wait."""
        if self._fd is not None:
            raise RuntimeError("lock already held by this object")
        try:
            make_index_folder(self.path.parent)
            guard_index_folder(self.path.parent)
            # never through a symbolic link, never a FIFO or device someone put there: the file is checked after
            # it is opened (so no swap in between), and only truncated once it is known to be our own
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise SmartvecError(
                    f"{self.path} is a symbolic link: remove it (smartvec makes its own lock)"
                ) from None
            raise index_folder_error(f"cannot open lock file {self.path}", exc) from None
        problem = _not_ours(self.path, os.fstat(fd))
        if problem:
            os.close(fd)
            raise SmartvecError(problem)
        deadline = time.monotonic() + max(0.0, wait)
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _parse_holder(os.pread(fd, 4096, 0))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    os.close(fd)
                    raise LockBusyError(self._busy_message(holder, wait), holder) from None
                if not told and on_wait is not None:
                    on_wait(holder)
                    told = True
                time.sleep(min(POLL_SECONDS, remaining))
        previous = _parse_holder(os.pread(fd, 4096, 0))
        self.taken_over = previous if previous and previous.pid != os.getpid() else None
        me = Holder(os.getpid(), self.command, _now_iso(), _host())
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(dataclasses.asdict(me)).encode("utf-8") + b"\n", 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Empty the holder info, then unlock: info on a free lock always means a writer died."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> "FileLock":
        return self.acquire() if self._fd is None else self

    def __exit__(self, *exc) -> None:
        self.release()

    def takeover_notice(self) -> str | None:
        """A line for the user when this acquisition replaced a holder that died without releasing."""
        old = self.taken_over
        if old is None:
            return None
        fate = "is no longer running" if not old.alive else "exited without releasing it"
        return f"took over the {self.purpose} of {self.path.parent} left by {old.describe()}, which {fate}"

    def _busy_message(self, holder: Holder | None, wait: float) -> str:
        where = f"the {self.purpose} of {self.path.parent}"
        if holder is None:
            who = "another process holds " + where
        elif holder.alive:
            who = f"{holder.describe()} holds {where}"
        else:
            who = (
                f"{where} is held by another process; the recorded holder, {holder.describe()}, "
                "is no longer running (a process it started may still hold the lock)"
            )
        return f"{who}; gave up after waiting {wait:g}s"


def _not_ours(path: Path, info: os.stat_result) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        return f"{path} is not a regular file: remove it (smartvec makes its own lock)"
    if info.st_uid != os.geteuid():
        return f"{path} belongs to uid {info.st_uid}, not to the user running smartvec (uid {os.geteuid()}): remove it"
    return None


def make_index_folder(root: Path) -> None:
    """Make the index folder (and the folders above it) when missing: without write access for group or others
    whatever the umask, since whoever could write there could choose what smartvec reads."""
    if root.is_dir():
        return
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(root, 0o755)
    except FileExistsError:
        pass


def _parse_holder(data: bytes) -> Holder | None:
    try:
        info = json.loads(data.decode("utf-8"))
        return Holder(int(info["pid"]), str(info["command"]), str(info["since"]), str(info.get("host", "")))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def _host() -> str:
    """This machine's name, as ``socket.gethostname()`` gives it on POSIX (where flock is), without importing socket."""
    return os.uname().nodename


def _now_iso() -> str:
    """Wall-clock time: a lock is about real processes, never about ``--now``."""
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
