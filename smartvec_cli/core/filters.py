"""Which notes a question may be answered from: ``--path``, ``--tag``, ``--where``, ``--since``, ``--until``.

A filter is about notes, not passages, and it is applied to the candidates of the search (``core.search``)
before any ranking cut: a filter that keeps one note of a thousand still returns that note's best passages.
It reads what the indexer stores of every note (path, tags, front matter, dates); a note matches when every
kind of condition given holds:

- ``paths``: the note's vault path, or one of its folders, matches one of the globs (the rule of ``exclude``
  in ``config.toml``, ``vault.scan.glob_matcher``: ``*`` also crosses ``/``, ``projects`` and ``projects/**``
  both mean the folder);
- ``tags``: the note has every one of them (front-matter ``tags`` and inline ``#tags``, without case); a
  nested tag ``a/b`` counts as ``a`` too;
- ``where``: every ``key=value`` holds for its front matter (a list holds a value when one of its items is it;
  compared as text, without case);
- ``since`` / ``until``: the note's date falls in the period (both bounds included, a day meaning the
  whole day, words such as "March 2023" their whole period, as ``--as-of`` reads them). The note's date is
  its front-matter ``updated`` (or ``modified``), else its ``date``/``created`` (or a day in its file name),
  else the file's modification time when it was indexed.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..clock import UTC, parse_when
from ..errors import UsageError
from ..memory.asof import resolve_as_of
from ..memory.temporal import first_date
from ..vault.scan import glob_matcher

UPDATED_KEYS = ("updated", "modified", "last_modified", "updated_at", "date_modified")


@dataclass(frozen=True)
class NoteFilter:
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    where: tuple[tuple[str, str], ...] = ()
    since: str | None = None  # the words given ("2023-03-01", "March 2023"); resolved when asked
    until: str | None = None

    def __bool__(self) -> bool:
        return bool(self.paths or self.tags or self.where or self.since or self.until)

    def to_json(self) -> dict:
        """As the query socket and a batch line carry it: ``where`` as ``key=value`` texts."""
        return {
            "path": list(self.paths),
            "tag": list(self.tags),
            "where": [f"{k}={v}" for k, v in self.where],
            "since": self.since,
            "until": self.until,
        }

    def describe(self) -> str:
        """``--tag x --path 'a/**'``: the filter as the command line writes it, for a hint."""
        parts = [f"--path {p!r}" for p in self.paths] + [f"--tag {t!r}" for t in self.tags]
        parts += [f"--where {k}={v!r}" for k, v in self.where]
        parts += [f"--{name} {value!r}" for name, value in (("since", self.since), ("until", self.until)) if value]
        return " ".join(parts)

    def needles(self) -> list[str]:
        """Lower-case texts every kept note's stored tags and front matter (JSON, non-ASCII escaped) must contain:
        what the store can test before any row is read into Python (``Store.note_filter_fields``). Only plain
        ASCII ones, which JSON writes as they are and whose lower case SQL computes as Python does."""
        wanted = [*self.tags, *(part for pair in self.where for part in pair)]
        return [w.lower() for w in wanted if w and w.isascii() and w.isprintable() and not set(w) & set('"\\')]

    def replaced_by(self, other: "NoteFilter") -> "NoteFilter":
        """This filter with each kind of condition ``other`` gives taken from it instead (a batch line's own)."""
        return NoteFilter(
            other.paths or self.paths,
            other.tags or self.tags,
            other.where or self.where,
            other.since or self.since,
            other.until or self.until,
        )


def _texts(value, name: str) -> tuple[str, ...]:
    """One text or several, as a tuple; anything else (a number, a mapping, a list holding one) a usage error."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    items = tuple(value) if isinstance(value, (list, tuple, set, frozenset)) else None
    if items is None or not all(isinstance(v, str) for v in items):
        raise UsageError(f"{name} must be a text or a list of texts, not {json.dumps(value, default=str)[:60]}")
    return items


def note_filter(
    paths: Iterable[str] | str | None = None,
    tags: Iterable[str] | str | None = None,
    where: Iterable[str] | dict | str | None = None,
    since: str | dt.date | None = None,
    until: str | dt.date | None = None,
    languages: Sequence[str] = ("en",),
    now: dt.datetime | None = None,
) -> NoteFilter:
    """A checked filter: one clear usage error for each value a caller can get wrong (an empty glob or tag, a
    ``--where`` without ``=``, a date ``--as-of`` would not read, ``since`` after ``until``)."""
    globs = tuple(p.strip() for p in _texts(paths, "path"))
    if any(not p.strip("/") for p in globs):
        raise UsageError("--path needs a glob such as 'projects/**' or '*.md'")
    names = tuple(t.strip().lstrip("#").strip("/") for t in _texts(tags, "tag"))
    if any(not t for t in names):
        raise UsageError("--tag needs a tag such as 'project' or 'project/alpha'")
    if isinstance(where, dict):
        pairs = [(str(k), _as_text(v)) for k, v in where.items()]
    else:
        pairs = []
        for item in _texts(where, "where"):
            key, equals, value = item.partition("=")
            if not equals or not key.strip():
                raise UsageError(f"--where takes key=value (a front-matter field and its value), not {item!r}")
            pairs.append((key.strip(), value.strip()))
    since_words = str(since) if since not in (None, "") else None
    until_words = str(until) if until not in (None, "") else None
    found = NoteFilter(globs, names, tuple(pairs), since_words, until_words)
    first, last = date_bounds(found, now or dt.datetime.now(UTC), languages)
    if first and last and first >= last:
        raise UsageError(f"--since {since_words!r} is after --until {until_words!r}: no note could match")
    return found


def note_filter_from_json(
    data: dict | None, languages: Sequence[str] = ("en",), now: dt.datetime | None = None
) -> NoteFilter | None:
    """``NoteFilter.to_json()`` (or a batch line's fields) back, checked; None when it holds no condition."""
    if not data:
        return None
    unknown = set(data) - {"path", "tag", "where", "since", "until"}
    if unknown:
        raise UsageError(f"unknown filter fields: {', '.join(sorted(unknown))}")
    found = note_filter(
        data.get("path"), data.get("tag"), data.get("where"), data.get("since"), data.get("until"), languages, now
    )
    return found or None


def _as_text(value) -> str:
    """A front-matter value compared as text: YAML's ``true`` is ``true``, not Python's ``True``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def date_bounds(
    found: NoteFilter, now: dt.datetime, languages: Sequence[str]
) -> tuple[dt.datetime | None, dt.datetime | None]:
    """[first, last) of the period ``since``/``until`` name: from the first day of the since-period to the end
    of the until-period's last day; an exact time given is that moment."""
    first = last = None
    if found.since:
        when = _resolve(found.since, "--since", now, languages)
        first = (
            when.moment
            if when.rule == "the moment given" and ":" in found.since
            else _day_start(when.first_day or when.moment.date())
        )
    if found.until:
        when = _resolve(found.until, "--until", now, languages)
        last = (
            when.moment
            if when.rule == "the moment given" and ":" in found.until
            else _day_start((when.last_day or when.moment.date()) + dt.timedelta(days=1))
        )
    return first, last


def _resolve(words: str, flag: str, now: dt.datetime, languages: Sequence[str]):
    try:
        return resolve_as_of(words, now, languages)
    except UsageError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def _day_start(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, tzinfo=UTC)


def tag_matches(wanted: str, tags: Sequence[str]) -> bool:
    """``project`` is held by ``project`` and ``project/alpha``; ``project/alpha`` only by itself and below."""
    wanted = wanted.casefold()
    return any(t.casefold() == wanted or t.casefold().startswith(wanted + "/") for t in tags)


def field_matches(metadata: dict, key: str, value: str) -> bool:
    """A front-matter field holds the value (a list: one of its items); the key and the value are read without case."""
    wanted, key = value.casefold(), key.casefold()
    for name, found in metadata.items():
        if name != key and str(name).casefold() != key:
            continue
        for item in found if isinstance(found, list) else (found,):
            if _as_text(item).strip().casefold() == wanted:
                return True
    return False


def note_date(
    metadata: dict, doc_date: str | None, mtime_ns: int | None, languages: Sequence[str] = ("en",)
) -> dt.datetime | None:
    """The date ``since``/``until`` compare (see the module): updated, else dated, else the file's time."""
    updated = first_date(metadata, UPDATED_KEYS, tuple(languages))
    if updated or doc_date:
        return parse_when(updated or doc_date)
    if mtime_ns:
        return dt.datetime.fromtimestamp(mtime_ns / 1e9, UTC)
    return None


def matching_notes(rows: Iterable[tuple], found: NoteFilter, now: dt.datetime, languages: Sequence[str]) -> set[int]:
    """The notes of ``rows`` (id, path, tags JSON, metadata JSON, doc_date, mtime_ns) that ``found`` keeps; the
    cheap tests first, and a note's JSON read only when a condition needs it."""
    first, last = date_bounds(found, now, languages)
    in_paths = glob_matcher(found.paths) if found.paths else None
    kept = set()
    for note, path, tags_json, metadata_json, doc_date, mtime_ns in rows:
        if in_paths and not in_paths(path):
            continue
        if found.tags:
            tags = _loaded(tags_json, list)
            if not all(tag_matches(t, tags) for t in found.tags):
                continue
        metadata = _loaded(metadata_json, dict) if found.where or first or last else {}
        if not all(field_matches(metadata, k, v) for k, v in found.where):
            continue
        if first or last:
            when = note_date(metadata, doc_date, mtime_ns, languages)
            if when is None or (first and when < first) or (last and when >= last):
                continue
        kept.add(note)
    return kept


def _loaded(text: str | None, kind: type):
    try:
        value = json.loads(text) if text else kind()
    except ValueError:
        return kind()
    return value if isinstance(value, kind) else kind()
