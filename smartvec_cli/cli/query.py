"""``smartvec query``: ask the vault a question, or many (``--batch``).

While a daemon (``watch`` or ``mcp``) serves this index, each question goes to it over the
query socket, and the core (numpy, SQLite, the vector index, the model) is imported only
when no daemon answers. Both paths print from the same JSON, so their output is the same.
A plain command line never even gets here when a daemon answers it (``query_line.answer_query_line``).
"""

from __future__ import annotations

from functools import partial
from typing import Optional

import typer

from ..errors import UsageError
from .app import app, open_vault
from .output import JsonOutput, print_json
from .query_line import Answerer, hits_for_output, print_answer, read_batch, search_request


@app.command("query")
def query_command(
    ctx: typer.Context,
    text: Optional[str] = typer.Argument(None, help="The question."),
    top_k: int = typer.Option(5, "--top-k", "-k", min=1, max=1000, help="How many hits."),
    mode: str = typer.Option("smart", "--mode", help="smart (default), cosine (plain cosine over all versions: the baseline) or lexical (BM25 full-text search)."),
    include_archived: bool = typer.Option(False, "--include-archived", help="Also return archived (superseded) passages."),
    include_dormant: bool = typer.Option(False, "--include-dormant", help="Also return dormant passages."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Answer as of this time: an ISO date or the words a question may use ('March 2023', 'mid-2022', 'last spring'); default: a date named in the question, else now."),
    explain: bool = typer.Option(False, "--explain", help="Show each signal per hit (a table; an 'explain' object in JSON)."),
    weights: Optional[str] = typer.Option(None, "--weights", help="Signal weights, e.g. semantic=0.5,temporal=0.2,confidence=0.2,relational=0.1: finite numbers, 0 or more, not all 0."),
    no_track: bool = typer.Option(False, "--no-track", help="Do not count this retrieval as an access (for scripts and benchmarks)."),
    batch: Optional[str] = typer.Option(
        None, "--batch",
        help='JSON-lines file of {"id", "query", "as_of"?} ("-" for stdin), UTF-8; one JSON line out per query. '
             "The whole file is checked first: a malformed line stops the batch before any answer, as a usage "
             "error (exit 2) naming its line number.",
    ),
    as_json: JsonOutput = False,
) -> None:
    """Rank the vault's passages for a question (answered by 'watch' or 'mcp' when one runs)."""
    if (text is None) == (batch is None):
        raise UsageError("give either a question or --batch FILE")
    found = ctx.find_root().obj
    options = search_request(top_k, mode, as_of, include_archived, include_dormant, weights, no_track, found.now)
    with Answerer(found.vault, found.index_dir, found.now, options, open_direct=partial(open_vault, ctx)) as answerer:
        if batch is not None:
            for question_id, question, question_as_of in read_batch(batch, found.now):
                answer = answerer.ask(question, question_id, question_as_of)
                print_json({"id": question_id, "hits": hits_for_output(answer, explain), "relevant": answer.get("relevant")})
            return
        answer = answerer.ask(text)
    print_answer(answer, explain, as_json)
