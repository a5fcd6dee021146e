"""Hit confidence fitted and measured on the real question sets, one corpus held out at a time.

The generated catalogue (``bench calibrate``) measures what its generator wrote; the sets under ``bench/real``
were written blind over vaults nobody here wrote, so they say how often a hit shown at 40% really answers.
Every question of each set (and its nonsense questions, never fitted on) is asked through the Python API as
``query`` asks it (top-k 5, untracked, ``explain``); each hit's features are kept with whether it answers
(``bench questions``' rule: the set's note, and its words when given). Then, for each corpus, ``Calibration``
is fitted (``metrics.fit_platt``) on the others and its confidences are measured on it by asking again with
the fitted parameters in force: the ECE of every hit of the first five (beside what perfectly calibrated
confidences would score on as many hits by chance, ``ece_noise_floor``), of the first hit, the most a
nonsense question's first hit claims, and top-1 (which calibration must not move). Last, the fit on every
corpus, the parameters to ship, checked the same way.

Run, after the corpora were prepared once with ``python -m smartvec_cli.bench.real --index-only``::

    python -m smartvec_cli.bench.calibrate_real --work WORK [CORPUS ...] [--out FILE.json]

``WORK`` is the ``--work`` folder of that run (each corpus's vault and index under ``WORK/<corpus>/``).
Nothing is written into the vaults or their indexes; the JSON report goes to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, fields
from pathlib import Path
from typing import Sequence

from ..memory.ranking import WEAK_MATCH
from ..memory.scoring import Calibration
from .accuracy import confidence_features
from .metrics import expected_calibration_error, fit_platt
from .questions import LabelledQuestion, answers, read_questions
from .real.run import CORPORA, HERE, PARALLEL, RunError

TOP_K = 5
WEIGHTS = tuple(f.name for f in fields(Calibration) if f.name != "bias")
FEATURES = tuple(name.removesuffix("_weight") for name in WEIGHTS)


def question_sets(corpus: str) -> list[tuple[LabelledQuestion, bool]]:
    """The corpus's questions, each with whether it is one of its nonsense questions (never fitted on)."""
    asked = [(q, False) for q in read_questions(HERE / corpus / "questions.jsonl")]
    nonsense = HERE / corpus / "nonsense.jsonl"
    if nonsense.is_file():
        asked += [(q, True) for q in read_questions(nonsense)]
    return asked


def ask(vault, corpus: str, calibration: Calibration | None = None) -> list[dict]:
    """Every question of ``corpus`` asked of ``vault`` (the API's ``Vault``) with ``calibration`` in force (None:
    the one configured): per question its id, whether it is nonsense, and its hits' features, confidence,
    weak-match flag and whether each answers."""
    scoring = vault.ws.config.scoring
    kept = scoring.calibration
    if calibration is not None:
        scoring.calibration = calibration
    try:
        rows = []
        for question, nonsense in question_sets(corpus):
            answer = vault.answer(question.query, as_of=question.as_of, top_k=TOP_K, track=False, explain=True)
            found = [hit.to_dict() for hit in answer.hits]
            rows.append(
                {
                    "corpus": corpus,
                    "id": question.id,
                    "nonsense": nonsense,
                    "answerable": bool(question.expect),
                    "hits": [
                        {
                            "features": confidence_features(hit),
                            "confidence": hit["confidence"],
                            "path": hit["path"],
                            "passage": hit["chunk_id"],
                            "weak": any(w.startswith(WEAK_MATCH) for w in hit.get("warnings") or ()),
                            "answers": bool(question.expect) and answers(question, hit),
                        }
                        for hit in found
                    ],
                }
            )
        return rows
    finally:
        scoring.calibration = kept


def samples(rows: Sequence[dict]) -> list[tuple]:
    """(features..., answers) of every hit of the fitted questions: nonsense questions are left out."""
    return [(*hit["features"], hit["answers"]) for row in rows if not row["nonsense"] for hit in row["hits"]]


RIDGE = 2e-3
"""The L2 penalty of the fit. The three vaults differ in what their features mean (a Rust book chapter holds a
median of 28 passages, a tldr page 5, a hub note 2), so a fit on two follows their particulars into the third:
leave one corpus out, with the note's size among the features, a ridge of 1e-5 scored an ECE (every hit of the first
five) of up to 0.063 on the corpus held out, 2e-3 up to 0.039 (refits of the recorded features; asked again with
the fit in force, 0.041). Chosen nested (the ridge picked on the two fitted corpora alone, from 1e-5 to 1e-2),
the held-out ECE was 0.040 (Rust book), 0.039 (tldr), 0.052 (hub)."""


def fit(rows: Sequence[dict]) -> Calibration:
    """``Calibration`` fitted by logistic regression (ridge ``RIDGE``) on every hit of ``rows``' questions."""
    *weights, bias = fit_platt(samples(rows), l2=RIDGE)
    # By name, in field order: a fit on fewer features than the fields leaves the later weights at their defaults.
    fitted = dict(zip(WEIGHTS, (round(w, 2) for w in weights), strict=False))
    return Calibration(**fitted, bias=round(bias, 2))


NOISE_DRAWS = 300


def ece_noise_floor(confidences: Sequence[float], draws: int = NOISE_DRAWS, seed: int = 1) -> tuple[float, float]:
    """The mean and the 95th percentile of the ECE that perfectly calibrated confidences would score on this many
    hits (each answering with the probability it claims): how far a set of 300 hits is from 0 by chance alone."""
    import random

    rng = random.Random(seed)
    scored = sorted(
        expected_calibration_error(confidences, [rng.random() < c for c in confidences]) for _ in range(draws)
    )
    return round(sum(scored) / draws, 4), round(scored[int(0.95 * draws)], 4)


def measure(rows: Sequence[dict]) -> dict:
    """ECE of every hit and of the first hit (the questions with a hit), the nonsense questions' highest first
    confidence, and how often the first hit answers, for the confidences ``rows`` were asked with."""
    fitted = [row for row in rows if not row["nonsense"]]
    every = [hit for row in fitted for hit in row["hits"]]
    first = [row["hits"][0] for row in fitted if row["hits"]]
    nonsense = [row["hits"][0]["confidence"] for row in rows if row["nonsense"] and row["hits"]]
    answerable = [row for row in fitted if row["answerable"]]

    def ece(hits):
        return round(expected_calibration_error([h["confidence"] for h in hits], [h["answers"] for h in hits]), 4)

    return {
        "questions": len(fitted),
        "hits": len(every),
        "answering": sum(h["answers"] for h in every),
        "ece_every_hit": ece(every),
        "ece_first_hit": ece(first),
        "ece_every_hit_by_chance": ece_noise_floor([h["confidence"] for h in every]) if every else None,
        "mean_confidence": round(sum(h["confidence"] for h in every) / max(1, len(every)), 4),
        "answer_rate": round(sum(h["answers"] for h in every) / max(1, len(every)), 4),
        "nonsense_first_max": round(max(nonsense), 4) if nonsense else None,
        "top1": round(
            sum(bool(r["hits"]) and r["hits"][0]["answers"] for r in answerable) / max(1, len(answerable)), 4
        ),
    }


def first_hits_moved(before: Sequence[dict], after: Sequence[dict]) -> int:
    """How many questions' first hit is another passage than before (calibration must move none)."""

    def first(row):
        return row["hits"][0]["passage"] if row["hits"] else None

    return sum(first(a) != first(b) for a, b in zip(before, after, strict=False))


def held_out(vaults: dict, asked: dict[str, list[dict]]) -> dict:
    """For each corpus: ``Calibration`` fitted on the others, measured on it (asked again with the fit in force);
    then the held-out folds pooled."""
    report, pooled = {}, []
    for corpus, vault in vaults.items():
        calibration = fit([row for name, rows in asked.items() if name != corpus for row in rows])
        rows = ask(vault, corpus, calibration)
        pooled += rows
        report[corpus] = {
            "fitted_on": [name for name in asked if name != corpus],
            "calibration": asdict(calibration),
            **measure(rows),
            "first_hits_moved": first_hits_moved(asked[corpus], rows),
        }
    report["pooled"] = measure(pooled)
    return report


def open_corpus(work: Path, corpus: str):
    """The API's ``Vault`` over the corpus as ``bench.real`` prepared it."""
    from .. import open_vault

    vault, index = work / corpus / "vault", work / corpus / "index"
    if not vault.is_dir() or not any(index.glob("*.db")):
        raise RunError(
            f"no index of {corpus} under {work / corpus}: run python -m smartvec_cli.bench.real --work {work} "
            f"--index-only {corpus} first"
        )
    return open_vault(vault, index)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m smartvec_cli.bench.calibrate_real", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "corpora",
        nargs="*",
        metavar="CORPUS",
        help=f"any of {', '.join(CORPORA + PARALLEL)} (default: {', '.join(CORPORA)})",
    )
    parser.add_argument("--work", required=True, help="the --work folder of python -m smartvec_cli.bench.real")
    parser.add_argument("--out", help="write the JSON report here")
    args = parser.parse_args(argv)
    corpora = args.corpora or list(CORPORA)
    unknown = [c for c in corpora if c not in CORPORA + PARALLEL]
    if unknown:
        parser.error(f"unknown corpus {unknown[0]!r}: choose from {', '.join(CORPORA + PARALLEL)}")
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    try:
        vaults = {corpus: open_corpus(Path(args.work).expanduser(), corpus) for corpus in corpora}
    except RunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    asked = {}
    for corpus, vault in vaults.items():
        log(f"{corpus}: asking with the configured calibration")
        asked[corpus] = ask(vault, corpus)
    report = {"features": list(FEATURES), "shipped": {c: measure(rows) for c, rows in asked.items()}}
    log("leave one corpus out")
    report["held_out"] = held_out(vaults, asked)
    everything = fit([row for rows in asked.values() for row in rows])
    report["fit_on_all"] = {
        "calibration": asdict(everything),
        "measured": {c: measure(ask(v, c, everything)) for c, v in vaults.items()},
    }
    text = json.dumps(report, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
