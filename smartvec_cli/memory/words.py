"""Small word lists shared by the date reader, the value extractor and the lexical search."""

from __future__ import annotations

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
ARTICLES = ("a", "an")  # "a year ago": one, where a count is expected

STOPWORDS = frozenset(
    """a an the of for to in on at by with from and or is are was were be been being it its this that these those
    per up our we you your they their there here as into than then so such can may must will would should shall
    has have had do does did not no only also any each every all more most less least over under about after before
    between during within without upon""".split()
)
QUESTION_WORDS = frozenset("what which who whom whose when where why how many much i me my is does do tell please".split())

# Month names and their abbreviations -> month number: dates in questions (``asof``), and the numbers of a date
# that are no amount (``answer``).
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
