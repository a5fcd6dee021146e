"""Inferred versions: copies named "X v2", "X (new)" supersede the earlier copy as if declared."""

import pytest
from conftest import write

from smartvec_cli.memory.lineage import (
    PassageOverlap,
    VersionCandidate,
    infer_copies,
    infer_supersessions,
    named_version,
    series_key,
)

POLICY = "---\ndate: {date}\n---\n# Log Retention Policy\n\n## Retention\n\nLog output is removed after {days} days.\n"


def candidate(note, path, date=None, created="2026-01-01T00:00:00Z", **kw):
    return VersionCandidate(note, path, path.rsplit("/", 1)[-1].removesuffix(".md"), date, created, **kw)


@pytest.mark.parametrize(
    "name, base, marker",
    [
        ("Log Retention Policy", "log retention policy", None),
        ("Log Retention Policy (new)", "log retention policy", "(new)"),
        ("Vehicle Mileage Policy v3", "vehicle mileage policy", "v3"),
        ("Hardware Lifecycle Policy (2022)", "hardware lifecycle policy", "(2022)"),
        ("Remote Work Policy 2025-05-08", "remote work policy", "2025-05-08"),
        ("Copy of Home Office Equipment Policy 3", "home office equipment policy", "copy 3"),
        ("Expense Claims Policy - updated", "expense claims policy", "updated"),
        ("Q3 2024 plan", "q3 2024 plan", None),
        ("2024-03-01", "2024-03-01", None),
    ],
)
def test_a_name_splits_into_its_base_and_version_marker(name, base, marker):
    version = named_version(name)
    assert (version.base, version.marker) == (base, marker)


def test_later_dated_copies_form_a_chain_with_their_reasons():
    found = infer_supersessions(
        [
            candidate(1, "p/Policy.md", "2023-01-10T00:00:00Z"),
            candidate(2, "p/Policy v2.md", "2024-03-01T00:00:00Z"),
            candidate(3, "p/Copy of Policy 3.md", "2025-02-01T00:00:00Z"),
            candidate(4, "p/Other.md", "2025-02-01T00:00:00Z"),
        ]
    )
    assert [(e.newer, e.older) for e in found] == [(2, 1), (3, 2)]
    assert found[0].start == "2024-03-01T00:00:00Z"
    assert (
        found[0].reason == "title 'Policy v2' is a later version of 'Policy' (v2 marker; dated 2024-03-01 > 2023-01-10)"
    )


def test_dates_decide_over_markers_and_on_the_same_day_the_marker_decides():
    found = infer_supersessions(
        [candidate(1, "Policy v2.md", "2024-01-01T00:00:00Z"), candidate(2, "Policy v3.md", "2023-01-01T00:00:00Z")]
    )
    assert [(e.newer, e.older) for e in found] == [(1, 2)]

    undated = infer_supersessions(
        [candidate(1, "Refund Policy v2.md"), candidate(2, "Refund Policy.md"), candidate(3, "Refund Policy old.md")]
    )
    assert [(e.newer, e.older) for e in undated] == [(2, 3), (1, 2)]
    assert undated[1].reason == (
        "title 'Refund Policy v2' is a later version of 'Refund Policy' (v2 marker; both indexed 2026-01-01: the "
        "marker decides, not a date)"
    )
    assert undated[1].start == "2026-01-01T00:00:00Z"
    same_day = infer_supersessions(
        [candidate(1, "Policy v3.md", "2024-05-01T00:00:00Z"), candidate(2, "Policy v2.md", "2024-05-01T09:00:00Z")]
    )
    assert [(e.newer, e.older) for e in same_day] == [(1, 2)]
    assert "the marker decides" in same_day[0].reason


def test_copies_of_one_day_and_one_rank_undated_drafts_and_notes_of_one_name_infer_nothing():
    one_name = [
        candidate(1, "projects/A/Overview.md", "2020-01-01T00:00:00Z"),
        candidate(2, "projects/B/Overview.md", "2021-01-01T00:00:00Z"),
    ]
    assert infer_supersessions(one_name) == []
    with_a_copy = infer_supersessions(one_name + [candidate(3, "projects/Overview v2.md", "2022-01-01T00:00:00Z")])
    assert sorted((e.newer, e.older) for e in with_a_copy) == [(3, 1), (3, 2)]
    assert infer_supersessions([candidate(1, "Policy.md"), candidate(2, "Policy v1.md")]) == []
    assert infer_supersessions([candidate(1, "Policy.md"), candidate(2, "Policy draft.md")]) == []
    older_draft = infer_supersessions(
        [
            candidate(1, "Policy draft.md", created="2025-01-01T00:00:00Z"),
            candidate(2, "Policy.md", created="2025-03-01T00:00:00Z"),
        ]
    )
    assert [(e.newer, e.older) for e in older_draft] == [(2, 1)]
    around_a_draft = infer_supersessions(
        [candidate(1, "Policy.md"), candidate(2, "Policy draft.md"), candidate(3, "Policy v2.md")]
    )
    assert [(e.newer, e.older) for e in around_a_draft] == [(3, 1)]


def test_undated_copies_are_ordered_by_marker_and_indexed_time():
    found = infer_supersessions(
        [
            candidate(1, "Policy (new).md", created="2025-01-01T00:00:00Z"),
            candidate(2, "Policy old.md", created="2024-01-01T00:00:00Z"),
        ]
    )
    assert [(e.newer, e.older) for e in found] == [(1, 2)]
    assert "indexed 2025-01-01" in found[0].reason


def test_series_declared_notes_and_drafts_are_left_alone():
    dated_series = [
        candidate(1, "Standup 2024-03-01.md", "2024-03-01T00:00:00Z"),
        candidate(2, "Standup 2024-03-08.md", "2024-03-08T00:00:00Z"),
    ]
    assert infer_supersessions(dated_series) == []
    chats = [
        candidate(1, "c/Sync.md", "2024-03-01T00:00:00Z", source_type="chat"),
        candidate(2, "c/Sync v2.md", "2024-04-01T00:00:00Z", source_type="chat"),
    ]
    assert infer_supersessions(chats) == []
    declared = [
        candidate(1, "Policy.md", "2023-01-01T00:00:00Z", declared=True),
        candidate(2, "Policy v2.md", "2024-01-01T00:00:00Z"),
    ]
    assert infer_supersessions(declared) == []
    draft = infer_supersessions(
        [candidate(1, "Policy.md", "2023-01-01T00:00:00Z"), candidate(2, "Policy draft.md", "2024-01-01T00:00:00Z")]
    )
    assert draft == []


def test_copies_by_passages_chain_by_date_and_leave_named_versions_series_and_boilerplate_alone():
    notes = [
        candidate(1, "a/Refunds.md", "2022-01-01T00:00:00Z"),
        candidate(2, "b/Returns.md", "2023-01-01T00:00:00Z"),
        candidate(3, "c/Money back.md", "2024-01-01T00:00:00Z"),
        candidate(4, "Slack/general.md", "2024-02-01T00:00:00Z", source_type="chat"),
        candidate(5, "a/Refunds v2.md", "2025-01-01T00:00:00Z"),
    ]
    overlaps = [
        PassageOverlap((1, 2), 3, 3, 4),
        PassageOverlap((2, 3), 4, 4, 4),
        PassageOverlap((1, 3), 3, 3, 4),
        PassageOverlap((3, 4), 4, 4, 4),
        PassageOverlap((1, 5), 4, 4, 4),
    ]
    found = infer_copies(notes, overlaps, infer_supersessions(notes))
    assert [(e.newer, e.older) for e in found] == [
        (2, 1),
        (3, 2),
    ]  # 3 does not also supersede 1; 4 is a chat; 5 by name
    assert (
        found[0].reason
        == "passages mostly match (3 of 4): 'Returns' is a later copy of 'Refunds' (dated 2023-01-01 > 2022-01-01)"
    )

    assert not PassageOverlap((1, 2), 2, 2, 4).mostly  # half is not most
    assert not PassageOverlap((1, 2), 1, 1, 1).mostly  # one passage is a quote
    assert not PassageOverlap((1, 2), 3, 0, 3).mostly  # boilerplate only: one template
    assert PassageOverlap((1, 2), 2, 1, 3).mostly
    one_name = [
        candidate(1, "a/Overview.md", "2022-01-01T00:00:00Z"),
        candidate(2, "b/Overview.md", "2023-01-01T00:00:00Z"),
    ]
    assert [(e.newer, e.older) for e in infer_copies(one_name, [PassageOverlap((1, 2), 3, 3, 3)], [])] == [(2, 1)]
    draft = [
        candidate(1, "a/Refunds.md", "2022-01-01T00:00:00Z"),
        candidate(2, "b/Returns draft.md", "2023-01-01T00:00:00Z"),
    ]
    assert infer_copies(draft, [PassageOverlap((1, 2), 3, 3, 3)], []) == []
    same_day = [
        candidate(1, "a/Refunds.md", "2022-01-01T00:00:00Z"),
        candidate(2, "b/Returns.md", "2022-01-01T10:00:00Z"),
    ]
    assert infer_copies(same_day, [PassageOverlap((1, 2), 3, 3, 3)], []) == []


@pytest.mark.slow
def test_policy_v2_with_a_later_date_supersedes_policy_and_history_says_it_was_inferred(
    vault, cli, real_embedder, monkeypatch
):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    write(vault, "policies/Log Retention Policy.md", POLICY.format(date="2019-03-01", days=365))
    write(vault, "policies/Log Retention Policy v2.md", POLICY.format(date="2024-03-01", days=180))
    cli.json("index", "--json")
    cli.json("consolidate", "--json")

    history = cli.json("history", "policies/Log Retention Policy.md", "--json")
    assert history["superseded_by"] == "policies/Log Retention Policy v2.md"
    assert history["superseded_at"].startswith("2024-03-01")
    assert "is a later version of 'Log Retention Policy'" in history["superseded_inferred"]
    text = cli("history", "policies/Log Retention Policy.md").stdout
    assert (
        "superseded by policies/Log Retention Policy v2.md on 2024-03-01 (inferred: title 'Log Retention Policy v2'"
        in text
    )
    newer = cli.json("history", "policies/Log Retention Policy v2.md", "--json")
    assert newer["supersedes"][0]["inferred"].startswith("title 'Log Retention Policy v2'")

    now = cli.json("query", "After how many days is log output removed?", "--json", "--no-track", "--top-k", "1")
    assert now[0]["path"] == "policies/Log Retention Policy v2.md"
    before = cli.json(
        "query",
        "After how many days was log output removed in 2022?",
        "--json",
        "--no-track",
        "--top-k",
        "1",
        "--explain",
    )
    assert before[0]["path"] == "policies/Log Retention Policy.md"
    assert "365 days" in before[0]["text"]
    assert any(w.endswith("on 2024-03-01 (inferred)") for w in before[0]["warnings"])
    assert "later version" in before[0]["explain"]["supersession_inferred"]

    graph = cli.json("graph", "--format", "json")
    [edge] = [e for e in graph["edges"] if e["type"] == "supersedes"]
    assert "later version" in edge["inferred"]
    assert "supersedes (inferred)" in cli("graph", "--format", "mermaid").stdout


def test_frontmatter_wins_and_the_switch_turns_inference_off(vault, cli, fake_embedder, tmp_path, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    write(vault, "Policy.md", POLICY.format(date="2019-03-01", days=365))
    write(vault, "Policy v2.md", POLICY.format(date="2024-03-01", days=180))
    write(vault, "Rule.md", "---\ndate: 2019-03-01\nvalid_until: 2030-01-01\n---\n# Rule\n\nDoors close at 8.\n")
    write(vault, "Rule v2.md", "---\ndate: 2024-03-01\n---\n# Rule\n\nDoors close at 9.\n")
    cli.json("index", "--json")
    assert cli.json("history", "Policy", "--json")["superseded_by"] == "Policy v2.md"
    assert cli.json("history", "Rule", "--json")["superseded_by"] is None  # it declares its own window

    (tmp_path / "index" / "config.toml").write_text("[consolidation]\ninfer_versions = false\n")
    cli.json("index", "--json")
    history = cli.json("history", "Policy", "--json")
    assert history["superseded_by"] is None
    assert all(v["valid_until"] is None for p in history["passages"] for v in p["versions"])


@pytest.mark.slow
def test_a_recent_chat_repeating_an_archived_value_is_marked_as_outdated(vault, cli, real_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2023-01-10")
    write(vault, "policies/Log Retention Policy.md", POLICY.format(date="2023-01-10", days=14))
    cli.json("index", "--json")
    cli.json("consolidate", "--json")
    monkeypatch.setenv("SMARTVEC_NOW", "2026-05-01")
    write(
        vault, "policies/Log Retention Policy.md", POLICY.format(date="2023-01-10", days=365)
    )  # edited in place: 14 is archived
    write(
        vault,
        "Slack/ops/2026-04-30.md",
        "# #ops, 30 April 2026\n\n**Kim** 10:14\nQuick reminder for everyone: log output is removed after 14 days, "
        "nothing has changed there.\n",
    )
    write(
        vault,
        "Slack/ops/2026-04-29.md",
        "# #ops, 29 April 2026\n\n**Kim** 10:14\nFYI log output is removed after 365 days, in case anyone was "
        "wondering.\n",
    )
    cli.json("index", "--json")
    cli.json("consolidate", "--json")

    hits = cli.json("query", "log output removed after days", "--json", "--no-track", "--explain", "--include-dormant")
    echo = next(h for h in hits if h["path"] == "Slack/ops/2026-04-30.md")
    [warning] = [w for w in echo["warnings"] if w.startswith("repeats outdated information")]
    assert warning.startswith("repeats outdated information: 14 days; current: policies/Log Retention Policy#")
    assert warning.endswith("(policies/Log Retention Policy.md)")
    assert echo["explain"]["echo_penalty"] == 0.25
    agreeing = next(h for h in hits if h["path"] == "Slack/ops/2026-04-29.md")
    assert not any(w.startswith("repeats outdated") for w in agreeing["warnings"])
    assert agreeing["explain"]["echo_penalty"] == 0
    text = cli("query", "log output removed after days", "--no-track", "--include-dormant").stdout
    assert "repeats outdated information: 14 day" in text


@pytest.mark.slow
def test_an_echo_of_an_inferred_older_copy_needs_no_source_type(vault, cli, real_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-05-01")
    write(vault, "policies/Log Retention Policy.md", POLICY.format(date="2019-03-01", days=14))
    write(vault, "policies/Log Retention Policy (new).md", POLICY.format(date="2024-03-01", days=365))
    write(
        vault,
        "notes/ops.md",
        "---\ndate: 2026-04-30\n---\n# Ops notes\n\nReminder given to the team: log output is removed after 14 days.\n",
    )
    cli.json("index", "--json")
    cli.json("consolidate", "--json")
    hits = cli.json("query", "log output removed after days", "--json", "--no-track", "--include-dormant")
    echo = next(h for h in hits if h["path"] == "notes/ops.md")
    assert any(
        w.startswith("repeats outdated information: 14 days; current: ")
        and "(policies/Log Retention Policy (new).md)" in w
        for w in echo["warnings"]
    )
    assert hits[0]["path"] == "policies/Log Retention Policy (new).md"


@pytest.mark.slow
def test_undated_copies_indexed_together_are_ordered_by_their_marker(vault, cli, real_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    body = "# Refund Policy\n\n## Refunds\n\nCustomers can ask for a refund within {days} days of delivery.\n"
    write(vault, "Refund Policy.md", body.format(days=14))
    write(vault, "Refund Policy v2.md", body.format(days=30))
    cli.json("index", "--json")
    assert cli.json("consolidate", "--json")["contradictions_found"] == 0

    history = cli.json("history", "Refund Policy.md", "--json")
    assert history["superseded_by"] == "Refund Policy v2.md"
    assert "the marker decides, not a date" in history["superseded_inferred"]
    [hit] = cli.json("query", "How long do customers have to ask for a refund?", "--json", "--no-track", "--top-k", "1")
    assert hit["path"] == "Refund Policy v2.md" and "30 days" in hit["text"]


REFUNDS = """---
date: {date}
---
# {title}

## Scope

This document covers refunds for orders placed in the web shop and in the stores of Larkspur Outfitters.

## Deadline

Customers can ask for a refund within {days} days of delivery, with the receipt.

## Contact

Refund requests go to the service desk, which answers within two working days.
"""


@pytest.mark.slow
def test_a_copy_under_another_name_supersedes_the_note_its_passages_match(vault, cli, real_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    write(vault, "shop/Refund Policy.md", REFUNDS.format(date="2023-02-01", title="Refund Policy", days=14))
    write(vault, "shop/Customer Returns.md", REFUNDS.format(date="2025-04-01", title="Customer Returns", days=30))
    write(
        vault,
        "shop/Shipping.md",
        "---\ndate: 2025-05-01\n---\n# Shipping\n\n## Warehouse\n\nOrders leave the Leipzig warehouse by truck.\n\n"
        "## Contact\n\nRefund requests go to the service desk, which answers within two working days.\n",
    )
    cli.json("index", "--json")
    cli.json("consolidate", "--json")

    history = cli.json("history", "shop/Refund Policy.md", "--json")
    assert history["superseded_by"] == "shop/Customer Returns.md"
    assert history["superseded_at"].startswith("2025-04-01")
    assert history["superseded_inferred"] == (
        "passages mostly match (2 of 3): 'Customer Returns' is a later copy of 'Refund Policy' (dated 2025-04-01 > "
        "2023-02-01)"
    )
    assert cli.json("history", "shop/Shipping.md", "--json")["superseded_by"] is None  # it quotes one passage
    assert cli.json("history", "shop/Customer Returns.md", "--json")["superseded_by"] is None
    edges = cli.json("graph", "--format", "json")["edges"]
    [edge] = [e for e in edges if e["type"] == "supersedes"]
    assert edge["inferred"].startswith("passages mostly match")
    assert not [
        e
        for e in edges
        if e["type"] == "contradicts" and {e["source"], e["target"]} == {"shop/Refund Policy", "shop/Customer Returns"}
    ]

    [now] = cli.json(
        "query", "Within how many days can customers ask for a refund?", "--json", "--no-track", "--top-k", "1"
    )
    assert now["path"] == "shop/Customer Returns.md" and "30 days" in now["text"]
    [before] = cli.json(
        "query",
        "Within how many days could customers ask for a refund in 2024?",
        "--json",
        "--no-track",
        "--top-k",
        "1",
        "--explain",
    )
    assert before["path"] == "shop/Refund Policy.md"
    assert before["explain"]["supersession_inferred"].startswith("passages mostly match")


PROJECT = """---
date: {date}
---
# {name}

## How we work

Every project has an owner, a weekly check-in and a page in the wiki that lists its decisions.

## Risks

Risks are reviewed at each check-in and recorded with an owner and a due date.

## Goal

{goal}
"""


@pytest.mark.slow
def test_templates_series_quotes_and_same_day_copies_infer_nothing(vault, cli, real_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    goals = [
        "Move the warehouse to Leipzig.",
        "Replace the payroll system.",
        "Open a store in Graz.",
        "Halve the packaging waste.",
    ]
    for i, goal in enumerate(goals):
        write(
            vault, f"projects/Project {i}.md", PROJECT.format(date=f"202{i + 1}-03-01", name=f"Project {i}", goal=goal)
        )
    sync = (
        "# Sync\n\n## Notes\n\nThe release moves to Friday.\n\n## Actions\n\nAna writes the changelog.\n\n"
        "## Next\n\nWe meet again next week.\n"
    )
    write(vault, "Meetings/Sync 1.md", "---\ndate: 2025-01-01\n---\n" + sync)
    write(vault, "Meetings/Weekly.md", "---\ndate: 2025-01-08\n---\n" + sync.replace("Friday", "Monday"))
    write(vault, "notes/Garden.md", REFUNDS.format(date="2024-01-01", title="Garden", days=14))
    write(vault, "notes/Yard.md", REFUNDS.format(date="2024-01-01", title="Yard", days=20))
    cli.json("index", "--json")
    graph = cli.json("graph", "--format", "json")
    assert [e for e in graph["edges"] if e["type"] == "supersedes"] == []


def test_an_index_from_before_text_hashes_finds_copies_after_the_migration(
    vault, cli, fake_embedder, tmp_path, monkeypatch
):
    import sqlite3

    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    write(vault, "shop/Refund Policy.md", REFUNDS.format(date="2023-02-01", title="Refund Policy", days=14))
    write(vault, "shop/Customer Returns.md", REFUNDS.format(date="2025-04-01", title="Customer Returns", days=30))
    cli.json("index", "--json")
    assert cli.json("history", "shop/Refund Policy.md", "--json")["superseded_by"] == "shop/Customer Returns.md"

    db = sqlite3.connect(tmp_path / "index" / "smartvec.db")  # as an index made before migration m008 left it
    db.execute("DELETE FROM edges WHERE type = 'supersedes'")
    db.execute("UPDATE notes SET superseded_at = NULL, superseded_by = NULL")
    db.execute("DROP INDEX idx_chunks_current_text_hash")
    db.execute("ALTER TABLE chunks DROP COLUMN text_hash")
    db.execute("ALTER TABLE notes DROP COLUMN kind_source")
    db.execute("DELETE FROM _migrations WHERE name = 'm008_kinds_and_copies'")
    db.commit()
    db.close()

    summary = cli.json("index", "--json")
    assert summary["passages_embedded"] == 0
    history = cli.json("history", "shop/Refund Policy.md", "--json")
    assert history["superseded_by"] == "shop/Customer Returns.md"
    assert history["superseded_inferred"].startswith("passages mostly match (2 of 3)")
    assert cli.json("status", "--json")["kinds"] == {"declared": 0, "inferred": 0, "unknown": 2}


def test_a_lineage_is_every_note_supersedes_edges_connect_however_far():
    from smartvec_cli.memory.lineage import lineage_members, lineages

    pairs = [(2, 1), (3, 2), (5, 4), (3, 6)]  # 1 <- 2 <- 3 -> 6 is one lineage (3 supersedes both), 4 <- 5 another
    roots = lineages(pairs)
    assert roots[1] == roots[2] == roots[3] == roots[6] != roots[4] == roots[5]
    assert lineage_members(pairs, 1) == {1, 2, 3, 6} and lineage_members(pairs, 5) == {4, 5}
    assert lineage_members(pairs, 9) == {9}


def test_issues_of_a_series_are_no_versions_unless_they_restate_the_same_facts():
    """ "Weekly report 2024-03-01" and "Weekly report 2024-03-08" (or "Market Report Mar 2024" and "Apr 2024")
    state the same sentences with this period's numbers: near-identical passages do not make the later a
    version of the earlier; identical ones (the same facts restated) still do."""
    for older, newer in (
        ("reports/Weekly report 2024-03-01.md", "reports/Weekly report 2024-03-08.md"),
        ("reports/Market Report Mar 2024.md", "reports/Market Report Apr 2024.md"),
        ("sprints/Sprint 14 review.md", "sprints/Sprint 15 review.md"),
    ):
        notes = [candidate(1, older, "2024-03-01T00:00:00Z"), candidate(2, newer, "2024-04-01T00:00:00Z")]
        assert infer_supersessions(notes) == []
        edited = PassageOverlap((1, 2), 4, 4, 4, near=3)  # three of four passages with other numbers
        assert infer_copies(notes, [edited], []) == [], (older, newer)
        restated = PassageOverlap((1, 2), 4, 4, 4, near=0)
        assert [(e.newer, e.older) for e in infer_copies(notes, [restated], [])] == [(2, 1)]
    assert series_key("Travel Policy") is None and series_key("Weekly report 2024-03-08") == "weekly report"
    copies = [
        candidate(1, "a/Refunds.md", "2022-01-01T00:00:00Z"),
        candidate(2, "b/Returns.md", "2023-01-01T00:00:00Z"),
    ]
    assert infer_copies(copies, [PassageOverlap((1, 2), 4, 4, 4, near=3)], []), "an edited copy is still a copy"
