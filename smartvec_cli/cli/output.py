"""Output helpers shared by the commands: data on stdout, messages and progress on stderr."""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from typing import Annotated, Any, Callable, Iterator

import typer

JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON on stdout, the same data the Python API returns.")
]
"""The one ``--json`` option every command shares: ``as_json: JsonOutput = False``."""

QuietOutput = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress and no summary on stderr; warnings and errors still go there.")
]
"""The ``--quiet`` option of the commands that report progress: ``quiet: QuietOutput = False``."""

PROGRESS_EVERY_SECONDS = 5.0


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")
    sys.stdout.flush()


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


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


class ProgressLines:
    """Progress for a log, a pipe or an agent (stderr is not a terminal): a plain line every few seconds.

    A run shorter than that prints nothing; one that printed gets a last line when it is done.
    """

    def __init__(self, description: str, every: float | None = None, clock: Callable[[], float] = time.monotonic,
                 write: Callable[[str], None] = message):
        self.description = description
        self.every = PROGRESS_EVERY_SECONDS if every is None else every
        self.clock = clock
        self.write = write
        self.started = self.last = clock()
        self.printed = False

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        finished = bool(total) and done >= total
        if now - self.last < self.every and not (finished and self.printed):
            return
        self.last, self.printed = now, True
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        line = f"{self.description}: {done}/{total or '?'} passages"
        if total:
            line += f" ({done / total:.0%})"
        line += f", {rate:.1f}/s"
        if total and not finished and rate > 0:
            line += f", about {(total - done) / rate:.0f} s left"
        self.write(line)


@contextmanager
def progress_bar(description: str, quiet: bool = False) -> Iterator:
    """A callback ``(done, total)``: a rich progress bar when stderr is a terminal, else a plain line
    every few seconds (``ProgressLines``); nothing at all when ``quiet``."""
    if quiet:
        yield lambda done, total: None
        return
    if not stderr_is_terminal():
        yield ProgressLines(description)
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
