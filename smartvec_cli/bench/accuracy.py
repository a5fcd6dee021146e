"""The accuracy benchmark: build the generated vaults through smartvec, ask, judge.

For each style (``labelled``, ``plain``) the vault's history is replayed with the clock:
``index`` once per edit day, then ``consolidate`` as a nightly cron would. Rumours are
added rate by rate (one more ``index`` and ``consolidate`` each), and at every rate the
questions go through ``query --batch --no-track`` (the benchmark must not reinforce what
it measures) in both modes: ``smart``, and ``cosine`` over every stored version. At the
main rate a second index of the files as they are that day (one index run, current text
only) answers in ``cosine`` mode: plain RAG over the current text, ``cosine_current``.
Then the contradiction probes are added and the ``contradicts`` edges of the graph are
compared with the pairs known to disagree.

"Nothing relevant" is an answer too: the other catalogue's questions (no shared topic) are
asked of the evaluated vault, where nothing answers them; the report says how many each
baseline answered anyway (plain RAG always does) and how sure the first hit claimed to be.

The confidence is fitted first on the calibration catalogue (another seed, no shared
topic or question template) and written into the evaluated index's config, so the
reported ECE is out of sample; the ECE of the shipped parameters is reported beside it.
Every call to smartvec goes through ``driver.Driver``.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
import time
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable, Sequence

from ..config import load_config
from ..core.results import VaultStatus
from ..errors import SmartvecError
from ..memory.ranking import WEAK_MATCH
from ..memory.scoring import Calibration
from .catalogue import CALIBRATION, overlap
from .driver import Driver
from .generator import QUESTION_TYPES, STYLES, BenchQuestion, BenchVault, NoteFile, Step, generate, single_word_edit
from .metrics import (
    Outcome,
    contradiction_scores,
    expected_calibration_error,
    fit_platt,
    judge,
    judge_ceiling,
    states,
    summarise,
    top1_accuracy,
)

SWEEP_RATES = (0.0, 0.25, 0.5, 0.75)
FIT_RATES = (0.0, 0.5)
DEFAULT_RATE = 0.25
DEFAULT_SEED = 2604
CALIBRATION_SEED = 1729
TOP_K = 5
EDITED_NOTES = 40
MODES = ("smart", "cosine")
BASELINES = ("smart", "cosine", "cosine_current")
Log = Callable[[str], None]


@dataclass
class BenchPaths:
    vault: Path
    index: Path

    @classmethod
    def fresh(cls, workdir: Path, config_text: str | None = None) -> "BenchPaths":
        """Empty vault and index folders under ``workdir``; ``config_text`` becomes the index's config.toml."""
        paths = cls(workdir / "vault", workdir / "index")
        for folder in (paths.vault, paths.index):
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
        if config_text:
            (paths.index / "config.toml").write_text(config_text, encoding="utf-8")
        return paths


def write_files(vault: Path, files: Sequence[NoteFile], when: dt.date) -> None:
    """Write notes as they were on ``when``; mtimes say so too, so every rewrite is seen as a change."""
    stamp = dt.datetime(when.year, when.month, when.day, 12, tzinfo=dt.timezone.utc).timestamp()
    for file in files:
        path = vault / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.text, encoding="utf-8")
        os.utime(path, (stamp, stamp))


def replay(driver: Driver, steps: Sequence[Step], log: Log) -> None:
    """Write, index and consolidate the vault's history day by day with the clock set to each day."""
    for number, step in enumerate(steps, start=1):
        write_files(driver.vault, step.files, step.when)
        driver.index(step.when)
        driver.consolidate(step.when)
        if number % 10 == 0 or number == len(steps):
            log(f"replayed {number}/{len(steps)} days (up to {step.when})")


def evaluate(
    questions: Sequence[BenchQuestion], answers: dict[str, list[dict]], doc_of: dict[str, str], remark_docs: set[str]
) -> list[Outcome]:
    return [judge(q, answers[q.id], doc_of, remark_docs) for q in questions]


@dataclass
class Level:
    """Results at one contradiction rate."""

    rate: float
    rumours: int
    answers: dict[str, dict[str, list[dict]]]  # mode -> question id -> hits
    outcomes: dict[str, list[Outcome]]  # mode (and cosine_current at the main rate) -> outcomes


@dataclass(frozen=True)
class OffTopicQuestion:
    """A question about a topic the vault does not hold (from the other catalogue): the right answer is none."""

    id: str
    text: str
    as_of: str | None = None


def off_topic_questions(other: BenchVault) -> list[OffTopicQuestion]:
    """The other catalogue's questions about now (``current`` and ``stable``), each text once."""
    texts = dict.fromkeys(q.text for q in other.questions if q.type in ("current", "stable") and not q.as_of)
    return [OffTopicQuestion(f"off-topic-{n:03d}", text) for n, text in enumerate(texts, start=1)]


def answered_off_topic(answers: dict[str, list[dict]]) -> dict:
    """How many off-topic questions got a hit at all, and the confidence their first hits claimed (None in a
    baseline mode, whose hits claim none)."""
    tops = [hits[0]["confidence"] for hits in answers.values() if hits]
    claimed = [c for c in tops if c is not None]
    return {
        "asked": len(answers),
        "answered": len(tops),
        "answered_share": round(len(tops) / len(answers), 4) if answers else None,
        "mean_top_confidence": round(sum(claimed) / len(claimed), 4) if claimed else None,
    }


@dataclass
class StyleRun:
    style: str
    levels: list[Level]
    main: Level
    status: VaultStatus
    paths: BenchPaths
    contradictions: dict | None = None
    off_topic: dict | None = None  # per mode: ``answered_off_topic``
    off_topic_answers: dict[str, list[dict]] | None = None  # smart mode's hits for each off-topic question
    index_runs: int = 0
    notes: int = 0


def run_style(
    bench: BenchVault,
    style: str,
    workdir: Path,
    config_text: str | None,
    rates: Sequence[float],
    rate: float,
    top_k: int,
    log: Log,
    modes: Sequence[str] = MODES,
    measure_current_text: bool = True,
    probe_contradictions: bool = True,
    off_topic: Sequence[OffTopicQuestion] = (),
) -> StyleRun:
    """Replay one style, then for each rate in increasing order add its rumours and ask (at the main rate the
    ``off_topic`` questions too); then the probes."""
    rendering = bench.styles[style]
    paths = BenchPaths.fresh(workdir / style, config_text)
    with Driver(paths.vault, paths.index) as driver:
        name = f"{bench.world.catalogue.name} {style}"
        log(f"{name} vault: {len(rendering.final_files())} notes, {len(rendering.steps)} days to replay")
        replay(driver, rendering.steps, log)
        levels, written = [], 0
        for level_rate in sorted(set(rates) | {rate}):
            count = bench.rumour_count(level_rate)
            if count > written:
                write_files(paths.vault, rendering.rumour_files[written:count], bench.now)
                driver.index(bench.now)
                driver.consolidate(bench.now)
            written = count
            remark_docs = {r.doc for r in bench.world.rumours[:count]}
            answers = {mode: driver.ask(bench.questions, mode, bench.now, top_k) for mode in modes}
            outcomes = {mode: evaluate(bench.questions, answers[mode], rendering.doc_of, remark_docs) for mode in modes}
            if level_rate == rate and measure_current_text:
                answers["cosine_current"] = ask_current_text(
                    bench, paths, workdir / f"{style}-current", config_text, top_k
                )
                outcomes["cosine_current"] = evaluate(
                    bench.questions, answers["cosine_current"], rendering.doc_of, remark_docs
                )
            levels.append(Level(level_rate, count, answers, outcomes))
            shown = ", ".join(f"{mode} top-1 {top1_accuracy(outs):.1%}" for mode, outs in outcomes.items())
            log(f"{name}, contradiction rate {level_rate:.0%} ({count} rumours): {shown}")
        main = next(level for level in levels if level.rate == rate)
        run = StyleRun(style, levels, main, driver.status(bench.now), paths=paths, index_runs=len(rendering.steps))
        run.notes = len(rendering.final_files()) + main.rumours
        if off_topic:
            asked = {mode: driver.ask(off_topic, mode, bench.now, top_k) for mode in modes}
            run.off_topic = {mode: answered_off_topic(answers) for mode, answers in asked.items()}
            run.off_topic_answers = asked["smart"]
            log(
                f"{name}, off-topic questions answered: "
                + ", ".join(f"{m} {v['answered']} of {v['asked']}" for m, v in run.off_topic.items())
            )
        if probe_contradictions:
            run.contradictions = measure_contradictions(driver, bench, style, written)
            c = run.contradictions
            log(f"{name}, contradictions: {c['true_positives']} of {c['expected']} found, {c['found']} flagged")
        return run


def ask_current_text(
    bench: BenchVault, paths: BenchPaths, folder: Path, config_text: str | None, top_k: int
) -> dict[str, list[dict]]:
    """Plain RAG over the current text: a fresh index of the vault's files as they are now, in one run, asked by
    cosine."""
    snapshot = BenchPaths.fresh(folder, config_text)
    shutil.rmtree(snapshot.vault)
    shutil.copytree(paths.vault, snapshot.vault)
    with Driver(snapshot.vault, snapshot.index) as driver:
        driver.index(bench.now)
        return driver.ask(bench.questions, "cosine", bench.now, top_k)


def measure_contradictions(driver: Driver, bench: BenchVault, style: str, rumours: int) -> dict:
    """Add the probes, index and consolidate, and score the graph's ``contradicts`` edges against the known pairs."""
    rendering = bench.styles[style]
    write_files(driver.vault, rendering.probe_files, bench.now)
    driver.index(bench.now)
    driver.consolidate(bench.now)
    flagged = {frozenset(rendering.doc_of.get(path, path) for path in pair) for pair in driver.contradiction_edges()}
    expected = bench.expected_contradictions(rumours, probes=True)
    scores = contradiction_scores(flagged, expected, bench.unflagged_kind)
    scores["rumours"], scores["probes"] = rumours, len(rendering.probe_files)
    doc = rendering.doc_of
    scores["judge"] = judge_ceiling(
        ((doc.get(a, a), doc.get(b, b), c) for a, b, c in driver.value_pair_closeness()), expected
    )
    return scores


# -- re-embedding cost ---------------------------------------------------------------------------


def reembedding_cost(vault: Path, index_dir: Path, when: dt.date, seed: int, notes: int = EDITED_NOTES) -> dict:
    """Edit one word in each of ``notes`` notes, index once: passages embedded vs a whole-note re-embed.

    The baseline is what a tool that re-embeds a changed note as a whole (aclarai's nightly
    concept refresh, most RAG pipelines) spends: every passage of each edited note.
    """
    from ..vault.parse import parse_note

    rng = random.Random(seed)
    live = {p.relative_to(vault).as_posix(): p.read_text(encoding="utf-8") for p in sorted(vault.rglob("*.md"))}
    chosen = rng.sample(sorted(live), min(notes, len(live)))
    edited = [NoteFile(path, single_word_edit(live[path], rng)) for path in chosen]
    whole = sum(len(parse_note(f.text, f.path).chunks) for f in edited)
    write_files(vault, edited, when)
    with Driver(vault, index_dir) as driver:
        summary = driver.index(when)
    embedded = summary.passages_embedded
    return {
        "notes_edited": len(edited),
        "notes_changed": summary.notes_changed,
        "chunks_embedded": embedded,
        "whole_note_chunks": whole,
        "passages_per_note": round(whole / len(edited), 2) if edited else 0.0,
        "saved": round(1 - embedded / whole, 4) if whole else 0.0,
    }


def realistic_reembedding(
    workdir: Path, config_text: str | None, seed: int, now: dt.date, notes: int = EDITED_NOTES
) -> dict:
    """The same measure on notes of realistic length: passages per note log-uniform from 1 to 40."""
    from .perf import realistic_notes

    paths = BenchPaths.fresh(workdir / "reembed", config_text)
    write_files(paths.vault, realistic_notes(seed, notes), now)
    with Driver(paths.vault, paths.index) as driver:
        driver.index(now)
    result = reembedding_cost(paths.vault, paths.index, now + dt.timedelta(days=1), seed * 7 + 3, notes)
    result["distribution"] = "passages per note log-uniform from 1 to 40"
    return result


# -- calibration ---------------------------------------------------------------------------------


CALIBRATION_KEYS = tuple(f.name for f in fields(Calibration))


def confidence_features(hit: dict) -> tuple[float, ...]:
    """What ``Calibration`` weighs for a hit of ``query --batch --explain`` (``Calibration.features``: score, lead,
    closeness, closeness², note's share, cosine, first closeness, length), exactly as the ranking computed them."""
    return Calibration.features(hit["score"], hit["explain"])


def calibration_samples(
    questions: Sequence[BenchQuestion], answers: dict[str, list[dict]], doc_of: dict[str, str]
) -> list[tuple]:
    """(``confidence_features``..., correct, is_top) for every hit valid at its question's time.

    Hits not valid at the reference time are left out because search multiplies their
    confidence by a fixed factor instead.
    """
    samples = []
    for q in questions:
        hits = answers[q.id]
        for i, hit in enumerate(hits):
            if (hit.get("explain") or {}).get("valid_at_reference"):
                samples.append((*confidence_features(hit), states(hit, q.answer, doc_of), i == 0))
    return samples


def off_topic_samples(answers: dict[str, list[dict]]) -> list[tuple]:
    """``calibration_samples`` for questions nothing in the vault answers: every valid hit is wrong."""
    return [
        (*confidence_features(hit), False, i == 0)
        for hits in answers.values()
        for i, hit in enumerate(hits)
        if (hit.get("explain") or {}).get("valid_at_reference")
    ]


def top1_confidences_with(
    questions: Sequence[BenchQuestion], answers: dict[str, list[dict]], params: tuple[float, ...]
) -> list[float]:
    """The first hits' confidence had it come from ``params`` (the ranking's own formula, other parameters)."""
    from ..memory.ranking import hit_confidence

    calibration = Calibration(*params)
    found = []
    for q in questions:
        hits = answers[q.id]
        if not hits:
            found.append(0.0)
            continue
        explain = hits[0].get("explain") or {}
        valid = bool(explain.get("valid_at_reference"))
        weak = any(w.startswith(WEAK_MATCH) for w in hits[0].get("warnings") or ())
        relevance, lead, first, _ = confidence_features(hits[0])
        found.append(
            hit_confidence(
                relevance,
                lead,
                bool(first),
                valid,
                explain.get("standing", 1.0),
                calibration,
                explain.get("known_at_reference", True),
                weak,
            )
        )
    return found


def ece_with(questions: Sequence[BenchQuestion], level: Level, params: tuple) -> float:
    confidences = top1_confidences_with(questions, level.answers["smart"], params)
    return expected_calibration_error(confidences, [o.correct for o in level.outcomes["smart"]])


def ece_with_off_topic(run: StyleRun) -> float:
    """The ECE of smart mode's first hits over the benchmark's questions and the off-topic ones it answered
    (each of those wrong): whether a confident answer to an absent topic is rare, as its confidence says."""
    outcomes = run.main.outcomes["smart"]
    tops = [hits[0]["confidence"] for hits in (run.off_topic_answers or {}).values() if hits]
    return expected_calibration_error(
        [o.confidence or 0.0 for o in outcomes] + tops, [o.correct for o in outcomes] + [False] * len(tops)
    )


def config_params(config_text: str | None, workdir: Path) -> tuple[float, ...]:
    """The calibration a config (or the defaults, without one) gives the confidence."""
    folder = workdir / "config-probe"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(config_text or "", encoding="utf-8")
    c = load_config(folder / "config.toml").scoring.calibration
    return tuple(getattr(c, key) for key in CALIBRATION_KEYS)


def run_calibration(
    workdir: Path,
    seed: int = CALIBRATION_SEED,
    rates: Sequence[float] = FIT_RATES,
    top_k: int = TOP_K,
    config_text: str | None = None,
    log: Log = lambda text: None,
    top1_only: bool = False,
    bench: BenchVault | None = None,
    off_topic: Sequence[OffTopicQuestion] = (),
) -> dict:
    """Fit the Platt parameters on the calibration catalogue (both styles, every rate in ``rates``); the first
    hits of ``off_topic`` questions (about nothing the vault holds) are wrong answers the fit sees too, so a
    weak match to an absent topic does not claim the confidence of a right answer."""
    bench = bench or generate(seed, catalogue=CALIBRATION)
    log(f"calibration vault seed {bench.seed}: {len(bench.questions)} questions, {len(off_topic)} off-topic")
    samples, runs = [], []
    for style in STYLES:
        run = run_style(
            bench, style, workdir, config_text, rates, rates[0], top_k, log, ("smart",), False, False, off_topic
        )
        runs.append(run)
        samples += [
            s
            for level in run.levels
            for s in calibration_samples(bench.questions, level.answers["smart"], bench.styles[style].doc_of)
        ]
        samples += off_topic_samples(run.off_topic_answers or {})
    if top1_only:
        samples = [s for s in samples if s[-1]]
    fitted = tuple(round(v, 2) for v in fit_platt([sample[:-1] for sample in samples]))
    before = config_params(config_text, workdir)
    levels = [level for run in runs for level in run.levels]
    mean_ece = lambda params: round(sum(ece_with(bench.questions, lv, params) for lv in levels) / len(levels), 4)  # noqa: E731
    return {
        "seed": bench.seed,
        "samples": len(samples),
        "positives": sum(1 for s in samples if s[-2]),
        "fitted": dict(zip(CALIBRATION_KEYS, fitted, strict=False)),
        "previous": dict(zip(CALIBRATION_KEYS, before, strict=False)),
        "top1_ece_previous": mean_ece(before),
        "top1_ece_fitted": mean_ece(fitted),
        "rates": list(sorted(set(rates))),
        "styles": list(STYLES),
    }


def calibration_snippet(fitted: dict) -> str:
    return "[scoring]\ncalibration = { " + ", ".join(f"{key} = {fitted[key]}" for key in CALIBRATION_KEYS) + " }\n"


def check_config_text(config_text: str | None) -> None:
    """A config for the generated indexes must be TOML and leave the calibration to the benchmark's own fit."""
    try:
        given = tomllib.loads(config_text or "")
    except tomllib.TOMLDecodeError as exc:
        raise SmartvecError(f"--config is not valid TOML: {exc}") from None
    if given.get("scoring", {}).get("calibration") is not None:
        raise SmartvecError("the --config sets [scoring] calibration itself; the benchmark fits its own (leave it out)")


def with_calibration(config_text: str | None, fitted: dict) -> str:
    """The given config with the fitted calibration added."""
    check_config_text(config_text)
    base = config_text or ""
    table = "\n[scoring.calibration]\n" + "".join(f"{key} = {value}\n" for key, value in fitted.items())
    combined = base + table
    try:
        tomllib.loads(combined)
    except tomllib.TOMLDecodeError as exc:
        raise SmartvecError(f"cannot add the fitted calibration to --config: {exc}") from None
    return combined


# -- the benchmark -------------------------------------------------------------------------------


def run_accuracy(
    workdir: Path,
    seed: int = DEFAULT_SEED,
    fit_seed: int = CALIBRATION_SEED,
    rate: float = DEFAULT_RATE,
    rates: Sequence[float] = SWEEP_RATES,
    top_k: int = TOP_K,
    config: Path | None = None,
    log: Log = lambda text: None,
    bench: BenchVault | None = None,
    calibration_bench: BenchVault | None = None,
) -> tuple[dict, list[dict]]:
    """(the report, one record per question at the chosen rate with every baseline's first hit)."""
    started = time.perf_counter()
    config_text = config.read_text(encoding="utf-8") if config else None
    check_config_text(config_text)
    bench = bench or generate(seed)
    calibration_bench = calibration_bench or generate(fit_seed, catalogue=CALIBRATION)
    log(f"evaluation vault seed {bench.seed}: {len(bench.questions)} questions")
    fit = run_calibration(
        workdir / "calibration",
        top_k=top_k,
        config_text=config_text,
        log=log,
        bench=calibration_bench,
        off_topic=off_topic_questions(bench),
    )
    log(f"confidence fitted on seed {fit['seed']} ({fit['samples']} hits): {fit['fitted']}")
    eval_config = with_calibration(config_text, fit["fitted"])
    off_topic = off_topic_questions(calibration_bench)
    runs = {
        style: run_style(bench, style, workdir, eval_config, rates, rate, top_k, log, off_topic=off_topic)
        for style in STYLES
    }
    labelled = runs["labelled"]
    short = reembedding_cost(
        labelled.paths.vault, labelled.paths.index, bench.now + dt.timedelta(days=1), bench.seed * 7 + 1
    )
    realistic = realistic_reembedding(workdir, eval_config, bench.seed, bench.now)
    log(
        f"single-word edits: {realistic['saved']:.1%} saved on realistic notes, {short['saved']:.1%} on the "
        "benchmark's short notes"
    )
    shipped = config_params(config_text, workdir)
    report = build_report(bench, calibration_bench, runs, fit, shipped, short, realistic, rate, rates, top_k)
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["targets"] = accuracy_targets(report)
    return report, question_records(bench, runs)


def _blocks(run: StyleRun) -> dict:
    return {mode: summarise(run.main.outcomes[mode], QUESTION_TYPES) for mode in BASELINES}


def _by_type(report: dict, kind: str) -> dict:
    pick = lambda blocks: {mode: blocks[mode]["by_type"][kind] for mode in BASELINES}  # noqa: E731
    return {**pick(report), "plain": pick(report["plain"])}


def build_report(
    bench: BenchVault,
    calibration_bench: BenchVault,
    runs: dict[str, StyleRun],
    fit: dict,
    shipped: tuple,
    short: dict,
    realistic: dict,
    rate: float,
    rates: Sequence[float],
    top_k: int,
) -> dict:
    labelled, plain = runs["labelled"], runs["plain"]
    report = {**_blocks(labelled), "plain": _blocks(plain)}
    report["no_conflict"] = _by_type(report, "stable")
    report["lexical"] = _by_type(report, "lexical")
    assert labelled.contradictions is not None, "the report's styles are run with their probes"
    report["contradictions"] = {**labelled.contradictions, "plain": plain.contradictions}
    report["off_topic"] = {style: run.off_topic for style, run in runs.items()}
    for _style, run in runs.items():
        if run.off_topic:
            run.off_topic["smart"]["ece_with_answerable"] = round(ece_with_off_topic(run), 4)
    report["sweep"] = [
        {
            "rate": a.rate,
            "smart": round(top1_accuracy(a.outcomes["smart"]), 4),
            "cosine": round(top1_accuracy(a.outcomes["cosine"]), 4),
            "plain_smart": round(top1_accuracy(b.outcomes["smart"]), 4),
            "plain_cosine": round(top1_accuracy(b.outcomes["cosine"]), 4),
            "rumours": a.rumours,
            "smart_top1_is_rumour": round(sum(o.contradicted for o in a.outcomes["smart"]) / len(bench.questions), 4),
            "plain_smart_top1_is_rumour": round(
                sum(o.contradicted for o in b.outcomes["smart"]) / len(bench.questions), 4
            ),
        }
        for a, b in zip(labelled.levels, plain.levels, strict=False)
        if a.rate in rates
    ]
    report["reembed_saved"] = realistic["saved"]
    report["reembed"] = {"realistic": realistic, "short_notes": short}
    eval_texts = {q.text for q in bench.questions}
    report["calibration"] = {
        "fit_seed": calibration_bench.seed,
        "eval_seed": bench.seed,
        **overlap(calibration_bench.world.catalogue, bench.world.catalogue),
        "shared_question_texts": sum(q.text in eval_texts for q in calibration_bench.questions),
        "fitted": fit["fitted"],
        "fit_samples": fit["samples"],
        "shipped": dict(zip(CALIBRATION_KEYS, shipped, strict=False)),
        "ece_shipped": {style: round(ece_with(bench.questions, run.main, shipped), 4) for style, run in runs.items()},
    }
    report["dataset"] = {
        "seed": bench.seed,
        "now": bench.now.isoformat(),
        "contradiction_rate": rate,
        "styles": {
            style: {
                "notes": run.notes,
                "passages_stored": sum(run.status.passages.values()),
                "passages_by_state": dict(run.status.passages),
                "index_runs": run.index_runs,
            }
            for style, run in runs.items()
        },
        "questions": len(bench.questions),
        "questions_by_type": {t: sum(q.type == t for q in bench.questions) for t in QUESTION_TYPES},
        "time_points_by_phrase": {
            kind: sum(q.phrase_kind == kind for q in bench.questions)
            for kind in sorted({q.phrase_kind for q in bench.questions if q.phrase_kind})
        },
        "top_k": top_k,
        "model": labelled.status.model,
    }
    return report


def question_records(bench: BenchVault, runs: dict[str, StyleRun]) -> list[dict]:
    """Per question: what was asked, what answers it, and each baseline's first hit in each style (for reading the
    misses)."""
    records = []
    for number, q in enumerate(bench.questions):
        record = q.to_dict()
        for style, run in runs.items():
            record[style] = {}
            for mode, outcomes in run.main.outcomes.items():
                outcome, hits = outcomes[number], run.main.answers[mode][q.id]
                record[style][mode] = {
                    **{
                        k: getattr(outcome, k)
                        for k in (
                            "correct",
                            "top3",
                            "top5",
                            "stale",
                            "contradicted",
                            "right_passage",
                            "right_note",
                            "confidence",
                            "top",
                        )
                    },
                    "top_text": hits[0]["text"] if hits else None,
                    "top_score": hits[0]["score"] if hits else None,
                    "answer_rank": next(
                        (h["rank"] for h in hits if states(h, q.answer, bench.styles[style].doc_of)), None
                    ),
                }
        records.append(record)
    return records


ACCURACY_TARGETS = (
    ("smart top-1", lambda r: r["smart"]["top1"], ">=", 0.90),
    ("smart / cosine top-1", lambda r: r["smart"]["top1"] / max(r["cosine"]["top1"], 1e-9), ">=", 2.5),
    ("time-point top-1 (date in words)", lambda r: r["smart"]["by_type"]["time_point"], ">=", 0.90),
    ("time-point top-1 (--as-of)", lambda r: r["smart"]["by_type"]["as_of"], ">=", 0.90),
    ("exact-identifier top-1", lambda r: r["smart"]["by_type"]["lexical"], ">=", 0.90),
    ("long-note top-1", lambda r: r["smart"]["by_type"]["long_note"], ">=", 0.90),
    ("stale-answer rate", lambda r: r["smart"]["stale_rate"], "<=", 0.03),
    ("ECE of confidence", lambda r: r["smart"]["ece"], "<=", 0.08),
)


def check(value: float, op: str, target: float) -> bool:
    return value >= target if op == ">=" else value <= target


def accuracy_targets(report: dict) -> list[dict]:
    """The targets on both vault styles (the top-1 bar also per question type), the sweep's and re-embedding's."""
    rows = []
    for style, blocks in (("labelled", report), ("plain", report["plain"])):
        for name, read, op, target in ACCURACY_TARGETS:
            rows.append((f"{name}, {style}", read(blocks), op, target))
    key = {"labelled": "smart", "plain": "plain_smart"}
    rows += [
        (f"worst top-1 over contradiction rates, {style}", min(s[key[style]] for s in report["sweep"]), ">=", 0.85)
        for style in STYLES
    ]
    rows.append(("re-embedding saved, single-word edits, realistic notes", report["reembed_saved"], ">=", 0.90))
    rows.append(
        ("re-embedding saved, single-word edits, short notes", report["reembed"]["short_notes"]["saved"], ">=", 0.90)
    )
    return [
        {"name": name, "value": round(value, 4), "op": op, "target": target, "met": check(value, op, target)}
        for name, value, op, target in rows
    ]
