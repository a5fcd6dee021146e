"""Relevance as one fitted model over what a question and a passage share.

Each candidate is described by a few numbers, each normalised over the question's own candidates so that
they mean the same in a vault of 100 passages and one of 100,000, in English and in German: its cosine
(raw, and from the candidates' median to their best), its BM25 over its best, the share of the question's rare
words it holds (all of them, and the specific ones: identifiers, numbers, names), its share of the question's
verbatim phrases, how much of its note's title and of its heading the question names, the same measures for
its note (the best of its note's candidates: which *source* answers) and its place among its note's passages
(which *paragraph*), and what kind of text it is (a list of links or URLs, an image embed, a line of code, a
passage too short to answer anything).

``RelevanceModel`` weighs them: a logistic model fitted on real question sets written blind over vaults
nobody here wrote, one corpus held out at a time (``bench.ranker``), shipped as ``relevance.json`` beside
this module. Its output is the log-odds that the passage answers the question; the ranking orders by it,
and time, trust and relations choose only among versions of one text and near ties
(``memory.ranking``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import ClassVar, Self, Sequence

from .lexical import query_terms

FEATURES = (
    "cosine",
    "cosine_norm",
    "cosine_gap",
    "bm25_norm",
    "coverage",
    "specific",
    "phrase",
    "named",
    "heading",
    "note_cosine_norm",
    "note_bm25_norm",
    "note_coverage",
    "in_note_cosine",
    "in_note_bm25",
    "note_share",
    "dense_rank",
    "lexical_rank",
    "links",
    "link_only",
    "image",
    "words",
    "short",
    "code",
    "states_value",
)
"""The features, in the order the model's weights are stored."""

MIN_COSINE_SPAN = 0.1
"""The least cosine span the candidates' cosines are normalised by: a vault of a handful of passages gives candidates
a few hundredths apart, which normalising by their own span would make look as far apart as a relevant passage and
an unrelated one (among the hundred candidates of a real vault the span is 0.2 to 0.3)."""

LINK = re.compile(r"!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)|<?https?://\S+>?|\bwww\.\S+")
IMAGE = re.compile(r"^\s*!(\[\[[^\]]*\]\]|\[[^\]]*\]\([^)]*\))")
WORD = re.compile(r"[^\W_]+", re.UNICODE)
CODE_LINE = re.compile(r"^\s*(```|~~~|\$ |[{}();<>]|//|#!|import |def |fn |let |const |function )")


@dataclass(frozen=True)
class TextShape:
    """What kind of text a passage is, apart from what it says: links, an image, code, or too little to answer."""

    links: float  # the share of its characters inside links, wikilinks and bare URLs
    link_only: float  # 1 when nothing but links (and a word or two) is left
    image: float  # 1 when it begins with an embedded image
    words: float  # ln(1 + its words)
    short: float  # 1 when it holds under 15 word characters
    code: float  # the share of its lines that look like code


@lru_cache(maxsize=4096)
def text_shape(text: str) -> TextShape:
    body = text.strip()
    if not body:
        return TextShape(0.0, 1.0, 0.0, 0.0, 1.0, 0.0)
    linked = sum(len(m.group(0)) for m in LINK.finditer(body))
    rest = LINK.sub(" ", body)
    rest_words = WORD.findall(rest)
    words = WORD.findall(body)
    lines = [line for line in body.splitlines() if line.strip()]
    code = sum(1 for line in lines if CODE_LINE.match(line)) / max(1, len(lines))
    return TextShape(
        links=min(1.0, linked / len(body)),
        link_only=1.0 if linked and len(rest_words) <= 3 else 0.0,
        image=1.0 if IMAGE.match(body) else 0.0,
        words=math.log1p(len(words)),
        short=1.0 if sum(len(w) for w in words) < 15 else 0.0,
        code=code,
    )


@dataclass(frozen=True)
class Evidence:
    """What the candidate stage measured of one passage for one question (``core.search.gather``)."""

    note: int
    cosine: float
    bm25: float = 0.0
    coverage: float = 0.0
    specific: float = 0.0
    phrase: float = 0.0
    named: float = 0.0
    states_value: float = 0.0
    heading: str = ""
    text: str = ""


def _stem(term: str) -> str:
    return term[:-1] if len(term) > 3 and term.endswith("s") and not term.endswith("ss") else term


def heading_share(asked: frozenset[str], heading: str, language: str) -> float:
    """The share of the question's content words (plurals folded) that the passage's heading path holds."""
    if not asked or not heading:
        return 0.0
    held = {_stem(t) for t in query_terms(heading, language)}
    return len(asked & held) / len(asked)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2.0


def _ranks(values: Sequence[float]) -> list[int]:
    """Each value's rank among ``values``, 1 for the largest (ties share the better rank)."""
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=True)
    ranks = [0] * len(values)
    for place, i in enumerate(order):
        ranks[i] = place + 1 if place == 0 or values[order[place - 1]] != values[i] else ranks[order[place - 1]]
    return ranks


def feature_rows(question: str, found: Sequence[Evidence], language: str = "en") -> list[list[float]]:
    """One row of ``FEATURES`` per candidate, each normalised over this question's candidates."""
    if not found:
        return []
    cosines = [e.cosine for e in found]
    best_cosine, median_cosine = max(cosines), _median(cosines)
    span = max(best_cosine - median_cosine, MIN_COSINE_SPAN)
    best_bm25 = max(e.bm25 for e in found)
    cosine_norm = [(c - median_cosine) / span for c in cosines]
    bm25_norm = [e.bm25 / best_bm25 if best_bm25 > 0 else 0.0 for e in found]
    by_note: dict[int, list[int]] = {}
    for i, e in enumerate(found):
        by_note.setdefault(e.note, []).append(i)
    note_cos = {n: max(cosine_norm[i] for i in rows) for n, rows in by_note.items()}
    note_bm25 = {n: max(bm25_norm[i] for i in rows) for n, rows in by_note.items()}
    note_cov = {n: max(found[i].coverage for i in rows) for n, rows in by_note.items()}
    dense_rank, lexical_rank = _ranks(cosines), _ranks([e.bm25 for e in found])
    asked = frozenset(_stem(t) for t in query_terms(question, language))
    rows: list[list[float]] = []
    for i, e in enumerate(found):
        shape = text_shape(e.text)
        rows.append(
            [
                e.cosine,
                max(-3.0, cosine_norm[i]),
                best_cosine - e.cosine,
                bm25_norm[i],
                e.coverage,
                e.specific,
                e.phrase,
                e.named,
                heading_share(asked, e.heading, language),
                max(-3.0, note_cos[e.note]),
                note_bm25[e.note],
                note_cov[e.note],
                max(-3.0, cosine_norm[i] - note_cos[e.note]),
                bm25_norm[i] - note_bm25[e.note],
                len(by_note[e.note]) / len(found),
                1.0 / math.sqrt(dense_rank[i]),
                1.0 / math.sqrt(lexical_rank[i]) if e.bm25 > 0 else 0.0,
                shape.links,
                shape.link_only,
                shape.image,
                shape.words,
                shape.short,
                shape.code,
                e.states_value,
            ]
        )
    return rows


@dataclass(frozen=True)
class LinearModel:
    """Weights over standardised features (``(x - mean) / scale``) plus a bias: a log-odds. Each subclass names
    its features (``FEATURE_NAMES``), which its stored form carries and checks."""

    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    bias: float
    FEATURE_NAMES: ClassVar[tuple[str, ...]] = ()
    WHAT: ClassVar[str] = "linear model"

    def log_odds(self, row: Sequence[float]) -> float:
        return self.bias + sum(
            w * (x - m) / s for w, m, s, x in zip(self.weights, self.mean, self.scale, row, strict=True)
        )

    def to_json(self) -> dict:
        return {
            "features": list(self.FEATURE_NAMES),
            "weights": list(self.weights),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "bias": self.bias,
        }

    @classmethod
    def from_json(cls, data: dict) -> Self:
        names = tuple(data["features"])
        if names != cls.FEATURE_NAMES:
            raise ValueError(f"the {cls.WHAT}'s features {names} are not this version's {cls.FEATURE_NAMES}")
        return cls(
            tuple(float(w) for w in data["weights"]),
            tuple(float(m) for m in data["mean"]),
            tuple(float(s) or 1.0 for s in data["scale"]),
            float(data["bias"]),
        )


@dataclass(frozen=True)
class RelevanceModel(LinearModel):
    """A linear model over ``FEATURES``: the log-odds that a passage answers the question."""

    FEATURE_NAMES: ClassVar[tuple[str, ...]] = FEATURES
    WHAT: ClassVar[str] = "relevance model"

    def logits(self, rows: Sequence[Sequence[float]]) -> list[float]:
        return [self.log_odds(row) for row in rows]


ANSWERABILITY_FEATURES = ("relevance", "lead", "cosine", "phrase", "coverage")
"""What tells a question the vault answers from one it does not, read off its first hit: its relevance (log-odds),
its lead over the next, its cosine (on MiniLM's scale: ``embed.cosine_map``), the question's best verbatim phrase share
among its candidates and the first hit's share of the question's rare words. Relevance is normalised over the
question's own candidates, so its best says how much better than the rest a passage is, not how close anything comes;
the cosine and the word shares say that."""


@dataclass(frozen=True)
class Answerability(LinearModel):
    """A logistic model over ``ANSWERABILITY_FEATURES``: how likely the vault answers the question at all. Fitted by
    ``bench.ranker`` on the real sets' answerable questions against their nonsense and unanswerable ones, the two
    classes weighing the same; ``ScoringSettings.weak_below`` is the line under which every hit is a weak match."""

    FEATURE_NAMES: ClassVar[tuple[str, ...]] = ANSWERABILITY_FEATURES
    WHAT: ClassVar[str] = "answerability model"

    def probability(self, values: Sequence[float]) -> float:
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, self.log_odds(values)))))

    @classmethod
    def relevance_only(cls) -> "Answerability":
        """The first hit's relevance as it is: a question is as answerable as its best passage is relevant."""
        n = len(ANSWERABILITY_FEATURES)
        return cls((1.0,) + (0.0,) * (n - 1), (0.0,) * n, (1.0,) * n, 0.0)


@lru_cache(maxsize=1)
def shipped() -> dict:
    """What ``bench.ranker`` fitted on every real question set and shipped beside this module: the relevance
    model (``model``), the confidence's Platt parameters (``calibration``), the answerability model (``answerable``)
    and the weak-match line on it (``weak_below``)."""
    return json.loads(resources.files(__package__).joinpath("relevance.json").read_text(encoding="utf-8"))


def shipped_model() -> RelevanceModel:
    return RelevanceModel.from_json(shipped()["model"])


def shipped_answerability() -> Answerability:
    data = shipped().get("answerable")
    return Answerability.from_json(data) if data else Answerability.relevance_only()
