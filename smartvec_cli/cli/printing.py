"""Printing shared by the commands: data on stdout, messages on stderr.

The rule, for every command: what a script would read (the command's result, as text or ``--json``,
tables, a summary of what was done) goes to stdout; progress, warnings, hints and notices go to stderr.

Free of the command-line framework, so that a question answered by a daemon
(``query_line``) prints without importing it; so a question's answer is rendered here too (``print_answer``), for
the Typer command and the shortcut alike.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import Any, Sequence

UNPRINTABLE = ("Cc", "Zl", "Zp")
"""Unicode categories escaped in names (control characters, line and paragraph separators): a file named
with a newline or an escape sequence would otherwise split a line of output or drive the terminal."""

NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(value: Any) -> str:
    """``str(value)`` with control characters written as escapes (``a\\nb``, ``\\x1b``): one line, inert."""
    text = str(value)
    if all(unicodedata.category(ch) not in UNPRINTABLE for ch in text):
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in UNPRINTABLE else ch for ch in text)


def _escape(ch: str) -> str:
    if ch in NAMED_ESCAPES:
        return NAMED_ESCAPES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")
    sys.stdout.flush()


def result(text: str) -> None:
    """A command's result as text (a summary of what it did): data, so on stdout, like its ``--json``."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def message(text: str) -> None:
    """A note for the human at the terminal; goes to stderr so stdout stays data."""
    sys.stderr.write(text + "\n")


def show_notices(store) -> None:
    for notice in store.notices:
        message(f"warning: {notice}")


def plain(value):
    """A table cell shown as it is: note text and names may hold ``[...]`` that rich would read as markup,
    and control characters (``printable``)."""
    from rich.text import Text

    return Text(printable(value))


def stdout_console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, width=sane_width())


MIN_WIDTH, MAX_WIDTH, FALLBACK_WIDTH = 20, 10_000, 80


def sane_width() -> int | None:
    """The output's width when ``COLUMNS`` is not a usable one (``0``, ``-5``, ``abc``, a million): the terminal's
    own, else 80; None leaves it to rich (which takes ``COLUMNS`` when it is a number, and would print nothing
    at all for 0)."""
    import os

    given = os.environ.get("COLUMNS")
    if given is None:
        return None
    if given.strip().isascii() and given.strip().isdigit() and MIN_WIDTH <= int(given) <= MAX_WIDTH:
        return None
    try:
        columns = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return FALLBACK_WIDTH
    return columns if MIN_WIDTH <= columns <= MAX_WIDTH else FALLBACK_WIDTH


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def print_rows(console, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A table: drawn by rich on a terminal; piped, one line per row with the fields separated by tabs, the
    header first, nothing cut (rich would cut ids to fit 80 columns). Cells are ``printable``, so a tab or
    newline inside one never breaks a row."""
    if not stdout_is_terminal():
        for row in (columns, *rows):
            console.file.write("\t".join(printable(cell) for cell in row) + "\n")
        console.file.flush()
        return
    from rich.table import Table

    table = Table(*columns)
    for row in rows:
        table.add_row(*(plain(cell) for cell in row))
    console.print(table)


def window_day(value: str | None, missing: str) -> str:
    """A validity window's end as a day; ``missing`` names an absent one (``always``: no start, ``open``: no end)."""
    return value[:10] if value else missing


def one_line(text: str, limit: int | None = None) -> str:
    """A passage's text on one line, cut to ``limit`` characters on a terminal only (piped, it is whole), its
    control characters escaped (``printable``)."""
    flat = printable(" ".join(text.split()))
    return flat[:limit] if limit and stdout_is_terminal() else flat


# -- a question's answer, as ``query`` prints it (the Typer command and the shortcut, ``query_line``) -----------


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
