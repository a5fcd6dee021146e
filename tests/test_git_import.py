"""``index --from-git`` on a small real repository: the rows it writes, what it embeds, ``--max-commits`` and its
first progress report (fake embedder)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import Repo, index_rows

import smartvec_cli

PLAN = "# Plan\n\n## Goals\n\nShip the garden shed by May.\n\n## Budget\n\nThe budget is 400 euros.\n\nSee [[Tools]].\n"
TOOLS = "# Tools\n\nA saw, a drill and a spirit level.\n\nBorrowed from [[Plan]].\n"
ROOF = "# Roof\n\nThe roof takes green felt.\n"


def small_history(vault) -> Repo:
    """Adds, an edit of one passage of three, a commit without notes, a rename with an edit, a link that comes
    to name a new note, a deletion and a revert to an earlier text."""
    repo = Repo(vault)
    repo.commit("2021-01-01", "start", {"plan.md": PLAN, "tools.md": TOOLS})
    repo.commit("2021-02-01", "budget", {"plan.md": PLAN.replace("400 euros", "450 euros")})
    repo.commit("2021-03-01", "not a note", {"readme.txt": "hello\n"})
    repo.commit("2021-04-01", "roof", {"roof.md": ROOF, "tools.md": TOOLS + "\nThe roof is in [[Roof]].\n"})
    repo.commit(
        "2021-05-01", "move", {"shed/roof.md": ROOF + "\nTwo rolls are enough.\n"}, move=("roof.md", "shed/roof.md")
    )
    repo.commit("2021-06-01", "budget back", {"plan.md": PLAN})
    repo.commit("2021-07-01", "no tools", remove=("tools.md",))
    return repo


def stored_rows() -> dict[str, list]:
    """What an import leaves, without row ids: notes, every passage version with its window, links."""
    return {
        "notes": index_rows(
            "SELECT path, note_id, title, valid_from, from_source, created_at, updated_at, deleted_at, file_sha "
            "FROM notes ORDER BY note_id"
        ),
        "passages": index_rows(
            "SELECT n.note_id, c.chunk_id, c.version, c.ordinal, c.text, c.state, c.current, c.valid_from, "
            "c.valid_until, c.observed_from, c.observed_by, c.until_source, c.created_at "
            "FROM chunks c JOIN notes n ON n.id = c.note ORDER BY c.chunk_id, c.version"
        ),
        "links": index_rows(
            "SELECT s.note_id, e.type, e.target, d.note_id FROM edges e JOIN notes s ON s.id = e.src_note "
            "LEFT JOIN notes d ON d.id = e.dst_note WHERE e.src_chunk IS NULL ORDER BY s.note_id, e.target"
        ),
    }


def as_lists(rows: dict[str, list]) -> dict[str, list]:
    return json.loads(json.dumps(rows))


EXPECTED_ROWS: dict[str, list] = {  # as written before reuse of parsed notes, unchanged passages and links
    "notes": [
        [
            "plan.md",
            "plan",
            "Plan",
            None,
            None,
            "2021-01-01T12:00:00Z",
            "2021-06-01T12:00:00Z",
            None,
            "520771c8797ba5fc4646accd809b4cbf834ff7888aeea832cb9e6134952a821e",
        ],
        [
            "shed/roof.md",
            "shed/roof",
            "Roof",
            None,
            None,
            "2021-04-01T12:00:00Z",
            "2021-05-01T12:00:00Z",
            None,
            "4cefecf257623f36b8350b34f9c96dd1d6a478fa5651c0b23151d95636d219d4",
        ],
        [
            "tools.md",
            "tools",
            "Tools",
            None,
            None,
            "2021-01-01T12:00:00Z",
            "2021-07-01T12:00:00Z",
            "2021-07-01T12:00:00Z",
            "e8246b66c11fd3d86ecdcce1fd406b7bf20267301869f14e2ccc49b6b282ff28",
        ],
    ],
    "passages": [
        [
            "plan",
            "plan#budget",
            1,
            1,
            "The budget is 400 euros.\nSee [[Tools]].",
            "ARCHIVED",
            0,
            None,
            "2021-02-01T12:00:00Z",
            None,
            None,
            "git",
            "2021-01-01T12:00:00Z",
        ],
        [
            "plan",
            "plan#budget",
            2,
            1,
            "The budget is 450 euros.\nSee [[Tools]].",
            "ARCHIVED",
            0,
            "2021-02-01T12:00:00Z",
            "2021-06-01T12:00:00Z",
            "2021-02-01T12:00:00Z",
            "git",
            "git",
            "2021-02-01T12:00:00Z",
        ],
        [
            "plan",
            "plan#budget",
            3,
            1,
            "The budget is 400 euros.\nSee [[Tools]].",
            "UNCONSOLIDATED",
            1,
            "2021-06-01T12:00:00Z",
            None,
            "2021-06-01T12:00:00Z",
            "git",
            None,
            "2021-06-01T12:00:00Z",
        ],
        [
            "plan",
            "plan#goals",
            1,
            0,
            "Ship the garden shed by May.",
            "UNCONSOLIDATED",
            1,
            None,
            None,
            None,
            None,
            None,
            "2021-01-01T12:00:00Z",
        ],
        [
            "shed/roof",
            "shed/roof#roof",
            1,
            0,
            "The roof takes green felt.",
            "UNCONSOLIDATED",
            1,
            "2021-04-01T12:00:00Z",
            None,
            "2021-04-01T12:00:00Z",
            "git",
            None,
            "2021-04-01T12:00:00Z",
        ],
        [
            "shed/roof",
            "shed/roof#roof-2",
            1,
            1,
            "Two rolls are enough.",
            "UNCONSOLIDATED",
            1,
            "2021-05-01T12:00:00Z",
            None,
            "2021-05-01T12:00:00Z",
            "git",
            None,
            "2021-05-01T12:00:00Z",
        ],
        [
            "tools",
            "tools#tools",
            1,
            0,
            "A saw, a drill and a spirit level.\nBorrowed from [[Plan]].",
            "ARCHIVED",
            0,
            None,
            "2021-04-01T12:00:00Z",
            None,
            None,
            "git",
            "2021-01-01T12:00:00Z",
        ],
        [
            "tools",
            "tools#tools",
            2,
            0,
            "A saw, a drill and a spirit level.",
            "ARCHIVED",
            0,
            "2021-04-01T12:00:00Z",
            "2021-07-01T12:00:00Z",
            "2021-04-01T12:00:00Z",
            "git",
            "git",
            "2021-04-01T12:00:00Z",
        ],
        [
            "tools",
            "tools#tools-2",
            1,
            1,
            "Borrowed from [[Plan]].\nThe roof is in [[Roof]].",
            "ARCHIVED",
            0,
            "2021-04-01T12:00:00Z",
            "2021-07-01T12:00:00Z",
            "2021-04-01T12:00:00Z",
            "git",
            "git",
            "2021-04-01T12:00:00Z",
        ],
    ],
    "links": [
        ["plan", "link", "Tools", None],
    ],
}


def test_an_import_writes_the_rows_it_always_wrote(vault, fake_embedder):
    small_history(vault)
    with smartvec_cli.open_vault(vault) as opened:
        data = opened.index(from_git=True)
    assert data.commits_replayed == 6 and data.commits_without_notes == 1
    assert as_lists(stored_rows()) == EXPECTED_ROWS


def test_a_passage_whose_text_stays_is_embedded_once(vault, fake_embedder):
    small_history(vault)
    with smartvec_cli.open_vault(vault) as opened:
        data = opened.index(from_git=True)
    assert len(fake_embedder.embedded) == len(set(fake_embedder.embedded)) == data.passages_embedded
    budget = [t for t in fake_embedder.embedded if "The budget is 400 euros." in t]
    assert len(budget) == 1  # back in a later commit: its vector is the stored one
    assert data.passages_embedded == len(index_rows("SELECT hash FROM embeddings"))


def test_the_import_summary_adds_up_and_says_what_it_counts(vault, fake_embedder, cli):
    """Embedded and reused count passage versions the import stored, once each (not once per commit that kept
    them), so they add up to what it stored; commits read are the ones replayed and those that changed no note."""
    repo = small_history(vault)
    line = cli("index", "--from-git")
    assert line.exit_code == 0, line.stderr
    assert line.stdout.startswith("7 commits read (6 replayed, 1 changed no note), 2021-01-01 to 2021-07-01: ")
    assert "3 notes added, 3 edits, 1 deletion, 1 rename" in line.stdout
    # "budget back" restores a text the first commit had: a new version, its vector the stored one
    assert "; 9 passages written: 8 embedded, 1 reused from an earlier commit; 9 passages stored in all;" in (
        line.stdout
    )
    repo.commit(
        "2021-08-01",
        "floor and a copy",
        {"plan.md": PLAN + "\n## Floor\n\nThe floor is laid from larch boards on gravel.\n", "copy.md": ROOF},
    )
    data = cli.json("index", "--from-git", "--json")
    assert (data["commits_read"], data["commits_replayed"], data["commits_without_notes"]) == (1, 1, 0)
    assert (data["passages_embedded"], data["passages_reused"], data["passages_written"]) == (1, 1, 2)
    assert data["passages_stored"] == 11  # the 9 before and the 2 this import added
    assert len(index_rows("SELECT id FROM chunks")) == data["passages_stored"]


def test_max_commits_imports_that_many_then_the_rest(vault, fake_embedder, cli):
    repo = small_history(vault)
    shas = repo.git("rev-list", "--reverse", "HEAD").split()
    first = cli.json("index", "--from-git", "--max-commits", "2", "--json")
    assert (first["commits_replayed"], first["commits_left"]) == (2, 5)
    assert (first["from_commit"], first["to_commit"]) == (shas[0], shas[1])
    assert {r[0] for r in index_rows("SELECT path FROM notes")} == {"plan.md", "tools.md"}
    second = cli.json("index", "--from-git", "--max-commits", "3", "--json")
    assert (second["commits_replayed"], second["commits_without_notes"], second["commits_left"]) == (2, 1, 2)
    assert (second["from_commit"], second["to_commit"]) == (shas[2], shas[4])
    rest = cli.json("index", "--from-git", "--json")
    assert (rest["commits_replayed"], rest["commits_left"], rest["to_commit"]) == (2, 0, shas[6])
    assert as_lists(stored_rows()) == EXPECTED_ROWS  # in steps or at once, the same index


def test_max_commits_needs_from_git(vault, fake_embedder, cli):
    result = cli("index", "--max-commits", "3")
    assert result.exit_code == 2 and "--max-commits only applies to --from-git" in result.stderr


def test_the_first_progress_report_comes_before_any_commit_is_read(vault, fake_embedder, monkeypatch):
    from smartvec_cli.core import git_import

    small_history(vault)
    reports, read = [], []
    changes = git_import.Git.changes
    monkeypatch.setattr(
        git_import.Git, "changes", lambda self, commit: read.append(len(reports)) or changes(self, commit)
    )
    blobs = git_import.Git.blobs
    monkeypatch.setattr(git_import.Git, "blobs", lambda self, ids: read.append(len(reports)) or blobs(self, ids))
    with smartvec_cli.open_vault(vault) as opened:
        opened.index(from_git=True, progress=reports.append)
    assert read and read[0] >= 1 and reports[0].step == "reading the history" and reports[0].done == 0
    assert [r.done for r in reports if r.step is None] == list(range(1, 8))  # then one report per commit


@pytest.mark.parametrize(("steps", "saved"), [((1,) * 7, 5), ((7,), 1)])
def test_the_vector_index_is_saved_once_per_import_and_not_for_a_commit_without_notes(
    vault, fake_embedder, monkeypatch, steps, saved
):
    from smartvec_cli.store.sqlite import SqliteStore

    small_history(vault)
    saves = []
    save = SqliteStore.save_ann
    monkeypatch.setattr(SqliteStore, "save_ann", lambda self: saves.append(1) or save(self))
    with smartvec_cli.open_vault(vault) as opened:
        for n in steps:
            opened.index(from_git=True, max_commits=n)
    assert len(saves) == saved  # one by commit: none for the commit without notes nor the deletion (no vector goes)


def test_links_resolved_commit_by_commit_lead_where_resolving_them_all_at_once_does(vault, fake_embedder):
    from smartvec_cli.core import relations
    from smartvec_cli.core.workspace import Workspace

    repo = Repo(vault)
    hub = "# Hub\n\nSee [[Later]], [[Alias of one]], [[b/Two]], [two](a/two.md) and [[Gone]].\n"
    repo.commit("2022-01-01", "hub", {"hub.md": hub, "gone.md": "# Gone\n\nSoon gone.\n", "b/two.md": "# Two b\n"})
    repo.commit("2022-02-01", "later", {"later.md": "# Later\n\nCame later.\n"})
    repo.commit("2022-03-01", "alias", {"one.md": "---\naliases: [Alias of one]\n---\n# One\n\nOne.\n"})
    repo.commit("2022-04-01", "two", {"a/two.md": "# Two a\n\nTwo.\n"})
    repo.commit("2022-05-01", "gone", remove=("gone.md",))
    repo.commit("2022-06-01", "moved", {"c/two.md": "# Two b\n\nMoved.\n"}, move=("b/two.md", "c/two.md"))
    with smartvec_cli.open_vault(vault) as opened:
        opened.index(from_git=True)
    stored = stored_rows()["links"]
    with Workspace.resolve().open_store() as store:
        with store.write():
            store.db.execute("UPDATE edges SET dst_note = NULL")
        relations.resolve_links(store, [])
    assert stored == stored_rows()["links"]
    assert ("hub", "link", "Later", "later") in stored and ("hub", "link", "Alias of one", "one") in stored
    assert ("hub", "link", "b/Two", None) in stored  # b/two.md moved away


def test_a_git_import_prints_its_first_progress_line_at_once_then_every_few_seconds():
    from smartvec_cli.cli.output import ProgressLines
    from smartvec_cli.core.progress import COMMITS, ProgressReport

    now, lines = [0.0], []
    progress = ProgressLines("git history", every=5.0, clock=lambda: now[0], write=lines.append, first_at_once=True)
    progress(ProgressReport(0, 0, COMMITS, step="reading the history"))
    now[0] = 1.0
    progress(ProgressReport(0, 7, COMMITS, step="reading commits 1-7"))
    now[0] = 5.0
    progress(ProgressReport(1, 7, COMMITS))
    assert lines == ["git history: reading the history", "git history: 1/7 commits (14%)"]


def test_a_commit_read_from_memory_writes_what_its_checkout_folder_would(vault, fake_embedder, monkeypatch):
    from smartvec_cli.core import git_import

    small_history(vault)
    monkeypatch.setattr(git_import, "in_memory", lambda paths, ws: False)
    with smartvec_cli.open_vault(vault) as opened:
        data = opened.index(from_git=True)
    assert data.commits_replayed == 6
    assert as_lists(stored_rows()) == EXPECTED_ROWS


@pytest.mark.parametrize(
    "paths, from_memory",
    [
        (["a.md", "sub/b.md", "sub/deeper/c.md"], True),
        (["a.md", "a.md/b.md"], False),  # a note where another one's folder is
        (["Sub/a.md", "sub/b.md"], False),  # one folder on a file system that ignores case
        (["A.md", "a.md"], False),
        (["x" * 300 + ".md"], False),  # a name too long for a file system
        ([".hidden/a.md"], False),  # the scan would skip it
        (["drafts/a.md"], False),  # excluded in config.toml
    ],
)
def test_a_commit_is_read_from_memory_only_when_a_folder_holds_its_notes_as_named(paths, from_memory):
    from smartvec_cli.config import Config
    from smartvec_cli.core.git_import import in_memory

    class Settings:
        config = Config(exclude=["drafts/**"])

    assert in_memory(paths, Settings()) is from_memory  # type: ignore[arg-type]


REFUNDS = (
    "---\ndate: {date}\n---\n# {title}\n\n## Scope\n\nThis policy covers every order placed in the web shop.\n\n"
    "## Deadline\n\nCustomers can ask for a refund within {days} days of delivery, with the receipt.\n\n"
    "## Contact\n\nRefund requests go to the service desk, which answers within two working days.\n"
)


def copies_history(vault) -> Repo:
    """A note, a later copy of it under another name (its passages mostly match), edits of both and of another."""
    repo = Repo(vault)
    repo.commit(
        "2023-02-01", "refunds", {"Refund Policy.md": REFUNDS.format(date="2023-02-01", title="Refunds", days=14)}
    )
    returns = REFUNDS.format(date="2025-04-01", title="Returns", days=30)
    repo.commit("2025-04-01", "copy", {"Customer Returns.md": returns, "plan.md": PLAN})
    repo.commit("2025-05-01", "edit", {"Customer Returns.md": returns.replace("two working", "three working")})
    repo.commit("2025-06-01", "other", {"plan.md": PLAN.replace("400 euros", "450 euros")})
    repo.commit("2025-07-01", "again", {"Customer Returns.md": returns})
    return repo


def test_versions_inferred_commit_by_commit_are_those_inferred_afresh_at_each(vault, fake_embedder, monkeypatch):
    from smartvec_cli.core import relations

    copies_history(vault)
    with smartvec_cli.open_vault(vault) as opened:
        opened.index(from_git=True)
    supersessions = "SELECT src_note, dst_note, detail, created_at FROM edges WHERE type = 'supersedes' ORDER BY id"
    windows = "SELECT id, superseded_at, superseded_by, valid_until FROM notes ORDER BY id"
    remembered = (index_rows(supersessions), index_rows(windows))
    assert remembered[0] and "passages mostly match" in remembered[0][0][2]

    afresh = relations.infer_versions
    monkeypatch.setattr(relations, "infer_versions", lambda store, config, now, memo=None: afresh(store, config, now))
    shutil.rmtree(vault.parent / "index")  # the same history imported again, with nothing remembered
    with smartvec_cli.open_vault(vault) as opened:
        opened.index(from_git=True)
    assert (index_rows(supersessions), index_rows(windows)) == remembered
