"""Does a passage state the kind of value a question asks for?

"How many weeks of parental leave?" is answered by the paragraph that says "16 weeks of
paid parental leave", not by the one that says employees inform their lead "8 weeks
before" a block starts, though the model finds the second closer. A question asks for
a value when it names a unit ("weeks", "EUR", "%"), asks how many, how much, how long
or how often, or asks what a measurable thing is ("what was the notice period", "the
upload limit", "the hotel cap"); a passage states one when it holds a quantity in that unit whose
neighbouring words share a content word with the question. Likewise "Which executive stands behind
Harvest?" is answered by "The Harvest project is sponsored by Marta Rossi", not by "The Harvest project
reports progress in the steering committee": a question that asks for a person is answered by a passage
that names someone the question does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .contradiction import BARE, COUNT, STOPWORDS, SYMBOLS, UNITS, Quantity, quantities, stem
from .words import MONTHS, QUESTION_WORDS
from .words import STOPWORDS as COMMON_WORDS

TIME_UNITS = frozenset({"duration"})
ALL_UNITS = frozenset(unit.dimension for unit in UNITS.values())
MONEY_UNITS = frozenset(unit for unit in ALL_UNITS if unit.startswith("currency:"))
# Nouns that name an amount, a limit, a length of time or a rate: "what is the <noun>" asks for a number. Refitted on
# the calibration catalogue (bench.catalogue.CALIBRATION): the nouns by which its value questions name what they ask
# for (allowance, cap, ceiling, contribution, deadline, float, interval, maximum, number, price, quota, threshold,
# time, value), and the words a dictionary gives for a quantity (amount, count, total, size, rate, fee, ...). The
# earlier list had been written after reading the evaluation catalogue's misses.
VALUE_NOUNS = frozenset(
    """allowance amount budget cap ceiling contribution cost count deadline duration fee float frequency interval
    length limit maximum minimum number percentage period price quantity quota rate salary size threshold time total
    value wage""".split()
)
# The words that ask how long or how often, how much, how many, and who, in English, German, Spanish, French and
# Chinese: a question in the vault's language asks for a value or a person as its English counterpart does.
ASKS_FOR_TIME = (
    "how long",
    "how often",
    "wie lange",
    "wie oft",
    "cuánto tiempo",
    "cuanto tiempo",
    "con qué frecuencia",
    "cada cuánto",
    "combien de temps",
    "à quelle fréquence",
    "多久",
    "多长时间",
    "多频繁",
)
ASKS_HOW_MUCH = ("how much", "wie viel", "cuánto", "cuanto", "cuánta", "cuanta", "多少钱")
ASKS_HOW_MANY = ("how many", "wie viele", "cuántos", "cuantos", "cuántas", "cuantas", "combien", "多少")
ASKS_WHO = ("who", "whom", "whose", "wer", "wem", "wen", "wessen", "quién", "quien", "quiénes", "quienes", "qui")
ASKS_WHO_ANYWHERE = ("谁",)  # Chinese puts it where the answer goes: "项目负责人是谁"


def _words_pattern(phrases) -> re.Pattern:
    """Any of the phrases as whole words; Chinese, written without spaces, needs no word boundary."""

    def one(phrase: str) -> str:
        written = re.escape(phrase).replace(r"\ ", r"\s+")
        return written if re.search(r"[\u3000-\u9fff]", phrase) else rf"(?<!\w){written}(?!\w)"

    return re.compile("|".join(one(p) for p in sorted(phrases, key=len, reverse=True)))


_ASKS_FOR_TIME = _words_pattern(ASKS_FOR_TIME)
_ASKS_HOW_MUCH = _words_pattern(ASKS_HOW_MUCH)
_ASKS_HOW_MANY = _words_pattern(ASKS_HOW_MANY)
_ASKS_WHO = re.compile(r"(?:^|[,;:¿]\s*)(?:" + "|".join(sorted(ASKS_WHO, key=len, reverse=True)) + r")\b")
MEASURE_WINDOW = 8  # words after "what"/"which" that may name the measured thing
WORD = re.compile("|".join(map(re.escape, SYMBOLS)) + r"|[a-z][a-z'-]*", re.IGNORECASE)


def asked_units(question: str) -> frozenset[str]:
    """The units a value that answers ``question`` would come in; empty when it asks for no value."""
    lowered = question.lower()
    named = frozenset(UNITS[w].dimension for w in WORD.findall(lowered) if w in UNITS)
    if named:
        return named
    if _ASKS_FOR_TIME.search(lowered):
        return TIME_UNITS
    if _ASKS_HOW_MUCH.search(lowered):
        return MONEY_UNITS | {"percent"}
    if _ASKS_HOW_MANY.search(lowered) or asks_for_measure(lowered):
        return ALL_UNITS
    return frozenset()


def asks_for_measure(lowered: str) -> bool:
    """ "What was the cut-off for receipts?", "How large was the payout?": a what/which question whose
    first words name a measurable thing (``VALUE_NOUNS``), or a "how large/high/far..." question.
    "What is the Wi-Fi password?" asks for no number."""
    if re.search(r"\bhow\s+(?:large|big|high|low|small|far|expensive|frequently|soon|old)\b", lowered):
        return True
    match = re.search(r"\b(?:what|which)\b(?P<rest>[^?.!]*)", lowered)
    if not match:
        return False
    words = re.findall(r"[a-z]+", match.group("rest").replace("cut-off", "cutoff"))[:MEASURE_WINDOW]
    return any(w in VALUE_NOUNS or w.removesuffix("s") in VALUE_NOUNS for w in words)


def about_words(question: str) -> frozenset[str]:
    """The question's content words, stemmed, without units: what the asked value must be about."""
    return frozenset(
        stem(w)
        for w in WORD.findall(question.lower())
        if w.isalpha() and w not in STOPWORDS and w not in QUESTION_WORDS and w not in UNITS
    )


_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
DATE = re.compile(
    rf"\b(?:{_MONTH_NAMES})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"  # February 1, 2025
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES})\.?(?:\s+\d{{4}})?\b"  # 1 February 2025
    rf"|\b(?:{_MONTH_NAMES})\.?\s+\d{{4}}\b"  # February 2025
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    re.IGNORECASE,
)
DIGITS = re.compile(r"\d+")


def is_date_part(quantity) -> bool:
    """A bare number that is part of a date ("Effective 1 February 2025", "in 2024"): a day or a year, not the
    amount a question asks for."""
    if quantity.unit != BARE:
        return False
    written = quantity.written.strip()
    if re.fullmatch(r"(?:19|20)\d\d", written):
        return True
    return any(written in DIGITS.findall(match.group(0)) for match in DATE.finditer(quantity.sentence))


def _unitless(quantity: Quantity, units: frozenset[str]) -> bool:
    """A number given without a unit, or as a count of things ("199 spaces"), which a "how many" question asks for."""
    return units == ALL_UNITS and (quantity.unit == BARE or quantity.unit.startswith(COUNT))


def states_value(units: frozenset[str], about: frozenset[str], text: str) -> bool:
    """Whether ``text`` holds a quantity in one of ``units`` next to a word the question is about; for
    "how many/much" with no unit named, any number counts ("199 spaces") but a day or a year of a date does not."""
    if not units or not about:
        return False
    found = quantities(text, bare=units == ALL_UNITS)
    return any(
        (q.unit.split("/")[0] in units or (_unitless(q, units) and not is_date_part(q))) and q.context & about
        for q in found
    )


# Nouns that name a person's role: "which executive", "what manager" ask for someone.
PERSON_ROLES = frozenset(
    """executive person manager lead leader head owner sponsor contact engineer director chair officer boss
    colleague coordinator organiser organizer representative steward maintainer admin administrator approver""".split()
)
NAMED = re.compile(r"\[\[([^\]|#]+)|\b([A-Z][\w'-]+(?:[ \t]+[A-Z][\w'-]+)+)")  # a [[link]], or "Marta Rossi"


def asks_for_person(question: str) -> bool:
    """ "Who backs Compass?", "Which executive stands behind Harvest?": the answer is someone."""
    lowered = question.lower()
    if _ASKS_WHO.search(lowered.strip()) or any(word in question for word in ASKS_WHO_ANYWHERE):
        return True
    match = re.search(r"\b(?:which|what)\s+([a-z-]+)(?:\s+([a-z-]+))?", lowered)  # "which executive", "which team lead"
    return match is not None and any((w or "").removesuffix("s") in PERSON_ROLES for w in match.groups())


def names_someone(question: str, text: str) -> bool:
    """Whether ``text`` names someone the question does not: a [[link]] or a run of capitalised words
    ("Marta Rossi") that shares no word with the question ("Harvest Project" is what it asks about); a sentence's
    "The" does not count."""
    asked = {w.lower() for w in re.findall(r"[\w'-]+", question)}
    for match in NAMED.finditer(text):
        words = [w for w in re.findall(r"[\w'-]+", match.group(1) or match.group(2)) if w.lower() not in COMMON_WORDS]
        if len(words) >= (1 if match.group(1) else 2) and not any(w.lower() in asked for w in words):
            return True
    return False


@dataclass(frozen=True)
class AskedAnswer:
    """What kind of answer a question asks for, read once per question."""

    question: str
    units: frozenset[str]
    about: frozenset[str]
    person: bool

    @classmethod
    def of(cls, question: str) -> "AskedAnswer":
        units = asked_units(question)
        about = about_words(question) if units else frozenset()  # only states_value reads it, and only with units
        return cls(question, units, about, asks_for_person(question))

    def stated_by(self, text: str) -> bool:
        """Whether ``text`` states an answer of the asked kind: a value in the asked unit, or a person."""
        return states_value(self.units, self.about, text) or (self.person and names_someone(self.question, text))
