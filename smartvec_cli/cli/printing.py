"""Printing shared by the commands: data on stdout, messages and progress on stderr.

Free of the command-line framework, so that a question answered by a daemon
(``query_line``) prints without importing it.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")
    sys.stdout.flush()


def message(text: str) -> None:
    """A note for the human at the terminal; goes to stderr so stdout stays data."""
    sys.stderr.write(text + "\n")


def show_notices(store) -> None:
    for notice in store.notices:
        message(f"warning: {notice}")


def plain(value):
    """A table cell shown as it is: note text and names may hold ``[...]`` that rich would read as markup."""
    from rich.text import Text

    return Text(str(value))


def stdout_console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@contextmanager
def progress_bar(description: str) -> Iterator:
    """A callback ``(done, total)`` that draws a rich progress bar, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total or None)

        yield update
