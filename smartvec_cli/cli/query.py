"""``smartvec query``: ask the vault a question, or many (``--batch``)."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from ..errors import UsageError
from .app import app, open_vault
from .output import JsonOutput, plain, print_json, stdout_console


@app.command("query")
def query_command(
    ctx: typer.Context,
    text: Optional[str] = typer.Argument(None, help="The question."),
    top_k: int = typer.Option(5, "--top-k", "-k", min=1, max=1000, help="How many hits."),
    mode: str = typer.Option("smart", "--mode", help="smart (default) or cosine (plain cosine over all versions: the baseline)."),
    include_archived: bool = typer.Option(False, "--include-archived", help="Also return archived (superseded) passages."),
    include_dormant: bool = typer.Option(False, "--include-dormant", help="Also return dormant passages."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Answer as of this date (ISO); default: dates named in the question, else now."),
    explain: bool = typer.Option(False, "--explain", help="Show each signal per hit (a table; an 'explain' object in JSON)."),
    weights: Optional[str] = typer.Option(None, "--weights", help="Signal weights, e.g. semantic=0.5,temporal=0.2,confidence=0.2,relational=0.1."),
    no_track: bool = typer.Option(False, "--no-track", help="Do not count this retrieval as an access (for scripts and benchmarks)."),
    batch: Optional[str] = typer.Option(None, "--batch", help='JSON-lines file of {"id", "query"} ("-" for stdin); one JSON line out per query.'),
    as_json: JsonOutput = False,
) -> None:
    """Rank the vault's passages for a question (answered by 'watch' when it runs)."""
    from ..clock import parse_when
    from ..core.api import search_options
    from ..core.query import Question
    from ..daemon.query_socket import daemon_answerer

    if (text is None) == (batch is None):
        raise UsageError("give either a question or --batch FILE")
    options = search_options(top_k, mode, parse_when(as_of) if as_of else None, include_archived, include_dormant, weights, not no_track)
    with open_vault(ctx, remote_for=daemon_answerer) as vault:
        if batch is not None:
            for question in read_batch(batch):
                answer = vault.ask(question, options)
                print_json({"id": question.id, "hits": [h.to_dict(explain) for h in answer.hits], "relevant": answer.relevant})
            return
        answer = vault.ask(Question(text), options)
    if as_json:
        print_json([h.to_dict(explain) for h in answer.hits])
    else:
        show_answer(answer, explain)


def read_batch(source: str):
    from ..clock import parse_when
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
            as_of = item.get("as_of")
            yield Question(text=text, id=item.get("id"), as_of=parse_when(as_of) if as_of else None)


def show_answer(answer, explain: bool) -> None:
    from rich.markup import escape

    from ..clock import to_iso

    console = stdout_console()
    hits = answer.hits
    if answer.as_of is not None:  # the moment itself: a date in words means noon of that day
        said = f' ("{answer.as_of_phrase}")' if answer.as_of_phrase else ""
        console.print(f"[dim]as of {to_iso(answer.as_of)}{escape(said)}[/dim]")
    if not hits:
        console.print("no relevant passage: nothing in the vault is close enough to the question")
        return
    if explain:
        show_explain_table(console, hits)
    for hit in hits:
        place = hit.path + (f" › {hit.heading}" if hit.heading else "")
        state = "" if hit.state in ("ACTIVE", "UNCONSOLIDATED") else f" [{hit.state.lower()}]"
        console.print(
            f"[bold]{hit.rank}.[/bold] [cyan]{escape(place)}[/cyan]  score {hit.score:.3f}  confidence {hit.confidence:.0%}{escape(state)}",
            markup=True,
        )
        snippet = " ".join(hit.text.split())
        console.print(f"   {snippet[:300]}{'…' if len(snippet) > 300 else ''}", markup=False)
        for warning in hit.warnings:
            console.print(f"   [yellow]! {escape(warning)}[/yellow]", markup=True)


def show_explain_table(console, hits) -> None:
    """Each signal per hit; the weighted sum is the score (weights in --json --explain)."""
    from rich.table import Table

    table = Table("#", "chunk", "score", "sem", "time", "trust", "rel", "conf")
    table.columns[1].overflow = "fold"
    for hit in hits:
        cell = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        signals = hit.signals
        table.add_row(
            str(hit.rank), plain(hit.chunk_id), f"{hit.score:.3f}", cell(signals["semantic"]), cell(signals["temporal"]),
            cell(signals["confidence"]), cell(signals["relational"]), f"{hit.confidence:.0%}",
        )
    console.print(table)
