"""The accuracy benchmark: build the generated vault through the command line, ask, judge.

The vault's history is replayed with the clock (``index --json --now DAY`` once per edit
day), the questions go through ``query --batch`` in both modes with ``--no-track`` (the
benchmark must not reinforce what it measures), and contradictions are added rate by
rate with one more ``index`` each, so the sweep re-embeds only the new notes. Every
call goes through a ``CliCall``: the real command line, either in this process or as a
subprocess. Nothing here imports Typer.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, Sequence

from ..errors import SmartvecError
from .generator import QUESTION_TYPES, BenchQuestion, BenchVault, NoteFile, generate
from .metrics import Outcome, fit_platt, hit_label, judge, sigmoid, summarise

SWEEP_RATES = (0.0, 0.25, 0.5, 0.75)
DEFAULT_RATE = 0.25
DEFAULT_SEED = 2604
CALIBRATION_SEED = 1729
TOP_K = 5
EDITED_NOTES = 40
Log = Callable[[str], None]


class CliCall(Protocol):
    """Runs ``smartvec ARGS`` with ``stdin`` and returns its stdout; raises SmartvecError on failure."""

    def __call__(self, args: Sequence[str], stdin: str | None = None) -> str: ...


class SubprocessCli:
    """``python -m smartvec_cli`` in a fresh process, importing this very copy of the package."""

    def __init__(self, python: str = sys.executable):
        self.python = python
        self.root = str(Path(__file__).resolve().parents[2])

    def __call__(self, args: Sequence[str], stdin: str | None = None) -> str:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [self.root, os.environ.get("PYTHONPATH")])))
        proc = subprocess.run(
            [self.python, "-m", "smartvec_cli", *args], input=stdin, capture_output=True, text=True, env=env, cwd=self.root
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or [""])[-1]
            raise SmartvecError(f"smartvec {' '.join(args[:8])} exited with {proc.returncode}: {last}")
        return proc.stdout


@dataclass
class BenchPaths:
    vault: Path
    index: Path

    @classmethod
    def fresh(cls, workdir: Path, config: Path | None = None) -> "BenchPaths":
        """Empty vault and index folders under ``workdir``; ``config`` is copied in as the index's config.toml."""
        paths = cls(workdir / "vault", workdir / "index")
        for folder in (paths.vault, paths.index):
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
        if config is not None:
            shutil.copyfile(config, paths.index / "config.toml")
        return paths

    def args(self, now: dt.date | str) -> list[str]:
        return ["--vault", str(self.vault), "--index-dir", str(self.index), "--now", str(now)]


def write_files(vault: Path, files: Sequence[NoteFile], when: dt.date) -> None:
    """Write notes as they were on ``when``; mtimes say so too, so every rewrite is seen as a change."""
    stamp = dt.datetime(when.year, when.month, when.day, 12, tzinfo=dt.timezone.utc).timestamp()
    for file in files:
        path = vault / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.text, encoding="utf-8")
        os.utime(path, (stamp, stamp))


def index(cli: CliCall, paths: BenchPaths, when: dt.date) -> dict:
    summary = json.loads(cli([*paths.args(when), "index", "--json"]))
    if summary["errors"]:
        raise SmartvecError(f"index on {when} reported errors: {summary['errors'][:3]}")
    return summary


def replay(cli: CliCall, bench: BenchVault, paths: BenchPaths, log: Log) -> list[dict]:
    """Write and index the vault's history day by day with the clock set to each day."""
    summaries = []
    for number, step in enumerate(bench.steps, start=1):
        write_files(paths.vault, step.files, step.when)
        summaries.append(index(cli, paths, step.when))
        if number % 10 == 0 or number == len(bench.steps):
            log(f"replayed {number}/{len(bench.steps)} index runs (up to {step.when})")
    return summaries


def ask(cli: CliCall, paths: BenchPaths, now: dt.date, questions: Sequence[BenchQuestion], mode: str, top_k: int = TOP_K) -> dict[str, list[dict]]:
    """Every question in one ``query --batch`` call (one model load); hits by question id."""
    lines = "".join(q.batch_line() + "\n" for q in questions)
    args = [*paths.args(now), "query", "--batch", "-", "--mode", mode, "--top-k", str(top_k), "--no-track", "--explain"]
    answers = {}
    for line in cli(args, stdin=lines).splitlines():
        if line.strip():
            item = json.loads(line)
            answers[item["id"]] = item["hits"]
    missing = [q.id for q in questions if q.id not in answers]
    if missing:
        raise SmartvecError(f"query --batch returned no answer for {len(missing)} questions, e.g. {missing[0]}")
    return answers


def evaluate(questions: Sequence[BenchQuestion], answers: dict[str, list[dict]], contradiction_notes: set[str]) -> list[Outcome]:
    return [
        judge(q.id, q.type, q.answer.label(), [s.label() for s in q.stale], answers[q.id], contradiction_notes, [v.label() for v in q.versions])
        for q in questions
    ]


@dataclass
class Level:
    """Results at one contradiction rate."""

    rate: float
    contradictions: int
    answers: dict[str, dict[str, list[dict]]]  # mode -> question id -> hits
    outcomes: dict[str, list[Outcome]]  # mode -> outcomes
    status: dict  # ``status --json`` of the index at this rate


def run_levels(
    cli: CliCall, bench: BenchVault, paths: BenchPaths, rates: Sequence[float], log: Log, modes=("smart", "cosine"), top_k: int = TOP_K
) -> list[Level]:
    """For each rate in increasing order: add its contradictions, index, ask in every mode."""
    levels, written = [], 0
    for rate in sorted(set(rates)):
        injected = bench.contradictions_at(rate)
        new = injected[written:]
        if new:
            write_files(paths.vault, [c.file for c in new], bench.now)
            index(cli, paths, bench.now)
        written = len(injected)
        notes = {c.note_id for c in injected}
        status = json.loads(cli([*paths.args(bench.now), "status", "--json"]))
        answers = {mode: ask(cli, paths, bench.now, bench.questions, mode, top_k) for mode in modes}
        outcomes = {mode: evaluate(bench.questions, answers[mode], notes) for mode in modes}
        levels.append(Level(rate, len(injected), answers, outcomes, status))
        shown = ", ".join(f"{mode} top-1 {sum(o.correct for o in outs) / len(outs):.1%}" for mode, outs in outcomes.items())
        log(f"contradiction rate {rate:.0%} ({len(injected)} notes): {shown}")
    return levels


# -- re-embedding cost ---------------------------------------------------------------------------

WORD = re.compile(r"(?<![\w\[^#*@-])([a-z]{4,})(?![\w\]])")
LINK = re.compile(r"\[\[[^\]]*\]\]")
REPLACEMENTS = ("usually", "clearly", "simply", "always", "normally", "formally", "really", "quickly")


def single_word_edit(text: str, rng: random.Random) -> str:
    """The note with one word of its body (not frontmatter, headings, links or anchors) replaced."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0] == "---":
        start = lines.index("---", 1) + 1
    candidates = []
    for number in range(start, len(lines)):
        line = lines[number]
        if not line.strip() or line.lstrip().startswith(("#", "|", "**")):
            continue
        links = [m.span() for m in LINK.finditer(line)]
        for match in WORD.finditer(line):
            if not any(a <= match.start() < b for a, b in links):
                candidates.append((number, match.span()))
    if not candidates:
        raise ValueError("no word to edit")
    number, (a, b) = rng.choice(candidates)
    word = lines[number][a:b]
    replacement = rng.choice([r for r in REPLACEMENTS if r != word])
    lines[number] = lines[number][:a] + replacement + lines[number][b:]
    return "\n".join(lines)


def reembedding_cost(cli: CliCall, bench: BenchVault, paths: BenchPaths, notes: int = EDITED_NOTES) -> dict:
    """Edit one word in each of ``notes`` notes, index once: passages embedded vs a whole-note re-embed.

    The baseline is what a tool that re-embeds a changed note as a whole (aclarai's nightly
    concept refresh, most RAG pipelines) spends: every passage of each edited note.
    """
    from ..vault.parse import parse_note

    rng = random.Random(bench.seed * 7 + 1)
    live = {p.relative_to(paths.vault).as_posix(): p.read_text(encoding="utf-8") for p in sorted(paths.vault.rglob("*.md"))}
    chosen = rng.sample(sorted(live), min(notes, len(live)))
    edited = [NoteFile(path, single_word_edit(live[path], rng)) for path in chosen]
    whole = sum(len(parse_note(f.text, f.path).chunks) for f in edited)
    when = bench.now + dt.timedelta(days=1)
    write_files(paths.vault, edited, when)
    summary = index(cli, paths, when)
    embedded = summary["chunks_embedded"]
    return {
        "notes_edited": len(edited),
        "notes_changed": summary["notes_changed"],
        "chunks_embedded": embedded,
        "whole_note_chunks": whole,
        "passages_per_note": round(whole / len(edited), 2) if edited else 0.0,
        "saved": round(1 - embedded / whole, 4) if whole else 0.0,
    }


# -- the benchmark -------------------------------------------------------------------------------


def run_accuracy(
    cli: CliCall,
    workdir: Path,
    seed: int = DEFAULT_SEED,
    rate: float = DEFAULT_RATE,
    rates: Sequence[float] = SWEEP_RATES,
    top_k: int = TOP_K,
    config: Path | None = None,
    log: Log = lambda text: None,
    bench: BenchVault | None = None,
) -> tuple[dict, list[dict]]:
    """(the report, one record per question at the chosen rate with both modes' first hits)."""
    started = time.perf_counter()
    bench = bench or generate(seed)
    paths = BenchPaths.fresh(workdir, config)
    log(f"generated vault seed {bench.seed}: {len(bench.final_files())} notes, {len(bench.questions)} questions, {len(bench.steps)} index runs")
    replay(cli, bench, paths, log)
    levels = run_levels(cli, bench, paths, [*rates, rate], log, top_k=top_k)
    main = next(level for level in levels if level.rate == rate)
    status = main.status
    reembed = reembedding_cost(cli, bench, paths)
    log(f"single-word edits: {reembed['chunks_embedded']} passages embedded vs {reembed['whole_note_chunks']} whole-note")
    report = {
        "smart": summarise(main.outcomes["smart"], QUESTION_TYPES),
        "cosine": summarise(main.outcomes["cosine"], QUESTION_TYPES),
        "sweep": [
            {
                "rate": level.rate,
                "smart": round(_top1(level.outcomes["smart"]), 4),
                "cosine": round(_top1(level.outcomes["cosine"]), 4),
                "contradictions": level.contradictions,
                "smart_top1_is_contradiction": round(sum(o.contradicted for o in level.outcomes["smart"]) / len(bench.questions), 4),
            }
            for level in levels
            if level.rate in rates
        ],
        "reembed_saved": reembed["saved"],
        "reembed": reembed,
        "dataset": {
            "seed": bench.seed,
            "now": bench.now.isoformat(),
            "contradiction_rate": rate,
            "notes": len(bench.final_files()) + main.contradictions,
            "passages_stored": sum(status["chunks"].values()),
            "passages_by_state": status["chunks"],
            "questions": len(bench.questions),
            "questions_by_type": {t: sum(q.type == t for q in bench.questions) for t in QUESTION_TYPES},
            "index_runs": len(bench.steps),
            "top_k": top_k,
            "model": status.get("model"),
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    report["targets"] = accuracy_targets(report)
    return report, question_records(bench, main)


def _top1(outcomes: Sequence[Outcome]) -> float:
    return sum(o.correct for o in outcomes) / len(outcomes)


def question_records(bench: BenchVault, level: Level) -> list[dict]:
    """Per question: what was asked, what answers it, and each mode's first hit (for reading the misses)."""
    records = []
    for q in bench.questions:
        record = q.to_dict()
        for mode, outcomes in level.outcomes.items():
            outcome = next(o for o in outcomes if o.id == q.id)
            hits = level.answers[mode][q.id]
            record[mode] = {
                "correct": outcome.correct,
                "stale": outcome.stale,
                "contradicted": outcome.contradicted,
                "right_passage": outcome.right_passage,
                "confidence": outcome.confidence,
                "top": outcome.top,
                "top_text": hits[0]["text"] if hits else None,
                "top_score": hits[0]["score"] if hits else None,
                "answer_rank": next((h["rank"] for h in hits if hit_label(h) == q.answer.label()), None),
            }
        records.append(record)
    return records


ACCURACY_TARGETS = (
    ("smart top-1", lambda r: r["smart"]["top1"], ">=", 0.90),
    ("smart / cosine top-1", lambda r: r["smart"]["top1"] / max(r["cosine"]["top1"], 1e-9), ">=", 2.5),
    ("time-point top-1 (date in words)", lambda r: r["smart"]["by_type"]["time_point"], ">=", 0.90),
    ("time-point top-1 (--as-of)", lambda r: r["smart"]["by_type"]["as_of"], ">=", 0.90),
    ("stale-answer rate", lambda r: r["smart"]["stale_rate"], "<=", 0.03),
    ("ECE of confidence", lambda r: r["smart"]["ece"], "<=", 0.08),
    ("worst top-1 over contradiction rates", lambda r: min(s["smart"] for s in r["sweep"]), ">=", 0.85),
    ("re-embedding saved, single-word edits", lambda r: r["reembed_saved"], ">=", 0.90),
)


def check(value: float, op: str, target: float) -> bool:
    return value >= target if op == ">=" else value <= target


def accuracy_targets(report: dict) -> list[dict]:
    rows = []
    for name, read, op, target in ACCURACY_TARGETS:
        value = read(report)
        rows.append({"name": name, "value": round(value, 4), "op": op, "target": target, "met": check(value, op, target)})
    return rows


# -- calibration ---------------------------------------------------------------------------------


def calibration_samples(bench: BenchVault, answers: dict[str, list[dict]]) -> list[tuple[float, float, float, bool, bool]]:
    """(score, lead, cosine, correct, is_top) for every hit valid at its question's time.

    The lead is the hit's score minus the best other hit's, exactly as ``core.search``
    computes it; hits not valid at the reference time are left out because search
    multiplies their confidence by a fixed factor instead.
    """
    samples = []
    for q in bench.questions:
        hits = answers[q.id]
        for i, hit in enumerate(hits):
            if not (hit.get("explain") or {}).get("valid_at_reference"):
                continue
            other = hits[1]["score"] if i == 0 and len(hits) > 1 else (hits[0]["score"] if i else 0.0)
            samples.append((hit["score"], hit["score"] - other, hit["explain"]["cosine"], hit_label(hit) == q.answer.label(), i == 0))
    return samples


def top1_ece_with(bench: BenchVault, answers: dict[str, list[dict]], params: tuple[float, float, float, float]) -> float:
    """ECE of the first hits if their confidence came from ``params`` (not-valid hits keep the ×0.1 factor)."""
    from ..memory.ranking import NOT_VALID_CONFIDENCE_FACTOR
    from .metrics import expected_calibration_error

    a, b, d, c = params
    confidences, correct = [], []
    for q in bench.questions:
        hits = answers[q.id]
        if not hits:
            confidences.append(0.0)
            correct.append(False)
            continue
        top = hits[0]
        lead = top["score"] - (hits[1]["score"] if len(hits) > 1 else 0.0)
        p = sigmoid(a * top["score"] + b * lead + d * top["explain"]["cosine"] + c)
        if not (top.get("explain") or {}).get("valid_at_reference"):
            p *= NOT_VALID_CONFIDENCE_FACTOR
        confidences.append(p)
        correct.append(hit_label(top) == q.answer.label())
    return expected_calibration_error(confidences, correct)


def run_calibration(
    cli: CliCall,
    workdir: Path,
    seed: int = CALIBRATION_SEED,
    rates: Sequence[float] = SWEEP_RATES,
    top_k: int = TOP_K,
    config: Path | None = None,
    log: Log = lambda text: None,
    top1_only: bool = False,
) -> dict:
    """Fit the Platt parameters on a generated vault (a seed other than the benchmark's) at every rate."""
    from ..config import load_config

    bench = generate(seed)
    paths = BenchPaths.fresh(workdir, config)
    log(f"generated calibration vault seed {seed}: {len(bench.questions)} questions")
    replay(cli, bench, paths, log)
    levels = run_levels(cli, bench, paths, rates, log, modes=("smart",), top_k=top_k)
    samples = [s for level in levels for s in calibration_samples(bench, level.answers["smart"])]
    if top1_only:
        samples = [s for s in samples if s[4]]
    fitted = fit_platt([(score, lead, cosine, right) for score, lead, cosine, right, _ in samples])
    current = load_config(paths.index / "config.toml").scoring.calibration
    before = (current.score_weight, current.margin_weight, current.cosine_weight, current.bias)
    ece = lambda params: round(sum(top1_ece_with(bench, lv.answers["smart"], params) for lv in levels) / len(levels), 4)  # noqa: E731
    return {
        "seed": seed,
        "samples": len(samples),
        "positives": sum(1 for s in samples if s[3]),
        "fitted": {
            "score_weight": round(fitted[0], 2),
            "margin_weight": round(fitted[1], 2),
            "cosine_weight": round(fitted[2], 2),
            "bias": round(fitted[3], 2),
        },
        "previous": {"score_weight": before[0], "margin_weight": before[1], "cosine_weight": before[2], "bias": before[3]},
        "top1_ece_previous": ece(before),
        "top1_ece_fitted": ece(tuple(round(v, 2) for v in fitted)),
        "rates": list(sorted(set(rates))),
    }


def calibration_snippet(fitted: dict) -> str:
    return (
        "[scoring]\n"
        f"calibration = {{ score_weight = {fitted['score_weight']}, margin_weight = {fitted['margin_weight']}, "
        f"cosine_weight = {fitted['cosine_weight']}, bias = {fitted['bias']} }}\n"
    )
