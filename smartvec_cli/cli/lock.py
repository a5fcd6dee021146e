"""The writer lock as the commands show it: ``--wait SECONDS``, and a note while waiting on a terminal."""

from __future__ import annotations

import sys

from ..store.lock import DEFAULT_WAIT
from .printing import message


def wait_option():
    import typer

    return typer.Option(
        DEFAULT_WAIT,
        "--wait",
        min=0,
        metavar="SECONDS",
        help="How long to wait for another writer (index, refresh, watch) to finish.",
    )


def waiting_note(wait: float):
    """An ``on_wait`` callback that says whom a writer waits for, only on a terminal."""

    def waiting(holder) -> None:
        if sys.stderr.isatty():
            who = holder.describe() if holder else "another process"
            message(f"waiting up to {wait:g}s for {who} to release the writer lock...")

    return waiting
