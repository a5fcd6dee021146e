"""The benchmark generator is honest, and the accuracy benchmark runs end to end (fake embedder).

No real model here: retrieval quality is measured by ``make bench``, not by the test suite.
"""

import datetime as dt
import json
import re
import sqlite3

import pytest

from smartvec_cli.bench.accuracy import run_accuracy
from smartvec_cli.bench.generator import QUESTION_TYPES, generate
from smartvec_cli.cli.bench import InProcessCli
from smartvec_cli.memory.asof import parse_as_of
from smartvec_cli.vault.parse import parse_note

TINY = dict(policies=4, entities_per_family=1, counts={"current": 4, "time_point": 4, "as_of": 3, "stable": 3})


@pytest.fixture(scope="module")
def bench():
    return generate(2604)


def test_default_vault_is_the_papers_size(bench):
    files = bench.final_files()
    passages = sum(len(parse_note(text, path).chunks) for path, text in files.items())
    assert 200 <= passages <= 300
    assert len(bench.questions) == 140
    assert {q.type for q in bench.questions} == set(QUESTION_TYPES)
    assert len(bench.contradictions_at(0.25)) == 6 and len(bench.contradictions_at(0.75)) == 17
    assert bench.contradictions_at(0.25) == bench.contradictions_at(0.5)[:6]


def test_same_seed_same_vault_other_seed_other_vault():
    assert generate(5).final_files() == generate(5).final_files()
    assert generate(5).final_files() != generate(6).final_files()


def test_every_answer_is_a_passage_of_the_vault_at_that_version(bench):
    """Version notes answer with version 1 of their own passage; an in-place note with the edit count."""
    files = bench.final_files()
    ids = {}
    for path, text in files.items():
        note = parse_note(text, path)
        for chunk in note.chunks:
            ids.setdefault(f"{note.explicit_id}#{chunk.key}", []).append(chunk.text)
    edits = {}
    for step in bench.steps:
        for f in step.files:
            edits[f.path] = edits.get(f.path, 0) + 1
    for q in bench.questions:
        assert q.answer.chunk_id in ids, q.answer
        assert q.answer not in q.stale
        assert q.answer in q.versions and set(q.stale) <= set(q.versions)
        assert 1 <= q.answer.version <= max(edits.values())


def test_time_points_fall_inside_their_version_window_whatever_the_reading(bench):
    now = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
    for q in bench.questions:
        start, end = (dt.date.fromisoformat(d) for d in q.period)
        if q.type == "time_point":
            found = parse_as_of(q.text, now)
            assert found is not None, q.text
            assert start <= found.moment.date() <= end, (q.text, found.moment, q.period)
        elif q.type == "as_of":
            assert q.as_of == q.period[0] and parse_as_of(q.text, now) is None
        else:
            assert parse_as_of(q.text, now) is None, q.text


def test_questions_paraphrase_rather_than_copy(bench):
    """No question shares five words in a row with any note."""
    words = lambda text: re.findall(r"[a-z0-9]+", text.lower())  # noqa: E731
    grams = set()
    for text in bench.final_files().values():
        w = words(text)
        grams.update(tuple(w[i : i + 5]) for i in range(len(w) - 4))
    for q in bench.questions:
        w = words(q.text)
        assert not any(tuple(w[i : i + 5]) in grams for i in range(len(w) - 4)), q.text


def test_contradictions_restate_an_outdated_value_from_a_low_authority_source(bench):
    for c in bench.contradictions:
        says = re.compile(r"(?<![\w.,])" + re.escape(c.claimed) + r"(?!\w)")
        assert says.search(c.file.text)
        assert re.search(r'source_type: "(chat|meeting_notes)"', c.file.text)
        assert (bench.now - dt.date.fromisoformat(re.search(r"date: (\S+)", c.file.text).group(1))).days <= 45
        history = [f.text for step in bench.steps for f in step.files if f'id: "pol-{c.topic}' in f.text]
        assert any(says.search(text) for text in history[:-1]), c.topic  # once true...
        assert not says.search(history[-1]), c.topic  # ...but no longer


def test_accuracy_benchmark_end_to_end(tmp_path, fake_embedder, monkeypatch):
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    tiny = generate(11, **TINY)
    report, records = run_accuracy(InProcessCli(), tmp_path, rates=(0.0, 0.5), rate=0.5, bench=tiny)
    for mode in ("smart", "cosine"):
        block = report[mode]
        assert set(block) >= {"top1", "stale_rate", "ece", "by_type"}
        assert set(block["by_type"]) == set(QUESTION_TYPES)
        assert all(0.0 <= v <= 1.0 for v in (block["top1"], block["stale_rate"], block["ece"]))
    assert [s["rate"] for s in report["sweep"]] == [0.0, 0.5]
    assert all(set(s) >= {"rate", "smart", "cosine"} for s in report["sweep"])
    assert 0.0 <= report["reembed_saved"] < 1.0
    assert report["reembed"]["chunks_embedded"] == report["reembed"]["notes_edited"]  # one passage per single-word edit
    assert len(records) == len(tiny.questions)
    json.dumps(report)

    db = sqlite3.connect(tmp_path / "index" / "smartvec.db")
    stored = {f"{c}@{v}" for c, v in db.execute("SELECT chunk_id, version FROM chunks")}
    assert {q.answer.label() for q in tiny.questions} <= stored
    assert {s.label() for q in tiny.questions for s in q.stale} <= stored


def test_bench_accuracy_json_and_report_commands(tmp_path, fake_embedder, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("bench", "accuracy", "--json", "--no-plots", "--out", "results", "--rates", "0,0.75")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) >= {"smart", "cosine", "sweep", "reembed_saved"}
    assert set(data["smart"]) >= {"top1", "stale_rate", "ece", "by_type"}
    assert [s["rate"] for s in data["sweep"]] == [0.0, 0.75]
    assert (tmp_path / "results" / "accuracy.md").is_file() and (tmp_path / "results" / "accuracy-questions.jsonl").is_file()
    report = cli("bench", "report", "--out", "results")
    assert report.exit_code == 0 and "| top-1 accuracy |" in report.stdout
    assert cli("bench", "report", "--out", "nowhere").exit_code == 2


def test_perf_benchmark_runs_and_reports(tmp_path, fake_embedder):
    from smartvec_cli.bench.perf import run_perf
    from smartvec_cli.bench.report import perf_markdown, targets_markdown

    perf = run_perf(tmp_path, notes=30, queries=10, cold_runs=0, edits=2)
    results = perf["results"]
    assert results["passages"] == len(set(fake_embedder.embedded[1 : 1 + results["passages"]])) > 30
    assert results["edit_reembed_saved"] > 0.5
    assert results["query_p95_ms"] >= results["query_p50_ms"] > 0
    assert perf["machine"]["cpus"] >= 1 and results["nochange_refresh_cli_s"] is None
    table = perf_markdown(perf) + targets_markdown(perf["targets"])
    assert "| no-change refresh, cold CLI call | - s |" in table


def test_warm_queries_are_timed_against_a_watch_daemon_started_for_them(vault, tmp_path, cli, monkeypatch):
    from conftest import REPO, write
    from fake_backend import use_fake_backend
    from smartvec_cli.bench.perf import daemon_query_latency
    from smartvec_cli.daemon.query_socket import socket_path

    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    write(vault, "a.md", "# Orchard\n\nThe kiwi harvest starts in May.\n")
    cli("index")
    monkeypatch.setenv("PYTHONPATH", str(REPO / "tests"))  # the daemon and the queries find the fake backend
    result = daemon_query_latency(["--vault", str(vault), "--index-dir", str(index_dir)], index_dir, ["kiwi harvest"], 3)
    assert 0 < result["query_warm_p50_s"] <= result["query_warm_p95_s"]
    assert result["query_warm_peak_rss_mb"] < 40  # answered by the daemon (about 20 MB; answering alone takes 60)
    assert not socket_path(index_dir).exists()  # and the daemon was stopped


def test_cold_call_reports_the_childs_own_peak_memory():
    from smartvec_cli.bench.perf import cold_call

    seconds, peak_mb, out = cold_call(["--version"])
    assert out.startswith("smartvec ") and seconds > 0
    assert 5 < peak_mb < 400  # a bare CLI start, not the parent's high-water mark


def test_subprocess_cli_runs_this_copy_of_the_package():
    from smartvec_cli import __version__
    from smartvec_cli.bench.accuracy import SubprocessCli
    from smartvec_cli.errors import SmartvecError

    assert SubprocessCli()(["--version"]).strip() == f"smartvec {__version__}"
    with pytest.raises(SmartvecError, match="exited with 2"):
        SubprocessCli()(["--vault", "/nonexistent/vault", "status"])
