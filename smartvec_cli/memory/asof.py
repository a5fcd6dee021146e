"""Dates inside a question ("in March 2023", "as of 2022-05-01", "back in 2021", "last year").

A question that names a time is answered from the passages valid at that time; one
that names none is about now. A named period resolves to a point inside it: a day
to that day, a month to its 15th, a quarter to its middle month's 15th, a year to
1 July. The matched words are removed from the text that is embedded, so the date
does not pull the question towards passages that merely mention dates.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..clock import UTC
from .words import ARTICLES, NUMBER_WORDS

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
YEAR = r"(?P<year>(?:19|20)\d{2})"
LEAD = r"(?:\b(?:back\s+in|as\s+of|as\s+at|in|during|on|at|by|around|from|of)\s+(?:the\s+)?)"
COUNT = r"(?P<n>\d+|" + "|".join((*ARTICLES, *NUMBER_WORDS)) + r")"


@dataclass(frozen=True)
class AsOf:
    moment: dt.datetime
    phrase: str  # the words that named it
    remainder: str  # the question without them


def _point(year: int, month: int = 7, day: int = 1) -> dt.datetime:
    return dt.datetime(year, month, day, 12, tzinfo=UTC)


def _shift_months(moment: dt.datetime, months: int) -> dt.datetime:
    index = moment.year * 12 + moment.month - 1 - months
    return dt.datetime(index // 12, index % 12 + 1, 15, 12, tzinfo=UTC)


def _patterns(now: dt.datetime):
    """(regex, resolver) pairs, most specific first."""

    def iso(m):
        return dt.datetime(int(m["year"]), int(m["m"]), int(m["d"]), 12, tzinfo=UTC)

    def iso_month(m):
        return _point(int(m["year"]), int(m["m"]), 15)

    def day_month_year(m):
        return dt.datetime(int(m["year"]), MONTHS[m["month"].lower()], int(m["day"]), 12, tzinfo=UTC)

    def month_year(m):
        return _point(int(m["year"]), MONTHS[m["month"].lower()], 15)

    def quarter(m):
        return _point(int(m["year"]), 3 * int(m["q"]) - 1, 15)

    def year(m):
        return _point(int(m["year"]))

    def ago(m):
        word = m["n"].lower()
        count = 1 if word in ARTICLES else NUMBER_WORDS.get(word) or int(word)
        unit = m["unit"].lower()
        if unit.startswith("year"):
            return now.replace(year=now.year - count) if not (now.month == 2 and now.day == 29) else now - dt.timedelta(days=365 * count)
        if unit.startswith("month"):
            return _shift_months(now, count)
        if unit.startswith("week"):
            return now - dt.timedelta(weeks=count)
        return now - dt.timedelta(days=count)

    def last(m):
        unit = m["unit"].lower()
        if unit == "year":
            return _point(now.year - 1)
        if unit == "month":
            return _shift_months(now, 1)
        if unit == "quarter":
            q = (now.month - 1) // 3
            year_, q = (now.year, q) if q > 0 else (now.year - 1, 4)
            return _point(year_, 3 * q - 1, 15)
        return now - dt.timedelta(weeks=1)

    def yesterday(m):
        return now - dt.timedelta(days=1)

    day = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
    return [
        (LEAD + r"?\b" + YEAR + r"-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b", iso),
        (LEAD + r"?\b" + day + r"\s+(?:of\s+)?" + MONTH + r",?\s+" + YEAR + r"\b", day_month_year),
        (LEAD + r"?\b" + MONTH + r"\s+" + day + r",?\s+" + YEAR + r"\b", day_month_year),
        (LEAD + r"?\b" + YEAR + r"-(?P<m>[01]\d)\b(?!-)", iso_month),
        (LEAD + r"?\b(?:early\s+|mid\s+|late\s+)?" + MONTH + r",?\s+(?:of\s+)?" + YEAR + r"\b", month_year),
        (LEAD + r"?\bQ(?P<q>[1-4])\s+" + YEAR + r"\b", quarter),
        (LEAD + r"(?:early\s+|mid\s+|late\s+)?" + YEAR + r"\b", year),
        (r"\b" + COUNT + r"\s+(?P<unit>years?|months?|weeks?|days?)\s+ago\b", ago),
        (r"\b(?:last|previous)\s+(?P<unit>year|month|quarter|week)\b", last),
        (r"\byesterday\b", yesterday),
    ]


def parse_as_of(question: str, now: dt.datetime) -> AsOf | None:
    """The time a question asks about, if it names one."""
    for pattern, resolve in _patterns(now):
        match = re.search(pattern, question, flags=re.IGNORECASE)
        if not match:
            continue
        try:
            moment = resolve(match)
        except ValueError:  # 31 February and the like
            continue
        remainder = (question[: match.start()] + " " + question[match.end() :]).strip()
        remainder = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", remainder)).lstrip(",;: ")
        return AsOf(moment, match.group(0).strip(), remainder or question)
    return None
