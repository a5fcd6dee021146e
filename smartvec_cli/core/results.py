"""What a question returns, as typed frozen values: a hit, an answer, one answer of a batch.

These are the one definition of the answers' JSON: ``to_dict()`` builds what ``query --json`` prints,
what ``query --batch`` prints a line of and what the daemon's query socket carries, so the Python API
and the command line cannot drift apart. Only the standard library is imported, so that a caller can
name the types without loading the core.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Mapping, Sequence

JsonObject = dict[str, Any]
"""A JSON object as ``json.loads`` gives it back."""

BatchId = str | int | float | None
"""A batch line's ``id``: whatever JSON scalar the caller gave, echoed back."""


@dataclass(frozen=True)
class Signals:
    """The four ranking signals of a hit, each from 0 to 1 (``memory.scoring``); a baseline mode (cosine, lexical)
    leaves the ones it does not compute as None. The score is their weighted sum in smart mode."""

    semantic: float | None
    temporal: float | None
    confidence: float | None
    relational: float | None

    @classmethod
    def from_dict(cls, data: Mapping[str, float | None]) -> Signals:
        return cls(data["semantic"], data["temporal"], data["confidence"], data["relational"])

    def to_dict(self) -> dict[str, float | None]:
        return {
            "semantic": self.semantic,
            "temporal": self.temporal,
            "confidence": self.confidence,
            "relational": self.relational,
        }


@dataclass(frozen=True)
class QueryHit:
    """One ranked passage: a hit of ``query --json``, field for field.

    - ``rank``: 1 for the best hit.
    - ``chunk_id``: the passage's id (what ``feedback`` takes); ``note_id``: its note's.
    - ``path``: the note's path inside the vault; ``heading``: the section's heading ("" before the first).
    - ``text``: the passage as written in the note.
    - ``score``: what the hits are ordered by (smart mode: the weighted signals; cosine: the similarity;
      lexical: the BM25 relative to the best hit's).
    - ``confidence``: the calibrated probability that this hit answers the question, never rising down the list;
      None in the baseline modes (cosine, lexical), which have no such probability (their ``score`` is theirs).
    - ``signals``: the four signals (``Signals``).
    - ``state``: ``ACTIVE``, ``UNCONSOLIDATED`` (indexed, not yet consolidated), ``ARCHIVED`` (superseded)
      or ``DORMANT``.
    - ``valid_from``, ``valid_until``: the passage's validity window (ISO times; None: open on that side).
    - ``version``: the passage's version within its note, from 1.
    - ``warnings``: what the reader should know (superseded, contradicted, expired, corrected).
    - ``explain``: where each signal came from (``--explain``); None when not asked for, and then ``to_dict()``
      leaves the key out, as ``query --json`` does.
    - ``url``: opens the note (``obsidian://`` in an Obsidian vault, else ``file://``).
    - ``as_of``: the moment (ISO, UTC) the hit was judged at: the as-of given or a date the question names; None
      for now.

    ``explain`` is a read-only view; the lists and objects inside it are the answer's own copies."""

    rank: int
    chunk_id: str
    note_id: str
    path: str
    heading: str
    text: str
    score: float
    confidence: float | None
    signals: Signals
    state: str
    valid_from: str | None
    valid_until: str | None
    version: int
    warnings: tuple[str, ...]
    explain: Mapping[str, Any] | None
    url: str | None
    as_of: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryHit:
        """A hit of ``query --json`` (or of the daemon's answer, or any mapping with these keys) back as a value."""
        explain = data.get("explain")
        values = {name: data[name] for name in _HIT_FIELDS if name not in ("explain", "as_of")}
        values["as_of"] = data.get("as_of")  # an older daemon's hit has none
        values["signals"] = Signals.from_dict(data["signals"])
        values["warnings"] = tuple(data["warnings"])
        return cls(**values, explain=None if explain is None else MappingProxyType(copy.deepcopy(dict(explain))))

    def to_dict(self) -> JsonObject:
        """The hit as ``query --json`` prints it: the keys in field order, ``explain`` only when present."""
        data: JsonObject = {name: getattr(self, name) for name in _HIT_FIELDS}
        data["signals"] = self.signals.to_dict()
        data["warnings"] = list(self.warnings)
        if self.explain is None:
            del data["explain"]
        else:
            data["explain"] = copy.deepcopy(dict(self.explain))
        return data


_HIT_FIELDS = tuple(field.name for field in fields(QueryHit))
"""A hit's fields in order, which is the order of its keys in ``query --json``."""


def _hits(items: Sequence[Mapping[str, Any]]) -> tuple[QueryHit, ...]:
    return tuple(QueryHit.from_dict(item) for item in items)


@dataclass(frozen=True)
class QueryAnswer:
    """A question's hits with the moment they are about.

    ``as_of`` is the moment (ISO, UTC) of the as-of given or of a date the question names, None for now;
    ``as_of_phrase`` the words that named it, ``as_of_period`` the first and last day they name (either may be
    None: open), ``as_of_rule`` how the moment was chosen from them. ``relevant`` is how many passages passed
    the relevance floor (None in the baseline modes); ``notes_matched`` how many notes the note filter kept
    (None without a filter; 0 means no hits, whatever the question)."""

    hits: tuple[QueryHit, ...]
    as_of: str | None
    as_of_phrase: str | None
    as_of_period: tuple[str | None, str | None] | None
    as_of_rule: str | None
    relevant: int | None
    notes_matched: int | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryAnswer:
        """An answer as ``to_dict()`` writes it (the daemon's socket carries it so) back as a value."""
        period = data["as_of_period"]
        return cls(
            hits=_hits(data["hits"]),
            as_of=data["as_of"],
            as_of_phrase=data["as_of_phrase"],
            as_of_period=None if period is None else (period[0], period[1]),
            as_of_rule=data["as_of_rule"],
            relevant=data["relevant"],
            notes_matched=data["notes_matched"],
        )

    def to_dict(self) -> JsonObject:
        """``{"hits", "as_of", "as_of_phrase", "as_of_period", "as_of_rule", "relevant", "notes_matched"}``, the
        hits as ``query --json`` prints them."""
        return {
            "hits": [hit.to_dict() for hit in self.hits],
            "as_of": self.as_of,
            "as_of_phrase": self.as_of_phrase,
            "as_of_period": None if self.as_of_period is None else list(self.as_of_period),
            "as_of_rule": self.as_of_rule,
            "relevant": self.relevant,
            "notes_matched": self.notes_matched,
        }


@dataclass(frozen=True)
class BatchAnswer:
    """One question of a batch answered: its ``id`` as given, its hits, and ``relevant`` and ``notes_matched`` as
    in ``QueryAnswer``."""

    id: BatchId
    hits: tuple[QueryHit, ...]
    relevant: int | None
    notes_matched: int | None

    @classmethod
    def of(cls, question_id: BatchId, answer: QueryAnswer) -> BatchAnswer:
        return cls(question_id, answer.hits, answer.relevant, answer.notes_matched)

    def to_dict(self) -> JsonObject:
        """One line of ``query --batch``: ``{"id", "hits", "relevant", "notes_matched"}``."""
        return {
            "id": self.id,
            "hits": [hit.to_dict() for hit in self.hits],
            "relevant": self.relevant,
            "notes_matched": self.notes_matched,
        }
