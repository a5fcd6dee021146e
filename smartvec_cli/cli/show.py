"""``smartvec show NOTE``: what the index knows about one note."""

from __future__ import annotations

import typer

from .app import app, open_vault
from .output import JsonOutput, plain, print_json, stdout_console


@app.command("show")
def show_command(
    ctx: typer.Context,
    note: str = typer.Argument(..., help="Path (with or without .md), note id, file name or title."),
    as_json: JsonOutput = False,
) -> None:
    """Hashes, dates, links and passages (with their states) of one note."""
    with open_vault(ctx) as vault:
        data = vault.show(note)
    if as_json:
        print_json(data)
        return
    from rich.table import Table

    console = stdout_console()
    for key in ("note_id", "path", "title", "embedding_hash", "last_updated", "version"):
        console.print(f"{key:<15}{data[key]}", markup=False)
    if data["tags"]:
        console.print(f"{'tags':<15}{', '.join(data['tags'])}", markup=False)
    for link in data["links"]:
        console.print(f"{link['type']:<15}{link['target']} -> {link['resolved'] or '(unresolved)'}", markup=False)
    table = Table("chunk", "v", "state", "valid", "text")
    for chunk in data["chunks"]:
        valid = f"{(chunk['valid_from'] or '')[:10]} .. {(chunk['valid_until'] or '')[:10]}"
        table.add_row(plain(chunk["chunk_id"]), str(chunk["version"]), chunk["state"], valid, plain(" ".join(chunk["text"].split())[:80]))
    console.print(table)
