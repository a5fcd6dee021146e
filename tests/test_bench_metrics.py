"""The benchmark's metrics on small cases computed by hand."""

import random

import pytest

from smartvec_cli.bench.generator import BenchQuestion, Expected, single_word_edit
from smartvec_cli.bench.metrics import (
    contradiction_scores,
    expected_calibration_error,
    fit_platt,
    judge,
    judge_ceiling,
    share,
    sigmoid,
    summarise,
)
from smartvec_cli.bench.perf import percentile

TYPES = ("current", "time_point", "as_of", "stable")
V1 = Expected("pol-a", "The rate is 1 day.")
V2 = Expected("pol-a", "The rate is 2 days.")
FACT = Expected("fact-b", "The office is at 3 Mill Lane.")
DOC_OF = {"policies/A.md": "pol-a", "facts/B.md": "fact-b", "chat/rumour.md": "rumour-1", "policies/C.md": "pol-c"}


def hit(path: str, text: str, confidence: float = 0.5) -> dict:
    return {"path": path, "text": text, "confidence": confidence}


def question(qid: str, kind: str, answer: Expected, stale=(), versions=None, phrase_kind=None) -> BenchQuestion:
    return BenchQuestion(
        qid,
        kind,
        "?",
        None,
        ("2026-06-01", "2026-06-01"),
        answer,
        list(stale),
        "t",
        versions or [answer],
        phrase_kind=phrase_kind,
    )


@pytest.fixture
def outcomes():
    """Five questions: right, stale, a rumour on top, no hits at all, and a near miss in the right note."""
    current = question("q1", "current", V2, [V1], [V1, V2])
    return [
        judge(
            current,
            [hit("policies/A.md", "Intro. The rate is 2 days. More.", 0.9), hit("policies/A.md", "The rate is 1 day.")],
            DOC_OF,
        ),
        judge(
            question("q2", "current", V2, [V1], [V1, V2]),
            [hit("policies/A.md", "The rate is 1 day.", 0.8), hit("policies/A.md", "The rate is 2 days.")],
            DOC_OF,
        ),
        judge(
            question("q3", "stable", FACT),
            [hit("chat/rumour.md", "The office is at 3 Mill Lane.", 0.3)],
            DOC_OF,
            {"rumour-1"},
        ),
        judge(question("q4", "time_point", Expected("pol-c", "x"), phrase_kind="season"), [], DOC_OF),
        judge(question("q5", "stable", FACT), [hit("facts/B.md", "Visitors sign in at reception.", 0.6)], DOC_OF),
    ]


def test_judge_reads_the_statement_not_just_the_note(outcomes):
    right, stale, rumour, empty, near = outcomes
    assert (right.correct, right.top3, right.stale, right.right_passage, right.right_note, right.confidence) == (
        True,
        True,
        False,
        True,
        True,
        0.9,
    )
    assert (stale.correct, stale.top3, stale.stale, stale.right_passage) == (False, True, True, True)
    assert (rumour.correct, rumour.contradicted, rumour.right_passage, rumour.right_note) == (False, True, False, False)
    assert (empty.correct, empty.confidence, empty.top, empty.phrase_kind) == (False, 0.0, None, "season")
    assert (near.correct, near.right_passage, near.right_note) == (False, False, True)


def test_top5_counts_an_answer_a_reranker_could_still_choose():
    others = [hit("facts/B.md", f"Filler {n}.") for n in range(3)]
    fourth = judge(question("q6", "current", V2), others + [hit("policies/A.md", "The rate is 2 days.")], DOC_OF)
    sixth = judge(question("q7", "current", V2), others * 2 + [hit("policies/A.md", "The rate is 2 days.")], DOC_OF)
    assert (fourth.correct, fourth.top3, fourth.top5) == (False, False, True)
    assert (sixth.top3, sixth.top5) == (False, False)


def test_rates_on_the_fixed_example(outcomes):
    assert share(outcomes, "correct") == 0.2
    assert share(outcomes, "top3") == 0.4
    assert share(outcomes, "stale") == 0.2
    assert share(outcomes, "contradicted") == 0.2
    assert share(outcomes, "right_passage") == 0.4
    summary = summarise(outcomes, TYPES)
    assert summary["by_type"] == {"current": 0.5, "time_point": 0.0, "as_of": 0.0, "stable": 0.0}
    assert summary["top3_by_type"]["current"] == 1.0 and summary["note_by_type"]["stable"] == 0.5
    assert summary["stale_by_type"]["current"] == 0.5
    assert summary["n_by_type"] == {"current": 2, "time_point": 1, "as_of": 0, "stable": 2}
    assert summary["time_point_by_phrase"] == {"documented": 0.0, "colloquial": 0.0, "season": 0.0}
    # ECE over the five first hits: bins 9 (0.9, right), 8 (0.8, wrong), 3 (0.3, wrong), 0 (0.0, wrong), 6 (0.6, wrong)
    assert summary["ece"] == pytest.approx((0.1 + 0.8 + 0.3 + 0.0 + 0.6) / 5, abs=1e-4)


def test_contradiction_scores_by_hand():
    expected = {frozenset("ab"): "rumour", frozenset("cd"): "negated", frozenset("ef"): "negated"}
    found = {frozenset("ab"), frozenset("cd"), frozenset("xy")}
    scores = contradiction_scores(found, expected, lambda pair: "agreeing")
    assert (scores["precision"], scores["recall"], scores["found"], scores["expected"]) == (
        round(2 / 3, 4),
        round(2 / 3, 4),
        3,
        3,
    )
    assert scores["recall_by_kind"] == {"negated": {"expected": 2, "found": 1}, "rumour": {"expected": 1, "found": 1}}
    assert scores["false_positives_by_kind"] == {"agreeing": 1}
    assert contradiction_scores(set(), expected, str)["precision"] is None


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
    text = (
        "---\ntitle: Remote Work\nsource_type: policy\n---\n\n# Remote Work\n\n"
        "Employees may work from home, see [[Remote Work Policy v1]]. ^remote\n"
    )
    edited = single_word_edit(text, random.Random(1))
    before, after = text.split(), edited.split()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after, strict=False) if a != b]
    assert len(changed) == 1 and changed[0][0] in {"work", "from", "home,"}
    assert (
        edited.split("\n")[:6] == text.split("\n")[:6] and "[[Remote Work Policy v1]]" in edited and "^remote" in edited
    )


def test_the_judge_ceiling_by_hand():
    """Two known value pairs and a denial (no value to compare); three other pairs conflict in value."""
    expected = {
        frozenset(("pol", "chat")): "rumour",
        frozenset(("pol", "meet")): "reworded_value",
        frozenset(("rule", "probe")): "denied",
    }
    closeness = [
        ("pol", "chat", 0.50),
        ("chat", "pol", 0.72),
        ("pol", "meet", 0.52),
        ("pol", "wiki", 0.61),
        ("a", "b", 0.41),
        ("c", "d", 0.30),
    ]
    found = judge_ceiling(closeness, expected)
    assert (found["value_pairs_known"], found["compared_pairs"]) == (2, 5)
    curve = {point["threshold"]: point for point in found["curve"]}
    assert (curve[0.40]["precision"], curve[0.40]["recall"], curve[0.40]["flagged"]) == (
        0.5,
        1.0,
        4,
    )  # the chat pair at its closest, 0.72
    assert (curve[0.55]["precision"], curve[0.55]["recall"]) == (0.5, 0.5)
    assert (curve[0.64]["precision"], curve[0.64]["recall"]) == (1.0, 0.5)
    assert curve[0.75]["precision"] is None and curve[0.75]["recall"] == 0.0
    assert found["best_recall_at_bar"] == 0.5
