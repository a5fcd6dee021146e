"""Relevance first (real model): the passage that answers is found, and time, trust and the graph only
choose among passages that answer."""

import json
import re

import pytest
from conftest import write

pytestmark = pytest.mark.slow

WORDS = "alpha river stone garden window paper orange music winter forest silver yellow camera".split()


def top(cli, *args):
    hits = cli.json("query", *args, "--json", "--no-track")
    return hits[0] if hits else None


def test_the_readme_parental_leave_question_gets_the_paragraph_that_states_it(
    sample_vault, cli, real_embedder, monkeypatch
):
    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-29")
    cli.json("index", "--json")
    hit = top(cli, "How many weeks of parental leave back in 2023?", "--top-k", "1")
    assert "16 weeks of paid parental leave" in hit["text"]
    assert hit["path"] == "policies/Parental Leave Policy v2.md"


IMAGE = (
    r"!\[\[[^\]]*\.(?:png|jpe?g|gif|svg|webp)\]\]|!\[[^\]]*\]\([^)]*\)"  # a note's embed (![[Note#Part]]) is content
)
MARKUP = re.compile(IMAGE + r"|#[\w/-]+|^\s*(\*\*\*|---|___)\s*$|\bTags:", re.MULTILINE)


def test_no_passage_is_markup_or_a_lead_in_alone(sample_vault, cli, real_embedder):
    from smartvec_cli.store.sqlite import SqliteStore

    cli.json("index", "--json")
    with SqliteStore.open(sample_vault.parent / "index") as store:
        texts = [row[0] for row in store.db.execute("SELECT text FROM chunks WHERE state != 'DELETED'")]
    assert len(texts) > 100
    assert [t for t in texts if not re.search(r"[^\W\d_]{2,}", MARKUP.sub(" ", t))] == []  # tags, rules, images
    assert [t for t in texts if t.rstrip().endswith(":")] == []  # "The rules:" travels with the rules
    assert all(len(t) >= 20 for t in texts), [t for t in texts if len(t) < 20]


def test_an_identifier_is_found_among_1500_notes_of_common_words(vault, cli, real_embedder):
    for n in range(1500):
        words = " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(12))
        write(vault, f"notes/n{n:04d}.md", f"# Note {n}\n\nThe {words} notes mention token{n} once.\n")
    cli.json("index", "--json")
    hits = cli.json("query", "token777", "--json", "--no-track", "--top-k", "3")
    assert hits[0]["path"] == "notes/n0777.md"
    lexical = cli.json("query", "token777", "--mode", "lexical", "--json", "--top-k", "1")
    assert lexical[0]["path"] == "notes/n0777.md"


def test_an_unlabelled_stable_fact_beats_an_unrelated_authoritative_policy(vault, cli, real_embedder, monkeypatch):
    write(
        vault,
        "facts/lockers.md",
        "# Lockers\n\nThe lockers on the second floor are emptied every Friday evening by facilities.\n",
    )
    write(
        vault,
        "policies/travel.md",
        "---\nsource_type: policy\nvalid_from: 2024-01-01\n---\n# Travel policy\n\n"
        "The per diem for business travel is EUR 75 per day.\n",
    )
    monkeypatch.setenv("SMARTVEC_NOW", "2019-06-01")
    cli.json("index", "--json")
    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-01")
    cli.json("consolidate", "--json")
    hit = top(cli, "How often are lockers emptied?")
    assert hit["path"] == "facts/lockers.md" and hit["state"] != "DORMANT"
    assert hit["signals"]["confidence"] >= 0.4  # seven years without metadata is not a reason to distrust it


def test_a_dormant_passage_answers_with_a_warning_when_nothing_awake_is_relevant(
    vault, cli, real_embedder, monkeypatch
):
    write(
        vault,
        "chat/2024-02-01 standup.md",
        "---\nsource_type: chat\n---\n# Standup\n\nThe staging database password is rotated by Priya every Tuesday.\n",
    )
    write(
        vault,
        "wiki/team.md",
        "---\nsource_type: wiki\n---\n# Team pages\n\nThe Growth team is led by Hugo Quiroga, who owns its hiring "
        "plan.\n",
    )
    write(
        vault,
        "chat/2024-02-02 lunch.md",
        "---\nsource_type: chat\n---\n# Lunch\n\nThe canteen serves vegetarian lasagne on Thursdays.\n",
    )
    monkeypatch.setenv("SMARTVEC_NOW", "2024-02-03")
    cli.json("index", "--json")
    monkeypatch.setenv("SMARTVEC_NOW", "2026-11-01")
    summary = cli.json("consolidate", "--json")
    assert summary["transitions"].get("ACTIVE->DORMANT") == 2  # the two chats; the wiki page does not fade
    hit = top(cli, "Who rotates the staging database password?")
    assert hit["path"] == "chat/2024-02-01 standup.md"
    assert any(w.startswith("dormant") for w in hit["warnings"])
    growth = top(cli, "Who leads the Growth team?")
    assert growth["path"] == "wiki/team.md" and not growth["warnings"]
    assert all(h["state"] != "DORMANT" for h in cli.json("query", "Who leads the Growth team?", "--json", "--no-track"))


def test_an_expired_answer_comes_back_with_its_warning_not_an_unrelated_valid_one(
    vault, cli, real_embedder, monkeypatch
):
    write(
        vault,
        "policies/bikes.md",
        "---\nsource_type: policy\nvalid_from: 2022-01-01\nvalid_until: 2024-01-01\n---\n# Bike leasing\n\n"
        "Employees can lease one bicycle through the company bike leasing programme, up to EUR 3,000.\n",
    )
    write(
        vault,
        "policies/parking.md",
        "---\nsource_type: policy\n---\n# Parking\n\nThe car park opens at 6 am and closes at 10 pm.\n",
    )
    monkeypatch.setenv("SMARTVEC_NOW", "2026-01-01")
    cli.json("index", "--json")
    hit = top(cli, "Can I lease a bicycle through the company?")
    assert hit["path"] == "policies/bikes.md"
    assert any(w.startswith("expired on 2024-01-01") for w in hit["warnings"])
    assert hit["confidence"] < 0.5


def test_nothing_relevant_is_an_answer(sample_vault, cli, real_embedder):
    """A question nothing answers gets no confident answer: no hit, or hits that each say they are a weak match
    and claim at most the weak-match ceiling, in every front end."""
    from smartvec_cli.memory.ranking import WEAK_MATCH_CONFIDENCE_CEILING

    cli.json("index", "--json")
    nonsense = "zebra quantum pasta recipe banjo"
    hits = cli.json("query", nonsense, "--json", "--no-track")
    assert all(any(w.startswith("weak match") for w in h["warnings"]) for h in hits)
    assert all(h["confidence"] <= WEAK_MATCH_CONFIDENCE_CEILING for h in hits)
    result = cli("query", nonsense, "--no-track")
    assert result.exit_code == 0 and ("no relevant passage" in result.stdout or "! weak match" in result.stdout)
    assert cli("query", "", "--json").exit_code == 2
    batch = json.loads(cli("query", "--batch", "-", input=json.dumps({"id": 1, "query": nonsense}) + "\n").stdout)
    assert batch["id"] == 1
    assert all(any(w.startswith("weak match") for w in h["warnings"]) for h in batch["hits"])


def test_folder_names_give_a_kind_only_when_they_name_one():
    from smartvec_cli.memory.kinds import KindRules, infer_kind

    def kind(path):
        inferred = infer_kind(path, [], "", KindRules())
        return inferred.kind if inferred else None

    assert kind("Slack/2026-01-05 general.md") == "chat"
    assert kind("Teams chat/standup.md") == "chat"
    assert kind("Notes/1-1s and syncs/Ana.md") == "meeting_notes"
    assert kind("2024-03-01.md") == "daily_note"
    assert kind("teams/Platform Team.md") is None  # a folder of team pages is not a chat
    assert kind("engineering/Async design.md") is None


def test_a_name_the_vault_never_mentions_is_not_matched_by_its_common_half(vault, cli, real_embedder):
    """ "How do I call the Facilities Desk?" in a vault that knows no "Facilities": a purchase order for
    standing desks shares "desk" only; it must not count as holding every specific word of the question."""
    write(
        vault,
        "finance/PO-629677.md",
        "# Purchase orders\n\nPurchase order PO-629677 covers forty standing desks for the new floor.\n",
    )
    write(
        vault,
        "contacts/Service Desk.md",
        "# Service Desk\n\nThe Service Desk answers on extension 4400 from 8 am to 6 pm.\n",
    )
    cli.json("index", "--json")

    def explain(question: str) -> dict:
        return {
            h["path"]: h["explain"]["specific_coverage"]
            for h in cli.json("query", question, "--json", "--no-track", "--explain")
        }

    absent = explain("How do I call the Facilities Desk?")
    assert absent.get("finance/PO-629677.md", 0.0) < 0.75
    present = explain("How do I call the Service Desk?")
    assert present["contacts/Service Desk.md"] == 1.0


def test_a_word_common_in_a_large_vault_is_not_weighed_as_specific(vault, cli, fake_embedder):
    """ "Monday" in 1,200 of 1,201 passages tells none apart: it brings no full-text candidates and no
    coverage, so the passage holding the question's rare identifier holds all of its specific weight."""
    for n in range(1200):
        write(
            vault,
            f"standups/s{n:04d}.md",
            f"# Standup {n}\n\nThe Monday standup covers {WORDS[n % 13]} {WORDS[n // 13 % 13]} {WORDS[n // 169]}.\n",
        )
    write(vault, "ops/relay.md", "# Relay\n\nThe ACME-42 relay restarts every Monday at six.\n")
    cli.json("index", "--json")
    hits = cli.json(
        "query", "When does the ACME-42 relay restart on Monday?", "--json", "--no-track", "--explain", "--top-k", "5"
    )
    assert hits[0]["path"] == "ops/relay.md" and hits[0]["explain"]["specific_coverage"] == 1.0
    assert [h["explain"]["specific_coverage"] for h in hits[1:]] == [0.0] * (len(hits) - 1)

    from smartvec_cli.memory.lexical import common_passages

    assert common_passages(1201) == 1000 and common_passages(100_000) == 5000


def test_a_paraphrased_answer_is_found_and_a_close_match_is_not_called_weak(vault, cli, real_embedder):
    """A question saying "the cycle scheme" shares no word with bike leasing, and MiniLM puts it at a cosine of
    about 0.29: still the passage that answers comes first; a close match is never called weak."""
    write(
        vault,
        "policies/Bike Leasing Policy.md",
        "# Bike Leasing Policy\n\n## Bike Value\n\nEmployees may lease one bicycle worth up to EUR 4,000 through the "
        "payroll scheme.\n",
    )
    write(
        vault, "policies/Travel Policy.md", "# Travel Policy\n\n## Per Diem\n\nThe travel per diem is EUR 75 per day.\n"
    )
    cli.json("index", "--json")
    paraphrased = cli.json("query", "Up to what value does the cycle scheme go?", "--json", "--no-track", "--explain")
    assert paraphrased and paraphrased[0]["path"] == "policies/Bike Leasing Policy.md"
    strong = cli.json("query", "What is the travel per diem?", "--json", "--no-track")
    assert strong[0]["path"] == "policies/Travel Policy.md"
    assert not any(w.startswith("weak match") for w in strong[0]["warnings"])
