"""``smartvec graph``: the note graph as Mermaid (paste into a note), Graphviz dot, or JSON."""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import UsageError
from .app import app, open_vault
from .output import message, print_json

FORMATS = ("mermaid", "dot", "json")
LIMIT = 1000
"""Notes printed unless ``--limit`` says otherwise: a diagram of more is unreadable, and the output of a large
vault's whole graph would flood the terminal."""


@app.command("graph")
def graph_command(
    ctx: typer.Context,
    note: Optional[str] = typer.Argument(None, help="Only this note's neighbourhood."),
    depth: int = typer.Option(
        1, "--depth", min=0, help="Hops around NOTE (the walk stops when a hop reaches no new note)."
    ),
    limit: int = typer.Option(
        LIMIT, "--limit", min=0, help="At most this many notes, the nearest to NOTE first; 0 for all."
    ),
    fmt: str = typer.Option("mermaid", "--format", help="mermaid, dot or json."),
) -> None:
    """Export notes and typed edges (links, dependencies, supersession, contradictions)."""
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}")
    with open_vault(ctx) as vault:
        graph = vault.graph(note, depth, limit or None)
    if graph.left_out:
        shown = len(graph.nodes)
        message(
            f"graph: {shown} of {shown + graph.left_out} notes shown ({graph.left_out} left out); --limit N to "
            "change, --limit 0 for all"
        )
    if fmt == "json":
        print_json(graph.to_dict())
    else:
        typer.echo(graph.mermaid() if fmt == "mermaid" else graph.dot())
