"""What the accuracy benchmark measures, as plain functions of (question, hits).

A hit *states* an expected answer when it comes from that answer's note and its text
contains the sentence that says it: scoring is by the statement, not by a passage id, so
a hit on another paragraph of the right note does not count, and both vault styles
(whose notes have different paths and no ids in plain style) are judged alike.

- top-1 / top-3 accuracy: the first hit (one of the first three) states the answer that
  is true at the time the question asks about;
- stale-answer rate: the first hit states a version already superseded at that time;
- contradiction rate: the first hit is a rumour or a contradiction probe;
- passage top-1: the first hit states *some* version of the answer. It separates finding
  the right passage (the embedding model's part, which plain cosine shares) from
  choosing the right version of it (time, trust and relations);
- note top-1: the first hit comes from the answer's note, whatever paragraph: with top-1
  it shows how often a near miss in the same note wins;
- expected calibration error of the first hit's ``confidence`` over equal-width bins:
  ``Σ_b (n_b / N) · |accuracy_b − mean confidence_b|`` (smart mode's: a baseline's hits have no confidence);
- precision and recall of ``contradicts`` edges against the pairs known to disagree;
- recall@k of an approximate neighbour search (``bench perf``): the share of the exact
  top k that the approximate top k holds.

A question with no hits counts as wrong, with confidence 0. ``fit_platt`` fits the
calibration's logistic regression (score, lead, cosine → P(correct)) for ``bench calibrate``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Collection, Iterable, Mapping, Sequence

from .generator import COLLOQUIAL_PHRASES, DOCUMENTED_PHRASES, BenchQuestion, Expected


@dataclass
class Outcome:
    id: str
    type: str
    correct: bool
    top3: bool
    top5: bool  # the answer is among the hits a reranker of the first five could choose
    stale: bool
    contradicted: bool
    right_passage: bool  # states some version of the answer, maybe not the right one
    right_note: bool  # comes from the answer's note, maybe another paragraph of it
    confidence: float | None  # the first hit's; None in a baseline mode, which has no confidence
    top: str | None  # path of the first hit
    phrase_kind: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def states(hit: dict, expected: Expected, doc_of: Mapping[str, str]) -> bool:
    """Does the hit come from the expected note and contain the sentence that states it?"""
    return doc_of.get(hit["path"]) == expected.doc and expected.needle in hit["text"]


def judge(
    question: BenchQuestion, hits: Sequence[dict], doc_of: Mapping[str, str], remark_docs: Collection[str] = ()
) -> Outcome:
    """Compare the first hits with the known answer; ``doc_of`` maps the style's paths to note keys."""
    if not hits:
        return Outcome(
            question.id, question.type, False, False, False, False, False, False, False, 0.0, None, question.phrase_kind
        )
    top = hits[0]
    return Outcome(
        question.id,
        question.type,
        correct=states(top, question.answer, doc_of),
        top3=any(states(hit, question.answer, doc_of) for hit in hits[:3]),
        top5=any(states(hit, question.answer, doc_of) for hit in hits[:5]),
        stale=any(states(top, s, doc_of) for s in question.stale),
        contradicted=doc_of.get(top["path"]) in set(remark_docs),
        right_passage=any(states(top, v, doc_of) for v in question.versions),
        right_note=doc_of.get(top["path"]) == question.answer.doc,
        confidence=None if top.get("confidence") is None else float(top["confidence"]),
        top=top["path"],
        phrase_kind=question.phrase_kind,
    )


def share(outcomes: Sequence[Outcome], attribute: str) -> float:
    return sum(bool(getattr(o, attribute)) for o in outcomes) / len(outcomes) if outcomes else 0.0


def top1_accuracy(outcomes: Sequence[Outcome]) -> float:
    return share(outcomes, "correct")


def expected_calibration_error(confidences: Sequence[float], correct: Sequence[bool], bins: int = 10) -> float:
    """ECE over ``bins`` equal-width bins of [0, 1]; a confidence of exactly 1 falls in the last bin."""
    if len(confidences) != len(correct):
        raise ValueError("confidences and correct differ in length")
    if not confidences:
        return 0.0
    totals = [[0, 0.0, 0] for _ in range(bins)]  # count, sum of confidence, number correct
    for confidence, right in zip(confidences, correct, strict=False):
        c = min(1.0, max(0.0, float(confidence)))
        b = min(bins - 1, int(c * bins))
        totals[b][0] += 1
        totals[b][1] += c
        totals[b][2] += int(bool(right))
    n = len(confidences)
    return sum(count / n * abs(hits / count - conf_sum / count) for count, conf_sum, hits in totals if count)


def ece_of(outcomes: Sequence[Outcome]) -> float | None:
    """The ECE of the first hits' confidence; None for a baseline mode, whose hits have none."""
    if any(o.confidence is None for o in outcomes):
        return None
    return round(expected_calibration_error([o.confidence or 0.0 for o in outcomes], [o.correct for o in outcomes]), 4)


def summarise(outcomes: Sequence[Outcome], types: Sequence[str]) -> dict:
    """The per-mode block of the report: overall metrics, then by question type and by date phrasing."""
    by_type = {t: [o for o in outcomes if o.type == t] for t in types}
    dated = [o for o in outcomes if o.phrase_kind]
    by_phrase = {kind: [o for o in dated if o.phrase_kind == kind] for kind in DOCUMENTED_PHRASES + COLLOQUIAL_PHRASES}

    def rounded(groups: dict, attribute: str = "correct") -> dict:
        return {key: round(share(group, attribute), 4) for key, group in groups.items()}

    return {
        "top1": round(share(outcomes, "correct"), 4),
        "top3": round(share(outcomes, "top3"), 4),
        "top5": round(share(outcomes, "top5"), 4),
        "passage_top1": round(share(outcomes, "right_passage"), 4),
        "note_top1": round(share(outcomes, "right_note"), 4),
        "stale_rate": round(share(outcomes, "stale"), 4),
        "ece": ece_of(outcomes),
        "contradiction_rate": round(share(outcomes, "contradicted"), 4),
        "by_type": rounded(by_type),
        "top3_by_type": rounded(by_type, "top3"),
        "stale_by_type": rounded(by_type, "stale"),
        "passage_by_type": rounded(by_type, "right_passage"),
        "note_by_type": rounded(by_type, "right_note"),
        "time_point_by_phrase": {
            "documented": round(share([o for o in dated if o.phrase_kind in DOCUMENTED_PHRASES], "correct"), 4),
            "colloquial": round(share([o for o in dated if o.phrase_kind in COLLOQUIAL_PHRASES], "correct"), 4),
            **{kind: round(share(group, "correct"), 4) for kind, group in by_phrase.items() if group},
        },
        "n": len(outcomes),
        "n_by_type": {t: len(group) for t, group in by_type.items()},
    }


def contradiction_scores(found: Iterable[frozenset[str]], expected: Mapping[frozenset[str], str], why_wrong) -> dict:
    """Precision and recall of flagged note pairs; recall by kind of pair, false alarms by what the pair was.

    ``why_wrong(pair)`` names a flagged pair that is not a contradiction (agreeing, shared words, ...).
    """
    flagged = set(found)
    hits = flagged & set(expected)
    by_kind: dict[str, dict[str, int]] = {}
    for pair, kind in expected.items():
        row = by_kind.setdefault(kind, {"expected": 0, "found": 0})
        row["expected"] += 1
        row["found"] += pair in hits
    false_alarms: dict[str, int] = {}
    for pair in flagged - hits:
        kind = why_wrong(pair)
        false_alarms[kind] = false_alarms.get(kind, 0) + 1
    return {
        "precision": round(len(hits) / len(flagged), 4) if flagged else None,
        "recall": round(len(hits) / len(expected), 4) if expected else None,
        "found": len(flagged),
        "expected": len(expected),
        "true_positives": len(hits),
        "recall_by_kind": dict(sorted(by_kind.items())),
        "false_positives_by_kind": dict(sorted(false_alarms.items())),
    }


JUDGE_THRESHOLDS = (0.40, 0.45, 0.50, 0.55, 0.60, 0.64, 0.70, 0.75, 0.80)
VALUE_KINDS = frozenset(
    {"rumour", "reworded_value", "versions"}
)  # known pairs that differ in a value, not in a yes or no


def judge_ceiling(
    closeness: Iterable[tuple[str, str, float]], expected: Mapping[frozenset[str], str], precision_bar: float = 0.95
) -> dict:
    """How well a same-thing judge separates the known value contradictions from every other pair of notes
    whose values conflict, when every such pair is compared (no candidate search): precision and recall
    of "closeness at or above t" for each threshold, and the best recall at ``precision_bar``. Recall
    counts the known pairs of ``VALUE_KINDS`` only: a denial in other words states no value to compare.
    ``closeness``: (note, note, closeness) per pair of passages; a note pair takes its closest."""
    best: dict[frozenset[str], float] = {}
    for a, b, value in closeness:
        pair = frozenset((a, b))
        best[pair] = max(best.get(pair, value), value)
    known = {pair for pair, kind in expected.items() if kind in VALUE_KINDS}
    curve = []
    for threshold in JUDGE_THRESHOLDS:
        flagged = {pair for pair, value in best.items() if value >= threshold}
        hits = len(flagged & known)
        curve.append(
            {
                "threshold": threshold,
                "precision": round(hits / len(flagged), 4) if flagged else None,
                "recall": round(hits / len(known), 4) if known else None,
                "flagged": len(flagged),
            }
        )
    meeting = [
        point["recall"]
        for point in curve
        if point["recall"] is not None and point["precision"] is not None and point["precision"] >= precision_bar
    ]
    return {
        "value_pairs_known": len(known),
        "compared_pairs": len(best),
        "curve": curve,
        "precision_bar": precision_bar,
        "best_recall_at_bar": max(meeting, default=None),
    }


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def fit_platt(
    samples: Sequence[tuple], l2: float = 1e-5, iterations: int = 100, weights: Sequence[float] | None = None
) -> tuple[float, ...]:
    """Logistic regression ``P(correct) = σ(w·features + c)`` by Newton's method.

    ``samples`` are (feature, ..., correct), e.g. (score, lead, cosine, correct); returns the
    feature weights, then the bias. A small ridge keeps the fit finite when the two classes
    are separable, as they nearly are on an easy vault. ``weights``: what each sample counts for
    (their mean is taken as one, so the ridge means the same with or without them).
    """
    import numpy as np

    if not samples:
        raise ValueError("no samples to fit")
    x = np.array([[*sample[:-1], 1.0] for sample in samples], dtype=float)
    y = np.array([1.0 if sample[-1] else 0.0 for sample in samples])
    counts = np.ones(len(samples)) if weights is None else np.asarray(weights, dtype=float)
    counts = counts / counts.mean()
    n = x.shape[1]
    w = np.zeros(n)
    ridge = np.diag([l2] * (n - 1) + [0.0]) * len(samples)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -60, 60)))
        gradient = x.T @ (counts * (p - y)) + ridge @ w
        hessian = (x * (counts * p * (1 - p))[:, None]).T @ x + ridge + 1e-9 * np.eye(n)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return tuple(float(v) for v in w)


def recall_at(found: Sequence[int], exact: Sequence[int], k: int) -> float:
    """The share of the exact ``k`` nearest (``exact``, best first) among the first ``k`` found."""
    truth = set(exact[:k])
    return len(truth & set(found[:k])) / len(truth) if truth else 1.0
