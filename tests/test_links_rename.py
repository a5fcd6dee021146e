"""A rename is not a new version: a note moved or retitled keeps its passages, their ids, history and
first-seen times; it is embedded again only where the embedded text (title › heading: words) changed."""

from conftest import both_stores, index_rows, write

# No H1 and no frontmatter title: the file name is the title, so renaming the file retitles every passage.
BODY = (
    "The ingestion service moved to the new cluster in March, after the storage migration finished.\n\n"
    "Backfills now run at night so that the dashboards stay fast during office hours.\n\n"
    "Alerts page the data team first and the platform team only after thirty minutes.\n"
)


def index(cli):
    return cli.json("index", "--json")


def indexed_once_then_added(vault, cli, monkeypatch):
    """A vault first indexed in 2024 into which ``old name.md`` arrives in 2025 (so it has a first-seen time)."""
    write(vault, "other.md", "# Other\n\nAn unrelated note about the office plants and who waters them.\n")
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")
    index(cli)
    note = write(vault, "old name.md", BODY)
    monkeypatch.setenv("SMARTVEC_NOW", "2025-03-01")
    assert index(cli)["passages_embedded"] == 3
    return note


@both_stores
def test_a_retitling_rename_keeps_every_passage_and_embeds_only_the_new_titles(vault, cli, fake_embedder, monkeypatch):
    note = indexed_once_then_added(vault, cli, monkeypatch)
    before = cli.json("show", "old name", "--json")
    assert before["title"] == "old name" and len(before["passages"]) == 3
    fake_embedder.embedded.clear()
    (vault / "ops").mkdir()
    note.rename(vault / "ops" / "Ingestion runbook.md")
    monkeypatch.setenv("SMARTVEC_NOW", "2025-06-01")
    summary = index(cli)

    assert summary["notes_renamed"] == 1 and summary["notes_deleted"] == 0 and summary["notes_new"] == 0
    assert summary["passages_archived"] == 0
    # the title is part of what the model reads, so each passage is embedded once more, under its new title
    assert summary["passages_embedded"] == 3 and len(fake_embedder.embedded) == 3
    assert all(text.startswith("Ingestion runbook\n") for text in fake_embedder.embedded)

    after = cli.json("show", "ops/Ingestion runbook.md", "--json")
    assert after["title"] == "Ingestion runbook"
    assert [(c["chunk_id"], c["version"], c["state"]) for c in after["passages"]] == [
        (c["chunk_id"].replace("old name#", "ops/Ingestion runbook#"), 1, "UNCONSOLIDATED") for c in before["passages"]
    ]
    assert [c["valid_from"] for c in after["passages"]] == ["2025-03-01T00:00:00Z"] * 3  # first seen before the rename
    assert [c["hash"] for c in after["passages"]] != [c["hash"] for c in before["passages"]]

    history = cli.json("history", "ops/Ingestion runbook.md", "--json")
    versions = [v for p in history["passages"] for v in p["versions"]]
    assert len(versions) == 3 and all(v["state"] != "ARCHIVED" and v["replaced_by"] is None for v in versions)
    assert index_rows("SELECT COUNT(*) FROM chunks WHERE state = 'ARCHIVED'") == [(0,)]


def test_a_renamed_note_is_found_under_its_new_title_only(vault, cli, fake_embedder, monkeypatch):
    """The vector index holds each renamed passage once, with the vector of its new embedded text."""
    note = indexed_once_then_added(vault, cli, monkeypatch)
    note.rename(vault / "Ingestion runbook.md")
    index(cli)
    status = cli.json("status", "--json")
    assert status["ann"]["live"] == status["passages"]["UNCONSOLIDATED"] == 4
    hits = cli.json("query", "ingestion runbook backfills night", "--json", "--no-track", "--mode", "cosine")
    assert hits[0]["path"] == "Ingestion runbook.md"
    assert {h["path"] for h in hits} <= {"Ingestion runbook.md", "other.md"}
    assert sum(1 for h in hits if "Backfills now run at night" in h["text"]) == 1


def test_a_rename_that_keeps_the_title_embeds_nothing(vault, cli, fake_embedder, monkeypatch):
    note = write(vault, "draft.md", "# Runbook\n\n" + BODY)
    index(cli)
    fake_embedder.embedded.clear()
    note.rename(vault / "final.md")
    summary = index(cli)
    assert summary["notes_renamed"] == 1 and summary["passages_embedded"] == 0 and fake_embedder.embedded == []
    assert summary["passages_archived"] == 0


def test_a_rename_with_an_edit_versions_only_the_edited_passage(vault, cli, fake_embedder, monkeypatch):
    """Told of the move (as a git import is), an edited and retitled note keeps its unchanged passages and
    makes a new version of the one paragraph whose words changed."""
    from smartvec_cli.core.indexer import Indexer
    from smartvec_cli.core.workspace import Workspace

    note = indexed_once_then_added(vault, cli, monkeypatch)
    note.unlink()
    write(vault, "Ingestion runbook.md", BODY.replace("thirty minutes", "fifteen minutes"))
    ws = Workspace.resolve()
    with ws.open_store() as store:
        summary = Indexer(ws, store, lambda: fake_embedder, moved={"Ingestion runbook.md": "old name.md"}).run()
    assert summary.notes_renamed == 1 and summary.chunks_archived == 1
    shown = cli.json("show", "Ingestion runbook.md", "--json")
    archived = [c for c in shown["passages"] if c["state"] == "ARCHIVED"]
    assert len(archived) == 1 and "thirty minutes" in archived[0]["text"]
    live = [c for c in shown["passages"] if c["state"] != "ARCHIVED"]
    assert sorted(c["version"] for c in live) == [1, 1, 2]


def test_a_renamed_heading_over_unchanged_words_is_not_a_new_version(vault, cli, fake_embedder):
    note = write(vault, "n.md", "# N\n\n## Setup\n\nInstall the agent with the package manager of your system.\n")
    index(cli)
    note.write_text(
        "# N\n\n## Installation\n\nInstall the agent with the package manager of your system.\n", encoding="utf-8"
    )
    fake_embedder.embedded.clear()
    summary = index(cli)
    assert summary["passages_archived"] == 0 and summary["passages_embedded"] == 1
    assert "Installation" in fake_embedder.embedded[0]
    chunks = cli.json("show", "n.md", "--json")["passages"]
    assert [(c["version"], c["state"], c["heading"]) for c in chunks] == [(1, "UNCONSOLIDATED", "N > Installation")]
