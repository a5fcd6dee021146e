"""``smartvec refresh``: the unattended run for cron; silent when there was nothing to do."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from ..errors import EXIT_PARTIAL, RefreshFailed, UsageError
from .app import app, open_vault
from .lock import wait_option
from .output import JsonOutput, QuietOutput, message, print_json, printable, progress_bar, result

if TYPE_CHECKING:
    from ..core.results import RefreshRecord


@app.command("refresh")
def refresh_command(
    ctx: typer.Context,
    nightly: bool = typer.Option(
        False, "--nightly", help="Index what changed, then compact the vector index if needed."
    ),
    concepts_only: bool = typer.Option(
        False,
        "--concepts-only",
        help="aclarai's nightly job: re-embed only concept notes whose embedding_hash changed.",
    ),
    concepts_folder: str = typer.Option(
        "concepts", "--concepts-folder", metavar="FOLDER", help="Where the concept notes are (--concepts-only)."
    ),
    as_json: JsonOutput = False,
    quiet: QuietOutput = False,
    wait: float = wait_option(),
) -> None:
    """Bring the index up to date in one run; prints nothing when nothing changed, exits non-zero only on failure."""
    if nightly == concepts_only:
        raise UsageError("give either --nightly or --concepts-only")
    command = "refresh --nightly" if nightly else "refresh --concepts-only"
    failure = None
    with open_vault(ctx, wait) as vault, progress_bar("refresh", quiet) as progress:
        try:
            data: RefreshRecord = vault.refresh(
                concepts_only=concepts_only, concepts_folder=concepts_folder, progress=progress
            )
        except RefreshFailed as exc:
            failure, data = exc, exc.record
    if as_json:
        print_json(data.to_dict())
    elif (data.changed and not quiet) or failure:
        stages = ", ".join(
            f"{s.name} {s.seconds:.2f}s" + (" FAILED" if s.status == "failed" else f" ({s.note})" if s.note else "")
            for s in data.stages
        )
        result(
            f"{command}: {data.processed} notes, {data.updated} updated, {data.skipped} skipped, "
            f"{len(data.errors)} errors in {data.seconds:.2f}s: {stages}"
        )
    for problem in data.errors:
        message(f"warning: {printable(problem['path'])}: {problem['error']}")
    if failure is not None:
        raise failure
    if data.errors:
        raise typer.Exit(EXIT_PARTIAL)
