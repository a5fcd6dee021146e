"""Which languages a vault is written in, read from its notes' text at the first index.

The answer chooses the model (MiniLM reads English best, multilingual-e5 every language), the stemmer of the
full-text index and the languages dates are read in. It comes from ``py3langid``, a packaged identifier (langid.py's
naive Bayes over byte n-grams, 97 languages, its 4 MB model inside the wheel, numpy only): a list of stopwords
per language would be a worse hand-made copy of it, and guess nothing for a language it did not list. Only the
first index pays for it (about a second to load the model, milliseconds a note, at most ``SAMPLE_NOTES`` notes).

Code is no language: fenced blocks, inline code, links and front matter are taken out before a note is read,
so a German page of shell commands reads as German. Each note counts by the length of its prose, and a
language holding ``MIN_SHARE`` of the vault's prose is one of its languages.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Sequence

ENGLISH = "en"
MIN_SHARE = 0.2
"""A language with this share of the vault's prose is one of its languages (a vault of German notes with a
quarter of English ones is read in both)."""
ENGLISH_ENOUGH = 0.7
"""A vault is English (MiniLM) when at least this share of its prose is; below it, mostly another language or
mixed, it is multilingual-e5's."""
SAMPLE_CHARS = 3000
SAMPLE_NOTES = 2000
"""A vault of more notes is read from this many, drawn at random: a share of 20% read from 2,000 draws strays by
about a point (binomial, sqrt(0.2 * 0.8 / 2000); more where notes differ much in length), which no choice made
from the shares notices, while reading every note of a large vault would cost its first index several times as
long (docs/benchmarks.md, *Measurements behind the code*)."""
MIN_PROSE = 20
MIN_VAULT_PROSE = 300
"""Below this many characters of prose in the whole vault, its language is not guessed (English, MiniLM, unless
the config says otherwise): a sentence or two is no evidence (one English sentence about a per diem reads as
Dutch), and the model chosen at the first index stays with the index."""
KNOWN = (
    "en",
    "de",
    "es",
    "fr",
    "it",
    "pt",
    "nl",
    "sv",
    "da",
    "no",
    "fi",
    "ru",
    "pl",
    "cs",
    "tr",
    "hu",
    "ro",
    "zh",
    "ja",
    "ko",
    "ar",
    "el",
    "uk",
    "ca",
    "id",
    "vi",
)
"""The languages a vault is told apart among: langid's 97 include close neighbours that short notes confuse
(Galician for Spanish, Occitan for French); these are the ones with a Snowball stemmer or a CJK script."""

_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`|\{\{[^}]*\}\}|https?://\S+|\[\[[^\]]*\]\]|\]\([^)]*\)", re.S)
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def prose(text: str) -> str:
    """A note's words without its code, links and front matter."""
    return re.sub(r"\s+", " ", _CODE.sub(" ", _FRONT.sub("", text))).strip()


_identifier = None


def _classify(text: str) -> str:
    global _identifier
    if _identifier is None:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        _identifier = LanguageIdentifier.from_model_file(MODEL_FILE)
        _identifier.set_languages(list(KNOWN))
    return _identifier.classify(text)[0]


def language_shares(texts: Sequence[str], min_vault_prose: int = MIN_VAULT_PROSE) -> dict[str, float]:
    """Each language's share of the prose of ``texts`` (notes), largest first; none below ``min_vault_prose``.
    Of at most ``SAMPLE_NOTES`` notes, drawn at random with a fixed seed (not every n-th: translations named
    ``page.de.md``, ``page.en.md`` side by side would give every n-th note one language)."""
    weights: Counter = Counter()
    if len(texts) > SAMPLE_NOTES:
        texts = random.Random(0).sample(texts, SAMPLE_NOTES)
    for text in texts:
        words = prose(text)[:SAMPLE_CHARS]
        if len(words) < MIN_PROSE:
            continue
        weights[_classify(words)] += len(words)
    whole = sum(weights.values())
    if not whole or whole < min_vault_prose:
        return {}
    return {code: weight / whole for code, weight in weights.most_common()}


def vault_languages(shares: dict[str, float]) -> list[str]:
    """The vault's languages, the largest first: every one with ``MIN_SHARE`` of its prose (English when none)."""
    found = [code for code, share in shares.items() if share >= MIN_SHARE]
    return found or ([next(iter(shares))] if shares else [ENGLISH])


def mostly_english(shares: dict[str, float]) -> bool:
    """True when MiniLM should read this vault: ``ENGLISH_ENOUGH`` of its prose is English, or it has none."""
    return not shares or shares.get(ENGLISH, 0.0) >= ENGLISH_ENOUGH
