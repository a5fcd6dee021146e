"""The past never vanishes: a note moved, renamed with an edit, split or deleted still answers for its time.

One small history holds each kind of change that real vault histories have (the Obsidian hub's git history
has them all): replayed from git with the real model, and taken as snapshots by plain ``index`` runs.
"""

import pytest
from conftest import Repo, index_rows, write

PUBLISH_V1 = (
    "# Publish\n\nTo publish a site, open the Publish pane and pick the notes that go online.\n\n"
    "## Domain\n\nA custom domain for a published site costs nothing extra and is set in the site options.\n\n"
    "## Theme\n\nPublished sites show the vault's own theme unless another theme is uploaded.\n"
)
PUBLISH_V2 = PUBLISH_V1.replace("costs nothing extra", "costs five dollars a month")
PLUGINS = (
    "# Plugins\n\n## Community\n\nCommunity plugins are written by volunteers and installed from the plugin "
    "browser.\n\n"
    "## Safe mode\n\nSafe mode turns every community plugin off until you switch it back on.\n\n"
    "## Core\n\nCore plugins ship with the app, such as the daily notes and the file recovery plugin.\n\n"
    "## Recovery\n\nThe file recovery plugin keeps snapshots of every note for seven days by default.\n"
)
PLUGINS_AFTER_SPLIT = PLUGINS[: PLUGINS.index("## Core")]
CORE_PLUGINS = "# Core plugins\n\n" + PLUGINS[PLUGINS.index("## Core") :]
SYNC = (
    "# Sync\n\nSync keeps the vault the same on every device, with end-to-end encryption.\n\n"
    "## Versions\n\nVersion history in Sync keeps twelve months of changes for every note.\n"
)

DOMAIN = "How much does a custom domain for a published site cost?"
RECOVERY = "How long does the file recovery plugin keep snapshots of a note?"
VERSIONS = "How many months of changes does version history in Sync keep?"


def query(cli, *args):
    return cli.json("query", *args, "--json", "--no-track")


def stored_texts() -> set[str]:
    return {" ".join(text.split()) for (text,) in index_rows("SELECT text FROM chunks")}


def paragraphs(*notes: str) -> set[str]:
    """The body paragraphs of these notes (not their headings), as passages hold them."""
    return {" ".join(p.split()) for note in notes for p in note.split("\n\n") if p.strip() and not p.startswith("#")}


def assert_past_and_present(cli, dated):
    """As-of questions before each change find the old text; questions about now find the new."""
    before_move = query(cli, DOMAIN, "--as-of", dated["before move"])[0]
    assert "costs nothing extra" in before_move["text"]
    now = query(cli, DOMAIN)[0]
    assert "five dollars" in now["text"] and now["path"] == "site/publishing.md"

    before_split = query(cli, RECOVERY, "--as-of", dated["before split"])[0]
    assert "seven days" in before_split["text"] and before_split["path"] == "plugins.md"
    now = query(cli, RECOVERY)[0]
    assert "seven days" in now["text"] and now["path"] == "core-plugins.md"

    before_delete = query(cli, VERSIONS, "--as-of", dated["before delete"])[0]
    assert "twelve months" in before_delete["text"] and before_delete["path"] == "sync.md"
    assert all(hit["path"] != "sync.md" for hit in query(cli, VERSIONS))


def assert_lineage(cli):
    moved = cli.json("history", "guides/publish.md", "--json")  # the old path names the moved note
    assert moved["path"] == "site/publishing.md" and moved["note_id"] == "site/publishing"
    assert [f["path"] for f in moved["former_names"]] == ["guides/publish.md"]
    domain = next(p for p in moved["passages"] if any("five dollars" in v["text"] for v in p["versions"]))
    assert [("nothing extra" in v["text"], v["state"] == "ARCHIVED") for v in domain["versions"]] == [
        (True, True),
        (False, False),
    ]

    split = cli.json("history", "core-plugins.md", "--json")
    assert [(e["kind"], e.get("from")) for e in split["events"] if e["kind"] == "split"] == [("split", "plugins.md")]
    source = cli.json("history", "plugins.md", "--json")
    assert [e.get("into") for e in source["events"] if e["kind"] == "split"] == ["core-plugins.md"]
    lines = cli("history", "core-plugins.md").output
    assert "split from plugins.md on" in lines

    deleted = cli.json("history", "sync.md", "--json")
    assert deleted["deleted_at"] and all(v["state"] == "ARCHIVED" for p in deleted["passages"] for v in p["versions"])
    assert "deleted on" in cli("history", "sync.md").output


@pytest.mark.slow
def test_a_replayed_git_history_keeps_every_past(vault, cli, real_embedder, monkeypatch):
    repo = Repo(vault)
    repo.commit("2019-03-01", "start", {"guides/publish.md": PUBLISH_V1, "plugins.md": PLUGINS, "sync.md": SYNC})
    repo.commit(
        "2021-05-01",
        "move publish and price the domain",
        {"site/publishing.md": PUBLISH_V2},
        move=("guides/publish.md", "site/publishing.md"),
    )
    repo.commit(
        "2022-02-01", "split the core plugins off", {"plugins.md": PLUGINS_AFTER_SPLIT, "core-plugins.md": CORE_PLUGINS}
    )
    repo.commit("2023-07-01", "sync has its own site now", remove=("sync.md",))
    summary = cli.json("index", "--from-git", "--json")
    assert summary["commits_replayed"] == 4 and summary["notes_renamed"] == 1 and summary["notes_deleted"] == 1
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")

    assert_past_and_present(
        cli, {"before move": "2020-06-01", "before split": "2021-09-01", "before delete": "2023-01-01"}
    )
    assert_lineage(cli)
    assert paragraphs(PUBLISH_V1, PUBLISH_V2, PLUGINS, CORE_PLUGINS, SYNC) <= stored_texts()  # nothing lost


@pytest.mark.slow
def test_snapshots_indexed_one_after_another_keep_every_past(vault, cli, real_embedder, monkeypatch):
    """No git to say what moved: a move with an edit is found by the passages the two notes share, word for word."""

    def snapshot(day: str) -> dict:
        monkeypatch.setenv("SMARTVEC_NOW", day)
        return cli.json("index", "--json")

    write(vault, "guides/publish.md", PUBLISH_V1)
    write(vault, "plugins.md", PLUGINS)
    write(vault, "sync.md", SYNC)
    write(vault, "other.md", "# Other\n\nA note about the weather, so the first index is not the only thing known.\n")
    snapshot("2019-03-01")
    (vault / "guides" / "publish.md").unlink()
    write(vault, "site/publishing.md", PUBLISH_V2)
    moved = snapshot("2021-05-01")
    assert moved["notes_renamed"] == 1 and moved["notes_deleted"] == 0 and moved["notes_new"] == 0
    write(vault, "plugins.md", PLUGINS_AFTER_SPLIT)
    write(vault, "core-plugins.md", CORE_PLUGINS)
    snapshot("2022-02-01")
    (vault / "sync.md").unlink()
    assert snapshot("2023-07-01")["notes_deleted"] == 1
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")

    assert_past_and_present(
        cli, {"before move": "2020-06-01", "before split": "2021-09-01", "before delete": "2023-01-01"}
    )
    assert_lineage(cli)
    assert paragraphs(PUBLISH_V1, PUBLISH_V2, PLUGINS, CORE_PLUGINS, SYNC) <= stored_texts()


def test_forget_erases_a_deleted_note_only_when_asked(vault, cli, fake_embedder, monkeypatch):
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")
    write(vault, "keep.md", "# Keep\n\nBananas are yellow and grow in bunches on tall plants.\n")
    secret = write(vault, "secret.md", "# Secret\n\nThe door code of the shed is 4711 and nobody else may know it.\n")
    cli.json("index", "--json")
    secret.unlink()
    cli.json("index", "--json")
    assert cli.json("status", "--json")["passages_of_deleted_notes"] == 1

    refused = cli("forget", "keep.md", "--yes")
    assert refused.exit_code == 2 and "still in the vault" in refused.output
    unconfirmed = cli("forget", "secret.md")  # stdin is no terminal here: nothing is erased without --yes
    assert unconfirmed.exit_code == 2 and "--yes" in unconfirmed.output
    assert index_rows("SELECT COUNT(*) FROM chunks WHERE text LIKE '%4711%'") == [(1,)]

    assert cli.json("forget", "secret.md", "--yes", "--json") == {
        "forgotten": ["secret.md"],
        "passage_versions": 1,
    }
    assert index_rows("SELECT COUNT(*) FROM chunks WHERE text LIKE '%4711%'") == [(0,)]
    assert index_rows("SELECT COUNT(*) FROM embeddings WHERE text LIKE '%4711%'") == [(0,)]
    status = cli.json("status", "--json")
    assert status["notes_deleted"] == 0 and status["ann"]["live"] == 1
    assert all("4711" not in hit["text"] for hit in query(cli, "door code of the shed", "--include-archived"))
    assert cli("history", "secret.md").exit_code == 1


def test_forget_all_deleted_with_nothing_deleted_says_so(vault, cli, fake_embedder):
    write(vault, "keep.md", "# Keep\n\nBananas are yellow and grow in bunches on tall plants.\n")
    cli.json("index", "--json")

    plain = cli("forget", "--all-deleted", "--yes")
    assert plain.exit_code == 0, plain.output
    assert "forgot 0 deleted notes (0 passage versions)" in plain.output
    assert cli.json("forget", "--all-deleted", "--yes", "--json") == {
        "forgotten": [],
        "passage_versions": 0,
    }
    assert cli.json("status", "--json")["notes"] == 1
