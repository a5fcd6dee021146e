"""Four-signal ranking: meaning, time, trust and relations.

    score = w_s·semantic + w_t·temporal + w_c·confidence + w_r·relational

with the paper's default weights 0.35 / 0.25 / 0.25 / 0.15.

The semantic signal is the cosine similarity *relative to the best candidate*: 1 for
the closest passage, falling linearly to 0 at ``relevance_spread`` (0.15) below it.
Raw MiniLM cosines of relevant and irrelevant passages differ by only a few tenths,
so with raw cosine the three other signals (worth 0.65 together) let an authoritative
but unrelated passage outrank the right one; relative to the best match, meaning
decides *what* is relevant and time, trust and relations decide *which* of the
relevant passages to believe. The raw cosine is kept in ``explain``.

The temporal signal is 0
outside a passage's validity window at the reference time (now, or the question's
as-of time) and never above 1 (the published formula can exceed 1 for future-dated
passages). Inside the window, a passage with declared validity scores 1; an undated
one scores by freshness, ``0.5 + 0.5·retention``, where retention is the forgetting
curve of its source type (``memory.confidence``), so an old undated note is doubted
but never treated as expired.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

from ..clock import parse_optional
from ..errors import UsageError

SIGNALS = ("semantic", "temporal", "confidence", "relational")
DEFAULT_WEIGHTS = {"semantic": 0.35, "temporal": 0.25, "confidence": 0.25, "relational": 0.15}
WEIGHTS_EXAMPLE = "use e.g. semantic=0.35,temporal=0.25,confidence=0.25,relational=0.15"


def _weight(name: str, value) -> float:
    """One weight: a finite number, 0 or more (text such as ``"0.5"`` is read as a number)."""
    if isinstance(value, bool):
        number = math.nan
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
    if not math.isfinite(number) or number < 0:
        shown = value if isinstance(value, str) else repr(value)
        raise UsageError(f"weight {name}={shown} must be a finite number, 0 or more ({WEIGHTS_EXAMPLE})")
    return number


@dataclass
class Weights:
    semantic: float = 0.35
    temporal: float = 0.25
    confidence: float = 0.25
    relational: float = 0.15

    @classmethod
    def parse(cls, text: str) -> "Weights":
        """``semantic=0.5,temporal=0.2,...`` (unnamed signals keep their default) or four numbers in order.

        The one parser of weights written as text: ``--weights``, a batch line's and the query socket's
        options all come here (``core.api.search_options``), and end in ``from_mapping``'s checks."""
        values: dict[str, object] = {}
        parts = [p.strip() for p in str(text).split(",") if p.strip()]
        if not parts:
            raise UsageError(f"bad weights {text!r}: {WEIGHTS_EXAMPLE}")
        if all("=" not in p for p in parts):
            if len(parts) != 4:
                raise UsageError(
                    f"bad weights {text!r}: four numbers in order {', '.join(SIGNALS)}, or {WEIGHTS_EXAMPLE}"
                )
            values = dict(zip(SIGNALS, parts, strict=False))
        else:
            for part in parts:
                name, equals, value = (s.strip() for s in part.partition("="))
                if not equals or name not in SIGNALS:
                    raise UsageError(f"bad weights {text!r}: {name!r} is not a signal ({', '.join(SIGNALS)})")
                values[name] = value
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values) -> "Weights":
        """Weights from a mapping of signal to number (a config table, the Python API, a socket request).

        A weight must be a finite number, not below 0, and not all of them 0: NaN would make every score
        NaN (and every confidence 1.0), infinity makes them NaN once normalised, a negative weight ranks
        by the absence of a signal. Signals not named keep their default."""
        if not isinstance(values, dict):
            raise UsageError(
                f"weights must map signal names to numbers, not {type(values).__name__}: {WEIGHTS_EXAMPLE}"
            )
        unknown = [str(k) for k in values if k not in SIGNALS]
        if unknown:
            raise UsageError(f"unknown weight {unknown[0]!r}: the signals are {', '.join(SIGNALS)}")
        weights = cls(**{k: _weight(k, values.get(k, DEFAULT_WEIGHTS[k])) for k in SIGNALS})
        total = sum(weights.as_dict().values())
        if not math.isfinite(total) or total <= 0:
            raise UsageError("weights must not all be 0 (and their sum must be a finite number)")
        return weights

    def as_dict(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in SIGNALS}


def passage_length(text: str) -> float:
    """The length feature of ``Calibration``: ln(1 + the passage's words)."""
    return math.log1p(len(text.split()))


def note_size(passages: int) -> float:
    """The note-size feature of ``Calibration``: ln of the number of passages its note holds (at least 1)."""
    return math.log(max(1, passages))


@dataclass
class Calibration:
    """Platt scaling into P(this hit answers the question) of the score, the lead over the best other hit, the
    question's closeness (and its square, and once more for the first hit alone), the hit's own cosine and, below
    the first hit, its note's share of the first ten hits and its length; and its note's size.

    The closeness is the relevance of the question's most relevant hit, at most 1 (``memory.ranking.calibrate``),
    shared by every hit of the list: the score is relative to the best candidate (the first hit's semantic
    signal is always 1), so only the closeness says whether anything in the vault is near the question at all;
    on the real sets a first hit under 0.5 answered 2 times in 24, one over 0.9 two times in three, which a
    straight line in the closeness cannot follow, hence its square. The note's share counts the passages of the
    hit's note among the first ten hits (``memory.ranking.SIBLINGS_AMONG``): in a long chapter several passages
    state the answer (on the Rust book, hits 2 to 5 answered 31% to 18% of the time, on tldr's one-page
    commands 13% to 5%). The hit's own cosine says what the relative score cannot of a hit below the first;
    on the generated catalogue, where many passages differ by a version, its fit leans on it most.

    The first hit's closeness (``first_closeness_weight``: the closeness again, for the first hit only) lets the
    first hit's claim follow the question's closeness more steeply than the hits below it: whether anything is
    near the question says most about the best of what is. The length (``length_weight``: ``passage_length``,
    ln(1 + its words), for hits below the first) is what tells the vaults' lower hits apart: a long passage says
    more and more often states the answer too (the Rust book's prose paragraphs, hits 2 to 5 answering 28% of
    the time) than a one-line example below the right one (tldr's pages, 9%). Without the two, a fit on two of
    the real vaults mis-stated the third's hits below the first by half (the Rust book's at 17% for 25%).

    The note's size (``note_size_weight`` below the first hit, ``first_note_size_weight`` for it: ``note_size``,
    ln of its note's passages) is what the vaults' notes differ in most (a Rust book chapter holds a median of 28
    passages, a tldr page 5, a hub note 2): a passage of a long chapter is one of many that might answer, and a
    fit without it, made on two vaults, put the third's hits at up to 0.08 off (ECE, every hit of the first five).

    The defaults were fitted (ridge ``bench.calibrate_real.RIDGE``) on the question sets written blind for three
    real vaults (``bench/real``: the Rust book, tldr, the Obsidian hub; 1,015 questions, 5,046 hits of the first
    five, 894 of them answering), after checking the same fit leave-one-corpus-out: fitted on two vaults, asked
    again with the fit in force, the third's first five hits scored an ECE of 0.031 (Rust book), 0.041 (tldr) and
    0.030 (hub), 0.021 pooled, against 0.056, 0.083 and 0.012 without the note's size and the ridge (first hit:
    0.053, 0.110, 0.090; a nonsense question's first hit at most 19%; no first hit moved). Reproduce with
    ``python -m smartvec_cli.bench.calibrate_real --work WORK`` (docs/confidence.md); refit with ``smartvec bench
    calibrate`` (the generated catalogue) or on your own questions; a config file can override them
    (``[scoring.calibration]``).
    """

    score_weight: float = 0.74
    margin_weight: float = 2.18
    closeness_weight: float = 0.28
    closeness_squared_weight: float = 0.29
    siblings_weight: float = 1.02
    hit_cosine_weight: float = 1.62
    first_closeness_weight: float = 1.59
    length_weight: float = 0.11
    note_size_weight: float = -0.37
    first_note_size_weight: float = -0.18
    bias: float = -3.16

    def probability(
        self,
        score: float,
        margin: float,
        closeness: float = 0.0,
        siblings: float = 0.0,
        cosine: float = 0.0,
        first_closeness: float = 0.0,
        length: float = 0.0,
        note_size: float = 0.0,
        first_note_size: float = 0.0,
    ) -> float:
        """``first_closeness`` is the closeness for the first hit, 0 below it; ``length`` its ``passage_length`` below
        the first hit, 0 for the first; ``note_size`` the ``note_size`` of its note below the first hit, 0 for the
        first, and ``first_note_size`` the other way round."""
        z = (
            self.score_weight * score
            + self.margin_weight * margin
            + self.closeness_weight * closeness
            + self.closeness_squared_weight * closeness * closeness
            + self.siblings_weight * siblings
            + self.hit_cosine_weight * cosine
            + self.first_closeness_weight * first_closeness
            + self.length_weight * length
            + self.note_size_weight * note_size
            + self.first_note_size_weight * first_note_size
            + self.bias
        )
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    @staticmethod
    def features(score: float, explain: dict) -> tuple[float, ...]:
        """The values its weights multiply, in the order of its fields, from a hit's score and ``explain`` (as
        ``memory.ranking.calibrate`` keeps them): what a fit of new parameters reads."""
        closeness = explain["closeness"]
        return (
            score,
            explain["lead"],
            closeness,
            closeness * closeness,
            explain["siblings"],
            explain["cosine"],
            explain["first_closeness"],
            explain["length"],
            explain.get("note_size", 0.0),
            explain.get("first_note_size", 0.0),
        )


@dataclass
class ScoringSettings:
    """How relevance is judged before time, trust and relations may choose.

    ``specific_weight``: how much a passage's share of the question's specific words (identifiers,
    numbers, names; ``memory.lexical``) adds to its cosine when sources are compared;
    ``lexical_weight`` and ``value_weight``: how much its share of all the question's words, and stating
    a value of the kind asked for (``memory.answer``), count when the passages of one note are compared.
    ``phrase_weight``: what holding the question's verbatim phrases (``memory.lexical.phrases``) adds to both:
    at 1 it outweighs any difference of cosines, so a pasted sentence finds its passage first.
    ``dense_share``: the share of the cosine in a blend with BM25 (``memory.lexical.blend``) that stands for
    meaning when sources are compared; the rest is the passage's full-text score. ``answer_dense_share``: below
    1, its own share when the passages of one note are compared (at 1 they are compared as sources are): within one
    note every passage is about its topic,
    so the cosine mostly tells short passages from long ones, and the words a passage shares with the
    question tell which of them answers. ``title_weight``: what a question naming
    the note's title or alias (``memory.lexical.named_share``) adds when sources are compared. ``relevance_margin``:
    the passages within this much of the most
    relevant one are "about the question" and ranked by all four signals; the rest follow, by relevance
    alone. ``relevance_floor``: below it a passage is not an answer at all; ``weak_below``: a hit under it is
    returned, but warned about as a weak match (MiniLM puts paraphrased answers and passages about something
    else alike between the two, so the user is told rather than the hit hidden).
    """

    weights: Weights = field(default_factory=Weights)
    relevance_spread: float = 0.15
    specific_weight: float = 0.50
    lexical_weight: float = 0.0
    value_weight: float = 0.30
    dense_share: float = 1.0
    answer_dense_share: float = 1.0
    phrase_weight: float = 1.0
    title_weight: float = 0.0
    relevance_margin: float = 0.15
    relevance_floor: float = 0.25
    weak_below: float = 0.30
    calibration: Calibration = field(default_factory=Calibration)

    @property
    def blends(self) -> bool:
        """BM25 counts in relevance (the question's full-text scores must be read)."""
        return self.dense_share < 1.0 or self.answer_dense_share < 1.0


def days_between(earlier: dt.datetime | None, later: dt.datetime) -> float | None:
    if earlier is None:
        return None
    return (later - earlier).total_seconds() / 86400.0


def is_valid_at(valid_from: str | None, valid_until: str | None, moment: dt.datetime) -> bool:
    start, end = parse_optional(valid_from), parse_optional(valid_until)
    return (start is None or start <= moment) and (end is None or moment < end)


def relevance(cosine: float, best_cosine: float, spread: float) -> float:
    if spread <= 0:
        return 1.0 if cosine >= best_cosine else 0.0
    return max(0.0, min(1.0, 1.0 - (best_cosine - cosine) / spread))


def temporal_signal(valid: bool, declared: bool, retained: float) -> float:
    if not valid:
        return 0.0
    if declared:
        return 1.0
    return min(1.0, 0.5 + 0.5 * retained)


def combine(signals: dict[str, float], weights: Weights) -> float:
    total = sum(weights.as_dict().values())
    return sum(getattr(weights, k) * signals[k] for k in SIGNALS) / total
