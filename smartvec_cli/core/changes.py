"""What changed in the vault in a window of time (``smartvec changes``, the MCP ``changes`` tool).

The passages **added** (a version first stored then: a new passage, or the new text of an edited one, which
names the version it replaced), **replaced** (a version whose validity ended then because an edit replaced or
removed it, another note superseded its note, its front matter retired it, or its note was deleted; each names
what replaced it), **expired** (its note's declared end, ``valid_until``/``expires``, fell then) and
**contradicted** (a contradiction between two passages found then). Times are the index's: a version's
``created_at`` and ``valid_until`` (commit dates after ``index --from-git``), a contradiction's finding.
"""

from __future__ import annotations

import datetime as dt

from ..clock import Clock, to_iso
from ..errors import UsageError
from ..memory.asof import resolve_as_of
from ..memory.temporal import DECLARED
from ..store.store import Store
from .results import (
    AddedPassage,
    ChangesReport,
    ContradictedPassage,
    ContradictingPassage,
    EndedPassage,
    PassageVersionRef,
    ReplacedPassage,
    SupersedingNote,
)


def window(since: str, until: str | None, clock: Clock, languages: tuple[str, ...] = ("en",)) -> tuple[str, str]:
    """``[since, until)`` as ISO times: from the first day ``since`` names to the end of the last day ``until``
    names (both read like ``--as-of``: ISO dates or words such as 'March 2024'); ``until`` defaults to now."""
    now = clock.now()
    start = resolve_as_of(since, now, languages)
    first = start.first_day or start.moment.date()
    begin = dt.datetime(first.year, first.month, first.day, tzinfo=dt.timezone.utc)
    if until is None:
        end = now + dt.timedelta(seconds=1)
    else:
        stop = resolve_as_of(until, now, languages)
        last = stop.last_day or stop.moment.date()
        end = dt.datetime(last.year, last.month, last.day, tzinfo=dt.timezone.utc) + dt.timedelta(days=1)
    if end <= begin:
        raise UsageError(f"--until ({until}) comes before --since ({since})")
    return to_iso(begin), to_iso(end)


def changes(store: Store, since: str, until: str) -> ChangesReport:
    """The passages added, replaced, expired and contradicted in ``[since, until)`` (ISO times), with lineage."""
    added = tuple(
        AddedPassage(
            at=row["at"],
            path=row["path"],
            chunk_id=row["chunk_id"],
            version=row["version"],
            heading=row["heading"],
            text=row["text"],
            replaces=None
            if row["replaces"] is None
            else PassageVersionRef(row["replaces"], row["replaces_version"], row["replaces_text"]),
        )
        for row in store.passages_begun_between(since, until)
    )
    replaced: list[ReplacedPassage] = []
    expired: list[EndedPassage] = []
    for row in store.passages_ended_between(since, until):
        item = EndedPassage(row["at"], row["path"], row["chunk_id"], row["version"], row["heading"], row["text"])
        if row["until_source"] == DECLARED and not row["successor"]:
            expired.append(item)
            continue
        how, by = _ended_by(row)
        replaced.append(ReplacedPassage(**vars(item), how=how, by=by))
    contradicted = tuple(
        ContradictedPassage(
            at=row["at"],
            path=row["path"],
            chunk_id=row["chunk_id"],
            version=row["version"],
            text=row["text"],
            by=ContradictingPassage(row["other_path"], row["other"], row["other_version"], row["other_text"]),
        )
        for row in store.contradictions_found_between(since, until)
    )
    return ChangesReport(since, until, added, tuple(replaced), tuple(expired), contradicted)


def _ended_by(row: dict) -> tuple[str, PassageVersionRef | SupersedingNote | None]:
    """How a version's validity ended (``edited``, ``superseded``, ``retired``, ``deleted``, ``removed``) and what
    replaced it, when something did."""
    if row["successor"]:
        return "edited", PassageVersionRef(row["successor"], row["successor_version"], row["successor_text"])
    if row["superseding_path"]:
        return "superseded", SupersedingNote(row["superseding_path"])
    if row["note_superseded_at"] and row["note_superseded_at"] == row["at"]:
        return "retired", None  # its front matter says status: archived or deprecated
    if row["note_deleted_at"]:
        return "deleted", None
    return "removed", None
