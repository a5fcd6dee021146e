"""What a vault says to leave out: its templates folder, a ``.smartvecignore``, ``[scan] exclude`` in
config.toml, Obsidian's *Excluded files*, hidden folders; and ``status`` saying how many notes were left out and
why (the CLI, a real index, a fake embedder: what is embedded is the point, not how well)."""

from __future__ import annotations

import json

from conftest import index_rows, write

from smartvec_cli.vault.scan import VaultRules, gitignore_matcher

NOTE = "# {title}\n\nA paragraph about {title}.\n"


def paths_indexed() -> list[str]:
    return sorted(r[0] for r in index_rows("SELECT path FROM notes WHERE deleted_at IS NULL"))


def notes(vault, *paths: str) -> None:
    for path in paths:
        write(vault, path, NOTE.format(title=path.rsplit("/", 1)[-1][:-3]))


def test_a_templates_folder_is_not_indexed_and_status_says_so(vault, cli, fake_embedder):
    notes(vault, "plan.md", "_templates/daily.md", "_templates/meeting.md", "work/Templates/weekly.md")
    cli.json("index", "--json")
    assert paths_indexed() == ["plan.md"]
    assert not any("daily" in text for text in fake_embedder.embedded)
    status = cli.json("status", "--json")
    assert status["left_out"] == {"templates folder": 3}
    shown = cli("status").stdout
    assert "left out   3 notes: templates folder 3" in shown


def test_the_templates_folder_obsidian_names_is_the_one_left_out(vault, cli, fake_embedder):
    notes(vault, "plan.md", "Meta/Tpl/daily.md", "templates/not-a-template.md")
    write(vault, ".obsidian/templates.json", json.dumps({"folder": "Meta/Tpl"}))
    cli.json("index", "--json")
    assert paths_indexed() == ["plan.md", "templates/not-a-template.md"]


def test_the_templater_folder_is_left_out(vault, cli, fake_embedder):
    notes(vault, "plan.md", "System/Templater/daily.md")
    write(vault, ".obsidian/plugins/templater-obsidian/data.json", json.dumps({"templates_folder": "System/Templater"}))
    cli.json("index", "--json")
    assert paths_indexed() == ["plan.md"]


def test_smartvecignore_config_and_obsidian_excluded_files(vault, tmp_path, cli, fake_embedder):
    notes(
        vault,
        "plan.md",
        "drafts/idea.md",
        "secret-keys.md",
        "secret-ok.md",
        "deep/x/secret-more.md",
        "scratch/a.md",
        "Archive/2019.md",
        "Private notes.md",
        ".hidden/h.md",
        ".draft.md",
    )
    write(vault, ".smartvecignore", "# not for search\ndrafts/\nsecret*.md\n!secret-ok.md\n")
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text('[scan]\nexclude = ["scratch/**"]\n', encoding="utf-8")
    write(vault, ".obsidian/app.json", json.dumps({"userIgnoreFilters": ["Archive/", "/^Private/"]}))
    cli.json("index", "--json")
    assert paths_indexed() == ["plan.md", "secret-ok.md"]
    assert cli.json("status", "--json")["left_out"] == {
        "exclude": 1,
        ".smartvecignore": 3,
        "obsidian excluded files": 2,
        "hidden": 1,  # the hidden note; a hidden folder is skipped, not walked to count
    }


def test_a_note_that_a_new_rule_leaves_out_leaves_the_index(vault, cli, fake_embedder):
    notes(vault, "plan.md", "drafts/idea.md")
    cli.json("index", "--json")
    assert paths_indexed() == ["drafts/idea.md", "plan.md"]
    write(vault, ".smartvecignore", "drafts\n")
    data = cli.json("index", "--json")
    assert data["notes_deleted"] == 1 and paths_indexed() == ["plan.md"]


def test_a_git_import_leaves_out_what_the_scan_leaves_out(vault, cli, fake_embedder):
    from conftest import Repo

    repo = Repo(vault)
    repo.commit(
        "2021-01-01",
        "start",
        {
            "plan.md": NOTE.format(title="plan"),
            "_templates/daily.md": NOTE.format(title="daily"),
            ".smartvecignore": "drafts/\n",
            "drafts/idea.md": NOTE.format(title="idea"),
        },
    )
    cli.json("index", "--from-git", "--json")
    assert paths_indexed() == ["plan.md"]


def test_gitignore_rules():
    ignored = gitignore_matcher(["*.log.md", "/top.md", "build/", "a/**/z.md", "!keep.log.md", "docs/*.md"])
    assert ignored("x/y.log.md", False) and not ignored("keep.log.md", False)
    assert ignored("top.md", False) and not ignored("sub/top.md", False)
    assert ignored("x/build", True) and not ignored("build", False)
    assert ignored("a/z.md", False) and ignored("a/b/c/z.md", False)
    assert ignored("docs/a.md", False) and not ignored("docs/sub/a.md", False)


def test_the_watch_daemon_and_the_import_ask_the_same_rules(vault):
    write(vault, ".smartvecignore", "drafts/\n")
    rules = VaultRules.of(vault)
    assert rules.leaves_out("drafts/idea.md") and rules.leaves_out("_templates/x.md")
    assert not rules.leaves_out("plan.md")


RADAR = "---\ntitle: {title}\nstatus: {status}\n---\n# {title}\n\nWe use {tool} for {what}.\n"


def radar(vault, status: str) -> None:
    write(vault, "radar/jenkins.md", RADAR.format(title="Jenkins", status=status, tool="Jenkins", what="CI builds"))
    write(vault, "radar/actions.md", RADAR.format(title="Actions", status="adopt", tool="GitHub Actions", what="CI"))


def hit_paths(cli, *options) -> list[str]:
    data = cli.json(
        "--now", "2026-04-01", "query", "Which tool do we use for CI builds?", "--json", "--no-track", *options
    )
    return [hit["path"] for hit in data]


def test_status_archived_archives_the_notes_passages(vault, cli, fake_embedder):
    radar(vault, "Archived")
    cli.json("--now", "2026-01-01", "index", "--json")
    cli.json("--now", "2026-01-01", "consolidate", "--json")
    assert "radar/jenkins.md" not in hit_paths(cli)
    assert "radar/jenkins.md" in hit_paths(cli, "--include-archived")
    assert "radar/jenkins.md" in hit_paths(cli, "--as-of", "2025-12-01")  # before it was archived, it answered
    states = index_rows("SELECT c.state FROM chunks c JOIN notes n ON n.id = c.note WHERE n.path = 'radar/jenkins.md'")
    assert states == [("ARCHIVED",)]


def test_a_status_set_later_archives_from_then_and_taken_back_restores(vault, cli, fake_embedder):
    radar(vault, "trial")
    cli.json("--now", "2026-01-01", "index", "--json")
    radar(vault, "deprecated")
    cli.json("--now", "2026-02-01", "index", "--json")
    cli.json("--now", "2026-02-01", "consolidate", "--json")
    ends = index_rows(
        "SELECT c.valid_until FROM chunks c JOIN notes n ON n.id = c.note WHERE n.path = 'radar/jenkins.md'"
    )
    assert ends == [("2026-02-01T00:00:00Z",)]
    assert "radar/jenkins.md" in hit_paths(cli, "--as-of", "2026-01-15")
    assert "radar/jenkins.md" not in hit_paths(cli)
    radar(vault, "adopt")
    cli.json("--now", "2026-03-01", "index", "--json")
    cli.json("--now", "2026-03-01", "consolidate", "--json")
    assert "radar/jenkins.md" in hit_paths(cli)
