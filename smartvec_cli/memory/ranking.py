"""Ranking passages for one question at one reference time: trust, the four signals, warnings, calibration.

Pure functions over ``Passage`` values: the store supplies the candidates with their
cosine similarity, this module decides which may answer, how each scores, what the
user must be warned about, and how sure the answer is.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..clock import parse_optional, to_iso
from .confidence import ConfidenceSettings, retention, trust
from .graph import relational_signal
from .passage import Passage, Relation
from .scoring import Calibration, ScoringSettings, Weights, combine, days_between, is_valid_at, relevance, temporal_signal
from .temporal import later

NOT_VALID_CONFIDENCE_FACTOR = 0.1
SEARCHABLE_STATES = frozenset({"UNCONSOLIDATED", "ACTIVE", "ARCHIVED"})


@dataclass(frozen=True)
class Ask:
    """What a question asks of the memory besides its meaning."""

    moment: dt.datetime  # the reference time: the as-of time, else now
    as_of: bool  # the question names a time (flag or words): only passages valid then may answer
    include_archived: bool = False
    include_dormant: bool = False


@dataclass
class Ranked:
    passage: Passage
    cosine: float
    score: float
    signals: dict
    explain: dict
    warnings: list[str] = field(default_factory=list)
    confidence: float = 0.0


def age_days(passage: Passage, moment: dt.datetime) -> float | None:
    """Days since the passage was last known to change: the later of its note's date and the
    edit that made this version; an undated note counts from when it was first indexed."""
    written = passage.doc_date or passage.created_at
    return days_between(parse_optional(later(written, passage.observed_from)), moment)


def retained(passage: Passage, moment: dt.datetime, settings: ConfidenceSettings) -> float:
    """How much of its trust an undated passage keeps at ``moment``; 1 for declared validity."""
    if passage.declared:
        return 1.0
    return retention(age_days(passage, moment), settings.half_life_for(passage.source_type))


def authority(passage: Passage, settings: ConfidenceSettings) -> float:
    return passage.authority if passage.authority is not None else settings.default_authority


def passage_trust(passage: Passage, moment: dt.datetime, settings: ConfidenceSettings) -> float:
    """Trust with the user's feedback and the penalties of consolidation (contradiction, ripple)."""
    adjustment = passage.feedback - passage.contradiction_penalty - passage.ripple_penalty
    return trust(authority(passage, settings), retained(passage, moment, settings), adjustment, passage.access_count, settings)


def valid_at(passage: Passage, moment: dt.datetime) -> bool:
    return is_valid_at(passage.valid_from, passage.valid_until, moment)


def eligible(candidates: list[tuple[Passage, float]], ask: Ask) -> list[tuple[Passage, float]]:
    """The candidates that may answer: live or archived-but-valid passages (dormant and archived ones on
    request); for a question about a named time, only those valid then when any is (and archived ones
    on request)."""
    allowed = SEARCHABLE_STATES | ({"DORMANT"} if ask.include_dormant else set())
    kept: list[tuple[Passage, float, bool]] = []
    for passage, cosine in candidates:
        if passage.state not in allowed:
            continue
        valid = valid_at(passage, ask.moment)
        if passage.state == "ARCHIVED" and not valid and not ask.include_archived:
            continue
        kept.append((passage, max(0.0, min(1.0, cosine)), valid))
    if ask.as_of and any(valid for _, _, valid in kept):
        kept = [item for item in kept if item[2] or asked_for_archived(item[0], ask)]
    return [(passage, cosine) for passage, cosine, _ in kept]


def asked_for_archived(passage: Passage, ask: Ask) -> bool:
    """An archived version the question asked for (``--include-archived``): it competes on what it said,
    its time signal taken as while it was valid (else a current passage that does not even match the
    question outranks it); its confidence and warnings still say it is not current."""
    return ask.include_archived and passage.state == "ARCHIVED"


def score(
    passage: Passage,
    cosine: float,
    best_cosine: float,
    moment: dt.datetime,
    weights: Weights,
    scoring: ScoringSettings,
    confidence: ConfidenceSettings,
    importance_range: tuple[float, float],
    time_as_valid: bool = False,
) -> Ranked:
    """The four signals of one passage and their weighted sum; ``explain`` says where each came from.
    ``time_as_valid``: the time signal as if valid at ``moment`` (see ``asked_for_archived``)."""
    valid = valid_at(passage, moment)
    keeps = retained(passage, moment, confidence)
    age = age_days(passage, moment)
    signals = {
        "semantic": relevance(cosine, best_cosine, scoring.relevance_spread),
        "temporal": temporal_signal(valid or time_as_valid, passage.declared, keeps),
        "confidence": passage_trust(passage, moment, confidence),
        "relational": relational_signal(passage.importance, *importance_range),
    }
    explain = {
        "cosine": round(cosine, 6),
        "valid_at_reference": valid,
        "reference_time": to_iso(moment),
        "declared_validity": passage.declared,
        "authority": round(authority(passage, confidence), 4),
        "age_days": None if age is None else round(age, 1),
        "retention": round(keeps, 4),
        "feedback": round(passage.feedback, 4),
        "contradiction_penalty": passage.contradiction_penalty,
        "ripple_penalty": passage.ripple_penalty,
        "access_count": passage.access_count,
        "weights": weights.as_dict(),
    }
    return Ranked(passage, cosine, combine(signals, weights), signals, explain)


def rank(
    candidates: list[tuple[Passage, float]],
    ask: Ask,
    weights: Weights,
    scoring: ScoringSettings,
    confidence: ConfidenceSettings,
    importance_range: tuple[float, float],
    relations: list[Relation] = (),
) -> list[Ranked]:
    """Every eligible candidate scored, warned about and calibrated, best first."""
    kept = eligible(candidates, ask)
    best = max((cosine for _, cosine in kept), default=0.0)
    related = relation_warnings(relations, {p.id for p, _ in kept})
    ranked = []
    for passage, cosine in kept:
        item = score(passage, cosine, best, ask.moment, weights, scoring, confidence, importance_range, asked_for_archived(passage, ask))
        item.warnings = time_warnings(passage, ask.moment) + related.get(passage.id, [])
        ranked.append(item)
    ranked.sort(key=lambda r: r.score, reverse=True)
    calibrate(ranked, scoring.calibration)
    return ranked


def calibrate(ranked: list[Ranked], calibration: Calibration) -> None:
    """P(correct and current) from a hit's score and its lead over the best other hit (negative below the top)."""
    for i, item in enumerate(ranked):
        best_other = ranked[1].score if i == 0 and len(ranked) > 1 else (ranked[0].score if i else 0.0)
        probability = calibration.probability(item.score, item.score - best_other, item.explain["cosine"])
        if not item.explain["valid_at_reference"]:
            probability *= NOT_VALID_CONFIDENCE_FACTOR
        item.confidence = probability


def _day(value: str | None) -> str:
    return (value or "")[:10]


def time_warnings(passage: Passage, moment: dt.datetime) -> list[str]:
    """Superseded, removed, not yet valid or expired, as seen from ``moment``."""
    notes = []
    if passage.successor_chunk:
        notes.append(
            f"superseded by {passage.successor_chunk} v{passage.successor_version} on {_day(passage.successor_from or passage.valid_until)}"
        )
    elif passage.note_superseded_by and passage.successor_note_path:
        notes.append(f"superseded by {passage.successor_note_path} on {_day(passage.note_superseded_at)}")
    elif passage.state == "ARCHIVED":
        notes.append(f"removed from its note on {_day(passage.valid_until)}")
    if not valid_at(passage, moment):
        start = parse_optional(passage.valid_from)
        if start is not None and start > moment:
            notes.append(f"not yet valid on {_day(to_iso(moment))} (from {_day(passage.valid_from)})")
        elif not passage.successor_chunk and not passage.note_superseded_by and passage.state != "ARCHIVED":
            notes.append(f"expired on {_day(passage.valid_until)}")
    return notes


def relation_warnings(relations: list[Relation], wanted: set[int]) -> dict[int, list[str]]:
    """Corrected by, contradicted by (the loser), disputed by (the winner), for the passages in ``wanted``."""
    found: dict[int, list[str]] = {}
    for edge in relations:
        suffix = f": {edge.reason}" if edge.reason else ""
        if edge.kind == "corrects" and edge.dst in wanted:
            found.setdefault(edge.dst, []).append(f"corrected by {edge.src_chunk_id}")
        elif edge.kind == "contradicts":
            if edge.src in wanted:
                found.setdefault(edge.src, []).append(f"contradicted by {edge.dst_chunk_id} ({edge.dst_path}){suffix}")
            if edge.dst in wanted:
                found.setdefault(edge.dst, []).append(f"disputed by {edge.src_chunk_id} ({edge.src_path}), which it outranks{suffix}")
    return found
