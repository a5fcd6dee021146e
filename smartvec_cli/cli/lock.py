"""The writer lock as the commands use it: ``--wait SECONDS``, a note while waiting, one line on giving up."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import typer

from ..errors import SmartvecError
from .output import message

DEFAULT_WAIT = 30.0


def wait_option():
    return typer.Option(
        DEFAULT_WAIT, "--wait", min=0, metavar="SECONDS", help="How long to wait for another writer (index, refresh, watch) to finish."
    )


@contextmanager
def writer_lock(ws, command: str, wait: float) -> Iterator[None]:
    """Hold the index's writer lock for the block; the waiting note appears only on a terminal."""
    from ..store.lock import FileLock, LockBusyError

    def waiting(holder) -> None:
        if sys.stderr.isatty():
            who = holder.describe() if holder else "another process"
            message(f"waiting up to {wait:g}s for {who} to release the writer lock...")

    lock = FileLock.writer(ws.index_dir, command)
    try:
        lock.acquire(wait, on_wait=waiting)
    except LockBusyError as exc:
        raise SmartvecError(f"{exc} (try again later, or pass --wait SECONDS)") from None
    try:
        notice = lock.takeover_notice()
        if notice:
            message(f"warning: {notice}")
        yield
    finally:
        lock.release()


@contextmanager
def writing_store(ws, command: str, wait: float, create: bool = False):
    """The index store opened under the writer lock and closed after the block; once the block
    succeeded, whatever the store has to tell the user goes to stderr."""
    from .output import show_notices

    with writer_lock(ws, command, wait):
        store = ws.open_store(create=create)
        try:
            yield store
        finally:
            store.close()
    show_notices(store)
