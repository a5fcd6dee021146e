"""Time-aware answers at the edges of what is known: expired knowledge answers with its warning, text that
left the vault says how it left, and a time before the first index says that nothing is known of it."""

import datetime as dt

import pytest
from conftest import both_stores, write

from smartvec_cli.memory.passage import Passage
from smartvec_cli.memory.ranking import (
    FIRST_SEEN_LATER_CONFIDENCE_FACTOR,
    Ask,
    expired_last_word,
    first_seen_later,
    hit_confidence,
    time_warnings,
)
from smartvec_cli.memory.scoring import Calibration

QUESTION = "What is the staff parking fee per month?"
VERSION = (
    "---\ntitle: Parking Rules v{n}\nsource_type: policy\nversion: {n}\nvalid_from: {start}\nvalid_to: {end}\n"
    "{supersedes}---\n"
    "# Parking Rules v{n}\n\n## Fee\n\nThe staff parking fee is EUR {fee} per month in the garage.\n"
)
LUNCH = "# Lunch\n\nThe canteen opens at noon on weekdays.\n"


def write_versions(vault) -> None:
    """Three versions of one rule, each superseding the one before, the last closed on 2009-12-30."""
    write(vault, "parking-v1.md", VERSION.format(n=1, start="2005-01-01", end="2007-01-01", supersedes="", fee=20))
    write(
        vault,
        "parking-v2.md",
        VERSION.format(n=2, start="2007-01-01", end="2008-06-30", supersedes="supersedes: Parking Rules v1\n", fee=30),
    )
    write(
        vault,
        "parking-v3.md",
        VERSION.format(n=3, start="2008-06-30", end="2009-12-30", supersedes="supersedes: Parking Rules v2\n", fee=40),
    )
    write(vault, "lunch.md", LUNCH)


@pytest.fixture
def expired_chain(vault, cli, fake_embedder):
    """Every version of the parking rule expired long before the index was built, and consolidated: all archived."""
    write_versions(vault)
    cli.json("--now", "2026-01-01", "index", "--json")
    summary = cli.json("--now", "2026-01-01", "consolidate", "--json")
    assert summary["transitions"]["UNCONSOLIDATED->ARCHIVED"] == 3
    return vault


def ask(cli, *options, question=QUESTION):
    return cli.json("--now", "2026-01-01", "query", question, "--json", "--no-track", *options)


def test_a_question_about_now_gets_the_head_of_an_expired_chain_with_its_warning(expired_chain, cli):
    hits = ask(cli)
    assert hits, "expired knowledge must answer rather than nothing"
    head = hits[0]
    assert (head["chunk_id"], head["state"]) == ("parking-v3#fee", "ARCHIVED")
    assert "EUR 40" in head["text"]
    assert head["warnings"] == ["expired on 2009-12-30"]
    assert head["confidence"] < 0.15  # a tenth: it is what was last true, not a current answer
    assert not [
        h for h in hits if h["chunk_id"] in ("parking-v1#fee", "parking-v2#fee")
    ]  # the versions it replaced stay history
    terminal = cli("--now", "2026-01-01", "query", QUESTION, "--no-track")
    assert "expired on 2009-12-30" in terminal.stdout and "no relevant passage" not in terminal.stdout


def test_include_archived_puts_the_head_before_the_versions_it_replaced(expired_chain, cli):
    hits = ask(cli, "--include-archived")
    assert [h["chunk_id"] for h in hits[:3]][0] == "parking-v3#fee"
    assert sorted(h["chunk_id"] for h in hits[1:3]) == ["parking-v1#fee", "parking-v2#fee"]
    assert hits[0]["warnings"] == ["expired on 2009-12-30"]
    assert all(w.startswith("superseded by") for h in hits[1:3] for w in h["warnings"])
    assert all("removed from its note" not in w for h in hits for w in h["warnings"])


def test_a_question_about_a_later_time_gets_the_head_too(expired_chain, cli):
    hits = ask(cli, "--as-of", "2030-06-01")
    assert hits[0]["chunk_id"] == "parking-v3#fee" and hits[0]["warnings"] == ["expired on 2009-12-30"]
    during = ask(cli, "--as-of", "2008-01-15")  # the time v2 was in force: it answers, and did not expire then
    assert during[0]["chunk_id"] == "parking-v2#fee"
    assert not [w for w in during[0]["warnings"] if w.startswith("expired")]


def test_expired_knowledge_stays_out_while_a_current_passage_answers(vault, cli, fake_embedder):
    write_versions(vault)
    write(vault, "faq.md", "# Parking FAQ\n\n## Fee\n\nThe staff parking fee is EUR 55 per month in the garage.\n")
    cli.json("--now", "2026-01-01", "index", "--json")
    cli.json("--now", "2026-01-01", "consolidate", "--json")
    hits = ask(cli)
    assert hits[0]["chunk_id"] == "faq#fee"
    assert not [w for h in hits for w in h["warnings"] if w.startswith("expired")]
    assert all(h["state"] != "ARCHIVED" for h in hits)


def test_a_paragraph_an_edit_took_out_says_removed_from_its_note(vault, cli, fake_embedder):
    note = write(
        vault,
        "garage.md",
        "# Garage\n\nThe garage gate code is 4711 for staff.\n\nVisitors park on level two of the garage.\n",
    )
    cli.json("--now", "2026-01-01", "index", "--json")
    note.write_text("# Garage\n\nVisitors park on level two of the garage.\n", encoding="utf-8")
    cli.json("--now", "2026-02-01", "index", "--json")
    cli.json("--now", "2026-02-01", "consolidate", "--json")
    hits = cli.json(
        "--now",
        "2026-03-01",
        "query",
        "What is the garage gate code for staff?",
        "--json",
        "--no-track",
        "--include-archived",
    )
    removed = next(h for h in hits if "4711" in h["text"])
    assert removed["state"] == "ARCHIVED"
    assert removed["warnings"] == ["removed from its note on 2026-02-01"]
    plain = cli.json("--now", "2026-03-01", "query", "What is the garage gate code for staff?", "--json", "--no-track")
    assert "4711" not in " ".join(h["text"] for h in plain)  # removed text is history, not expired knowledge


def archive_as_deleted(path: str, deleted_at: str) -> None:
    """What the store holds for a note found gone: the note marked deleted, its passages archived with
    their window closed at that run (``deleted_at``) and no longer current."""
    from smartvec_cli.core.workspace import Workspace

    with Workspace.resolve().open_store() as store, store.write():
        note = store.db.execute("SELECT id FROM notes WHERE path = ?", [path]).fetchone()[0]
        store.db.execute("UPDATE notes SET deleted_at = ? WHERE id = ?", [deleted_at, note])
        store.db.execute(
            "UPDATE chunks SET state = 'ARCHIVED', current = 0, valid_until = ?, until_source = 'observed' WHERE "
            "note = ?",
            [deleted_at, note],
        )


@both_stores
def test_an_archived_passage_of_a_deleted_note_says_its_note_was_deleted(vault, cli, fake_embedder):
    write(vault, "garage.md", "# Garage\n\nThe garage gate code is 4711 for staff.\n")
    write(vault, "lunch.md", LUNCH)
    cli.json("--now", "2026-01-01", "index", "--json")
    cli.json("--now", "2026-01-01", "consolidate", "--json")
    archive_as_deleted("garage.md", "2026-02-01T00:00:00Z")
    question = "What is the garage gate code for staff?"
    hits = cli.json("--now", "2026-03-01", "query", question, "--json", "--no-track", "--include-archived")
    gone = next(h for h in hits if "4711" in h["text"])
    assert gone["state"] == "ARCHIVED"
    assert gone["warnings"] == ["its note was deleted on 2026-02-01"]
    plain = cli.json("--now", "2026-03-01", "query", question, "--json", "--no-track")
    assert "4711" not in " ".join(h["text"] for h in plain)  # a deleted note's text is history, not expired knowledge
    before = cli.json("--now", "2026-03-01", "query", question, "--json", "--no-track", "--as-of", "2026-01-15")
    assert "4711" in before[0]["text"] and before[0]["warnings"] == [
        "its note was deleted on 2026-02-01"
    ]  # valid then, said to be gone


def passage(**values) -> Passage:
    base = dict(
        id=1,
        note=1,
        chunk_id="n#p",
        note_id="n",
        path="n.md",
        title="N",
        heading="",
        text="t",
        state="ARCHIVED",
        version=1,
        valid_from="2020-01-01T00:00:00Z",
        from_source="declared",
        valid_until="2021-01-01T00:00:00Z",
    )
    return Passage(**{**base, **values})


def test_time_warnings_name_how_an_archived_passage_left():
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    assert time_warnings(passage(until_source="declared"), now) == ["expired on 2021-01-01"]
    assert time_warnings(passage(until_source="observed"), now) == ["removed from its note on 2021-01-01"]
    assert time_warnings(passage(until_source="git"), now) == ["removed from its note on 2021-01-01"]
    deleted = passage(until_source="observed", note_deleted_at="2021-01-01T00:00:00Z")
    assert time_warnings(deleted, now) == ["its note was deleted on 2021-01-01"]
    expired_then_deleted = passage(until_source="declared", note_deleted_at="2025-06-01T00:00:00Z")
    assert time_warnings(expired_then_deleted, now) == ["its note was deleted on 2025-06-01", "expired on 2021-01-01"]
    assert not expired_last_word(expired_then_deleted, now) and expired_last_word(passage(until_source="declared"), now)


def test_time_warnings_tell_a_retired_note_from_an_edit_that_came_before_it():
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    retired_at = "2021-01-01T00:00:00Z"
    retired = passage(until_source="inferred", note_superseded_at=retired_at, note_status="deprecated")
    assert time_warnings(retired, now) == ["its note was deprecated on 2021-01-01"]
    unread = passage(until_source="inferred", note_superseded_at=retired_at)  # a status no longer read: the state
    assert time_warnings(unread, now) == ["its note was archived on 2021-01-01"]
    edited_before = passage(until_source="observed", valid_until="2020-06-01T00:00:00Z", note_superseded_at=retired_at)
    assert time_warnings(edited_before, now) == ["removed from its note on 2020-06-01"]


GYM = "# Gym\n\nThe office gym opens at 7 am for all staff.\n"
BIKE_SCHEME = (
    "---\nsource_type: policy\nvalid_from: 2020-01-01\n---\n# Bike scheme\n\n"
    "Staff may lease one bicycle through the company scheme.\n"
)
EDGE = "nothing is known before 2026-11-01; this is the text first seen then"


@pytest.fixture
def indexed_late(vault, cli, fake_embedder):
    """A vault first indexed on 2026-11-01: one note with no dates of its own, one declaring its start in 2020."""
    write(vault, "gym.md", GYM)
    write(vault, "bikes.md", BIKE_SCHEME)
    cli.json("--now", "2026-11-01", "index", "--json")
    cli.json("--now", "2026-11-01", "consolidate", "--json")
    return vault


def asked(cli, question, *options):
    return cli.json("--now", "2026-12-01", "query", question, "--json", "--no-track", "--explain", *options)[0]


def test_a_time_before_the_first_index_is_answered_with_the_edge_of_what_is_known(indexed_late, cli):
    then = asked(cli, "When does the office gym open?", "--as-of", "2022-06-01")
    assert then["chunk_id"] == "gym#gym"
    assert then["warnings"] == [EDGE] and then["explain"]["known_at_reference"] is False
    now = asked(cli, "When does the office gym open?")
    assert (now["chunk_id"], now["warnings"]) == ("gym#gym", [])
    assert then["score"] == pytest.approx(now["score"])  # the same text, equally relevant: only the confidence says it
    assert then["confidence"] <= FIRST_SEEN_LATER_CONFIDENCE_FACTOR  # its lead differs (other hits are not valid then)
    full = hit_confidence(0.8, 0.2, 0.7, True, 1.0, Calibration())
    assert hit_confidence(0.8, 0.2, 0.7, True, 1.0, Calibration(), known=False) == pytest.approx(
        full * FIRST_SEEN_LATER_CONFIDENCE_FACTOR
    )
    words = cli(
        "--now", "2026-12-01", "query", "When did the office gym open back in 2022?", "--no-track", "--top-k", "1"
    )
    assert EDGE in words.stdout


def test_a_window_declared_before_the_first_index_is_known_then(indexed_late, cli):
    hit = asked(cli, "Can staff lease a bicycle through the company?", "--as-of", "2022-06-01")
    assert hit["chunk_id"] == "bikes#bike-scheme"
    assert hit["warnings"] == [] and hit["explain"]["known_at_reference"] is True


def test_an_index_from_git_knows_the_vault_from_its_first_commit(vault, cli, fake_embedder):
    from test_history import Repo

    from smartvec_cli.core.workspace import Workspace

    repo = Repo(vault)
    repo.commit("2019-01-10", "start", {"gym.md": GYM})
    repo.commit("2020-06-01", "later", {"gym.md": GYM.replace("7 am", "6 am")})
    cli.json("index", "--from-git", "--json")
    with Workspace.resolve().open_store() as store:
        assert store.known_since == "2019-01-10T00:00:00Z"  # the day of its first commit
    before = cli.json(
        "--now",
        "2026-01-01",
        "query",
        "When does the office gym open?",
        "--as-of",
        "2018-06-01",
        "--json",
        "--no-track",
    )[0]
    assert "7 am" in before["text"]
    assert before["warnings"][-1] == "nothing is known before 2019-01-10; this is the text first seen then"
    after = cli.json(
        "--now",
        "2026-01-01",
        "query",
        "When does the office gym open?",
        "--as-of",
        "2019-06-01",
        "--json",
        "--no-track",
    )[0]
    assert "7 am" in after["text"] and not [w for w in after["warnings"] if w.startswith("nothing is known")]
    assert before["confidence"] < after["confidence"]


def test_only_a_declared_start_makes_a_time_before_the_first_index_known():
    first_index = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
    back_then = Ask(dt.datetime(2022, 6, 1, tzinfo=dt.timezone.utc), True, known_since=first_index)
    current = dict(state="ACTIVE", valid_until=None)
    assert first_seen_later(
        passage(**current, valid_from=None, from_source=None), back_then
    )  # present at the first index
    assert first_seen_later(
        passage(**current, valid_from="2020-01-01T00:00:00Z", from_source="inferred"), back_then
    )  # its date: written then, not seen
    assert not first_seen_later(
        passage(**current, valid_from="2020-01-01T00:00:00Z", from_source="declared"), back_then
    )
    assert not first_seen_later(
        passage(**current, valid_from="2024-01-01T00:00:00Z", from_source="declared"), back_then
    )  # not valid then
    later = Ask(dt.datetime(2026, 11, 15, tzinfo=dt.timezone.utc), True, known_since=first_index)
    assert not first_seen_later(passage(**current, valid_from=None, from_source=None), later)
    assert not first_seen_later(
        passage(**current, valid_from=None, from_source=None), Ask(back_then.moment, True)
    )  # no first index known


@both_stores
def test_a_retired_note_says_it_was_archived_and_then_deleted_not_removed(vault, cli, fake_embedder):
    """A note its front matter retires (``status: archived`` or ``deprecated``) answers for its time with a warning
    that says what happened to it, in its own word, and, once it is deleted too, both; on the terminal as in JSON."""
    garage = "# Garage\n\nThe garage gate code is 4711 for staff.\n"
    canteen = "# Canteen\n\nThe canteen serves soup on Mondays for all staff.\n"
    write(vault, "garage.md", garage)
    write(vault, "canteen.md", canteen)
    write(vault, "lunch.md", LUNCH)
    cli.json("--now", "2026-01-01", "index", "--json")
    write(vault, "garage.md", "---\nstatus: archived\n---\n" + garage)
    write(vault, "canteen.md", "---\nstatus: Deprecated\n---\n" + canteen)
    cli.json("--now", "2026-02-01", "index", "--json")
    cli.json("--now", "2026-02-01", "consolidate", "--json")

    def warned(question: str, text: str, now: str = "2026-03-01") -> list[str]:
        hits = cli.json("--now", now, "query", question, "--json", "--no-track", "--as-of", "2026-01-15")
        hit = next(h for h in hits if text in h["text"])
        assert hit["state"] == "ARCHIVED"
        shown = cli("--now", now, "query", question, "--no-track", "--as-of", "2026-01-15").stdout
        assert all(f"! {w}" in shown for w in hit["warnings"]) and "removed from its note" not in shown
        return hit["warnings"]

    gate, soup = "What is the garage gate code for staff?", "What does the canteen serve on Mondays?"
    assert warned(gate, "4711") == ["its note was archived on 2026-02-01"]
    assert warned(soup, "soup") == ["its note was deprecated on 2026-02-01"]
    (vault / "garage.md").unlink()
    cli.json("--now", "2026-02-15", "index", "--json")
    cli.json("--now", "2026-02-15", "consolidate", "--json")
    assert warned(gate, "4711") == ["its note was archived on 2026-02-01 and deleted on 2026-02-15"]
