"""The SmartVector formulas on hand-computed cases."""

import datetime as dt

import pytest

from smartvec_cli.errors import UsageError
from smartvec_cli.memory.asof import parse_as_of
from smartvec_cli.memory.confidence import (
    ConfidenceSettings,
    SourceAuthority,
    base_authority,
    reconsolidate,
    retention,
    trust,
)
from smartvec_cli.memory.graph import pagerank
from smartvec_cli.memory.scoring import Weights, combine, is_valid_at, relevance, temporal_signal
from smartvec_cli.memory.temporal import note_time

NOW = dt.datetime(2026, 11, 29, 9, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize(
    "question, day, remainder",
    [
        ("What was the remote work policy in March 2022?", "2022-03-16", "What was the remote work policy?"),
        ("as of 2022-05-01 what was the per diem", "2022-05-01", "what was the per diem"),
        ("back in 2021, how many weeks of leave", "2021-07-02", "how many weeks of leave"),
        ("what was the rule last year", "2025-07-02", "what was the rule"),
        ("per diem on 5 March 2023", "2023-03-05", "per diem"),
        ("per diem on March 5, 2023", "2023-03-05", "per diem"),
        ("policy in Q3 2023", "2023-08-15", "policy"),
        ("leave rules two years ago", "2024-11-29", "leave rules"),
    ],
)
def test_dates_in_questions(question, day, remainder):
    found = parse_as_of(question, NOW)
    assert found.moment.date().isoformat() == day
    assert found.remainder == remainder


@pytest.mark.parametrize(
    "question", ["How many days can I work remotely?", "What is the 2025 budget?", "Is port 8883 open?"]
)
def test_questions_without_a_time_are_about_now(question):
    assert parse_as_of(question, NOW) is None


def test_reconsolidation_step_and_correction_rate():
    settings = ConfidenceSettings()
    assert reconsolidate(0.5, "up", settings) == pytest.approx(0.5 + 0.3 * (1 - 0.5))
    assert reconsolidate(0.5, "down", settings) == pytest.approx(0.5 + 0.3 * (-1 - 0.5))
    assert reconsolidate(0.9, "correct", settings) == pytest.approx(
        0.9 + 0.3 * (0 - 0.9)
    )  # partly right: towards 0, not -1


def test_trust_is_decay_plus_feedback_plus_access_clamped():
    settings = ConfidenceSettings()
    assert retention(30, 30) == pytest.approx(0.5)
    assert retention(100, None) == 1.0
    assert trust(0.8, 0.5, 0.0, 0, settings) == pytest.approx(0.4)
    assert trust(0.8, 0.5, 0.1, 9, settings) == pytest.approx(0.4 + 0.1 + 0.02 * 2.302585, rel=1e-5)
    assert trust(0.1, 0.1, -0.5, 0, settings) == settings.floor
    assert trust(0.95, 1.0, 0.3, 100, settings) == 1.0


def test_authority_from_frontmatter_source_type_and_folders():
    settings = ConfidenceSettings(folders={"chat/**": "chat"})
    assert base_authority({"authority": 0.7}, "x.md", settings) == SourceAuthority(0.7, None, None)
    assert base_authority({"source_type": "policy"}, "x.md", settings) == SourceAuthority(0.9, "policy", "declared")
    assert base_authority({"authority": "wiki"}, "x.md", settings) == SourceAuthority(0.75, "wiki", "declared")
    assert base_authority({}, "chat/today.md", settings) == SourceAuthority(
        0.3, "chat", "inferred", 'config glob "chat/**"'
    )
    assert base_authority({}, "Slack/today.md", settings) == SourceAuthority(0.3, "chat", "inferred", 'folder "Slack"')
    assert base_authority({}, "notes/x.md", settings) == SourceAuthority(0.5, None, None)
    assert settings.half_life_for("policy") is None and settings.half_life_for("chat") == 30.0


def test_temporal_signal_is_zero_outside_and_never_above_one():
    assert not is_valid_at("2030-01-01T00:00:00Z", None, NOW)  # future-dated
    assert temporal_signal(False, True, 1.0) == 0.0
    assert temporal_signal(True, True, 0.2) == 1.0
    assert temporal_signal(True, False, 0.5) == pytest.approx(0.75)
    assert is_valid_at("2021-01-01T00:00:00Z", "2026-11-29T09:00:00Z", NOW) is False  # the end is exclusive


def test_note_time_reads_declared_and_document_dates():
    declared = note_time({"valid_from": "2022-09-01", "valid_until": "2024-01-15", "version": 2})
    assert (declared.valid_from, declared.valid_until, declared.declared, declared.version) == (
        "2022-09-01T00:00:00Z",
        "2024-01-15T00:00:00Z",
        True,
        2,
    )
    chat = note_time({"date": "2026-10-14"})
    assert chat.valid_from == chat.doc_date == "2026-10-14T00:00:00Z" and not chat.declared
    assert note_time({"valid_from": "not a date"}).valid_from is None


def test_score_is_the_weighted_sum():
    signals = {"semantic": 1.0, "temporal": 0.5, "confidence": 0.4, "relational": 0.0}
    assert combine(signals, Weights()) == pytest.approx(0.35 + 0.125 + 0.1)
    assert Weights.parse("semantic=1,temporal=0,confidence=0,relational=0").as_dict()["semantic"] == 1.0
    assert Weights.parse("0.4,0.3,0.2,0.1").relational == 0.1
    with pytest.raises(UsageError):
        Weights.parse("semantic=lots")
    assert relevance(0.70, 0.70, 0.15) == 1.0 and relevance(0.55, 0.70, 0.15) == pytest.approx(0.0)
    assert relevance(0.64, 0.70, 0.15) == pytest.approx(0.6)


def test_pagerank_favours_the_linked_note():
    ranks = pagerank([1, 2, 3], [(1, 3), (2, 3)])
    assert ranks[3] > ranks[1] == pytest.approx(ranks[2])
    assert sum(ranks.values()) == pytest.approx(1.0)
