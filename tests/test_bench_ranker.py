"""bench.ranker: the relevance model fitted leave-one-corpus-out on captured candidates, and what it measures."""

import random

from smartvec_cli.bench.ranker import baseline, choose_weak, evaluate, leave_one_out, settings_for
from smartvec_cli.memory.relevance import FEATURES, Answerability, RelevanceModel

COVERAGE = FEATURES.index("coverage")
COSINE = FEATURES.index("cosine")


def question(corpus: str, number: int, rng: random.Random, answerable: bool = True) -> dict:
    """Twenty candidates; the one that answers holds the question's words (coverage), its cosine is noise."""
    candidates = []
    right = rng.randrange(20) if answerable else -1
    for i in range(20):
        x = [rng.random() * 0.1 for _ in FEATURES]
        x[COSINE] = rng.random()
        x[COVERAGE] = 0.9 if i == right else rng.random() * 0.5
        candidates.append({"path": f"n{i}.md", "note": i, "answers": i == right, "note_ok": i == right, "x": x})
    return {
        "corpus": corpus,
        "id": f"{corpus}-{number}",
        "kind": "-",
        "answerable": answerable,
        "candidates": candidates,
    }


def sets() -> list[dict]:
    rng = random.Random(7)
    found = []
    for corpus in ("a", "b", "c"):
        found += [question(corpus, n, rng) for n in range(40)]
        found += [question(corpus, 100 + n, rng, answerable=False) for n in range(5)]
    return found


def test_held_out_fits_learn_what_answers_and_beat_a_feature_that_does_not():
    table, fitted = leave_one_out(sets())
    assert set(table) == set(fitted) == {"a", "b", "c"}
    for row in table.values():
        assert row["held_out"]["top1"] > 0.9  # the coverage decides, learned from the other two corpora
        assert row["cosine"]["top1"] < 0.3  # the cosine is noise here
        assert 0.0 <= row["held_out"]["ece"] <= 1.0


def test_the_shipped_settings_hold_a_model_a_calibration_and_a_weak_line():
    questions = sets()
    shipped = settings_for(questions)
    assert set(shipped) == {"model", "calibration", "answerable", "weak_below"}
    assert shipped["model"]["features"] == list(FEATURES)
    weights = dict(zip(FEATURES, shipped["model"]["weights"], strict=True))
    assert weights["coverage"] == max(weights.values())
    model, answerability = RelevanceModel.from_json(shipped["model"]), Answerability.from_json(shipped["answerable"])
    assert 0.0 < choose_weak(model, answerability, questions, -9.0) < 1.0
    measured = evaluate(shipped, questions)
    assert measured["refused"] is not None and measured["refused"] <= 0.1  # at most about 5% refused, in sample
    # No unanswerable question's first hit holds the question's words as an answer does: they say nothing.
    assert measured["said_nothing"] >= 0.8
    assert baseline(questions, "coverage")["top1"] == 1.0
