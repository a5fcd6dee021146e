"""Retrieval: candidates from the ANN index, filtered by lifecycle state, ranked, returned as hits.

``mode="cosine"`` is plain cosine RAG over every stored passage, all versions: the
baseline every comparison is made against.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Sequence

import numpy as np

from ..store.store import Store

DEFAULT_STATES = ("UNCONSOLIDATED", "ACTIVE")
MODES = ("smart", "cosine")
CANDIDATE_FACTOR = 8
MIN_CANDIDATES = 100


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

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SearchOptions:
    top_k: int = 5
    mode: str = "smart"
    include_archived: bool = False
    include_dormant: bool = False

    def states(self) -> tuple[str, ...]:
        if self.mode == "cosine":
            return ("UNCONSOLIDATED", "ACTIVE", "DORMANT", "ARCHIVED")
        states = list(DEFAULT_STATES)
        if self.include_dormant:
            states.append("DORMANT")
        if self.include_archived:
            states.append("ARCHIVED")
        return tuple(states)


def _rows_for(store: Store, labels: Sequence[int]) -> dict[int, dict]:
    if not labels:
        return {}
    marks = ",".join("?" * len(labels))
    sql = f"""
        SELECT c.id, c.chunk_id, c.heading, c.text, c.state, c.valid_from, c.valid_until, c.version,
               n.note_id, n.path
        FROM chunks c JOIN notes n ON n.id = c.note
        WHERE c.id IN ({marks})
    """
    return {row["id"]: row for row in store.db.query(sql, list(labels))}


def search(store: Store, query_vector: np.ndarray, options: SearchOptions) -> list[Hit]:
    """Rank stored passages for one embedded question."""
    ann = store.load_ann()
    wanted = max(MIN_CANDIDATES, options.top_k * CANDIDATE_FACTOR)
    candidates = ann.search(query_vector, wanted)
    rows = _rows_for(store, [label for label, _ in candidates])
    states = options.states()
    hits: list[Hit] = []
    for label, similarity in candidates:
        row = rows.get(label)
        if row is None or row["state"] not in states:
            continue
        semantic = max(0.0, min(1.0, similarity))
        hits.append(
            Hit(
                rank=0,
                chunk_id=row["chunk_id"],
                note_id=row["note_id"],
                path=row["path"],
                heading=row["heading"] or "",
                text=row["text"],
                score=round(semantic, 6),
                confidence=round(semantic, 6),
                signals={"semantic": round(semantic, 6), "temporal": None, "confidence": None, "relational": None},
                state=row["state"],
                valid_from=row["valid_from"],
                valid_until=row["valid_until"],
                version=row["version"],
            )
        )
    hits.sort(key=lambda h: h.score, reverse=True)
    hits = hits[: options.top_k]
    for rank, hit in enumerate(hits, start=1):
        hit.rank = rank
    return hits


def hits_json(hits: list[Hit]) -> list[dict]:
    return [h.to_dict() for h in hits]


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)
