"""``smartvec query``: ask the vault a question, or many (``--batch``).

While a daemon (``watch`` or ``mcp``) serves this index, the question goes to it over the
query socket and this process imports nothing heavy: the socket's path is found by path
arithmetic, the options travel as plain JSON, and the hits are printed from the daemon's
JSON. The core (numpy, SQLite, the vector index, the model) is imported only when no
daemon answers. Both paths print from the same JSON, so their output is the same.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator, Optional

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
    """Rank the vault's passages for a question (answered by 'watch' or 'mcp' when one runs)."""
    from ..clock import parse_when, to_iso

    if (text is None) == (batch is None):
        raise UsageError("give either a question or --batch FILE")
    options = {  # SearchOptions.to_json(), checked by whoever answers
        "top_k": top_k, "mode": mode, "as_of": to_iso(parse_when(as_of)) if as_of else None,
        "include_archived": include_archived, "include_dormant": include_dormant, "weights": weights,
        "record_access": not no_track,
    }
    with Answerer(ctx, options) as answerer:
        if batch is not None:
            for question_id, question, question_as_of in read_batch(batch):
                answer = answerer.ask(question, question_id, question_as_of)
                print_json({"id": question_id, "hits": hits_for_output(answer, explain)})
            return
        answer = answerer.ask(text)
    if as_json:
        print_json(hits_for_output(answer, explain))
    else:
        show_answer(answer, explain)


class Answerer:
    """Asks the daemon serving this index while it answers; otherwise the vault itself, opened (with
    the core imported) on first need. Answers are ``Answer.to_json()`` dicts either way."""

    def __init__(self, ctx: typer.Context, options: dict):
        from ..clock import Clock
        from ..store.layout import index_dir_for

        self.ctx = ctx
        self.options = options
        found = ctx.find_root().obj
        vault = Path(found.vault or ".").expanduser()
        self.index_dir = index_dir_for(vault, found.index_dir) if vault.is_dir() else None  # None: ask no daemon
        clock = Clock(found.now)
        self.now = clock.now().isoformat() if clock.is_fixed else None
        self._stack = ExitStack()
        self._vault = None
        self._search_options = None

    def ask(self, text: str, question_id=None, as_of: str | None = None) -> dict:
        if self.index_dir is not None:
            from ..daemon.query_socket import ask_daemon

            answer = ask_daemon(self.index_dir, text, self.options, self.now, question_id, as_of)
            if answer is not None:
                return answer
            self.index_dir = None  # gone, or never there: answer the rest here
        return self._ask_directly(text, question_id, as_of)

    def _ask_directly(self, text: str, question_id, as_of: str | None) -> dict:
        from ..clock import parse_when
        from ..core.api import search_options_from_json
        from ..core.query import Question

        if self._vault is None:
            self._search_options = search_options_from_json(self.options)
            self._vault = self._stack.enter_context(open_vault(self.ctx))
        question = Question(text, question_id, parse_when(as_of) if as_of else None)
        return self._vault.ask(question, self._search_options).to_json()

    def __enter__(self) -> "Answerer":
        return self

    def __exit__(self, *exc) -> None:
        self._stack.__exit__(*exc)


def hits_for_output(answer: dict, explain: bool) -> list[dict]:
    """The hits as ``query --json`` prints them: ``explain`` only when asked for."""
    return [{key: value for key, value in hit.items() if explain or key != "explain"} for hit in answer["hits"]]


def read_batch(source: str) -> Iterator[tuple[object, str, str | None]]:
    """(id, question, as-of time in ISO or None) for each line of a ``--batch`` file."""
    from ..clock import parse_when, to_iso

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
            yield item.get("id"), text, to_iso(parse_when(as_of)) if as_of else None


def show_answer(answer: dict, explain: bool) -> None:
    from rich.markup import escape

    from ..clock import parse_when

    console = stdout_console()
    hits = answer["hits"]
    if answer.get("as_of"):
        phrase = answer.get("as_of_phrase")
        said = f' ("{phrase}")' if phrase else ""
        console.print(f"[dim]as of {parse_when(answer['as_of']).date().isoformat()}{escape(said)}[/dim]")
    if not hits:
        console.print("no results")
        return
    if explain:
        show_explain_table(console, hits)
    for hit in hits:
        place = hit["path"] + (f" › {hit['heading']}" if hit["heading"] else "")
        state = "" if hit["state"] in ("ACTIVE", "UNCONSOLIDATED") else f" [{hit['state'].lower()}]"
        console.print(
            f"[bold]{hit['rank']}.[/bold] [cyan]{escape(place)}[/cyan]  score {hit['score']:.3f}  "
            f"confidence {hit['confidence']:.0%}{escape(state)}",
            markup=True,
        )
        snippet = " ".join(hit["text"].split())
        console.print(f"   {snippet[:300]}{'…' if len(snippet) > 300 else ''}", markup=False)
        for warning in hit["warnings"]:
            console.print(f"   [yellow]! {escape(warning)}[/yellow]", markup=True)


def show_explain_table(console, hits: list[dict]) -> None:
    """Each signal per hit; the weighted sum is the score (weights in --json --explain)."""
    from rich.table import Table

    table = Table("#", "chunk", "score", "sem", "time", "trust", "rel", "conf")
    table.columns[1].overflow = "fold"
    for hit in hits:
        cell = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        signals = hit["signals"]
        table.add_row(
            str(hit["rank"]), plain(hit["chunk_id"]), f"{hit['score']:.3f}", cell(signals["semantic"]), cell(signals["temporal"]),
            cell(signals["confidence"]), cell(signals["relational"]), f"{hit['confidence']:.0%}",
        )
    console.print(table)
