"""The benchmark generator is honest, and the accuracy benchmark runs end to end (fake embedder).

No real model here: retrieval quality is measured by ``make bench``, not by the test suite.
"""

import datetime as dt
import json
import re
from functools import partial

import pytest

from smartvec_cli.bench.accuracy import off_topic_questions, run_accuracy
from smartvec_cli.bench.catalogue import CALIBRATION, EVALUATION, overlap
from smartvec_cli.bench.generator import (
    COLLOQUIAL_PHRASES,
    DOCUMENTED_PHRASES,
    MARGIN,
    PLAIN_CHAT_FOLDERS,
    PLAIN_MEETING_FOLDERS,
    QUESTION_TYPES,
    STYLES,
    generate,
)
from smartvec_cli.bench.report import accuracy_markdown
from smartvec_cli.memory.asof import parse_as_of
from smartvec_cli.vault.parse import parse_note, split_frontmatter

TINY = dict(
    policies=4,
    entities_per_family=1,
    identifiers_per_family=2,
    long_notes=1,
    rules=1,
    counts={"current": 4, "time_point": 4, "as_of": 3, "stable": 3, "lexical": 3, "long_note": 3},
)
LABELLED_KEYS = ("source_type", "valid_from", "valid_until", "supersedes", "version")


@pytest.fixture(scope="module")
def bench():
    return generate(2604)


def all_files(bench, style):
    rendering = bench.styles[style]
    files = dict(rendering.final_files())
    files.update((f.path, f.text) for f in rendering.rumour_files + rendering.probe_files)
    return files


def test_default_vault_size(bench):
    files = bench.styles["labelled"].final_files()
    passages = sum(len(parse_note(text, path).chunks) for path, text in files.items())
    assert 300 <= passages <= 450
    assert len(bench.questions) == 188
    assert {q.type for q in bench.questions} == set(QUESTION_TYPES)
    assert bench.rumour_count(0.25) == 6 and bench.rumour_count(0.75) == 17
    assert {q.phrase_kind for q in bench.questions if q.type == "time_point"} & set(COLLOQUIAL_PHRASES)


def test_calibration_and_evaluation_share_no_topic_and_no_template():
    assert overlap(CALIBRATION, EVALUATION) == {"shared_topics": 0, "shared_templates": 0}
    evaluation, calibration = generate(2604), generate(1729, catalogue=CALIBRATION)
    assert not {q.topic for q in evaluation.questions} & {q.topic for q in calibration.questions}
    assert not {q.template for q in evaluation.questions} & {q.template for q in calibration.questions}
    assert not {q.text for q in evaluation.questions} & {q.text for q in calibration.questions}
    assert {q.template.lower() for q in evaluation.questions} <= EVALUATION.templates()


@pytest.mark.parametrize("seed", [2604, 5, 77])
def test_no_two_evaluation_questions_are_identical(seed):
    questions = generate(seed).questions
    texts = [q.text for q in questions]
    assert len(set(texts)) == len(texts)
    assert len({q.id for q in questions}) == len(questions)


def test_same_seed_same_vault_other_seed_other_vault():
    for style in STYLES:
        assert generate(5).styles[style].final_files() == generate(5).styles[style].final_files()
        assert generate(5).styles[style].final_files() != generate(6).styles[style].final_files()


def test_both_styles_state_the_same_facts(bench):
    """Every answer's sentence is in its note in both styles, at the version the question asks about."""
    for style in STYLES:
        rendering = bench.styles[style]
        texts: dict[str, list[str]] = {}
        for step in rendering.steps:
            for f in step.files:
                texts.setdefault(rendering.doc_of[f.path], []).append(f.text)
        for q in bench.questions:
            assert any(q.answer.needle in text for text in texts[q.answer.doc]), (style, q.id)
            if q.type in ("current", "stable", "lexical", "long_note"):
                assert q.answer.needle in texts[q.answer.doc][-1], (style, q.id)
            assert q.answer not in q.stale and q.answer in q.versions and set(q.stale) <= set(q.versions)
            if q.near_miss:
                assert q.near_miss.doc == q.answer.doc and q.near_miss.needle in texts[q.answer.doc][-1]


def test_plain_style_has_no_labels_anywhere(bench):
    labelled, plain = all_files(bench, "labelled"), all_files(bench, "plain")
    assert any(re.search(r"^source_type:", text, re.M) for text in labelled.values())
    for path, text in plain.items():
        metadata = split_frontmatter(text)[0]
        assert not set(metadata) & set(LABELLED_KEYS), path
        assert set(metadata) <= {"date"}, path
        assert not re.search(r" \^[\w-]+$", text, re.M), path
    copy_names = (
        r" v\d\.md$",
        r" \(\d{4}\)\.md$",
        r" - updated\.md$",
        r" \(new\)\.md$",
        r"/Copy of ",
        r" \d{4}-\d\d-\d\d\.md$",
    )
    assert sum(any(re.search(name, p) for p in plain if p.startswith("policies/")) for name in copy_names) >= 4
    remark_folders = {
        f.path.rsplit("/", 1)[0] for f in bench.styles["plain"].rumour_files + bench.styles["plain"].probe_files
    }
    assert remark_folders <= set(PLAIN_CHAT_FOLDERS) | set(PLAIN_MEETING_FOLDERS)


def test_time_points_fall_inside_their_version_window(bench):
    now = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
    for q in bench.questions:
        start, end = (dt.date.fromisoformat(d) for d in q.period)
        if q.type in ("time_point", "as_of"):
            history = next(h for h in bench.world.histories if h.spec.key == q.topic)
            k = next(k for k in range(len(history.starts)) if history.expected(k) == q.answer)
            lo, hi = history.window(k)
            assert lo + MARGIN <= start <= end <= hi - MARGIN, (q.text, q.period)
        if (
            q.type == "time_point" and q.phrase_kind in DOCUMENTED_PHRASES + COLLOQUIAL_PHRASES
        ):  # every kind resolves inside its period
            found = parse_as_of(q.text, now)
            assert found is not None, q.text
            assert start <= found.moment.date() <= end, (q.text, found.moment, q.period)
        elif q.type == "as_of":
            assert q.as_of == q.period[0] and parse_as_of(q.text, now) is None
        elif q.type != "time_point":
            assert parse_as_of(q.text, now) is None, q.text


def test_questions_paraphrase_rather_than_copy(bench):
    """No question shares five words in a row with any note, in either style (an identifier's own parts aside)."""
    words = lambda text: re.findall(r"[a-z0-9]+", text.lower())  # noqa: E731
    grams = set()
    for style in STYLES:
        for text in all_files(bench, style).values():
            w = words(text)
            grams.update(tuple(w[i : i + 5]) for i in range(len(w) - 4))
    for q in bench.questions:
        w = words(re.sub(r"\S*\d\S*", " ", q.text) if q.type == "lexical" else q.text)
        assert not any(tuple(w[i : i + 5]) in grams for i in range(len(w) - 4)), q.text


def test_rumours_restate_an_outdated_value_from_a_low_authority_source(bench):
    labelled = bench.styles["labelled"]
    for rumour, file in zip(bench.world.rumours, labelled.rumour_files, strict=False):
        says = re.compile(r"(?<![\w.,])" + re.escape(rumour.claimed) + r"(?!\w)")
        assert says.search(file.text)
        assert re.search(r'source_type: "(chat|meeting_notes)"', file.text)
        assert (bench.now - rumour.day).days <= 45
        history = next(h for h in bench.world.histories if h.spec.key == rumour.topic)
        assert rumour.claimed in history.values[:-1] and rumour.claimed != history.values[-1]


def test_contradiction_ground_truth(bench):
    expected = bench.expected_contradictions(bench.rumour_count(0.75))
    currents = {h.spec.key: h.doc(h.current) for h in bench.world.histories}
    for rumour in bench.world.rumours[: bench.rumour_count(0.75)]:
        assert expected[frozenset((rumour.doc, currents[rumour.topic]))] == "rumour"
    kinds = {probe.kind for probe in bench.world.probes}
    assert kinds == {"reworded_value", "agreeing", "shared_words", "negated", "denied", "agreeing_rule"}
    for probe in bench.world.probes:
        target = currents.get(probe.topic) or next(r.doc for r in bench.world.rules if r.topic == probe.topic)
        assert (frozenset((probe.doc, target)) in expected) == (
            probe.kind in ("reworded_value", "negated", "denied")
        ), probe.doc
    for h in bench.world.histories:  # versions of one policy never hold at the same time
        assert not any(frozenset((h.doc(a), h.doc(b))) in expected for a in range(len(h.starts)) for b in range(a))
    assert bench.unflagged_kind(frozenset(("pol-remote-work-v1", "pol-remote-work-v3"))) == "version_copies"


def test_accuracy_benchmark_end_to_end(tmp_path, fake_embedder, monkeypatch):
    """The whole benchmark (calibration fit, both styles, every baseline, probes, re-embedding) on a tiny vault."""
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    tiny, calibration = generate(11, **TINY), generate(12, catalogue=CALIBRATION, **TINY)
    report, records = run_accuracy(tmp_path, rates=(0.0, 0.5), rate=0.5, bench=tiny, calibration_bench=calibration)
    for blocks in (report, report["plain"]):
        for mode in ("smart", "cosine", "cosine_current"):
            block = blocks[mode]
            assert set(block) >= {"top1", "top3", "passage_top1", "stale_rate", "ece", "by_type"}
            assert set(block["by_type"]) == set(QUESTION_TYPES)
            assert all(0.0 <= block[k] <= 1.0 for k in ("top1", "top3", "passage_top1", "stale_rate"))
            assert 0.0 <= block["ece"] <= 1.0 if mode == "smart" else block["ece"] is None  # a baseline claims none
            assert block["top1"] <= block["top3"]
    for key in ("no_conflict", "lexical"):
        assert set(report[key]) >= {"smart", "cosine"} and set(report[key]["plain"]) >= {"smart", "cosine"}
    for scores in (report["contradictions"], report["contradictions"]["plain"]):
        assert set(scores) >= {"precision", "recall", "found", "expected"}
        assert scores["expected"] == len(tiny.expected_contradictions(tiny.rumour_count(0.5)))
    assert [s["rate"] for s in report["sweep"]] == [0.0, 0.5]
    assert all(set(s) >= {"rate", "smart", "cosine", "plain_smart", "plain_cosine"} for s in report["sweep"])
    assert 0.0 < report["reembed_saved"] < 1.0 and report["reembed"]["realistic"]["chunks_embedded"] == 40
    assert report["reembed"]["short_notes"]["chunks_embedded"] == report["reembed"]["short_notes"]["notes_edited"]
    calibration_block = report["calibration"]
    assert (calibration_block["fit_seed"], calibration_block["eval_seed"]) == (12, 11)
    assert (
        calibration_block["shared_topics"]
        == calibration_block["shared_templates"]
        == calibration_block["shared_question_texts"]
        == 0
    )
    fitted = tmp_path / "labelled" / "index" / "config.toml"
    assert f"bias = {calibration_block['fitted']['bias']}" in fitted.read_text()
    assert len(records) == len(tiny.questions) and set(records[0]) >= {"labelled", "plain"}
    asked = len(off_topic_questions(calibration))
    for style in ("labelled", "plain"):
        off = report["off_topic"][style]
        assert off["cosine"]["answered"] == off["cosine"]["asked"] == asked  # plain cosine always answers something
        assert 0 <= off["smart"]["answered"] <= asked and 0.0 <= off["smart"]["ece_with_answerable"] <= 1.0
    assert "answered anyway" in accuracy_markdown(report)
    json.dumps(report)


def test_bench_accuracy_json_and_report_commands(tmp_path, fake_embedder, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("smartvec_cli.bench.accuracy.generate", partial(generate, **TINY))
    result = cli(
        "bench",
        "accuracy",
        "--json",
        "--no-plots",
        "--out",
        "results",
        "--rates",
        "0,0.75",
        "--seed",
        "3",
        "--fit-seed",
        "4",
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) >= {
        "smart",
        "cosine",
        "cosine_current",
        "plain",
        "no_conflict",
        "lexical",
        "contradictions",
        "sweep",
        "reembed_saved",
        "calibration",
    }
    assert set(data["plain"]) >= {"smart", "cosine", "cosine_current"}
    assert [s["rate"] for s in data["sweep"]] == [0.0, 0.75]
    assert (data["calibration"]["fit_seed"], data["calibration"]["eval_seed"]) == (4, 3)
    assert (tmp_path / "results" / "accuracy.md").is_file() and (
        tmp_path / "results" / "accuracy-questions.jsonl"
    ).is_file()
    report = cli("bench", "report", "--out", "results")
    assert report.exit_code == 0 and "| top-1 accuracy |" in report.stdout and "| precision |" in report.stdout
    assert cli("bench", "report", "--out", "nowhere").exit_code == 2


def test_driver_reads_contradiction_edges(tmp_path, fake_embedder):
    from smartvec_cli.bench.driver import Driver

    vault = tmp_path / "vault"
    (vault / "chat").mkdir(parents=True)
    (vault / "Travel.md").write_text("# Travel\n\nOn business trips the per diem is EUR 60 per day for meals.\n")
    (vault / "chat" / "today.md").write_text("# Chat\n\nOn business trips the per diem is EUR 45 per day for meals.\n")
    (vault / "Other.md").write_text("# Other\n\nThe office plants are watered every Monday morning.\n")
    driver = Driver(vault, tmp_path / "index")
    day = dt.date(2026, 6, 1)
    assert driver.index(day).notes_new == 3
    assert driver.consolidate(day).contradictions_found == 1
    assert driver.contradiction_edges() == {frozenset(("Travel.md", "chat/today.md"))}


def test_perf_benchmark_runs_and_reports(tmp_path, fake_embedder):
    from smartvec_cli.bench.perf import model_package_mb, run_perf
    from smartvec_cli.bench.report import perf_markdown, targets_markdown

    perf = run_perf(
        tmp_path,
        notes=30,
        queries=10,
        cold_runs=0,
        edits=2,
        recall_sizes=(200, 1000),
        hardware_seconds=0.05,
        model="multilingual-e5",
    )
    results = perf["results"]
    assert [row["passages"] for row in results["ann_recall"]] == [200, 1000]
    assert all(0.9 <= row["ann_recall_at_50"] <= 1.0 for row in results["ann_recall"])
    assert results["passages"] == len(set(fake_embedder.embedded[1 : 1 + results["passages"]])) > 30
    assert results["edit_reembed_saved"] > 0.5
    assert results["query_p95_ms"] >= results["query_p50_ms"] > 0
    assert perf["machine"]["cpus"] >= 1 and results["nochange_refresh_cli_s"] is None
    table = perf_markdown(perf) + targets_markdown(perf["targets"])
    assert "| no-change refresh, cold CLI call | - s |" in table
    assert "| 1,000 | " in table
    assert results["hardware_fp32_gflops"] > 0 and results["hardware_int8_gops"] > 0
    assert 0 < results["first_index_share_of_limit"] and 0 < results["embedding_share_of_limit"]
    assert "| first index, share of the fp32 limit |" in table
    assert 'model = "multilingual-e5"' in (tmp_path / "index" / "config.toml").read_text(encoding="utf-8")
    assert perf["machine"]["model_package_mb"] == model_package_mb("multilingual-e5") > model_package_mb("minilm") > 10


def test_perf_measures_an_int8_first_index_against_fp32_in_the_same_run(tmp_path, monkeypatch):
    """A vault over the int8 threshold (lowered here) is indexed as ``precision = "auto"`` chooses, then in fp32
    into a folder of its own that is removed after; the report gives both rates, the speed-up and the share of
    the int8 graph's limit."""
    from conftest import FakeEmbedder

    from smartvec_cli.bench.perf import run_perf
    from smartvec_cli.bench.report import perf_markdown, targets_markdown

    asked = []

    def select(config, index_dir, precision="fp32", **_):
        asked.append(precision)
        embedder = FakeEmbedder("all-MiniLM-L6-v2@fake" + ("+int8" if precision == "int8" else ""))
        embedder.precision = precision
        return embedder

    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", select)
    monkeypatch.setattr("smartvec_cli.embed.INT8_FROM_PASSAGES", 20)
    perf = run_perf(tmp_path, notes=30, queries=10, cold_runs=0, edits=1, recall_sizes=(), hardware_seconds=0.05)
    results = perf["results"]
    assert asked[:2] == ["int8", "fp32"] and results["precision"] == "int8"
    assert results["first_index_fp32_passages_per_s"] > 0
    assert results["first_index_speedup"] == pytest.approx(
        results["first_index_passages_per_s"] / results["first_index_fp32_passages_per_s"], rel=0.01
    )
    assert not (tmp_path / "index-fp32").exists()
    rates = sorted([results["hardware_fp32_gflops"], results["hardware_int8_gops"]])
    assert rates[0] <= results["hardware_limit_gflops"] <= rates[1]  # a mix of the two
    table = perf_markdown(perf) + targets_markdown(perf["targets"])
    assert "| first index: throughput (int8) |" in table and "| first index, share of the int8 limit |" in table
    assert "| first index in fp32, same run: throughput, speed-up |" in table
    assert results["first_index_fp32_share_of_limit"] == pytest.approx(
        results["first_index_fp32_passages_per_s"]
        * results["embedding_flops_per_passage"]
        / 1e9
        / results["hardware_fp32_gflops"],
        abs=0.001,
    )
    assert "| first index in fp32, same run: share of the fp32 limit |" in table
    assert "| first index, passages/s against fp32 in the same run >= 1.5 x |" in table


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
    result = daemon_query_latency(
        ["--vault", str(vault), "--index-dir", str(index_dir)], index_dir, ["kiwi harvest"], 3
    )
    assert 0 < result["query_warm_p50_s"] <= result["query_warm_p95_s"]
    assert result["query_warm_peak_rss_mb"] < 40  # answered by the daemon (about 20 MB; answering alone takes 60)
    assert not socket_path(index_dir).exists()  # and the daemon was stopped


def test_realistic_notes_span_one_to_forty_passages():
    from smartvec_cli.bench.perf import realistic_notes

    counts = [len(parse_note(f.text, f.path).chunks) for f in realistic_notes(2604, 200)]
    assert min(counts) == 1 and 30 <= max(counts) <= 40 and 4 <= sorted(counts)[100] <= 10


def test_cold_call_reports_the_childs_own_peak_memory():
    from smartvec_cli.bench.perf import cold_call

    seconds, peak_mb, out = cold_call(["--version"])
    assert out.startswith("smartvec ") and seconds > 0
    assert 5 < peak_mb < 400  # a bare CLI start, not the parent's high-water mark
