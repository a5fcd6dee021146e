"""``smartvec history NOTE``: the lineage of a note over time."""

from __future__ import annotations

import typer

from .app import app, open_vault
from .output import JsonOutput, plain, print_json, stdout_console


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
        print_json(data)
        return
    from rich.table import Table

    console = stdout_console()
    console.print(f"{data['path']}  ({data['note_id']})", markup=False)
    for line in lineage_lines(data):
        console.print(line, markup=False)
    if data["superseded_by"]:
        inferred = f" (inferred: {data['superseded_inferred']})" if data["superseded_inferred"] else ""
        console.print(f"superseded by {data['superseded_by']} on {(data['superseded_at'] or '')[:10]}{inferred}", markup=False)
    for older in data["supersedes"]:
        inferred = f"; inferred: {older['inferred']}" if older["inferred"] else ""
        console.print(f"supersedes {older['path']} (until {(older['until'] or '')[:10]}{inferred})", markup=False)
    if data["needs_review"]:
        console.print(f"needs review: {data['needs_review']}", markup=False)
    table = Table("passage", "v", "state", "from", "until", "replaced by", "text")
    for passage in data["passages"]:
        for version in passage["versions"]:
            table.add_row(
                plain(passage["chunk_id"]), str(version["version"]), version["state"], (version["valid_from"] or "")[:10],
                (version["valid_until"] or "")[:10], plain(version["replaced_by"] or ""), plain(" ".join(version["text"].split())[:60]),
            )
    console.print(table)


def lineage_lines(data: dict) -> list[str]:
    """Where the note lived before, what it was split from or into, and when it was deleted, oldest first."""
    lines = [f"was {plain(former['path'])} ({plain(former['note_id'] or '')}) until {(former['until'] or '')[:10]}" for former in data["former_names"]]
    for event in data["events"]:
        if event["kind"] == "split" and event.get("from"):
            lines.append(f"split from {plain(event['from'])} on {event['at'][:10]}")
        elif event["kind"] == "split" and event.get("into"):
            lines.append(f"split into {plain(event['into'])} on {event['at'][:10]}")
    if data["deleted_at"]:
        lines.append(f"deleted on {data['deleted_at'][:10]}; its passages answer for their time (smartvec forget erases them)")
    return lines
