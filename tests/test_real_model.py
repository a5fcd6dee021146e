"""The real all-MiniLM-L6-v2 weights on the real sample vault: retrieval works, re-runs embed nothing."""

import json
import shutil

import pytest
from conftest import SAMPLE_VAULT, Cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def indexed_copy(tmp_path_factory, real_embedder_session):
    """The sample vault copied and indexed once for this module with the real model."""
    root = tmp_path_factory.mktemp("real")
    vault, index = root / "vault", root / "index"
    shutil.copytree(SAMPLE_VAULT, vault, ignore=shutil.ignore_patterns(".smartvec"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: real_embedder_session)
        first = Cli().json("--vault", str(vault), "--index-dir", str(index), "index", "--json")
    return vault, index, first


@pytest.fixture
def indexed_sample(indexed_copy, monkeypatch, real_embedder):
    vault, index, first = indexed_copy
    monkeypatch.setenv("SMARTVEC_VAULT", str(vault))
    monkeypatch.setenv("SMARTVEC_INDEX", str(index))
    return vault, first


def test_sample_vault_indexes_once_and_then_embeds_nothing(indexed_sample, cli):
    _, first = indexed_sample
    assert first["errors"] == []
    assert first["notes_new"] == first["notes_scanned"] >= 30
    assert first["passages_embedded"] > 150
    second = cli.json("index", "--json")
    assert second["passages_embedded"] == 0 and second["notes_unchanged"] == first["notes_scanned"]


@pytest.mark.parametrize(
    "question, expected_paths",
    [
        ("What is the street address of the Hamburg headquarters?", {"wiki/Company Overview.md"}),
        (
            "Which programming language is the ingestion service written in?",
            {
                "engineering/ADR-007 Ingestion Storage.md",
                "engineering/Tidewater Architecture Overview.md",
                "engineering/Ingestion Service Runbook.md",
                "wiki/Glossary.md",
            },
        ),
        ("How is Beacon firmware signed before release?", {"engineering/Beacon Firmware Release Process.md"}),
    ],
)
def test_stable_facts_come_back_first(indexed_sample, cli, question, expected_paths):
    for mode in ("smart", "cosine"):
        hits = cli.json("query", question, "--json", "--mode", mode, "--top-k", "3")
        assert hits[0]["path"] in expected_paths, [h["path"] for h in hits]
        assert hits[0]["signals"]["semantic"] > 0.3


def test_batch_answers_each_line_with_one_model_load(indexed_sample, cli, real_embedder):
    lines = "\n".join(
        json.dumps(q)
        for q in [
            {"id": "hq", "query": "Where is the Hamburg office?"},
            {"id": 2, "query": "How is firmware signed?"},
        ]
    )
    result = cli("query", "--batch", "-", "--top-k", "2", input=lines + "\n")
    assert result.exit_code == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["id"] for a in answers] == ["hq", 2]
    assert all(len(a["hits"]) == 2 for a in answers)
    hit = answers[0]["hits"][0]
    assert set(hit) >= {
        "rank",
        "chunk_id",
        "note_id",
        "path",
        "heading",
        "text",
        "score",
        "confidence",
        "signals",
        "state",
        "valid_from",
        "valid_until",
        "version",
        "warnings",
    }
