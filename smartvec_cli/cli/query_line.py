"""``smartvec query`` without the command-line framework, and how answers are printed.

A question should cost what answering it costs: the daemon's answer when ``watch`` or
``mcp`` serves the index, else loading the core and the model; not also the imports of
Typer (which coerces every parameter through pydantic). The console script (``main.run``)
hands its arguments to ``answer_query_line`` first. It reads only the plainest ``query``
lines: the global options, one question, and the command's own options written as
``--name value`` or ``--flag``. For such a line it asks the daemon (finding the socket by
path arithmetic, importing nothing heavy), else the vault itself, prints as the command
would, and reports failures as the command would (``session``). Any other line
(``--batch``, ``--help``, ``--name=value``, an unknown option, a value that looks like an
option) is declined and the Typer app runs it: the Typer command stays the definition
of ``query``, its help and its errors; this is a shortcut for the lines it recognises,
and declining is always safe. The Typer command asks the daemon first too (``Answerer``).

Until the core is needed, only the standard library, ``clock``, ``errors``,
``store.layout`` and the socket client are imported; rich only for terminal output.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import AbstractContextManager, ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..core.results import FILTER_FIELDS, QueryRequest
from ..errors import UsageError, check_question_length

if TYPE_CHECKING:
    from ..core.api import Vault

GLOBAL_OPTIONS = {"--vault": "vault", "--index-dir": "index_dir", "--now": "now", "--store": "store"}
GLOBAL_ENV = {
    "vault": "SMARTVEC_VAULT",
    "index_dir": "SMARTVEC_INDEX",
    "now": "SMARTVEC_NOW",
    "store": "SMARTVEC_STORE",
}
QUERY_VALUES = {"--top-k": "top_k", "-k": "top_k", "--mode": "mode", "--as-of": "as_of", "--weights": "weights"}
QUERY_FLAGS = {
    "--json": "as_json",
    "--explain": "explain",
    "--no-track": "no_track",
    "--include-archived": "include_archived",
    "--include-dormant": "include_dormant",
    "--context": "context",
}
QUERY_DEFAULTS = {
    "top_k": 5,
    "mode": "smart",
    "as_of": None,
    "weights": None,
    "as_json": False,
    "explain": False,
    "no_track": False,
    "include_archived": False,
    "include_dormant": False,
    "context": False,
}
"""The ``query`` command's defaults; ``tests/test_watch.py`` checks them against the Typer command's."""


def parse_query_line(argv: list[str]) -> dict | None:
    """The global options, ``query`` options and question of a plain command line, or None for anything else."""
    line: dict = dict.fromkeys(GLOBAL_OPTIONS.values())
    tokens = iter(argv)
    for token in tokens:
        if token == "query":
            break
        value = next(tokens, None)
        if token not in GLOBAL_OPTIONS or not plain_value(value):
            return None
        line[GLOBAL_OPTIONS[token]] = value
    else:
        return None
    for name, variable in GLOBAL_ENV.items():
        line[name] = line[name] or os.environ.get(variable) or None
    line.update(QUERY_DEFAULTS)
    texts = []
    for token in tokens:
        if token in QUERY_FLAGS:
            line[QUERY_FLAGS[token]] = True
        elif token in QUERY_VALUES:
            value = next(tokens, None)
            if not plain_value(value):
                return None
            line[QUERY_VALUES[token]] = value
        elif token.startswith("-"):
            return None
        else:
            texts.append(token)
    top_k = str(line["top_k"])
    if line["context"] and (line["as_json"] or line["explain"]):
        return None  # the command itself says what is wrong
    if len(texts) != 1 or not (top_k.isascii() and top_k.isdigit() and 1 <= int(top_k) <= 1000):
        return None
    line["top_k"], line["text"] = int(top_k), texts[0]
    return line


def plain_value(token: str | None) -> bool:
    """An option's value as the shortcut takes it: present, not empty, not looking like an option."""
    return token is not None and bool(token) and not token.startswith("-")


def answer_query_line(argv: list[str]) -> int | None:
    """Answer a plain ``query`` line as the command would (the daemon's answer, else the vault's own) and
    return the exit code; None for any other line, which the Typer app then runs."""
    line = parse_query_line(argv)
    if line is None:
        return None
    try:
        request = QueryRequest(
            top_k=line["top_k"],
            mode=line["mode"],
            as_of=line["as_of"] or None,
            include_archived=line["include_archived"],
            include_dormant=line["include_dormant"],
            weights=line["weights"],
            track=not line["no_track"],
            explain=line["explain"],
        )
        with Answerer(
            line["vault"], line["index_dir"], line["now"], request, open_direct=partial(direct_session, line)
        ) as answerer:
            answer = answerer.ask(line["text"])
        print_answer(answer, line["explain"], line["as_json"], line["context"], line["text"], line["mode"])
    except (Exception, KeyboardInterrupt) as exc:
        from .session import report_failure

        return report_failure(exc)
    return 0


def direct_session(line: dict, embeds_questions: bool):
    from ..core.workspace import Workspace
    from .session import open_session

    return open_session(
        Workspace.resolve(line["vault"], line["index_dir"], line["now"], line["store"]),
        embeds_questions=embeds_questions,
    )


class Answerer:
    """Asks the daemon serving this index while it answers; otherwise the vault itself, opened (with the core
    imported) on first need by ``open_direct``, told whether the questions will be embedded (not in lexical
    mode). Answers are ``Answer.to_json()`` dicts either way."""

    def __init__(
        self,
        vault: str | None,
        index_dir: str | None,
        now: str | None,
        request: QueryRequest,
        open_direct: Callable[..., AbstractContextManager] | None = None,
    ):
        from ..store.layout import index_dir_for

        vault_dir = Path(vault or ".").expanduser()
        self.index_dir = index_dir_for(vault_dir, index_dir) if vault_dir.is_dir() else None  # None: ask no daemon
        self.now = now
        self.request = request
        self.open_direct = open_direct
        self._stack = ExitStack()
        self._vault: Vault | None = None

    def ask_daemon(
        self, text: str, question_id=None, as_of: str | None = None, request: QueryRequest | None = None
    ) -> dict | None:
        """The daemon's answer, or None (and no more asking) when there is none."""
        if self.index_dir is None:
            return None
        from ..clock import Clock
        from ..daemon.query_socket import ask_daemon

        clock = Clock(self.now)  # the daemon answers at the client's --now, or at its own wall clock
        answer = ask_daemon(
            self.index_dir,
            text,
            (request or self.request).to_json(),
            clock.now().isoformat() if clock.is_fixed else None,
            question_id,
            as_of,
        )
        if answer is None:
            self.index_dir = None
        return answer

    def ask(self, text: str, question_id=None, as_of: str | None = None, request: QueryRequest | None = None) -> dict:
        """One answer; ``request`` (a batch line's own) replaces the command line's for this question."""
        check_question_length(text)
        request = request or self.request
        answer = self.ask_daemon(text, question_id, as_of, request)
        return answer if answer is not None else self._ask_directly(text, question_id, as_of, request)

    def _ask_directly(self, text: str, question_id, as_of: str | None, request: QueryRequest) -> dict:
        if self._vault is None:
            assert self.open_direct is not None, "no daemon answered and there is no direct vault to ask"
            embeds = self.request.mode in ("smart", "cosine")  # lexical answers without the model
            self._vault = self._stack.enter_context(self.open_direct(embeds_questions=embeds))
        from ..core.api import Question  # after the model has started loading

        return self._vault.ask(Question(text, question_id, as_of), request).to_json()

    def __enter__(self) -> "Answerer":
        return self

    def __exit__(self, *exc) -> None:
        self._stack.__exit__(*exc)


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


def hits_for_output(answer: dict, explain: bool) -> list[dict]:
    """The hits as ``query --json`` prints them: each with ``as_of``, the moment (ISO, UTC) it was judged at (the
    as-of given or named in the question; null: now), with or without ``--explain``; ``explain`` only when asked
    for."""
    out = []
    for hit in answer["hits"]:
        shown = {key: value for key, value in hit.items() if explain or key != "explain"}
        shown.setdefault("as_of", answer.get("as_of"))  # a daemon of an older version does not give it
        out.append(shown)
    return out


def print_answer(
    answer: dict, explain: bool, as_json: bool, context: bool = False, question: str | None = None, mode: str = "smart"
) -> None:
    from .printing import print_json

    if context:
        from ..core.context import context_block

        sys.stdout.write(context_block(question or "", answer, mode))
    elif as_json:
        print_json(hits_for_output(answer, explain))
    else:
        show_answer(answer, explain)


def as_of_origin(answer: dict) -> str:
    """Where the moment came from: ' ("mid-2022": 2022-06-01 to 2022-07-31, the middle of the period)'."""
    phrase, rule = answer.get("as_of_phrase"), answer.get("as_of_rule")
    first, last = answer.get("as_of_period") or (None, None)
    period = (
        f"{first} to {last}"
        if first and last and first != last
        else f"up to {last}"
        if last and not first
        else f"from {first}"
        if first and not last
        else first
    )
    said = f'"{phrase}"' if phrase else ""
    details = ", ".join(filter(None, (period, rule)))
    return f" ({said}: {details})" if said and details else f" ({said or details})" if said or details else ""


def show_answer(answer: dict, explain: bool) -> None:
    from rich.markup import escape

    from .printing import printable, stdout_console

    console = stdout_console()
    hits = answer["hits"]
    if answer.get("as_of"):
        console.print(f"[dim]as of {answer['as_of']}{escape(printable(as_of_origin(answer)))}[/dim]")
    if not hits:
        console.print("no relevant passage: nothing in the vault is close enough to the question")
        return
    if explain:
        show_explain_table(console, hits)
    for hit in hits:
        place = hit["path"] + (f" › {hit['heading']}" if hit["heading"] else "")
        state = "" if hit["state"] in ("ACTIVE", "UNCONSOLIDATED") else f" [{hit['state'].lower()}]"
        confidence = "" if hit["confidence"] is None else f"  confidence {hit['confidence']:.0%}"  # None: a baseline
        console.print(
            f"[bold]{hit['rank']}.[/bold] {linked(console, printable(place), hit.get('url'))}  score "
            f"{hit['score']:.3f}{confidence}{escape(state)}",
            markup=True,
        )
        for line in snippet_lines(hit["text"]):
            console.print(f"   {line}", markup=False)
        for warning in hit["warnings"]:
            console.print(f"   [yellow]! {escape(printable(warning))}[/yellow]", markup=True)


def linked(console, name: str, url: str | None, style: str = "cyan") -> str:
    """``name`` as rich markup in ``style``, a hyperlink to ``url`` when stdout is a terminal (elsewhere the
    escape sequence would only be noise in a pipe or a log). The URL is percent-encoded (``core.note_links``):
    it holds no ``]`` nor space to end the markup tag, nor a control character."""
    from rich.markup import escape

    if url and console.is_terminal and url.isprintable() and " " not in url and "]" not in url:
        return f"[{style} link={url}]{escape(name)}[/{style} link]"
    return f"[{style}]{escape(name)}[/{style}]"


def snippet_lines(text: str, limit: int = 300) -> list[str]:
    """A hit as shown: prose runs on as one line, a fenced code block keeps its lines (its layout is
    part of what it says); cut with "…" after ``limit`` characters. Control characters are escapes
    (``printable``): an escape sequence in a note (a clipboard write, a link, a cursor move over the lines above)
    must never reach the terminal."""
    from ..vault.markdown import FENCE
    from .printing import printable

    lines: list[str] = []
    prose: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if FENCE.match(line) or in_fence:
            if " ".join(prose).strip():
                lines.append(" ".join(" ".join(prose).split()))
            prose.clear()
            if FENCE.match(line):
                in_fence = not in_fence
            lines.append(line.rstrip().expandtabs(4))
        else:
            prose.append(line)
    if " ".join(prose).strip():
        lines.append(" ".join(" ".join(prose).split()))
    lines = [printable(line) for line in lines]
    shown: list[str] = []
    room = limit
    for line in lines:
        if len(line) > room:
            shown.append(line[:room] + "…")
            break
        shown.append(line)
        room -= len(line)
    return shown


def show_explain_table(console, hits: list[dict]) -> None:
    """Each signal per hit and its validity window with where each bound came from; the weighted sum is the
    score (weights in --json --explain)."""
    from rich.table import Table

    from .printing import plain

    longest = max((len(plain(hit["chunk_id"])) for hit in hits), default=0)
    with_ids = console.width >= longest + EXPLAIN_COLUMNS_WIDTH  # else an id would be folded over many lines
    table = Table("#", *(["chunk"] if with_ids else []), "score", "sem", "time", "trust", "rel", "conf", "valid")
    for hit in hits:
        cell = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        signals = hit["signals"]
        table.add_row(
            str(hit["rank"]),
            *([plain(hit["chunk_id"])] if with_ids else []),
            f"{hit['score']:.3f}",
            cell(signals["semantic"]),
            cell(signals["temporal"]),
            cell(signals["confidence"]),
            cell(signals["relational"]),
            "-" if hit["confidence"] is None else f"{hit['confidence']:.0%}",
            validity(hit),
        )
    console.print(table)
    if not with_ids:  # each id whole on its own line, under the table that numbers them
        for hit in hits:
            console.print(f"{hit['rank']:>3}  {plain(hit['chunk_id'])}", markup=False, highlight=False, soft_wrap=True)


EXPLAIN_COLUMNS_WIDTH = 75
"""What the ``--explain`` table needs besides its chunk column: on a console narrower than that and the longest id,
the ids are printed under the table instead of folded inside it."""


def validity(hit: dict) -> str:
    """``2023-03-01 observed – open``: each bound of the hit's window with its source (``always`` / ``open`` when
    unknown)."""
    explain = hit.get("explain") or {}

    def bound(value: str | None, source: str | None, unknown: str) -> str:
        return f"{value[:10]} {source}" if value and source else (value or "")[:10] or unknown

    start = bound(hit["valid_from"], explain.get("valid_from_source"), "always")
    end = bound(hit["valid_until"], explain.get("valid_until_source"), "open")
    return f"{start} – {end}"
