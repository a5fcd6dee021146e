"""Versions nobody declared: notes whose names differ only by a version marker form a lineage.

People keep versions of a document as copies: "Policy", "Policy v2", "Policy (2024)",
"Policy - updated", "Copy of Policy 3", "Policy 2025-05-08". Without ``supersedes`` or
``valid_from`` every copy is "valid now", and for "what is X" the oldest copy may win.
Here such copies, ordered by their dates, supersede one another as if declared: the
later copy closes the earlier one's window when it starts. Copies without a date of
their own (no ``date:``/``created:``, none in the name) are dated by the run that first
saw them; copies of the same day (undated copies one run found together) are ordered by their
markers: "old" < the bare name < "v2" < "v3" < "new"/"updated". Frontmatter always wins: a
note that declares its validity (``valid_from``, ``valid_until``, ``version``,
``supersedes``) or is named by a declared ``supersedes`` takes no part. Notes of a kind
that comes in series (chats, meeting notes, mail, daily notes) are never versions of one
another, and a group of names that differ only by a date ("Standup 2024-03-01",
"Standup 2024-03-08") is a series too, unless one of them is the bare name or carries
a version word. Two notes of one name without a marker ("A/Overview", "B/Overview") are two notes, not
versions. A draft supersedes nothing, and is superseded only by a copy of a later date. Notes whose passages
mostly match are copies, the later superseding the earlier, except issues of a series ("Weekly report
2024-03-01" and "2024-03-08", "Market Report Mar 2024" and "Apr 2024"): the later issue states the same
sentences with this period's numbers, and supersedes the earlier only when it restates the same facts (mostly
identical passages) or declares it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

SERIES_KINDS = frozenset({"chat", "meeting_notes", "email", "daily_note"})

COPY_OF = re.compile(r"^\s*copy\s+of\s+(?P<rest>.+?)(?:\s+(?P<k>\d{1,3}))?\s*$", re.IGNORECASE)
SEPARATOR = r"[\s_\-–—,:(\[]*"
MARKERS = (
    ("version", re.compile(SEPARATOR + r"\b(?:v|ver\.?|version)\s*(?P<k>\d{1,3})[)\]]?\s*$", re.IGNORECASE)),
    ("date", re.compile(SEPARATOR + r"(?P<date>\d{4}-\d{2}-\d{2})[)\]]?\s*$")),
    ("year", re.compile(SEPARATOR + r"(?P<year>(?:19|20)\d{2})[)\]]?\s*$")),
    (
        "word",
        re.compile(
            SEPARATOR
            + r"\b(?P<word>new|newer|updated|update|revised|latest|current|final|old|older|outdated|draft)[)\]]?\s*$",
            re.IGNORECASE,
        ),
    ),
)
# The order a marker gives when dates do not decide: old < the bare name < new/updated, v1 < v2 < v3.
WORD_RANK = {
    "old": -1.0,
    "older": -1.0,
    "outdated": -1.0,
    "draft": -0.5,
    "new": 1000.0,
    "newer": 1000.0,
    "updated": 1000.0,
    "update": 1000.0,
    "revised": 1000.0,
    "latest": 1001.0,
    "current": 1001.0,
    "final": 1001.0,
}


@dataclass(frozen=True)
class NamedVersion:
    """What a note's name says about it as a version: the name without the marker, and the marker."""

    base: str  # lower case, spaces collapsed: the key copies share
    marker: str | None  # the marker as written ("v2", "(2024)", "- updated", "copy 3"), None for the bare name
    rank: float  # the order the marker gives: v2 -> 2, the bare name 1, "old" -1, "new" 1000
    date: str | None  # an ISO day the name carries (a year reads as its 1 January)
    draft: bool = False

    @property
    def dated_only(self) -> bool:
        """The marker is a date and nothing else: such names also make series, not only versions."""
        return self.marker is not None and self.rank == 1.0 and self.date is not None


NAMES_KEPT = 1 << 16
"""Names whose split is remembered: every run splits every note's name (a git import, once per commit)."""


@lru_cache(maxsize=NAMES_KEPT)
def named_version(name: str) -> NamedVersion:
    """Split a note name into its base and a version marker ("Policy v2" -> "policy", v2)."""
    text = " ".join(name.split())
    copy = COPY_OF.match(text)
    if copy:
        rest = copy.group("rest")
        k = copy.group("k")
        inner = named_version(rest)
        rank = float(k) if k else max(inner.rank, 1.0) + 0.5
        return NamedVersion(inner.base, f"copy {k}" if k else "copy", rank, inner.date, inner.draft)
    for kind, pattern in MARKERS:
        match = pattern.search(text)
        if not match or match.start() == 0:
            continue
        base = text[: match.start()]
        marker = text[match.start() :].strip(" _-–—,:")
        if kind == "version":
            return NamedVersion(_key(base), marker, float(match.group("k")), None)
        if kind == "date":
            return NamedVersion(_key(base), marker, 1.0, match.group("date"))
        if kind == "year":
            return NamedVersion(_key(base), marker, 1.0, f"{match.group('year')}-01-01")
        word = match.group("word").lower()
        return NamedVersion(_key(base), marker, WORD_RANK[word], None, draft=word == "draft")
    return NamedVersion(_key(text), None, 1.0, None)


def _key(text: str) -> str:
    return " ".join(text.replace("_", " ").split()).strip(" -–—,:([").lower()


@dataclass(frozen=True)
class VersionCandidate:
    """A note as lineage inference sees it."""

    note: int
    path: str
    title: str
    doc_date: str | None  # the note's own date (``date:``/``created:``)
    created_at: str  # when it was first indexed
    source_type: str | None = None
    declared: bool = False  # it declares its validity, or a declared ``supersedes`` names it

    @property
    def name(self) -> str:
        return _file_stem(self.path)


@lru_cache(maxsize=NAMES_KEPT)
def _file_stem(path: str) -> str:
    return PurePosixPath(path).stem


@dataclass(frozen=True)
class InferredSupersession:
    newer: int
    older: int
    start: str  # when the newer version starts: the older one is valid until then
    reason: str


def _version_of(candidate: VersionCandidate) -> NamedVersion:
    """The file name usually carries the marker (copies share their heading); else the title."""
    by_name = named_version(candidate.name)
    if by_name.marker is not None:
        return by_name
    by_title = named_version(candidate.title)
    return by_title if by_title.marker is not None and by_title.base == by_name.base else by_name


def _start(candidate: VersionCandidate, version: NamedVersion) -> tuple[str, str]:
    """(when this version starts, where that date comes from): its date, a date in its name, else when it was
    indexed."""
    if candidate.doc_date:
        return candidate.doc_date, "dated"
    if version.date:
        return f"{version.date}T00:00:00Z", "named"
    return candidate.created_at, "indexed"


def infer_supersessions(candidates: list[VersionCandidate]) -> list[InferredSupersession]:
    """Each later copy of a note supersedes the copy before it (see the module), with its reason."""
    groups: dict[str, list[tuple[VersionCandidate, NamedVersion]]] = {}
    for candidate in candidates:
        if candidate.declared or candidate.source_type in SERIES_KINDS:
            continue
        version = _version_of(candidate)
        if version.base:
            groups.setdefault(version.base, []).append((candidate, version))
    found: list[InferredSupersession] = []
    for members in groups.values():
        if len(members) < 2 or all(version.dated_only for _, version in members):
            continue
        found.extend(_chain(members))
    return found


def _chain(members: list[tuple[VersionCandidate, NamedVersion]]) -> list[InferredSupersession]:
    """Order by day, the marker breaking ties; each copy is superseded by the next later one. Later means a
    later day or, on the same day (copies with no date of their own that one run first indexed), a marker of
    higher rank: "Policy v2" after "Policy", "Policy" after "Policy old". Copies of one day and one rank
    infer nothing. A draft never supersedes, and on the same day it is not superseded either: a draft is
    as often the next version being written as an abandoned one, and only a date tells which."""
    dated = [(c, v, *_start(c, v)) for c, v in members]
    dated.sort(key=lambda item: (item[2][:10], item[1].rank, item[0].path))
    found = []
    for i, (older, older_version, older_start, older_source) in enumerate(dated):
        newer = next((item for item in dated[i + 1 :] if _later(item, dated[i])), None)
        if newer is None:
            continue
        newer_candidate, newer_version, newer_start, newer_source = newer
        markers = _marker_words(newer_version, older_version)
        if newer_start[:10] > older_start[:10]:
            evidence = f"{newer_source} {newer_start[:10]} > {older_start[:10]}"
        else:
            evidence = f"{_same_day(newer_source, older_source)} {newer_start[:10]}: the marker decides, not a date"
        found.append(
            InferredSupersession(
                newer=newer_candidate.note,
                older=older.note,
                start=newer_start,
                reason=f"title '{newer_candidate.name}' is a later version of '{older.name}' ({markers}; {evidence})",
            )
        )
    return found


def _later(newer: tuple, older: tuple) -> bool:
    """Whether ``newer`` (a candidate, its version, start, source) is a later version than ``older``. Two notes
    of one name without a marker (``A/Overview``, ``B/Overview``) are different notes, not versions."""
    if newer[1].draft or (newer[1].marker is None and older[1].marker is None):
        return False
    day, older_day = newer[2][:10], older[2][:10]
    return day > older_day or (day == older_day and not older[1].draft and newer[1].rank > older[1].rank)


def _same_day(newer_source: str, older_source: str) -> str:
    return (
        f"both {newer_source}" if newer_source == older_source else f"{newer_source} and {older_source} the same day,"
    )


def _marker_words(newer: NamedVersion, older: NamedVersion) -> str:
    if newer.marker and older.marker:
        return f"{newer.marker} marker after {older.marker}"
    if newer.marker:
        return f"{newer.marker} marker"
    return f"{older.marker} marker on the older copy"


# -- copies under other names: passages that mostly match -----------------------------------------

MOSTLY_MATCHED = 0.6
"""The share of the longer note's passages that must have an identical or near-identical passage in the other."""
MIN_MATCHED = 2
"""And at least this many: one shared passage is a quote, not a copy."""


@dataclass(frozen=True)
class PassageOverlap:
    """Two notes, and how many of their passages have an identical or near-identical passage in the other
    (matched one to one), out of the passages of the one with more."""

    notes: tuple[int, int]
    matched: int
    distinct: int  # of those, the matches that are not boilerplate (a text many notes share, as a template's)
    passages: int
    near: int = 0  # of the matches, those near-identical rather than identical (an edited number or word)

    @property
    def mostly(self) -> bool:
        """Most passages match, and not only by boilerplate: notes of one template share only that."""
        return self.distinct >= 1 and self.matched >= MIN_MATCHED and self.matched >= MOSTLY_MATCHED * self.passages

    @property
    def mostly_restated(self) -> bool:
        """``mostly`` by identical passages alone: the same facts, not the same sentences with other numbers."""
        return PassageOverlap(self.notes, self.matched - self.near, self.distinct - self.near, self.passages).mostly


MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
PERIOD = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}(?:-\d{{2}})?|(?:19|20)\d{{2}}|(?:{MONTHS})|w(?:eek)?\s*\d{{1,2}}|kw\s*\d{{1,2}}|q[1-4]"
    rf"|h[12]|(?:sprint|issue|edition|no\.?|#)\s*\d{{1,4}})\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=NAMES_KEPT)
def series_key(name: str) -> str | None:
    """A note's name without the periods it names ("Weekly report 2024-03-08", "Market Report Apr 2024",
    "Sprint 14 review", "Status W11", "Q2 numbers"), or None when it names none: two notes whose names differ
    only by their periods are issues of one series."""
    text = " ".join(name.split())
    key = _key(PERIOD.sub(" ", text))
    return key if key != _key(text) else None


def same_series(a: str, b: str) -> bool:
    """Two names of one series (``series_key``): the same name but for the periods they name, which differ."""
    key = series_key(a)
    return key is not None and a != b and key == series_key(b)


def copy_candidates(candidates: list[VersionCandidate]) -> list[VersionCandidate]:
    """The notes whose passages may make them copies of one another: not declared, not of a kind that comes
    in series (meeting notes from one template, daily notes and chats repeat themselves by nature)."""
    return [c for c in candidates if not c.declared and c.source_type not in SERIES_KINDS]


def infer_copies(
    candidates: list[VersionCandidate], overlaps: list[PassageOverlap], named: list[InferredSupersession]
) -> list[InferredSupersession]:
    """Notes whose passages mostly match, with different days: the later supersedes the earlier, as if
    declared, unless their names already made them versions of one another (``named``). Each note is
    superseded by the earliest later copy only, so a chain of three copies gives two edges, not three."""
    if not overlaps:
        return []
    by_note = {c.note: c for c in copy_candidates(candidates)}
    related = {frozenset((e.newer, e.older)) for e in named}
    names = {c.note: _version_of(c) for c in by_note.values()}
    best: dict[int, tuple[str, InferredSupersession]] = {}
    for overlap in overlaps:
        a, b = (by_note.get(n) for n in overlap.notes)
        if a is None or b is None or not overlap.mostly or frozenset(overlap.notes) in related:
            continue
        named_a, named_b = names[a.note], names[b.note]
        if named_a.base == named_b.base and (named_a.marker or named_b.marker):
            if not (named_a.dated_only and named_b.dated_only):
                continue  # versions by name: the title lineage orders them, markers and drafts included
        if same_series(a.name, b.name) and not overlap.mostly_restated:
            continue  # this week's report is last week's with other numbers: an issue of a series, no version
        (a_start, a_source), (b_start, b_source) = _start(a, names[a.note]), _start(b, names[b.note])
        if a_start[:10] == b_start[:10]:
            continue
        (older, older_start), (newer, newer_start, newer_source) = (
            ((a, a_start), (b, b_start, b_source)) if a_start < b_start else ((b, b_start), (a, a_start, a_source))
        )
        if names[newer.note].draft:
            continue  # a draft supersedes nothing, whatever it copies
        edge = InferredSupersession(
            newer=newer.note,
            older=older.note,
            start=newer_start,
            reason=(
                f"passages mostly match ({overlap.matched} of {overlap.passages}): '{newer.name}' is a later copy of "
                f"'{older.name}' ({newer_source} {newer_start[:10]} > {older_start[:10]})"
            ),
        )
        if older.note not in best or newer_start < best[older.note][0]:
            best[older.note] = (newer_start, edge)
    return [edge for _, edge in sorted(best.values(), key=lambda item: (item[1].older, item[1].newer))]


def lineages(pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    """Each note that ``supersedes`` edges (newer, older) touch, mapped to one representative note of its
    lineage: the notes the edges connect, in either direction, however many versions lie between them."""
    parent: dict[int, int] = {}

    def root(note: int) -> int:
        while parent.setdefault(note, note) != note:
            parent[note] = parent[parent[note]]
            note = parent[note]
        return note

    for newer, older in pairs:
        parent[root(newer)] = root(older)
    return {note: root(note) for note in parent}


def lineage_members(pairs: Iterable[tuple[int, int]], note: int) -> set[int]:
    """``note`` and every note of its lineage (``lineages``)."""
    roots = lineages(pairs)
    mine = roots.get(note, note)
    return {note} | {other for other, root in roots.items() if root == mine}
