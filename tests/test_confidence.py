"""Hit confidence means one thing: the probability that the hit answers the question. Hits are shown in the order
they are ranked, a weak match never claims more than the ceiling, and a nonsense question's first hit is low."""

import datetime as dt
import math

import pytest

from smartvec_cli.memory.confidence import ConfidenceSettings
from smartvec_cli.memory.passage import Passage
from smartvec_cli.memory.ranking import (
    FEW_MIDPOINT,
    FEW_SCALE,
    WEAK_MATCH_CONFIDENCE_CEILING,
    Ask,
    Candidate,
    rank,
)
from smartvec_cli.memory.relevance import FEATURES, Answerability, RelevanceModel
from smartvec_cli.memory.scoring import Calibration, ScoringSettings, log_odds, sigmoid

NOW = dt.datetime(2026, 6, 1, 12, tzinfo=dt.timezone.utc)
NONSENSE = [
    "zebra quantum pasta recipe banjo",
    "purple giraffe tax refund submarine",
    "violin thunderstorm carburetor lettuce",
]
# A relevance model that reads the raw cosine alone, as the ranking does for a handful of candidates
# (``memory.ranking.FEW_CANDIDATES``): the mechanics below do not depend on the fitted model.
COSINE_ONLY = RelevanceModel(
    tuple(FEW_SCALE if name == "cosine" else 0.0 for name in FEATURES),
    tuple(0.0 for _ in FEATURES),
    tuple(1.0 for _ in FEATURES),
    -FEW_SCALE * FEW_MIDPOINT,
)


def logit(cosine: float) -> float:
    return FEW_SCALE * (cosine - FEW_MIDPOINT)


def passage(number: int, text: str = "some text", feedback: float = 0.0) -> Passage:
    return Passage(
        id=number,
        note=number,
        chunk_id=f"n{number}#p",
        note_id=f"n{number}",
        path=f"n{number}.md",
        title=f"N{number}",
        heading="",
        text=text,
        state="ACTIVE",
        version=1,
        authority=0.5,
        feedback=feedback,
    )


def settings(**given) -> ScoringSettings:
    given.setdefault("answerability", Answerability.relevance_only())
    return ScoringSettings(relevance_model=COSINE_ONLY, **given)


def ranked(cosines: dict[int, float], feedback: dict[int, float] | None = None, scoring: ScoringSettings | None = None):
    feedback, scoring = feedback or {}, scoring or settings()
    candidates = [Candidate(passage(i, feedback=feedback.get(i, 0.0)), cosine) for i, cosine in cosines.items()]
    return rank(candidates, Ask(NOW, False), scoring.weights, scoring, ConfidenceSettings(), (0.0, 0.0))


# A fit that would call any hit a near-certain answer: what the ceiling alone must hold down.
OVERCONFIDENT = settings(calibration=Calibration(bias=8.0), weak_below=0.7)


def test_a_lone_weak_match_leads_the_candidate_under_the_floor_not_nothing():
    scoring = settings(relevance_floor=sigmoid(logit(0.26)), relevance_spread=0.1, weak_below=0.5)
    [hit] = ranked({1: 0.27, 2: 0.24, 3: 0.20}, scoring=scoring)
    assert hit.explain["lead"] == pytest.approx(logit(0.27) - logit(0.24))  # over the runner-up the floor kept out
    assert hit.confidence <= WEAK_MATCH_CONFIDENCE_CEILING and any(w.startswith("weak match") for w in hit.warnings)


def test_a_weak_match_never_claims_more_than_the_ceiling():
    weak = ranked({1: 0.45, 2: 0.05}, scoring=OVERCONFIDENT)[0]
    strong = ranked({1: 0.80, 2: 0.05}, scoring=OVERCONFIDENT)[0]
    assert any(w.startswith("weak match") for w in weak.warnings)
    assert weak.confidence == pytest.approx(WEAK_MATCH_CONFIDENCE_CEILING)  # the fit claimed far more
    assert strong.confidence > 0.9  # the same fit, no weak match: nothing holds it down
    assert not any(w.startswith("weak match") for w in strong.warnings)


def test_a_down_voted_passage_gives_way_to_the_other_hit_about_the_question():
    hits = ranked({1: 0.62, 2: 0.60, 3: 0.30}, feedback={1: -0.45})
    assert [h.passage.id for h in hits][:2] == [2, 1]
    assert hits[1].explain["gives_way"] and not hits[0].explain["gives_way"]


def test_hits_are_shown_in_ranking_order_with_scores_that_never_rise():
    hits = ranked({1: 0.70, 2: 0.69, 3: 0.55, 4: 0.40})
    assert [h.passage.id for h in hits] == [1, 2, 3, 4]
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


def test_the_confidence_weighs_relevance_lead_and_place_as_its_fit_says():
    calibration = Calibration(relevance_weight=0.5, lead_weight=0.3, first_weight=0.2, first_relevance_weight=0.1)
    hits = ranked({1: 0.70, 2: 0.60}, scoring=settings(calibration=calibration, weak_below=0.01))
    first, second = hits
    assert first.explain["first"] and not second.explain["first"]
    gap = logit(0.70) - logit(0.60)
    assert first.explain["lead"] == pytest.approx(gap) and second.explain["lead"] == pytest.approx(-gap)
    assert Calibration.features(first.score, first.explain) == pytest.approx((logit(0.7), gap, 1.0, logit(0.7)))
    expected = sigmoid(0.5 * logit(0.6) + 0.3 * -gap + calibration.bias)
    assert second.confidence == pytest.approx(min(expected * second.explain["standing"], first.confidence))
    assert second.confidence <= first.confidence  # a hit ranked lower never claims more than the one above it


@pytest.mark.slow
def test_scores_fall_down_the_list_and_nonsense_says_nothing(sample_vault, cli, real_embedder):
    cli.json("index", "--json")
    cli.json("consolidate", "--json")
    for question in (
        "How many days can I work remotely?",
        "What is the travel per diem?",
        "Who leads the People team?",
        "Which language is the ingestion service written in?",
        *NONSENSE,
    ):
        hits = cli.json("query", question, "--json", "--no-track", "--top-k", "10")
        assert all(a["score"] >= b["score"] for a, b in zip(hits, hits[1:], strict=False)), question
    for question in NONSENSE:
        hits = cli.json("query", question, "--json", "--no-track")
        assert not hits or hits[0]["confidence"] <= WEAK_MATCH_CONFIDENCE_CEILING, (question, hits[0])


def test_a_calibration_fitted_for_the_old_features_is_refused_with_the_reason(tmp_path):
    from smartvec_cli.config import load_config
    from smartvec_cli.errors import UsageError

    (tmp_path / "config.toml").write_text("[scoring.calibration]\ncosine_weight = 7.49\n", encoding="utf-8")
    with pytest.raises(UsageError, match="cosine_weight is retired"):
        load_config(tmp_path / "config.toml")


def test_relevance_thresholds_are_probabilities():
    assert log_odds(0.5) == pytest.approx(0.0)
    assert sigmoid(log_odds(0.12)) == pytest.approx(0.12)


def test_a_question_is_a_weak_match_when_its_answerability_is_under_the_line_whatever_its_relevance():
    """Relevance is normalised over the question's candidates; how close the first hit comes at all (its cosine on
    MiniLM's scale) is what the answerability reads."""
    by_cosine = Answerability((0.0, 0.0, 10.0, 0.0, 0.0), (0.0,) * 5, (1.0,) * 5, -5.0)  # even odds at 0.5
    scoring = settings(answerability=by_cosine, weak_below=0.5)
    far = ranked({1: 0.45, 2: 0.20}, scoring=scoring)[0]
    near = ranked({1: 0.70, 2: 0.45}, scoring=scoring)[0]
    assert far.explain["answerable"] == pytest.approx(1 / (1 + math.exp(0.5)), abs=1e-4)
    assert any(w.startswith("weak match (answerable 0.38") for w in far.warnings)
    assert far.confidence <= WEAK_MATCH_CONFIDENCE_CEILING
    assert not any(w.startswith("weak match") for w in near.warnings)
    candidates = [Candidate(passage(1), 0.70), Candidate(passage(2), 0.45)]
    squeezed = Ask(NOW, False, cosine_map=(0.0, 0.5))  # the index's model reads 0.70 as MiniLM's 0.35
    [first, _] = rank(candidates, squeezed, scoring.weights, scoring, ConfidenceSettings(), (0.0, 0.0))
    assert any(w.startswith("weak match") for w in first.warnings)


def test_the_version_that_replaced_a_passage_about_the_question_comes_before_it_however_their_relevance_differs():
    """Versions of one text differ in a number; the relevance model can set them more than the margin apart. The
    version in force is about the question because the one it replaced is, and the replaced one follows it."""
    from dataclasses import replace

    old = replace(passage(1), valid_until="2025-01-01T00:00:00Z", note_superseded_by=2)
    new = passage(2)
    unrelated = passage(3)
    scoring = settings(relevance_margin=1.0)
    candidates = [Candidate(old, 0.70), Candidate(new, 0.50), Candidate(unrelated, 0.45)]
    hits = rank(candidates, Ask(NOW, False), scoring.weights, scoring, ConfidenceSettings(), (0.0, 0.0))
    assert logit(0.70) - logit(0.50) > scoring.relevance_margin  # the two versions are further apart than the margin
    assert [h.passage.id for h in hits] == [2, 1, 3]
    assert hits[0].relevant and not hits[2].relevant
