"""Consolidation: contradictions, supersession, lineage, ripple, dormancy, idempotence."""

import json

import pytest
from conftest import both_stores, index_rows, write

POLICY = (
    "---\nsource_type: policy\nvalid_from: 2025-01-01\n---\n# Travel policy\n\n"
    "The per diem for business travel is EUR 75 per day.\n"
)
CHAT = (
    "---\nsource_type: chat\ndate: 2026-10-20\n---\n# sales chat\n\nThe per diem for business travel is EUR 60 "
    "per day, remember.\n"
)


def consolidate(cli):
    return cli.json("consolidate", "--json")


def edges(tmp_path, kind):
    sql = """SELECT s.chunk_id, d.chunk_id, e.detail FROM edges e
             JOIN chunks s ON s.id = e.src_chunk JOIN chunks d ON d.id = e.dst_chunk WHERE e.type = ?"""
    return [(a, b, json.loads(detail)) for a, b, detail in index_rows(sql, [kind])]


def contradicting_notes(tmp_path) -> set[frozenset[str]]:
    """The pairs of notes (paths without ``.md``) joined by a ``contradicts`` edge."""
    return {frozenset(p.split("#")[0] for p in (loser, winner)) for loser, winner, _ in edges(tmp_path, "contradicts")}


@pytest.mark.slow
@both_stores
@pytest.mark.parametrize("as_if_large", [False, True], ids=["small", "as-if-large"])
def test_disagreeing_notes_get_a_contradicts_edge_and_the_authority_wins(
    vault, cli, real_embedder, tmp_path, monkeypatch, as_if_large
):
    """``as-if-large``: what a vault of thousands of notes does, on two: PostgreSQL's neighbour lists for a whole
    batch from the live matrix in process (``SEARCH_MANY_IN_PROCESS``), and every statement over many rows in
    slices of one id (``IN_LIST_SIZE``; a first consolidation of 10,000 notes on PostgreSQL failed with "number
    of parameters must be between 0 and 65535")."""
    if as_if_large:
        monkeypatch.setattr("smartvec_cli.store.postgres.store.SEARCH_MANY_IN_PROCESS", 1)
        monkeypatch.setattr("smartvec_cli.store.inlist.IN_LIST_SIZE", 1)
    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-01")
    write(vault, "policies/travel.md", POLICY)
    write(vault, "chat/sales.md", CHAT)
    cli.json("index", "--json")
    summary = consolidate(cli)
    assert summary["contradictions_found"] == 1
    [(loser, winner, detail)] = edges(tmp_path, "contradicts")
    assert loser.startswith("chat/sales#") and winner.startswith("policies/travel#")
    assert "EUR 75" in detail["reason"] and "EUR 60" in detail["reason"]
    hits = cli.json("query", "What is the per diem for business travel?", "--json", "--no-track", "--include-dormant")
    assert hits[0]["path"] == "policies/travel.md"
    assert any(w.startswith("disputed by chat/sales#") for w in hits[0]["warnings"])
    chat = next(h for h in hits if h["path"] == "chat/sales.md")
    assert any(w.startswith("contradicted by policies/travel#") for w in chat["warnings"])
    explain = cli.json("query", "per diem business travel", "--json", "--no-track", "--explain", "--include-dormant")
    assert next(h for h in explain if h["path"] == "chat/sales.md")["explain"]["contradiction_penalty"] > 0
    assert cli.json("status", "--json")["notes"] == 2  # nothing deleted


@pytest.mark.slow
@both_stores
def test_notes_that_merely_share_words_do_not_contradict(vault, cli, real_embedder, tmp_path):
    write(vault, "policies/travel.md", POLICY)
    write(
        vault,
        "wiki/booking.md",
        "# Booking\n\nBusiness travel is booked through the travel portal at least 14 days ahead.\n",
    )
    write(vault, "wiki/hotels.md", "# Hotels\n\nThe hotel limit for business travel is EUR 180 per night.\n")
    cli.json("index", "--json")
    assert consolidate(cli)["contradictions_found"] == 0
    assert edges(tmp_path, "contradicts") == []


@both_stores
def test_versions_of_one_policy_are_not_contradictions(vault, cli, fake_embedder, tmp_path, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-01-01")
    write(
        vault,
        "p/v1.md",
        "---\nversion: 1\nvalid_from: 2020-01-01\n---\n# Per diem\n\nThe per diem is EUR 45 per day.\n",
    )
    write(
        vault,
        "p/v2.md",
        "---\nversion: 2\nsupersedes: '[[v1]]'\nvalid_from: 2022-04-01\n---\n# Per diem\n\n"
        "The per diem is EUR 60 per day.\n",
    )
    cli.json("index", "--json")
    summary = consolidate(cli)
    assert summary["contradictions_found"] == 0
    assert summary["transitions"]["UNCONSOLIDATED->ARCHIVED"] == 1  # v1's window closed when v2 began
    old = cli.json("show", "p/v1.md", "--json")["passages"][0]
    assert (old["state"], old["valid_until"]) == ("ARCHIVED", "2022-04-01T00:00:00Z")
    assert "45" in cli.json("query", "per diem", "--as-of", "2021-06-01", "--json", "--no-track")[0]["text"]
    history = cli.json("history", "p/v1.md", "--json")
    assert history["superseded_by"] == "p/v2.md" and history["superseded_at"] == "2022-04-01T00:00:00Z"


@both_stores
def test_an_edited_passage_keeps_its_lineage(vault, cli, fake_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")
    write(vault, "n.md", "# Limits\n\nThe upload limit is 10 MB per file.\n")
    cli.json("index", "--json")
    consolidate(cli)
    monkeypatch.setenv("SMARTVEC_NOW", "2025-01-01")
    write(vault, "n.md", "# Limits\n\nThe upload limit is 50 MB per file.\n")
    cli.json("index", "--json")
    consolidate(cli)
    [passage] = cli.json("history", "n.md", "--json")["passages"]
    first, second = passage["versions"]
    assert (first["version"], first["state"], first["valid_until"]) == (1, "ARCHIVED", "2025-01-01T00:00:00Z")
    assert first["replaced_by"] == f"{passage['chunk_id']}@2"
    assert (second["version"], second["state"], second["valid_from"]) == (2, "ACTIVE", "2025-01-01T00:00:00Z")


@both_stores
def test_ripple_penalties_at_hop_one_and_two_and_nothing_beyond(vault, cli, fake_embedder, tmp_path):
    write(vault, "a.md", "# A\n\nThe base rule says ten.\n")
    write(vault, "b.md", "---\ndepends_on: ['[[a]]']\n---\n# B\n\nB builds on the base rule.\n")
    write(vault, "c.md", "---\ndepends_on: ['[[b]]']\n---\n# C\n\nC builds on B.\n")
    write(vault, "d.md", "---\ndepends_on: ['[[c]]']\n---\n# D\n\nD builds on C.\n")
    cli.json("index", "--json")
    consolidate(cli)
    write(vault, "a.md", "# A\n\nThe base rule says twelve.\n")
    cli.json("index", "--json")
    summary = consolidate(cli)
    assert summary["passages_rippled"] == 2 and summary["notes_needing_review"] == 2
    penalties = dict(
        index_rows("SELECT n.path, c.ripple_penalty FROM chunks c JOIN notes n ON n.id = c.note WHERE c.current = 1")
    )
    assert penalties == {"a.md": 0.0, "b.md": 0.15, "c.md": 0.075, "d.md": 0.0}
    review = {r["path"]: r["reason"] for r in cli.json("status", "--json")["needs_review"]}
    assert set(review) == {"b.md", "c.md"} and "a.md changed" in review["b.md"] and "hop 2" in review["c.md"]
    write(vault, "b.md", "---\ndepends_on: ['[[a]]']\n---\n# B\n\nB builds on the base rule, reviewed.\n")
    cli.json("index", "--json")
    consolidate(cli)
    review = {r["path"] for r in cli.json("status", "--json")["needs_review"]}
    assert "b.md" not in review  # editing a note is reviewing it


@both_stores
def test_consolidate_twice_changes_nothing_the_second_time(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nAlpha text about the deploy window on Tuesday.\n")
    write(vault, "b.md", "---\ndepends_on: ['[[a]]']\n---\n# B\n\nBeta text that links [[a]].\n")
    cli.json("index", "--json")
    first = consolidate(cli)
    assert first["transitions"] == {"UNCONSOLIDATED->ACTIVE": 2}
    second = consolidate(cli)
    assert second["transitions"] == {} and second["edges_added"] == second["edges_removed"] == 0
    assert second["passages_rippled"] == 0 and second["notes_processed"] == 0


@both_stores
def test_unused_low_trust_passages_fall_dormant_and_wake_on_access(vault, cli, fake_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-01")
    write(
        vault,
        "chat/old.md",
        "---\nsource_type: chat\ndate: 2026-01-05\n---\n# Old chat\n\nThe zebra crossing was repainted.\n",
    )
    write(vault, "wiki/fresh.md", "---\nsource_type: wiki\n---\n# Wiki\n\nThe zebra crossing is near the north gate.\n")
    cli.json("index", "--json")
    summary = consolidate(cli)
    assert summary["transitions"].get("ACTIVE->DORMANT") == 1
    assert [h["path"] for h in cli.json("query", "zebra crossing", "--json", "--no-track")] == ["wiki/fresh.md"]
    hits = cli.json("query", "zebra crossing", "--json", "--include-dormant")
    assert {h["path"] for h in hits} == {"wiki/fresh.md", "chat/old.md"}
    chunk = cli.json("show", "chat/old.md", "--json")["passages"][0]
    assert chunk["state"] == "ACTIVE"  # woken by the access


def test_graph_exports(vault, cli, fake_embedder):
    write(vault, "a.md", "# Alpha\n\nAlpha text.\n")
    write(vault, "b.md", "---\ndepends_on: ['[[a]]']\n---\n# Beta\n\nSee [[a]].\n")
    write(vault, "c.md", "# Gamma\n\nUnrelated.\n")
    cli.json("index", "--json")
    data = cli.json("graph", "--format", "json")
    assert {(e["source"], e["target"], e["type"]) for e in data["edges"]} == {
        ("b", "a", "depends_on"),
        ("b", "a", "link"),
    }
    mermaid = cli("graph", "b").stdout
    assert mermaid.startswith("graph LR") and "|depends_on|" in mermaid and "Gamma" not in mermaid
    assert cli("graph", "--format", "dot").stdout.startswith("digraph smartvec {")
    assert cli("graph", "--format", "svg").exit_code == 2


@pytest.mark.slow
@both_stores
def test_a_chat_that_misremembers_the_refund_window_contradicts_the_policy(
    vault, cli, real_embedder, tmp_path, monkeypatch
):
    """Each passage is embedded under its own heading (cosine under the duplicate gate); their own words still meet."""
    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-01")
    write(
        vault,
        "policies/returns.md",
        "---\nsource_type: policy\n---\n# Returns and Refunds\n\n## Refund window\n\n"
        "Customers receive a full refund within 30 days of delivery.\n",
    )
    write(
        vault,
        "slack/support.md",
        "---\nsource_type: slack\ndate: 2026-10-20\n---\n# support channel\n\n"
        "**Sam** 10:14\nA customer asked about returns: they get a refund within 14 days of delivery, I think.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    [(loser, winner, detail)] = edges(tmp_path, "contradicts")
    assert loser.startswith("slack/support#") and winner.startswith("policies/returns#")
    assert "30 days" in detail["reason"] and "14 days" in detail["reason"]


@pytest.mark.slow
def test_a_paraphrased_disagreement_is_found_and_an_agreeing_restatement_is_not(
    vault, cli, real_embedder, tmp_path, monkeypatch
):
    """The policy leaves its subject to its heading ("Home Office Budget"); a chat names it outright. Read on
    its own the policy's sentence is not close enough to the chat's; read under its heading it is."""
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    write(
        vault,
        "policies/expenses.md",
        "---\nsource_type: policy\n---\n# Expenses Policy\n\n## Home Office Budget\n\n"
        "Once a year, everyone can claim EUR 300 for a desk, a chair or a screen.\n",
    )
    write(
        vault,
        "chat/general.md",
        "---\nsource_type: chat\ndate: 2026-05-02\n---\n# general, 2 May 2026\n\n"
        "**Noor** 10:14\nFYI the home office budget is EUR 200, in case anyone was wondering.\n",
    )
    write(
        vault,
        "chat/people.md",
        "---\nsource_type: chat\ndate: 2026-05-03\n---\n# people, 3 May 2026\n\n"
        "**Kim** 11:02\nReminder: each of us may spend EUR 300 a year on home office furniture.\n",
    )
    write(vault, "wiki/parking.md", "# Parking\n\nA parking space at the office costs EUR 200 a year.\n")
    cli.json("index", "--json")
    consolidate(cli)
    found = {
        (loser.split("#")[0], winner.split("#")[0]): detail for loser, winner, detail in edges(tmp_path, "contradicts")
    }
    detail = found[("chat/general", "policies/expenses")]
    assert "EUR 300" in detail["reason"] and "EUR 200" in detail["reason"]
    assert not any("policies/expenses" in pair and "chat/people" in pair for pair in found)  # agrees
    assert not any("wiki/parking" in pair for pair in found)  # another thing in the same unit


@pytest.mark.slow
def test_the_judge_is_seen_apart_from_the_candidate_search(vault, cli, real_embedder, tmp_path, monkeypatch):
    """``bench accuracy`` reads the same-thing judge over every pair of notes whose values conflict; the
    agreeing chat gives no pair, the parking fee is judged less alike than the misremembered budget."""
    from smartvec_cli.bench.driver import Driver
    from smartvec_cli.memory.consolidation import ConsolidationSettings

    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    write(
        vault,
        "policies/expenses.md",
        "---\nsource_type: policy\n---\n# Expenses Policy\n\n## Home Office Budget\n\n"
        "Once a year, everyone can claim EUR 300 for a desk, a chair or a screen.\n",
    )
    write(
        vault,
        "chat/general.md",
        "# general\n\n**Noor** 10:14\nFYI the home office budget is EUR 200, in case anyone was wondering.\n",
    )
    write(
        vault,
        "chat/people.md",
        "# people\n\n**Kim** 11:02\nReminder: each of us may spend EUR 300 a year on home office furniture.\n",
    )
    write(vault, "wiki/parking.md", "# Parking\n\nA parking space at the office costs EUR 200 a year.\n")
    cli.json("index", "--json")
    with Driver(vault, tmp_path / "index") as driver:
        closeness = {frozenset((a, b)): c for a, b, c in driver.value_pair_closeness()}
    budget = closeness[frozenset(("chat/general.md", "policies/expenses.md"))]
    parking = closeness[frozenset(("wiki/parking.md", "policies/expenses.md"))]
    assert budget >= ConsolidationSettings().value_cosine > parking
    assert not any("chat/people.md" in pair and "policies/expenses.md" in pair for pair in closeness)


@pytest.mark.slow
def test_an_echo_of_a_superseded_value_contradicts_the_current_version(
    vault, cli, real_embedder, tmp_path, monkeypatch
):
    """The relations stage compares a passage with its nearest neighbours only (none here: ``neighbours`` and
    ``body_neighbours`` are 0, as when a vault holds many closer passages); the echo is found among the
    outdated version's neighbours, and repeating the old value disagrees with the version in force."""
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text("[consolidation]\nneighbours = 0\nbody_neighbours = 0\n")
    policy = (
        "---\nsource_type: policy\nversion: {v}\nvalid_from: {start}\n{extra}---\n# Log Retention\n\n"
        "Application logs are kept for {days} days.\n"
    )
    write(vault, "policies/logs v1.md", policy.format(v=1, start="2019-03-01", extra="", days=14))
    write(
        vault,
        "policies/logs v2.md",
        policy.format(v=2, start="2024-03-01", extra="supersedes: '[[logs v1]]'\n", days=365),
    )
    write(
        vault,
        "chat/ops.md",
        "---\nsource_type: chat\ndate: 2026-05-20\n---\n# ops, 20 May 2026\n\n"
        "**Sam** 09:12\nApplication logs are kept for 14 days, nothing has changed.\n",
    )
    cli.json("index", "--json")
    summary = consolidate(cli)
    [(echo, current, _)] = edges(tmp_path, "echoes")
    assert echo.startswith("chat/ops#") and current.startswith("policies/logs v2#")
    [(loser, winner, detail)] = edges(tmp_path, "contradicts")
    assert loser.startswith("chat/ops#") and winner.startswith("policies/logs v2#")
    assert detail["echo"] and "14 days" in detail["reason"] and "365 days" in detail["reason"]
    assert summary["contradictions_found"] == 1
    assert consolidate(cli)["contradictions_found"] == 0  # nothing new the second time
    assert len(edges(tmp_path, "contradicts")) == 1


@pytest.mark.slow
def test_agreeing_negations_are_not_flagged_and_a_negated_claim_is(vault, cli, real_embedder, tmp_path):
    write(
        vault,
        "guides/settings tab.md",
        "# Settings tab\n\nDo not add a top-level heading to the settings tab: the title is shown already.\n",
    )
    write(
        vault,
        "guides/plugin review.md",
        "# Plugin review\n\nDon\u2019t add a top-level heading to the settings tab: the title is shown already.\n",
    )
    write(
        vault, "help/mobile.md", "# Mobile\n\nCommunity plugins are available on mobile once restricted mode is off.\n"
    )
    write(
        vault,
        "forum/answers.md",
        "# Forum answers\n\nCommunity plugins are not available on mobile once restricted mode is off.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    found = contradicting_notes(tmp_path)
    assert found == {frozenset(("help/mobile", "forum/answers"))}


@pytest.mark.slow
def test_a_template_family_is_not_flagged_while_its_planted_conflicts_are(vault, cli, real_embedder, tmp_path):
    """Status reports of many projects, weekly notes, generated reference pages (``bench.templates``): their
    differing numbers are other subjects, slots or weeks; a second note about the same project and week
    that gives another amount, or a guide that gives a setting another default, is a conflict."""
    from smartvec_cli.bench.templates import write_template_vault

    planted = write_template_vault(vault, notes=60, seed=3)
    cli.json("index", "--json")
    consolidate(cli)
    found = {
        frozenset(path.split("#")[0] for path in (loser, winner)) for loser, winner, _ in edges(tmp_path, "contradicts")
    }
    expected = {frozenset(p.removesuffix(".md") for p in (plant.original, plant.planted)) for plant in planted}
    values = {
        frozenset(p.removesuffix(".md") for p in (plant.original, plant.planted))
        for plant in planted
        if "EUR" in plant.claim or "seconds" in plant.claim
    }
    assert found <= expected and values <= found


CLAIMING_CHAT = """---
source_type: chat
date: 2026-10-21
supersedes:
  - "[[Travel Expense Policy v3]]"
---
# finance-help, 21 October 2026

**Jonas Weber** 09:12
Heads up: the new travel rules are out and replace the travel policy. The per diem is EUR 40 per day now.
"""


@pytest.mark.slow
@both_stores
def test_a_chat_cannot_archive_a_policy_by_declaring_it_supersedes_it(vault, cli, real_embedder, tmp_path, monkeypatch):
    """A chat (authority 0.3) that declares ``supersedes: [[Travel Expense Policy v3]]`` (a policy, 1.0) claims
    it, which consolidation records as a dispute; the policy stays in force and answers. A note of the policy's
    authority that supersedes it does archive it."""
    import shutil
    from pathlib import Path

    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-01")
    policy = Path(__file__).parent.parent / "sample_vault" / "policies" / "Travel Expense Policy v3.md"
    (vault / "policies").mkdir(parents=True, exist_ok=True)
    shutil.copy(policy, vault / "policies" / policy.name)
    write(vault, "chat/2026-10-21 finance-help.md", CLAIMING_CHAT)
    cli.json("index", "--json")
    consolidate(cli)
    shown = cli.json("show", "policies/Travel Expense Policy v3.md", "--json")
    assert {p["state"] for p in shown["passages"]} == {"ACTIVE"}
    assert all(p["valid_until"] is None for p in shown["passages"])
    hits = cli.json("query", "What is the travel per diem?", "--json", "--no-track")
    assert hits[0]["path"] == "policies/Travel Expense Policy v3.md" and "EUR 75" in hits[0]["text"]
    assert any(w.startswith("disputed by chat/2026-10-21 finance-help#") for w in hits[0]["warnings"])
    claims = [detail for _, _, detail in edges(tmp_path, "contradicts") if detail.get("claim")]
    assert claims and all("claims to supersede" in detail["reason"] for detail in claims)
    shown = cli("show", "chat/2026-10-21 finance-help.md").stdout
    assert "None" not in shown, "an edge between passages names its passages, not a missing target"
    assert (
        "contradicts    chat/2026-10-21 finance-help#" in shown and "-> policies/Travel Expense Policy v3.md#" in shown
    )
    assert ": claims to supersede policies/Travel Expense Policy v3.md" in shown
    write(
        vault,
        "policies/Travel Expense Policy v4.md",
        "---\nsource_type: policy\nvalid_from: 2026-10-25\nsupersedes: '[[Travel Expense Policy v3]]'\n---\n"
        "# Travel Expense Policy (Version 4)\n\nThe per diem is EUR 40 per day.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    shown = cli.json("show", "policies/Travel Expense Policy v3.md", "--json")
    assert {p["state"] for p in shown["passages"]} == {"ARCHIVED"}, "a policy's own successor archives it"
    assert not [detail for _, _, detail in edges(tmp_path, "contradicts") if detail.get("claim")]


@pytest.mark.slow
@pytest.mark.parametrize("family", ["projects", "people"])
def test_template_pages_of_different_subjects_do_not_contradict_while_planted_conflicts_do(
    vault, cli, real_embedder, tmp_path, family
):
    """Status pages of numbered projects and a staff directory (``bench.template_families``): pages of other
    projects or people never contradict, whatever their numbers; a review or an e-mail about one subject that
    gives another value or denies what its page says does."""
    from smartvec_cli.bench.template_families import FAMILIES

    planted = FAMILIES[family].write(vault, 40, 5)
    cli.json("index", "--json")
    consolidate(cli)
    found = {
        frozenset(path.split("#")[0] for path in (loser, winner)) for loser, winner, _ in edges(tmp_path, "contradicts")
    }
    expected = {frozenset(p.removesuffix(".md") for p in (plant.original, plant.planted)) for plant in planted}
    assert found <= expected, found - expected
    assert len(found) >= len(expected) - 1, expected - found


VENDORS = {"Tidal Foods": ("V-204", 40), "Onyx Media": ("V-311", 45), "Kestrel Labs": ("V-418", 60)}
VENDORS |= {"Harbor Energy": ("V-525", 30), "Summit Freight": ("V-632", 45)}


def write_vendor_pages(vault):
    """Pages of one template: the vendor's id in the first passage, its name in the next."""
    for name, (vendor, days) in VENDORS.items():
        write(
            vault,
            f"vendors/{name}.md",
            f"---\ndate: 2024-03-04\n---\n# Vendor: {name}\n\nVendor {vendor}, onboarded in 2019 by the "
            "purchasing team.\n\n## Contract\n\nThe framework contract runs for three years. Orders go through the "
            f"purchasing portal.\n\n## Terms\n\n{name} keeps {days} GB of order data in the supplier portal. "
            "Invoices are paid by bank transfer.\n",
        )


@pytest.mark.slow
def test_a_statement_naming_the_id_another_passage_of_the_page_gives_is_of_that_page(
    vault, cli, real_embedder, tmp_path
):
    """A call that names a vendor only by the id its page gives in another passage ("Vendor V-204 keeps 90 GB
    of order data") speaks of the page's "Tidal Foods keeps 40 GB of order data": the page's passages inherit
    the note's subject. A call about another vendor's id, restating its page, conflicts with no page."""
    write_vendor_pages(vault)
    meeting = "---\ndate: 2024-03-04\nsource_type: meeting_notes\n---\n# Call with finance\n\nQuarterly call.\n\n"
    write(
        vault, "calls/Call about V-204.md", meeting + "Vendor V-204 keeps 90 GB of order data in the supplier portal.\n"
    )
    write(
        vault, "calls/Call about V-418.md", meeting + "Vendor V-418 keeps 60 GB of order data in the supplier portal.\n"
    )
    cli.json("index", "--json")
    consolidate(cli)
    found = contradicting_notes(tmp_path)
    assert found == {frozenset({"vendors/Tidal Foods", "calls/Call about V-204"})}


@pytest.mark.slow
def test_pages_of_numbered_notes_of_one_series_are_other_subjects(vault, cli, real_embedder, tmp_path):
    """A review of release 7 that denies what the page of release 7 says conflicts with it, not with the pages
    of releases 6 and 8 that say the same as release 7's page: the number in a title is which note of the series
    it is about."""
    for number in (6, 7, 8):
        write(
            vault,
            f"releases/Release {number}.md",
            f"---\ndate: 2024-03-04\n---\n# Atlas Release {number}\n\nThe release of Atlas shipped on time.\n",
        )
    write(
        vault,
        "reviews/Review of release 7.md",
        "---\ndate: 2024-03-04\nsource_type: meeting_notes\n---\n# Review: Atlas, release 7\n\n"
        "The release of Atlas did not ship on time.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    found = contradicting_notes(tmp_path)
    assert found == {frozenset({"releases/Release 7", "reviews/Review of release 7"})}


def test_a_count_of_things_given_for_one_note_of_a_series_conflicts_with_that_note_only(
    vault, cli, real_embedder, tmp_path
):
    """A unitless count ("41 points", "3 tickets") is a value: a retro of sprint 5 giving another count than the
    page of sprint 5 conflicts with it, and not with the pages of sprints 4 and 6, which give other counts too."""
    for number, points, carried in ((4, 33, 5), (5, 41, 2), (6, 38, 7)):
        write(
            vault,
            f"sprints/Sprint {number}.md",
            f"---\ndate: 2024-03-04\n---\n# Condor Sprint {number}\n\nBoard CON-S{number}. Goal: the audit log.\n\n"
            f"## Metrics\n\nVelocity was {points} points. {carried} tickets carried over to the next sprint.\n",
        )
    write(
        vault,
        "retros/Retro Condor 5.md",
        "---\ndate: 2024-03-04\nsource_type: meeting_notes\n---\n# Retro: Condor, sprint 5\n\n"
        "Notes from the retrospective.\n\nBoard CON-S5 had 8 tickets carried over to the next sprint.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    found = contradicting_notes(tmp_path)
    assert found == {frozenset({"sprints/Sprint 5", "retros/Retro Condor 5"})}


def test_a_review_naming_a_day_conflicts_with_that_days_daily_note_only(vault, cli, real_embedder, tmp_path):
    """Daily notes titled by their day are each their own subject: a weekly review saying "On Friday 6 January
    2023 I walked 3,100 steps" conflicts with the note of 6 January, not with the days around it, which give
    other counts as daily notes do. The notes have no front matter, as Obsidian's daily notes have none: the
    day is the file's name."""
    for day, steps, km in (("2023-01-05", 8200, 5), ("2023-01-06", 9400, 6), ("2023-01-07", 4100, 4)):
        write(vault, f"daily/{day}.md", f"## Health\n\nWalked {steps} steps. Ran {km} km after work.\n")
    write(
        vault,
        "reviews/Week 1.md",
        "# Weekly review, week of 2023-01-08\n\nLooking back at the week.\n\n"
        "On Friday 6 January 2023 I walked 3100 steps.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    found = contradicting_notes(tmp_path)
    assert found == {frozenset({"daily/2023-01-06", "reviews/Week 1"})}


def test_a_note_is_also_the_subject_its_front_matter_aliases_name(vault, cli, real_embedder, tmp_path):
    """A customer page called `C-1833` in its front matter only is the subject of a call saying "Account C-1833
    stores 502 GB": the call conflicts with that page, and not with another customer's page of one template."""
    for name, account, stored in (("Onyx Foods", "C-1833", 181), ("Falcon Capital", "C-2040", 230)):
        write(
            vault,
            f"customers/{name}.md",
            f"---\ndate: 2024-03-04\naliases: [{account}]\n---\n# {name}\n\nEnterprise plan since 2021.\n\n"
            f"## Usage\n\n{name} stores {stored} GB of data with us.\n",
        )
    write(
        vault,
        "calls/Call C-1833.md",
        "---\ndate: 2024-03-04\nsource_type: meeting_notes\n---\n# Quarterly call\n\n"
        "Quarterly call with their IT lead.\n\nAccount C-1833 stores 502 GB of data with us.\n",
    )
    cli.json("index", "--json")
    consolidate(cli)
    found = contradicting_notes(tmp_path)
    assert found == {frozenset({"customers/Onyx Foods", "calls/Call C-1833"})}
