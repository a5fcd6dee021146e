"""``smartvec consolidate``: the sleep cycle over what changed since the last run."""

from __future__ import annotations

import typer

from .app import app, open_vault
from .lock import wait_option
from .output import JsonOutput, QuietOutput, print_json, progress_bar, result


@app.command("consolidate")
def consolidate_command(
    ctx: typer.Context,
    as_json: JsonOutput = False,
    quiet: QuietOutput = False,
    wait: float = wait_option(),
) -> None:
    """Relations, contradictions, supersession, ripple, dormancy and importance; incremental and idempotent."""
    with open_vault(ctx, wait) as vault, progress_bar("consolidating", quiet) as progress:
        data = vault.consolidate(progress=progress)
    if as_json:
        print_json(data.to_dict())
        return
    moves = ", ".join(f"{k} {v}" for k, v in data.transitions.items()) or "no state changes"
    result(
        f"{data.notes_processed} notes consolidated: {moves}; {data.edges_added} edges added, "
        f"{data.contradictions_found} contradictions, {data.passages_rippled} passages rippled, "
        f"{data.notes_needing_review} notes need review; {data.seconds:.2f}s"
    )
