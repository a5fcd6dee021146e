"""A reference time of today after a first index today, ``--as-of now``/``today``, and a date that is part of a
note's title quoted in the question (the CLI on a real index, fake embedder: the clock is the point)."""

from __future__ import annotations

import pytest
from conftest import write

GYM = "# Gym\n\nThe office gym opens at 7 am for all staff.\n"
REPORT = (
    "---\ntitle: Market Report Mar 2024\ndate: 2024-04-05\n---\n# Market Report Mar 2024\n\n"
    "Churn fell to 3 percent among small customers.\n"
)


def ask(cli, *args):
    return cli.json("query", *args, "--json", "--no-track", "--explain")


def test_a_reference_time_of_today_is_not_before_an_index_first_built_today(vault, cli, fake_embedder):
    write(vault, "gym.md", GYM)
    cli.json("--now", "2026-12-07T19:05:00", "index", "--json")
    cli.json("--now", "2026-12-07T19:05:00", "consolidate", "--json")
    plain = cli.json("--now", "2026-12-07T19:30:00", "query", "When does the office gym open?", "--json", "--no-track")
    for options in (
        ("--now", "2026-12-07T19:30:00", "--as-of", "2026-12-07"),  # its noon: before the first run that day
        ("--now", "2026-12-07"),  # midnight
        ("--now", "2026-12-07T19:30:00", "--as-of", "today"),
        ("--now", "2026-12-07T19:30:00", "--as-of", "now"),
    ):
        hit = cli.json(options[0], options[1], "query", "When does the office gym open?", *options[2:], "--json")[0]
        assert hit["warnings"] == [], options
        assert hit["confidence"] == pytest.approx(plain[0]["confidence"], rel=0.05), options  # not halved


def test_as_of_now_and_today_are_the_clocks_moment(vault, cli, fake_embedder):
    write(vault, "gym.md", GYM)
    cli.json("--now", "2026-01-01", "index", "--json")
    for word in ("now", "today", "Today"):
        result = cli("--now", "2026-03-01T10:00:00", "query", "gym", "--as-of", word, "--json", "--explain")
        assert result.exit_code == 0, result.stderr
    hit = ask(cli, "When does the gym open?", "--as-of", "now")[0]
    assert "7 am" in hit["text"]


def test_a_date_inside_a_quoted_note_title_does_not_move_the_clock(vault, cli, fake_embedder):
    write(vault, "reports/Market Report Mar 2024.md", REPORT)
    write(vault, "gym.md", GYM)
    cli.json("--now", "2026-01-01", "index", "--json")
    cli.json("--now", "2026-01-01", "consolidate", "--json")
    hits = cli.json(
        "--now", "2026-02-01", "query", "What does Market Report Mar 2024 say about churn?", "--json", "--explain"
    )
    hit = hits[0]
    assert hit["path"] == "reports/Market Report Mar 2024.md"
    assert not any("not yet valid" in warning for warning in hit["warnings"]), hit["warnings"]
    assert hit["explain"]["as_of"] is None or hit["explain"]["as_of"]["words"] != "Mar 2024"
    dated = cli.json("--now", "2026-02-01", "query", "When did the gym open in Mar 2024?", "--json", "--explain")
    assert dated[0]["explain"]["as_of"]["first_day"] == "2024-03-01"  # a date outside a title still sets it
