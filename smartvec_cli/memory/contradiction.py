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

import datetime as dt
import functools
import math
import re
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Mapping, TypeVar

from . import words
from .words import NUMBER_WORDS

NEGATIONS = {
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "won't",
    "isn't",
    "aren't",
    "doesn't",
    "don't",
    "without",
    "prohibited",
    "forbidden",
    "banned",
    "barred",
    "nor",
    "neither",
    "nothing",
    "none",
}
STOPWORDS = words.STOPWORDS - NEGATIONS
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})  # "Don\u2019t" is "Don't"


def is_negation(word: str) -> bool:
    """A negation word, any "-n't" form included ("shouldn't", "didn't", "mustn't")."""
    word = word.lower().translate(APOSTROPHES)
    return word in NEGATIONS or word.endswith("n't")


@dataclass(frozen=True)
class Unit:
    """What a value is measured in: values of one ``dimension`` compare after multiplying by ``factor``."""

    dimension: str
    factor: float = 1.0
    exact: bool = True  # False for calendar lengths: a month is about 30.44 days


def _units(dimension: str, factors: dict[str, float], exact: bool = True) -> dict[str, Unit]:
    return {name: Unit(dimension, factor, exact) for names, factor in factors.items() for name in names.split()}


# A small table, not a units library: pint takes seconds to import and finds no quantity in running text,
# quantulum3 imports scikit-learn and reads "1.000,50 EUR" as 1 and 50 EUR and "CHF 300" as a bare 300,
# and price-parser (currencies only) is slow to import on the query path (memory.answer).
UNITS: dict[str, Unit] = {
    **_units("currency:EUR", {"eur euro euros €": 1}),
    **_units("currency:USD", {"usd dollar dollars $ us$": 1}),
    **_units("currency:GBP", {"gbp £ sterling": 1}),
    **_units("currency:CHF", {"chf": 1}),
    **_units("currency:JPY", {"jpy ¥ yen": 1}),
    **_units("currency:SEK", {"sek": 1}),
    **_units("currency:PLN", {"pln zł zloty": 1}),
    **_units(
        "duration",
        {
            "ms msec millisecond milliseconds": 0.001,
            "sec secs second seconds": 1,
            "min mins minute minutes": 60,
            "h hr hrs hour hours": 3600,
            "day days": 86400,
            "week weeks": 604800,
        },
    ),
    **_units("duration", {"month months": 30.44 * 86400, "year years yr yrs": 365.25 * 86400}, exact=False),
    **_units(
        "data",
        {
            "byte bytes": 1,
            "kb": 1e3,
            "mb": 1e6,
            "gb": 1e9,
            "tb": 1e12,
            "kib": 1024,
            "mib": 1024**2,
            "gib": 1024**3,
            "tib": 1024**4,
        },
    ),
    **_units("mass", {"mg": 1e-3, "gram grams": 1, "kg kilo kilos kilogram kilograms": 1e3, "tonne tonnes": 1e6}),
    **_units(
        "length",
        {"mm": 1e-3, "cm": 1e-2, "metre metres meter meters": 1, "km kilometre kilometres kilometer kilometers": 1e3},
    ),
    **_units("percent", {"% percent per-cent": 1}),
}
SYMBOLS = "€$£¥%"
# Characters past U+00FF stay out of [...] classes: Python's re compiles such a class slowly, and these patterns
# are compiled anew in each query process.
THOUSANDS = "([.,']|\u00a0|\u202f)"  # 1,200  1.200  1'200  1 200 (no-break or narrow space)
NUMBER = rf"\d{{1,3}}(?:{THOUSANDS}\d{{3}})(?:\1\d{{3}})*(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
TOKEN = re.compile("|".join(map(re.escape, SYMBOLS)) + rf"|{NUMBER}|[^\W\d_][\w'-]*")
GROUPED = re.compile(rf"^\d{{1,3}}{THOUSANDS}\d{{3}}(?:\1\d{{3}})*(?:([.,])(\d+))?$")
CONTEXT_WINDOW = 4
RATE_WORDS = frozenset({"per", "a", "an", "each", "every", "/"})
BARE = ""  # the unit of a number given without one ("199 spaces")
TEXT_CACHE = 1 << 18
"""Entries of each cache of this module (texts, sentences and words read once per run): consolidation compares each
passage with two dozen others, and the first consolidation of a 10,000-note vault reads 43,000 passages and their
sentences, more than 65,536 entries, which an LRU cache then drops before they are asked for again."""
APPROXIMATE = 0.1  # how far apart two values may be and still be one when either is in calendar months or years
SENTENCE = re.compile(r"[^\n]+?(?:[.!?;](?=\s|$)|$)", re.MULTILINE)


@dataclass(frozen=True)
class Quantity:
    value: float  # in the dimension's base unit (seconds, bytes, grams, metres)
    unit: (
        str  # the dimension ("duration", "currency:EUR"), with what it is per ("currency:EUR/day"); BARE without a unit
    )
    context: frozenset[str]  # the stems of the content words around it
    written: str = ""  # as the text gives it ("14 days", "EUR 75")
    sentence: str = ""  # the sentence that gives it
    approximate: bool = False  # in calendar months or years
    context_words: tuple[str, ...] = ()  # those content words as the text writes them ("deliveries", not "deliveri")


@dataclass(frozen=True)
class Disagreement:
    kind: str  # quantity | negation
    detail: str


@functools.cache
def _stemmer():
    from snowballstemmer.english_stemmer import (  # type: ignore[import-untyped]  # only the first comparison pays
        EnglishStemmer,
    )

    return EnglishStemmer()


@functools.lru_cache(maxsize=TEXT_CACHE)
def stem(word: str) -> str:
    """The Snowball (Porter2) English stem: 'hotels' meets 'hotel', 'capped' meets 'cap', 'changed' meets 'change'."""
    return _stemmer().stemWord(word.lower())


def number_value(token: str) -> float | None:
    """The value of a number as written: '1,200' and '1.200' and "1'200" are 1200, '1.000,50' is 1000.5,
    '2.5' and '2,5' are 2.5; a number word ('five') counts too."""
    lowered = token.lower()
    if lowered in NUMBER_WORDS:
        return float(NUMBER_WORDS[lowered])
    if not token[:1].isdigit():
        return None
    grouped = GROUPED.match(token)
    if grouped:
        separator, decimal_mark, fraction = grouped.groups()
        if decimal_mark == separator:
            return None  # "1.000.5": not a number anyone writes
        whole = re.sub(r"\D", "", token[: grouped.start(2)] if decimal_mark else token)
        return float(f"{whole}.{fraction}") if decimal_mark else float(whole)
    return float(token.replace(",", "."))


def quantities(text: str, bare: bool = False) -> tuple[Quantity, ...]:
    """Numbers with a unit next to them, or counting the plural noun after them (``COUNT``), and the content words
    around them; with ``bare``, numbers without a unit too (their unit is ``BARE``). The cached tuple itself:
    consolidation asks a million times."""
    return _quantities(text, bare)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _quantities(text: str, bare: bool) -> tuple[Quantity, ...]:
    """Consolidation compares each passage with two dozen others: it is read once. The caches of this module hold
    the passages of a 10,000-note vault: at 4,096 entries its first consolidation read each text about 7 times."""
    text = URL.sub(lambda link: " " * len(link.group(0)), text)  # "Guides%2C+Workflows" in a link is no 2%
    matches = list(TOKEN.finditer(text))
    sentences = list(SENTENCE.finditer(text))
    tokens = [m.group(0) for m in matches]
    lowered = [t.lower() for t in tokens]
    found = []
    for i, token in enumerate(tokens):
        value = number_value(token)
        if value is None or _ordinal_or_example(matches, lowered, i):
            continue
        unit, first, last = None, i, i
        for j in (i + 1, i - 1, i + 2):
            if (
                0 <= j < len(tokens)
                and lowered[j] in UNITS
                and number_value(tokens[j]) is None
                and not _apart_in_text(matches, min(i, j), max(i, j))
            ):
                unit, first, last = UNITS[lowered[j]], min(i, j), max(i, j)
                break
        if unit is None:
            counted = _counted_noun(matches, lowered, i)
            if counted is not None:
                unit, last = Unit(COUNT + stem(lowered[counted])), counted
            elif not bare:
                continue
            else:
                unit = Unit(BARE)
        dimension = unit.dimension
        rate = (
            last + 2
            if last + 2 < len(tokens) and lowered[last + 1] == "for" and lowered[last + 2] in ("each", "every")
            else last + 1
        )
        if (
            unit.dimension != BARE
            and rate + 1 < len(tokens)
            and lowered[rate] in RATE_WORDS
            and tokens[rate + 1].isalpha()
        ):
            per = UNITS.get(lowered[rate + 1])  # "per km" is "per kilometre"
            dimension += "/" + (
                f"{per.dimension}*{per.factor:g}" if per else stem(lowered[rate + 1])
            )  # "EUR 75 per day" is not "EUR 180 per night"
            last = rate + 1
        written = text[matches[first].start() : matches[last].end()]
        window = (
            lowered[max(0, first - CONTEXT_WINDOW) : first] + lowered[last + 1 : last + 1 + CONTEXT_WINDOW]
        )  # not 'working' of 'one working day'
        context_words = tuple(
            w for w in window if w.isalpha() and w not in STOPWORDS and w not in UNITS and w not in NUMBER_WORDS
        )
        sentence = next((m.group(0).strip() for m in sentences if m.start() <= matches[i].start() < m.end()), text)
        found.append(
            Quantity(
                value * unit.factor,
                dimension,
                frozenset(map(stem, context_words)),
                written,
                sentence,
                not unit.exact,
                context_words,
            )
        )
    return tuple(found)


ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
BREAK = re.compile(r"[.!?;:()\[\]|]")


def _apart_in_text(matches: list[re.Match], first: int, last: int) -> bool:
    """A sentence's end, a bracket or a table's bar stands between two tokens: "these days? (2021)" gives no
    duration of 2021 days."""
    text = matches[first].string
    return any(BREAK.search(text, matches[k].end(), matches[k + 1].start()) for k in range(first, last))


COUNT = "count:"
"""The unit of a number of things, before the stem of what is counted: "41 points" is ``count:point``."""
IRREGULAR_PLURALS = frozenset({"people", "children", "men", "women", "staff", "personnel", "feet", "mice"})
YEAR = re.compile(r"(?:19|20)\d\d")
DETERMINERS = frozenset("a an the this that these those its their his her our your my how what which".split())
"""Words that follow a verb, not a counted noun: "Figure 3 shows the result" counts no shows."""


def _plural(word: str) -> bool:
    return word in IRREGULAR_PLURALS or (len(word) > 3 and word.endswith("s") and not word.endswith("ss"))


def _counts_things(word: str) -> bool:
    """A word that may name what a number counts: a content word, not a unit, a month or another number."""
    bare = word.replace("-", "")
    return (
        bare.isalpha()
        and word not in STOPWORDS
        and word not in UNITS
        and word not in NUMBER_WORDS
        and word not in words.MONTHS
    )


def _opens_sentence(token: re.Match) -> bool:
    before = token.string[: token.start()].rstrip(" \t*#>-")
    return not before or before[-1] in ".!?:;\n"


def _counted_noun(matches: list[re.Match], lowered: list[str], i: int) -> int | None:
    """Where the plural noun that a number written in digits counts stands ("41 points", "12 open tickets", "5
    people"), or None: the noun stands in the same sentence, in lower case, at most one word after the number.
    A number with no plural noun after it ("sprint 24 was") or after a capitalised word inside a sentence ("see
    Release 7 notes") is a label, one written as a year ("the 2024 budgets") a year, and one inside a time, a
    version, a fraction or a range ("6:57", "2.5", "3/4", "13-22") part of it: none is a count. A word ending in
    s that a determiner follows is a verb ("Figure 3 shows the result")."""
    number = matches[i]
    text = number.string
    if (
        not number.group(0)[:1].isdigit()
        or YEAR.fullmatch(number.group(0))
        or text[number.start() - 1 : number.start()] in (":", ".", "/", "-")  # 6:57, v2.5, 3/4, Listing 13-22
    ):
        return None
    after_capital = i > 0 and matches[i - 1].group(0)[:1].isupper()
    if after_capital and not _opens_sentence(matches[i - 1]):
        return None  # "in Sprint 24 notes": a label
    for j in (i + 1,) if after_capital else (i + 1, i + 2):
        if (
            j >= len(matches)
            or not _counts_things(lowered[j])
            or matches[j].group(0)[:1].isupper()
            or text[matches[j - 1].end() : matches[j].start()].strip(" \t")
        ):
            return None  # "Woke at 6:57. Focus for the day" counts nothing
        if _plural(lowered[j]):
            return None if j + 1 < len(lowered) and lowered[j + 1] in DETERMINERS else j  # "Figure 3 shows the"
    return None


def _ordinal_or_example(matches: list[re.Match], lowered: list[str], i: int) -> bool:
    """The number is an ordinal ("the 2nd week" is no duration of two weeks) or an example ("a certain duration
    (e.g., 2 hours)" claims no duration)."""
    if i + 1 < len(matches) and lowered[i + 1] in ORDINAL_SUFFIXES and matches[i].end() == matches[i + 1].start():
        return True
    before = lowered[max(0, i - 3) : i]
    return "example" in before or any(before[k : k + 2] == ["e", "g"] for k in range(len(before) - 1))


def same_unit(a: str, b: str) -> bool:
    """One dimension, and per the same thing when both say what per: "EUR 75 per day" and "EUR 60" compare,
    "EUR 75 per day" and "EUR 180 per night" do not."""
    base_a, _, per_a = a.partition("/")
    base_b, _, per_b = b.partition("/")
    return base_a == base_b and (per_a == per_b or not per_a or not per_b)


@functools.lru_cache(maxsize=TEXT_CACHE)
def content_words(text: str) -> frozenset[str]:
    """The stems of a text's words that say something (no stopwords, numbers or units)."""
    return frozenset(
        stem(t)
        for t in (m.group(0).lower() for m in TOKEN.finditer(text))
        if t.isalpha() and t not in STOPWORDS and t not in UNITS
    )


NAME = re.compile(
    r"(?<![.!?:*\[+-]\s)(?<![.!?:*\[])(?<!^)(?<!^\s)\b[A-Z][a-z]+\b", re.MULTILINE
)  # not the first word of an item
IDENTIFIER = re.compile(
    r"\b(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+\b"
)  # ALR-3158, web-03, INC_2041
CODE_SPAN = re.compile(r"`([^`\n]+)`")  # `fetch-retries`, `npm ci`
CODE = re.compile(r"\b(?P<letters>[A-Za-z]{1,12})\d[A-Za-z0-9]*\b")  # P017, C1042, web03, IPv6, Q3


@functools.lru_cache(maxsize=TEXT_CACHE)
def names(text: str) -> frozenset[str]:
    """Capitalised words inside a sentence, identifiers, codes of letters and digits ("project P017",
    "host web03", but not "EUR75", a value) and code spans anywhere: the places, teams, people, projects,
    alerts, hosts, settings and commands a statement is about."""
    said = frozenset(name for name in NAME.findall(text) if name.lower() not in TIME_WORDS)
    return said | identifiers(text) | frozenset(CODE_SPAN.findall(text))


def without_names(sentence: str) -> str:
    """The sentence with what ``names`` finds in it left out: what it says of its subject, whoever that is."""
    named = sorted(names(sentence), key=len, reverse=True)
    if not named:
        return sentence
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(name)}(?![\w-])" for name in named))
    return re.sub(r"\s{2,}", " ", pattern.sub("", sentence)).strip()


TIME_WORDS = frozenset(words.MONTHS) | words.WEEKDAYS
"""Capitalised words that say when, not what or who: "On Friday 6 January I ran 11 km" names no subject."""
_MONTH = "|".join(sorted(words.MONTHS, key=len, reverse=True))
NAMED_DAY = re.compile(
    r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b"
    rf"|\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH})\.?,?\s+(?P<y1>\d{{4}})\b"
    rf"|\b(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})\b",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=TEXT_CACHE)
def named_days(text: str) -> frozenset[str]:
    """The days a text names in full, as ISO dates: "2023-01-06", "Friday 6 January 2023", "Jan 6, 2023"."""
    found = set()
    for m in NAMED_DAY.finditer(text):
        if m.group("iso"):
            found.add(m.group("iso"))
            continue
        day, month, year = (
            (m.group("d1"), m.group("m1"), m.group("y1"))
            if m.group("d1")
            else (m.group("d2"), m.group("m2"), m.group("y2"))
        )
        try:
            found.add(dt.date(int(year), words.MONTHS[month.lower()], int(day)).isoformat())
        except ValueError:
            continue  # "31 February 2023"
    return frozenset(found)


def spoken_day(sentence: str, where: "Where") -> str:
    """The day a sentence speaks of: the one day it names ("On 6 January 2023 I ran 11 km", in a weekly review),
    else the day of its note."""
    days = named_days(sentence)
    return next(iter(days)) if len(days) == 1 else (where.day or "")[:10]


@functools.lru_cache(maxsize=TEXT_CACHE)
def identifiers(text: str) -> frozenset[str]:
    """Identifiers (ALR-3158, web-03) and codes of letters and digits (P017, C1042, but not EUR75, a value). A code
    inside an identifier is part of it: board CON-S5 names no "S5" of its own."""
    spans = [m.span() for m in IDENTIFIER.finditer(text)]
    codes = (
        m.group(0)
        for m in CODE.finditer(text)
        if m.group("letters").lower() not in UNITS and not any(start <= m.start() < end for start, end in spans)
    )
    return frozenset(text[start:end] for start, end in spans) | frozenset(codes)


@functools.lru_cache(maxsize=TEXT_CACHE)
def name_words(text: str) -> frozenset[str]:
    """The words of a text or of a name, in lower case ("Acme Logistics" is acme and logistics)."""
    return frozenset(_frame_tokens(text))


def _words_of(found: frozenset[str]) -> frozenset[str]:
    return frozenset(word for name in found for word in name_words(name))


def _named_in(named: frozenset[str], subject: frozenset[str]) -> bool:
    """Most of the words of ``named`` are among the words ``subject``: "Acme Logistics" (and "Monday, Acme
    Logistics") is in a page about Acme Logistics, not in one about Borealis Logistics, whose second word
    alone it shares."""
    words = _words_of(named)
    return not words or 2 * len(words & subject) > len(words)


def other_subjects(named_a: frozenset[str], named_b: frozenset[str]) -> bool:
    """Two sets of names (``names``) that are of other subjects: both name something and neither is mostly
    named in the other. The Krakow office is not the Hamburg office, alert ALR-3158 is not alert ALR-8956,
    project P017 is not project P018, Ana Schmidt is not Ana Okafor; "Acme Logistics" is "Acme Logistics on
    Monday", and "Hugo Gallo on Fridays" may be "on Fridays" on Hugo Gallo's page."""
    if not named_a or not named_b:
        return False
    words_a, words_b = _words_of(named_a), _words_of(named_b)
    return not (_named_in(named_a, words_b) or _named_in(named_b, words_a))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _said_words(text: str) -> frozenset[str]:
    """The words of a text that may name something: lower case, no stopwords."""
    return frozenset(w for w in name_words(text) if w not in STOPWORDS)


def _mostly_in(words: frozenset[str], other: frozenset[str]) -> bool:
    return bool(words) and 2 * len(words & other) > len(words)


def _speaks_of(where: "Where", sentence: str, place: "Where") -> bool:
    """Whether a sentence, read with its own title and headings (``place``), speaks of the note ``where`` stands
    in: most of the words of that note's title are in it (its headings are sections, which two notes of one
    template share), or it names an identifier of that note's subject (``Where.note``). An e-mail "Re: Hugo
    Gallo" that says "Hugo Gallo may work remotely on Fridays" speaks of the page "Hugo Gallo", and "Vendor V-204
    pays within 90 days" of the page whose first passage gives V-204; the page of Ana Jensen saying "She may
    work remotely on Fridays" does not speak of the page of Ana Gallo."""
    title = where.context.split(" > ", 1)[0]
    if DAILY_TITLE.match(title):
        return _names_the_day(where, sentence) or _names_the_day(where, place.context)
    said = _said_words(sentence) | _said_words(place.context)
    if _mostly_in(_said_words(title), said):
        return True
    return not _words_of(identifiers(sentence)).isdisjoint(_words_of(where.note))


def _names_the_day(where: "Where", text: str) -> bool:
    """``where`` stands in a daily note ("2023-01-06") and ``text`` names its day ("On 6 January 2023 ...")."""
    daily = DAILY_TITLE.match(where.context)
    return daily is not None and daily.group(1) in named_days(text)


def _about_other_names(text_a: str, text_b: str, where_a: "Where", where_b: "Where") -> bool:
    """Both sentences name someone or something, and of other subjects (``other_subjects``), unless what one
    names is the other's note's subject (``_names_the_note``): "Account C-1833 stores 502 GB" names the
    customer whose page says "Onyx Foods stores 181 GB" and gives the account C-1833 in another passage."""
    named_a, named_b = names(text_a), names(text_b)
    return other_subjects(named_a, named_b) and not _names_the_note(named_a, where_b, named_b, where_a)


def _other_subjects_where(named_a: frozenset[str], where_a: "Where", named_b: frozenset[str], where_b: "Where") -> bool:
    """``other_subjects`` of what two sentences name, each with its note's title (``_with_title``), unless what
    one names is the subject of the other's note (``Where.note``): "Account C-1833 stores 502 GB" in a call is of
    the page "Customer: Onyx Foods" whose first passage gives the account C-1833."""
    if not other_subjects(_with_title(named_a, where_a), _with_title(named_b, where_b)):
        return False
    return not _names_the_note(named_a, where_b, named_b, where_a)


def _names_the_note(named_a: frozenset[str], where_b: "Where", named_b: frozenset[str], where_a: "Where") -> bool:
    """What one sentence names is the subject of the other's note (``Where.note``), whichever passage of that
    note names it."""
    in_b = bool(named_a) and _named_in(named_a, _words_of(where_b.note))
    return in_b or bool(named_b) and _named_in(named_b, _words_of(where_a.note))


def _own_subject(named: frozenset[str], where: "Where") -> frozenset[str]:
    """The words of what a sentence names with its note's title (``_with_title``) and its note's subject."""
    return _words_of(_with_title(named, where) | where.note)


@functools.lru_cache(maxsize=TEXT_CACHE)
def negated(text: str) -> bool:
    """Whether a negation word occurs: one side of a contradiction by negation. Typographic apostrophes count:
    "Don\u2019t add a top-level heading" is as negated as "Do not add a top-level heading"."""
    return any(is_negation(m.group(0)) for m in TOKEN.finditer(text.translate(APOSTROPHES)))


def same_value(a: Quantity, b: Quantity) -> bool:
    if a.approximate or b.approximate:
        return abs(a.value - b.value) <= APPROXIMATE * max(abs(a.value), abs(b.value))
    return math.isclose(a.value, b.value, rel_tol=1e-9)


def value_conflicts(
    text_a: str, text_b: str, where_a: "Where | None" = None, where_b: "Where | None" = None
) -> list[tuple[Quantity, Quantity]]:
    """Pairs of values, one from each passage, in the same dimension and rate that differ while neither
    passage also gives the other's value: a passage that recounts the old and the new value (a history,
    a comparison) agrees with both. Every pair is judged on its own, so one shared value ("Plus 200 MB"
    in both) does not hide another that differs ("50 MB" against "5 MB"). Two sentences that name only
    other places or people than each other ("the Krakow office", "the Hamburg office") give no pair; the
    names are read in the two sentences, not the whole passages, because a chat's speaker line or a
    department named in another sentence ("declared to Legal") says nothing about what the values are of;
    ``where_a`` and ``where_b`` (``Where``) add what the sentences' notes are about."""
    where_a, where_b = where_a or Where(), where_b or Where()
    qa, qb = quantities(prose(text_a)), quantities(prose(text_b))
    found = []
    for a in qa:
        for b in qb:
            if (
                not same_unit(a.unit, b.unit)
                or same_value(a, b)
                or _about_other_names(a.sentence, b.sentence, where_a, where_b)
            ):
                continue
            if any(same_unit(x.unit, b.unit) and same_value(x, b) for x in qa) or any(
                same_unit(y.unit, a.unit) and same_value(y, a) for y in qb
            ):
                continue
            found.append((a, b))
    return found


FENCED = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)


def prose(text: str) -> str:
    """The text without its fenced code blocks: a program's output ("Downloaded 3 crates (162.9KiB) in 0.59s") or
    code is an example, not a statement that could contradict another."""
    return FENCED.sub("", text) if "```" in text or "~~~" in text else text


def same_context(a: Quantity, b: Quantity) -> bool:
    """The words around the two values overlap: the judge of what a value is about when no model is at hand."""
    shared = a.context & b.context
    return bool(shared) and len(shared) / len(a.context | b.context) >= 0.2


FRAME_SHARE = 0.6
"""Two sentences are of one frame when this share of the longer one's words is matched, in order, in the other."""
TEMPLATE_NOTES = 3
"""A frame repeated in this many passages among those compared is a template: its sentences are siblings or versions."""


@dataclass(frozen=True)
class Where:
    """Where a passage says what it says: the title and headings it stands under, and the day its note is of."""

    context: str = ""
    day: str | None = None
    names: frozenset[str] = (
        frozenset()
    )  # what the whole passage names: the subject of a template sentence that names none
    note: frozenset[str] = frozenset()  # the note's own subject (``note_subject``), whichever passage names it

    @property
    def subject(self) -> frozenset[str]:
        """The words of what a sentence that names nobody is about: its note's title and headings ("Ana Schmidt >
        Employment"), what its passage names and the note's subject (``note_subject``), in lower case."""
        return name_words(self.context) | _words_of(self.names) | _words_of(self.note)


NOTE_IDENTIFIERS = 3
"""A note naming more identifiers than this is about many things (a list, a log): none of them is its subject."""
NUMBERED_NAME = re.compile(r"\b([^\W\d_]{2,})[\s,:#]+(\d{1,6})\b(?![-/.:]\d)")


def numbered_names(title: str) -> frozenset[str]:
    """The numbered names of a title, a word and the number that follows it ("Sprint 14", "Status 017", "week 3"),
    as "sprint#14": the number is which one of many notes of a series the note is about."""
    return frozenset(
        f"{m.group(1).lower()}#{int(m.group(2))}"
        for m in NUMBERED_NAME.finditer(title)
        if m.group(1).lower() not in STOPWORDS and m.group(1).lower() not in UNITS
    )


def note_subject(title: str, texts: Iterable[str], other_names: Iterable[str] = ()) -> frozenset[str]:
    """What a note is about, whichever of its passages says it: the numbered names of its title and the
    identifiers its passages name ("Account C-1833" in the first passage is what "the contract value is EUR
    40,000" in the next one is of), unless it names too many to be about any one (``NOTE_IDENTIFIERS``). A
    sentence that names no subject, or names one of these, inherits the rest. ``other_names`` are what the note
    is also called (its front matter's ``aliases`` and ``id``): their identifiers and numbered names are always
    part of it."""
    called = frozenset().union(*(identifiers(name) | numbered_names(name) for name in other_names))
    return _passages_subject(texts) | numbered_names(title) | called


def _passages_subject(texts: Iterable[str]) -> frozenset[str]:
    found: set[str] = set()
    for text in texts:
        named = identifiers(text)
        found |= {i for i in named if not any(i != j and i in j for j in named)}  # FAL-S14, not its S14 too
        if len(found) > NOTE_IDENTIFIERS:
            found = set()
            break
    return frozenset(found)


def _kind(name: str) -> str:
    """The kind of a subject name, its value taken out: "sprint#14" is a sprint, C-1833 an account id (``c-``)."""
    return name.split("#", 1)[0] + "#" if "#" in name else re.sub(r"\d+", "", name.lower())


def other_notes(subject_a: frozenset[str], subject_b: frozenset[str]) -> bool:
    """Two notes' subjects (``note_subject``) are of other subjects: they hold a name of the same kind and none
    of that kind in common (sprint 22 is not sprint 23, project P017 not project P018); notes that name no
    subject of a kind they share are not set apart by it."""
    if not subject_a or not subject_b:
        return False
    kinds_a: dict[str, set[str]] = {}
    for name in subject_a:
        kinds_a.setdefault(_kind(name), set()).add(name.lower())
    kinds_b: dict[str, set[str]] = {}
    for name in subject_b:
        kinds_b.setdefault(_kind(name), set()).add(name.lower())
    shared = kinds_a.keys() & kinds_b.keys()
    return bool(shared) and all(kinds_a[k].isdisjoint(kinds_b[k]) for k in shared)


def _frame_tokens(text: str) -> tuple[str, ...]:
    return tuple(m.group(0).lower() for m in TOKEN.finditer(text.translate(APOSTROPHES)))


def _is_value(token: str) -> bool:
    return number_value(token) is not None or token in UNITS


@functools.lru_cache(maxsize=TEXT_CACHE)
def frame_difference(text_a: str, text_b: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] | None:
    """The runs of words in which two texts of one frame differ, as (how, words of a, words of b) with how
    'replace', 'insert' or 'delete'; None when they are not of one frame (``FRAME_SHARE``)."""
    import difflib  # only consolidation compares frames

    a, b = _frame_tokens(text_a), _frame_tokens(text_b)
    if not a or not b:
        return None
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if sum(block.size for block in matcher.get_matching_blocks()) < FRAME_SHARE * max(len(a), len(b)):
        return None
    return tuple((how, a[i1:i2], b[j1:j2]) for how, i1, i2, j1, j2 in matcher.get_opcodes() if how != "equal")


def _only_values(words: Iterable[str]) -> bool:
    return all(_is_value(w) for w in words)


@functools.lru_cache(maxsize=TEXT_CACHE)
def frame_key(sentence: str) -> str:
    """A sentence with its values, names and negations taken out: what the notes written from one template share
    ("the @ team spent eur # this week"), whichever project, amount or polarity each one fills in."""
    named = {n.lower() for n in names(sentence)}
    tokens = _frame_tokens(CODE_SPAN.sub(" `@` ", sentence))
    return " ".join("#" if _is_value(t) else "@" if t in named else t for t in tokens if not is_negation(t))


class Frames:
    """The sentence frames that repeat across notes (templates), and whether two statements fill one frame
    for different subjects, attributes or times: the status reports of many projects, the weekly notes of one
    person, the generated pages of many settings state the same sentences with other numbers, and none of
    those differences is a contradiction. Built from the passages one consolidation compares, so its cost
    follows theirs."""

    def __init__(self, templates: frozenset[str] = frozenset(), held: dict[str, frozenset] | None = None):
        self.templates = templates
        self.held = held  # each template's notes (None: every two templates are stated together)
        self._together: dict[tuple[str, str], bool] = {}

    @classmethod
    def of(
        cls, texts: Iterable[tuple[object, str]], min_notes: int = TEMPLATE_NOTES, notes: Mapping | None = None
    ) -> "Frames":
        """From (passage, text) pairs: the frames of the sentences that give a value or negate, found in
        ``min_notes`` passages or more (a generated page of a hundred settings is a template of its own).
        ``notes`` maps a passage to its note, to tell which templates are stated together (``together``)."""
        notes_of: dict[str, set] = {}
        for passage, text in texts:
            for sentence in sentences(text):
                if quantities(sentence) or negated(sentence):
                    notes_of.setdefault(frame_key(sentence), set()).add(passage)
        templates = frozenset(key for key, found in notes_of.items() if len(found) >= min_notes)
        held = None
        if notes is not None:
            held = {key: frozenset(notes.get(p, p) for p in notes_of[key]) for key in templates}
        return cls(templates, held)

    def together(self, key_a: str, key_b: str) -> bool:
        """Whether two templates are stated in one note somewhere: two slots of one family ("Build time for Atlas
        is 12 minutes" and "Next release in 20 days" in every status report), not one slot that two families
        word differently (a staff page's "Her laptop has 16 GB of memory" and an e-mail's "IT confirmed that the
        laptop of Pablo Quinn has 32 GB of memory")."""
        if self.held is None:
            return True
        pair = (key_a, key_b) if key_a < key_b else (key_b, key_a)
        found = self._together.get(pair)
        if found is None:
            found = self._together[pair] = not self.held.get(key_a, frozenset()).isdisjoint(
                self.held.get(key_b, frozenset())
            )
        return found

    def is_template(self, sentence: str) -> bool:
        return frame_key(sentence) in self.templates

    def only_templates(self, text: str) -> bool:
        """Every sentence of the text that gives a value or negates is of a template."""
        return all(self.is_template(s) for s in sentences(text) if quantities(s) or negated(s))

    def apart(self, sentence_a: str, where_a: Where, sentence_b: str, where_b: Where, negation: bool = False) -> bool:
        """Whether two sentences cannot conflict because they speak of different things or times:
        they name only different places, people or settings; they stand under headings that differ only by
        a number ("Atlas status, week 3" and "week 4": two editions); or both are of templates but of two
        frames (two slots: a build time is no release date); or their frame is a template and the notes are of
        different days (snapshots), a word of the sentence is replaced ("the login service" and
        "the billing service"), or the sentence leaves its subject to its passage ("Default: 30 seconds" on
        the page of `fetch-timeout`) or to headings ("Budget spent" under "Atlas status" and under "Borealis
        status") that differ, or one names a subject ("Ana Schmidt has 30 days of leave") that the other's title,
        headings and passage do not ("She has 25 days of leave" on the page of Bo Chen). Words a negation adds or
        drops ("even on a lead") are no other subject."""
        days_a, days_b = named_days(sentence_a), named_days(sentence_b)
        if len(days_a) == 1 and len(days_b) == 1 and days_a != days_b:
            return True  # "On 6 January I ran 11 km" and "On 9 March I ran 5 km"
        names_a, names_b = (
            names(sentence_a) | titled(sentence_a, where_a),
            names(sentence_b) | titled(sentence_b, where_b),
        )
        if _other_subjects_where(names_a, where_a, names_b, where_b):
            return True
        context = frame_difference(where_a.context, where_b.context) if where_a.context != where_b.context else ()
        if context and all(_only_values(words_a) and _only_values(words_b) for _, words_a, words_b in context):
            return True
        if other_notes(where_a.note, where_b.note):
            return True  # a review of release 7 is not of the page "Atlas Release 6", nor project P018 of P017
        template_a, template_b = self.is_template(sentence_a), self.is_template(sentence_b)
        if not (template_a or template_b):
            return False
        if template_a and template_b:
            key_a, key_b = frame_key(sentence_a), frame_key(sentence_b)
            if key_a != key_b and self.together(key_a, key_b):
                return True
        day_a, day_b = spoken_day(sentence_a, where_a), spoken_day(sentence_b, where_b)
        if day_a and day_b and day_a != day_b:
            return True
        if not negation:
            differences = frame_difference(sentence_a, sentence_b) or ()
            named = name_words(sentence_a) & _words_of(names_a) | name_words(sentence_b) & _words_of(names_b)
            if any(
                how == "replace"
                and not _only_values(words_a)
                and not _only_values(words_b)
                and not _names_for_pronouns(words_a, words_b, named)
                and not _names_for_names(
                    words_a, words_b, _own_subject(names_a, where_a), _own_subject(names_b, where_b)
                )
                for how, words_a, words_b in differences
            ):
                return True
        if where_a.context == where_b.context:
            return False
        linked = _speaks_of(where_a, sentence_b, where_b) or _speaks_of(where_b, sentence_a, where_a)
        if names_a and names_b:
            shared = _words_of(names_a) & _words_of(names_b)
            if not shared.isdisjoint(name_words(where_a.context) | name_words(where_b.context)):
                return False  # what both name is what they stand under: project P017 on its page and its review
            return not linked  # "on Fridays" on the pages of two people names neither of them
        if names_a or names_b:
            named, where = (names_a, where_b) if names_a else (names_b, where_a)
            # "Carla Jensen has 30 days of leave" is not "She has 28 days" on the page of Bo Chen, nor on Ana Jensen's
            return not (_named_in(named, where.subject) and linked)
        if where_a.names and where_b.names and where_a.names.isdisjoint(where_b.names):
            return True
        if _names_the_day(where_a, sentence_b) or _names_the_day(where_b, sentence_a):
            return False  # "On 6 January 2023 I ran 11 km" speaks of the daily note of that day
        words_a, words_b = name_words(where_a.context), name_words(where_b.context)
        return not (words_a <= words_b or words_b <= words_a)


OPENING_WORD = re.compile(r"^\W*([A-Z][\w'-]*)")


def titled(sentence: str, where: Where) -> frozenset[str]:
    """The word a sentence opens with when it is capitalised and a word of its note's title: a name, though
    ``names`` leaves the first word of a sentence out ("Ingrid works 36 hours a week" on the page "Ingrid
    Haddad")."""
    match = OPENING_WORD.match(sentence)
    if match and match.group(1).lower() in _said_words(where.context.split(" > ", 1)[0]):
        return frozenset({match.group(1)})
    return frozenset()


def _with_title(named: frozenset[str], where: Where) -> frozenset[str]:
    """What a sentence names, with the words of its note's title when it names one of them: "Bruno works 20
    hours a week" on the page "Bruno Petrov" is of Bruno Petrov, not of Bruno Nakamura."""
    title = _said_words(where.context.split(" > ", 1)[0])
    return named | title if named and not _words_of(named).isdisjoint(title) else named


TITLES_NAMED_AT_MOST = 5
"""A sentence that names more notes' titles than this names no one of them in particular."""


class Titles:
    """Notes by the words of their titles, to find the note a statement names: "IT confirmed that the laptop of
    Pablo Quinn has 32 GB of memory" speaks of the page "Pablo Quinn", whose own sentences ("Her laptop has 16
    GB of memory") name nobody, and which a family of five hundred such pages crowds out of its nearest
    neighbours."""

    def __init__(self, titles: Iterable[tuple[int, str]]):
        titles = list(titles)
        self.words = {note: _said_words(title) for note, title in titles}
        self.by_word: dict[str, set[int]] = {}
        for note, title_words in self.words.items():
            for word in title_words:
                self.by_word.setdefault(word, set()).add(note)
        self.by_day: dict[str, set[int]] = {}  # daily notes, titled by their day ("2023-01-06")
        for note, title in titles:
            day = DAILY_TITLE.match(title)
            if day:
                self.by_day.setdefault(day.group(1), set()).add(note)

    def named_in(self, text: str) -> set[int]:
        """The notes whose titles the sentences of ``text`` that give a value or negate speak of: a name of the
        sentence is in the title and most of the title's words are in the sentence."""
        found: set[int] = set()
        for sentence in sentences(text):
            if not (quantities(sentence) or negated(sentence)):
                continue
            daily = {note for day in named_days(sentence) for note in self.by_day.get(day, ())}
            if len(daily) <= TITLES_NAMED_AT_MOST:
                found |= daily  # "On 6 January 2023 I ran 11 km" speaks of the daily note of that day
            named = _words_of(names(sentence))
            if not named:
                continue
            said = _said_words(sentence)
            notes = {
                note for word in named for note in self.by_word.get(word, ()) if _mostly_in(self.words[note], said)
            }
            if len(notes) <= TITLES_NAMED_AT_MOST:
                found |= notes
        return found


DAILY_TITLE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})\b")
"""A daily note's title: its day first, as Obsidian's daily notes name them."""


PRONOUNS = frozenset({"she", "he", "they", "it", "her", "his", "their", "its", "we", "our"})


def _names_for_pronouns(words_a: tuple[str, ...], words_b: tuple[str, ...], named: frozenset[str]) -> bool:
    """One side of a difference is pronouns and the other (mostly) names: "She has 28 days of leave" on Carla
    Jensen's page says what "Carla Jensen has 30 days of leave" says, of someone the subject rules tell."""
    for pronouns, other in ((words_a, words_b), (words_b, words_a)):
        if pronouns and set(pronouns) <= PRONOUNS and any(w in named for w in other):
            return True
    return False


def _names_for_names(
    words_a: tuple[str, ...], words_b: tuple[str, ...], own_a: frozenset[str], own_b: frozenset[str]
) -> bool:
    """Each side of a difference names its own sentence's subject (``_own_subject``), which ``Frames.apart`` has
    found no other subjects: "Onyx Foods stores 181 GB" on the company's page and "Account C-1833 stores 502 GB"
    in a call, where the page gives C-1833 as the company's account, name one customer two ways."""
    return not own_a.isdisjoint(words_a) and not own_b.isdisjoint(words_b)


NO_FRAMES = Frames()
SAME_STATEMENT_GROUP = 12
"""More notes than this filling one frame for one subject on one day are a series (a log), not one statement twice."""


Key = TypeVar("Key", bound=Hashable)


def same_statement_groups(passages: Iterable[tuple[Key, str, str | None]], frames: Frames) -> list[list[Key]]:
    """Groups of (key, text, day) passages whose template sentences name the same subject on the same day: "the
    Beacon team spent ... this week" in the status report of week 26 and in a finance check of week 26. The
    neighbours of such a passage are its family (every week of the project reads alike), so the one other
    statement of the same slot at the same time is found by its frame, subject and day instead."""
    groups: dict[tuple, list[Key]] = {}
    for key, text, day in passages:
        for sentence in sentences(text):
            subject = names(sentence)
            if subject and frames.is_template(sentence):
                members = groups.setdefault((frame_key(sentence), subject, (day or "")[:10]), [])
                if key not in members:
                    members.append(key)
    return [members for members in groups.values() if 1 < len(members) <= SAME_STATEMENT_GROUP]


def disagreement(
    text_a: str,
    text_b: str,
    check_negation: bool = True,
    same_thing: Callable[[Quantity, Quantity], bool] = same_context,
    frames: Frames = NO_FRAMES,
    where_a: Where = Where(),
    where_b: Where = Where(),
    conflicts: list[tuple[Quantity, Quantity]] | None = None,
) -> Disagreement | None:
    """Why two passages about one thing contradict each other, or None when they do not: two values
    that conflict (``value_conflicts``), are not ``frames.apart`` and that ``same_thing`` judges to be
    about one thing, or a sentence of one negating a sentence of the other about the same subject at
    the same time. ``conflicts`` is ``judged_conflicts`` of the two when the caller has it already."""
    if conflicts is None:
        conflicts = judged_conflicts(text_a, text_b, frames, where_a, where_b)
    # Values of the very same unit and rate first: "30 days" meets "25 days" before "36 hours a week".
    for a, b in sorted(conflicts, key=lambda pair: pair[0].unit != pair[1].unit):
        if same_thing(a, b):
            shared = a.context & b.context
            about = " ".join(dict.fromkeys(w for w in a.context_words if stem(w) in shared))
            return Disagreement("quantity", f"{about + ': ' if about else ''}{a.written} vs {b.written}")
    if not check_negation:
        return None
    names_a, names_b = names(text_a), names(text_b)
    if names_a - names_b and names_b - names_a:
        return None  # "not at the Lisbon office" does not negate "at the Nairobi office"
    for sentence_a, negated_a, readable_a in _sentence_readings(text_a):
        for sentence_b, negated_b, readable_b in _sentence_readings(text_b):
            if negated_a == negated_b and not (readable_a or readable_b):
                continue
            if negates(sentence_a, sentence_b) and not frames.apart(
                sentence_a, where_a, sentence_b, where_b, negation=True
            ):
                return Disagreement("negation", "one passage negates the other")
            spelled_a, spelled_b = antonyms_spelled_out(sentence_a, sentence_b)
            if (
                spelled_a is not sentence_a
                and negates(spelled_a, spelled_b)
                and not frames.apart(sentence_a, where_a, sentence_b, where_b, negation=True)
            ):
                return Disagreement("negation", "one passage says the opposite of the other")
    return None


def judged_conflicts(
    text_a: str, text_b: str, frames: Frames = NO_FRAMES, where_a: Where = Where(), where_b: Where = Where()
) -> list[tuple[Quantity, Quantity]]:
    """The ``value_conflicts`` left for a judge of meaning: not those that ``frames`` sets apart."""
    return [
        (a, b)
        for a, b in value_conflicts(text_a, text_b, where_a, where_b)
        if not frames.apart(a.sentence, where_a, b.sentence, where_b)
    ]


NEGATION_OVERLAP = 0.8
NEGATION_MIN_WORDS = 4
NEGATION_SIZE_RATIO = 0.6


@functools.lru_cache(maxsize=TEXT_CACHE)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a passage, each stripped; read once per passage, since consolidation compares a passage
    with each of its neighbours."""
    return tuple(stripped for m in SENTENCE.finditer(text) if (stripped := m.group(0).strip()))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _sentence_readings(text: str) -> tuple[tuple[str, bool, bool], ...]:
    """Each sentence of a passage with whether it is negated (``_negated_words``) and whether a word of it could be
    read as an antonym or synonym (``_words_with_bases``). Two sentences alike in both respects, neither with such a
    word, can neither negate each other nor be spelled out to do so: ``disagreement`` passes over the pair."""
    return tuple(
        (sentence, _negated_words(sentence) is not None, bool(_words_with_bases(_words(sentence))))
        for sentence in sentences(text)
    )


NEGATION_JACCARD = 0.6
"""And the words the two share are this share of all the words either says: a short sentence is not the negation
of a long one that happens to contain its words ("Sets each of the config keys to the value provided" and "If you
do not provide a value then the option is set to true")."""
CONDITION = re.compile(r"\b(?:if|unless|whether|when|whenever)\b[^,;:]*", re.IGNORECASE)
URL = re.compile(r"\]\([^)\s]*\)|<?https?://[^\s)>]+>?")
NEGATION_PHRASES = {"no": {"longer", "more"}, "not": {"longer", "only"}}  # "no longer shown" negates "shown"


def _main_clause(sentence: str) -> str:
    """The sentence without its conditions: "it is the tag added, if no explicit tag is given" claims nothing
    negated."""
    return CONDITION.sub(" ", URL.sub(" ", sentence.translate(APOSTROPHES)))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _claim_words(sentence: str) -> frozenset[str]:
    """The stems of what a sentence says, without its negation and link targets, and the identifiers it names:
    "doesn't install" says "install", "deploys of project P044 are not frozen" says deploy, project, P044 and
    frozen."""
    text = URL.sub(" ", sentence.translate(APOSTROPHES))
    plain = " ".join(m.group(0) for m in TOKEN.finditer(text) if not is_negation(m.group(0)) and len(m.group(0)) > 1)
    return content_words(plain) | {code.lower() for code in identifiers(text)}


SUBJECT = "@subject"


def _subject_for_pronoun(sentence_a: str, sentence_b: str) -> tuple[frozenset[str], frozenset[str]]:
    """``_claim_words`` of both sentences, where one opens with a pronoun and the other with a name of two
    words or more, or an identifier ("She may work remotely on Fridays", "Olga Moreau may not work remotely on
    Fridays"): the pronoun and that name then count as one word, the subject. Whether they are one subject is
    for the subject rules (``Frames.apart``) to say."""
    plain = [_claim_words(sentence_a), _claim_words(sentence_b)]
    openings = [_opening(sentence_a), _opening(sentence_b)]
    for mine, other in ((0, 1), (1, 0)):
        pronoun, subject = openings[mine], openings[other]
        if len(pronoun) == 1 and pronoun[0].lower() in PRONOUNS and subject and subject[0].lower() not in PRONOUNS:
            plain[mine] = plain[mine] - {stem(pronoun[0]), pronoun[0].lower()} | {SUBJECT}
            plain[other] = plain[other] - {stem(w) for w in subject} - {w.lower() for w in subject} | {SUBJECT}
            return plain[0], plain[1]
    return plain[0], plain[1]


OPENING = re.compile(r"^\W*((?:[A-Z][\w'-]*\s+)+)")


@functools.lru_cache(maxsize=TEXT_CACHE)
def _opening(sentence: str) -> tuple[str, ...]:
    """The capitalised words a sentence opens with, when they are a pronoun ("She"), a name of two words or
    more ("Olga Moreau", "Project P017") or an identifier; else nothing ("The team ...")."""
    match = OPENING.match(sentence)
    if not match:
        return ()
    found = tuple(match.group(1).split())
    if len(found) >= 2 or found[0].lower() in PRONOUNS or identifiers(found[0]):
        return found
    return ()


@functools.lru_cache(maxsize=TEXT_CACHE)
def _negated_words(sentence: str) -> frozenset[str] | None:
    """The stems of the words each negation of the main clause bears on (the next word that says something:
    "not welcome", "cannot be booked", "no longer shown"); None when the main clause is not negated."""
    tokens = [m.group(0).lower() for m in TOKEN.finditer(_main_clause(sentence))]
    found = set()
    for i, token in enumerate(tokens):
        if not is_negation(token):
            continue
        skip = NEGATION_PHRASES.get(token, set())
        following = (
            t for t in tokens[i + 1 :] if t.isalpha() and t not in STOPWORDS and t not in skip and not is_negation(t)
        )
        found.add(stem(next(following, token)))
    return frozenset(found) or None


ANTONYM_PAIRS = (
    "disabled enabled|disable enable|disables enables|optional required mandatory compulsory obligatory"
    "|forbidden allowed permitted|prohibited allowed permitted|disallowed allowed permitted|disallow allow"
    "|hidden visible shown|private public|asynchronous synchronous|async sync|rejected accepted approved"
    "|reject accept approve|rejects accepts approves|denied granted allowed approved|deny grant allow"
    "|excluded included|exclude include|excludes includes|external internal|offline online"
    "|stateful stateless|illegal legal|read-only writable|case-insensitive case-sensitive|blocked unblocked"
    "|opt-out opt-in"
)
ANTONYMS: dict[str, frozenset[str]] = {
    negative: frozenset(positives) for negative, *positives in (pair.split() for pair in ANTONYM_PAIRS.split("|"))
}
"""Words that say "not" the other words ("disabled" is "not enabled", "optional" is "not mandatory", "asynchronous"
is "not synchronous"): a curated list of the pairs notes state settings, rules and interfaces with, not a
thesaurus (WordNet's antonyms would also oppose "open" and "shut" in "open a file", and no package ships its data
for offline use without a download at run time). A word is read so only where the other sentence says a partner."""
SYNONYMS = {"supported": "available", "unsupported": "unavailable", "permitted": "allowed", "mandatory": "required"}
"""Words that claim what the other word claims ("not available" denies "supported"), read the same way."""
NEGATING_PREFIXES = ("non-", "non", "un", "im", "in")
"""A word that is one of these before a word the other sentence says ("immutable" beside "mutable", "non-blocking"
beside "blocking") says "not" that word; the rest must be 4 letters or more ("input" is no "not put") and, after
"im" or "in", an adjective (``ADJECTIVE_ENDINGS``): "information" is no "not formation"."""
ADJECTIVE_ENDINGS = ("able", "ible", "ive", "ent", "ant", "ete", "ect", "id", "al", "ure", "ular", "ed")
WORD = re.compile(r"[^\W\d_][\w'-]*")
DOUBLE_NEGATION = re.compile(r"\b(?:not|never|no)\s+not\s+|\b(\w+?)(?:n't|not)\s+not\s+", re.IGNORECASE)


def _antonym_base(word: str, other: frozenset[str]) -> str | None:
    """The word of ``other`` that ``word`` says "not" of: its partner in ``ANTONYMS``, or itself without a
    ``NEGATING_PREFIXES`` prefix."""
    for partner in ANTONYMS.get(word, ()):
        if partner in other:
            return partner
    for prefix in NEGATING_PREFIXES:
        rest = word[len(prefix) :]
        if (
            word.startswith(prefix)
            and len(rest) >= 4
            and rest in other
            and (prefix not in ("im", "in") or rest.endswith(ADJECTIVE_ENDINGS))
        ):
            return rest
    return None


def _reading(word: str, other: frozenset[str]) -> str | None:
    """How ``word`` reads beside a sentence of the words ``other``: one of them, "not" one of them, or None (as
    it is)."""
    if word in other:
        return None
    same = SYNONYMS.get(word)
    if same in other:
        return same
    base = _antonym_base(word, other) or (_antonym_base(same, other) if same else None)
    return f"not {base}" if base else None


@functools.lru_cache(maxsize=TEXT_CACHE)
def _words(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in WORD.finditer(text.translate(APOSTROPHES)))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _reading_bases(word: str) -> frozenset[str]:
    """The words of another sentence beside which ``_reading`` reads ``word`` otherwise than as it is: its synonym,
    its antonym partner and itself without a negating prefix, and the same of its synonym. ``_reading(word, other)``
    is not None exactly when ``word`` is not in ``other`` and one of these is."""
    found = set()
    for form in (word, SYNONYMS.get(word)):
        if form is None:
            continue
        if form is not word:
            found.add(form)
        found |= ANTONYMS.get(form, frozenset())
        for prefix in NEGATING_PREFIXES:
            rest = form[len(prefix) :]
            if (
                form.startswith(prefix)
                and len(rest) >= 4
                and (prefix not in ("im", "in") or rest.endswith(ADJECTIVE_ENDINGS))
            ):
                found.add(rest)
    return frozenset(found)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _words_with_bases(words: frozenset[str]) -> tuple[tuple[str, frozenset[str]], ...]:
    """The words of a sentence that ``_reading`` could read otherwise, each with its ``_reading_bases``: most
    words have none, and a pair of sentences is tested word by word for every pair consolidation compares."""
    return tuple((word, bases) for word in words if (bases := _reading_bases(word)))


def _read_otherwise(words: frozenset[str], other: frozenset[str]) -> bool:
    """Whether ``_reading`` reads any of ``words`` otherwise beside ``other`` (the same test, from word sets)."""
    return any(word not in other and not bases.isdisjoint(other) for word, bases in _words_with_bases(words))


def antonyms_spelled_out(sentence_a: str, sentence_b: str) -> tuple[str, str]:
    """Both sentences with each word that is an antonym (``ANTONYMS``, ``NEGATING_PREFIXES``) or a synonym
    (``SYNONYMS``) of a word of the other written as that word, negated for an antonym ("not immutable" is then
    "mutable"): "X is immutable" and "X is mutable" become a negation and its claim, "X is immutable" and "X is not
    mutable" two negated sentences, which agree. The same objects come back when neither has such a word."""
    words_a, words_b = _words(sentence_a), _words(sentence_b)

    def spelled(sentence: str, other: frozenset[str]) -> str:
        text = WORD.sub(lambda m: _reading(m.group(0).lower(), other) or m.group(0), sentence.translate(APOSTROPHES))
        return DOUBLE_NEGATION.sub(lambda m: f"{m.group(1)} " if m.group(1) else "", text)

    if not _read_otherwise(words_a, words_b) and not _read_otherwise(words_b, words_a):
        return sentence_a, sentence_b
    return spelled(sentence_a, words_b), spelled(sentence_b, words_a)


def negates(sentence_a: str, sentence_b: str) -> bool:
    """One sentence says what the other says, but not: exactly one is negated, and apart from the negation
    nearly all the words of the shorter are in the longer. Both must be statements of some length and of
    like size: "See [npm install]" is in no way the negation of a paragraph that happens to name npm install
    and say "not" (a vault of the npm docs had 243 such "contradictions" when whole passages were compared).
    Two negated sentences agree ("Do not add a top-level heading", "Don\u2019t add a top-level heading"), a
    question claims nothing, a negation in a condition ("if no tag is given") negates no claim, and what is
    negated must be what the other says: "plugins that aren't in the community list can be installed by hand"
    qualifies "any plugin can be installed by hand", it does not deny it."""
    negated_a, negated_b = _negated_words(sentence_a), _negated_words(sentence_b)
    if (negated_a is None) == (negated_b is None) or sentence_a.endswith("?") or sentence_b.endswith("?"):
        return False
    plain_a, plain_b = _subject_for_pronoun(sentence_a, sentence_b)
    smaller, larger = sorted((len(plain_a), len(plain_b)))
    if smaller < NEGATION_MIN_WORDS or smaller < NEGATION_SIZE_RATIO * larger:
        return False
    shared = plain_a & plain_b
    if len(shared) / smaller < NEGATION_OVERLAP or len(shared) / len(plain_a | plain_b) < NEGATION_JACCARD:
        return False
    said = negated_a if negated_a is not None else negated_b
    return said is not None and said <= (plain_b if negated_a else plain_a)


@functools.lru_cache(maxsize=TEXT_CACHE)
def repeats_a_value(text: str, outdated: str) -> bool:
    """Whether ``text`` states a value that ``outdated`` states (same unit, same value): without one,
    ``repeated_outdated_value`` finds nothing whatever replaced ``outdated``, and its successors need no reading."""
    old = quantities(outdated)
    return any(
        same_unit(before.unit, echo.unit) and same_value(before, echo) for echo in quantities(text) for before in old
    )


def repeated_outdated_value(
    text: str, outdated: str, current: str, same_thing: Callable[[Quantity, Quantity], bool] = lambda echo, now: True
) -> str | None:
    """The old value ``text`` repeats ("14 days"), or None.

    ``outdated`` is a superseded or archived version and ``current`` what replaced it. The
    text repeats outdated information when it states a value ``outdated`` stated (same unit,
    same value), ``current`` states another value for that same thing and no longer the old one,
    and the text does not also state the current value (a passage that recounts the change is not
    an echo). The two versions are compared by context words, as ``disagreement`` does without a
    model. The text is a near neighbour of the outdated version and rewords it freely ("logs are
    kept for 14 days"), so whether its value is about what the current one is about is asked of
    ``same_thing(echo, current value)`` (without a judge: always): a phone allowance of EUR 40 per
    month does not repeat a gym subsidy that was EUR 40 per month. The judge compares the text with
    the current version, not the outdated one: two sentences that give the same number read alike
    whatever they are about, and an echo is a disagreement with what holds now.
    """
    said, old, new = quantities(text), quantities(outdated), quantities(current)
    for echo in said:
        for before in old:
            if not same_unit(before.unit, echo.unit) or not same_value(before, echo):
                continue
            now = [q for q in new if same_unit(before.unit, q.unit) and same_context(before, q)]
            if not now or any(same_value(q, before) for q in new if same_unit(q.unit, before.unit)):
                continue
            if any(same_value(mine, q) for mine in said for q in new if same_unit(mine.unit, q.unit)):
                continue
            if any(same_thing(echo, q) for q in now):
                return echo.written or f"{echo.value:g}"
    return None
