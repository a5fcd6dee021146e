"""Printing shared by the commands: data on stdout, messages on stderr.

The rule, for every command: what a script would read (the command's result, as text or ``--json``,
tables, a summary of what was done) goes to stdout; progress, warnings, hints and notices go to stderr.

Free of the command-line framework, so that a question answered by a daemon
(``query_line``) prints without importing it.
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
