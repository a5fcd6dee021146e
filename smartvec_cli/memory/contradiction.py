"""Do two near-duplicate passages disagree?

Two passages are compared only when they already say nearly the same thing (the ANN
index finds them; cosine above a threshold). They disagree when they state a
different value for the same thing: a quantity with the same unit and overlapping
context words ("per diem of EUR 75" against "per diem is EUR 60"), a date, a version
number, or when one negates what the other asserts. Values are compared by what
they are about, not merely by unit, because a passage that names a hotel limit and
a per diem in euros must not contradict one that names only the per diem.
Precision matters more than recall: a wrong invalidation is worse than a missed one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import words
from .words import NUMBER_WORDS

NEGATIONS = {"not", "no", "never", "cannot", "can't", "won't", "isn't", "aren't", "doesn't", "don't", "without", "prohibited", "forbidden"}
STOPWORDS = words.STOPWORDS - NEGATIONS
UNIT_ALIASES = {
    "eur": "eur", "euro": "eur", "euros": "eur", "€": "eur",
    "usd": "usd", "$": "usd", "dollar": "usd", "dollars": "usd",
    "day": "day", "days": "day",
    "week": "week", "weeks": "week",
    "month": "month", "months": "month",
    "year": "year", "years": "year",
    "hour": "hour", "hours": "hour",
    "minute": "minute", "minutes": "minute",
    "%": "percent", "percent": "percent",
    "gb": "gb", "mb": "mb", "tb": "tb",
    "km": "km",
}
TOKEN = re.compile(r"€|\$|%|\d+(?:[.,]\d+)*|[a-z][a-z'-]*", re.IGNORECASE)
CONTEXT_WINDOW = 4
BARE = ""  # the unit of a number given without one ("199 spaces")


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str
    context: frozenset[str]


@dataclass(frozen=True)
class Disagreement:
    kind: str  # quantity | negation
    detail: str


def stem(word: str) -> str:
    """Plural and verb endings off, so that 'hotels' meets 'hotel' and 'capped' meets 'cap'."""
    for suffix, keep in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


def _number(token: str) -> float | None:
    lowered = token.lower()
    if lowered in NUMBER_WORDS:
        return float(NUMBER_WORDS[lowered])
    if token[0].isdigit():
        try:
            return float(token.replace(",", ""))
        except ValueError:
            return None
    return None


def quantities(text: str, bare: bool = False) -> list[Quantity]:
    """Numbers with a unit next to them and the content words around them; with ``bare``, numbers
    without a unit too (their unit is ``BARE``)."""
    tokens = [t.lower() for t in TOKEN.findall(text)]
    found = []
    for i, token in enumerate(tokens):
        value = _number(token)
        if value is None:
            continue
        unit = None
        for j in (i + 1, i - 1, i + 2):
            if 0 <= j < len(tokens) and tokens[j] in UNIT_ALIASES:
                unit = UNIT_ALIASES[tokens[j]]
                break
        if unit is None:
            if not bare:
                continue
            unit = BARE
        window = tokens[max(0, i - CONTEXT_WINDOW) : i] + tokens[i + 1 : i + 1 + CONTEXT_WINDOW]
        context = frozenset(
            stem(w) for w in window if w.isalpha() and w not in STOPWORDS and w not in UNIT_ALIASES and w not in NUMBER_WORDS
        )
        found.append(Quantity(value, unit, context))
    return found


def _same_thing(a: Quantity, b: Quantity) -> bool:
    shared = a.context & b.context
    return a.unit == b.unit and bool(shared) and len(shared) / len(a.context | b.context) >= 0.2


def _content_words(text: str) -> set[str]:
    return {t.lower() for t in TOKEN.findall(text) if t.isalpha() and t.lower() not in STOPWORDS}


def disagreement(text_a: str, text_b: str, check_negation: bool = True) -> Disagreement | None:
    """Why two near-duplicate passages contradict each other, or None when they do not.

    A quantity disagrees when both passages give a value with the same unit for the
    same thing and the values they give in that unit share nothing: a passage that
    recounts the old and the new value (a history, a comparison) agrees with both.
    """
    qa, qb = quantities(text_a), quantities(text_b)
    for a in qa:
        for b in qb:
            if not _same_thing(a, b) or a.value == b.value:
                continue
            values_a = {x.value for x in qa if x.unit == a.unit}
            values_b = {y.value for y in qb if y.unit == b.unit}
            if values_a.isdisjoint(values_b):
                about = " ".join(sorted(a.context & b.context))
                return Disagreement("quantity", f"{about}: {_fmt(a)} vs {_fmt(b)}")
    if not check_negation:
        return None
    words_a, words_b = _content_words(text_a), _content_words(text_b)
    neg_a, neg_b = bool(words_a & NEGATIONS), bool(words_b & NEGATIONS)
    if neg_a != neg_b:
        plain_a, plain_b = words_a - NEGATIONS, words_b - NEGATIONS
        overlap = len(plain_a & plain_b) / max(1, min(len(plain_a), len(plain_b)))
        if overlap >= 0.8:
            return Disagreement("negation", "one passage negates the other")
    return None


def _fmt(quantity: Quantity) -> str:
    value = int(quantity.value) if quantity.value.is_integer() else quantity.value
    return f"{value} {quantity.unit}"


def repeated_outdated_value(text: str, outdated: str, current: str) -> str | None:
    """The old value ``text`` repeats ("14 day"), or None.

    ``outdated`` is a superseded or archived version and ``current`` what replaced it. The
    text repeats outdated information when it states a value ``outdated`` stated (same unit,
    same number), ``current`` states another value for that same thing and no longer the
    old one, and the text does not also state the current value (a passage that recounts
    the change is not an echo). The two versions are compared by context words, as
    ``disagreement`` does; the text only by value, since it is already a near neighbour
    of the outdated version and rewords it freely ("logs are kept for 14 days").
    """
    said, old, new = quantities(text), quantities(outdated), quantities(current)
    for echo in said:
        stated = {q.value for q in said if q.unit == echo.unit}
        for before in old:
            if before.unit != echo.unit or before.value != echo.value:
                continue
            now = [q for q in new if _same_thing(before, q)]
            now_values = {q.value for q in new if q.unit == echo.unit}
            if now and echo.value not in now_values and stated.isdisjoint(now_values):
                return _fmt(echo)
    return None
