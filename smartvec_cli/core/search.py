"""Retrieval: candidates from the ANN index, then four-signal ranking at a reference time.

``mode="smart"`` ranks by meaning, time, trust and relations (``memory.scoring``).
A question about now sees live passages, and archived versions only while still
valid; expired passages score 0 on time and carry a warning. A question about a past
(or future) moment is answered from the passages valid at that moment, archived
versions included. ``mode="cosine"`` is plain cosine similarity over every stored
passage, all versions: the baseline every comparison is made against; its
``confidence`` is the similarity itself, as a plain RAG system would report it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from typing import Sequence

import numpy as np

from ..clock import to_iso
from ..config import Config
from ..memory.confidence import retention, trust
from ..memory.graph import relational_signal
from ..memory.temporal import later
from ..memory.scoring import Weights, combine, days_between, is_valid_at, parse_time, relevance, temporal_signal
from ..store.store import Store

MODES = ("smart", "cosine")
CANDIDATE_FACTOR = 10
MIN_CANDIDATES = 100
NOT_VALID_CONFIDENCE_FACTOR = 0.1


@dataclass
class Hit:
    rank: int
    chunk_id: str
    note_id: str
    path: str
    heading: str
    text: str
    score: float
    confidence: float
    signals: dict
    state: str
    valid_from: str | None
    valid_until: str | None
    version: int
    warnings: list[str] = field(default_factory=list)
    explain: dict | None = None
    row_id: int = 0

    def to_dict(self, explain: bool = False) -> dict:
        data = asdict(self)
        data.pop("row_id")
        if not explain:
            data.pop("explain")
        return data


@dataclass
class SearchOptions:
    top_k: int = 5
    mode: str = "smart"
    as_of: dt.datetime | None = None
    include_archived: bool = False
    include_dormant: bool = False
    weights: Weights | None = None
    record_access: bool = True

    def to_json(self) -> dict:
        """The options as plain JSON (the watch daemon's socket protocol carries them)."""
        data = asdict(self)
        data["as_of"] = to_iso(self.as_of) if self.as_of else None
        return data

    @classmethod
    def from_json(cls, data: dict) -> "SearchOptions":
        from ..clock import parse_when

        data = dict(data)
        data["as_of"] = parse_when(data["as_of"]) if data.get("as_of") else None
        data["weights"] = Weights.from_mapping(data["weights"]) if data.get("weights") else None
        return cls(**data)


CANDIDATE_SQL = """
    SELECT c.id, c.note AS note_pk, c.chunk_id, c.heading, c.text, c.state, c.valid_from, c.valid_until, c.version,
           c.created_at, c.observed_from, c.feedback, c.access_count, c.superseded_by, c.last_accessed,
           c.contradiction_penalty, c.ripple_penalty,
           n.note_id, n.path, n.title, n.authority, n.source_type, n.declared, n.doc_date, n.importance,
           n.superseded_at, n.superseded_by AS note_superseded_by,
           s.chunk_id AS successor_chunk, s.version AS successor_version, s.valid_from AS successor_from,
           sn.path AS successor_note_path
    FROM chunks c
    JOIN notes n ON n.id = c.note
    LEFT JOIN chunks s ON s.id = c.superseded_by
    LEFT JOIN notes sn ON sn.id = n.superseded_by
    WHERE c.id IN ({marks}) AND c.state != 'DELETED'
"""


def _rows_for(store: Store, labels: Sequence[int]) -> dict[int, dict]:
    if not labels:
        return {}
    sql = CANDIDATE_SQL.format(marks=",".join("?" * len(labels)))
    return {row["id"]: row for row in store.db.query(sql, list(labels))}


def _relation_warnings(store: Store, ids: Sequence[int]) -> dict[int, list[str]]:
    """Warnings from passage-level edges: corrected by, contradicted by (the loser), disputed by (the winner)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    sql = f"""SELECT e.type, e.src_chunk, e.dst_chunk, e.detail, s.chunk_id, sn.path, d.chunk_id, dn.path
              FROM edges e
              JOIN chunks s ON s.id = e.src_chunk JOIN notes sn ON sn.id = s.note
              JOIN chunks d ON d.id = e.dst_chunk JOIN notes dn ON dn.id = d.note
              WHERE e.type IN ('corrects', 'contradicts') AND (e.src_chunk IN ({marks}) OR e.dst_chunk IN ({marks}))
                AND s.state != 'DELETED' AND d.state != 'DELETED'"""
    wanted = set(ids)
    found: dict[int, list[str]] = {}
    for kind, src, dst, detail, src_id, src_path, dst_id, dst_path in store.db.execute(sql, list(ids) * 2).fetchall():
        reason = json.loads(detail or "{}").get("reason")
        suffix = f": {reason}" if reason else ""
        if kind == "corrects" and dst in wanted:
            found.setdefault(dst, []).append(f"corrected by {src_id}")
        elif kind == "contradicts":
            if src in wanted:
                found.setdefault(src, []).append(f"contradicted by {dst_id} ({dst_path}){suffix}")
            if dst in wanted:
                found.setdefault(dst, []).append(f"disputed by {src_id} ({src_path}), which it outranks{suffix}")
    return found


def _day(value: str | None) -> str:
    return (value or "")[:10]


class Ranker:
    """Scores candidate rows for one question at one reference time."""

    def __init__(self, store: Store, config: Config, moment: dt.datetime, weights: Weights):
        self.config = config
        self.moment = moment
        self.weights = weights
        low, high = store.db.execute(
            "SELECT min(importance), max(importance) FROM notes WHERE deleted_at IS NULL AND importance > 0"
        ).fetchone()
        self.importance_range = (low or 0.0, high or 0.0)

    def age_days(self, row: dict) -> float | None:
        """Days since the passage was last known to change: the later of its note's date and the
        edit that made this version; an undated note counts from when it was first indexed."""
        written = row["doc_date"] or row["created_at"]
        return days_between(parse_time(later(written, row["observed_from"])), self.moment)

    def retained(self, row: dict) -> float:
        """How much of its trust an undated passage keeps at the reference time; 1 for declared validity."""
        if row["declared"]:
            return 1.0
        return retention(self.age_days(row), self.config.confidence.half_life_for(row["source_type"]))

    def authority(self, row: dict) -> float:
        return row["authority"] if row["authority"] is not None else self.config.confidence.default_authority

    def trust_of(self, row: dict) -> float:
        """Trust with the user's feedback and the penalties of consolidation (contradiction, ripple)."""
        adjustment = (row["feedback"] or 0.0) - (row["contradiction_penalty"] or 0.0) - (row["ripple_penalty"] or 0.0)
        return trust(self.authority(row), self.retained(row), adjustment, row["access_count"] or 0, self.config.confidence)

    def score(self, row: dict, cosine: float, best_cosine: float) -> tuple[float, dict, dict]:
        valid = is_valid_at(row["valid_from"], row["valid_until"], self.moment)
        semantic = relevance(cosine, best_cosine, self.config.scoring.relevance_spread)
        declared = bool(row["declared"])
        age = self.age_days(row)
        c0 = self.authority(row)
        retained = self.retained(row)
        signals = {
            "semantic": semantic,
            "temporal": temporal_signal(valid, declared, retained),
            "confidence": self.trust_of(row),
            "relational": relational_signal(row["importance"], *self.importance_range),
        }
        explain = {
            "cosine": round(cosine, 6),
            "valid_at_reference": valid,
            "reference_time": to_iso(self.moment),
            "declared_validity": declared,
            "authority": round(c0, 4),
            "age_days": None if age is None else round(age, 1),
            "retention": round(retained, 4),
            "feedback": round(row["feedback"] or 0.0, 4),
            "contradiction_penalty": row["contradiction_penalty"] or 0.0,
            "ripple_penalty": row["ripple_penalty"] or 0.0,
            "access_count": row["access_count"] or 0,
            "weights": self.weights.as_dict(),
        }
        return combine(signals, self.weights), signals, explain

    def warnings(self, row: dict, valid: bool) -> list[str]:
        notes = []
        if row["successor_chunk"]:
            notes.append(
                f"superseded by {row['successor_chunk']} v{row['successor_version']} on {_day(row['successor_from'] or row['valid_until'])}"
            )
        elif row["note_superseded_by"] and row["successor_note_path"]:
            notes.append(f"superseded by {row['successor_note_path']} on {_day(row['superseded_at'])}")
        elif row["state"] == "ARCHIVED":
            notes.append(f"removed from its note on {_day(row['valid_until'])}")
        if not valid:
            if row["valid_from"] and parse_time(row["valid_from"]) > self.moment:
                notes.append(f"not yet valid on {_day(to_iso(self.moment))} (from {_day(row['valid_from'])})")
            elif not row["successor_chunk"] and not row["note_superseded_by"] and row["state"] != "ARCHIVED":
                notes.append(f"expired on {_day(row['valid_until'])}")
        return notes


def search(store: Store, config: Config, query_vector: np.ndarray, options: SearchOptions, now: dt.datetime) -> list[Hit]:
    """Rank stored passages for one embedded question."""
    ann = store.load_ann()
    candidates = ann.search(query_vector, max(MIN_CANDIDATES, options.top_k * CANDIDATE_FACTOR))
    rows = _rows_for(store, [label for label, _ in candidates])
    if options.mode == "cosine":
        hits = [_cosine_hit(rows[label], similarity) for label, similarity in candidates if label in rows]
    else:
        hits = _smart_hits(store, config, rows, candidates, options, now)
    hits.sort(key=lambda h: h.score, reverse=True)
    if options.mode == "smart":
        calibrate(hits, config.scoring.calibration)
    hits = hits[: options.top_k]
    for rank, hit in enumerate(hits, start=1):
        hit.rank = rank
    return hits


def calibrate(ranked: list[Hit], calibration) -> None:
    """P(correct and current) from a hit's score and its lead over the best other hit (negative below the top)."""
    for i, hit in enumerate(ranked):
        best_other = ranked[1].score if i == 0 and len(ranked) > 1 else (ranked[0].score if i else 0.0)
        probability = calibration.probability(hit.score, hit.score - best_other, hit.explain["cosine"])
        if not hit.explain["valid_at_reference"]:
            probability *= NOT_VALID_CONFIDENCE_FACTOR
        hit.confidence = round(probability, 4)


def _smart_hits(store, config, rows, candidates, options: SearchOptions, now: dt.datetime) -> list[Hit]:
    moment = options.as_of or now
    ranker = Ranker(store, config, moment, options.weights or config.scoring.weights)
    allowed = {"UNCONSOLIDATED", "ACTIVE", "ARCHIVED"} | ({"DORMANT"} if options.include_dormant else set())
    eligible: list[tuple[dict, float, bool]] = []
    for label, similarity in candidates:
        row = rows.get(label)
        if row is None or row["state"] not in allowed:
            continue
        valid = is_valid_at(row["valid_from"], row["valid_until"], moment)
        if row["state"] == "ARCHIVED" and not valid and not options.include_archived:
            continue
        eligible.append((row, max(0.0, min(1.0, similarity)), valid))
    if options.as_of is not None and any(valid for _, _, valid in eligible):
        eligible = [item for item in eligible if item[2]]
    best = max((similarity for _, similarity, _ in eligible), default=0.0)
    relations = _relation_warnings(store, [row["id"] for row, _, _ in eligible])
    hits: list[Hit] = []
    for row, similarity, valid in eligible:
        score, signals, explain = ranker.score(row, similarity, best)
        hit = _hit(row, score, signals)
        hit.explain = explain
        hit.warnings = ranker.warnings(row, valid) + relations.get(row["id"], [])
        hits.append(hit)
    return hits


def _hit(row: dict, score: float, signals: dict) -> Hit:
    return Hit(
        rank=0,
        chunk_id=row["chunk_id"],
        note_id=row["note_id"],
        path=row["path"],
        heading=row["heading"] or "",
        text=row["text"],
        score=round(score, 6),
        confidence=0.0,
        signals={k: (None if v is None else round(v, 6)) for k, v in signals.items()},
        state=row["state"],
        valid_from=row["valid_from"],
        valid_until=row["valid_until"],
        version=row["version"],
        row_id=row["id"],
    )


def _cosine_hit(row: dict, similarity: float) -> Hit:
    semantic = max(0.0, min(1.0, similarity))
    hit = _hit(row, semantic, {"semantic": semantic, "temporal": None, "confidence": None, "relational": None})
    hit.confidence = round(semantic, 4)
    hit.explain = {"valid_at_reference": None}
    return hit


def record_retrieval(store: Store, text: str, hits: list[Hit], now_iso: str) -> None:
    """Reconsolidation by use: every returned hit counts an access and a dormant passage wakes up;
    the hits are remembered so that ``feedback --rank N`` can name one."""
    ids = [h.row_id for h in hits]
    payload = {"query": text, "at": now_iso, "hits": [{"rank": h.rank, "chunk_id": h.chunk_id, "id": h.row_id} for h in hits]}
    with store.write():
        if ids:
            store.db.execute(
                f"UPDATE chunks SET access_count = access_count + 1, last_accessed = ?, "
                f"state = CASE WHEN state = 'DORMANT' THEN 'ACTIVE' ELSE state END WHERE id IN ({','.join('?' * len(ids))})",
                [now_iso, *ids],
            )
        store.set_meta("last_query", json.dumps(payload))
