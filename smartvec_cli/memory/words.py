"""Small word lists shared by the date reader, the value extractor and the lexical search."""

from __future__ import annotations

NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
ARTICLES = ("a", "an")  # "a year ago": one, where a count is expected

STOPWORDS = frozenset(
    """a an the of for to in on at by with from and or is are was were be been being it its this that these those
    per up our we you your they their there here as into than then so such can may must will would should shall
    has have had do does did not no only also any each every all more most less least over under about after before
    between during within without upon""".split()
)
QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how many much i me my is does do tell please".split()
)

# Month names and their abbreviations -> month number: dates in questions (``asof``), and the numbers of a date
# that are no amount (``answer``).
MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}

WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun".split()
)
"""Day names: a time a sentence speaks of, never a subject it names."""

# The same lists in the other languages whose vaults the full-text index stems (``memory.analysis``): a question
# in German is looked up by its content words as an English one is. Chinese and Japanese are read as character
# pairs, of which only the question's own pairs are listed.
STOPWORDS_IN = {
    "de": frozenset(
        """der die das den dem des ein eine einen einem einer eines und oder aber nicht kein keine ist sind war waren
        wird werden mit von vom zu zum zur im in an am auf aus bei für nach über um vor bis durch ohne gegen ich du
        er sie es wir ihr sich mein meine dein deine sein seine ihre man kann können soll sollen will muss müssen
        auch nur so dass als noch schon dann wenn ob da hier dort jeder jede jedem jeden jedes alle alles
        bitte""".split()
    ),
    "es": frozenset(
        """el la los las lo un una unos unas de del al y e o u que en con por para su sus es son ser está están se le
        les mi mis me te tu tus no sin sobre entre como cada este esta estos estas ese esa esos esas muy más ya hay
        todo toda todos todas hasta desde otro otra puedo puede""".split()
    ),
    "fr": frozenset(
        """le la les un une des de du et ou que qu qui en dans avec pour par sur sous au aux ce cet cette ces son sa
        ses mon ma mes ton ta tes leur leurs ne pas plus se est sont être il elle ils elles je tu nous vous on y
        tout tous toute toutes très peut puis""".split()
    ),
    "zh": frozenset("一个 一些 这个 那个 我们 你们 他们 可以 能够 需要 然后 以及 或者 并且".split()),
    "ja": frozenset("この その あの これ それ する ます です".split()),
}
QUESTION_WORDS_IN = {
    "de": frozenset(
        "wie was wer wem wen wessen wo wohin woher wann warum weshalb welche welcher welches welchen womit "
        "wofür".split()
    ),
    "es": frozenset(
        "cómo como qué que quién quiénes dónde donde cuándo cuando cuál cuáles cuánto cuántos cuánta cuántas "
        "por qué".split()
    ),
    "fr": frozenset("comment quoi quel quelle quels quelles où quand pourquoi combien qui".split()),
    "zh": frozenset("如何 怎么 怎样 什么 哪些 哪个 哪里 多少".split()),
    "ja": frozenset("どう どの なに なぜ いつ どこ".split()),
}
CAPITALISED_NOUNS = frozenset({"de", "lb"})
"""Languages that capitalise every noun: a capital inside a question names nothing there."""
