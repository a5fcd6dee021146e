"""``--include-archived`` shows the archived versions of the passages that match, in a plain query too."""

import pytest
from conftest import write

VPN = (
    "---\ntitle: VPN Guide\nsource_type: wiki\nauthority: 0.4\ndate: 2025-03-05\n---\n# VPN Guide\n\n## Sign-In\n"
    "\nA VPN session lasts {hours} hours; after that you sign in again.\n"
)
POLICY = (
    "---\ntitle: Policy {n}\nsource_type: policy\nvalid_from: 2024-01-01\nversion: 1\n---\n# Policy {n}\n\n"
    "## Rule\n\nOffice plants in building {n} are watered on Mondays by facilities.\n"
)


@pytest.fixture
def edited(vault, cli, fake_embedder):
    """A guide whose sign-in passage was edited (12 hours -> 8 hours), among many authoritative policies."""
    for n in range(12):
        write(vault, f"policies/p{n}.md", POLICY.format(n=n))
    guide = write(vault, "vpn.md", VPN.format(hours=12))
    cli.json("--now", "2026-01-01", "index", "--json")
    guide.write_text(VPN.format(hours=8), encoding="utf-8")
    cli.json("--now", "2026-03-01", "index", "--json")
    cli.json("--now", "2026-03-01", "consolidate", "--json")
    return vault


def ask(cli, *options):
    return cli.json(
        "--now", "2026-04-01", "query", "How long does a VPN session last in hours?", "--json", "--no-track", *options
    )


def test_a_plain_query_with_include_archived_shows_the_old_version_next_to_the_new(edited, cli):
    assert [h["state"] for h in ask(cli, "--top-k", "3") if "vpn" in h["chunk_id"]] == ["ACTIVE"]
    hits = ask(cli, "--top-k", "3", "--include-archived")
    assert [(h["chunk_id"], h["state"], h["version"]) for h in hits[:2]] == [
        ("vpn#sign-in", "ACTIVE", 2),
        ("vpn#sign-in", "ARCHIVED", 1),
    ]
    old = hits[1]
    assert "12 hours" in old["text"] and old["warnings"] == ["superseded by vpn#sign-in v2 on 2026-03-01"]
    assert old["confidence"] <= 0.1  # it is still not a current answer: a version not valid now claims a tenth


def test_an_as_of_question_with_include_archived_keeps_versions_not_valid_then(edited, cli):
    hits = ask(cli, "--as-of", "2026-03-15", "--include-archived", "--top-k", "3")
    assert [(h["chunk_id"], h["version"]) for h in hits[:2]] == [("vpn#sign-in", 2), ("vpn#sign-in", 1)]
    assert [h["chunk_id"] for h in ask(cli, "--as-of", "2026-03-15", "--top-k", "3")].count("vpn#sign-in") == 1


def test_the_as_of_label_shows_the_moment_it_used(edited, cli):
    result = cli(
        "--now",
        "2026-04-01",
        "query",
        "How long did a VPN session last in February 2026?",
        "--no-track",
        "--top-k",
        "1",
    )
    assert result.stdout.startswith(
        'as of 2026-02-14T12:00:00Z ("in February 2026": 2026-02-01 to 2026-02-28, the middle of the period)'
    )
    assert "12 hours" in result.stdout
