"""``smartvec query``: ask the vault a question, or many (``--batch``)."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from ..errors import UsageError
from .app import app, workspace
from .output import show_notices, print_json, stdout_console


@app.command("query")
def query_command(
    ctx: typer.Context,
    text: Optional[str] = typer.Argument(None, help="The question."),
    top_k: int = typer.Option(5, "--top-k", "-k", min=1, max=1000, help="How many hits."),
    mode: str = typer.Option("smart", "--mode", help="smart (default) or cosine (plain cosine over all versions: the baseline)."),
    include_archived: bool = typer.Option(False, "--include-archived", help="Also return archived (superseded) passages."),
    include_dormant: bool = typer.Option(False, "--include-dormant", help="Also return dormant passages."),
    batch: Optional[str] = typer.Option(None, "--batch", help='JSON-lines file of {"id", "query"} ("-" for stdin); one JSON line out per query.'),
    as_json: bool = typer.Option(False, "--json", help="Print hits as JSON."),
) -> None:
    """Rank the vault's passages for a question (answered by 'watch' when it runs)."""
    from ..core.query import Question
    from ..core.search import MODES, SearchOptions
    from ..daemon.query_socket import QueryClient

    if mode not in MODES:
        raise UsageError(f"--mode must be one of {', '.join(MODES)}")
    if (text is None) == (batch is None):
        raise UsageError("give either a question or --batch FILE")
    options = SearchOptions(top_k=top_k, mode=mode, include_archived=include_archived, include_dormant=include_dormant)
    ws = workspace(ctx)
    client = QueryClient(ws, options)
    try:
        if batch is not None:
            for question in read_batch(batch):
                hits = client.ask(question)
                print_json({"id": question.id, "hits": [h.to_dict() for h in hits]})
            return
        hits = client.ask(Question(text))
    finally:
        client.close()
        if client.store is not None:
            show_notices(client.store)
    if as_json:
        print_json([h.to_dict() for h in hits])
    else:
        show_hits(hits)


def read_batch(source: str):
    from ..core.query import Question

    stream = sys.stdin if source == "-" else None
    try:
        handle = stream or open(source, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read batch file {source}: {exc.strerror or exc}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                text = item["query"]
                if not isinstance(text, str):
                    raise TypeError
            except (json.JSONDecodeError, KeyError, TypeError):
                raise UsageError(f"{source}:{number}: expected a JSON object with a string \"query\"") from None
            yield Question(text=text, id=item.get("id"))


def show_hits(hits) -> None:
    from rich.markup import escape

    console = stdout_console()
    if not hits:
        console.print("no results")
        return
    for hit in hits:
        place = hit.path + (f" › {hit.heading}" if hit.heading else "")
        state = "" if hit.state in ("ACTIVE", "UNCONSOLIDATED") else f" [{hit.state.lower()}]"
        console.print(f"[bold]{hit.rank}.[/bold] [cyan]{escape(place)}[/cyan]  score {hit.score:.3f}{state}", markup=True)
        snippet = " ".join(hit.text.split())
        console.print(f"   {snippet[:300]}{'…' if len(snippet) > 300 else ''}", markup=False)
        for warning in hit.warnings:
            console.print(f"   [yellow]! {escape(warning)}[/yellow]", markup=True)
