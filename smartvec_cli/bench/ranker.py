"""The relevance model fitted on the real question sets, one corpus held out at a time.

Every question of every set under ``bench/real`` is asked of its corpus's index (prepared once by
``python -m smartvec_cli.bench.real --index-only``) up to the candidate stage (``core.search.gather``): each
candidate's features (``memory.relevance.FEATURES``) are captured with whether it answers (the set's note and
its words, ``bench.questions.answers``) and whether it comes from an answering note. Then a logistic model is
fitted on every corpus but one and measured on that one by re-ranking its captured candidates: right note
first, first passage answers, MRR; the model fitted on every corpus is the one shipped
(``memory/relevance.json``). Parallel sets (a corpus and its translation) are held out together, so a question
is never measured by a model fitted on its own translation.

    python -m smartvec_cli.bench.ranker capture --work WORK [CORPUS ...]   # WORK/<corpus>/candidates.jsonl
    python -m smartvec_cli.bench.ranker fit --work WORK [--write]         # the table; --write ships the model
    python -m smartvec_cli.bench.ranker scales --work WORK                # each model's cosines (embed.COSINE_SCALES)
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Sequence, TypeVar

from ..core.api import open_vault
from ..core.search import EXACT_CANDIDATES_UP_TO, gather, nearest
from ..embed import cosine_map, embed_queries, model_of_fingerprint
from ..memory.asof import parse_as_of
from ..memory.ranking import WEAK_MATCH_CONFIDENCE_CEILING, Ask, eligible, evidence
from ..memory.relevance import FEATURES, Answerability, LinearModel, RelevanceModel, feature_rows
from ..memory.scoring import Calibration, log_odds
from .metrics import expected_calibration_error, fit_platt
from .questions import from_answering_note, read_questions
from .real.run import CORPORA, HERE, PARALLEL

M = TypeVar("M", bound=LinearModel)

DEPTH = 100
GROUPS = {
    "contao-de": "contao",
    "contao-en": "contao",
    "react-ja": "react",
    "react-en": "react",
    **{corpus: "tldr" for corpus in ("tldr",) + PARALLEL},
}
"""Corpora held out together: a set and its translations ask the same questions of the same pages."""

FLOOR = 0.02  # ``ScoringSettings.relevance_floor``: what the ranking leaves out
SHIPPED = Path(__file__).resolve().parent.parent / "memory" / "relevance.json"


def capture(work: Path, corpus: str, log) -> Path:
    """Every question of ``corpus`` (its nonsense questions too) asked up to the candidate stage; one JSON line per
    question with each eligible candidate's features and labels."""
    vault = open_vault(work / corpus / "vault", work / corpus / "index")
    store = vault._reader_store()
    embedder = vault.embedder
    language = store.lexical_language()
    questions = [(q, False) for q in read_questions(HERE / corpus / "questions.jsonl")]
    nonsense = HERE / corpus / "nonsense.jsonl"
    if nonsense.is_file():
        questions += [(q, True) for q in read_questions(nonsense)]
    kinds = {}
    for line in (HERE / corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            kinds[str(item.get("id"))] = item.get("kind", "-")
    now = vault.ws.clock.now()
    scale = cosine_map(store.fingerprint)
    model = model_of_fingerprint(store.fingerprint) or "other"
    out = work / corpus / "candidates.jsonl"
    with out.open("w", encoding="utf-8") as sink:
        for number, (q, is_nonsense) in enumerate(questions, start=1):
            text = q.query
            when = parse_as_of(text, now, vault.ws.languages())
            if when:
                text = when.remainder
            vector = embed_queries(embedder, [text])[0]
            similar = dict(nearest(store, vector, DEPTH, exact=len(store.load_ann().live) <= EXACT_CANDIDATES_UP_TO))
            gathered = gather(store, vector, text, similar)
            ask = Ask(when.moment if when else now, when is not None)
            found = eligible(gathered.candidates, ask)
            rows = feature_rows(text, [evidence(c, scale) for c in found], language)
            record = {
                "corpus": corpus,
                "model": model,
                "id": q.id,
                "kind": "nonsense" if is_nonsense else kinds.get(q.id, "-"),
                "answerable": bool(q.expect),
                "candidates": [
                    {
                        "path": c.passage.path,
                        "note": c.passage.note,
                        "answers": bool(q.expect)
                        and from_answering_note(q, c.passage.path)
                        and (q.contains is None or q.contains.lower() in c.passage.text.lower()),
                        "note_ok": bool(q.expect) and from_answering_note(q, c.passage.path),
                        "raw_cosine": round(c.cosine, 5),
                        "x": [round(v, 5) for v in row],
                    }
                    for c, row in zip(found, rows, strict=True)
                ],
            }
            sink.write(json.dumps(record) + "\n")
            if number % 50 == 0:
                log(f"{corpus}: {number}/{len(questions)} questions captured")
    vault.close()
    return out


def load(work: Path, corpora: Sequence[str]) -> list[dict]:
    rows = []
    for corpus in corpora:
        path = work / corpus / "candidates.jsonl"
        if path.is_file():
            rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


GROUP_WEIGHT = 100.0
"""What each group of corpora (``GROUPS``) weighs in the fit, its questions sharing it equally and each question's
candidates sharing its share: a vault unlike the Rust book counts as much as the Rust book, however many questions
each set holds."""


def fit(questions: Sequence[dict], c: float = 1.0) -> RelevanceModel:
    """A logistic model of "this candidate answers" over the answerable questions' candidates, each group of
    corpora weighing ``GROUP_WEIGHT``."""
    from sklearn.linear_model import LogisticRegression

    usable = [
        q for q in questions if q["answerable"] and q["candidates"] and any(c["answers"] for c in q["candidates"])
    ]
    per_group: dict[str, int] = {}
    for q in usable:
        group = GROUPS.get(q["corpus"], q["corpus"])
        per_group[group] = per_group.get(group, 0) + 1
    xs, ys, ws = [], [], []
    for q in usable:
        share = GROUP_WEIGHT / per_group[GROUPS.get(q["corpus"], q["corpus"])] / len(q["candidates"])
        for cand in q["candidates"]:
            xs.append(cand["x"])
            ys.append(1 if cand["answers"] else 0)
            ws.append(share)
    return logistic(RelevanceModel, xs, ys, LogisticRegression(C=c, max_iter=3000), ws)


def logistic(kind: type[M], xs: Sequence, ys: Sequence[int], regression, weights: Sequence[float] | None = None) -> M:
    """``regression`` (scikit-learn's ``LogisticRegression``) fitted on the standardised ``xs``, as a ``kind`` of
    ``memory.relevance.LinearModel``."""
    import numpy as np

    x = np.asarray(xs, dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    regression.fit((x - mean) / scale, np.asarray(ys), sample_weight=None if weights is None else np.asarray(weights))
    return kind(
        tuple(float(w) for w in regression.coef_[0]),
        tuple(float(m) for m in mean),
        tuple(float(s) for s in scale),
        float(regression.intercept_[0]),
    )


def rerank(model: RelevanceModel, q: dict) -> list[dict]:
    if not q["candidates"]:
        return []
    logits = model.logits([c["x"] for c in q["candidates"]])
    order = sorted(range(len(logits)), key=lambda i: logits[i], reverse=True)
    return [{**q["candidates"][i], "logit": logits[i]} for i in order]


def scores(model: RelevanceModel, questions: Sequence[dict]) -> dict:
    answerable = [q for q in questions if q["answerable"]]
    top1 = note1 = rr = 0.0
    for q in answerable:
        ranked = rerank(model, q)
        if ranked:
            top1 += ranked[0]["answers"]
            note1 += ranked[0]["note_ok"]
            rank = next((i for i, c in enumerate(ranked[:5], start=1) if c["answers"]), None)
            rr += 1.0 / rank if rank else 0.0
    n = max(1, len(answerable))
    return {"n": len(answerable), "top1": top1 / n, "note_top1": note1 / n, "mrr": rr / n}


def baseline(questions: Sequence[dict], feature: str) -> dict:
    """The same candidates ordered by one feature alone (the cosine, BM25): the baselines on equal terms."""
    k = FEATURES.index(feature)
    one = RelevanceModel(
        tuple(1.0 if i == k else 0.0 for i in range(len(FEATURES))),
        tuple(0.0 for _ in FEATURES),
        tuple(1.0 for _ in FEATURES),
        0.0,
    )
    return scores(one, questions)


TOP_K = 5


def hits_of(model: RelevanceModel, q: dict, floor: float) -> list[dict]:
    """The first ``TOP_K`` candidates by the model's log-odds above ``floor`` (log-odds), with each one's
    calibration features as ``memory.ranking.calibrate`` computes them."""
    ranked = rerank(model, q)
    kept = [c for c in ranked if c["logit"] >= floor][:TOP_K]
    left_out = [c["logit"] for c in ranked if c["logit"] < floor]
    values = [c["logit"] for c in kept]
    found = []
    for i, c in enumerate(kept):
        if i:
            lead = values[i] - max(values[:i])
        else:
            other = values[1] if len(values) > 1 else (left_out[0] if left_out else log_odds(1e-4))
            lead = values[0] - other
        found.append({**c, "features": (c["logit"], lead, 1.0 if i == 0 else 0.0, c["logit"] if i == 0 else 0.0)})
    return found


def fit_calibration(model: RelevanceModel, questions: Sequence[dict], floor: float) -> Calibration:
    """Platt scaling of every hit of the first five (nonsense and unanswerable questions' hits are wrong), each
    group of corpora (``GROUPS``) weighing the same, as in the relevance fit."""
    samples, groups = [], []
    for q in questions:
        for hit in hits_of(model, q, floor):
            samples.append((*hit["features"], hit["answers"]))
            groups.append(GROUPS.get(q["corpus"], q["corpus"]))
    per_group = {group: groups.count(group) for group in set(groups)}
    return Calibration(*fit_platt(samples, l2=1e-3, weights=[1.0 / per_group[group] for group in groups]))


def answerability_row(q: dict, hits: Sequence[dict]) -> list[float]:
    """``memory.relevance.ANSWERABILITY_FEATURES`` of a question, as ``memory.ranking.answerability`` reads them."""
    first = hits[0]
    phrase, cosine, coverage = (FEATURES.index(name) for name in ("phrase", "cosine", "coverage"))
    return [
        first["logit"],
        first["features"][1],
        first["x"][cosine],
        max(c["x"][phrase] for c in q["candidates"]),
        first["x"][coverage],
    ]


def answerability_samples(model: RelevanceModel, questions: Sequence[dict], floor: float) -> list[tuple[list, bool]]:
    """Each question with hits, as (its answerability features, whether it is answerable); an answerable question
    whose right passage none of its candidates is tells nothing of either kind and is left out."""
    samples = []
    for q in questions:
        hits = hits_of(model, q, floor)
        if hits and (not q["answerable"] or any(c["answers"] for c in q["candidates"])):
            samples.append((answerability_row(q, hits), bool(q["answerable"])))
    return samples


def fit_answerability(model: RelevanceModel, questions: Sequence[dict], floor: float) -> Answerability:
    """A logistic model of "the vault answers this question", answerable and unanswerable questions weighing the
    same."""
    from sklearn.linear_model import LogisticRegression

    samples = answerability_samples(model, questions, floor)
    regression = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)
    return logistic(Answerability, [row for row, _ in samples], [1 if ok else 0 for _, ok in samples], regression)


def choose_weak(
    model: RelevanceModel, answerability: Answerability, questions: Sequence[dict], floor: float, refused: float = 0.05
) -> float:
    """The weak-match line: the highest answerability that flags at most ``refused`` of the answerable questions
    whose right passage is among the candidates, so that as many questions nothing answers as possible say
    nothing."""
    answerable = sorted(
        answerability.probability(row) for row, ok in answerability_samples(model, questions, floor) if ok
    )
    return answerable[int(refused * len(answerable))] if answerable else 0.0


def settings_for(questions: Sequence[dict], c: float = 1.0) -> dict:
    """The relevance model, its calibration, the answerability model and its weak-match line fitted on
    ``questions``."""
    model = fit(questions, c)
    floor = log_odds(FLOOR)
    answerability = fit_answerability(model, questions, floor)
    return {
        "model": model.to_json(),
        "calibration": asdict(fit_calibration(model, questions, floor)),
        "answerable": answerability.to_json(),
        "weak_below": round(choose_weak(model, answerability, questions, floor), 4),
    }


def evaluate(settings: dict, held: Sequence[dict]) -> dict:
    """Held-out measures on re-ranked candidates: first passage, right note, MRR, ECE of every hit of the first five
    and of the first, and the share of unanswerable questions whose first hit is a weak match."""
    model = RelevanceModel.from_json(settings["model"])
    calibration = Calibration(**settings["calibration"])
    answerability = Answerability.from_json(settings["answerable"])
    floor = log_odds(FLOOR)
    row = scores(model, held)
    confidences, correct, first_conf, first_ok, silent, refused = [], [], [], [], [], []
    for q in held:
        hits = hits_of(model, q, floor)
        is_weak = not hits or answerability.probability(answerability_row(q, hits)) < settings["weak_below"]
        for hit in hits:
            p = calibration.probability(*hit["features"][:3])
            p = min(p, WEAK_MATCH_CONFIDENCE_CEILING) if is_weak else p
            confidences.append(p)
            correct.append(hit["answers"])
            if hit["features"][2]:
                first_conf.append(p)
                first_ok.append(hit["answers"])
        if q["answerable"]:
            refused.append(is_weak)
        else:
            silent.append(is_weak)
    row["ece"] = expected_calibration_error(confidences, correct)
    row["ece_first"] = expected_calibration_error(first_conf, first_ok)
    row["said_nothing"] = sum(silent) / len(silent) if silent else None
    row["refused"] = sum(refused) / len(refused) if refused else None
    return row


def leave_one_out(questions: Sequence[dict], c: float = 1.0) -> tuple[dict[str, dict], dict[str, dict]]:
    """Per corpus: the measures of the settings fitted without its group, beside the cosine and BM25 orders of the
    same candidates; and those settings."""
    by_corpus: dict[str, list[dict]] = {}
    for q in questions:
        by_corpus.setdefault(q["corpus"], []).append(q)
    table, fitted = {}, {}
    by_group: dict[str, dict] = {}
    for corpus, held in by_corpus.items():
        group = GROUPS.get(corpus, corpus)
        if group not in by_group:
            by_group[group] = settings_for([q for q in questions if GROUPS.get(q["corpus"], q["corpus"]) != group], c)
        fitted[corpus] = by_group[group]
        table[corpus] = {
            "held_out": evaluate(by_group[group], held),
            "cosine": baseline(held, "cosine"),
            "bm25": baseline(held, "bm25_norm"),
        }
    return table, fitted


def cosine_scales(questions: Sequence[dict]) -> dict[str, tuple[float, ...]]:
    """Per embedding model: a question's cosine to the median of its candidates and to its best one, averaged over
    the corpora (each corpus weighing the same) of the captured questions; no answer label is read."""
    import numpy as np

    per_corpus: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for q in questions:
        cosines = [c["raw_cosine"] for c in q["candidates"] if "raw_cosine" in c]
        if cosines:
            per_corpus.setdefault((q.get("model", "other"), q["corpus"]), []).append(
                (float(np.median(cosines)), max(cosines))
            )
    by_model: dict[str, list[tuple[float, float]]] = {}
    for (model, _), pairs in per_corpus.items():
        by_model.setdefault(model, []).append(tuple(np.mean(pairs, axis=0)))
    return {model: tuple(round(float(v), 3) for v in np.mean(pairs, axis=0)) for model, pairs in by_model.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smartvec_cli.bench.ranker", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("capture", "fit", "scales"))
    parser.add_argument("corpora", nargs="*", metavar="CORPUS")
    parser.add_argument("--work", required=True, type=Path)
    parser.add_argument("--c", type=float, default=1.0, help="the inverse strength of the fit's L2 penalty")
    parser.add_argument("--write", action="store_true", help="ship the model fitted on every corpus")
    args = parser.parse_args(argv)
    corpora = args.corpora or list(CORPORA + PARALLEL)
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    if args.action == "capture":
        for corpus in corpora:
            if (args.work / corpus / "index").is_dir():
                capture(args.work, corpus, log)
            else:
                log(f"{corpus}: no index under {args.work / corpus}; skipped")
        return 0
    questions = load(args.work, corpora)
    if args.action == "scales":
        print(json.dumps(cosine_scales(questions)))
        return 0
    table, fitted = leave_one_out(questions, args.c)
    (args.work / "held-out.json").write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
    print(
        "| corpus | n | held out: first passage / right note / MRR | cosine | BM25 | ECE | ECE first | said nothing "
        "| refused |"
    )
    print("|---|---:|---|---|---|---:|---:|---:|---:|")
    pct = lambda r: f"{r['top1']:.3f} / {r['note_top1']:.3f} / {r['mrr']:.3f}"  # noqa: E731
    for corpus, row in table.items():
        cells = " | ".join(pct(row[k]) for k in ("held_out", "cosine", "bm25"))
        h = row["held_out"]
        extra = " | ".join(
            "-" if h[k] is None else f"{h[k]:.3f}" for k in ("ece", "ece_first", "said_nothing", "refused")
        )
        print(f"| {corpus} | {h['n']} | {cells} | {extra} |")
    means = {k: sum(r[k]["top1"] for r in table.values()) / len(table) for k in ("held_out", "cosine", "bm25")}
    notes = {k: sum(r[k]["note_top1"] for r in table.values()) / len(table) for k in ("held_out", "cosine", "bm25")}
    print(f"mean over sets: first passage {means}, right note {notes}")
    shipped = settings_for(questions, args.c)
    weights = shipped["model"]["weights"]
    print(json.dumps(dict(zip(FEATURES, [round(w, 3) for w in weights], strict=True))))
    print(json.dumps({k: shipped[k] for k in ("calibration", "answerable", "weak_below")}))
    if args.write:
        shipped["fitted_on"] = sorted({q["corpus"] for q in questions})
        SHIPPED.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
