"""``smartvec history NOTE``: the lineage of a note over time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .app import app, open_vault
from .output import JsonOutput, one_line, print_json, print_rows, printable, stdout_console, window_day
from .show import PASSAGE_COLUMNS

if TYPE_CHECKING:
    from ..core.results import NoteHistory


@app.command("history")
def history_command(
    ctx: typer.Context,
    note: str = typer.Argument(..., help="Path (with or without .md), note id, file name or title."),
    as_json: JsonOutput = False,
) -> None:
    """Every version of every passage of a note, what replaced what, and when."""
    with open_vault(ctx) as vault:
        data = vault.history(note)
    if as_json:
        print_json(data.to_dict())
        return
    console = stdout_console()
    console.print(f"{printable(data.path)}  ({printable(data.note_id)})", markup=False)
    for line in lineage_lines(data):
        console.print(line, markup=False)
    if data.superseded_by:
        inferred = f" (inferred: {data.superseded_inferred})" if data.superseded_inferred else ""
        console.print(
            f"superseded by {printable(data.superseded_by)} on {(data.superseded_at or '')[:10]}{inferred}",
            markup=False,
        )
    for older in data.supersedes:
        inferred = f"; inferred: {older.inferred}" if older.inferred else ""
        console.print(f"supersedes {printable(older.path)} (until {(older.until or '')[:10]}{inferred})", markup=False)
    if data.needs_review:
        console.print(f"needs review: {printable(data.needs_review)}", markup=False)
    print_rows(
        console,
        (*PASSAGE_COLUMNS[:-1], "replaced by", PASSAGE_COLUMNS[-1]),
        [
            (
                passage.chunk_id,
                version.version,
                version.state,
                window_day(version.valid_from, "always"),
                window_day(version.valid_until, "open"),
                version.replaced_by or "",
                one_line(version.text, 60),
            )
            for passage in data.passages
            for version in passage.versions
        ],
    )


def lineage_lines(data: NoteHistory) -> list[str]:
    """Where the note lived before, what it was split from or into, and when it was deleted, oldest first."""
    lines = [
        f"was {printable(former.path)} ({printable(former.note_id or '')}) until {(former.until or '')[:10]}"
        for former in data.former_names
    ]
    for event in data.events:
        if event.kind == "split" and event.detail.get("from"):
            lines.append(f"split from {printable(event.detail['from'])} on {event.at[:10]}")
        elif event.kind == "split" and event.detail.get("into"):
            lines.append(f"split into {printable(event.detail['into'])} on {event.at[:10]}")
    if data.deleted_at:
        lines.append(
            f"deleted on {data.deleted_at[:10]}; its passages answer for their time (smartvec forget erases them)"
        )
    return lines
