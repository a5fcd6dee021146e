"""``smartvec consolidate``: the sleep cycle over what changed since the last run."""

from __future__ import annotations

import typer

from .app import app, workspace
from .lock import wait_option, writing_store
from .output import JsonOutput, message, print_json


@app.command("consolidate")
def consolidate_command(
    ctx: typer.Context,
    as_json: JsonOutput = False,
    wait: float = wait_option(),
) -> None:
    """Relations, contradictions, supersession, ripple, dormancy and importance; incremental and idempotent."""
    from ..core.consolidate import Consolidator

    ws = workspace(ctx)
    with writing_store(ws, "smartvec consolidate", wait) as store:
        summary = Consolidator(ws, store).run()
    if as_json:
        print_json(summary.to_dict())
        return
    moves = ", ".join(f"{k} {v}" for k, v in summary.transitions.items()) or "no state changes"
    message(
        f"{summary.notes_processed} notes consolidated: {moves}; {summary.edges_added} edges added, "
        f"{summary.contradictions_found} contradictions, {summary.passages_rippled} passages rippled, "
        f"{summary.notes_needing_review} notes need review; {summary.seconds:.2f}s"
    )
