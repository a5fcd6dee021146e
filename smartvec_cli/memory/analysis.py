"""How the words of a vault not written in English are put into the full-text index and looked up there.

FTS5's own tokenizer stems English only (``porter``) and reads a run of Chinese or Japanese characters as one
word, so a German vault finds "Datei" but not "Dateien" and a Chinese one finds only the exact sentence. For
those vaults the index holds a second, *analysed* copy of each passage: every word stemmed by the Snowball
stemmer of the vault's main language (``snowballstemmer``, pure Python, the algorithms Lucene and PostgreSQL
use), and every run of CJK characters written as its overlapping character pairs ("复制文件" → "复制 制文 文件"),
as Lucene's CJK analyzer does. A question is analysed the same way before it is looked up, so both sides
meet on the same stems and pairs. English vaults keep the porter index unchanged.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..vault.language import ENGLISH

SNOWBALL = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "id": "indonesian",
    "it": "italian",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "tr": "turkish",
    "en": "english",
}
"""The vault languages (``vault.language.KNOWN``) with a Snowball stemmer, by ISO 639-1 code."""

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
"""Hiragana, Katakana, the CJK ideographs and Hangul syllables: the scripts read as character pairs."""
_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def main_language(recorded: str | None) -> str:
    """The language the index analyses words in: the first of the recorded vault languages (``meta``'s
    ``languages``, the main one first), English when none were recorded."""
    return (recorded or ENGLISH).split()[0] if (recorded or "").strip() else ENGLISH


def analysed(language: str) -> bool:
    """Whether a vault of this main language has the analysed index (every language but English)."""
    return language != ENGLISH


STEM_CACHE = 200_000
"""Words whose stem is remembered, per language: a vault's vocabulary repeats, and the pure-Python stemmer is
slow beside a dictionary look-up."""


@lru_cache(maxsize=32)
def _stemmer(language: str):
    name = SNOWBALL.get(language)
    if name is None:
        return None
    import snowballstemmer

    return lru_cache(maxsize=STEM_CACHE)(snowballstemmer.stemmer(name).stemWord)


def cjk_pairs(run: str) -> list[str]:
    """The overlapping character pairs of a run of CJK characters; a lone character stands for itself."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def split_cjk(word: str) -> list[str]:
    """A word as the index holds it before stemming: its CJK runs as character pairs, the rest as written
    ("docker容器" → "docker", "容器")."""
    parts: list[str] = []
    last = 0
    for match in _CJK_RUN.finditer(word):
        if match.start() > last:
            parts.append(word[last : match.start()])
        parts.extend(cjk_pairs(match.group(0)))
        last = match.end()
    if last < len(word):
        parts.append(word[last:])
    return parts


def analyse(text: str | None, language: str) -> str | None:
    """``text`` as the analysed index holds it: lower-case words, each stemmed in ``language``, CJK runs as
    character pairs, one space between them (so phrases keep their order)."""
    if text is None:
        return None
    stem = _stemmer(language)
    words = [part for word in _WORD.findall(text.lower()) for part in split_cjk(word)]
    if stem is not None:
        words = [stem(word) for word in words]
    return " ".join(words)
