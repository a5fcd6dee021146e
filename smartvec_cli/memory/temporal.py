"""When a note says it is true: its validity window, read from frontmatter.

Declared validity (``valid_from``/``effective``, ``valid_until``/``valid_to``/``expires``,
a ``version`` or a ``supersedes``) is an assertion by the author: such a passage is
fully valid inside its window and does not fade. ``date`` (or ``created``; ISO or any
common writing of a day; else a day in the file name) is when a note was written: nothing it says was true before, and
undated notes fade from it.
A passage's own window is the note's window narrowed by what was observed: a passage
that appeared through an edit starts when the edit was seen (or at a newly declared
effective date), and an archived version ends when its successor began.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..clock import parse_when, to_iso
from ..errors import UsageError
from .asof import read_day

FROM_KEYS = ("valid_from", "effective", "effective_from", "effective_date")
UNTIL_KEYS = ("valid_until", "valid_to", "expires", "effective_until")
DATE_KEYS = ("date", "created", "created_at")


@dataclass(frozen=True)
class NoteTime:
    valid_from: str | None
    valid_until: str | None
    declared: bool
    doc_date: str | None
    version: int | None
    from_source: str | None = None  # "declared" (an effective date) or "inferred" (from the note's date); None: unknown


DECLARED, OBSERVED, INFERRED, GIT = "declared", "observed", "inferred", "git"
"""Where a validity bound came from: the author's effective date or expiry; a run that saw the text appear or go;
the note's ``date:``/``created:`` or another note's supersession; a commit date of the vault's git history."""


FILE_NAME_DAY = re.compile(r"(?<!\d)((?:19|20)\d{2})[-_.]([01]\d)[-_.]([0-3]\d)(?!\d)")


def first_date(metadata: dict, keys: tuple[str, ...], languages: tuple[str, ...] = ("en",)) -> str | None:
    """The first of ``keys`` that holds a date: ISO, or a day in any common writing ("5 March 2023",
    "03/05/2023"), in English or one of the vault's ``languages`` ("1. März 2023", "1 de marzo de 2023")."""
    for key in keys:
        value = metadata.get(key)
        if value in (None, ""):
            continue
        try:
            return to_iso(parse_when(value))
        except UsageError:
            day = read_day(str(value), languages) if re.search(r"\d", str(value)) else None
            if day:
                return to_iso(parse_when(day))
    return None


ARCHIVED_STATUSES = ("archived", "deprecated")
"""Values of a note's ``status:`` that retire it (any case): its passages stop answering for the present."""


def archived_by_status(metadata: dict) -> bool:
    """Whether a note's front matter retires it (``status: archived`` or ``deprecated``)."""
    status = metadata.get("status") if isinstance(metadata, dict) else None
    return isinstance(status, str) and status.strip().lower() in ARCHIVED_STATUSES


def file_name_day(rel_path: str) -> str | None:
    """The day a file name carries ("meetings/2023-03-05 Team sync.md", "journal/2023_03_05.md"), in ISO."""
    found = FILE_NAME_DAY.search(rel_path.rsplit("/", 1)[-1])
    if not found:
        return None
    try:
        return to_iso(parse_when(dt.date(*map(int, found.groups()))))
    except ValueError:
        return None


def note_time(metadata: dict, rel_path: str = "", languages: tuple[str, ...] = ("en",)) -> NoteTime:
    """A note's times from its frontmatter (days written in English or the vault's ``languages``); ``date``
    falls back on a day in the file name."""
    declared_from = first_date(metadata, FROM_KEYS, languages)
    valid_until = first_date(metadata, UNTIL_KEYS, languages)
    doc_date = first_date(metadata, DATE_KEYS, languages) or file_name_day(rel_path)
    version = metadata.get("version")
    try:
        version = int(version) if version is not None and not isinstance(version, bool) else None
    except (TypeError, ValueError):
        version = None
    declared = bool(declared_from or valid_until or version is not None or metadata.get("supersedes"))
    return NoteTime(
        valid_from=declared_from or doc_date,
        valid_until=valid_until,
        declared=declared,
        doc_date=doc_date,
        version=version,
        from_source=DECLARED if declared_from else (INFERRED if doc_date else None),
    )


def later(a: str | None, b: str | None) -> str | None:
    """The later of two ISO times, where None means 'since always'."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def earlier(a: str | None, b: str | None) -> str | None:
    """The earlier of two ISO times, where None means 'for ever'."""
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)
