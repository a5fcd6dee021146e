"""The options every command shares (``--json``, ``--quiet``) and progress on stderr; the printing helpers
live in ``printing`` (free of Typer, for ``query_line``) and are re-exported here for the commands."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Annotated, Callable, Iterator

import typer

from .printing import message, plain, print_json, show_notices, stdout_console  # noqa: F401

JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON on stdout, the same data the Python API returns.")
]
"""The one ``--json`` option every command shares: ``as_json: JsonOutput = False``."""

QuietOutput = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress and no summary on stderr; warnings and errors still go there.")
]
"""The ``--quiet`` option of the commands that report progress: ``quiet: QuietOutput = False``."""

PROGRESS_EVERY_SECONDS = 5.0


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


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
