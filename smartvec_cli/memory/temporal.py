"""When a note says it is true: its validity window, read from frontmatter.

Declared validity (``valid_from``/``effective``, ``valid_until``/``valid_to``/``expires``,
a ``version`` or a ``supersedes``) is an assertion by the author: such a passage is
fully valid inside its window and does not fade. ``date`` (or ``created``) is when a
note was written: nothing it says was true before, and undated notes fade from it.
A passage's own window is the note's window narrowed by what was observed: a passage
that appeared through an edit starts when the edit was seen (or at a newly declared
effective date), and an archived version ends when its successor began.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..clock import parse_when, to_iso
from ..errors import UsageError

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


def _first_date(metadata: dict, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = metadata.get(key)
        if value in (None, ""):
            continue
        try:
            return to_iso(parse_when(value))
        except UsageError:
            continue
    return None


def note_time(metadata: dict) -> NoteTime:
    declared_from = _first_date(metadata, FROM_KEYS)
    valid_until = _first_date(metadata, UNTIL_KEYS)
    doc_date = _first_date(metadata, DATE_KEYS)
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
