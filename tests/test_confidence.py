"""Hit confidence means one thing: the probability that the hit answers the question. It never rises down
the list, a weak match never claims more than the ceiling, and a nonsense question's first hit is low."""

import dataclasses
import datetime as dt
import math

import pytest
from conftest import write

from smartvec_cli.memory.confidence import ConfidenceSettings
from smartvec_cli.memory.passage import Passage
from smartvec_cli.memory.ranking import WEAK_MATCH_CONFIDENCE_CEILING, Ask, Candidate, rank
from smartvec_cli.memory.scoring import Calibration, ScoringSettings

NOW = dt.datetime(2026, 6, 1, 12, tzinfo=dt.timezone.utc)
NONSENSE = [
    "zebra quantum pasta recipe banjo",
    "purple giraffe tax refund submarine",
    "violin thunderstorm carburetor lettuce",
]


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


def ranked(cosines: dict[int, float], feedback: dict[int, float] | None = None, scoring: ScoringSettings | None = None):
    feedback, scoring = feedback or {}, scoring or ScoringSettings()
    candidates = [Candidate(passage(i, feedback=feedback.get(i, 0.0)), cosine) for i, cosine in cosines.items()]
    return rank(candidates, Ask(NOW, False), scoring.weights, scoring, ConfidenceSettings(), (0.0, 0.0))


# A fit that would call any hit a near-certain answer: what the ceiling alone must hold down.
OVERCONFIDENT = ScoringSettings(calibration=Calibration(bias=8.0))


def test_a_lone_weak_match_leads_the_candidate_under_the_floor_not_nothing():
    [hit] = ranked({1: 0.27, 2: 0.24, 3: 0.20})
    assert hit.explain["lead"] < hit.score / 2  # measured against the runner-up the floor kept out
    assert hit.confidence <= WEAK_MATCH_CONFIDENCE_CEILING and any(w.startswith("weak match") for w in hit.warnings)


def test_a_weak_match_never_claims_more_than_the_ceiling():
    [weak] = ranked({1: 0.29, 2: 0.05}, scoring=OVERCONFIDENT)
    [strong] = ranked({1: 0.80, 2: 0.05}, scoring=OVERCONFIDENT)
    assert any(w.startswith("weak match") for w in weak.warnings)
    assert weak.confidence == pytest.approx(WEAK_MATCH_CONFIDENCE_CEILING)  # the fit claimed far more
    assert strong.confidence > 0.9  # the same fit, no weak match: nothing holds it down


def test_a_down_voted_passage_goes_below_the_hit_more_likely_to_answer():
    hits = ranked({1: 0.62, 2: 0.60, 3: 0.30}, feedback={1: -0.45})
    assert [h.passage.id for h in hits][:2] == [2, 1]
    assert all(a.confidence >= b.confidence for a, b in zip(hits, hits[1:], strict=False))


@pytest.mark.slow
def test_confidence_falls_down_the_list_and_nonsense_stays_low(sample_vault, cli, real_embedder):
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
        assert all(a["confidence"] >= b["confidence"] for a, b in zip(hits, hits[1:], strict=False)), question
    for question in NONSENSE:
        hits = cli.json("query", question, "--json", "--no-track")
        assert not hits or hits[0]["confidence"] <= 0.30, (question, hits[0])


def test_a_calibration_fitted_for_the_old_features_is_refused_with_the_reason(tmp_path):
    from smartvec_cli.config import load_config
    from smartvec_cli.errors import UsageError

    (tmp_path / "config.toml").write_text("[scoring.calibration]\ncosine_weight = 7.49\n", encoding="utf-8")
    with pytest.raises(UsageError, match="cosine_weight is retired"):
        load_config(tmp_path / "config.toml")


def test_the_first_closeness_and_the_length_are_computed_as_specified_and_weigh_only_the_confidence():
    """``first_closeness``: the closeness for the first hit, 0 below; ``length``: ln(1 + words) below the first hit,
    0 for it. Their weights move the confidence but not the order (``order_confidence`` leaves them out)."""

    texts = {1: "one two three", 2: " ".join(["word"] * 19), 3: "short one"}

    def hits(calibration):
        scoring = ScoringSettings(calibration=calibration)
        candidates = [
            Candidate(passage(i, text), cosine)
            for i, (text, cosine) in zip(texts, ((texts[1], 0.62), (texts[2], 0.60), (texts[3], 0.58)), strict=False)
        ]
        return rank(candidates, Ask(NOW, False), scoring.weights, scoring, ConfidenceSettings(), (0.0, 0.0))

    plain = hits(Calibration(first_closeness_weight=0.0, length_weight=0.0))
    weighed = hits(Calibration(first_closeness_weight=1.0, length_weight=0.5))
    assert [h.passage.id for h in weighed] == [h.passage.id for h in plain] == [1, 2, 3]
    closeness = plain[0].explain["closeness"]
    assert [h.explain["first_closeness"] for h in weighed] == [pytest.approx(closeness), 0.0, 0.0]
    assert [h.explain["length"] for h in weighed] == [0.0, pytest.approx(math.log(20)), pytest.approx(math.log(3))]
    assert [h.order_confidence for h in weighed] == pytest.approx([h.order_confidence for h in plain])
    second = weighed[1]
    expected = Calibration(first_closeness_weight=1.0, length_weight=0.5).probability(
        second.score,
        second.explain["lead"],
        closeness,
        second.explain["siblings"],
        second.explain["cosine"],
        0.0,
        math.log(20),
    )
    assert second.confidence == pytest.approx(min(expected, weighed[0].confidence), abs=1e-6)
    assert weighed[0].confidence > plain[0].confidence and second.confidence > plain[1].confidence


def test_a_hit_s_length_is_read_from_the_passage_the_store_gives(vault, cli, fake_embedder):
    """Through the CLI on a real index: each hit below the first shows ln(1 + its words) in ``--explain``."""
    sections = "".join(
        f"## Step {n}\n\nTurn the lantern valve {n} times before lighting {'it ' * n}now.\n\n" for n in range(1, 4)
    )
    write(vault, "guide.md", "# Lantern guide\n\n" + sections)
    cli.json("index", "--json")
    hits = cli.json("query", "lantern valve", "--json", "--no-track", "--explain", "--top-k", "10")
    assert len(hits) >= 2 and hits[0]["explain"]["length"] == 0.0
    for hit in hits[1:]:
        assert hit["explain"]["length"] == pytest.approx(math.log1p(len(hit["text"].split())), abs=1e-6)
        assert hit["explain"]["first_closeness"] == 0.0


def test_a_hit_s_note_size_is_the_log_of_its_note_s_live_passages(vault, cli, fake_embedder):
    """Through the CLI on a real index: ``note_size`` (below the first hit) and ``first_note_size`` (for it) are
    ln of the live passages the hit's note holds, as the store counts them."""
    long_guide = "".join(
        f"## Step {n}\n\nTurn the lantern valve {n} times, then wait {n} minutes.\n\n" for n in range(4)
    )
    write(vault, "guide.md", "# Lantern guide\n\n" + long_guide)
    write(vault, "card.md", "# Lantern card\n\nThe lantern valve turns clockwise.\n")
    cli.json("index", "--json")
    by_note = {}
    for hit in cli.json("query", "lantern valve", "--json", "--no-track", "--explain", "--top-k", "10"):
        by_note.setdefault(hit["path"], []).append(hit)
    hits = [h for found in by_note.values() for h in found]
    passages_of = {path: len(found) for path, found in by_note.items()}
    assert passages_of["guide.md"] >= 4 and passages_of["card.md"] == 1  # every passage of both notes was found
    for hit in hits:
        size = math.log(passages_of[hit["path"]])
        first = hit["rank"] == 1
        assert hit["explain"]["first_note_size"] == pytest.approx(size if first else 0.0, abs=1e-6)
        assert hit["explain"]["note_size"] == pytest.approx(0.0 if first else size, abs=1e-6)


def test_the_note_size_weighs_the_confidence_and_not_the_order():
    def hits(calibration, passages):
        scoring = ScoringSettings(calibration=calibration)
        candidates = [
            Candidate(dataclasses.replace(passage(i), note_passages=passages), cosine)
            for i, cosine in ((1, 0.62), (2, 0.60), (3, 0.58))
        ]
        return rank(candidates, Ask(NOW, False), scoring.weights, scoring, ConfidenceSettings(), (0.0, 0.0))

    calibration = Calibration(note_size_weight=-0.5, first_note_size_weight=-0.5)
    small, large = hits(calibration, 1), hits(calibration, 50)
    assert [h.passage.id for h in small] == [h.passage.id for h in large] == [1, 2, 3]
    assert all(big.confidence < lone.confidence for big, lone in zip(large, small, strict=True))
    assert [h.order_confidence for h in large] == pytest.approx([h.order_confidence for h in small])
