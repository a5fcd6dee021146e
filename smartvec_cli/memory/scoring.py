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
from .relevance import Answerability, RelevanceModel, shipped, shipped_answerability, shipped_model

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


def log_odds(probability: float) -> float:
    """The log-odds of a probability (clamped away from 0 and 1): relevance thresholds are written as probabilities."""
    p = max(1e-9, min(1.0 - 1e-9, probability))
    return math.log(p / (1.0 - p))


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@dataclass
class Calibration:
    """Platt scaling into P(this hit answers the question) of what the ranking knows of a hit: its relevance (the
    relevance model's log-odds), its lead over the best other hit (for the first, over the second, or over the best
    candidate under the floor when it is alone), whether it is the first hit, and for the first hit the relevance
    once more (``first_relevance``): how close anything in the vault comes to the question says most about the best
    of what is.

    ``ScoringSettings`` takes the parameters shipped in ``memory/relevance.json`` (fitted with the relevance model
    on the real question sets by ``bench.ranker``; the field defaults here are the same numbers, rounded);
    ``[scoring.calibration]`` in config.toml overrides them."""

    relevance_weight: float = 0.9306
    lead_weight: float = 0.1751
    first_weight: float = -0.4127
    first_relevance_weight: float = -0.2296
    bias: float = 0.1310

    def probability(self, relevance: float, lead: float, first: float = 0.0) -> float:
        z = (
            self.relevance_weight * relevance
            + self.lead_weight * lead
            + self.first_weight * first
            + self.first_relevance_weight * first * relevance
            + self.bias
        )
        return sigmoid(z)

    @staticmethod
    def features(score: float, explain: dict) -> tuple[float, ...]:
        """The values its weights multiply, in the order of its fields, from a hit's ``explain`` (as
        ``memory.ranking.calibrate`` keeps them): what a fit of new parameters reads."""
        first = 1.0 if explain["first"] else 0.0
        return (explain["relevance"], explain["lead"], first, first * explain["relevance"])


@dataclass
class ScoringSettings:
    """How relevance is judged before time, trust and relations may choose.

    ``relevance_model``: the fitted model of relevance (``memory.relevance``), whose log-odds order the hits.
    ``relevance_floor``: a passage whose relevance (as a probability) is below it is no answer at all;
    ``weak_below``: when the question's answerability (``answerability``, from its first hit) is under it, every hit
    is returned but warned about as a weak match, so that a question nothing answers gets no confident answer.
    ``relevance_margin``: the passages within this many log-odds of the most relevant one are "about the
    question": among them a replaced version follows the one that replaced it, and time, trust and relations
    break near ties, adding at most ``tie_weight`` log-odds (``memory.ranking``); the rest follow by relevance
    alone. ``relevance_spread``: the semantic signal falls from 1 (the most relevant) to 0 this many log-odds
    below it.
    """

    weights: Weights = field(default_factory=Weights)
    relevance_model: RelevanceModel = field(default_factory=shipped_model)
    relevance_spread: float = 3.0
    relevance_margin: float = 1.0
    tie_weight: float = 0.5
    relevance_floor: float = 0.02
    weak_below: float = field(default_factory=lambda: float(shipped().get("weak_below", 0.0)))
    calibration: Calibration = field(default_factory=lambda: Calibration(**shipped().get("calibration", {})))
    answerability: Answerability = field(default_factory=shipped_answerability)


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
