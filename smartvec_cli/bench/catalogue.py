"""What the generated benchmark vaults talk about, in two catalogues with nothing in common.

``EVALUATION`` is what ``bench accuracy`` measures; ``CALIBRATION`` is what ``bench
calibrate`` fits the confidence on. They share no topic (policy, fact family, identifier
family, long note, rule) and no question template, so the fitted confidence is judged on
questions it never saw: ``Catalogue.topics`` and ``Catalogue.templates`` say what each
holds, and the report counts the overlap.

Every policy names one value that changes over the years (a number of days, an amount of
money), the sentence a policy note uses for it, and questions that ask for it in other
words: a question never copies the note's sentence, so retrieval has to understand the
question rather than match its wording. ``claim`` is how a chat message repeats a value
(the generator injects outdated ones); ``reworded`` says the same thing in other words (an
agreeing restatement, or with another value a disagreement that is not the same sentence
with a different number); ``unrelated`` shares words and the unit with the policy but is
about something else, which no contradiction detector should flag.

Beside the policies: stable facts that never change (the no-conflict control), notes named
by identifiers a language model cannot embed meaningfully (error codes, ticket ids, host
names, made-up product names), long notes whose answering paragraph has a near miss in the
same section, and rules (yes/no statements) for negated contradictions.

The catalogues themselves are data (``catalogues/evaluation.json``, ``catalogues/calibration.json``, and the
names chats and facts draw from in ``catalogues/names.json``), read into the frozen dataclasses below, whose
fields say what each entry means.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Person:
    name: str
    role: str


@dataclass(frozen=True)
class PolicySpec:
    key: str
    name: str
    owner: int  # index into the catalogue's owners
    topic: str  # completes "This policy describes ..."
    heading: str  # the section that holds the value
    values: tuple[str, ...]  # in increasing order
    ordered: bool  # True: each version raises the value (money); False: it may go either way
    fact: str  # the note's sentence, with {v}
    asks: tuple[str, ...]  # present-tense paraphrases
    asked: tuple[str, ...]  # past-tense paraphrases; {when} is where a date phrase goes
    claim: str  # how a chat message states it, with {v}
    reworded: str = ""  # the fact in other words, with {v}
    unrelated: str = ""  # shares words and the unit, says something else; with {v}


@dataclass(frozen=True)
class FactFamily:
    """Stable facts of one kind (an office's address, a team's lead): one note per entity, never versioned.

    ``value`` is a pattern: ``{n}`` a number from ``low`` to ``high``, ``{choice}`` one of
    ``choices``, ``{street}`` a street, ``{person}`` a made-up name.
    """

    key: str
    folder: str
    title: str  # with {e}
    source_type: str | None
    entities: tuple[str, ...]
    fact: str  # with {e} and {v}
    context: str  # a second passage of the same note, with {e}
    asks: tuple[str, ...]  # with {e}
    value: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0


@dataclass(frozen=True)
class IdentifierFamily:
    """Notes named by an identifier (an error code, a ticket, a host, a made-up product) that only the id tells apart.

    Each note is one passage (the fact, then ``context`` in the same paragraph), so a first hit
    on the right note is the answer: these questions measure finding the identifier, while
    near misses inside a note are the long notes' part.

    ``id_pattern`` has ``{d4}`` (four digits, never a year), ``{d2}`` (two digits) and
    ``{word}`` (one of ``words``); ``values`` are the answers, one per note.
    """

    key: str
    folder: str
    title: str  # with {id}
    id_pattern: str
    fact: str  # with {id} and {v}
    context: str  # a second sentence, with {id}
    values: tuple[str, ...]
    asks: tuple[str, ...]  # with {id}
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class NearMiss:
    """Two facts of one section that share their words: each is the other's near miss."""

    heading: str
    facts: tuple[str, str]  # with {v}
    values: tuple[tuple[str, ...], tuple[str, ...]]
    asks: tuple[str, str]


@dataclass(frozen=True)
class LongNoteSpec:
    """A long reference note: near-miss pairs in their own sections among filler paragraphs."""

    key: str
    title: str
    folder: str
    source_type: str
    intro: str
    pairs: tuple[NearMiss, ...]
    filler: tuple[str, ...]  # sentences that pad sections and add sections of their own


@dataclass(frozen=True)
class RuleSpec:
    """A yes/no rule of an office, and the ways a later note can deny or repeat it."""

    key: str
    title: str  # with {e}
    fact: str  # with {e}
    negated: str  # the same sentence, negated
    denied: str  # the rule denied in other words
    agreeing: str  # the rule repeated in other words
    entities: tuple[str, ...] = ("Hamburg", "Lisbon", "Krakow", "Toronto", "Nairobi", "Osaka")


@dataclass(frozen=True)
class Catalogue:
    name: str
    company: str
    owners: tuple[Person, ...]
    policies: tuple[PolicySpec, ...]
    facts: tuple[FactFamily, ...]
    identifiers: tuple[IdentifierFamily, ...]
    long_notes: tuple[LongNoteSpec, ...]
    rules: tuple[RuleSpec, ...]
    chat_frames: tuple[str, ...]
    meeting_frames: tuple[str, ...]
    chat_replies: tuple[str, ...]

    def topics(self) -> set[str]:
        """Every subject the questions and notes are about, by key and by name."""
        named = [(p.key, p.name) for p in self.policies] + [(f.key, f.title) for f in self.facts]
        named += [(i.key, i.title) for i in self.identifiers] + [(n.key, n.title) for n in self.long_notes]
        named += [(r.key, r.title) for r in self.rules]
        parts = (re.sub(r"\{\w+\}", "", part).strip().lower() for pair in named for part in pair)
        return {part for part in parts if part}

    def templates(self) -> set[str]:
        """Every question template (before a value, entity, identifier or date is filled in)."""
        found: set[str] = set()
        for p in self.policies:
            found.update(p.asks)
            found.update(p.asked)
        for fact in self.facts:
            found.update(fact.asks)
        for ident in self.identifiers:
            found.update(ident.asks)
        for note in self.long_notes:
            for pair in note.pairs:
                found.update(pair.asks)
        return {t.lower() for t in found}


CATALOGUES = Path(__file__).resolve().parent / "catalogues"


def _build(kind, data):
    """``data`` (parsed JSON) as ``kind``: lists become tuples, objects the dataclasses the fields name."""
    origin = typing.get_origin(kind)
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        return kind(**{name: _build(hints[name], value) for name, value in data.items()})
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], item) for item in data)
        return tuple(_build(arg, item) for arg, item in zip(args, data, strict=True))
    return data


def load_catalogue(name: str) -> Catalogue:
    return _build(Catalogue, json.loads((CATALOGUES / f"{name}.json").read_text(encoding="utf-8")))


def _names() -> dict[str, tuple[str, ...]]:
    data = json.loads((CATALOGUES / "names.json").read_text(encoding="utf-8"))
    return {key: tuple(values) for key, values in data.items()}


EVALUATION = load_catalogue("evaluation")
CALIBRATION = load_catalogue("calibration")
_NAMES = _names()
CHANNELS = _NAMES["channels"]
FIRST_NAMES = _NAMES["first_names"]
LAST_NAMES = _NAMES["last_names"]
STREETS = _NAMES["streets"]


def overlap(a: Catalogue, b: Catalogue) -> dict:
    """What two catalogues share: topics and question templates (both 0 for calibration vs evaluation)."""
    return {"shared_topics": len(a.topics() & b.topics()), "shared_templates": len(a.templates() & b.templates())}
