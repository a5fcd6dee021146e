"""The options every command shares (``--json``, ``--quiet``) and progress on stderr; the printing helpers
live in ``printing`` (free of Typer, for ``query_line``) and are re-exported here for the commands."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Annotated, Callable, Iterator

import typer

from ..core.progress import PASSAGES, ProgressCallback, ProgressReport, ignore_progress
from .printing import (  # noqa: F401
    message,
    one_line,
    plain,
    print_json,
    print_rows,
    printable,
    result,
    sane_width,
    show_notices,
    stdout_console,
    stdout_is_terminal,
    window_day,
)

JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON on stdout, the same data the Python API returns.")
]
"""The one ``--json`` option every command shares: ``as_json: JsonOutput = False``."""

QuietOutput = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress and no summary on stderr; warnings and errors still go there."),
]
"""The ``--quiet`` option of the commands that report progress: ``quiet: QuietOutput = False``."""

PROGRESS_EVERY_SECONDS = 5.0
ESTIMATE_AFTER_SECONDS = 5.0
ESTIMATE_AFTER_SHARE = 0.05
"""A time left is given once this long and this share of the total have gone by since the first unit was counted:
before that, a rate is mostly noise (one batch, one commit) and its extrapolation can be off by hours."""


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


class Pace:
    """Passages per second and the time left of one run, measured from its first counted work: loading the
    model, reading notes or history and a first batch are not a slowness the rest of the run repeats."""

    def __init__(self) -> None:
        self.embedding_since: tuple[float, int] | None = None  # (when, passages embedded) at the first passage
        self.counting_since: tuple[float, int] | None = None  # (when, units done) at the first unit
        self.unit: str | None = None

    def _same_count(self, report: ProgressReport) -> None:
        """A run that goes on to count other units (``refresh``: passages embedded, then pairs compared) starts a
        new pace: the old one says nothing of the new units."""
        if report.unit != self.unit:
            self.unit, self.counting_since = report.unit, None

    def rate(self, report: ProgressReport, now: float) -> float | None:
        """Passages embedded per second since the first report that counted one; None before there is a span, and
        until a passage more is embedded (a line saying ``0.0 passages/s`` while the second batch is under way
        would be no rate at all)."""
        if self.embedding_since is None and report.embedded:
            self.embedding_since = (now, report.embedded)
        if self.embedding_since is None or now <= self.embedding_since[0]:
            return None
        since, embedded = self.embedding_since
        if report.embedded <= embedded:
            return None
        return (report.embedded - embedded) / (now - since)

    def seconds_left(self, report: ProgressReport, now: float) -> float | None:
        """The rest of the total at the pace of the units counted so far; None until that pace means
        something (``ESTIMATE_AFTER_SECONDS`` and ``ESTIMATE_AFTER_SHARE``), and once finished."""
        self._same_count(report)
        if self.counting_since is None and report.done:
            self.counting_since = (now, report.done)
        if self.counting_since is None or not report.total or report.finished:
            return None
        since, done = self.counting_since
        counted, elapsed = report.done - done, now - since
        if elapsed < ESTIMATE_AFTER_SECONDS or counted < max(1, ESTIMATE_AFTER_SHARE * report.total):
            return None
        return (report.total - report.done) * elapsed / counted


def describe(report: ProgressReport, rate: float | None, seconds_left: float | None) -> str:
    """``12/339 commits (4%), embedding the passages of commits 1-100: 480/2210 passages, 35.1 passages/s``."""
    parts = []
    if report.total or report.done:
        parts.append(
            f"{report.done}/{report.total or '?'} {report.unit}"
            + (f" ({report.done / report.total:.0%})" if report.total else "")
        )
    if report.step and report.step_total:
        parts.append(f"{report.step}: {report.step_done}/{report.step_total} passages")
    elif report.step:
        parts.append(report.step)
    elif report.unit != PASSAGES and report.embedded:
        parts.append(f"{report.embedded} passages embedded")
    if rate is not None:
        parts.append(f"{rate:.1f} passages/s")
    if seconds_left is not None:
        parts.append(f"about {seconds_left:.0f} s left")
    return ", ".join(parts)


class ProgressLines:
    """Progress for a log, a pipe or an agent (stderr is not a terminal): a plain line every few seconds.

    A run shorter than that prints nothing (unless ``first_at_once``: a run that is long from its start, a git
    import, says at once what it is doing); one that printed gets a last line when it is done. ``tick``
    prints the latest report again when the run has said nothing new for that long, so a step that
    reports nothing while it lasts (loading the model) still shows in the log every few seconds.
    """

    def __init__(
        self,
        description: str,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        write: Callable[[str], None] = message,
        first_at_once: bool = False,
    ):
        self.description = description
        self.every = PROGRESS_EVERY_SECONDS if every is None else every
        self.clock = clock
        self.write = write
        self.pace = Pace()
        self.last = clock() - (self.every if first_at_once else 0.0)
        self.printed = False
        self.latest: ProgressReport | None = None
        self._lock = threading.Lock()

    def __call__(self, report: ProgressReport) -> None:
        with self._lock:
            self.latest = report
            self._print_if_due(report, self.clock())

    def tick(self) -> None:
        with self._lock:
            if self.latest is not None and not self.latest.finished:
                self._print_if_due(self.latest, self.clock())

    def _print_if_due(self, report: ProgressReport, now: float) -> None:
        rate, seconds_left = self.pace.rate(report, now), self.pace.seconds_left(report, now)
        if now - self.last < self.every and not (report.finished and self.printed):
            return
        self.last, self.printed = now, True
        self.write(f"{self.description}: {describe(report, rate, seconds_left)}")


@contextmanager
def ticking(lines: ProgressLines) -> Iterator[ProgressLines]:
    """``lines.tick()`` from a daemon thread, every second, for as long as the block runs."""
    stopped = threading.Event()

    def tick() -> None:
        while not stopped.wait(1.0):
            lines.tick()

    thread = threading.Thread(target=tick, name="smartvec-progress", daemon=True)
    thread.start()
    try:
        yield lines
    finally:
        stopped.set()
        thread.join()


@contextmanager
def progress_bar(description: str, quiet: bool = False, first_at_once: bool = False) -> Iterator[ProgressCallback]:
    """A progress callback: a rich progress bar when stderr is a terminal, else a plain line every few
    seconds (``ProgressLines``, the first one at once with ``first_at_once``); nothing at all when ``quiet``.
    Both say the same (``describe``)."""
    if quiet:
        yield ignore_progress
        return
    if not stderr_is_terminal():
        with ticking(ProgressLines(description, first_at_once=first_at_once)) as lines:
            yield lines
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn

    with Progress(
        TextColumn(description),
        BarColumn(),
        TextColumn("{task.fields[status]}"),
        console=Console(stderr=True, width=sane_width()),
        transient=True,
    ) as progress:
        task = progress.add_task(description, total=None, status="")
        pace = Pace()

        def update(report: ProgressReport) -> None:
            now = time.monotonic()
            status = describe(report, pace.rate(report, now), pace.seconds_left(report, now))
            progress.update(task, completed=report.done, total=report.total or None, status=status)

        yield update
