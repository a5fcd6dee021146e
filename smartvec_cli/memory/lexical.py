"""The lexical side of relevance: a question as a full-text query, and how much of it a passage holds.

Embeddings blur what people often search for: an error code, a ticket id, a host name,
a product name the model never saw, an exact number. A full-text match on such a word
is evidence no cosine can give. Each question is asked of the full-text index for any
of its content words (``query_terms``, which the store writes in its own syntax: a
question is never full-text syntax), which brings in candidates the vector index
missed; then each candidate's *coverage* says how much of the question's rare-word
weight it holds, for all content words and, separately, for the
*specific* ones: words with digits, inner capitals or joining punctuation, and names
(capitalised inside the question), the words a sentence model cannot embed faithfully.

Every function takes the vault's main language (``Store.lexical_language``): English by default, as
before; in another language its own stopwords and question words are left out too, a German noun's
capital is no name, and Chinese or Japanese text is read as the character pairs the index holds
(``memory.analysis``), so "复制文件" asks for "复制", "制文" and "文件".
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from .analysis import CJK, ENGLISH, split_cjk
from .words import CAPITALISED_NOUNS, QUESTION_WORDS, QUESTION_WORDS_IN, STOPWORDS, STOPWORDS_IN

TERM = re.compile(r"[^\W_]+", re.UNICODE)
TOKEN = re.compile(r"[^\W_]+(?:[-_./:][^\W_]+)*", re.UNICODE)  # as written: "ERR-4012", "tw-ingest", "v2.1"
MAX_TERMS = 32
IN_CJK = re.compile(f"[{CJK}]")


@lru_cache(maxsize=64)
def _word_lists(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """(stopwords, question words) of a language, English's included: notes in any language quote English."""
    return STOPWORDS | STOPWORDS_IN.get(language, frozenset()), QUESTION_WORDS | QUESTION_WORDS_IN.get(
        language, frozenset()
    )


def _words(text: str, language: str) -> list[str]:
    """The lower-case words of ``text``; outside English, CJK runs as their character pairs."""
    words = TERM.findall(text.lower())
    return words if language == ENGLISH else [part for word in words for part in split_cjk(word)]


def query_terms(question: str, language: str = ENGLISH) -> list[str]:
    """The content words of a question, in order, each once: no stopwords, no question words."""
    stopwords, question_words = _word_lists(language)
    seen: dict[str, None] = {}
    for term in _words(question, language):
        if (
            term in stopwords
            or term in question_words
            or (len(term) == 1 and not term.isdigit() and not IN_CJK.match(term))
        ):
            continue
        seen.setdefault(term, None)
    return list(seen)[:MAX_TERMS]


def _is_specific(token: str, first: bool, language: str = ENGLISH) -> bool:
    if any(ch.isdigit() for ch in token) or any(ch in "-_./:" for ch in token):
        return True
    if any(ch.isupper() for ch in token[1:]):
        return True  # NATS, JetStream, iOS
    return (
        token[:1].isupper() and not first and language not in CAPITALISED_NOUNS
    )  # a name inside the question: Berlin, Lena


KEYWORD_QUERY_TERMS = 2


def specific_terms(question: str, language: str = ENGLISH) -> set[str]:
    """The query terms (as ``query_terms`` spells them) that come from specific words of the question.

    A question of one or two words and no question word is a keyword lookup ("zqmarkup", "ingest lag"):
    all its words are specific. CJK characters are never specific by themselves (they have no case)."""
    terms = query_terms(question, language)
    question_words = _word_lists(language)[1]
    if len(terms) <= KEYWORD_QUERY_TERMS and not any(w in question_words for w in _words(question, language)):
        return set(terms)
    found: set[str] = set()
    for number, match in enumerate(TOKEN.finditer(question)):
        tokens = [match.group(0)] if language == ENGLISH else [t for t in IN_CJK.split(match.group(0)) if t]
        for token in tokens:
            if _is_specific(token, first=number == 0, language=language):
                found.update(query_terms(token, language))
    return found & set(terms)


COMMON_SHARE = 0.05
COMMON_MIN_PASSAGES = 1000


def common_passages(total: int) -> int:
    """How many of ``total`` passages may hold a word before it is common: a word in more passages than
    this (5% of them, and over 1,000) tells no passage from another, so it is neither looked up as a
    source of full-text candidates nor weighed in a passage's coverage. ("call" of "on-call" in a tenth
    of a large vault would bring 50 arbitrary passages, and counting its thousands of holders is what
    made such questions the slowest.) A vault of up to 1,000 passages keeps every word."""
    return max(COMMON_MIN_PASSAGES, int(COMMON_SHARE * total))


def idf(frequency: int, total: int) -> float:
    """BM25's inverse document frequency: near 0 for a word in every passage, large for a rare one."""
    return math.log(1.0 + (total - frequency + 0.5) / (frequency + 0.5))


def coverage(
    total: int,
    frequency: dict[str, int],
    holders: dict[str, set[int]],
    ids: list[int],
    unknown: frozenset[str] = frozenset(),
) -> dict[int, float]:
    """The share of the question's rare-word weight that each passage holds: 1 when it holds every query
    word found in the vault, 0 when none. Words found nowhere are left out, so a typo or a word the vault
    never uses does not count against every passage alike, except the ``unknown`` ones: names the
    question is about that no passage, heading or title mentions ("Facilities" in "How do I call the
    Facilities Desk?") weigh as the rarest word, so a passage holding only "desk" is not about it.

    Unlike BM25 scaled to its best match, this is absolute: a question whose only matches are common
    words gives every passage a small share, and an identifier found in one passage gives it all.
    """
    weights = {term: idf(count, total) for term, count in frequency.items() if count > 0 or term in unknown}
    whole = sum(weights.values())
    if whole <= 0:
        return {i: 0.0 for i in ids}
    return {i: sum(w for term, w in weights.items() if i in holders.get(term, ())) / whole for i in ids}


PHRASE_MIN_WORDS = 6  # an unquoted run of words this long is read as pasted from a note
MAX_PHRASES = 4
QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]+)[\"“”„«»]")
SENTENCE_END = re.compile(r"[.!?;]+(?:\s+|$)")


def phrases(question: str) -> list[list[str]]:
    """The verbatim runs of words a question asks for, each as its words (lower case, punctuation gone):
    every quoted phrase of two words or more, else every sentence of at least ``PHRASE_MIN_WORDS`` words
    (a sentence pasted from a note). Stopwords stay: a phrase is matched word for word, so
    "everything in under the settings tab" finds the note with that very typo and nothing else."""
    quoted = [TERM.findall(part.lower()) for part in QUOTED.findall(question)]
    found = [words for words in quoted if len(words) >= 2]
    if not quoted:
        found = [
            words
            for words in (TERM.findall(s.lower()) for s in SENTENCE_END.split(question))
            if len(words) >= PHRASE_MIN_WORDS
        ]
    return found[:MAX_PHRASES]


def phrase_shares(found: list[set[int]], sizes: list[int], ids: list[int]) -> dict[int, float]:
    """Each passage's share of the question's phrase words held verbatim: ``found[k]`` holds the passages
    that contain phrase ``k`` of ``sizes[k]`` words; 1 for a passage holding every phrase."""
    whole = sum(sizes)
    if not whole:
        return {}
    shares = {i: sum(n for holders, n in zip(found, sizes, strict=False) if i in holders) / whole for i in ids}
    return {i: share for i, share in shares.items() if share > 0}


NAMED_MIN_SHARE = (
    0.66  # a question names a note when it holds at least this share of its title's (or an alias's) rare words
)


def _stem(term: str) -> str:
    return term[:-1] if len(term) > 3 and term.endswith("s") and not term.endswith("ss") else term


def named_share(
    question: str, names: list[str], common: frozenset[str] = frozenset(), language: str = ENGLISH
) -> float:
    """How much of a note's title or alias (the best of ``names``) the question names: the share of the
    name's words, common words of the vault left out, that the question holds (plurals folded), or 0
    under ``NAMED_MIN_SHARE``. "How do I restore a file from version history" names the note "Version
    history"; a title made only of words every note uses ("npm") names nothing."""
    asked = {_stem(t) for t in query_terms(question, language)}
    best = 0.0
    for name in names:
        words = {_stem(t) for t in query_terms(name, language) if t not in common}
        if words:
            best = max(best, len(words & asked) / len(words))
    return best if best >= NAMED_MIN_SHARE else 0.0
