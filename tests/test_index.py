"""Incremental encoding: only what changed is read and embedded; identities survive edits and renames."""

import json

from conftest import both_stores, write

TEN_PARAGRAPHS = "# Handbook\n\n" + "\n\n".join(
    f"## Topic {i}\n\nParagraph {i} explains rule number {i} of the handbook in plenty of words." for i in range(10)
)


def index(cli):
    return cli.json("index", "--json")


@both_stores
def test_one_word_edit_reembeds_exactly_one_passage(vault, cli, fake_embedder):
    note = write(vault, "handbook.md", TEN_PARAGRAPHS)
    first = index(cli)
    assert first["passages_embedded"] == 10 and first["notes_new"] == 1

    fake_embedder.embedded.clear()
    note.write_text(TEN_PARAGRAPHS.replace("rule number 7", "regulation number 7"), encoding="utf-8")
    second = index(cli)
    assert second["passages_embedded"] == 1
    assert second["passages_reused"] == 9
    assert second["notes_changed"] == 1
    assert len(fake_embedder.embedded) == 1 and "regulation number 7" in fake_embedder.embedded[0]


def test_a_second_run_without_changes_embeds_nothing_and_reads_no_file(vault, cli, fake_embedder, monkeypatch):
    write(vault, "handbook.md", TEN_PARAGRAPHS)
    write(vault, "other/note.md", "# Other\n\nSomething else entirely, with enough words.")
    index(cli)
    from smartvec_cli.core import indexer

    reads = []
    original = indexer.read_regular
    monkeypatch.setattr(indexer, "read_regular", lambda path, *a, **k: reads.append(path) or original(path, *a, **k))
    fake_embedder.embedded.clear()
    again = index(cli)
    assert again["passages_embedded"] == 0 and again["notes_unchanged"] == 2
    assert reads == [] and fake_embedder.embedded == []


@both_stores
def test_edit_keeps_the_old_text_as_an_archived_version(vault, cli, fake_embedder):
    note = write(vault, "policy.md", "# Policy\n\nEmployees may work remotely on up to 2 days per week.\n")
    index(cli)
    note.write_text("# Policy\n\nEmployees may work remotely on up to 3 days per week.\n", encoding="utf-8")
    summary = index(cli)
    assert summary["passages_archived"] == 1
    shown = cli.json("show", "policy", "--json")
    states = {(c["version"], c["state"]) for c in shown["passages"]}
    assert states == {(2, "UNCONSOLIDATED"), (1, "ARCHIVED")}
    assert len({c["chunk_id"] for c in shown["passages"]}) == 1
    archived = next(c for c in shown["passages"] if c["state"] == "ARCHIVED")
    assert "2 days" in archived["text"] and archived["valid_until"]


@both_stores
def test_frontmatter_only_change_updates_metadata_without_embedding(vault, cli, fake_embedder):
    note = write(vault, "n.md", "---\ntags: [a]\n---\n# N\n\nA paragraph that does not change at all.\n")
    index(cli)
    fake_embedder.embedded.clear()
    note.write_text(
        "---\ntags: [a, b]\nvalid_until: 2030-01-01\n---\n# N\n\nA paragraph that does not change at all.\n",
        encoding="utf-8",
    )
    summary = index(cli)
    assert summary["passages_embedded"] == 0 and fake_embedder.embedded == []
    shown = cli.json("show", "n.md", "--json")
    assert shown["tags"] == ["a", "b"] and shown["metadata"]["valid_until"] == "2030-01-01"


@both_stores
def test_rename_keeps_vectors_and_the_ids_follow_the_note(vault, cli, fake_embedder):
    """The note keeps its row and passages; its id and its passages' ids follow the new path, and the old
    path and ids still name it (``show``, ``history``, ``feedback``)."""
    note = write(vault, "old name.md", "# Topic\n\nA paragraph about the migration of the ingestion service.\n")
    index(cli)
    before = cli.json("show", "old name", "--json")["passages"]
    assert [c["chunk_id"] for c in before] == ["old name#topic"]
    fake_embedder.embedded.clear()
    (vault / "moved").mkdir()
    note.rename(vault / "moved" / "new name.md")
    summary = index(cli)
    assert summary["notes_renamed"] == 1 and summary["notes_deleted"] == 0
    assert summary["passages_embedded"] == 0 and fake_embedder.embedded == []
    after = cli.json("show", "moved/new name.md", "--json")
    assert after["note_id"] == "moved/new name" and after["path"] == "moved/new name.md"
    assert [c["chunk_id"] for c in after["passages"]] == ["moved/new name#topic"]
    assert [(f["path"], f["note_id"]) for f in after["former_names"]] == [("old name.md", "old name")]
    assert cli.json("show", "old name.md", "--json")["note_id"] == "moved/new name"
    assert cli.json("history", "old name", "--json")["path"] == "moved/new name.md"
    assert cli.json("feedback", "old name#topic", "--up", "--json")["chunk_id"] == "moved/new name#topic"


@both_stores
def test_a_deleted_note_leaves_answers_about_now_and_answers_for_its_time(vault, cli, fake_embedder, monkeypatch):
    """Deletion ends the note's window, not its data: questions about now no longer get it, a question about
    a time it was there does, with the warning, and its vectors stay until ``forget``."""
    monkeypatch.setenv("SMARTVEC_NOW", "2026-01-01")
    write(vault, "keep.md", "# Keep\n\nBananas are yellow and grow in bunches.\n")
    gone = write(vault, "gone.md", "# Gone\n\nZebras have black and white stripes.\n")
    index(cli)
    monkeypatch.setenv("SMARTVEC_NOW", "2026-02-01")
    assert cli.json("query", "zebras stripes", "--json")[0]["path"] == "gone.md"
    gone.unlink()
    assert index(cli)["notes_deleted"] == 1
    assert all(h["path"] != "gone.md" for h in cli.json("query", "zebras stripes", "--json"))
    past = cli.json("query", "zebras stripes", "--as-of", "2026-01-15", "--json")
    assert past[0]["path"] == "gone.md" and past[0]["state"] == "ARCHIVED"
    assert cli.json("query", "zebras stripes", "--include-archived", "--json")[0]["path"] == "gone.md"
    status = cli.json("status", "--json")
    assert status["notes"] == 1 and status["notes_deleted"] == 1 and status["passages_of_deleted_notes"] == 1
    assert status["ann"]["live"] == 2 and status["passages"]["ARCHIVED"] == 1
    history = cli.json("history", "gone.md", "--json")
    assert history["deleted_at"].startswith("2026-02-01")
    assert [v["valid_until"][:10] for p in history["passages"] for v in p["versions"]] == ["2026-02-01"]


def test_a_new_note_s_look_for_a_deleted_one_at_its_path_reads_an_index_not_every_note(vault, cli, fake_embedder):
    """Asked for every new note; a scan of the notes table made a first index quadratic in its notes."""
    from smartvec_cli.core.workspace import Workspace

    write(vault, "gone.md", "# Gone\n\nA note that is deleted.\n")
    index(cli)
    (vault / "gone.md").unlink()
    index(cli)
    with Workspace.resolve().open_store() as store:
        asked: list[str] = []
        store.db.conn.set_trace_callback(asked.append)
        assert store.deleted_note_at("gone.md")["path"] == "gone.md" and store.deleted_note_at("new.md") is None
        store.db.conn.set_trace_callback(None)
        statements = [sql for sql in asked if "deleted_at IS NOT NULL" in sql]  # as run, the path written in
        assert len(statements) == 2
        plan = " ".join(row[-1] for row in store.db.conn.execute("EXPLAIN QUERY PLAN " + statements[0]))
    assert "USING INDEX idx_notes_deleted_path" in plan, plan


@both_stores
def test_a_deleted_note_that_comes_back_is_the_same_note(vault, cli, fake_embedder):
    note = write(vault, "n.md", "# N\n\nA note that will be deleted and restored.\n")
    index(cli)
    note_id = cli.json("show", "n.md", "--json")["note_id"]
    text = note.read_text()
    note.unlink()
    index(cli)
    write(vault, "n.md", text)
    summary = index(cli)
    assert summary["notes_new"] == 1 and summary["passages_embedded"] == 0
    assert cli.json("show", "n.md", "--json")["note_id"] == note_id


@both_stores
def test_new_rules_for_cutting_notes_recut_them_once_and_make_no_history(
    vault, cli, fake_embedder, tmp_path, monkeypatch
):
    """``[chunking] max_chars`` (or a new release's ``CHUNKING_RULES``) changes how notes are cut: every
    note is read again once, its passages replaced, not archived as if the text had changed, and each new
    passage known since its text was (the edit on 2026-03-01 for the second paragraph)."""
    monkeypatch.setenv("SMARTVEC_NOW", "2026-01-01")
    long_paragraph = " ".join(f"Sentence number {n} of the first paragraph says a little." for n in range(12))
    note = write(vault, "n.md", f"# N\n\n{long_paragraph}\n")
    write(vault, "other.md", "# Other\n\nA short note that no rule cuts differently.\n")
    index(cli)
    monkeypatch.setenv("SMARTVEC_NOW", "2026-03-01")
    note.write_text(note.read_text() + "\nA second paragraph added in March, with enough words.\n")
    index(cli)
    cli.json("consolidate", "--json")  # edges into the passages about to be replaced
    long_id = next(
        c["chunk_id"] for c in cli.json("show", "n.md", "--json")["passages"] if c["text"].startswith("Sentence")
    )
    cli.json("feedback", long_id, "--up", "--json")
    (tmp_path / "index" / "config.toml").write_text("[chunking]\nmax_chars = 200\n", encoding="utf-8")
    monkeypatch.setenv("SMARTVEC_NOW", "2026-06-01")
    summary = index(cli)
    assert summary["notes_unchanged"] == 2 and summary["passages_archived"] == 0 and summary["passages_recut"] == 1
    pieces = [c for c in cli.json("show", "n.md", "--json")["passages"] if c["state"] != "ARCHIVED"]
    assert len(pieces) == 5 and all(len(c["text"]) <= 200 for c in pieces)
    assert pieces[-1]["text"].startswith("A second paragraph")  # kept as it was, and still last in reading order
    hits = cli.json(
        "query", "Sentence number of the first paragraph", "--top-k", "10", "--explain", "--json", "--no-track"
    )
    feedback = {hit["chunk_id"]: hit["explain"]["feedback"] for hit in hits if hit["text"].startswith("Sentence")}
    assert long_id in feedback and len(feedback) == 4  # the first piece keeps the paragraph's id
    assert all(value > 0 for value in feedback.values())  # every piece of the upvoted paragraph keeps its feedback
    history = cli.json("history", "n.md", "--json")["passages"]
    assert all(len(p["versions"]) == 1 for p in history), history  # no version ended: the text did not change
    second = next(p["versions"][0] for p in history if p["versions"][0]["text"].startswith("A second paragraph"))
    assert second["valid_from"] == "2026-03-01T00:00:00Z"
    assert all(
        p["versions"][0]["valid_from"] is None for p in history if p["versions"][0]["text"].startswith("Sentence")
    )
    status = cli.json("status", "--json")
    assert status["ann"]["live"] == 6  # the five pieces and the other note; the long paragraph left the index
    doctor = cli.json("doctor", "--json")
    assert doctor["ok"], [
        check for check in doctor["checks"] if not check["ok"]
    ]  # full-text index, edges, vector index in step
    assert index(cli)["passages_recut"] == 0 and index(cli)["notes_unchanged"] == 2


def test_moving_a_paragraph_keeps_its_identity(vault, cli, fake_embedder):
    body = "# N\n\nAlpha paragraph with enough words in it.\n\nBeta paragraph with enough words in it.\n"
    note = write(vault, "n.md", body)
    index(cli)
    before = {c["text"]: c["chunk_id"] for c in cli.json("show", "n.md", "--json")["passages"]}
    note.write_text(
        "# N\n\nGamma paragraph is brand new and long enough.\n\nBeta paragraph with enough words in it.\n\n"
        "Alpha paragraph with enough words in it.\n"
    )
    summary = index(cli)
    assert summary["passages_embedded"] == 1
    after = {
        c["text"]: c["chunk_id"] for c in cli.json("show", "n.md", "--json")["passages"] if c["state"] != "ARCHIVED"
    }
    for text, chunk_id in before.items():
        assert after[text] == chunk_id
    assert len(set(after.values())) == 3


@both_stores
def test_links_resolve_by_name_title_and_aclarai_underscores(vault, cli, fake_embedder):
    write(vault, "concepts/CUDA_error.md", "# CUDA error\n\nA concept note with a few words.\n")
    write(vault, "notes/a.md", "# A\n\nSee [[CUDA error]] and [[b|bee]] and [[Missing Note]].\n")
    write(vault, "notes/b.md", "---\ntitle: Bee\n---\nBody of b that is long enough.\n")
    index(cli)
    links = {link["target"]: link["resolved"] for link in cli.json("show", "notes/a.md", "--json")["links"]}
    assert links == {"CUDA error": "concepts/CUDA_error.md", "b": "notes/b.md", "Missing Note": None}
    write(vault, "Missing Note.md", "# Missing\n\nNow it exists, with some words.\n")
    index(cli)
    links = {link["target"]: link["resolved"] for link in cli.json("show", "notes/a.md", "--json")["links"]}
    assert links["Missing Note"] == "Missing Note.md"


@both_stores
def test_a_different_model_refuses_to_mix_vectors(vault, cli, fake_embedder, monkeypatch):
    write(vault, "n.md", "# N\n\nSome text to embed with the first model.\n")
    index(cli)
    other = type(fake_embedder)(fingerprint="fake@2")
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: other)
    write(vault, "m.md", "# M\n\nA new note arrives after the model changed.\n")
    for args in (["index"], ["query", "anything"]):
        result = cli(*args)
        assert result.exit_code == 1
        assert "index --full" in result.stderr and "fake@1" in result.stderr
        assert "Traceback" not in result.stderr
    summary = cli.json("index", "--full", "--json")
    assert summary["passages_embedded"] == 2 and len(other.embedded) == 2
    assert cli.json("status", "--json")["model"] == "fake@2"
    assert cli("query", "new note").exit_code == 0


@both_stores
def test_full_reembeds_archived_versions_too(vault, cli, fake_embedder):
    note = write(vault, "n.md", "# N\n\nVersion one of the text, long enough.\n")
    index(cli)
    note.write_text("# N\n\nVersion two of the text, long enough.\n")
    index(cli)
    fake_embedder.embedded.clear()
    summary = cli.json("index", "--full", "--json")
    assert summary["passages_embedded"] == 2
    assert any("one" in t for t in fake_embedder.embedded)


def test_excludes_from_option_and_config(vault, cli, fake_embedder, tmp_path):
    write(vault, "keep.md", "# Keep\n\nKept note text here.\n")
    write(vault, "drafts/skip.md", "# Skip\n\nDraft note text here.\n")
    write(vault, "private/secret.md", "# Secret\n\nPrivate note text here.\n")
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text('exclude = ["private/**"]\n')
    summary = cli.json("index", "--exclude", "drafts/*", "--json")
    assert summary["notes_scanned"] == 1


def test_env_and_options_choose_vault_index_and_clock(tmp_path, cli, fake_embedder, monkeypatch):
    monkeypatch.delenv("SMARTVEC_VAULT", raising=False)
    monkeypatch.delenv("SMARTVEC_INDEX", raising=False)
    vault = tmp_path / "v"
    write(vault, "n.md", "# N\n\nText written at a fixed time.\n")
    cli.json("--vault", str(vault), "--now", "2024-03-01", "index", "--json")
    assert (vault / ".smartvec" / "smartvec.db").is_file()
    shown = cli.json("--vault", str(vault), "show", "n", "--json")
    assert shown["last_updated"] == "2024-03-01T00:00:00Z"
    monkeypatch.setenv("SMARTVEC_VAULT", str(vault))
    monkeypatch.setenv("SMARTVEC_INDEX", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("SMARTVEC_NOW", "2025-01-02T03:04:05")
    cli.json("index", "--json")
    assert (tmp_path / "elsewhere" / "smartvec.db").is_file()
    assert cli.json("show", "n", "--json")["last_updated"] == "2025-01-02T03:04:05Z"


def test_a_note_of_thousands_of_passages_is_capped_and_reported(vault, cli, fake_embedder):
    (vault.parent / "index").mkdir(exist_ok=True)
    (vault.parent / "index" / "config.toml").write_text("max_passages_per_note = 50\n")
    write(
        vault,
        "log.md",
        "# Log\n\n" + "\n\n".join(f"Line {i} of a very repetitive pasted log output." for i in range(300)),
    )
    write(vault, "ok.md", "# Ok\n\nA normal note with a single paragraph of text.\n")
    result = cli("index", "--json")
    summary = json.loads(result.stdout)
    assert result.exit_code == 3
    assert [e["path"] for e in summary["errors"]] == ["log.md"] and "only the first 50" in summary["errors"][0]["error"]
    assert summary["passages_embedded"] == 51
