"""What a long run tells its caller as it goes: one report type for ``index``, ``index --from-git``, ``consolidate``
and ``refresh``.

A run counts one unit (passages embedded, or commits replayed) and says what it is doing when that count
does not move for a while: reading the history, loading the model, embedding the passages of the commits
about to be replayed. The caller decides how to show it (the CLI draws a bar on a terminal, a line every
few seconds in a log); nothing here formats for a screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

PASSAGES = "passages"
COMMITS = "commits"
PAIRS = "pairs"  # consolidation: pairs of passages compared


@dataclass(frozen=True)
class ProgressReport:
    """``done`` of ``total`` ``unit`` (``total`` 0 while unknown); ``embedded`` counts the passages embedded so far
    in the whole run, whatever the unit, so a rate in passages per second can be given for commits too.
    ``step`` names what the run is busy with when that is not simply the next unit (None otherwise), and
    ``step_done``/``step_total`` count its passages when it embeds some."""

    done: int
    total: int
    unit: str = PASSAGES
    embedded: int = 0
    step: str | None = None
    step_done: int = 0
    step_total: int = 0

    @property
    def finished(self) -> bool:
        return bool(self.total) and self.done >= self.total


ProgressCallback = Callable[[ProgressReport], None]


def ignore_progress(report: ProgressReport) -> None:
    """The callback of a caller that shows no progress."""
