"""The door the commands and the daemons go through: ``Vault.doctor``, ``graph``, ``deleted_notes``, ``forget``,
``update`` and ``adopt_reader`` return frozen values whose ``to_dict()`` is what the command prints, and the
``at`` views answer from the vault's one open store.

Real SQLite indexes of temporary vaults, the command line through ``CliRunner``, the fake embedder."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest
from conftest import write

import smartvec_cli
from smartvec_cli.core.api import Vault
from smartvec_cli.core.results import DeletedNote, DoctorCheck, DoctorReport, ForgetResult, IndexReport, NoteGraph
from smartvec_cli.core.workspace import Workspace
from smartvec_cli.errors import UsageError

NOW = "2026-01-01"


def printed(value: object) -> str:
    """What a command's ``--json`` writes of a value (``cli.printing.print_json``)."""
    return json.dumps(value, ensure_ascii=False, indent=None) + "\n"


@pytest.fixture
def indexed(vault, cli, fake_embedder):
    write(vault, "policies/remote.md", "# Remote work\n\nEmployees may work from home two days a week.\n")
    write(vault, "notes/office.md", "# Office\n\nSee [[remote]] for the days at home.\n\n![[plan.pdf]]\n")
    write(vault, "old/secret.md", "# Secret\n\nThe door code is 4711.\n")
    (vault / "plan.pdf").write_bytes(b"%PDF-1.4\n")
    cli.json("--now", NOW, "index", "--json")
    cli.json("--now", NOW, "consolidate", "--json")
    return vault


def test_doctor_is_a_frozen_report_whose_dict_is_what_doctor_json_prints(indexed, cli):
    with smartvec_cli.open_vault(now=NOW) as vault:
        report = vault.doctor()
    assert isinstance(report, DoctorReport) and report.ok and report.problems == 0
    assert all(isinstance(check, DoctorCheck) for check in report.checks)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.checks[0].ok = False  # type: ignore[misc]
    result = cli("--now", NOW, "doctor", "--json")
    assert result.exit_code == 0, result.stderr
    assert printed(report.to_dict()) == result.stdout
    assert [kind for kind, _ in report.grouped()][0] == "index"


def test_doctor_repair_rebuilds_under_the_writer_lock_and_says_so(indexed, tmp_path):
    (tmp_path / "index" / "vectors.json").unlink()
    with smartvec_cli.open_vault(now=NOW) as vault:
        broken = vault.doctor()
        assert not broken.ok and broken.repairable and broken.problems == 1
        fixed = vault.doctor(repair=True)
    [check] = [c for c in fixed.checks if c.name == "ann_file"]
    assert fixed.ok and check.repaired and check.severity == "fixed"
    assert check.detail.endswith("rebuilt from 3 stored vectors and saved")


def test_the_note_graph_prints_as_graph_does_in_every_format(indexed, cli):
    with smartvec_cli.open_vault(now=NOW) as vault:
        graph = vault.graph()
    assert isinstance(graph, NoteGraph) and graph.left_out == 0
    assert {node.path for node in graph.nodes} == {"policies/remote.md", "notes/office.md", "old/secret.md"}
    assert [(e.type, e.count) for e in graph.edges] == [("link", 1)]
    assert [(a.path, a.type) for a in graph.attachments] == [("plan.pdf", "embed")]
    for fmt, text in (
        ("json", printed(graph.to_dict())),
        ("mermaid", graph.mermaid() + "\n"),
        ("dot", graph.dot() + "\n"),
    ):
        result = cli("--now", NOW, "graph", "--format", fmt)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == text, fmt


def test_forgetting_returns_what_forget_json_prints(indexed, cli):
    os.remove(indexed / "old" / "secret.md")
    cli.json("--now", NOW, "index", "--json")
    with smartvec_cli.open_vault(now=NOW) as vault:
        with pytest.raises(UsageError, match="is still in the vault"):
            vault.deleted_notes(["policies/remote.md"])
        found = vault.deleted_notes(every_deleted=True)
        assert found == (DeletedNote("old/secret.md", found[0].note_id, found[0].deleted_at),)
        assert found[0].deleted_at and found[0].to_dict() == {
            "path": "old/secret.md",
            "note_id": found[0].note_id,
            "deleted_at": found[0].deleted_at,
        }
        erased = vault.forget(["old/secret.md"])
        assert erased == ForgetResult(("old/secret.md",), 1)
        assert vault.deleted_notes(every_deleted=True) == ()
    assert printed(erased.to_dict()) == '{"forgotten": ["old/secret.md"], "passage_versions": 1}\n'
    result = cli("--now", NOW, "forget", "--all-deleted", "--yes", "--json")
    assert result.stdout == printed(ForgetResult().to_dict())


def test_update_hands_its_store_to_the_vault_that_answers(vault, fake_embedder, cli):
    """The watch daemon's batch: index and consolidate in one lock hold; the reader then answers from the writer's
    store, and opens the index again once another writer has moved it on."""
    write(vault, "a.md", "# Apples\n\nApples grow on trees in the orchard.\n")
    ws = Workspace.resolve(now=NOW)
    writer, reader = Vault(ws, fake_embedder), Vault(ws, fake_embedder)
    writer.ensure_index()
    report = writer.update()
    assert isinstance(report, IndexReport) and report.notes_new == 1 and report.passages_embedded == 1
    assert report.to_dict()["passages_embedded"] == 1 and list(report.to_dict())[-1] == "seconds"
    handed = writer._reader.store  # the store itself is what shows: on a vault this small both answer alike
    reader.adopt_reader(writer)
    assert writer._reader.store is None and reader._reader_store() is handed
    assert [hit.path for hit in reader.query("apples orchard", track=False)] == ["a.md"]

    write(vault, "b.md", "# Bananas\n\nBananas ripen in the orchard shed.\n")
    cli.json("--now", NOW, "index", "--json")  # another writer: the reader's store is behind it now
    assert "b.md" in [hit.path for hit in reader.query("bananas shed", track=False)]
    assert reader._reader_store() is not handed
    reader.adopt_reader(writer)  # nothing left to hand over: the reader keeps its own
    assert "b.md" in [hit.path for hit in reader.query("bananas shed", track=False)]
    writer.close()
    reader.close()


def test_views_at_other_moments_answer_from_the_one_open_store(indexed):
    from smartvec_cli.store.db import _connections_open

    database = Workspace.resolve().layout.db
    with smartvec_cli.open_vault(now=NOW) as vault:
        before = _connections_open(database)
        for moment in ("2020-01-01", "2024-06-01", None):
            assert vault.at(moment).query("days at home", track=False, top_k=1)
        assert _connections_open(database) == before + 1
    assert _connections_open(database) == before
