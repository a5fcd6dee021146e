"""``smartvec related NOTE``: the notes most like one note (its versions left out)."""

from __future__ import annotations

import typer

from .app import app, open_vault
from .output import JsonOutput, print_json, stdout_console
from .printing import linked, printable, snippet_lines


@app.command("related")
def related_command(
    ctx: typer.Context,
    note: str = typer.Argument(
        ..., help="Path (with or without .md), note id, file name, title, or a name it had before it moved."
    ),
    top_k: int = typer.Option(5, "--top-k", "-k", min=1, max=1000, help="How many notes."),
    as_json: JsonOutput = False,
) -> None:
    """Notes like this one, by what their passages say; never its own versions."""
    with open_vault(ctx) as vault:
        data = vault.related(note, top_k=top_k)
    if as_json:
        print_json(data.to_dict())
        return
    console = stdout_console()
    if not data.related:
        console.print(
            f"no related note: nothing else in the vault is close enough to {printable(data.note.path)}",
            markup=False,
        )
        return
    for item in data.related:
        console.print(
            f"[bold]{item.rank}.[/bold] {linked(console, printable(item.path), item.url)}  score {item.score:.3f}",
            markup=True,
        )
        for line in snippet_lines(item.passage.text):
            console.print(f"   {line}", markup=False)
