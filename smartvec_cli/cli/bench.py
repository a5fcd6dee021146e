"""``smartvec bench``: accuracy on a generated vault (labelled and plain), speed, calibration, reports.

The benchmarks build their own vaults in a work folder; the global ``--vault``,
``--index-dir`` and ``--now`` options do not apply to them, except in ``bench questions``,
which asks the user's own index the user's own questions.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer

from ..errors import UsageError
from .app import app, open_vault
from .output import JsonOutput, message, print_json

bench_app = typer.Typer(
    help="Benchmarks: accuracy on a generated vault in two styles, speed, calibration of confidence.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")

DEFAULT_OUT = "bench-results"


@contextmanager
def work_folder(given: Optional[str], name: str) -> Iterator[Path]:
    """The given folder (kept afterwards), or a temporary one (removed)."""
    if given:
        path = Path(given).expanduser().absolute()
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix=f"smartvec-{name}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def parse_rates(text: str) -> list[float]:
    try:
        rates = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"bad --rates {text!r}: use e.g. 0,0.25,0.5,0.75") from None
    if not rates or any(not 0 <= r <= 1 for r in rates):
        raise UsageError("--rates must be fractions between 0 and 1")
    return rates


def check_config(config: Optional[str]) -> Optional[Path]:
    if config is None:
        return None
    path = Path(config).expanduser()
    if not path.is_file():
        raise UsageError(f"config file not found: {path}")
    return path


@bench_app.command("accuracy")
def accuracy_command(
    seed: int = typer.Option(2604, "--seed", help="Seed of the generated evaluation vault and questions."),
    fit_seed: int = typer.Option(
        1729, "--fit-seed", help="Seed of the calibration vault the confidence is fitted on first."
    ),
    rate: float = typer.Option(
        0.25, "--contradiction-rate", min=0.0, max=1.0, help="Share of policies with an injected contradiction."
    ),
    rates: str = typer.Option("0,0.25,0.5,0.75", "--rates", help="Contradiction rates of the sweep."),
    top_k: int = typer.Option(
        5, "--top-k", min=2, max=50, help="Hits per question (the confidence uses the lead over hit 2)."
    ),
    out: str = typer.Option(
        DEFAULT_OUT, "--out", help="Folder for accuracy.json, accuracy.md, the per-question file and plots."
    ),
    workdir: Optional[str] = typer.Option(
        None, "--workdir", help="Build the vault here and keep it (default: a temporary folder)."
    ),
    config: Optional[str] = typer.Option(
        None, "--config", help="A config.toml to use for the generated index (to try settings)."
    ),
    no_plots: bool = typer.Option(False, "--no-plots", help="Do not draw PNG plots."),
    as_json: JsonOutput = False,
) -> None:
    """Top-1, stale answers, calibration, contradictions and re-embedding on a generated vault in two styles, against
    plain RAG."""
    from ..bench.accuracy import run_accuracy
    from ..bench.report import (
        accuracy_markdown,
        plot_accuracy_by_type,
        plot_sweep,
        targets_markdown,
        write_json,
        write_jsonl,
    )

    sweep = parse_rates(rates)
    config_path = check_config(config)
    out_dir = Path(out)
    with work_folder(workdir, "accuracy") as folder:
        report, records = run_accuracy(
            folder, seed=seed, fit_seed=fit_seed, rate=rate, rates=sweep, top_k=top_k, config=config_path, log=message
        )
    markdown = accuracy_markdown(report) + "\n" + targets_markdown(report["targets"])
    write_json(out_dir / "accuracy.json", report)
    write_jsonl(out_dir / "accuracy-questions.jsonl", records)
    (out_dir / "accuracy.md").write_text(markdown, encoding="utf-8")
    if not no_plots:
        drawn = plot_accuracy_by_type(report, out_dir / "accuracy_by_type.png") and plot_sweep(
            report, out_dir / "contradiction_sweep.png"
        )
        if not drawn:
            message("warning: matplotlib is not installed, so no plots were drawn (pip install 'smartvec[bench]')")
    message(f"wrote {out_dir}/accuracy.json, accuracy.md, accuracy-questions.jsonl in {report['seconds']:.0f}s")
    if as_json:
        print_json(report)
    else:
        sys.stdout.write(markdown)


@bench_app.command("perf")
def perf_command(
    notes: int = typer.Option(
        1000, "--notes", "-n", min=10, help="Notes in the synthetic vault (the targets are stated for 10,000)."
    ),
    seed: int = typer.Option(7, "--seed", help="Seed of the synthetic vault."),
    queries: int = typer.Option(200, "--queries", min=10, help="In-process queries timed for p50/p95."),
    cold_runs: int = typer.Option(
        5, "--cold-runs", min=0, help="Cold command-line queries timed (0: no command-line calls at all)."
    ),
    warm_runs: int = typer.Option(
        20, "--warm-runs", min=1, help="Command-line queries timed while a watch daemon answers them."
    ),
    recall_sizes: str = typer.Option(
        "10000,100000",
        "--recall-sizes",
        help="Index sizes (passages, comma-separated) at which ANN recall@50 is measured; '' for none.",
    ),
    out: str = typer.Option(DEFAULT_OUT, "--out", help="Folder for perf-<notes>.json and perf-<notes>.md."),
    workdir: Optional[str] = typer.Option(
        None, "--workdir", help="Build the vault here and keep it (default: a temporary folder)."
    ),
    store: Optional[str] = typer.Option(
        None,
        "--store",
        metavar="URL",
        help="Measure a PostgreSQL store (postgresql://..., an empty database) instead of SQLite.",
    ),
    model: Optional[str] = typer.Option(
        None,
        "--model",
        metavar="MODEL",
        help="The index's model: minilm (the default for this English vault) or multilingual-e5.",
    ),
    compare_fp32: bool = typer.Option(
        True,
        "--compare-fp32/--no-compare-fp32",
        help="When the index is embedded in int8, also time a first index in fp32 for the speed-up.",
    ),
    as_json: JsonOutput = False,
) -> None:
    """Index throughput, refresh times, query latency (in process and cold) and peak memory on N synthetic notes."""
    from ..bench.perf import run_perf
    from ..bench.report import perf_markdown, targets_markdown, write_json

    try:
        sizes = tuple(int(part) for part in recall_sizes.replace(" ", "").split(",") if part)
    except ValueError:
        raise UsageError(f"--recall-sizes takes passage counts separated by commas, not {recall_sizes!r}") from None
    if any(size < 1 for size in sizes):
        raise UsageError("--recall-sizes must be positive")
    if model not in (None, "minilm", "multilingual-e5"):
        raise UsageError(f"--model is minilm or multilingual-e5, not {model!r}")
    with work_folder(workdir, "perf") as folder:
        perf = run_perf(
            folder,
            notes=notes,
            seed=seed,
            queries=queries,
            cold_runs=cold_runs,
            warm_runs=warm_runs,
            recall_sizes=sizes,
            store_url=store,
            log=message,
            model=model,
            compare_fp32=compare_fp32,
        )
    out_dir = Path(out)
    markdown = perf_markdown(perf) + "\n" + targets_markdown(perf["targets"])
    name = f"perf-{notes}" + ("-postgres" if store else "") + ("-e5" if model == "multilingual-e5" else "")
    write_json(out_dir / f"{name}.json", perf)
    (out_dir / f"{name}.md").write_text(markdown, encoding="utf-8")
    message(f"wrote {out_dir}/{name}.json and {name}.md")
    if as_json:
        print_json(perf)
    else:
        sys.stdout.write(markdown)


@bench_app.command("calibrate")
def calibrate_command(
    seed: int = typer.Option(
        1729,
        "--seed",
        help="Seed of the calibration vault (its catalogue shares nothing with the accuracy benchmark's).",
    ),
    rates: str = typer.Option("0,0.5", "--rates", help="Contradiction rates whose answers are pooled for the fit."),
    top_k: int = typer.Option(5, "--top-k", min=2, max=50, help="Hits per question used as samples."),
    top1_only: bool = typer.Option(False, "--top1-only", help="Fit on first hits only (what the ECE measures)."),
    workdir: Optional[str] = typer.Option(None, "--workdir", help="Build the vault here and keep it."),
    config: Optional[str] = typer.Option(
        None, "--config", help="A config.toml for the generated index (weights to fit under)."
    ),
    as_json: JsonOutput = False,
) -> None:
    """Fit the Platt parameters of hit confidence on the calibration catalogue; print them as a config.toml snippet."""
    from ..bench.accuracy import calibration_snippet, run_calibration

    config_path = check_config(config)
    config_text = config_path.read_text(encoding="utf-8") if config_path else None
    with work_folder(workdir, "calibrate") as folder:
        fit = run_calibration(
            folder,
            seed=seed,
            rates=parse_rates(rates),
            top_k=top_k,
            config_text=config_text,
            log=message,
            top1_only=top1_only,
        )
    if as_json:
        print_json(fit)
        return
    message(
        f"{fit['samples']} hits ({fit['positives']} correct) from seed {fit['seed']}; top-1 ECE on this vault: "
        f"{fit['top1_ece_previous']:.3f} with {fit['previous']} -> {fit['top1_ece_fitted']:.3f} fitted"
    )
    sys.stdout.write(calibration_snippet(fit["fitted"]))


@bench_app.command("report")
def report_command(
    out: str = typer.Option(DEFAULT_OUT, "--out", help="Folder holding accuracy.json and perf-*.json."),
    command: str = typer.Option("make bench", "--command", help="The command named as the producer of the tables."),
) -> None:
    """Print the combined markdown of the latest results (docs/results.md); also writes results.md."""
    from ..bench.report import results_markdown

    out_dir = Path(out)
    accuracy_file = out_dir / "accuracy.json"
    accuracy = json.loads(accuracy_file.read_text(encoding="utf-8")) if accuracy_file.is_file() else None
    perfs = sorted(
        (json.loads(p.read_text(encoding="utf-8")) for p in out_dir.glob("perf-*.json")),
        key=lambda p: (p["notes"], p["results"].get("store", ""), "e5" in p["machine"].get("embedder", "")),
    )
    if accuracy is None and not perfs:
        raise UsageError(f"no results in {out_dir}: run `smartvec bench accuracy` or `smartvec bench perf` first")
    markdown = results_markdown(accuracy, perfs, command)
    (out_dir / "results.md").write_text(markdown, encoding="utf-8")
    sys.stdout.write(markdown)


@bench_app.command("history")
def history_command(
    repo: Optional[str] = typer.Option(
        None, "--repo", help="A git repository of markdown files (default: smartvec's own, if installed from one)."
    ),
    max_commits: Optional[int] = typer.Option(
        None,
        "--max-commits",
        min=2,
        help="Replay only this many evenly spaced snapshots of the history (default: every commit).",
    ),
    per_kind: int = typer.Option(
        100, "--per-kind", min=1, help="At most this many questions of each kind (edited, moved, split, deleted, now)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the choice of questions when there are more than --per-kind."),
    out: str = typer.Option(
        DEFAULT_OUT, "--out", help="Folder for history.json, history.md and history-questions.jsonl."
    ),
    workdir: Optional[str] = typer.Option(
        None, "--workdir", help="Build the index here and keep it (default: a temporary folder)."
    ),
    as_json: JsonOutput = False,
) -> None:
    """Replay a real git history of markdown files: past answers about edited, moved, split and deleted notes, and
    now."""
    from ..bench.history import history_markdown, run_history
    from ..bench.report import write_json, write_jsonl

    source = Path(repo).expanduser() if repo else Path(__file__).resolve().parents[2]
    if not (source / ".git").exists():
        raise UsageError(f"{source} is not a git repository: pass --repo PATH")
    with work_folder(workdir, "history") as folder:
        report, records = run_history(
            source, folder, max_commits=max_commits, per_kind=per_kind, seed=seed, log=message
        )
    out_dir = Path(out)
    markdown = history_markdown(report)
    write_json(out_dir / "history.json", report)
    write_jsonl(out_dir / "history-questions.jsonl", records)
    (out_dir / "history.md").write_text(markdown, encoding="utf-8")
    message(f"wrote {out_dir}/history.json, history.md and history-questions.jsonl in {report['seconds']:.0f}s")
    if as_json:
        print_json(report)
    else:
        sys.stdout.write(markdown)


@bench_app.command("questions")
def questions_command(
    ctx: typer.Context,
    file: str = typer.Argument(
        ..., help='JSON lines: {"query", "expect": [paths of the answering notes], "contains"?, "as_of"?, "id"?}.'
    ),
    modes: str = typer.Option("smart,cosine,lexical", "--modes", help="The modes to compare, comma-separated."),
    top_k: int = typer.Option(5, "--top-k", "-k", min=1, max=100, help="Hits per question."),
    as_json: JsonOutput = False,
) -> None:
    """Your questions about your vault, with the notes that answer them: top-1, top-3 and MRR per mode (the index is
    only read)."""
    from ..bench.questions import MODES, questions_markdown, read_questions, run_questions

    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    if not chosen or any(m not in MODES for m in chosen):
        raise UsageError(f"--modes takes {', '.join(MODES)} (comma-separated), not {modes!r}")
    questions = read_questions(Path(file).expanduser())
    with open_vault(ctx, embeds_questions=True) as vault:
        report = run_questions(vault, questions, chosen, top_k)
    if as_json:
        print_json(report)
    else:
        sys.stdout.write(questions_markdown(report))
