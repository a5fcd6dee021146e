"""``smartvec query`` without the command-line framework: a command line read into a ``QueryRequest``.

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
and declining is always safe. The Typer command asks the daemon first too (``Answerer``), and
both print through ``printing.print_answer``; ``read_batch`` reads and checks a ``--batch`` file.

Until the core is needed, only the standard library, ``clock``, ``errors``, ``core.results``,
``store.layout`` and the socket client are imported; rich only for terminal output.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..core.results import FILTER_FIELDS, QueryRequest
from ..errors import UsageError, check_question_length
from .printing import print_answer

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
REQUEST_DEFAULTS = QueryRequest()
"""``query``'s defaults, written once: the Typer command's options and the shortcut both start from them."""


@dataclass(frozen=True)
class QueryLine:
    """A plain ``query`` command line read: where to ask (the global options), the question, the request, and how
    to print the answer (``--json``, ``--context``)."""

    vault: str | None
    index_dir: str | None
    now: str | None
    store: str | None
    text: str
    request: QueryRequest
    as_json: bool = False
    context: bool = False


def parse_query_line(argv: list[str]) -> QueryLine | None:
    """The plain command line as a ``QueryLine``, or None for anything else. A value the command would refuse
    (a ``--mode`` or ``--as-of`` it does not know) raises ``UsageError`` as the command does."""
    where: dict = dict.fromkeys(GLOBAL_OPTIONS.values())
    tokens = iter(argv)
    for token in tokens:
        if token == "query":
            break
        value = next(tokens, None)
        if token not in GLOBAL_OPTIONS or not plain_value(value):
            return None
        where[GLOBAL_OPTIONS[token]] = value
    else:
        return None
    for name, variable in GLOBAL_ENV.items():
        where[name] = where[name] or os.environ.get(variable) or None
    given: dict = {}
    texts = []
    for token in tokens:
        if token in QUERY_FLAGS:
            given[QUERY_FLAGS[token]] = True
        elif token in QUERY_VALUES:
            value = next(tokens, None)
            if not plain_value(value):
                return None
            given[QUERY_VALUES[token]] = value
        elif token.startswith("-"):
            return None
        else:
            texts.append(token)
    top_k = str(given.get("top_k", REQUEST_DEFAULTS.top_k))
    as_json, context = given.pop("as_json", False), given.pop("context", False)
    if context and (as_json or given.get("explain")):
        return None  # the command itself says what is wrong
    if len(texts) != 1 or not (top_k.isascii() and top_k.isdigit() and 1 <= int(top_k) <= 1000):
        return None
    given["top_k"], given["track"] = int(top_k), not given.pop("no_track", False)
    return QueryLine(**where, text=texts[0], request=QueryRequest(**given), as_json=as_json, context=context)


def plain_value(token: str | None) -> bool:
    """An option's value as the shortcut takes it: present, not empty, not looking like an option."""
    return token is not None and bool(token) and not token.startswith("-")


def answer_query_line(argv: list[str]) -> int | None:
    """Answer a plain ``query`` line as the command would (the daemon's answer, else the vault's own) and
    return the exit code; None for any other line, which the Typer app then runs."""
    try:
        line = parse_query_line(argv)
        if line is None:
            return None
        with Answerer(
            line.vault, line.index_dir, line.now, line.request, open_direct=partial(direct_session, line)
        ) as answerer:
            answer = answerer.ask(line.text)
        print_answer(answer, line.request.explain, line.as_json, line.context, line.text, line.request.mode)
    except (Exception, KeyboardInterrupt) as exc:
        from .session import report_failure

        return report_failure(exc)
    return 0


def direct_session(line: QueryLine, embeds_questions: bool):
    """The vault opened by this process, its ``Workspace`` resolved before the core is imported so that the model
    loads meanwhile (``Workspace.question_embedder``), as the Typer app's ``open_vault`` does."""
    from ..core.workspace import Workspace
    from .session import open_session

    return open_session(
        Workspace.resolve(line.vault, line.index_dir, line.now, line.store), embeds_questions=embeds_questions
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
