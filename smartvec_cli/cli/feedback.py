"""``smartvec feedback``: tell the memory a hit was right, wrong, or what the right answer is."""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import UsageError
from .app import app, open_vault
from .lock import wait_option
from .output import JsonOutput, print_json, result


@app.command("feedback")
def feedback_command(
    ctx: typer.Context,
    chunk_id: Optional[str] = typer.Argument(None, help="The passage (CHUNK_ID, or CHUNK_ID@N for version N)."),
    rank: Optional[int] = typer.Option(None, "--rank", min=1, help="Hit N of the last query instead of a CHUNK_ID."),
    up: bool = typer.Option(False, "--up", help="The passage was right."),
    down: bool = typer.Option(False, "--down", help="The passage was wrong or stale."),
    correct: Optional[str] = typer.Option(
        None, "--correct", help="The right answer; stored as a passage of its own that answers where this one is found."
    ),
    as_json: JsonOutput = False,
    wait: float = wait_option(),
) -> None:
    """Reconsolidate a passage's trust (what the ranking believes of it); every feedback is kept as an event."""
    chosen = [name for name, given in (("up", up), ("down", down), ("correct", correct is not None)) if given]
    if len(chosen) != 1:
        raise UsageError("give exactly one of --up, --down, --correct TEXT")
    with open_vault(ctx, wait) as vault:
        data = vault.feedback(chunk_id, chosen[0], correct, rank=rank)
    if as_json:
        print_json(data.to_dict())
        return
    line = f"{data.chunk_id} v{data.version}: trust {data.trust_before:.2f} -> {data.trust_after:.2f}"
    if data.correction_chunk_id:
        line += f"; correction stored as {data.correction_chunk_id}"
    result(line)
