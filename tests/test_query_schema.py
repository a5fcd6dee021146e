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
