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
and declining is always safe. Both ask through ``asking.Answerer`` (the daemon first) and print
through ``printing.print_answer``.

Until the core is needed, only the standard library, ``clock``, ``errors``, ``core.results``,
``store.layout`` and the socket client are imported; rich only for terminal output.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial

from ..core.results import QueryRequest
from .asking import Answerer, open_directly
from .printing import print_answer

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
        opened = partial(open_directly, line.vault, line.index_dir, line.now, line.store)
        with Answerer(line.vault, line.index_dir, line.now, line.request, open_direct=opened) as answerer:
            answer = answerer.ask(line.text)
        print_answer(answer, line.request.explain, line.as_json, line.context, line.text, line.request.mode)
    except (Exception, KeyboardInterrupt) as exc:
        from .session import report_failure

        return report_failure(exc)
    return 0
