"""``bench history`` on a small git history built here: the question set git gives (edited, moved, split,
deleted, now) with the right times, and the tally of an end-to-end run (fake embedder)."""

import os
import subprocess
from pathlib import Path

import pytest

from smartvec_cli.bench.history import (
    OUTCOMES,
    PAST_KINDS,
    GitAccount,
    evenly_spaced,
    history_markdown,
    judge,
    midpoint,
    run_history,
    snapshots,
)

GARDEN = "The garden has three apple trees and a small greenhouse for tomatoes near the fence."
GARDEN_NEW = "The garden has four apple trees and a large greenhouse for tomatoes near the fence."
WATER = "We water the vegetable beds every morning before eight with the rain barrel."
PANCAKE = "The pancake batter needs two eggs, a cup of flour and a splash of milk whisked together."
SOUP = "The soup simmers for forty minutes with carrots, leeks and a bay leaf from the pantry."
BIKES = "The garage holds a bicycle repair stand, a floor pump and a box of spare inner tubes."
BIKES_NEW = "The garage holds a bicycle repair stand, a track pump and a box of spare inner tubes."
TOOLS = "The shed keeps the hedge trimmer, a rusty saw and two pairs of thick leather gloves."
TRIPS = "The summer trip goes to the lakes by train, with tents and sleeping bags in the big rucksack."
BIRDS = "Blackbirds nest in the ivy on the north wall every spring and sing before dawn."
FEEDER = "The bird feeder hangs from the plum tree and gets sunflower seeds twice a week."
COMET = "A comet crossed the winter sky and the telescope on the balcony showed its pale tail."

DATES = ["2020-01-01T12:00:00Z", "2021-01-01T12:00:00Z", "2022-01-01T12:00:00Z", "2023-01-01T12:00:00Z"]


def note(title: str, *paras: str) -> str:
    return f"# {title}\n\n" + "\n\n".join(paras) + "\n"


def commit(repo: Path, files: dict[str, str | None], date: str) -> None:
    for path, text in files.items():
        target = repo / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    env = {**os.environ, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--date",
            date,
            "-m",
            date,
        ],
        check=True,
        env=env,
    )


@pytest.fixture
def history_repo(tmp_path) -> Path:
    """Four commits: an edit in place, a move with an edit, a rename without one, a split that keeps the note, a
    deletion, and a note split into two new ones; then a note of new text."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    commit(
        repo,
        {
            "garden.md": note("Garden", GARDEN, WATER),
            "recipes.md": note("Recipes", PANCAKE, SOUP),
            "old/bikes.md": note("Bikes", BIKES),
            "tools.md": note("Tools", TOOLS),
            "trips.md": note("Trips", TRIPS),
            "wildlife.md": note("Wildlife", BIRDS, FEEDER),
        },
        DATES[0],
    )
    commit(
        repo,
        {
            "garden.md": note("Garden", GARDEN_NEW, WATER),
            "old/bikes.md": None,
            "gear/bikes.md": note("Bikes", BIKES_NEW),
            "tools.md": None,
            "shed/tools.md": note("Tools", TOOLS),
        },
        DATES[1],
    )
    commit(
        repo,
        {
            "trips.md": None,
            "recipes.md": note("Recipes", PANCAKE),
            "soups.md": note("Soups", SOUP),
        },
        DATES[2],
    )
    commit(
        repo,
        {
            "wildlife.md": None,
            "birds.md": note("Birds", BIRDS),
            "feeder.md": note("Feeder", FEEDER),
            "sky.md": note("Sky", COMET),
        },
        DATES[3],
    )
    return repo


def test_git_gives_each_kind_of_change_with_its_times(history_repo):
    git, chosen = snapshots(history_repo, None)
    assert [s.date for s in chosen] == DATES
    account = GitAccount(git, chosen)
    past = {(p.kind, p.path, p.old): p for p in account.past}
    edited = past["edited", "garden.md", GARDEN]
    assert (edited.new, edited.since, edited.until) == (GARDEN_NEW, DATES[0], DATES[1])
    moved = past["moved", "old/bikes.md", BIKES]
    assert (moved.new, moved.to, moved.until) == (BIKES_NEW, "gear/bikes.md", DATES[1])
    renamed = past["moved", "tools.md", TOOLS]
    assert (renamed.new, renamed.to) == (TOOLS, "shed/tools.md")
    kept_split = past["split", "recipes.md", SOUP]
    assert (kept_split.to, kept_split.since, kept_split.until) == ("soups.md", DATES[0], DATES[2])
    deleted = past["deleted", "trips.md", TRIPS]
    assert (deleted.new, deleted.since, deleted.until) == (None, DATES[0], DATES[2])
    assert {past["split", "wildlife.md", BIRDS].to, past["split", "wildlife.md", FEEDER].to} == {
        "birds.md",
        "feeder.md",
    }
    assert len(account.past) == 7  # WATER and PANCAKE stayed where they were
    assert {p for _, p in account.current()} == {
        GARDEN_NEW,
        WATER,
        PANCAKE,
        SOUP,
        BIKES_NEW,
        TOOLS,
        BIRDS,
        FEEDER,
        COMET,
    }


def test_git_says_when_a_text_was_anywhere(history_repo):
    git, chosen = snapshots(history_repo, None)
    account = GitAccount(git, chosen)
    assert account.at(midpoint(DATES[0], DATES[2])) == 0 and account.at(midpoint(DATES[1], DATES[3])) == 2
    assert account.when("soups.md", SOUP, 0) == "there"  # it was in recipes.md then
    assert account.when("sky.md", "Sky › " + COMET, 1) == "later"
    assert account.when("trips.md", TRIPS, 3) == "earlier"
    assert account.when("nowhere.md", COMET, 3) is None


def test_the_newer_text_is_stale_only_in_its_own_note(history_repo):
    git, chosen = snapshots(history_repo, None)
    account = GitAccount(git, chosen)
    edit = next(p for p in account.past if p.kind == "edited")
    assert judge({"path": "garden.md", "text": "Garden › " + GARDEN}, edit, account, 0) == "right"
    assert judge({"path": "garden.md", "text": GARDEN_NEW}, edit, account, 0) == "stale"
    assert judge({"path": "recipes.md", "text": GARDEN_NEW}, edit, account, 0) == "other"
    moved = next(p for p in account.past if p.path == "old/bikes.md")
    assert judge({"path": "gear/bikes.md", "text": BIKES_NEW}, moved, account, 0) == "stale"
    deleted = next(p for p in account.past if p.kind == "deleted")
    assert judge({"path": "sky.md", "text": COMET}, deleted, account, 1) == "not_yet_valid"
    assert judge({"path": "soups.md", "text": SOUP}, deleted, account, 1) == "other"  # in recipes.md then
    assert judge(None, deleted, account, 1) == "other"


def test_snapshots_are_evenly_spaced():
    assert evenly_spaced(4, None) == [0, 1, 2, 3]
    assert evenly_spaced(10, 4) == [0, 3, 6, 9]
    assert evenly_spaced(3, 10) == [0, 1, 2]


def test_the_run_asks_every_kind_and_tallies_each(history_repo, tmp_path, fake_embedder):
    report, records = run_history(history_repo, tmp_path / "work", per_kind=10)
    assert report["commits_replayed"] == 4 and not report["sampled"]
    asked = {kind: [r for r in records if r["kind"] == kind] for kind in (*PAST_KINDS, "now")}
    assert {kind: len(rows) for kind, rows in asked.items()} == {
        "edited": 1,
        "moved": 2,
        "split": 3,
        "deleted": 1,
        "now": 9,
    }
    for row in records:
        if row["kind"] == "now":
            assert row["as_of"] is None
        else:
            assert row["since"] < row["as_of"] < row["until"] and row["as_of"] == midpoint(row["since"], row["until"])
    assert asked["edited"][0]["as_of"] == midpoint(DATES[0], DATES[1])
    assert asked["deleted"][0]["old"] == TRIPS and asked["deleted"][0]["until"] == DATES[2]
    for mode in ("smart", "cosine"):
        results = report["results"][mode]
        for kind in (*PAST_KINDS, "now", "past"):
            assert results[kind]["questions"] == sum(results[kind]["counts"].values()) > 0
        assert results["past"]["questions"] == 7
        for outcome in OUTCOMES:
            assert (
                sum(r[mode]["outcome"] == outcome for r in records if r["kind"] != "now")
                == results["past"]["counts"][outcome]
            )
        assert {r[mode]["outcome"] for r in records} <= set(OUTCOMES)
    assert report["results"]["smart"]["now"]["shares"]["right"] == 1.0  # bag-of-words vectors of its own words
    assert (
        report["results"]["smart"]["edited"]["shares"]["right"] == 1.0
    )  # the old text, not the newer one, at its time
    assert "| past: deleted | 1 |" in history_markdown(report)


def test_a_sample_of_snapshots_is_replayed_as_its_own_history(history_repo, tmp_path, fake_embedder):
    report, records = run_history(history_repo, tmp_path / "work", max_commits=3, per_kind=10)
    assert report["sampled"] and report["snapshots"] == 3 and report["commits_replayed"] == 3
    assert (report["first_date"], report["last_date"]) == (DATES[0], DATES[3])
    deleted = [r for r in records if r["kind"] == "deleted"]
    assert [(r["old"], r["since"], r["until"]) for r in deleted] == [(TRIPS, DATES[0], DATES[2])]
    again, _ = run_history(history_repo, tmp_path / "again", max_commits=3, per_kind=10)
    assert again["results"] == report["results"] and not again["index_reused"]
    reused, _ = run_history(history_repo, tmp_path / "work", max_commits=3, per_kind=10)
    assert reused["index_reused"] and reused["commits_replayed"] == 0 and reused["results"] == report["results"]
