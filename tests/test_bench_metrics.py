"""The benchmark's metrics on small cases computed by hand."""

import random

import pytest

from smartvec_cli.bench.accuracy import single_word_edit
from smartvec_cli.bench.metrics import (
    contradiction_rate, expected_calibration_error, fit_platt, judge, passage_top1, sigmoid, stale_rate, summarise, top1_accuracy,
)
from smartvec_cli.bench.perf import percentile


def hit(label: str, note_id: str | None = None, confidence: float = 0.5) -> dict:
    chunk_id, version = label.split("@")
    return {"chunk_id": chunk_id, "version": int(version), "note_id": note_id or chunk_id.split("#")[0], "confidence": confidence}


@pytest.fixture
def outcomes():
    """Four questions: right, stale, a contradiction on top, and no hits at all."""
    return [
        judge("q1", "current", "pol-a#x@2", ["pol-a#x@1"], [hit("pol-a#x@2", confidence=0.9), hit("pol-a#x@1")], versions=["pol-a#x@1", "pol-a#x@2"]),
        judge("q2", "current", "pol-a#x@2", ["pol-a#x@1"], [hit("pol-a#x@1", confidence=0.8)], versions=["pol-a#x@1", "pol-a#x@2"]),
        judge("q3", "stable", "fact-b#fact@1", [], [hit("rumour-1#chat@1", confidence=0.3)], contradiction_notes={"rumour-1"}),
        judge("q4", "time_point", "pol-c#y@1", [], []),
    ]


def test_judge_reads_the_first_hit(outcomes):
    right, stale, rumour, empty = outcomes
    assert (right.correct, right.stale, right.right_passage, right.confidence, right.top) == (True, False, True, 0.9, "pol-a#x@2")
    assert (stale.correct, stale.stale, stale.right_passage) == (False, True, True)
    assert (rumour.correct, rumour.contradicted, rumour.right_passage) == (False, True, False)
    assert (empty.correct, empty.confidence, empty.top) == (False, 0.0, None)


def test_rates_on_the_fixed_example(outcomes):
    assert top1_accuracy(outcomes) == 0.25
    assert stale_rate(outcomes) == 0.25
    assert contradiction_rate(outcomes) == 0.25
    assert passage_top1(outcomes) == 0.5
    summary = summarise(outcomes, ("current", "time_point", "as_of", "stable"))
    assert summary["by_type"] == {"current": 0.5, "time_point": 0.0, "as_of": 0.0, "stable": 0.0}
    assert summary["stale_by_type"]["current"] == 0.5
    assert summary["n_by_type"] == {"current": 2, "time_point": 1, "as_of": 0, "stable": 1}
    # ECE over the four first hits: bins 9 (0.9, right), 8 (0.8, wrong), 3 (0.3, wrong), 0 (0.0, wrong)
    assert summary["ece"] == pytest.approx((0.1 + 0.8 + 0.3 + 0.0) / 4, abs=1e-4)


def test_ece_one_item_per_bin():
    # |1-0.95| + |0-0.85| + |0-0.15| + |1-0.55| = 1.5, over 4 predictions
    assert expected_calibration_error([0.95, 0.85, 0.15, 0.55], [True, False, False, True]) == pytest.approx(0.375)


def test_ece_averages_inside_a_bin():
    assert expected_calibration_error([0.9, 0.9, 0.9, 0.9], [True, True, True, False]) == pytest.approx(0.15)
    assert expected_calibration_error([0.25] * 4, [True, False, False, False]) == pytest.approx(0.0)
    # two bins of two: (0.1, 0.3) -> bins 1 and 3; mixing a bin's members changes the answer
    assert expected_calibration_error([0.12, 0.18, 0.7, 0.9], [False, True, True, True]) == pytest.approx(
        2 / 4 * abs(0.5 - 0.15) + 1 / 4 * abs(1 - 0.7) + 1 / 4 * abs(1 - 0.9)
    )


def test_ece_puts_a_confidence_of_one_in_the_last_bin():
    assert expected_calibration_error([1.0, 0.95], [True, False]) == pytest.approx(abs(0.5 - 0.975))
    assert expected_calibration_error([], []) == 0.0
    with pytest.raises(ValueError):
        expected_calibration_error([0.5], [])


def test_platt_fit_recovers_known_parameters():
    rng = random.Random(3)
    samples = []
    for _ in range(20000):
        score, lead, cosine = rng.random(), rng.uniform(-0.3, 0.3), rng.random()
        samples.append((score, lead, cosine, rng.random() < sigmoid(8 * score + 4 * lead + 3 * cosine - 6)))
    a, b, d, c = fit_platt(samples, l2=0.0)
    assert a == pytest.approx(8, abs=0.6) and b == pytest.approx(4, abs=0.8)
    assert d == pytest.approx(3, abs=0.5) and c == pytest.approx(-6, abs=0.5)


def test_nearest_rank_percentile():
    values = [float(v) for v in range(20, 0, -1)]
    assert percentile(values, 50) == 10.0
    assert percentile(values, 95) == 19.0
    assert percentile([7.0], 95) == 7.0


def test_single_word_edit_changes_one_body_word_only():
    text = "---\ntitle: Remote Work\nsource_type: policy\n---\n\n# Remote Work\n\nEmployees may work from home, see [[Remote Work Policy v1]]. ^remote\n"
    edited = single_word_edit(text, random.Random(1))
    before, after = text.split(), edited.split()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(changed) == 1 and changed[0][0] in {"work", "from", "home,"}
    assert edited.split("\n")[:6] == text.split("\n")[:6] and "[[Remote Work Policy v1]]" in edited and "^remote" in edited
