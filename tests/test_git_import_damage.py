"""``index --from-git`` on repositories that are not whole: blobs missing (a partial clone, a damaged pack), a
broken object store, an import that fails and is retried, old commits with malformed front matter."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import Repo, index_rows

ATTACHMENT = bytes(range(256)) * 12  # an obsidian.zip, say: binary, never a note


def drop_object(repo: Repo, rev: str) -> tuple[Path, bytes]:
    """Deletes the loose object ``rev`` names from the repository; returns where it was and what it held."""
    oid = repo.git("rev-parse", rev)
    path = Path(repo.root) / ".git" / "objects" / oid[:2] / oid[2:]
    data = path.read_bytes()
    os.chmod(path, 0o644)
    path.unlink()
    return path, data


def with_moved_attachment(vault) -> Repo:
    """A note and a zip, then the zip moved and changed (rename detection reads it), then a note edit."""
    repo = Repo(vault)
    (vault / "obsidian.zip").write_bytes(ATTACHMENT)
    repo.commit("2021-01-01", "start", {"plan.md": "# Plan\n\nThe budget is 400 euros.\n"})
    (vault / "obsidian.zip").write_bytes(ATTACHMENT + b"more")
    (vault / "old").mkdir()
    repo.git("mv", "obsidian.zip", "old/obsidian.zip")
    repo.commit("2021-02-01", "move the zip", {"roof.md": "# Roof\n\nThe roof takes green felt.\n"})
    repo.commit("2021-03-01", "budget", {"plan.md": "# Plan\n\nThe budget is 450 euros.\n"})
    return repo


def test_a_missing_blob_of_another_file_does_not_stop_the_import(vault, cli, fake_embedder):
    repo = with_moved_attachment(vault)
    drop_object(repo, "HEAD~2:obsidian.zip")
    data = cli.json("index", "--from-git", "--json")
    assert data["commits_replayed"] == 3 and data["errors"] == [] and data["past_errors"] == []
    assert sorted(r[0] for r in index_rows("SELECT path FROM notes")) == ["plan.md", "roof.md"]
    assert not any("zip" in text for text in fake_embedder.embedded)  # only notes are read


def test_a_missing_blob_of_an_old_note_version_is_a_warning(vault, cli, fake_embedder):
    repo = with_moved_attachment(vault)
    drop_object(repo, "HEAD~2:plan.md")  # the first text of plan.md; the last commit replaced it
    result = cli("index", "--from-git", "--json")
    assert result.exit_code == 0, result.stderr
    assert "plan.md (commit" in result.stderr and "cannot be read from the repository" in result.stderr
    assert [r[0] for r in index_rows("SELECT text FROM chunks WHERE current = 1 AND text LIKE '%budget%'")] == [
        "The budget is 450 euros."
    ]


def test_a_missing_blob_of_a_note_as_it_is_now_is_a_partial_run(vault, cli, fake_embedder):
    repo = with_moved_attachment(vault)
    drop_object(repo, "HEAD:plan.md")
    result = cli("index", "--from-git", "--json")
    assert result.exit_code == 3 and "cannot be read from the repository" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broken_repository_is_an_error_not_a_usage_error(vault, cli, fake_embedder):
    repo = with_moved_attachment(vault)
    drop_object(repo, "HEAD~1^{tree}")
    result = cli("index", "--from-git")
    assert result.exit_code == 1, (result.exit_code, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: the git repository of")
    assert "unable to read tree" in errors[0] and "Traceback" not in result.stderr


def test_a_failed_import_leaves_no_clock_for_its_retry(vault, cli, fake_embedder):
    repo = with_moved_attachment(vault)
    where, data = drop_object(repo, "HEAD~1^{tree}")
    assert cli("index", "--from-git").exit_code == 1
    where.write_bytes(data)  # the object comes back (fetched again, say)
    cli.json("index", "--from-git", "--json")
    stamps = index_rows("SELECT path, created_at FROM notes ORDER BY path")
    assert stamps == [("plan.md", "2021-01-01T12:00:00Z"), ("roof.md", "2021-02-01T12:00:00Z")]
    assert index_rows("SELECT max(created_at) FROM chunks")[0][0] == "2021-03-01T12:00:00Z"


def test_an_old_commits_malformed_front_matter_is_a_warning(vault, cli, fake_embedder):
    repo = Repo(vault)
    repo.commit("2021-01-01", "broken", {"plan.md": "---\ntitle: [unclosed\n---\n# Plan\n\nThe budget is 400.\n"})
    repo.commit("2021-02-01", "fixed", {"plan.md": "---\ntitle: Plan\n---\n# Plan\n\nThe budget is 450.\n"})
    result = cli("index", "--from-git", "--json")
    assert result.exit_code == 0, result.stderr
    assert "replaced by a later commit" in result.stderr
    repo.commit("2021-03-01", "broken again", {"plan.md": "---\ntitle: [unclosed\n---\n# Plan\n\nThe budget is 500.\n"})
    assert cli("index", "--from-git").exit_code == 3  # wrong in the last commit: the run is partial


def test_a_vault_in_a_folder_of_its_repository_reads_its_own_notes(tmp_path, monkeypatch, cli, fake_embedder):
    root = tmp_path / "repo"
    vault = root / "notes [team]"
    vault.mkdir(parents=True)
    repo = Repo(root)
    (root / "outside.md").write_text("# Outside\n\nNot in the vault.\n")
    repo.commit("2021-01-01", "start", {"notes [team]/plan.md": "# Plan\n\nThe budget is 400.\n"})
    monkeypatch.setenv("SMARTVEC_VAULT", str(vault))
    monkeypatch.setenv("SMARTVEC_INDEX", str(tmp_path / "index"))
    data = cli.json("index", "--from-git", "--json")
    assert data["notes_new"] == 1
    assert index_rows("SELECT path FROM notes") == [("plan.md",)]
