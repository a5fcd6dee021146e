"""What the accuracy benchmark measures, as plain functions of (question, hits).

- top-1 accuracy: the first hit is the passage version that answers the question at the
  time it asks about;
- stale-answer rate: the first hit is a version of that passage already superseded at
  that time (a current question answered with last year's policy);
- contradiction rate: the first hit is an injected low-authority restatement;
- passage top-1: the first hit is *some* version of the answering passage. It separates
  finding the right passage (the embedding model's part, which plain cosine shares)
  from choosing the right version of it (time, trust and relations);
- expected calibration error of the first hit's ``confidence`` over equal-width bins:
  ``Σ_b (n_b / N) · |accuracy_b − mean confidence_b|``.

A question with no hits counts as wrong, with confidence 0. ``fit_platt`` fits the
calibration's logistic regression (score and lead → P(correct)) for ``bench calibrate``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence


@dataclass
class Outcome:
    id: str
    type: str
    correct: bool
    stale: bool
    contradicted: bool
    right_passage: bool  # some version of the answering passage, maybe not the right one
    confidence: float
    top: str | None  # "chunk_id@version" of the first hit

    def to_dict(self) -> dict:
        return asdict(self)


def hit_label(hit: dict) -> str:
    return f"{hit['chunk_id']}@{hit['version']}"


def judge(
    question_id: str,
    question_type: str,
    answer: str,
    stale: Iterable[str],
    hits: Sequence[dict],
    contradiction_notes: Iterable[str] = (),
    versions: Iterable[str] = (),
) -> Outcome:
    """Compare the first hit with the known answer (labels are ``chunk_id@version``).

    ``versions`` lists every version of the answering passage (the answer included).
    """
    if not hits:
        return Outcome(question_id, question_type, False, False, False, False, 0.0, None)
    top = hits[0]
    label = hit_label(top)
    return Outcome(
        question_id,
        question_type,
        correct=label == answer,
        stale=label in set(stale),
        contradicted=top["note_id"] in set(contradiction_notes),
        right_passage=label == answer or label in set(versions),
        confidence=float(top.get("confidence") or 0.0),
        top=label,
    )


def top1_accuracy(outcomes: Sequence[Outcome]) -> float:
    return sum(o.correct for o in outcomes) / len(outcomes) if outcomes else 0.0


def passage_top1(outcomes: Sequence[Outcome]) -> float:
    return sum(o.right_passage for o in outcomes) / len(outcomes) if outcomes else 0.0


def stale_rate(outcomes: Sequence[Outcome]) -> float:
    return sum(o.stale for o in outcomes) / len(outcomes) if outcomes else 0.0


def contradiction_rate(outcomes: Sequence[Outcome]) -> float:
    return sum(o.contradicted for o in outcomes) / len(outcomes) if outcomes else 0.0


def expected_calibration_error(confidences: Sequence[float], correct: Sequence[bool], bins: int = 10) -> float:
    """ECE over ``bins`` equal-width bins of [0, 1]; a confidence of exactly 1 falls in the last bin."""
    if len(confidences) != len(correct):
        raise ValueError("confidences and correct differ in length")
    if not confidences:
        return 0.0
    totals = [[0, 0.0, 0] for _ in range(bins)]  # count, sum of confidence, number correct
    for confidence, right in zip(confidences, correct):
        c = min(1.0, max(0.0, float(confidence)))
        b = min(bins - 1, int(c * bins))
        totals[b][0] += 1
        totals[b][1] += c
        totals[b][2] += int(bool(right))
    n = len(confidences)
    return sum(count / n * abs(hits / count - conf_sum / count) for count, conf_sum, hits in totals if count)


def summarise(outcomes: Sequence[Outcome], types: Sequence[str]) -> dict:
    """The per-mode block of the report: overall metrics, then top-1 and stale rate by question type."""
    by_type = {t: [o for o in outcomes if o.type == t] for t in types}
    return {
        "top1": round(top1_accuracy(outcomes), 4),
        "stale_rate": round(stale_rate(outcomes), 4),
        "ece": round(expected_calibration_error([o.confidence for o in outcomes], [o.correct for o in outcomes]), 4),
        "by_type": {t: round(top1_accuracy(group), 4) for t, group in by_type.items()},
        "stale_by_type": {t: round(stale_rate(group), 4) for t, group in by_type.items()},
        "contradiction_rate": round(contradiction_rate(outcomes), 4),
        "passage_top1": round(passage_top1(outcomes), 4),
        "passage_by_type": {t: round(passage_top1(group), 4) for t, group in by_type.items()},
        "n": len(outcomes),
        "n_by_type": {t: len(group) for t, group in by_type.items()},
    }


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def fit_platt(samples: Sequence[tuple], l2: float = 1e-5, iterations: int = 100) -> tuple[float, ...]:
    """Logistic regression ``P(correct) = σ(w·features + c)`` by Newton's method.

    ``samples`` are (feature, ..., correct), e.g. (score, lead, cosine, correct); returns the
    feature weights, then the bias. A small ridge keeps the fit finite when the two classes
    are separable, as they nearly are on an easy vault.
    """
    import numpy as np

    if not samples:
        raise ValueError("no samples to fit")
    x = np.array([[*sample[:-1], 1.0] for sample in samples], dtype=float)
    y = np.array([1.0 if sample[-1] else 0.0 for sample in samples])
    n = x.shape[1]
    w = np.zeros(n)
    ridge = np.diag([l2] * (n - 1) + [0.0]) * len(samples)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -60, 60)))
        gradient = x.T @ (p - y) + ridge @ w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge + 1e-9 * np.eye(n)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return tuple(float(v) for v in w)
