"""Dates inside a question ("in March 2023", "mid-2022", "before 2023", "03/05/2023", "last spring").

A question that names a time is answered from the passages valid at that time; one
that names none is about now. Every date phrase names a period (a day is a period of
one day) and resolves to one reference moment, always at noon UTC, by one of four rules:

- a period (day, month, quarter, season, "mid-", "early/late", "start/end of", a range
  "from 2021 to 2023"): its middle day, ``first + (last - first) // 2``;
- "before X": the last day before X begins; "after X": the first day after X ends;
- "N days/weeks/months/years ago", "last week", "yesterday": that long before now.

What a person means by each phrase: "mid-2022" is June–July, "early 2024" January–April,
"late 2024" September–December, "the start of 2026" January–February, "the end of 2025"
November–December, seasons are the northern meteorological ones (spring March–May,
summer June–August, autumn/fall September–November, winter December to February of the
next year), "early/mid/late March" its days 1–10, 11–20 and 21 to the end.

Days written out or in numbers ("5 March 2023", "March 5th, 2023", "03/05/2023",
"05.03.2023", "2023/03/05") are read by the ``dateparser`` library, day first unless
that is impossible (03/13/2023 is 13 March). It is imported only when a question holds
such a span: ``search_dates`` over whole questions reads "may", "now" and bare numbers as
dates, so only the spans these rules find are handed to it. ISO dates need no library.

A vault in German, Spanish, French or Chinese has its date phrases read too (``date_languages``): each is
written as the English phrase it means and resolved by these rules, so it names the same period.

The matched words are removed from the text that is embedded, so the date does not pull
the question towards passages that merely mention dates.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable

from ..clock import UTC, iso_z, parse_when
from ..errors import UsageError
from ..vault.language import ENGLISH
from .date_languages import CHINESE_NUMBERS, DATE_LANGUAGES, ENGLISH_MONTHS, WRITTEN, DateLanguage
from .words import ARTICLES, MONTHS, NUMBER_WORDS

SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 14)}
ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": 4}

DAY = "noon of the day named"
MIDDLE = "the middle of the period"
BEFORE = "the last day before it"
AFTER = "the first day after it"
AGO = "that long before now"
NOW = "the present moment"
NOW_WORDS = ("now", "today")
"""What ``--as-of`` takes for the present: the clock's moment (``today`` too: a question about today is about
what the vault says now, edits of this afternoon included)."""
VERSION_WORDS = ("version", "release", "v", "build")  # "version 2023.01.05" names a release, not a day

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d{2})(?![\w-]|[./]\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
_ORDINAL = r"(?P<ordinal>" + "|".join(ORDINALS) + r")"
_COUNT = r"(?P<n>\d+|" + "|".join((*ARTICLES, *NUMBER_WORDS)) + r")"
_START = r"(?:the\s+)?(?:start|beginning)\s+of\s+(?:the\s+year\s+)?"
_END = r"(?:the\s+)?end\s+of\s+(?:the\s+year\s+)?"
_MID = r"(?:mid-?\s*|(?:the\s+)?middle\s+of\s+)"
LEAD = r"(?:\b(?:back\s+in|as\s+of|as\s+at|in|during|on|at|by|around|over|of|from)\s+(?:the\s+)?)"


@dataclass(frozen=True)
class AsOf:
    moment: dt.datetime
    phrase: str  # the words that named it
    remainder: str  # the question without them
    first_day: dt.date | None = None  # the period the words name (None: open-ended, "before 2023")
    last_day: dt.date | None = None
    rule: str = MIDDLE  # how the moment was chosen from the period

    def to_json(self) -> dict:
        """What ``--explain`` and the JSON answers show of it."""
        return {
            "moment": iso_z(self.moment),
            "words": self.phrase,
            "first_day": self.first_day.isoformat() if self.first_day else None,
            "last_day": self.last_day.isoformat() if self.last_day else None,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class _Period:
    first: dt.date | None
    last: dt.date | None
    moment: dt.datetime
    rule: str


def _noon(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _months(year: int, first: int, last: int) -> tuple[dt.date, dt.date]:
    """Months ``first``..``last`` of ``year`` (13 and 14 are January and February of the next)."""
    end_year, end_month = (year + 1, last - 12) if last > 12 else (year, last)
    return dt.date(year, first, 1), _month_end(end_year, end_month)


def _period(first: dt.date, last: dt.date) -> _Period:
    return _Period(first, last, _noon(first + (last - first) // 2), DAY if first == last else MIDDLE)


def _year(m) -> int:
    return int(m["year"])


def _month(m) -> int:
    return MONTHS[m["month"].lower()]


def _part_of_month(part: str, year: int, month: int) -> tuple[dt.date, dt.date]:
    end = _month_end(year, month)
    days = {"early": (1, 10), "mid": (11, 20), "late": (21, end.day)}[part]
    return dt.date(year, month, days[0]), dt.date(year, month, days[1])


@functools.lru_cache(maxsize=1024)
def read_day(text: str, languages: tuple[str, ...] = (ENGLISH,)) -> dt.date | None:
    """A day written out or in numbers, by ``dateparser`` (day first unless impossible); None if it is not one.

    It is told the vault's languages and English only: each language it tries is one more way to misread a
    span, and more data to load. Importing ``dateparser`` and its first use take a noticeable part of a question's
    time, so it is imported here only, for a span that needs it."""
    import dateparser
    from dateparser.data.languages_info import language_order

    settings = {"DATE_ORDER": "DMY", "STRICT_PARSING": True, "REQUIRE_PARTS": ["day", "month", "year"]}
    readable = [code for code in dict.fromkeys((*languages, ENGLISH)) if code in language_order]
    found = dateparser.parse(text, languages=readable, settings=settings)
    return found.date() if found else None


def _iso_day(text: str) -> dt.date:
    """The day of an ISO date or time in a question, checked by the clock's parser: "2023-02-30" or
    "2023-03-05T25:00" is a usage error (``UsageError``, which ``_resolve`` does not swallow), not noon
    of some day nor a question about now."""
    return parse_when(text).date()


def _named_day(m, languages: tuple[str, ...]) -> dt.date | None:
    """A day with its month named ("30 February 2023"): one the calendar does not have is refused, as
    the ISO form's is, rather than read as no date at all."""
    day = _written_day(m, languages)
    if day is None:
        _refuse_impossible_day(m.group(0), m["month"], _year(m), _month(m), int(m["day"]))
    return day


def _refuse_impossible_day(words: str, month_name: str, year: int, month: int, day: int) -> None:
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        raise UsageError(f"impossible date {words!r}: {month_name} {year} has no day {day}")


def _written_day(m, languages: tuple[str, ...]) -> dt.date | None:
    return read_day(re.sub(r"^the\s+", "", m.group(0), flags=re.IGNORECASE), languages)


# Each form names a period, most specific first; (pattern, resolver to (first, last) or a _Period).
_FORMS = [
    (
        r"(?P<year>(?:19|20)\d{2})-(?P<m>[01]\d)-(?P<d>[0-3]\d)(?:T[\d:.]+Z?|\s\d{1,2}:[\d:.]+Z?)?(?![\w-])",
        lambda m, languages: (_iso_day(m.group(0)),) * 2,
    ),
    (
        r"(?:\d{1,2}[/.]\d{1,2}[/.](?:19|20)\d{2}|(?:19|20)\d{2}[/.]\d{1,2}[/.]\d{1,2})(?![\w/-]|[./]\d)",
        lambda m, languages: (lambda day: (day, day) if day else None)(_written_day(m, languages)),
    ),
    (
        r"(?:the\s+)?" + _DAY + r"(?:\s+of\s+|\s+|-)" + _MONTH + r"(?:,?\s+|-)" + _YEAR,
        lambda m, languages: (lambda day: (day, day) if day else None)(_named_day(m, languages)),
    ),
    (
        _MONTH + r"\s+(?:the\s+)?" + _DAY + r",?\s+" + _YEAR,
        lambda m, languages: (lambda day: (day, day) if day else None)(_named_day(m, languages)),
    ),
    (
        r"(?P<year>(?:19|20)\d{2})-(?P<m>[01]\d)(?![\w-])",
        lambda m, languages: _months(_year(m), int(m["m"]), int(m["m"])),
    ),
    (
        r"(?P<part>early|late)\s+" + _MONTH + r",?\s+(?:of\s+)?" + _YEAR,
        lambda m, languages: _part_of_month(m["part"].lower(), _year(m), _month(m)),
    ),
    (_MID + _MONTH + r",?\s+(?:of\s+)?" + _YEAR, lambda m, languages: _part_of_month("mid", _year(m), _month(m))),
    (_START + _MONTH + r",?\s+(?:of\s+)?" + _YEAR, lambda m, languages: _part_of_month("early", _year(m), _month(m))),
    (_END + _MONTH + r",?\s+(?:of\s+)?" + _YEAR, lambda m, languages: _part_of_month("late", _year(m), _month(m))),
    (_MONTH + r",?\s+(?:of\s+)?" + _YEAR, lambda m, languages: _months(_year(m), _month(m), _month(m))),
    (r"Q(?P<q>[1-4])[\s/]+" + _YEAR, lambda m, languages: _months(_year(m), 3 * int(m["q"]) - 2, 3 * int(m["q"]))),
    (
        r"(?:the\s+)?" + _ORDINAL + r"\s+quarter\s+(?:of\s+)?" + _YEAR,
        lambda m, languages: _months(
            _year(m), 3 * ORDINALS[m["ordinal"].lower()] - 2, 3 * ORDINALS[m["ordinal"].lower()]
        ),
    ),
    (
        r"(?:H(?P<h>[12])\s+|(?:the\s+)?(?P<half>first|second)\s+half\s+of\s+)" + _YEAR,
        lambda m, languages: _months(
            _year(m), *((1, 6) if m["h"] == "1" or (m["half"] or "").lower() == "first" else (7, 12))
        ),
    ),
    (
        r"(?:the\s+)?" + _SEASON + r"\s+(?:of\s+)?" + _YEAR,
        lambda m, languages: _months(_year(m), *SEASONS[m["season"].lower()]),
    ),
    (_MID + _YEAR, lambda m, languages: _months(_year(m), 6, 7)),
    (r"early\s+" + _YEAR, lambda m, languages: _months(_year(m), 1, 4)),
    (r"late\s+" + _YEAR, lambda m, languages: _months(_year(m), 9, 12)),
    (_START + _YEAR, lambda m, languages: _months(_year(m), 1, 2)),
    (_END + _YEAR, lambda m, languages: _months(_year(m), 11, 12)),
]
_BARE_YEAR = (r"(?:the\s+year\s+)?" + _YEAR, lambda m, languages: _months(_year(m), 1, 12))


def _ago(m, now: dt.datetime) -> _Period:
    word = m["n"].lower()
    count = 1 if word in ARTICLES else NUMBER_WORDS.get(word) or int(word)
    unit = m["unit"].lower()
    if unit.startswith("year"):
        moment = _shift_months(now, 12 * count)
    elif unit.startswith("month"):
        moment = _shift_months(now, count)
    else:
        moment = now - dt.timedelta(weeks=count) if unit.startswith("week") else now - dt.timedelta(days=count)
    return _Period(moment.date(), moment.date(), moment, AGO)


def _shift_months(moment: dt.datetime, months: int) -> dt.datetime:
    """The same day ``months`` earlier (the month's last day when it has fewer)."""
    index = moment.year * 12 + moment.month - 1 - months
    year, month = index // 12, index % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def _last(m, now: dt.datetime) -> _Period | tuple[dt.date, dt.date]:
    """The last whole year, month, quarter or season before today; a week is the day a week ago."""
    unit = m["unit"].lower()
    today = now.date()
    if unit == "year":
        return _months(today.year - 1, 1, 12)
    if unit == "month":
        previous = _shift_months(now, 1)
        return _months(previous.year, previous.month, previous.month)
    if unit == "quarter":
        q = (today.month - 1) // 3
        year, q = (today.year, q) if q > 0 else (today.year - 1, 4)
        return _months(year, 3 * q - 2, 3 * q)
    if unit in SEASONS:
        for year in (today.year, today.year - 1, today.year - 2):
            first, last = _months(year, *SEASONS[unit])
            if last < today:
                return first, last
    moment = now - dt.timedelta(weeks=1)
    return _Period(moment.date(), moment.date(), moment, AGO)


_RELATIVE = [
    (_COUNT + r"\s+(?P<unit>years?|months?|weeks?|days?)\s+ago", _ago),
    (r"(?:last|previous)\s+(?P<unit>year|month|quarter|week|spring|summer|autumn|fall|winter)", _last),
    (
        r"yesterday",
        lambda m, now: _Period(
            (now - dt.timedelta(days=1)).date(), (now - dt.timedelta(days=1)).date(), now - dt.timedelta(days=1), AGO
        ),
    ),
]


def _plain(pattern: str) -> str:
    """The pattern without its group names, so that several can be combined into one."""
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


_NAMED = "(?:" + "|".join(_plain(p) for p, _ in _FORMS) + ")"  # periods that need no lead
_ANY = "(?:" + "|".join(_plain(p) for p, _ in (*_FORMS, _BARE_YEAR)) + ")"
_RANGE = (
    r"(?:from|between)\s+(?:the\s+)?(?P<a>"
    + _ANY
    + r")\s+(?:to|and|until|till|through)\s+(?:the\s+)?(?P<b>"
    + _ANY
    + r")"
)
_BEFORE_AFTER = r"(?P<side>before|prior\s+to|after)\s+(?:the\s+)?(?P<c>" + _ANY + r")"
_LEAD = re.compile(r"^" + LEAD, flags=re.IGNORECASE)


_MAY_NAME_A_TIME = re.compile(r"\d|ago|last|previous|yesterday", flags=re.IGNORECASE)
"""What every phrase ``_search`` finds holds: a digit (each period it names has a year in it) or a relative
phrase's word (each of the vault's other languages has its own: ``DateLanguage.relative``). A question
without any names no time, and is not searched: compiling ``_search`` takes longer than the rest of a cold
query's parsing."""


@functools.cache
def _search() -> re.Pattern:
    """Every date phrase a question may hold, in one pattern (compiled on first use: it is large)."""
    parts = [
        _RANGE,
        _BEFORE_AFTER,
        LEAD + "?" + _NAMED,
        LEAD + _plain(_BARE_YEAR[0]),
        *(_plain(p) for p, _ in _RELATIVE),
    ]
    return re.compile(r"\b(?:" + "|".join(parts) + r")", flags=re.IGNORECASE)


def _resolve(words: str, now: dt.datetime, languages: tuple[str, ...] = (ENGLISH,)) -> _Period | None:
    """The period the English words (the whole of them, without a lead) name, or None; days written out are
    read in ``languages``."""
    fixed: list[tuple[str, Callable[..., Any], Any]] = [
        (pattern, resolve, languages) for pattern, resolve in (*_FORMS, _BARE_YEAR)
    ]  # a form names the same period at any time
    relative: list[tuple[str, Callable[..., Any], Any]] = [(pattern, resolve, now) for pattern, resolve in _RELATIVE]
    for pattern, resolve, argument in (*fixed, *relative):
        match = re.fullmatch(pattern, words, flags=re.IGNORECASE)
        if not match:
            continue
        try:
            found = resolve(match, argument)
        except ValueError:  # 31 February and the like
            return None
        if found is None or isinstance(found, _Period):
            return found
        return _period(*found)
    range_ = re.fullmatch(_RANGE, words, flags=re.IGNORECASE)
    if range_:
        a, b = _resolve(range_["a"], now, languages), _resolve(range_["b"], now, languages)
        if a is None or b is None or a.first is None or b.last is None:
            return None  # an open end ("from before 2020 to ...") bounds no period
        return _period(a.first, b.last) if a.first <= b.last else None
    side = re.fullmatch(_BEFORE_AFTER, words, flags=re.IGNORECASE)
    if side:
        inner = _resolve(side["c"], now, languages)
        if inner is None:
            return None
        if side["side"].lower() == "after":
            if inner.last is None:
                return None
            day = inner.last + dt.timedelta(days=1)
            return _Period(day, None, _noon(day), AFTER)
        if inner.first is None:
            return None
        day = inner.first - dt.timedelta(days=1)
        return _Period(None, day, _noon(day), BEFORE)
    return None


def date_languages(languages) -> tuple[str, ...]:
    """The languages of ``languages`` whose date phrases are read (English always, first if it is one of them)."""
    return tuple(code for code in dict.fromkeys(languages) if code in DATE_LANGUAGES or code == ENGLISH) or (ENGLISH,)


def _any_phrase(language: DateLanguage) -> str:
    return "(?:" + "|".join(_plain(p) for p in (*(p for p, _ in language.forms), language.bare_year)) + ")"


@functools.cache
def _compounds(code: str) -> tuple[tuple[re.Pattern, str], ...]:
    language = DATE_LANGUAGES[code]
    any_phrase = _any_phrase(language)
    return tuple((re.compile(p.replace("{any}", any_phrase), flags=re.IGNORECASE), t) for p, t in language.compounds)


def _language_phrases(language: DateLanguage) -> list[str]:
    """Every date phrase of one language besides English, each with its lead word (optional but for a bare year)."""
    any_phrase = _any_phrase(language)
    named = "(?:" + "|".join(_plain(p) for p, _ in language.forms) + ")"
    lead = language.lead + "?"
    compounds = [_plain(p).replace("{any}", any_phrase) for p, _ in language.compounds]
    return [
        *(lead + "(?P<phrase>" + c + ")" for c in compounds),
        lead + "(?P<phrase>" + named + ")",
        language.lead + "(?P<phrase>" + _plain(language.bare_year) + ")",
    ]


@functools.cache
def _language_search(code: str) -> re.Pattern:
    """The date phrases of one language besides English a question may hold, leads included."""
    phrases = [_plain(p) for p in _language_phrases(DATE_LANGUAGES[code])]
    boundary = DATE_LANGUAGES[code].boundary
    ends = r"(?!\w)" if boundary else ""  # "hier" is French for yesterday, not the start of "hierarchy"
    return re.compile(boundary + "(?:" + "|".join(phrases) + ")" + ends, flags=re.IGNORECASE)


@functools.cache
def _without_lead(code: str) -> tuple[re.Pattern, ...]:
    """Patterns that split a phrase found by ``_language_search`` into its lead and the phrase itself (``phrase``)."""
    return tuple(re.compile(p, flags=re.IGNORECASE) for p in _language_phrases(DATE_LANGUAGES[code]))


def _month_number(written: str, language: DateLanguage) -> int:
    english = language.words.get(written.lower())
    if english in ENGLISH_MONTHS:
        return ENGLISH_MONTHS.index(english) + 1
    return int(written) if written.isdigit() else CHINESE_NUMBERS[written]


def _in_english(words: str, language: DateLanguage, languages: tuple[str, ...]) -> str | None:
    """The English phrase that means what ``words`` (one date phrase of ``language``, without a lead) means."""
    for pattern, template in (*language.forms, (language.bare_year, "{year}")):
        match = re.fullmatch(pattern, words, flags=re.IGNORECASE)
        if match:
            return _fill(template, match, language, languages)
    for compound, template in _compounds(language.code):
        match = compound.fullmatch(words)
        if match:
            return _fill(template, match, language, languages)
    return None


def _fill(template: str, match: re.Match, language: DateLanguage, languages: tuple[str, ...]) -> str | None:
    """The template with the match's words put into English; None when an inner phrase means nothing."""
    if template == WRITTEN:
        day = read_day(match.group(0), languages)
        if day is None:
            _refuse_impossible_day(
                match.group(0), match["month"], _year(match), _month_number(match["month"], language), int(match["day"])
            )
        return day.isoformat() if day else None
    values: dict[str, object] = {}
    for name, written in match.groupdict().items():
        if written is None:
            continue
        if name in ("a", "b", "c"):
            values[name] = _in_english(written, language, languages)
            if values[name] is None:
                return None
        elif name == "month":
            month_number = _month_number(written, language)
            values["month_number"] = month_number
            values["month"] = ENGLISH_MONTHS[month_number - 1]
        elif name == "day":
            values["day_number"] = int(written)
        else:
            values[name] = language.words.get(written.lower(), written)
    return template.format(**values)


def _resolve_in(
    words: str, language: DateLanguage | None, now: dt.datetime, languages: tuple[str, ...]
) -> _Period | None:
    """The period a phrase found in a question names, with or without its lead word; None if none."""
    if language is None:
        return _resolve(words, now, languages) or _resolve(_LEAD.sub("", words), now, languages)
    for pattern in _without_lead(language.code):
        split = pattern.fullmatch(words)
        english = _in_english(split["phrase"], language, languages) if split else None
        if english:
            return _resolve(english, now, languages)
    return None


def _as_of(period: _Period, phrase: str, remainder: str) -> AsOf:
    return AsOf(period.moment, phrase, remainder, period.first, period.last, period.rule)


def _may_name_a_time_in(question: str, code: str) -> bool:
    """Whether ``question`` holds a number, one of the date words of language ``code`` (a month, a season, "vor",
    "上") or its relative cue: only then are that language's phrases compiled and searched, which a cold query
    would otherwise pay for in every language."""
    language = DATE_LANGUAGES[code]
    lowered = question.lower()
    if re.search(r"\d", lowered) or re.search(language.relative, lowered):
        return True
    if not language.boundary:  # a language written without spaces: its words are found inside the text
        return any(word in lowered for word in language.words)
    return not language.words.keys().isdisjoint(re.findall(r"\w+", lowered))


def parse_as_of(question: str, now: dt.datetime, languages=(ENGLISH,)) -> AsOf | None:
    """The time a question asks about, if it names one: the first phrase that resolves, in English, in one of the
    vault's ``languages`` or in any other language whose dates are read (``DATE_LANGUAGES``), since a question
    may be asked in another language than its vault's."""
    languages = date_languages((*languages, *(code for code in DATE_LANGUAGES if _may_name_a_time_in(question, code))))
    if not _MAY_NAME_A_TIME.search(question) and not any(
        re.search(DATE_LANGUAGES[code].relative, question, flags=re.IGNORECASE) for code in languages if code != ENGLISH
    ):
        return None
    found: list[tuple[re.Match[str], DateLanguage | None]] = [(match, None) for match in _search().finditer(question)]
    found += [
        (match, DATE_LANGUAGES[code])
        for code in languages
        if code != ENGLISH
        for match in _language_search(code).finditer(question)
    ]
    found.sort(key=lambda item: (item[0].start(), -item[0].end()))
    for match, language in found:
        words = match.group(0).strip()
        before = question[: match.start()].lower().split()
        if before and before[-1] in VERSION_WORDS:
            continue
        try:
            period = _resolve_in(words, language, now, languages)
        except UsageError as exc:
            raise UsageError(f"in the question: {exc}; correct it, or give the time with --as-of") from None
        if period is None:
            continue
        remainder = (question[: match.start()] + " " + question[match.end() :]).strip()
        remainder = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", remainder)).lstrip(",;: ")
        return _as_of(period, words, remainder or question)
    return None


def resolve_as_of(value: str | dt.date | dt.datetime, now: dt.datetime, languages=(ENGLISH,)) -> AsOf:
    """An ``--as-of`` value: an ISO date or time (that moment; a date alone means its noon), ``now`` or ``today``
    (``now`` itself), or the same words a question may use ("March 2023", "mid-2022", "last spring", or in one of
    the vault's ``languages`` "Mitte 2022"). Anything else is a usage error."""
    if isinstance(value, (dt.date, dt.datetime)):
        moment = parse_when(value)
        day = moment.date()
        return AsOf(
            moment if isinstance(value, dt.datetime) else _noon(day), str(value), "", day, day, "the moment given"
        )
    words = " ".join(str(value).split())
    if words.lower() in NOW_WORDS:
        return AsOf(now, words, "", now.date(), now.date(), NOW)
    try:
        moment = parse_when(words)
    except UsageError:
        languages = date_languages(languages)
        period = None
        for language in (None, *(DATE_LANGUAGES[code] for code in languages if code != ENGLISH)):
            period = period or (_resolve_in(words, language, now, languages) if words else None)
        if period is None:
            raise UsageError(
                f"not a date: {value!r} "
                "(expected e.g. 2023-03-05, 2023-03-05T09:00, 'March 2023', 'mid-2022', 'last spring')"
            ) from None
        return _as_of(period, words, "")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", words):
        return _as_of(_period(moment.date(), moment.date()), words, "")
    return AsOf(moment, words, "", moment.date(), moment.date(), "the moment given")
