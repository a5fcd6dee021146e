"""The parameters of consolidation: how close is a near-duplicate, what a contradiction and a ripple cost, when to sleep."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ConsolidationSettings:
    neighbours: int = 12
    body_neighbours: int = 12
    body_terms: int = 8
    value_cosine: float = 0.63
    restate_cosine: float = 0.90
    contradiction_penalty: float = 0.25
    ripple_penalties: tuple[float, ...] = (0.15, 0.075)
    dormant_after_days: float = 30.0
