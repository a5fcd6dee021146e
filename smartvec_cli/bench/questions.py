"""``bench questions``: how well the index answers the user's own questions about the user's own vault.

The generated benchmark measures what its generator wrote. A vault people really have is
measured only by questions about it whose answers someone knows: a JSON-lines file, one
question a line, naming the notes that answer it (and, optionally, words the answering
passage must contain). Every mode answers the same questions through the Python API,
untracked, so nothing is reinforced and no note is touched; the report puts smartvec beside
plain cosine and full-text search, question by question.

A question that names no note is one nothing in the vault answers: it is right when no hit
comes back, or (in smart mode) when the first hit is marked as a weak match.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Sequence

from ..core.search import MODES
from ..errors import UsageError
from ..memory.ranking import WEAK_MATCH


@dataclass(frozen=True)
class LabelledQuestion:
    id: str
    query: str
    expect: tuple[str, ...]  # vault-relative paths (or glob patterns) of the notes that answer it; empty: nothing does
    contains: str | None = None  # words the answering passage states ("24 hours"), case-insensitive
    as_of: str | None = None


def read_questions(path: Path) -> list[LabelledQuestion]:
    """The questions of a JSON-lines file: {"query", "expect": [paths], "contains"?, "as_of"?, "id"?}."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read questions file {path}: {exc.strerror or exc}") from None
    questions: list[LabelledQuestion] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            raise UsageError(f"{where}: not a JSON object") from None
        if not isinstance(item, dict) or not isinstance(item.get("query"), str) or not item["query"].strip():
            raise UsageError(f'{where}: expected a JSON object with a non-empty string "query"')
        expect = item.get("expect")
        if isinstance(expect, str):
            expect = [expect]
        if not isinstance(expect, list) or not all(isinstance(p, str) and p for p in expect):
            raise UsageError(f'{where}: "expect" must list the paths of the answering notes ([] when nothing answers)')
        contains = item.get("contains")
        if contains == "" and not expect:  # a question nothing answers states no words
            contains = None
        if contains is not None and not (isinstance(contains, str) and contains.strip()):
            raise UsageError(f'{where}: "contains" must be a non-empty string')
        question_id = str(item.get("id") or number)
        if any(q.id == question_id for q in questions):
            raise UsageError(f"{where}: id {question_id!r} is used twice")
        questions.append(
            LabelledQuestion(
                question_id, item["query"], tuple(expect), contains, str(item["as_of"]) if item.get("as_of") else None
            )
        )
    if not questions:
        raise UsageError(f"{path} holds no questions")
    return questions


def from_answering_note(question: LabelledQuestion, path: str) -> bool:
    """``path`` is one of the answering notes: named as it is, or matched by a glob pattern ("commands/*.md",
    "*" with ``contains`` when any note that states the words will do)."""
    return any(path == expected or fnmatchcase(path, expected) for expected in question.expect)


def answers(question: LabelledQuestion, hit: dict) -> bool:
    """The hit comes from a note that answers the question and, when asked, states the given words."""
    if not from_answering_note(question, hit["path"]):
        return False
    return question.contains is None or question.contains.lower() in hit["text"].lower()


def answer_rank(question: LabelledQuestion, hits: Sequence[dict]) -> int | None:
    return next((rank for rank, hit in enumerate(hits, start=1) if answers(question, hit)), None)


def says_nothing(hits: Sequence[dict]) -> bool:
    """No hit, or a first hit that is marked as a weak match: the answer to a question nothing answers."""
    return not hits or any(warning.startswith(WEAK_MATCH) for warning in hits[0].get("warnings") or ())


def score_mode(questions: Sequence[LabelledQuestion], hits_by_id: dict[str, list[dict]], top_k: int) -> dict:
    """Top-1, top-3, top-k, mean reciprocal rank and "the right note first" over the answerable questions;
    the share of the unanswerable ones that got nothing (or a weak first hit)."""
    answerable = [q for q in questions if q.expect]
    unanswerable = [q for q in questions if not q.expect]
    ranks = [answer_rank(q, hits_by_id[q.id]) for q in answerable]
    notes_first = [bool(hits_by_id[q.id]) and from_answering_note(q, hits_by_id[q.id][0]["path"]) for q in answerable]

    def share(flags: Sequence[bool]) -> float | None:
        return round(sum(flags) / len(flags), 4) if flags else None

    return {
        "answerable": len(answerable),
        "top1": share([r == 1 for r in ranks]),
        "top3": share([r is not None and r <= 3 for r in ranks]),
        f"top{top_k}": share([r is not None for r in ranks]),
        "mrr": round(sum(1 / r for r in ranks if r) / len(ranks), 4) if ranks else None,
        "note_top1": share(notes_first),
        "unanswerable": len(unanswerable),
        "said_nothing": share([says_nothing(hits_by_id[q.id]) for q in unanswerable]),
    }


def run_questions(vault, questions: Sequence[LabelledQuestion], modes: Sequence[str] = MODES, top_k: int = 5) -> dict:
    """Ask every question in every mode (``vault``: the Python API's ``Vault``), untracked; the report."""
    batch = [{"id": q.id, "query": q.query, "as_of": q.as_of} for q in questions]
    hits = {
        mode: {
            item.id: [hit.to_dict() for hit in item.hits]
            for item in vault.query_batch(batch, top_k=top_k, mode=mode, track=False)
        }
        for mode in modes
    }
    per_question = []
    for q in questions:
        row = {**asdict(q), "expect": list(q.expect)}
        for mode in modes:
            found = hits[mode][q.id]
            first = found[0] if found else None
            row[mode] = {
                "confidences": [(hit["confidence"], bool(q.expect) and answers(q, hit)) for hit in found]
                if mode == "smart"
                else [],
                "rank": answer_rank(q, found) if q.expect else None,
                "said_nothing": says_nothing(found) if not q.expect else None,
                "first": None
                if first is None
                else {"path": first["path"], "text": first["text"][:200], "warnings": first.get("warnings") or []},
            }
        per_question.append(row)
    return {
        "top_k": top_k,
        "modes": {mode: score_mode(questions, hits[mode], top_k) for mode in modes},
        "questions": per_question,
    }


def questions_markdown(report: dict) -> str:
    """The report as markdown: one column per mode, then every question smart mode got wrong."""
    modes, k = list(report["modes"]), report["top_k"]
    cell = lambda v: "-" if v is None else f"{v:.1%}"  # noqa: E731
    lines = ["| | " + " | ".join(modes) + " |", "|---|" + "---:|" * len(modes)]
    first = report["modes"][modes[0]]
    for key, label in (
        ("top1", "first hit answers"),
        ("top3", "answer in the first 3"),
        (f"top{k}", f"answer in the first {k}"),
        ("note_top1", "first hit from an answering note"),
    ):
        lines.append(
            f"| {label} (n={first['answerable']}) | " + " | ".join(cell(report["modes"][m][key]) for m in modes) + " |"
        )
    lines.append(
        "| mean reciprocal rank | "
        + " | ".join("-" if report["modes"][m]["mrr"] is None else f"{report['modes'][m]['mrr']:.3f}" for m in modes)
        + " |"
    )
    if first["unanswerable"]:
        lines.append(
            f"| nothing answers: no hit or a weak one (n={first['unanswerable']}) | "
            + " | ".join(cell(report["modes"][m]["said_nothing"]) for m in modes)
            + " |"
        )
    mode = "smart" if "smart" in modes else modes[0]
    wrong = [q for q in report["questions"] if (q[mode]["rank"] != 1 if q["expect"] else not q[mode]["said_nothing"])]
    if wrong:
        lines += ["", f"Questions {mode} mode did not answer first:", ""]
        for q in wrong:
            got = q[mode]["first"]
            where = (
                f"rank {q[mode]['rank']}"
                if q[mode]["rank"]
                else ("nothing expected" if not q["expect"] else f"not in the first {k}")
            )
            shown = "no hit" if got is None else f"{got['path']}: {got['text'][:100]!r}"
            lines.append(f"- `{q['id']}` {q['query']!r} ({where}); first hit {shown}")
    return "\n".join(lines) + "\n"
