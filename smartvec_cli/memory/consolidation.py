"""The parameters of consolidation: how close is a near-duplicate, what a contradiction and a ripple cost, when to
sleep."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ConsolidationSettings:
    neighbours: int = 12
    body_neighbours: int = 12
    body_terms: int = 8
    value_cosine: float = (
        0.64  # fitted on the calibration catalogue (bench.accuracy CALIBRATION_SEED and the seeds after it)
    )
    restate_cosine: float = 0.90
    contradiction_penalty: float = 0.25
    ripple_penalties: tuple[float, ...] = (0.15, 0.075)
    dormant_after_days: float = 30.0
    # Copies named "X v2", "X (2024)", or whose passages mostly match, supersede the earlier copy (memory.lineage).
    infer_versions: bool = True
    echo_neighbours: int = 40  # chats resemble one another more than the policy they quote: look further
    echo_cosine: float = (
        0.25  # a passage this close to an outdated one is checked for repeating its value (fitted like value_cosine)
    )
    echo_penalty: float = 0.25  # trust a passage loses for repeating outdated information
