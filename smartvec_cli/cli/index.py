"""``smartvec index``: encode what changed in the vault."""

from __future__ import annotations

from typing import List, Optional

import typer

from ..errors import EXIT_PARTIAL
from .app import app, workspace
from .lock import wait_option, writing_store
from .output import JsonOutput, message, print_json, progress_bar


@app.command("index")
def index_command(
    ctx: typer.Context,
    full: bool = typer.Option(False, "--full", help="Re-read every note and re-embed every passage (after a model change)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Glob of vault paths to skip (repeatable), on top of config.toml."),
    as_json: JsonOutput = False,
    wait: float = wait_option(),
) -> None:
    """Scan the vault and embed new or changed passages; unchanged notes are not even read."""
    from ..core.indexer import Indexer

    ws = workspace(ctx)
    if exclude:
        ws.config.exclude.extend(exclude)
    with writing_store(ws, "smartvec index --full" if full else "smartvec index", wait, create=True) as store:
        with progress_bar("embedding") as progress:
            summary = Indexer(ws, store, lambda: ws.writer_embedder(on_notice=message), progress=progress).run(full=full)
    data = summary.to_dict()
    if as_json:
        print_json(data)
    else:
        message(
            f"{summary.notes_scanned} notes: {summary.notes_new} new, {summary.notes_changed} changed, "
            f"{summary.notes_unchanged} unchanged, {summary.notes_deleted} deleted, {summary.notes_renamed} renamed; "
            f"{summary.chunks_embedded} passages embedded, {summary.chunks_reused} reused; {summary.seconds:.2f}s"
        )
    for problem in summary.errors:
        message(f"warning: {problem['path']}: {problem['error']}")
    if summary.errors:
        raise typer.Exit(EXIT_PARTIAL)
