"""A filter that leaves a question a handful of candidates does not make an unrelated paragraph a confident
answer: it comes back as a weak match, claiming no more than a weak match may (real model, small vault)."""

from __future__ import annotations

import pytest
from conftest import write

from smartvec_cli.memory.ranking import WEAK_MATCH, WEAK_MATCH_CONFIDENCE_CEILING

NOTES = {
    "parking.md": "---\ndate: 2022-03-01\n---\n# Parking\n\nThe staff parking fee is EUR 40 per month in the garage.\n",
    "travel.md": "---\ndate: 2022-05-01\n---\n# Travel\n\nThe travel per diem is EUR 60 per day for meals.\n",
    "leave.md": "---\ndate: 2023-02-01\n---\n# Leave\n\nEmployees get 28 days of paid leave per calendar year.\n",
    "bikes.md": (
        "---\ndate: 2024-06-10\n---\n# Bike shed\n\n"
        "The bike shed behind the office has forty racks and a pump; it is free for staff.\n"
    ),
}
QUESTIONS = ("What is the staff parking fee per month?", "How much is the travel per diem?")


@pytest.mark.slow
def test_the_one_paragraph_a_date_filter_leaves_is_a_weak_match_not_a_confident_answer(vault, cli, real_embedder):
    for path, text in NOTES.items():
        write(vault, path, text)
    cli.json("--now", "2025-01-01", "index", "--json")
    cli.json("--now", "2025-01-01", "consolidate", "--json")
    for question in QUESTIONS:
        ask = ("--now", "2025-01-01", "query", question, "--json", "--no-track", "--explain")
        unfiltered = cli.json(*ask)[0]  # the answer is in the vault, and said with confidence
        assert unfiltered["path"] != "bikes.md" and unfiltered["confidence"] > 0.5, unfiltered
        assert not unfiltered["warnings"]
        [hit] = cli.json(*ask, "--since", "2024-01-01")  # only the bike shed is dated after it
        assert hit["path"] == "bikes.md" and hit["explain"]["cosine"] < 0.4, hit  # unrelated to the question
        assert hit["confidence"] <= WEAK_MATCH_CONFIDENCE_CEILING, hit
        assert [w for w in hit["warnings"] if w.startswith(WEAK_MATCH)], hit
