"""``smartvec watch``: keep the index in step with the vault, and answer queries fast while running."""

from __future__ import annotations

import signal
import time

import typer

from .app import app, workspace
from .lock import wait_option
from .output import message


@app.command("watch")
def watch_command(
    ctx: typer.Context,
    debounce: float = typer.Option(
        2.0, "--debounce", min=0, metavar="SECONDS", help="Quiet time after a change before indexing."
    ),
    wait: float = wait_option(),
) -> None:
    """Index changes as they happen (until SIGINT/SIGTERM); 'query' is answered by this daemon meanwhile."""
    from ..daemon.watch import Watcher

    ws = workspace(ctx)
    watcher = Watcher(ws, ws.writer_embedder(on_notice=log_line), debounce=debounce, lock_wait=wait, log=log_line)
    stop_on_signals(watcher)
    watcher.run()


def stop_on_signals(watcher) -> None:
    """SIGTERM or a first Ctrl-C stop after the batch in flight; a second Ctrl-C interrupts at once."""

    def stop(signum, frame) -> None:
        watcher.request_stop()
        if signum == signal.SIGINT:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def log_line(text: str) -> None:
    message(f"{time.strftime('%H:%M:%S')} {text}")
