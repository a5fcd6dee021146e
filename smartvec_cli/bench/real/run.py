"""``make bench-real``: the question sets written blind over real vaults nobody here wrote, asked in every mode.

The corpora themselves are not part of the project (their terms forbid redistributing them): each set's
manifest names the archive under ``SHARED/corpora/``, the folder inside it that is the vault, and the
fixed sample of notes (``notes.txt``, with the rule that produced it). The run unpacks each archive
once, copies exactly the listed notes into a sample vault outside the project (their archive dates
kept, so a rerun re-embeds nothing), indexes and consolidates it with the real model through the CLI as
a user would, then asks ``bench questions`` and prints smart, cosine and lexical side by side.

Run with ``python -m smartvec_cli.bench.real [--shared DIR] [--work DIR] [--out DIR] [CORPUS ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from fnmatch import fnmatchcase
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = (
    "obsidian-hub",
    "rust-book",
    "tldr",
    "contao-de",
    "contao-en",
    "react-ja",
    "react-en",
    "nikiv-wiki",
    "redis-docs",
)
PARALLEL = ("tldr-en", "tldr-de", "tldr-es", "tldr-fr", "tldr-zh")
"""One set of questions in five languages over the same tldr pages in each (``manifest.json``'s ``rule``): what a
vault in another language than English loses, with each model. Run by name, not by default (five more indexes)."""
MODES = ("smart", "cosine", "lexical")
VERSIONED = "versioned-docs"
"""The generated versioned documents (``bench.versioned``): a tool's reference in several versions, asked for a
default now and as of a time inside each version's window; stale when another version answers first."""
VERSIONED_SHAPE = {"documents": 21, "settings": 30, "seed": 7}


class RunError(Exception):
    """A corpus cannot be prepared (missing archive, a listed note gone): stated in one line."""


def manifest(corpus: str) -> dict:
    return json.loads((HERE / corpus / "manifest.json").read_text(encoding="utf-8"))


def sample_notes(corpus: str) -> list[str]:
    """The vault-relative paths of the sample, as listed next to the questions."""
    return [line for line in (HERE / corpus / "notes.txt").read_text(encoding="utf-8").splitlines() if line]


def selected_by_rule(spec: dict, paths: list[str]) -> list[str]:
    """The notes the manifest's rule picks among ``paths``: included and not excluded, or named by ``also``."""

    def matches(path: str, patterns) -> bool:
        return any(fnmatchcase(path, pattern) for pattern in patterns)

    return sorted(
        p
        for p in paths
        if (matches(p, spec["include"]) and not matches(p, spec["exclude"])) or matches(p, spec.get("also", ()))
    )


def read_kinds(corpus: str) -> dict[str, str]:
    """Each question's ``kind`` (how-to, keyword, ...), which ``bench questions`` does not need."""
    lines = (HERE / corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines if line.strip()]
    return {str(item["id"]): item.get("kind", "-") for item in items}


def unpack(archive: Path, into: Path, log) -> Path:
    """The archive's contents under ``into``, extracted once (into a temporary name, then renamed)."""
    if (into / ".unpacked").exists():
        return into
    if not archive.is_file():
        raise RunError(f"corpus archive {archive} not found: pass SHARED=<folder holding corpora/>")
    log(f"unpacking {archive.name} into {into}")
    into.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{into.name}-", dir=into.parent))
    with tarfile.open(archive) as tar:
        tar.extractall(staging, filter="data")
    (staging / ".unpacked").write_text(archive.name + "\n", encoding="utf-8")
    if into.exists():
        shutil.rmtree(into)
    staging.rename(into)
    return into


def build_vault(corpus: str, source: Path, vault: Path, log) -> int:
    """Copy exactly the listed notes into ``vault``, after checking the listing is what the rule picks from
    this archive; a note already there with the same bytes is left alone, a note not listed is removed."""
    spec, listed = manifest(corpus), sample_notes(corpus)
    present = sorted(str(p.relative_to(source)) for p in source.rglob("*.md") if p.is_file())
    picked = selected_by_rule(spec, present)
    if picked != sorted(listed):
        missing, extra = sorted(set(listed) - set(picked)), sorted(set(picked) - set(listed))
        raise RunError(
            f"{corpus}: the archive does not give the listed sample ({len(missing)} listed notes missing, "
            f"{len(extra)} unlisted picked, e.g. {(missing or extra)[0]!r}); is it {spec['source']}?"
        )
    vault.mkdir(parents=True, exist_ok=True)
    wanted = set(listed)
    for old in [p for p in vault.rglob("*.md") if str(p.relative_to(vault)) not in wanted]:
        old.unlink()
    for path in listed:
        src, dst = source / path, vault / path
        if dst.is_file() and dst.read_bytes() == src.read_bytes():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    log(f"{corpus}: sample vault of {len(listed)} notes at {vault}")
    return len(listed)


def smartvec(vault: Path, index_dir: Path, *args: str) -> dict:
    """One CLI command with ``--json``, run as a user would; its JSON output."""
    command = [
        sys.executable,
        "-m",
        "smartvec_cli",
        "--vault",
        str(vault),
        "--index-dir",
        str(index_dir),
        *args,
        "--json",
    ]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    if done.returncode != 0 and not (done.returncode == 3 and args[0] == "index"):  # 3: some notes reported in errors
        raise RunError(f"{' '.join(args[:2])} failed (exit {done.returncode}) on {vault}")
    return json.loads(done.stdout)


def by_kind(report: dict, kinds: dict[str, str]) -> dict:
    """Top-1 per kind of question and mode (said-nothing for the unanswerable ones)."""
    table: dict[str, dict] = {}
    for q in report["questions"]:
        kind = kinds.get(q["id"], "-")
        row = table.setdefault(kind, {"n": 0, **{mode: 0 for mode in report["modes"]}})
        row["n"] += 1
        for mode in report["modes"]:
            row[mode] += (q[mode]["rank"] == 1) if q["expect"] else bool(q[mode]["said_nothing"])
    return {
        kind: {"n": row["n"], **{m: round(row[m] / row["n"], 4) for m in report["modes"]}}
        for kind, row in sorted(table.items())
    }


def averages_markdown(results: dict) -> str:
    """Each mode's mean over the real sets (the generated versioned set left out), and how far smart mode is
    from the better baseline on each set."""
    real = {c: r for c, r in results.items() if c != VERSIONED}
    if not real:
        return ""
    lines = ["| mean over the real sets | first passage answers | right note first | MRR |", "|---|---:|---:|---:|"]
    for mode in MODES:
        rows = [r["report"]["modes"][mode] for r in real.values() if mode in r["report"]["modes"]]
        if rows:
            top1, note, mrr = (sum(row[key] or 0.0 for row in rows) / len(rows) for key in ("top1", "note_top1", "mrr"))
            lines.append(f"| {mode} | {top1:.1%} | {note:.1%} | {mrr:.3f} |")
    return "\n".join(lines) + "\n"


def summary_markdown(results: dict) -> str:
    """Every corpus and mode in one table: the baseline the ranking is measured against."""
    lines = [
        "| corpus | mode | n | first passage answers | right note first | MRR | stale | ECE | unanswerable: said "
        "nothing |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    pct = lambda v: "-" if v is None else f"{v:.1%}"  # noqa: E731
    for corpus, result in results.items():
        fit = result.get("fit", "")
        for mode, m in result["report"]["modes"].items():
            mark = f" ({fit})" if mode == "smart" and fit else ""
            ece = result.get("ece") if mode == "smart" else None
            lines.append(
                f"| {corpus} | {mode}{mark} | {m['answerable']}+{m['unanswerable']} | {pct(m['top1'])} | "
                f"{pct(m['note_top1'])} | {m['mrr']:.3f} | {pct(result.get('stale', {}).get(mode))} | "
                f"{'-' if ece is None else f'{ece:.3f}'} | {pct(m['said_nothing'])} |"
            )
    lines += ["", averages_markdown(results)]
    lines += [
        "",
        "First hit answers, by kind of question (unanswerable: said nothing):",
        "",
        "| corpus | kind | n | " + " | ".join(MODES) + " |",
        "|---|---|---:|" + "---:|" * len(MODES),
    ]
    for corpus, result in results.items():
        for kind, row in result["by_kind"].items():
            lines.append(f"| {corpus} | {kind} | {row['n']} | " + " | ".join(pct(row.get(m)) for m in MODES) + " |")
    return "\n".join(lines) + "\n"


def fitted_on() -> set[str]:
    """The sets the shipped relevance model was fitted on (``bench.ranker fit --write``)."""
    from ...memory.relevance import shipped

    return set(shipped().get("fitted_on", ()))


def held_out_settings(work: Path) -> dict[str, dict]:
    """Per corpus, the relevance model, calibration and weak-match line fitted without it (``bench.ranker fit``
    writes them to ``WORK/held-out.json``); a corpus missing there is asked with the shipped fit (in sample)."""
    path = work / "held-out.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def ask_every_mode(vault: Path, index_dir: Path, questions_file: Path, top_k: int, settings: dict | None) -> dict:
    """``bench questions`` in process, every mode, with ``settings`` (a held-out fit) in force for smart mode."""
    from ...core.api import open_vault
    from ...memory.relevance import Answerability, RelevanceModel
    from ...memory.scoring import Calibration
    from ..questions import read_questions, run_questions

    with open_vault(vault, index_dir) as opened:
        if settings:
            scoring = opened.ws.config.scoring
            scoring.relevance_model = RelevanceModel.from_json(settings["model"])
            scoring.calibration = Calibration(**settings["calibration"])
            scoring.answerability = Answerability.from_json(settings["answerable"])
            scoring.weak_below = settings["weak_below"]
        return run_questions(opened, read_questions(questions_file), top_k=top_k)


def prepare(corpus: str, shared: Path, work: Path, log, model: str | None) -> tuple[Path, Path, Path, dict]:
    """The corpus's vault and index under ``work``, indexed and consolidated through the CLI; its questions file."""
    if corpus == VERSIONED:
        from ..versioned import versioned_questions, write_versioned_vault

        vault, index_dir = work / corpus / "vault", work / corpus / "index"
        if not (vault / ".written").is_file():
            write_versioned_vault(vault, **VERSIONED_SHAPE)
            (vault / ".written").write_text("", encoding="utf-8")
        questions = work / corpus / "questions.jsonl"
        questions.write_text("".join(json.dumps(q) + "\n" for q in versioned_questions(vault)), encoding="utf-8")
        notes = len(list(vault.rglob("*.md")))
        spec: dict = {"source": "bench.versioned (generated)", "rule": f"write_versioned_vault({VERSIONED_SHAPE})"}
    else:
        spec = manifest(corpus)
        unpacked = unpack(shared / "corpora" / spec["archive"], work / "corpora" / corpus, log)
        vault, index_dir = work / corpus / "vault", work / corpus / (f"index-{model}" if model else "index")
        notes = build_vault(corpus, unpacked / spec["root"], vault, log)
        questions = HERE / corpus / "questions.jsonl"
    if model:
        index_dir.mkdir(parents=True, exist_ok=True)
        (index_dir / "config.toml").write_text(f'[embedder]\nmodel = "{model}"\n', encoding="utf-8")
    log(f"{corpus}: indexing {notes} notes with the real model")
    indexed = smartvec(vault, index_dir, "index")
    smartvec(vault, index_dir, "consolidate")
    prepared: dict = {**spec, "notes": notes, "indexed": indexed}
    return vault, index_dir, questions, prepared


def stale_share(report: dict, mode: str) -> float | None:
    """The share of the versioned questions whose first hit is another version of the asked document (a version
    not in force at the asked time states an old default)."""
    rows = [q for q in report["questions"] if q.get("version_of")]
    if not rows:
        return None
    stale = 0
    for q in rows:
        first = q[mode]["first"]
        if first and first["path"] not in q["expect"] and first["path"].startswith(q["version_of"]):
            stale += 1
    return round(stale / len(rows), 4)


def hit_ece(report: dict) -> float | None:
    """ECE of smart mode's confidence over every hit shown (of the first ``top_k``)."""
    from ..metrics import expected_calibration_error

    pairs = [(c, ok) for q in report["questions"] for c, ok in q["smart"].get("confidences", [])]
    if not pairs:
        return None
    return round(expected_calibration_error([c for c, _ in pairs], [ok for _, ok in pairs]), 4)


def run(
    corpora, shared: Path, work: Path, out: Path, top_k: int, log, index_only: bool = False, model: str | None = None
) -> dict:
    results = {}
    out.mkdir(parents=True, exist_ok=True)
    held_out = held_out_settings(work)
    for corpus in corpora:
        started = time.monotonic()
        vault, index_dir, questions, spec = prepare(corpus, shared, work, log, model)
        indexed = spec["indexed"]
        log(
            f"{corpus}: {indexed.get('passages_embedded', 0)} passages embedded, {indexed.get('passages_reused', 0)} "
            "reused"
        )
        if index_only:
            continue
        settings = held_out.get(corpus)
        report = ask_every_mode(vault, index_dir, questions, top_k, settings)
        if corpus == VERSIONED:
            for q in report["questions"]:
                q["version_of"] = q["expect"][0].rsplit(" reference v", 1)[0] if q["expect"] else None
        result = {
            "corpus": corpus,
            "model": model or "auto",
            "source": spec["source"],
            "sample": spec["rule"],
            "notes": spec["notes"],
            "fit": "held out" if settings or corpus not in fitted_on() else "in sample",
            "index": {k: indexed.get(k) for k in ("notes_scanned", "passages_embedded", "passages_reused", "seconds")},
            "seconds": round(time.monotonic() - started, 1),
            "by_kind": by_kind(report, read_kinds(corpus) if corpus != VERSIONED else {}),
            "stale": {mode: stale_share(report, mode) for mode in report["modes"]},
            "ece": hit_ece(report),
            "report": report,
        }
        (out / f"real-{corpus}{'-' + model if model else ''}.json").write_text(
            json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        results[corpus] = result
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smartvec_cli.bench.real", description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpora",
        nargs="*",
        metavar="CORPUS",
        help=f"any of {', '.join(CORPORA + PARALLEL + (VERSIONED,))} (default: all of them)",
    )
    parser.add_argument("--shared", default="../shared", help="folder holding corpora/*.tar.gz (default: ../shared)")
    parser.add_argument(
        "--work",
        default=os.path.join(tempfile.gettempdir(), "smartvec-corpora"),
        help="where the corpora are unpacked and indexed",
    )
    parser.add_argument("--out", default="bench-results", help="folder for real-<corpus>.json and real.md")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument(
        "--model",
        choices=("minilm", "multilingual-e5"),
        help="index with this model ([embedder] model), in index-<model>/",
    )
    parser.add_argument("--index-only", action="store_true", help="build and index the sample vaults, ask nothing")
    args = parser.parse_args(argv)
    every = CORPORA + PARALLEL + (VERSIONED,)
    unknown = [c for c in args.corpora if c not in every]
    if unknown:
        parser.error(f"unknown corpus {unknown[0]!r}: choose from {', '.join(every)}")
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    try:
        results = run(
            args.corpora or every,
            Path(args.shared).expanduser(),
            Path(args.work).expanduser(),
            Path(args.out),
            args.top_k,
            log,
            args.index_only,
            args.model,
        )
    except RunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.index_only:
        return 0
    table = summary_markdown(results)
    (Path(args.out) / "real.md").write_text(table, encoding="utf-8")
    sys.stdout.write(table)
    return 0
