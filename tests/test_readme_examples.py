"""The README's tour, asked of the sample vault as a user does after ``make demo``: each example answers as
the README shows it (the version in force first, for a keyword search as for a question)."""

import pytest

pytestmark = pytest.mark.slow

IN_FORCE = "policies/Travel Expense Policy v3.md"


@pytest.fixture
def indexed(sample_vault, cli, real_embedder):
    cli.json("index", "--json")
    cli.json("consolidate", "--json")
    return cli


@pytest.mark.parametrize("question", ["travel per diem", "per diem", "What is the travel per diem?"])
def test_the_travel_per_diem_is_answered_by_the_policy_in_force(indexed, question):
    hits = indexed.json("query", question, "--json", "--no-track")
    assert hits[0]["path"] == IN_FORCE, [(h["path"], h["score"]) for h in hits]
    assert all(a["score"] >= b["score"] for a, b in zip(hits, hits[1:], strict=False))


def test_remote_days_are_answered_by_the_remote_work_policy_in_force(indexed):
    hits = indexed.json("query", "How many days can I work remotely?", "--json", "--no-track", "--top-k", "2")
    assert hits[0]["path"] == "policies/Remote Work Policy v3.md"


def test_a_past_per_diem_is_answered_by_the_version_in_force_then_with_its_successor_named(indexed):
    hits = indexed.json("query", "What was the travel per diem in 2023?", "--json", "--no-track", "--top-k", "1")
    assert hits[0]["path"] == "policies/Travel Expense Policy v2.md"
    assert any(w.startswith("superseded by policies/Travel Expense Policy v3.md") for w in hits[0]["warnings"])


def test_past_parental_leave_is_answered_by_the_version_in_force_then(indexed):
    hits = indexed.json("query", "How many weeks of parental leave back in 2023?", "--json", "--no-track")
    assert hits[0]["path"] == "policies/Parental Leave Policy v2.md"
    assert "16 weeks" in hits[0]["text"]
