"""Date phrases in German, Spanish, French and Chinese, each with the English phrase it means, relative ones
("letztes Jahr", "el año pasado", "l'année dernière", "去年") included.

A phrase in another language is not given rules of its own: it is written as the English phrase that means
the same ("im Sommer 2022" is "summer 2022", "2021年3月之前" is "before March 2021", "a principios de 2023" is
"early 2023") and that phrase is resolved. So every language names the same periods by the same rules, and
a change to what "early 2024" means changes it in every language.

Each language is a list of forms, most specific first: a pattern with named groups and the English template
its groups fill. A group's words are put into English by the language's ``words``; ``month`` may also be a
number (Chinese "3月"), ``a``/``b``/``c`` are whole inner phrases (the ends of a range, what "before" is
before), and ``WRITTEN`` marks a day written out, which ``dateparser`` reads in the question's languages.
"""

from __future__ import annotations

from dataclasses import dataclass

WRITTEN = "a day written out"
ENGLISH_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
CHINESE_NUMBERS = {
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "十一": 11,
    "十二": 12,
}

_YEAR = r"(?P<year>(?:19|20)\d{2})(?![\w-]|[./]\d)"


@dataclass(frozen=True)
class DateLanguage:
    """How one language writes the dates a question names."""

    code: str
    words: dict[str, str]  # a month, season, part, side or ordinal in this language -> the English word
    forms: tuple[tuple[str, str], ...]  # (pattern, English template): periods that need no lead word
    bare_year: str  # a year alone, which names a time only after a lead word
    lead: str  # the words before a date: "im", "en el", "à la" (empty when the language needs none)
    compounds: tuple[tuple[str, str], ...]  # ranges and before/after, over ``{any}``: any form or a bare year
    boundary: str = r"\b"  # what must come before a phrase (Chinese writes no spaces)
    relative: str = r"(?!)"  # a word every relative phrase holds ("letzt", "pasad"): the question is searched for dates


def _alternatives(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _group(name: str, words) -> str:
    return rf"(?P<{name}>{_alternatives(words)})"


GERMAN_MONTHS = {
    "januar": "January",
    "jänner": "January",
    "februar": "February",
    "feber": "February",
    "märz": "March",
    "maerz": "March",
    "april": "April",
    "mai": "May",
    "juni": "June",
    "juli": "July",
    "august": "August",
    "september": "September",
    "oktober": "October",
    "november": "November",
    "dezember": "December",
}
GERMAN_SEASONS = {
    "frühling": "spring",
    "frühjahr": "spring",
    "sommer": "summer",
    "herbst": "autumn",
    "winter": "winter",
}
GERMAN_PARTS = {"anfang": "early", "mitte": "mid", "ende": "late"}
_DE_MONTH = _group("month", GERMAN_MONTHS)
_DE_PART = _group("part", GERMAN_PARTS)
_DE_OF_YEAR = r"(?:des\s+jahres\s+)?"
_DE_LAST = r"(?:letzte[nmrs]?|vergangene[nmrs]?|vorige[nmrs]?)"
GERMAN_UNITS = {"jahren": "years", "monaten": "months", "wochen": "weeks", "tagen": "days"}
GERMAN = DateLanguage(
    code="de",
    words={**GERMAN_MONTHS, **GERMAN_SEASONS, **GERMAN_PARTS, "vor": "before", "nach": "after", **GERMAN_UNITS},
    forms=(
        (r"(?P<day>[0-3]?\d)\.\s*" + _DE_MONTH + r"\s+" + _YEAR, WRITTEN),
        (_DE_PART + r"\s+" + _DE_MONTH + r"\s+" + _YEAR, "{part} {month} {year}"),
        (_DE_MONTH + r"\s+" + _YEAR, "{month} {year}"),
        (r"(?P<q>[1-4])\.\s*quartal\s+" + _YEAR, "Q{q} {year}"),
        (r"(?P<h>[12])\.\s*halbjahr\s+" + _YEAR, "H{h} {year}"),
        (_group("season", GERMAN_SEASONS) + r"\s+" + _DE_OF_YEAR + _YEAR, "{season} {year}"),
        (_DE_PART + r"\s+" + _DE_OF_YEAR + _YEAR, "{part} {year}"),
        (_DE_LAST + r"\s+" + _group("season", GERMAN_SEASONS), "last {season}"),
        (_DE_LAST + r"\s+jahr(?:es)?", "last year"),
        (_DE_LAST + r"\s+quartal(?:s)?", "last quarter"),
        (_DE_LAST + r"\s+monat(?:s)?", "last month"),
        (_DE_LAST + r"\s+woche", "last week"),
        (r"vor\s+(?P<n>\d+)\s+" + _group("unit", GERMAN_UNITS), "{n} {unit} ago"),
        (r"gestern", "yesterday"),
    ),
    bare_year=r"(?:jahre?\s+)?" + _YEAR,
    lead=r"(?:(?:damals\s+)?(?:im|in|am|um|gegen|während|stand)\s+(?:des\s+|der\s+|dem\s+|den\s+)?)",
    compounds=(
        (r"(?:von|vom|zwischen)\s+(?P<a>{any})\s+(?:bis(?:\s+zum)?|und)\s+(?P<b>{any})", "from {a} to {b}"),
        (r"(?P<side>vor|nach)\s+(?:dem\s+|der\s+)?(?P<c>{any})", "{side} {c}"),
    ),
    relative=r"letzt|vergangen|vorig|gestern",
)

SPANISH_MONTHS = {
    "enero": "January",
    "febrero": "February",
    "marzo": "March",
    "abril": "April",
    "mayo": "May",
    "junio": "June",
    "julio": "July",
    "agosto": "August",
    "septiembre": "September",
    "setiembre": "September",
    "octubre": "October",
    "noviembre": "November",
    "diciembre": "December",
}
SPANISH_SEASONS = {"primavera": "spring", "verano": "summer", "otoño": "autumn", "invierno": "winter"}
SPANISH_PARTS = {
    "principios": "early",
    "comienzos": "early",
    "inicios": "early",
    "mediados": "mid",
    "finales": "late",
    "fines": "late",
}
SPANISH_ORDINALS = {"primer": "first", "segundo": "second", "tercer": "third", "cuarto": "fourth"}
_ES_MONTH = _group("month", SPANISH_MONTHS)
_ES_PART = _group("part", SPANISH_PARTS)
_ES_OF = r"\s+(?:de(?:l)?\s+)?"
SPANISH_UNITS = {"años": "years", "meses": "months", "semanas": "weeks", "días": "days", "dias": "days"}
SPANISH = DateLanguage(
    code="es",
    words={
        **SPANISH_MONTHS,
        **SPANISH_SEASONS,
        **SPANISH_PARTS,
        **SPANISH_ORDINALS,
        "antes": "before",
        "después": "after",
        "despues": "after",
        **SPANISH_UNITS,
    },
    forms=(
        (r"(?P<day>[0-3]?\d)\s+de\s+" + _ES_MONTH + _ES_OF + _YEAR, WRITTEN),
        (_ES_PART + r"\s+de\s+" + _ES_MONTH + _ES_OF + _YEAR, "{part} {month} {year}"),
        (_ES_MONTH + _ES_OF + _YEAR, "{month} {year}"),
        (_group("qw", SPANISH_ORDINALS) + r"\s+trimestre" + _ES_OF + _YEAR, "the {qw} quarter of {year}"),
        (r"(?P<hw>primer|segundo)\s+semestre" + _ES_OF + _YEAR, "the {hw} half of {year}"),
        (_group("season", SPANISH_SEASONS) + _ES_OF + _YEAR, "{season} {year}"),
        (_ES_PART + r"\s+de(?:l)?\s+(?:año\s+)?" + _YEAR, "{part} {year}"),
        (_group("season", SPANISH_SEASONS) + r"\s+pasad[oa]", "last {season}"),
        (r"(?:año\s+pasado|pasado\s+año)", "last year"),
        (r"(?:trimestre\s+pasado|pasado\s+trimestre)", "last quarter"),
        (r"(?:mes\s+pasado|pasado\s+mes)", "last month"),
        (r"(?:semana\s+pasada|pasada\s+semana)", "last week"),
        (r"hace\s+(?P<n>\d+)\s+" + _group("unit", SPANISH_UNITS), "{n} {unit} ago"),
        (r"ayer", "yesterday"),
    ),
    bare_year=r"(?:año\s+)?" + _YEAR,
    lead=r"(?:(?:(?:allá\s+)?por|en|a|durante|hacia)\s+(?:el\s+|la\s+)?|(?:el|la)\s+)",
    compounds=(
        (r"(?:de(?:sde)?|entre)\s+(?:el\s+)?(?P<a>{any})\s+(?:a|hasta|y)\s+(?:el\s+)?(?P<b>{any})", "from {a} to {b}"),
        (r"(?P<side>antes|después|despues)\s+de(?:l)?\s+(?:el\s+|la\s+)?(?P<c>{any})", "{side} {c}"),
    ),
    relative=r"pasad|ayer",
)

FRENCH_MONTHS = {
    "janvier": "January",
    "février": "February",
    "fevrier": "February",
    "mars": "March",
    "avril": "April",
    "mai": "May",
    "juin": "June",
    "juillet": "July",
    "août": "August",
    "aout": "August",
    "septembre": "September",
    "octobre": "October",
    "novembre": "November",
    "décembre": "December",
    "decembre": "December",
}
FRENCH_SEASONS = {"printemps": "spring", "été": "summer", "ete": "summer", "automne": "autumn", "hiver": "winter"}
FRENCH_PARTS = {"début": "early", "debut": "early", "mi": "mid", "milieu": "mid", "fin": "late"}
FRENCH_ORDINALS = {
    "premier": "first",
    "1er": "first",
    "deuxième": "second",
    "second": "second",
    "2e": "second",
    "troisième": "third",
    "3e": "third",
    "quatrième": "fourth",
    "4e": "fourth",
}
_FR_MONTH = _group("month", FRENCH_MONTHS)
_FR_PART = _group("part", FRENCH_PARTS) + r"(?:-\s*|\s+(?:de\s+|d['’])?)"
_FR_OF = r"\s+(?:de\s+)?"
_FR_LAST = r"(?:dernière|derniere|dernier|passée|passee|passé|passe|précédente|précédent)"
FRENCH_UNITS = {"ans": "years", "années": "years", "mois": "months", "semaines": "weeks", "jours": "days"}
FRENCH = DateLanguage(
    code="fr",
    words={
        **FRENCH_MONTHS,
        **FRENCH_SEASONS,
        **FRENCH_PARTS,
        **FRENCH_ORDINALS,
        "avant": "before",
        "après": "after",
        "apres": "after",
        **FRENCH_UNITS,
    },
    forms=(
        (r"(?P<day>[0-3]?\d)(?:er)?\s+" + _FR_MONTH + r"\s+" + _YEAR, WRITTEN),
        (_FR_PART + _FR_MONTH + r"\s+" + _YEAR, "{part} {month} {year}"),
        (_FR_MONTH + _FR_OF + _YEAR, "{month} {year}"),
        (_group("qw", FRENCH_ORDINALS) + r"\s+trimestre" + _FR_OF + _YEAR, "the {qw} quarter of {year}"),
        (r"(?P<hw>premier|1er|second|deuxième|2e)\s+semestre" + _FR_OF + _YEAR, "the {hw} half of {year}"),
        (_group("season", FRENCH_SEASONS) + _FR_OF + _YEAR, "{season} {year}"),
        (_FR_PART + r"(?:l['’]année\s+)?" + _YEAR, "{part} {year}"),
        (_group("season", FRENCH_SEASONS) + r"\s+" + _FR_LAST, "last {season}"),
        (r"(?:année|an)\s+" + _FR_LAST, "last year"),
        (r"trimestre\s+" + _FR_LAST, "last quarter"),
        (r"mois\s+" + _FR_LAST, "last month"),
        (r"semaine\s+" + _FR_LAST, "last week"),
        (r"il\s+y\s+a\s+(?P<n>\d+)\s+" + _group("unit", FRENCH_UNITS), "{n} {unit} ago"),
        (r"hier", "yesterday"),
    ),
    bare_year=r"(?:l['’]an(?:née)?\s+)?" + _YEAR,
    lead=r"(?:(?:en|à|au|pendant|durant|vers|dès)\s+(?:la\s+|le\s+|l['’])?|(?:la\s+|le\s+|l['’]))",
    compounds=(
        (
            r"(?:de|du|entre)\s+(?:l['’]|le\s+)?(?P<a>{any})\s+(?:à|au|jusqu['’]à|jusqu['’]au|et)\s+(?:l['’]|le\s+)?(?P<b>{any})",
            "from {a} to {b}",
        ),
        (r"(?P<side>avant|après|apres)\s+(?:la\s+|le\s+|l['’])?(?P<c>{any})", "{side} {c}"),
    ),
    relative=r"derni|pass[ée]|précédent|hier",
)

CHINESE_SEASONS = {
    "春天": "spring",
    "春季": "spring",
    "春": "spring",
    "夏天": "summer",
    "夏季": "summer",
    "夏": "summer",
    "秋天": "autumn",
    "秋季": "autumn",
    "秋": "autumn",
    "冬天": "winter",
    "冬季": "winter",
    "冬": "winter",
}
CHINESE_MONTH_PARTS = {"初": "early", "上旬": "early", "中旬": "mid", "下旬": "late", "底": "late", "末": "late"}
CHINESE_YEAR_PARTS = {"初": "early", "中": "mid", "底": "late", "末": "late"}
CHINESE_SIDES = {"之前": "before", "以前": "before", "前": "before", "之后": "after", "以后": "after", "后": "after"}
_ZH_YEAR = r"(?<!\d)(?P<year>(?:19|20)\d{2})\s*年"
CHINESE_UNITS = {"年": "years", "个月": "months", "周": "weeks", "星期": "weeks", "天": "days"}
_ZH_MONTH = r"(?P<month>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月"
CHINESE = DateLanguage(
    code="zh",
    words={
        **CHINESE_SEASONS,
        **CHINESE_MONTH_PARTS,
        **CHINESE_YEAR_PARTS,
        **CHINESE_SIDES,
        "上": "1",
        "下": "2",
        **CHINESE_UNITS,
        **{numeral: str(number) for numeral, number in CHINESE_NUMBERS.items() if number <= 4},
    },
    forms=(
        (_ZH_YEAR + _ZH_MONTH + r"(?P<day>[0-3]?\d)\s*[日号]", "{year}-{month_number:02d}-{day_number:02d}"),
        (_ZH_YEAR + _ZH_MONTH + _group("part", CHINESE_MONTH_PARTS), "{part} {month} {year}"),
        (_ZH_YEAR + _ZH_MONTH, "{month} {year}"),
        (_ZH_YEAR + r"(?:的)?第(?P<q>[1-4一二三四])季度?", "Q{q} {year}"),
        (_ZH_YEAR + r"(?P<h>上|下)半年", "H{h} {year}"),
        (_ZH_YEAR + r"(?:的)?" + _group("season", CHINESE_SEASONS), "{season} {year}"),
        (_ZH_YEAR + r"(?P<part>初|中(?![国文])|底|末)", "{part} {year}"),
        (_ZH_YEAR, "{year}"),
        (r"去年", "last year"),
        (r"上(?:个)?季度", "last quarter"),
        (r"上(?:个)?月", "last month"),
        (r"上(?:个)?(?:周|星期|礼拜)", "last week"),
        (r"(?P<n>\d+)\s*" + _group("unit", CHINESE_UNITS) + r"前", "{n} {unit} ago"),
        (r"昨天", "yesterday"),
    ),
    bare_year=_ZH_YEAR,
    lead=r"(?:在|于|截至|截止到)",
    compounds=(
        (r"(?:从|自)?(?P<a>{any})\s*(?:到|至|~|—)\s*(?P<b>{any})", "from {a} to {b}"),
        (r"(?P<c>{any})\s*" + _group("side", CHINESE_SIDES), "{side} {c}"),
    ),
    relative=r"去年|上个|上季|上月|上周|上星期|上礼拜|昨天",
    boundary="",
)

DATE_LANGUAGES = {language.code: language for language in (GERMAN, SPANISH, FRENCH, CHINESE)}
"""The languages whose date phrases are read besides English's."""
