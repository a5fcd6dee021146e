"""``smartvec query``: ask the vault a question, or many (``--batch``).

While a daemon (``watch`` or ``mcp``) serves this index, each question goes to it over the
query socket, and the core (numpy, SQLite, the vector index, the model) is imported only
when no daemon answers. Both paths print from the same JSON, so their output is the same.
A plain command line never even gets here when a daemon answers it (``query_line.answer_query_line``).
A ``--batch`` file is read and checked whole (``read_batch``) before its first question is asked.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import List, Optional

import typer

from ..core.results import FILTER_FIELDS, QueryRequest
from ..errors import UsageError, check_question_length
from .app import app, open_vault
from .asking import Answerer
from .output import JsonOutput, print_json
from .printing import hits_for_output, print_answer
from .query_line import REQUEST_DEFAULTS


@app.command("query")
def query_command(
    ctx: typer.Context,
    text: Optional[str] = typer.Argument(None, help="The question."),
    top_k: int = typer.Option(REQUEST_DEFAULTS.top_k, "--top-k", "-k", min=1, max=1000, help="How many hits."),
    mode: str = typer.Option(
        REQUEST_DEFAULTS.mode,
        "--mode",
        help="smart (default), cosine (plain cosine over all versions: the baseline) or lexical (BM25 full-text "
        "search).",
    ),
    include_archived: bool = typer.Option(
        REQUEST_DEFAULTS.include_archived, "--include-archived", help="Also return archived (superseded) passages."
    ),
    include_dormant: bool = typer.Option(
        REQUEST_DEFAULTS.include_dormant, "--include-dormant", help="Also return dormant passages."
    ),
    as_of: Optional[str] = typer.Option(
        None,
        "--as-of",
        help="Answer as of this time: an ISO date or the words a question may use ('March 2023', 'mid-2022', 'last "
        "spring'); default: a date named in the question, else now.",
    ),
    explain: bool = typer.Option(
        False, "--explain", help="Show each signal per hit (a table; an 'explain' object in JSON)."
    ),
    weights: Optional[str] = typer.Option(
        None,
        "--weights",
        help="Signal weights, e.g. semantic=0.5,temporal=0.2,confidence=0.2,relational=0.1: finite numbers, 0 or "
        "more, not all 0.",
    ),
    no_track: bool = typer.Option(
        False, "--no-track", help="Do not count this retrieval as an access (for scripts and benchmarks)."
    ),
    batch: Optional[str] = typer.Option(
        None,
        "--batch",
        help='JSON-lines file of {"id", "query", "as_of"?} ("-" for stdin), UTF-8; one JSON line out per query. '
        "The whole file is checked first: a malformed line stops the batch before any answer, as a usage "
        "error (exit 2) naming its line number. A line may carry its own path, tag, where, since and until "
        "(a text or a list), which replace the flags of the same name for that question.",
    ),
    path: Optional[List[str]] = typer.Option(
        None,
        "--path",
        metavar="GLOB",
        help="Only notes whose vault path (or a folder of it) matches this glob, e.g. 'projects/**' or '*2023*' "
        "(repeatable: any of them).",
    ),
    tag: Optional[List[str]] = typer.Option(
        None,
        "--tag",
        metavar="TAG",
        help="Only notes with this tag (front matter or #inline; 'a' also matches 'a/b'; repeatable: all of them).",
    ),
    where: Optional[List[str]] = typer.Option(
        None,
        "--where",
        metavar="KEY=VALUE",
        help="Only notes whose front-matter field KEY holds VALUE (repeatable: all of them).",
    ),
    since: Optional[str] = typer.Option(
        None,
        "--since",
        metavar="DATE",
        help="Only notes dated on or after DATE (read like --as-of; the note's updated, else date/created, else file "
        "time).",
    ),
    until: Optional[str] = typer.Option(
        None,
        "--until",
        metavar="DATE",
        help="Only notes dated on or before DATE (read like --as-of; 'March 2023' includes all of March).",
    ),
    context: bool = typer.Option(
        False,
        "--context",
        help="Print the hits as one block to paste into a prompt: each passage's source, validity window, "
        "confidence and warnings, then its text.",
    ),
    as_json: JsonOutput = False,
) -> None:
    """Rank the vault's passages for a question (answered by 'watch' or 'mcp' when one runs)."""
    if (text is None) == (batch is None):
        raise UsageError("give either a question or --batch FILE")
    if context and (as_json or batch is not None or explain):
        raise UsageError("--context prints a block of text: it goes with neither --json, --batch nor --explain")
    found = ctx.find_root().obj
    request = QueryRequest(
        top_k=top_k,
        mode=mode,
        as_of=as_of or None,
        include_archived=include_archived,
        include_dormant=include_dormant,
        weights=weights,
        track=not no_track,
        explain=explain,
        path=path or None,
        tag=tag or None,
        where=where or None,
        since=since,
        until=until,
    )
    with Answerer(found.vault, found.index_dir, found.now, request, open_direct=partial(open_vault, ctx)) as answerer:
        if batch is not None:
            for question_id, question, question_as_of, own in read_batch(batch, request, found.now):
                answer = answerer.ask(question, question_id, question_as_of, own)
                print_json(
                    {
                        "id": question_id,
                        "hits": hits_for_output(answer, explain),
                        "relevant": answer.get("relevant"),
                        "notes_matched": answer.get("notes_matched"),
                    }
                )
                hint_when_nothing_matched(answer, own or request, f"line with id {question_id!r}: ")
            return
        assert text is not None  # exactly one of the question and --batch is given
        answer = answerer.ask(text)
    print_answer(answer, explain, as_json, context=context, question=text, mode=mode)
    hint_when_nothing_matched(answer, request)


def hint_when_nothing_matched(answer: dict, request: QueryRequest, where: str = "") -> None:
    """A filter that keeps no note answers like a question nothing is relevant to (exit 0, no hits), and says why
    on stderr, so that a typo in a tag is not read as "the vault knows nothing about it"."""
    kept = request.note_filter() if answer.get("notes_matched") == 0 else None
    if kept:
        from .printing import message

        message(
            f"hint: {where}no indexed note matches {kept.describe()}; check the spelling, or see 'smartvec show NOTE' "
            "for a note's tags and fields"
        )


def read_batch(
    source: str, request: QueryRequest, now: str | None = None
) -> list[tuple[object, str, str | None, QueryRequest | None]]:
    """(id, question, as-of or None, the line's own request or None) for each line of a ``--batch`` file
    (``-``: stdin); a line's filter fields (``path``, ``tag``, ``where``, ``since``, ``until``) replace
    ``request``'s of the same name for that line, checked as the command line's flags are.

    The whole file is read and checked before the first question is answered, so a malformed line stops
    the batch as a usage error naming its line (not UTF-8, not JSON, nested too deeply, not an object, a
    field of the wrong type, an impossible ``as_of``) and nothing is printed: a script never gets half of
    its answers with an exit code that says they are all there."""
    try:
        if source == "-":
            raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
        else:
            raw = Path(source).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read batch file {source}: {exc.strerror or exc}") from None
    now_moment = None
    questions = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        where = f"{source}:{number}"
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(
                f"{where}: not UTF-8 (byte {line[exc.start]:#04x} at column {exc.start + 1}); save the batch file as "
                "UTF-8"
            ) from None
        if not text.strip():
            continue
        item = batch_item(text, where)
        as_of = item.get("as_of")
        if as_of:
            from ..clock import Clock
            from ..memory.asof import resolve_as_of
            from ..memory.date_languages import DATE_LANGUAGES

            now_moment = now_moment or Clock(now).now()
            try:
                resolve_as_of(as_of, now_moment, ("en", *DATE_LANGUAGES))
            except UsageError as exc:
                raise UsageError(f"{where}: as_of: {exc}") from None
        fields = {name: item.get(name) for name in FILTER_FIELDS if item.get(name) not in (None, "", [])}
        try:
            own = request.with_filters(fields) if fields else None
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
        questions.append((item.get("id"), item["query"], as_of or None, own))
    return questions


def batch_item(text: str, where: str) -> dict:
    """One batch line's object, its fields checked: ``query`` a non-empty string, ``id`` a string, a number
    or null, ``as_of`` a string or null."""
    expected = 'expected a JSON object such as {"id": 1, "query": "...", "as_of": "2023-03-05"}'
    try:
        item = json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise UsageError(f"{where}: not JSON ({exc}); {expected}") from None
    except RecursionError:  # the parser's limit (about 1,000 levels; a question needs 2)
        raise UsageError(f"{where}: JSON nested too deeply; {expected}") from None
    if not isinstance(item, dict):
        raise UsageError(
            f"{where}: a JSON {type(item).__name__ if item is not None else 'null'}, not an object; {expected}"
        )
    query = item.get("query")
    if not isinstance(query, str) or not query.strip():
        found = "missing" if "query" not in item else f"{json.dumps(query)[:60]}"
        raise UsageError(f'{where}: "query" must be a non-empty string, not {found}')
    try:
        check_question_length(query)
    except UsageError as exc:
        raise UsageError(f"{where}: {exc}") from None
    question_id = item.get("id")
    if isinstance(question_id, bool) or not isinstance(question_id, (str, int, float, type(None))):
        raise UsageError(f'{where}: "id" must be a string, a number or null, not {json.dumps(question_id)[:60]}')
    as_of = item.get("as_of")
    if not isinstance(as_of, (str, type(None))):
        raise UsageError(
            f'{where}: "as_of" must be a date or time as a string (e.g. "2023-03-05"), not {json.dumps(as_of)[:60]}'
        )
    return item


def _no_constant(name: str):
    """``NaN`` and ``Infinity`` are not JSON: a NaN id would be printed back as a bare ``NaN``."""
    raise ValueError(f"{name} is not a JSON value")
