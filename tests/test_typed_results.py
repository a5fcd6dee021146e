"""Each report the ``Vault`` returns is a frozen value whose ``to_dict()`` is what the command's ``--json`` prints,
byte for byte: ``status``, ``show``, ``history``, ``related``, ``changes`` and ``consolidate``.

Real SQLite indexes of temporary vaults, the command line through ``CliRunner``, the fake embedder."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import write

import smartvec_cli
from smartvec_cli.core import results

NOW = "2026-01-01"


def printed(value: object) -> str:
    """What a command's ``--json`` writes of a value (``cli.printing.print_json``)."""
    return json.dumps(value, ensure_ascii=False, indent=None) + "\n"


@pytest.fixture
def indexed(vault, cli, fake_embedder):
    write(vault, "policies/remote.md", "# Remote work\n\nEmployees may work from home two days a week.\n")
    write(vault, "notes/office.md", "# Office\n\nSee [[remote]] for the days at home.\n\n![[plan.pdf]]\n")
    write(vault, "notes/home.md", "# Home\n\nEmployees may work from home two days a week, says [[remote]].\n")
    (vault / "plan.pdf").write_bytes(b"%PDF-1.4\n")
    cli.json("--now", NOW, "index", "--json")
    cli.json("--now", NOW, "consolidate", "--json")
    write(vault, "policies/remote.md", "# Remote work\n\nEmployees may work from home three days a week.\n")
    cli.json("--now", "2026-02-01", "index", "--json")
    return vault


def check_printed_as(value: object, kind: type, cli, *command: str) -> None:
    """``value`` is a frozen ``kind`` whose dict is what ``command --json`` prints at the same moment."""
    assert isinstance(value, kind), type(value)
    first = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, first, None)
    result = cli("--now", "2026-02-01", *command, "--json")
    assert result.exit_code == 0, result.stderr
    assert printed(value.to_dict()) == result.stdout  # type: ignore[attr-defined]


def test_status_is_a_vault_status(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        status = vault.status()
    check_printed_as(status, results.VaultStatus, cli, "status")
    assert status.notes == 3 and status.kinds.unknown == 3 and status.ann.in_sync
    assert status.passages["UNCONSOLIDATED"] == 1 and status.embedder.languages == ("en",)
    assert status.last_run is not None and status.last_run.command == "index" and status.last_run.status == "ok"
    assert status.last_run.summary["notes_changed"] == 1


def test_show_is_a_note_view(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        view = vault.show("notes/office.md")
    check_printed_as(view, results.NoteView, cli, "show", "notes/office.md")
    assert view.path == "notes/office.md" and view.kind.type is None and view.tags == ()
    assert [(link.type, link.resolved, link.attachment) for link in view.links] == [
        ("link", "policies/remote.md", False),
        ("embed", "plan.pdf", True),
    ]
    assert all("reason" not in link.to_dict() for link in view.links)
    assert [p.version for p in view.passages] == [1] and view.passages[0].state == "ACTIVE"


def test_history_is_a_note_history(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        lineage = vault.history("policies/remote.md")
    check_printed_as(lineage, results.NoteHistory, cli, "history", "policies/remote.md")
    [passage] = lineage.passages
    first, second = passage.versions
    assert (first.state, second.state) == ("ARCHIVED", "UNCONSOLIDATED")  # the edit replaced v1 at once
    assert first.replaced_by == f"{passage.chunk_id}@2" and "three days" in second.text


def test_a_note_event_prints_its_detail_beside_when_and_what():
    event = results.NoteEvent("2026-01-01T00:00:00Z", "feedback", {"signal": "down", "trust_before": 0.9})
    assert event.to_dict() == {"at": "2026-01-01T00:00:00Z", "kind": "feedback", "signal": "down", "trust_before": 0.9}


def test_related_is_related_notes(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        found = vault.related("notes/home.md", top_k=2)
    check_printed_as(found, results.RelatedNotes, cli, "related", "notes/home.md", "-k", "2")
    assert found.note.path == "notes/home.md" and found.method == "best"
    assert found.related and all(isinstance(item, results.RelatedNote) for item in found.related)
    assert [item.rank for item in found.related] == list(range(1, len(found.related) + 1))
    assert all(item.passage.chunk_id.startswith(item.note_id) for item in found.related)


def test_changes_is_a_changes_report(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        report = vault.changes("2026-01-15")
    check_printed_as(report, results.ChangesReport, cli, "changes", "--since", "2026-01-15")
    [added] = report.added
    [replaced] = report.replaced
    assert added.replaces == results.PassageVersionRef(replaced.chunk_id, 1, replaced.text)
    assert replaced.how == "edited" and isinstance(replaced.by, results.PassageVersionRef) and replaced.by.version == 2
    assert report.expired == () and report.contradicted == ()
    shown = cli("--now", "2026-02-01", "changes", "--since", "2026-01-15")
    assert shown.exit_code == 0 and "edited" in shown.stdout and "by v2" in shown.stdout


def test_consolidate_is_a_consolidate_report(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        report = vault.consolidate()
    assert isinstance(report, results.ConsolidateReport) and report.notes_processed == 1
    assert report.transitions["UNCONSOLIDATED->ACTIVE"] == 1
    with pytest.raises(TypeError):
        report.transitions["ACTIVE->DORMANT"] = 1  # type: ignore[index]
    again = cli.json("--now", "2026-02-01", "consolidate", "--json")  # nothing left: the run's counts are zero
    assert list(again) == list(report.to_dict()) and again["notes_processed"] == 0


def test_refresh_is_a_refresh_record(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        record = vault.refresh()
    assert isinstance(record, results.RefreshRecord) and record.status == "ok" and record.error is None
    assert [stage.name for stage in record.stages] == ["index", "consolidate", "compact"]
    assert record.stages[1].details["notes_processed"] == 1  # the edit of policies/remote.md
    assert list(record.to_dict()) == list(cli.json("--now", "2026-02-01", "refresh", "--nightly", "--json"))


def test_a_refresh_stage_prints_the_keys_its_status_has():
    failed = results.RefreshStage("index", "failed", 0.5, error="disk full")
    stopped = results.RefreshStage("compact", "interrupted", 0.1)
    done = results.RefreshStage("compact", "ok", 0.2, note="", details={"compacted": False})
    assert failed.to_dict() == {"name": "index", "status": "failed", "seconds": 0.5, "error": "disk full"}
    assert stopped.to_dict() == {"name": "compact", "status": "interrupted", "seconds": 0.1}
    assert list(done.to_dict()) == ["name", "status", "seconds", "changed", "note", "details"]


def test_feedback_is_a_feedback_result(indexed, cli):
    with smartvec_cli.open_vault(now="2026-02-01") as vault:
        [hit] = vault.query("work from home", top_k=1, track=False)
        given = vault.feedback(hit.chunk_id, "down")
    assert isinstance(given, results.FeedbackResult) and given.chunk_id == hit.chunk_id and given.signal == "down"
    assert given.trust_after < given.trust_before and given.correction_chunk_id is None
    again = cli.json("--now", "2026-02-01", "feedback", hit.chunk_id, "--down", "--json")
    assert list(again) == list(given.to_dict()) and again["trust_before"] == given.trust_after


def test_index_is_an_index_run_with_the_totals_after_it(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nSome text.\n")
    with smartvec_cli.open_vault(now=NOW) as opened:
        run = opened.index()
    assert isinstance(run, results.IndexRun) and isinstance(run, results.IndexReport)
    assert (run.notes_new, run.passages_embedded, run.notes_to_consolidate, run.passages_stored) == (1, 1, 1, 1)
    write(vault, "b.md", "# B\n\nOther text.\n")
    printed_keys = list(cli.json("--now", NOW, "index", "--json"))
    assert list(run.to_dict()) == printed_keys and printed_keys[-2:] == ["notes_to_consolidate", "passages_stored"]


def test_a_git_import_is_a_git_import_report(vault, cli, fake_embedder):
    from test_git_import import small_history

    repo = small_history(vault)
    with smartvec_cli.open_vault(vault) as opened:
        report = opened.index(from_git=True)
    assert isinstance(report, results.GitImportReport)
    assert (report.commits_read, report.commits_replayed, report.commits_without_notes) == (7, 6, 1)
    assert report.errors == () and report.passages_stored == 9
    repo.commit("2021-08-01", "another", {"more.md": "# More\n\nA new note.\n"})
    again = cli.json("index", "--from-git", "--json")
    assert list(again) == list(report.to_dict())
    assert results.GitImportReport.from_dict(report.to_dict()) == report


def test_a_consolidate_report_reads_back_from_its_dict():
    data = {
        "transitions": {"UNCONSOLIDATED->ACTIVE": 2},
        "edges_added": 1,
        "edges_removed": 0,
        "contradictions_found": 0,
        "passages_rippled": 0,
        "notes_needing_review": 0,
        "notes_processed": 2,
        "seconds": 0.5,
    }
    report = results.ConsolidateReport.from_dict(data)
    assert report.to_dict() == data and report.edges_added == 1
