"""``smartvec forget NOTE... | --all-deleted``: erase what the index keeps of deleted notes."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, List, Optional, Sequence

import typer

from ..errors import UsageError
from .app import app, open_vault
from .lock import wait_option
from .output import JsonOutput, message, plain, print_json, result

if TYPE_CHECKING:
    from ..core.results import DeletedNote


@app.command("forget")
def forget_command(
    ctx: typer.Context,
    notes: Optional[List[str]] = typer.Argument(None, help="Deleted notes: path (old ones too), note id or title."),
    all_deleted: bool = typer.Option(False, "--all-deleted", help="Every deleted note the index still keeps."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Erase without asking (needed when stdin is not a terminal)."),
    as_json: JsonOutput = False,
    wait: float = wait_option(),
) -> None:
    """Erase the passages, vectors and history the index keeps of deleted notes; nothing else does."""
    names = notes or []
    if bool(names) == all_deleted:
        raise UsageError("name the deleted notes to forget, or give --all-deleted")
    with open_vault(ctx, wait) as vault:
        found = vault.deleted_notes(names, all_deleted)
        if not found:
            from ..core.results import ForgetResult

            forgotten = ForgetResult()
        else:
            if not yes:
                _confirm(found)
            forgotten = vault.forget([note.note_id for note in found] if names else (), all_deleted)
    if as_json:
        print_json(forgotten.to_dict())
        return
    result(f"forgot {len(forgotten.forgotten)} deleted notes ({forgotten.passage_versions} passage versions)")


def _confirm(found: Sequence[DeletedNote]) -> None:
    if not sys.stdin.isatty():
        raise UsageError("forgetting cannot be undone: give --yes to erase without asking")
    for note in found:
        message(f"  {plain(note.path)} (deleted {(note.deleted_at or '')[:10]})")
    if not typer.confirm(
        f"Erase everything the index keeps of these {len(found)} notes? This cannot be undone", err=True
    ):
        raise typer.Exit(1)
