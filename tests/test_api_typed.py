"""The Python API's typed answers: frozen values whose ``to_dict()`` is byte for byte what ``query --json`` prints,
options given as keywords only, and the names a caller needs importable from the package top (fake embedder)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
import typing

import pytest
from conftest import REPO, write

import smartvec_cli
from smartvec_cli import BatchAnswer, QueryAnswer, QueryHit, QueryRequest, Signals

NOW = "2026-01-01"
QUESTION = "How many days per week can I work from home?"
OLD = "---\ndate: 2021-01-10\n---\n# Remote work\n\nEmployees may work from home on up to 2 days per week.\n"
NEW = (
    "---\ndate: 2022-09-01\ntags: [policy]\n---\n# Remote work\n\n"
    "Employees may work from home on up to 3 days per week; Tuesday and Thursday are office days.\n\n"
    "## Equipment\n\nThe office lends a laptop and a screen to everyone who works from home.\n"
)
LUNCH = "# Lunch\n\nThe canteen serves pasta on Fridays and soup on Mondays.\n"


@pytest.fixture
def indexed(vault, cli, fake_embedder):
    """A vault of three notes, one of them edited (so that an archived version exists), indexed and consolidated
    through the command line."""
    write(vault, "policies/remote.md", OLD)
    write(vault, "chat/lunch.md", LUNCH)
    cli.json("--now", "2021-03-01", "index", "--json")
    write(vault, "policies/remote.md", NEW)
    cli.json("--now", "2022-09-02", "index", "--json")
    cli.json("--now", "2022-09-02", "consolidate", "--json")
    with smartvec_cli.open_vault(now=NOW) as api:
        yield api


def printed(cli, *args: str) -> str:
    result = cli("--now", NOW, "query", *args, "--no-track")
    assert result.exit_code == 0, result.stderr
    return result.stdout


def as_printed(value: object) -> str:
    """What ``query --json`` writes of a value (``cli.printing.print_json``)."""
    return json.dumps(value, ensure_ascii=False, indent=None) + "\n"


@pytest.mark.parametrize("mode", ["smart", "cosine", "lexical"])
@pytest.mark.parametrize("explain", [False, True])
def test_to_dict_is_byte_for_byte_what_query_json_prints(indexed, cli, mode, explain):
    flags = ["--mode", mode, "--top-k", "4", *(["--explain"] if explain else [])]
    hits = indexed.query(QUESTION, mode=mode, top_k=4, explain=explain, track=False)
    assert hits and all(isinstance(hit, QueryHit) for hit in hits)
    assert as_printed([hit.to_dict() for hit in hits]) == printed(cli, QUESTION, "--json", *flags)
    assert indexed.answer(QUESTION, mode=mode, top_k=4, explain=explain, track=False).hits == hits


def test_the_answer_carries_the_moment_it_is_about(indexed, cli):
    answer = indexed.answer(QUESTION, as_of="mid-2021", explain=True, track=False)
    assert isinstance(answer, QueryAnswer)
    assert (answer.as_of, answer.as_of_phrase, answer.as_of_period) == (
        "2021-07-01T12:00:00Z",
        "mid-2021",
        ("2021-06-01", "2021-07-31"),
    )
    assert "2 days per week" in answer.hits[0].text and answer.hits[0].state == "ARCHIVED"
    data = answer.to_dict()
    assert list(data) == ["hits", "as_of", "as_of_phrase", "as_of_period", "as_of_rule", "relevant", "notes_matched"]
    assert data["as_of_period"] == ["2021-06-01", "2021-07-31"]
    assert as_printed(data["hits"]) == printed(cli, QUESTION, "--as-of", "mid-2021", "--explain", "--json")
    assert answer.hits[0].explain is not None and answer.hits[0].explain["as_of"]["words"] == "mid-2021"
    assert QueryAnswer.from_dict(json.loads(json.dumps(data))) == answer


def test_a_batch_answer_is_one_line_of_query_batch(indexed, cli, tmp_path):
    lines = [
        {"id": "a", "query": QUESTION},
        {"id": 2, "query": QUESTION, "as_of": "2021-06-01"},
        {"id": None, "query": "pasta", "tag": "policy"},
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    for explain in (False, True):
        answers = list(indexed.query_batch(lines, top_k=2, explain=explain, track=False))
        assert all(isinstance(answer, BatchAnswer) for answer in answers)
        assert [answer.id for answer in answers] == ["a", 2, None]
        assert answers[2].notes_matched == 1
        flags = ["--explain"] if explain else []
        expected = printed(cli, "--batch", str(batch), "--top-k", "2", "--json", *flags)
        assert "".join(as_printed(answer.to_dict()) for answer in answers) == expected


def test_a_hit_is_frozen_and_each_field_typed(indexed, cli):
    hit = indexed.query(QUESTION, explain=True, track=False)[0]
    printed_hit = json.loads(printed(cli, QUESTION, "--explain", "--json"))[0]
    assert [field.name for field in dataclasses.fields(QueryHit)] == list(printed_hit)
    hints = typing.get_type_hints(QueryHit)
    assert all(hints[field.name] is not typing.Any for field in dataclasses.fields(QueryHit))
    assert isinstance(hit.rank, int) and isinstance(hit.version, int) and isinstance(hit.score, float)
    assert isinstance(hit.signals, Signals) and isinstance(hit.signals.semantic, float)
    assert isinstance(hit.warnings, tuple) and isinstance(hit.path, str) and isinstance(hit.url, str)
    assert isinstance(hit.valid_from, str) and hit.valid_until is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.rank = 9  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        hit.signals.semantic = 0.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        hit.explain["cosine"] = 1.0  # type: ignore[index]
    hit.to_dict()["explain"]["cosine"] = 1.0  # the dict is a copy: the value stays as it was
    assert hit.to_dict() == printed_hit and QueryHit.from_dict(printed_hit) == hit
    plain = indexed.query(QUESTION, track=False)[0]
    assert plain.explain is None and "explain" not in plain.to_dict()
    assert hash(plain) == hash(indexed.query(QUESTION, track=False)[0])


def test_options_are_keywords_only(indexed):
    for method in (indexed.query, indexed.answer, indexed.query_batch):
        parameters = list(inspect.signature(method).parameters.values())
        assert parameters[0].kind is inspect.Parameter.POSITIONAL_ONLY
        assert [p.name for p in parameters[1:]] == [field.name for field in dataclasses.fields(QueryRequest)]
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])
    with pytest.raises(TypeError, match="keywords"):
        indexed.query(QUESTION, "2021-06-01")
    with pytest.raises(TypeError, match="keywords"):
        indexed.answer(QUESTION, None, 3)
    with pytest.raises(TypeError, match="keywords"):
        indexed.query_batch([{"query": QUESTION}], 3)
    with pytest.raises(TypeError, match="top_kk"):
        indexed.query(QUESTION, top_kk=3)
    options = QueryRequest(top_k=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.top_k = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        QueryRequest(None, 2)  # type: ignore[misc]
    assert len(indexed.query(QUESTION, top_k=1, track=False)) == 1


def test_the_public_names_import_from_the_package_top():
    from smartvec_cli import (  # noqa: F401
        Answer,
        QueryRequest,
        Question,
        SmartvecError,
        UsageError,
        Vault,
        open_vault,
    )

    assert issubclass(UsageError, SmartvecError)
    for name in smartvec_cli.__all__:
        assert getattr(smartvec_cli, name) is not None
    with pytest.raises(AttributeError):
        smartvec_cli.not_a_name  # noqa: B018
    script = (
        "import sys, smartvec_cli\n"
        "from smartvec_cli import QueryHit, QueryAnswer, BatchAnswer, UsageError\n"
        "print(sorted(m for m in ('numpy', 'smartvec_cli.core.api', 'smartvec_cli.store.store') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # the result types cost no core import: ``smartvec --help`` stays fast
