"""The Python API end to end, without Typer: index, query (now and as of a date), feedback, consolidate (real model)."""

import sys

import pytest
from conftest import write

import smartvec_cli
from smartvec_cli.errors import UsageError

pytestmark = pytest.mark.slow

V1 = "# Remote work\n\nEmployees may work from home on up to 2 days per week.\n"
V2 = "# Remote work\n\nEmployees may work from home on up to 3 days per week; Tuesday and Thursday are office days.\n"
CHAT = "---\nsource_type: chat\n---\n# Lunch chat\n\nThe canteen serves pasta on Fridays and soup on Mondays.\n"
QUESTION = "How many days per week can I work from home?"


@pytest.fixture
def api_vault(tmp_path, real_embedder_session):
    vault_dir = tmp_path / "vault"
    vault_dir.mkdir()
    vault = smartvec_cli.open_vault(
        vault_dir, index_dir=tmp_path / "index", now="2021-03-01", embedder=real_embedder_session
    )
    yield vault_dir, vault
    vault.close()


def test_index_query_feedback_consolidate_through_the_python_api(api_vault):
    vault_dir, vault = api_vault
    write(vault_dir, "policies/remote.md", V1)
    write(vault_dir, "chat/lunch.md", CHAT)
    first = vault.index()
    assert (first.notes_new, first.passages_embedded, first.errors) == (2, 2, ())

    write(vault_dir, "policies/remote.md", V2)
    later = vault.at("2022-09-01")
    assert later.index().notes_changed == 1
    assert later.consolidate().notes_processed >= 1

    now = vault.at("2026-01-01")
    hits = now.query(QUESTION, top_k=2, track=False)
    assert "3 days per week" in hits[0].text and hits[0].version == 2
    assert set(hits[0].to_dict()) >= {
        "rank",
        "chunk_id",
        "note_id",
        "path",
        "score",
        "confidence",
        "signals",
        "state",
        "warnings",
    }

    past = now.query(QUESTION, as_of="2022-01-01", top_k=1, track=False)[0]
    assert "2 days per week" in past.text and past.state == "ARCHIVED"
    assert any("superseded by" in w for w in past.warnings)
    assert (
        "2 days per week"
        in now.query("How many days per week could I work from home back in 2021?", top_k=1, track=False)[0].text
    )

    answers = list(
        now.query_batch(
            [{"id": "a", "query": QUESTION}, {"id": "b", "query": QUESTION, "as_of": "2021-06-01"}],
            top_k=1,
            track=False,
        )
    )
    assert [a.id for a in answers] == ["a", "b"]
    assert "3 days" in answers[0].hits[0].text and "2 days" in answers[1].hits[0].text

    chunk_id = hits[0].chunk_id
    result = now.feedback(chunk_id, "up")
    assert result.chunk_id == chunk_id and result.trust_after > result.trust_before
    after = now.query(QUESTION, top_k=1, explain=True, track=False)[0]
    assert after.explain is not None and after.explain["feedback"] > 0
    assert after.signals.confidence is not None and hits[0].signals.confidence is not None
    assert after.signals.confidence > hits[0].signals.confidence

    status = now.status()
    assert status.notes == 2 and status.last_run is not None and status.to_dict()["notes"] == 2
    versions = [v.version for p in now.history("policies/remote.md").passages for v in p.versions]
    assert sorted(versions) == [1, 2]
    assert any(n["path"] == "policies/remote.md" for n in now.graph().to_dict()["nodes"])


def test_the_api_checks_its_arguments_with_one_clear_error(api_vault):
    vault_dir, vault = api_vault
    write(vault_dir, "a.md", "# A\n\nSome text.\n")
    vault.index()
    with pytest.raises(UsageError, match="top_k"):
        vault.query("text", top_k=0)
    with pytest.raises(UsageError, match="mode"):
        vault.query("text", mode="fuzzy")
    with pytest.raises(UsageError, match="verdict"):
        vault.feedback("a#x", "maybe")
    with pytest.raises(UsageError):
        vault.query("text", as_of="not a date")


def test_importing_the_package_stays_light():
    """``import smartvec_cli`` (which every CLI call does) must not pull in numpy or the store."""
    import subprocess

    code = (
        "import sys, smartvec_cli; print(sorted(m for m in ('numpy', 'sqlite_utils', 'hnswlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
