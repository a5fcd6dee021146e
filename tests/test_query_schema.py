"""``query --json`` against its JSON Schema (docs/schema/query.json): every hit, in every mode, with and without
``--explain`` and ``--as-of``, and the ``as_of`` key always there (CLI, real index, fake embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import write

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "schema" / "query.json").read_text(encoding="utf-8"))


@pytest.fixture
def indexed(vault, cli, fake_embedder):
    write(vault, "gym.md", "# Gym\n\nThe office gym opens at 7 am for all staff.\n\n## Showers\n\nThere are four.\n")
    write(vault, "desk.md", "---\nvalid_from: 2024-01-01\n---\n# Desks\n\nThe office has forty desks.\n")
    cli.json("--now", "2026-01-01", "index", "--json")
    cli.json("--now", "2026-01-01", "consolidate", "--json")
    return vault


@pytest.mark.parametrize("mode", ["smart", "cosine", "lexical"])
@pytest.mark.parametrize("options", [(), ("--explain",), ("--as-of", "2025-03-01"), ("--as-of", "now", "--explain")])
def test_every_answer_matches_the_schema(indexed, cli, mode, options):
    hits = cli.json(
        "--now", "2026-02-01", "query", "office gym desks", "--json", "--no-track", "--mode", mode, *options
    )
    assert hits
    jsonschema.validate(hits, SCHEMA)
    assert all("explain" in hit for hit in hits) == ("--explain" in options)


def test_as_of_is_printed_without_explain(indexed, cli):
    now = cli.json("--now", "2026-02-01", "query", "When does the gym open?", "--json", "--no-track")
    assert [hit["as_of"] for hit in now] == [None] * len(now)
    then = cli.json("--now", "2026-02-01", "query", "When does the gym open?", "--as-of", "2025-03-01", "--json")
    assert {hit["as_of"] for hit in then} == {"2025-03-01T12:00:00Z"}
    named = cli.json("--now", "2026-02-01", "query", "When did the gym open in March 2025?", "--json", "--no-track")
    assert {hit["as_of"] for hit in named} == {"2025-03-16T12:00:00Z"}


def test_the_schema_refuses_what_is_not_a_hit(indexed, cli):
    hits = cli.json("--now", "2026-02-01", "query", "office gym", "--json", "--no-track")
    for broken in (
        {**hits[0], "chunks": []},
        {k: v for k, v in hits[0].items() if k != "as_of"},
        {**hits[0], "rank": 0},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate([broken], SCHEMA)


@pytest.mark.parametrize("mode", ["cosine", "lexical"])
def test_a_baseline_mode_claims_no_confidence_and_keeps_its_score(indexed, cli, mode):
    """``confidence`` is smart mode's calibrated probability and nothing else: a baseline has none (null), and
    its own measure is the score (the similarity; BM25 over the best hit's), in JSON, on the terminal and in
    ``--context``."""
    question = ("query", "office gym desks", "--no-track", "--mode", mode)
    hits = cli.json("--now", "2026-02-01", *question, "--json", "--explain")
    assert hits and all(hit["confidence"] is None for hit in hits)
    if mode == "cosine":
        assert all(hit["score"] == pytest.approx(hit["signals"]["semantic"]) for hit in hits)
    else:
        scores = [hit["score"] for hit in hits]  # BM25 over the best hit's (raw, it is far below 1 here)
        assert scores[0] == 1.0 and all(0 < b <= a for a, b in zip(scores, scores[1:], strict=False))
        assert all(0 < hit["explain"]["bm25"] < 1 for hit in hits)
    with pytest.raises(jsonschema.ValidationError):  # the schema holds a baseline to it
        jsonschema.validate([{**hits[0], "confidence": hits[0]["score"]}], SCHEMA)
    shown = cli("--now", "2026-02-01", *question)
    assert shown.exit_code == 0 and "score" in shown.stdout and "confidence" not in shown.stdout
    context = cli("--now", "2026-02-01", *question, "--context").stdout
    assert f"{mode} score {hits[0]['score']:.2f}" in context and "None" not in context
    smart = cli.json("--now", "2026-02-01", "query", "office gym desks", "--json", "--no-track")
    with pytest.raises(jsonschema.ValidationError):  # and smart mode's hits always claim one
        jsonschema.validate([{**smart[0], "confidence": None}], SCHEMA)
