"""Feedback reconsolidates confidence, changes the ranking, is kept as events and survives re-indexing."""

import json

import pytest
from conftest import both_stores, index_rows, write


def ranking(cli, question):
    return [h["path"] for h in cli.json("query", question, "--json", "--no-track")]


@both_stores
def test_feedback_changes_the_ranking_and_survives_a_reindex(vault, cli, fake_embedder, tmp_path):
    write(vault, "a.md", "# Boiler\n\nThe boiler service interval is twelve months for the boiler.\n")
    write(vault, "b.md", "# Heating\n\nThe boiler service interval is twelve months.\n")
    cli.json("index", "--json")
    question = "boiler service interval"
    first, second = ranking(cli, question)[:2]
    first_chunk = cli.json("query", question, "--json", "--no-track")[0]["chunk_id"]
    for _ in range(3):
        cli.json("feedback", first_chunk, "--down", "--json")
    assert ranking(cli, question)[:2] == [second, first]

    write(vault, "c.md", "# Unrelated\n\nA new note arrives and the vault is indexed again.\n")
    (vault / first).write_text((vault / first).read_text())  # touched, same text
    cli.json("index", "--json")
    assert ranking(cli, question)[:2] == [second, first]

    events = [json.loads(d) for (d,) in index_rows("SELECT data FROM events WHERE kind = 'feedback' ORDER BY id")]
    assert [e["signal"] for e in events] == ["down"] * 3
    assert events[0]["after"] < events[0]["before"] and all(e["after"] <= e["before"] for e in events)


@both_stores
def test_up_votes_raise_and_a_correction_weighs_less_than_a_down_vote(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nThe deploy window is Tuesday afternoon.\n")
    write(vault, "b.md", "# B\n\nThe deploy window is Thursday morning.\n")
    cli.json("index", "--json")
    hits = cli.json("query", "deploy window", "--json")
    up = cli.json("feedback", "--rank", "1", "--up", "--json")
    assert up["chunk_id"] == hits[0]["chunk_id"] and up["trust_after"] > up["trust_before"]
    assert "confidence_before" not in up and "confidence_after" not in up  # trust is not a hit's confidence
    down = cli.json("feedback", hits[1]["chunk_id"], "--down", "--json")
    corrected = cli.json("feedback", hits[0]["chunk_id"], "--correct", "The deploy window is Wednesday noon.", "--json")
    assert 0 < corrected["trust_before"] - corrected["trust_after"] < down["trust_before"] - down["trust_after"]


def test_the_feedback_line_names_the_number_trust(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nThe deploy window is Tuesday afternoon.\n")
    cli.json("index", "--json")
    cli.json("query", "deploy window", "--json")
    said = cli("feedback", "--rank", "1", "--down")
    assert said.exit_code == 0 and "trust 0." in said.stdout and "confidence" not in said.stdout


@pytest.mark.slow
@both_stores
def test_a_correction_becomes_a_passage_that_answers_and_flags_the_old_one(vault, cli, real_embedder):
    write(vault, "a.md", "# Parking\n\nVisitor parking is in lot C behind the building.\n")
    cli.json("index", "--json")
    cli.json("query", "where is visitor parking", "--json")
    result = cli.json(
        "feedback", "--rank", "1", "--correct", "Visitor parking moved to lot F near the entrance.", "--json"
    )
    assert result["correction_chunk_id"]
    hits = cli.json("query", "where is visitor parking lot", "--json", "--no-track")
    assert hits[0]["chunk_id"] == result["correction_chunk_id"] and "lot F" in hits[0]["text"]
    old = next(h for h in hits if h["path"] == "a.md")
    assert f"corrected by {result['correction_chunk_id']}" in old["warnings"]
    assert cli.json("index", "--json")["notes_deleted"] == 0  # the correction is not a vault note
    assert not list(vault.rglob("*orrection*"))  # and nothing was written into the vault


def test_feedback_needs_a_target_and_one_signal(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nSome passage long enough to index.\n")
    cli.json("index", "--json")
    assert cli("feedback", "--up").exit_code == 2
    assert cli("feedback", "a#a", "--up", "--down").exit_code == 2
    missing = cli("feedback", "nope#x", "--up")
    assert missing.exit_code == 1 and "no passage" in missing.stderr
    no_query = cli("feedback", "--rank", "1", "--up")
    assert no_query.exit_code == 1 and "no query" in no_query.stderr


@both_stores
def test_accesses_are_counted_and_no_track_leaves_them(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nAccess counting passage with words.\n")
    cli.json("index", "--json")
    cli.json("query", "access counting", "--json")
    cli.json("query", "access counting", "--json", "--no-track")
    [chunk] = cli.json("show", "a.md", "--json")["passages"]
    assert chunk["access_count"] == 1


@both_stores
def test_a_downvoted_passage_loses_its_confidence_not_only_its_rank(vault, cli, real_embedder):
    write(vault, "policies/remote.md", "# Remote work\n\nEmployees may work from home on up to 3 days per week.\n")
    cli.json("index", "--json")
    question = "How many days per week can I work from home?"
    before = cli.json("query", question, "--json", "--no-track", "--explain")[0]
    assert before["explain"]["standing"] == 1.0
    cli.json("feedback", before["chunk_id"], "--down", "--json")
    after = cli.json("query", question, "--json", "--no-track", "--explain")[0]
    assert after["chunk_id"] == before["chunk_id"]  # still the only answer there is
    assert after["explain"]["standing"] < 0.2
    assert after["confidence"] < before["confidence"] / 4


def ask(cli, question):
    return cli.json("query", question, "--json", "--no-track", "--explain")


def falls_down_the_list(hits):
    return all(a["confidence"] >= b["confidence"] for a, b in zip(hits, hits[1:], strict=False))


@pytest.mark.slow
def test_a_down_vote_moves_the_passage_below_better_hits_at_once(vault, cli, real_embedder):
    write(
        vault,
        "policies/Remote work.md",
        "# Remote work\n\nEmployees may work from home on up to three days per week.\n",
    )
    write(
        vault,
        "wiki/Working from home.md",
        "# Working from home\n\nStaff can work remotely two days a week, agreed with their lead.\n",
    )
    write(vault, "wiki/Canteen.md", "# Canteen\n\nThe canteen serves lunch from noon to two in the afternoon.\n")
    cli.json("index", "--json")
    question = "How many days a week can I work from home?"
    before = cli.json("query", question, "--json")
    assert {h["path"] for h in before[:2]} == {"policies/Remote work.md", "wiki/Working from home.md"}
    result = cli.json("feedback", "--rank", "1", "--down", "--json")
    assert result["chunk_id"] == before[0]["chunk_id"] and result["trust_after"] < result["trust_before"]
    after = ask(cli, question)
    assert after[0]["chunk_id"] == before[1]["chunk_id"]  # the next query, not after more votes
    voted = next(h for h in after if h["chunk_id"] == before[0]["chunk_id"])
    assert voted["confidence"] < after[0]["confidence"] and falls_down_the_list(after)


@pytest.mark.slow
def test_a_correction_answers_next_time_and_the_partly_right_passage_stays_findable(vault, cli, real_embedder):
    write(vault, "office/Parking.md", "# Parking\n\nVisitor parking is in lot C behind the building.\n")
    write(vault, "office/Bikes.md", "# Bikes\n\nBicycles go in the locked shed next to the main entrance.\n")
    write(
        vault,
        "office/Deliveries.md",
        "# Deliveries\n\nParcels are delivered to the reception desk on the ground floor.\n",
    )
    cli.json("index", "--json")
    question = "Where can visitors park their car?"
    before = cli.json("query", question, "--json")
    assert before[0]["path"] == "office/Parking.md"
    result = cli.json(
        "feedback",
        "--rank",
        "1",
        "--correct",
        "Lot C is reserved for visitors on weekdays only; at weekends they use lot D.",
        "--json",
    )
    assert result["trust_after"] > result["trust_before"] / 2  # partly right: a step towards neutral, not to the floor
    for asked in (question, "visitor parking at the weekend"):
        hits = ask(cli, asked)
        assert hits[0]["chunk_id"] == result["correction_chunk_id"], asked
        old = next(i for i, h in enumerate(hits) if h["path"] == "office/Parking.md")
        assert old < 3 and f"corrected by {result['correction_chunk_id']}" in hits[old]["warnings"]
        assert falls_down_the_list(hits)


def test_rank_after_an_untracked_query_names_the_hit_the_user_saw(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nThe deploy window is Tuesday afternoon.\n")
    write(vault, "b.md", "# B\n\nThe lunch menu changes every Friday.\n")
    cli.json("index", "--json")
    tracked = cli.json("query", "deploy window Tuesday afternoon", "--json")
    untracked = cli.json("query", "lunch menu Friday", "--json", "--no-track")
    assert tracked[0]["chunk_id"] != untracked[0]["chunk_id"]
    assert cli.json("feedback", "--rank", "1", "--up", "--json")["chunk_id"] == untracked[0]["chunk_id"]
    again = cli.json("query", "deploy window Tuesday afternoon", "--json")  # tracked again: its hits are named
    assert cli.json("feedback", "--rank", "1", "--down", "--json")["chunk_id"] == again[0]["chunk_id"]
    cli.json("query", "something nobody wrote about at all", "--json", "--no-track", "--top-k", "1")
    result = cli("feedback", "--rank", "2", "--up")
    assert result.exit_code == 2 and "has no hit ranked 2" in result.stderr  # never the older query's hit
