"""A vault's past: notes that appear later were not always there, and where each validity bound came from (real
model)."""

import json

import pytest
from conftest import Repo, both_stores, write

pytestmark = pytest.mark.slow

BIKES = "# Bikes\n\nThe garage has a bicycle repair stand, a floor pump and a box of spare inner tubes.\n"
GARAGE = "# Garage\n\nThe garage holds the car, the lawn mower and shelves of paint tins.\n"
KITCHEN = "# Kitchen\n\nThe kitchen has a gas stove, a dishwasher and a coffee grinder on the counter.\n"
BIKE_QUESTION = "Is there a bicycle repair stand in the garage?"


def query(cli, *args):
    return cli.json("query", *args, "--json", "--no-track", "--explain")


@pytest.fixture
def bikes_vault(vault, cli, real_embedder, monkeypatch):
    """Indexed since 2020; bikes.md appears in 2023, an edit to garage.md in 2022."""
    write(vault, "garage.md", GARAGE)
    write(vault, "kitchen.md", KITCHEN)
    monkeypatch.setenv("SMARTVEC_NOW", "2020-01-01")
    cli.json("index", "--json")
    write(vault, "garage.md", GARAGE + "\nA workbench stands along the back wall.\n")
    monkeypatch.setenv("SMARTVEC_NOW", "2022-01-01")
    cli.json("index", "--json")
    write(vault, "bikes.md", BIKES)
    monkeypatch.setenv("SMARTVEC_NOW", "2023-03-01")
    cli.json("index", "--json")
    return vault


def test_a_note_that_appears_later_was_not_there_before(bikes_vault, cli):
    hits = query(cli, BIKE_QUESTION, "--as-of", "2021-01-01")
    bikes = [h for h in hits if h["path"] == "bikes.md"]
    assert hits[0]["path"] != "bikes.md" or any("not yet valid" in w for w in hits[0]["warnings"])
    for hit in bikes:
        assert hit["valid_from"] == "2023-03-01T00:00:00Z"
        assert any("not yet valid on 2021-01-01 (from 2023-03-01)" in w for w in hit["warnings"])
        assert hit["explain"]["valid_from_source"] == "observed"
    now = query(cli, BIKE_QUESTION, "--as-of", "2024-01-01")[0]
    assert now["path"] == "bikes.md" and not now["warnings"]


def test_notes_of_the_first_index_keep_an_unknown_start(bikes_vault, cli):
    hit = query(cli, "What does the kitchen have on the counter?", "--as-of", "2019-01-01")[0]
    assert hit["path"] == "kitchen.md" and hit["valid_from"] is None
    assert hit["explain"]["valid_from_source"] is None
    assert hit["warnings"] == [
        "nothing is known before 2020-01-01; this is the text first seen then"
    ]  # valid, yet never seen then


def test_an_earlier_plausible_date_of_a_new_note_is_its_start(bikes_vault, cli, monkeypatch):
    write(bikes_vault, "shed.md", "---\ndate: 2021-06-01\n---\n# Shed\n\nThe shed stores the canoe and two paddles.\n")
    write(bikes_vault, "future.md", "---\ndate: 2030-01-01\n---\n# Future\n\nThe attic will get a skylight.\n")
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")
    cli.json("index", "--json")
    shed = cli.json("show", "shed.md", "--json")["passages"][0]
    assert (shed["valid_from"], shed["valid_from_source"]) == ("2021-06-01T00:00:00Z", "inferred")
    future = cli.json("show", "future.md", "--json")["passages"][0]
    assert future["valid_from"] == "2030-01-01T00:00:00Z" and future["valid_from_source"] == "inferred"


@both_stores
def test_explain_and_history_say_where_each_bound_came_from(bikes_vault, cli):
    versions = cli.json("history", "garage.md", "--json")["passages"]
    added = [v for p in versions for v in p["versions"] if "workbench" in v["text"]]
    assert added and added[0]["valid_from"] == "2022-01-01T00:00:00Z" and added[0]["valid_from_source"] == "observed"
    hit = query(cli, "Where is the workbench?", "--as-of", "2023-01-01")[0]
    assert "workbench" in hit["text"] and hit["explain"]["valid_from_source"] == "observed"


# -- a vault's past from git --------------------------------------------------------------------

EQUIPMENT = (
    "\n## Equipment\n\nThe company pays for a desk chair, a monitor and a headset for the home office, up to 600 euros "
    "every three years. Receipts go to the finance team within a month of the purchase. Broken equipment is "
    "replaced through the IT service desk, which ships the replacement to the employee's home address.\n"
)
REMOTE_V1 = "# Remote work\n\nEmployees may work from home on up to 2 days per week.\n" + EQUIPMENT
REMOTE_V2 = (
    "# Remote work\n\nEmployees may work from home on up to 3 days per week; Tuesday and Thursday are office days.\n"
    + EQUIPMENT
)
REMOTE_V3 = (
    "# Remote work\n\nThe company is fully remote: every working day may be worked from home, with 4 office days per "
    "quarter.\n" + EQUIPMENT
)
REMOTE_QUESTION = "How many days per week can I work from home?"


@pytest.fixture
def git_vault(vault, real_embedder):
    """Five years of a vault's history: add, edit, rename with an edit, a merged side branch, a deletion."""
    repo = Repo(vault)
    repo.commit("2019-01-10", "start", {"policies/remote.md": REMOTE_V1, "kitchen.md": KITCHEN})
    repo.commit("2020-06-01", "three days", {"policies/remote.md": REMOTE_V2})
    repo.commit(
        "2021-03-01",
        "move and go remote",
        {"handbook/remote-work.md": REMOTE_V3},
        move=("policies/remote.md", "handbook/remote-work.md"),
    )
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("2021-04-01", "draft", {"draft.md": "# Draft\n\nA half-written idea about the garden shed.\n"})
    repo.commit(
        "2021-04-02",
        "garden instead",
        {"garden.md": "# Garden\n\nThe garden has three apple trees and a compost heap.\n"},
        remove=("draft.md",),
    )
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side", date="2021-05-01")
    repo.commit("2022-01-01", "bikes", {"bikes.md": BIKES})
    repo.commit("2022-06-01", "no kitchen", remove=("kitchen.md",))
    return repo


def test_git_history_answers_as_of_questions_with_commit_dates(git_vault, cli, monkeypatch):
    before = git_vault.git("status", "--porcelain")
    data = cli.json("index", "--from-git", "--json")
    assert data["commits_replayed"] == 6 and data["notes_renamed"] == 1 and data["notes_deleted"] == 1
    assert git_vault.git("status", "--porcelain") == before  # the repository and its notes are untouched
    monkeypatch.setenv("SMARTVEC_NOW", "2026-01-01")

    assert "2 days per week" in query(cli, REMOTE_QUESTION, "--as-of", "2019-06-01")[0]["text"]
    hit = query(cli, REMOTE_QUESTION, "--as-of", "2020-12-01")[0]
    assert "3 days per week" in hit["text"]
    assert (hit["valid_from"], hit["explain"]["valid_from_source"]) == ("2020-06-01T12:00:00Z", "git")
    assert (hit["valid_until"], hit["explain"]["valid_until_source"]) == ("2021-03-01T12:00:00Z", "git")
    now = query(cli, REMOTE_QUESTION)[0]
    assert "fully remote" in now["text"] and now["path"] == "handbook/remote-work.md"
    assert now["chunk_id"].startswith("handbook/remote-work#")  # the id follows the renamed note
    chain = cli.json(
        "history", "policies/remote.md", "--json"
    )  # its old path still names it: its versions are one chain
    assert chain["path"] == "handbook/remote-work.md" and [f["path"] for f in chain["former_names"]] == [
        "policies/remote.md"
    ]
    versions = next(p["versions"] for p in chain["passages"] if p["chunk_id"] == now["chunk_id"])
    assert len(versions) == 3 and "2 days per week" in versions[0]["text"]
    first = query(cli, REMOTE_QUESTION, "--as-of", "2019-06-01")[0]
    assert first["valid_from"] is None and first["explain"]["valid_from_source"] is None  # present at the first commit

    bikes = [h for h in query(cli, BIKE_QUESTION, "--as-of", "2021-06-01") if h["path"] == "bikes.md"]
    assert all(
        h["valid_from"] == "2022-01-01T12:00:00Z" and any("not yet valid" in w for w in h["warnings"]) for h in bikes
    )
    garden = cli.json("show", "garden.md", "--json")["passages"][0]
    assert (garden["valid_from"], garden["valid_from_source"]) == (
        "2021-05-01T12:00:00Z",
        "git",
    )  # arrived with the merge
    assert cli("show", "draft.md").exit_code != 0  # the side branch's back-and-forth is not replayed
    assert all(h["path"] != "kitchen.md" for h in query(cli, "What does the kitchen have on the counter?"))


def test_a_second_git_import_replays_only_the_new_commits(git_vault, cli):
    cli.json("index", "--from-git", "--json")
    sha = git_vault.commit(
        "2023-02-01", "bikes grow", {"bikes.md": BIKES + "\nA cargo bike hangs from the ceiling hook.\n"}
    )
    data = cli.json("index", "--from-git", "--json")
    assert (data["commits_replayed"], data["from_commit"], data["to_commit"]) == (1, sha, sha)
    assert data["notes_changed"] == 1 and data["notes_new"] == 0
    assert cli.json("index", "--from-git", "--json")["commits_replayed"] == 0
    hit = query(cli, "Where does the cargo bike hang?", "--as-of", "2023-06-01")[0]
    assert "cargo bike" in hit["text"] and hit["valid_from"] == "2023-02-01T12:00:00Z"


def test_git_import_refuses_what_it_cannot_do(vault, cli, fake_embedder):
    result = cli("index", "--from-git")
    assert result.exit_code == 2 and "not inside a git repository" in result.stderr
    Repo(vault).commit("2020-01-01", "one", {"a.md": "# A\n\nText.\n"})
    cli.json("index", "--json")
    result = cli("index", "--from-git")
    assert result.exit_code == 2 and "built from the vault's files" in result.stderr


def snapshot_then_edits(vault) -> Repo:
    """A vault put in git whole (40 notes in its first commit), then edited twice."""
    repo = Repo(vault)
    repo.commit(
        "2020-01-01",
        "everything so far",
        {f"n{n}.md": f"# Note {n}\n\nParagraph {n} about the roadmap.\n" for n in range(40)},
    )
    repo.commit("2020-02-01", "one edit", {"n1.md": "# Note 1\n\nParagraph 1 about the budget instead.\n"})
    repo.commit("2020-03-01", "one more", {"n2.md": "# Note 2\n\nParagraph 2 about the hiring plan.\n"})
    return repo


def test_git_import_reports_commits_and_passages_before_the_first_commit_is_replayed(vault, fake_embedder):
    import smartvec_cli
    from smartvec_cli.core.progress import COMMITS

    snapshot_then_edits(vault)
    reports = []
    with smartvec_cli.open_vault(vault) as opened:
        data = opened.index(from_git=True, progress=reports.append)

    first_replayed = next(i for i, r in enumerate(reports) if r.done == 1)
    before = reports[:first_replayed]
    assert {r.unit for r in reports} == {COMMITS} and {r.total for r in reports[1:]} == {3}
    assert [r.step for r in before[:3]] == ["reading the history", "reading commits 1-3", "loading the model"]
    embedding = [r for r in before if r.step == "embedding the passages of commits 1-3"]
    assert [(r.step_done, r.step_total) for r in embedding] == [
        (32, 42),
        (42, 42),
    ]  # the snapshot and both edits, in batches of 32
    assert [r.embedded for r in embedding] == [32, 42]
    assert before[-1].step == "replaying commit 1 (2020-01-01)" and all(r.done == 0 for r in before)
    assert [(r.done, r.embedded) for r in reports if r.step is None] == [(1, 42), (2, 42), (3, 42)]
    assert data.passages_embedded == 42


def test_git_import_progress_lines_say_commits_and_passages_and_stay_off_json_and_quiet(
    vault, cli, fake_embedder, monkeypatch
):
    monkeypatch.setattr("smartvec_cli.cli.output.PROGRESS_EVERY_SECONDS", 0.0)
    snapshot_then_edits(vault)
    result = cli("--index-dir", str(vault.parent / "as-json"), "index", "--from-git", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["commits_replayed"] == 3
    lines = [line for line in result.stderr.splitlines() if line.startswith("git history: ")]
    assert lines[0] == "git history: reading the history"
    assert "git history: 0/3 commits (0%), embedding the passages of commits 1-3: 32/42 passages" in lines
    assert lines.index("git history: 0/3 commits (0%), loading the model") < lines.index(
        next(line for line in lines if line.startswith("git history: 1/3 commits"))
    )
    assert lines[-1].startswith("git history: 3/3 commits (100%), 42 passages embedded, ")
    assert lines[-1].endswith(" passages/s")

    quiet = cli("--index-dir", str(vault.parent / "quiet"), "index", "--from-git", "--quiet")
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")


# -- version chains through real editing ------------------------------------------------------------

HOUSE = "# House\n\n## Heating\n\n{heating}\n\n## Water\n\n{water}\n"
A_2020 = "The boiler is serviced every October by Nordic Heat, and a service visit costs 180 euros."
A_2021 = "Nordic Heat services the boiler each October; a service visit now costs 210 euros."  # reworded
A1_2022 = "Nordic Heat services the boiler each October."  # split in two
A2_2022 = "A service visit now costs 240 euros, paid by the landlord."
B = "The water meter is read in the cellar on the first Monday of each month."
C = "The main water valve is behind the cellar door, painted red."
BC_2023 = (
    "The water meter in the cellar is read on the first Monday of each month; the main water valve is behind "
    "the cellar door, painted red."
)
A2_2024 = "A service visit costs 240 euros, which the landlord pays."  # moved to the water section and reworded
COST = "How much does a boiler service visit cost?"
VALVE = "Where is the main water valve?"


@pytest.fixture
def edited_house(vault, cli, real_embedder, monkeypatch):
    """One note replayed through a rewording, a split, a merge and a move, each indexed at its own date."""
    versions = (
        ("2020-01-01", A_2020, f"{B}\n\n{C}"),
        ("2021-01-01", A_2021, f"{B}\n\n{C}"),
        ("2022-01-01", f"{A1_2022}\n\n{A2_2022}", f"{B}\n\n{C}"),
        ("2023-01-01", f"{A1_2022}\n\n{A2_2022}", BC_2023),
        ("2024-01-01", A1_2022, f"{BC_2023}\n\n{A2_2024}"),
    )
    for when, heating, water in versions:
        write(vault, "house.md", HOUSE.format(heating=heating, water=water))
        monkeypatch.setenv("SMARTVEC_NOW", when)
        cli.json("index", "--json")
    monkeypatch.setenv("SMARTVEC_NOW", "2025-01-01")
    return vault


def chains(cli) -> dict[str, list[str]]:
    """Each passage's texts, oldest version first."""
    return {
        p["chunk_id"]: [v["text"] for v in p["versions"]] for p in cli.json("history", "house.md", "--json")["passages"]
    }


@both_stores
def test_the_version_chain_follows_rewording_split_merge_and_move(edited_house, cli):
    found = chains(cli)
    assert [A_2020, A_2021, A1_2022] in found.values()  # reworded, then the larger half of the split
    assert [A2_2022, A2_2024] in found.values()  # the other half, moved to another section and reworded
    merged_into = [
        v for p in cli.json("history", "house.md", "--json")["passages"] for v in p["versions"] if v["text"] in (B, C)
    ]
    assert len(merged_into) == 2 and all(
        v["replaced_by"] and v["valid_until"] == "2023-01-01T00:00:00Z" for v in merged_into
    )
    assert all(v["valid_until_source"] == "observed" for v in merged_into)


@both_stores
def test_each_old_text_answers_for_its_time(edited_house, cli):
    for when, expected in (
        ("2020-06-01", A_2020),
        ("2021-06-01", A_2021),
        ("2022-06-01", A2_2022),
        ("2024-06-01", A2_2024),
    ):
        hit = query(cli, COST, "--as-of", when)[0]
        assert hit["text"] == expected, (when, hit["text"])
    old = query(cli, VALVE, "--as-of", "2022-06-01")[0]
    assert old["text"] == C and any(w.startswith("superseded by") for w in old["warnings"])
    assert query(cli, VALVE)[0]["text"] == BC_2023


def test_the_explain_table_shows_each_bound_and_its_source(bikes_vault, cli):
    from smartvec_cli.cli.printing import validity

    hit = query(cli, BIKE_QUESTION)[0]
    assert validity(hit) == "2023-03-01 observed – open"
    kitchen = query(cli, "What does the kitchen have on the counter?")[0]
    assert validity(kitchen) == "always – open"
    result = cli("query", BIKE_QUESTION, "--explain", "--no-track")
    assert result.exit_code == 0 and "valid" in result.stdout
