"""One clock for every time computation, so that ``--now`` / ``SMARTVEC_NOW`` replays history exactly.

Times are stored as ISO 8601 strings in UTC with a ``Z`` suffix; that format sorts
lexicographically in the same order as time, which SQLite comparisons rely on.
"""

from __future__ import annotations

import datetime as dt
import functools

from .errors import UsageError

UTC = dt.timezone.utc


@functools.lru_cache(maxsize=65536)
def parse_when(value: str | dt.date | dt.datetime) -> dt.datetime:
    """Parse an ISO date or datetime (naive means UTC) into an aware UTC datetime.

    The one parser of times: ``--now``/``SMARTVEC_NOW``, ``--as-of``, a batch line's ``as_of`` and an ISO
    date in a question's words all end here, so 25:00, minute 60 and 30 February are refused everywhere
    alike (a usage error naming the value and what is wrong with it).
    Cached: ranking reads the same stored times for every candidate of every question."""
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError as exc:
            reason = str(exc)
            if reason.startswith("Invalid isoformat"):
                raise UsageError(
                    f"not an ISO date or datetime: {value!r} (expected e.g. 2024-03-01 or 2024-03-01T09:00)"
                ) from None
            raise UsageError(f"impossible date or time {value!r}: {reason}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@functools.lru_cache(maxsize=1024)
def to_iso(moment: dt.datetime) -> str:
    """Cached: ranking writes the question's moment into every candidate's explanation.

    Formatted by hand, not by ``strftime``: its ``%Y`` is not zero-padded below the year 1000 on glibc, and
    ``0999-06-01`` must come back as the ISO date it was (which sorts, and parses again)."""
    return iso_z(moment)


def iso_z(moment: dt.datetime) -> str:
    """``moment`` in UTC as ``YYYY-MM-DDTHH:MM:SSZ`` with a four-digit year for every year from 1 to 9999."""
    m = moment.astimezone(UTC) if moment.tzinfo is not None else moment
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}Z"


def parse_optional(value: str | dt.date | dt.datetime | None) -> dt.datetime | None:
    """``parse_when`` for stored values where None (or empty) means "no such time"."""
    return parse_when(value) if value else None


class Clock:
    """The current time: fixed when ``--now`` was given, the wall clock otherwise."""

    def __init__(self, fixed: str | dt.date | dt.datetime | None = None):
        self._fixed = parse_when(fixed) if fixed else None

    @property
    def is_fixed(self) -> bool:
        return self._fixed is not None

    def now(self) -> dt.datetime:
        return self._fixed or dt.datetime.now(UTC).replace(microsecond=0)

    def now_iso(self) -> str:
        return to_iso(self.now())
