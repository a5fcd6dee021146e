"""Does a passage state the kind of value a question asks for?

"How many weeks of parental leave?" is answered by the paragraph that says "16 weeks of
paid parental leave", not by the one that says employees inform their lead "8 weeks
before" a block starts, though the model finds the second closer. A question asks for
a value when it names a unit ("weeks", "EUR", "%") or asks how many, how much, how long
or how often; a passage states one when it holds a quantity in that unit whose
neighbouring words share a content word with the question.
"""

from __future__ import annotations

import re

from .contradiction import BARE, STOPWORDS, SYMBOLS, UNITS, quantities, stem
from .words import QUESTION_WORDS

TIME_UNITS = frozenset({"duration"})
ALL_UNITS = frozenset(unit.dimension for unit in UNITS.values())
MONEY_UNITS = frozenset(unit for unit in ALL_UNITS if unit.startswith("currency:"))
WORD = re.compile(rf"[{SYMBOLS}]|[a-z][a-z'-]*", re.IGNORECASE)


def asked_units(question: str) -> frozenset[str]:
    """The units a value that answers ``question`` would come in; empty when it asks for no value."""
    lowered = question.lower()
    named = frozenset(UNITS[w].dimension for w in WORD.findall(lowered) if w in UNITS)
    if named:
        return named
    if re.search(r"\bhow\s+(long|often)\b", lowered):
        return TIME_UNITS
    if re.search(r"\bhow\s+much\b", lowered):
        return MONEY_UNITS | {"percent"}
    if re.search(r"\bhow\s+many\b", lowered):
        return ALL_UNITS
    return frozenset()


def about_words(question: str) -> frozenset[str]:
    """The question's content words, stemmed, without units: what the asked value must be about."""
    return frozenset(
        stem(w)
        for w in WORD.findall(question.lower())
        if w.isalpha() and w not in STOPWORDS and w not in QUESTION_WORDS and w not in UNITS
    )


def states_value(units: frozenset[str], about: frozenset[str], text: str) -> bool:
    """Whether ``text`` holds a quantity in one of ``units`` next to a word the question is about; for
    "how many/much" with no unit named, any number counts ("199 spaces")."""
    if not units or not about:
        return False
    found = quantities(text, bare=units == ALL_UNITS)
    return any((q.unit.split("/")[0] in units or q.unit == BARE) and q.context & about for q in found)
