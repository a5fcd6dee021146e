"""A seeded synthetic vault with known answers, written in two styles from the same facts.

The vault is built in the spirit of the SmartVector paper's benchmark and is honest by
construction: every question names the note and the sentence that answers it, known
from how the vault was written, never from what smartvec returns.

One *world* (decided by the seed) holds:

- policies whose value changes several times over the years. Half of them are one note
  per version, half one note edited in place, replayed through time with the clock so
  each edit is seen on the day it took effect;
- stable facts (an office's address, a team's lead) without versions or competitors:
  the no-conflict control;
- notes named by identifiers (an error code, a ticket, a host name, a made-up product)
  that only the identifier tells apart;
- long notes whose answering paragraph has a near miss in the same section;
- rules (yes/no statements) that later notes deny or repeat;
- recent chat messages and meeting notes that restate an outdated policy value as
  current (``rumours``), ordered so the set at a higher rate contains the lower one;
- contradiction probes with ground truth: values disagreeing in other words, negations
  (the same sentence negated, and a denial in other words), and notes that must not be
  flagged: agreeing restatements and notes that merely share words and the unit.

The world is rendered in two styles. ``labelled``: frontmatter that smartvec's ranking
reads (``source_type``, ``valid_from``, ``valid_until``, ``version``, ``supersedes``, ids).
``plain``, as most people's notes are: none of those keys anywhere; a version copy carries
only a ``date:`` and a file name that varies the way people name copies ("X v2",
"X (2024)", "X - updated"); chats and meeting notes sit in folders named as people name
them, with a ``date:`` at most.

Questions paraphrase (they never copy a note's sentence). Time-point questions name a
period that lies wholly inside one version's window, at least two weeks from either
end, both in the forms the query parser documents ("in March 2023", "Q2 2024") and in
forms people also use ("mid-2022", "spring 2023", "before 2023", "03/05/2023", where both
readings of the date fall in the same window); ``as_of`` questions carry the date as a
field instead. No two questions are the same text.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import random
import re
from dataclasses import asdict, dataclass, field

from .catalogue import (
    CHANNELS,
    EVALUATION,
    FIRST_NAMES,
    LAST_NAMES,
    STREETS,
    Catalogue,
    FactFamily,
    IdentifierFamily,
    LongNoteSpec,
    PolicySpec,
    RuleSpec,
)

STYLES = ("labelled", "plain")
QUESTION_TYPES = ("current", "time_point", "as_of", "stable", "lexical", "long_note")
DEFAULT_COUNTS = {"current": 42, "time_point": 42, "as_of": 28, "stable": 28, "lexical": 24, "long_note": 24}
DEFAULT_NOW = dt.date(2026, 6, 1)
HISTORY_START = dt.date(2019, 1, 1)
MIN_GAP_MONTHS = 8
MARGIN = dt.timedelta(days=14)
MONTH_NAMES = tuple(calendar.month_name)[1:]
# Date phrasings the query parser documents (docs/ranking.md, "As-of questions"), and others people use.
DOCUMENTED_PHRASES = ("month", "day", "quarter", "year")
COLLOQUIAL_PHRASES = ("mid_year", "season", "before_year", "start_of_year", "end_of_year", "early_late", "numeric_date")
PHRASE_WEIGHTS = {
    "month": 0.2,
    "day": 0.17,
    "quarter": 0.08,
    "year": 0.05,
    **{kind: 0.5 / len(COLLOQUIAL_PHRASES) for kind in COLLOQUIAL_PHRASES},
}
# Contradiction probes: which kinds a detector should flag, and which it must not.
FLAGGED_PROBES = ("reworded_value", "negated", "denied")
UNFLAGGED_PROBES = ("agreeing", "agreeing_rule", "shared_words")
TEAMS = ("Ops", "Product", "Leadership", "Design", "Sales", "Finance")
PLAIN_CHAT_FOLDERS = ("Slack", "chats/team", "Inbox/Slack export", "Teams chat")
PLAIN_MEETING_FOLDERS = ("Meetings", "meeting notes", "Notes/1-1s and syncs", "Work/Meetings 2026")
PLAIN_COPY_NAMES = (
    "{name} v{k}",
    "{name} ({year})",
    "{name} - updated",
    "{name} (new)",
    "{name} {iso}",
    "Copy of {name} {k}",
)


@dataclass(frozen=True)
class Expected:
    """One statement: the note (by its key in the world) and the sentence that states it."""

    doc: str
    needle: str

    def label(self) -> str:
        return f"{self.doc} :: {self.needle}"


@dataclass
class BenchQuestion:
    id: str
    type: str  # one of QUESTION_TYPES
    text: str
    as_of: str | None  # ISO date for the batch field (type as_of only)
    period: tuple[str, str]  # the span of time the question is about (inclusive ISO dates)
    answer: Expected
    stale: list[Expected]  # versions already superseded during ``period``
    topic: str  # policy, fact family, identifier family or long note key
    versions: list[Expected] = field(default_factory=list)  # every version of the answering statement
    template: str = ""  # the catalogue's question template it was made from
    phrase_kind: str | None = None  # how a time_point question names its time
    near_miss: Expected | None = None  # long notes: the other paragraph of the same section

    def batch_line(self) -> str:
        item = {"id": self.id, "query": self.text}
        if self.as_of:
            item["as_of"] = self.as_of
        return json.dumps(item)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["answer"] = self.answer.label()
        data["stale"] = [s.label() for s in self.stale]
        data["versions"] = [v.label() for v in self.versions]
        data["near_miss"] = self.near_miss.label() if self.near_miss else None
        return data


@dataclass
class NoteFile:
    path: str
    text: str


@dataclass
class Step:
    """Files as they are on ``when``: written, then indexed (and consolidated) with the clock set to that day."""

    when: dt.date
    files: list[NoteFile] = field(default_factory=list)


@dataclass(frozen=True)
class Claim:
    """A note states ``value`` for ``topic`` over [start, end): two claims that overlap in time and differ
    contradict."""

    doc: str
    topic: str
    value: str
    start: dt.date
    end: dt.date


# -- time ----------------------------------------------------------------------------------------


def month_start(index: int) -> dt.date:
    """The first day of the ``index``-th month after HISTORY_START."""
    year, month = divmod(HISTORY_START.month - 1 + index, 12)
    return dt.date(HISTORY_START.year + year, month + 1, 1)


def month_end(day: dt.date) -> dt.date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def _months_between(a: dt.date, b: dt.date) -> int:
    return (b.year - a.year) * 12 + b.month - a.month


def change_dates(rng: random.Random, versions: int, now: dt.date) -> list[dt.date]:
    """First days of the months in which a policy's versions took effect, at least MIN_GAP_MONTHS apart."""
    last = _months_between(HISTORY_START, now) - 4
    while True:
        picks = sorted(rng.sample(range(0, last), versions))
        if all(b - a >= MIN_GAP_MONTHS for a, b in zip(picks, picks[1:], strict=False)):
            return [month_start(p) for p in picks]


def _inside(start: dt.date, end: dt.date, lo: dt.date, hi: dt.date) -> bool:
    """Is [start, end] (inclusive days) inside the window [lo, hi) with MARGIN on both sides?"""
    return start >= lo + MARGIN and end <= hi - dt.timedelta(days=1) - MARGIN


def _year_periods(year: int) -> list[tuple[str, str, tuple[dt.date, dt.date]]]:
    """The colloquial periods of one year: (kind, phrase, (first day, last day))."""
    d = dt.date
    feb_end = month_end(d(year, 2, 1))
    return [
        ("mid_year", f"in mid-{year}", (d(year, 6, 1), d(year, 7, 31))),
        ("mid_year", f"around mid-{year}", (d(year, 6, 1), d(year, 7, 31))),
        ("season", f"in spring {year}", (d(year, 3, 1), d(year, 5, 31))),
        ("season", f"over the summer of {year}", (d(year, 6, 1), d(year, 8, 31))),
        ("season", f"in autumn {year}", (d(year, 9, 1), d(year, 11, 30))),
        ("season", f"in the fall of {year}", (d(year, 9, 1), d(year, 11, 30))),
        ("before_year", f"before {year + 1}", (d(year, 10, 1), d(year, 12, 31))),
        ("start_of_year", f"at the start of {year}", (d(year, 1, 1), feb_end)),
        ("start_of_year", f"at the beginning of {year}", (d(year, 1, 1), feb_end)),
        ("end_of_year", f"at the end of {year}", (d(year, 11, 1), d(year, 12, 31))),
        ("early_late", f"in early {year}", (d(year, 1, 1), d(year, 4, 30))),
        ("early_late", f"in late {year}", (d(year, 9, 1), d(year, 12, 31))),
    ]


def when_phrases(rng: random.Random, lo: dt.date, hi: dt.date) -> tuple[str, str, tuple[dt.date, dt.date]]:
    """(kind, date phrase, period it names) for a moment inside [lo, hi); never near a boundary."""
    options: list[tuple[str, str, tuple[dt.date, dt.date]]] = []
    day = lo.replace(day=1)
    while day < hi:
        end = month_end(day)
        if _inside(day, end, lo, hi):
            name = f"{MONTH_NAMES[day.month - 1]} {day.year}"
            options += [("month", f"{lead} {name}", (day, end)) for lead in ("in", "back in", "during")]
            if day.month in (2, 5, 8, 11):
                q_start, q_end = day.replace(month=day.month - 1), month_end(day.replace(month=day.month + 1))
                if _inside(q_start, q_end, lo, hi):
                    options.append(("quarter", f"in Q{(day.month + 1) // 3} {day.year}", (q_start, q_end)))
            if day.month == 1:
                if _inside(day, dt.date(day.year, 12, 31), lo, hi):
                    options += [
                        ("year", f"{lead} {day.year}", (day, dt.date(day.year, 12, 31)))
                        for lead in ("back in", "during")
                    ]
        day = end + dt.timedelta(days=1)
    for year in range(lo.year, hi.year + 1):
        options += [o for o in _year_periods(year) if _inside(*o[2], lo, hi)]
    span = (hi - lo).days - 2 * MARGIN.days - 1
    if span > 0:
        for _ in range(3):
            moment = lo + MARGIN + dt.timedelta(days=rng.randrange(span))
            month = MONTH_NAMES[moment.month - 1]
            options += [
                ("day", f"as of {moment.isoformat()}", (moment, moment)),
                ("day", f"on {moment.day} {month} {moment.year}", (moment, moment)),
                ("day", f"on {month} {moment.day}, {moment.year}", (moment, moment)),
            ]
            if moment.day <= 12 and moment.day != moment.month:
                other = dt.date(moment.year, moment.day, moment.month)  # the day and month read the other way round
                first, last = min(moment, other), max(moment, other)
                if _inside(first, last, lo, hi):
                    options.append(
                        ("numeric_date", f"on {moment.day:02d}/{moment.month:02d}/{moment.year}", (first, last))
                    )
    if not options:
        raise ValueError(f"no period fits inside {lo}..{hi}")
    kinds = sorted({kind for kind, _, _ in options})
    kind = rng.choices(kinds, [PHRASE_WEIGHTS[k] for k in kinds])[0]
    return rng.choice([o for o in options if o[0] == kind])


def fill_when(template: str, phrase: str) -> str:
    """Put a date phrase where ``{when}`` is (or remove it when ``phrase`` is empty)."""
    if template.startswith("{when}"):
        rest = template[len("{when}") :].lstrip(", ")
        return f"{phrase[0].upper()}{phrase[1:]}, {rest}" if phrase else rest[0].upper() + rest[1:]
    text = template.replace("{when}", phrase)
    return re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


# -- markdown ------------------------------------------------------------------------------------


def frontmatter(fields: dict) -> str:
    """YAML frontmatter of the fields that are set; nothing at all when none is."""
    lines = []
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {json.dumps(v)}" for v in value)
        elif isinstance(value, (dt.date, int, float)):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    return "---\n" + "\n".join(lines) + "\n---\n\n" if lines else ""


def long_date(day: dt.date) -> str:
    return f"{day.day} {MONTH_NAMES[day.month - 1]} {day.year}"


def slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "-", text.lower()).strip("-")


def person_name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def _style_rng(seed: int, style: str, doc: str) -> random.Random:
    """Choices that only change how a note looks in one style (file names, folders): fixed per note."""
    return random.Random(f"{seed}:{style}:{doc}")


# -- the world -----------------------------------------------------------------------------------


@dataclass
class PolicyHistory:
    spec: PolicySpec
    versioned: bool  # one note per version (True) or one note edited in place
    starts: list[dt.date]
    values: list[str]
    announced: list[dt.date]  # when each version's note was written (version notes)
    now: dt.date

    def window(self, k: int) -> tuple[dt.date, dt.date]:
        """Version k's window [start, end); the current version's ends now."""
        return self.starts[k], self.starts[k + 1] if k + 1 < len(self.starts) else self.now

    def doc(self, k: int) -> str:
        return f"pol-{self.spec.key}-v{k + 1}" if self.versioned else f"pol-{self.spec.key}"

    def expected(self, k: int) -> Expected:
        return Expected(self.doc(k), self.spec.fact.format(v=self.values[k]))

    def all_versions(self) -> list[Expected]:
        return [self.expected(k) for k in range(len(self.starts))]

    @property
    def current(self) -> int:
        return len(self.starts) - 1


@dataclass
class StableFact:
    family: FactFamily
    entity: str
    value: str
    created: dt.date

    @property
    def doc(self) -> str:
        return f"fact-{self.family.key}-{slug(self.entity)}"

    @property
    def expected(self) -> Expected:
        return Expected(self.doc, self.family.fact.format(e=self.entity, v=self.value))


@dataclass
class IdentifiedNote:
    family: IdentifierFamily
    ident: str
    value: str
    created: dt.date

    @property
    def doc(self) -> str:
        return f"id-{self.family.key}-{slug(self.ident)}"

    @property
    def expected(self) -> Expected:
        return Expected(self.doc, self.family.fact.format(id=self.ident, v=self.value))


@dataclass
class LongNote:
    spec: LongNoteSpec
    values: list[tuple[str, str]]  # per near-miss pair
    sections: list[tuple[str, list[str]]]  # (heading, paragraphs) in reading order
    created: dt.date

    @property
    def doc(self) -> str:
        return f"long-{self.spec.key}"

    def fact(self, pair: int, side: int) -> Expected:
        return Expected(self.doc, self.spec.pairs[pair].facts[side].format(v=self.values[pair][side]))


@dataclass
class RuleNote:
    spec: RuleSpec
    entity: str
    created: dt.date

    @property
    def doc(self) -> str:
        return f"rule-{self.spec.key}-{slug(self.entity)}"

    @property
    def topic(self) -> str:
        return f"rule:{self.spec.key}:{self.entity}"


@dataclass
class Remark:
    """A recent chat message or meeting note: a rumour (an outdated value) or a contradiction probe."""

    doc: str
    kind: str  # rumour, or one of FLAGGED_PROBES / UNFLAGGED_PROBES
    topic: str  # policy key, or a rule's topic
    sentence: str  # what it says
    day: dt.date
    speaker: str
    replier: str
    chat: bool  # a chat message (True) or a meeting note
    place: str  # channel or team
    claim: Claim | None  # None: it states nothing about ``topic`` (shared words only)
    reply: str = ""

    @property
    def claimed(self) -> str | None:
        return self.claim.value if self.claim else None


@dataclass
class World:
    seed: int
    now: dt.date
    catalogue: Catalogue
    histories: list[PolicyHistory]
    facts: list[StableFact]
    identified: list[IdentifiedNote]
    long_notes: list[LongNote]
    rules: list[RuleNote]
    owners: list[int]
    rumours: list[Remark]  # in injection order
    probes: list[Remark]
    questions: list[BenchQuestion] = field(default_factory=list)


def fact_value(rng: random.Random, family: FactFamily) -> str:
    return family.value.format(
        n=rng.randint(family.low, family.high) if family.high else 0,
        choice=rng.choice(family.choices) if family.choices else "",
        street=rng.choice(STREETS),
        person=person_name(rng),
    )


def make_identifier(rng: random.Random, family: IdentifierFamily) -> str:
    """An identifier of the family's pattern; four-digit parts never read as a year (19xx, 20xx)."""
    return family.id_pattern.format(
        d4=rng.randint(3000, 9999),
        d2=f"{rng.randint(1, 99):02d}",
        word=rng.choice(family.words) if family.words else "",
    )


def policy_values(rng: random.Random, spec: PolicySpec, versions: int) -> list[str]:
    picks = rng.sample(range(len(spec.values)), versions)
    if spec.ordered:
        picks.sort()
    return [spec.values[i] for i in picks]


def _random_day(rng: random.Random, now: dt.date) -> dt.date:
    return HISTORY_START + dt.timedelta(days=rng.randrange((now - HISTORY_START).days - 60))


def _long_note(rng: random.Random, spec: LongNoteSpec, now: dt.date) -> LongNote:
    """Near-miss pairs in their own sections, padded with filler paragraphs: 10 to 30 passages."""
    values = [(rng.choice(pair.values[0]), rng.choice(pair.values[1])) for pair in spec.pairs]

    def filler(count: int) -> list[str]:
        return [" ".join(rng.sample(spec.filler, 2)) for _ in range(count)]

    sections: list[tuple[str, list[str]]] = [("Overview", [spec.intro, *filler(rng.randint(0, 2))])]
    for pair, (a, b) in zip(spec.pairs, values, strict=False):
        paragraphs = [
            f"{pair.facts[0].format(v=a)} {rng.choice(spec.filler)}",
            f"{pair.facts[1].format(v=b)} {rng.choice(spec.filler)}",
        ]
        paragraphs += filler(rng.randint(0, 3))
        rng.shuffle(paragraphs)
        sections.append((pair.heading, paragraphs))
    for number in range(rng.randint(1, 3)):
        sections.append((f"Further Notes {number + 1}", filler(rng.randint(1, 3))))
    return LongNote(spec, values, sections, _random_day(rng, now))


def _remark(
    rng: random.Random,
    catalogue: Catalogue,
    doc: str,
    kind: str,
    topic: str,
    sentence: str,
    now: dt.date,
    claim_value: str | None,
) -> Remark:
    day = now - dt.timedelta(days=rng.randint(3, 45))
    chat = rng.random() < 0.5
    place = rng.choice(CHANNELS) if chat else rng.choice(TEAMS)
    claim = Claim(doc, topic, claim_value, day, now + dt.timedelta(days=1)) if claim_value is not None else None
    return Remark(
        doc,
        kind,
        topic,
        sentence,
        day,
        person_name(rng),
        person_name(rng),
        chat,
        place,
        claim,
        rng.choice(catalogue.chat_replies),
    )


def generate(
    seed: int = 2604,
    now: dt.date = DEFAULT_NOW,
    policies: int | None = None,
    entities_per_family: int = 5,
    counts: dict[str, int] | None = None,
    catalogue: Catalogue = EVALUATION,
    identifiers_per_family: int = 6,
    long_notes: int | None = None,
    rules: int | None = None,
) -> "BenchVault":
    """Build the world and its questions (all decided by ``seed``), then render both styles."""
    rng = random.Random(seed)
    counts = {**DEFAULT_COUNTS, **(counts or {})}
    specs = rng.sample(catalogue.policies, len(catalogue.policies) if policies is None else policies)
    histories: list[PolicyHistory] = []
    for i, spec in enumerate(specs):
        versions = min(rng.choice((3, 3, 4, 4, 5)), len(spec.values))
        starts = change_dates(rng, versions, now)
        values = policy_values(rng, spec, versions)
        announced = [start - dt.timedelta(days=rng.randint(10, 40)) for start in starts]
        histories.append(PolicyHistory(spec, i % 2 == 0, starts, values, announced, now))

    facts = []
    for family in catalogue.facts:
        for entity in rng.sample(family.entities, min(entities_per_family, len(family.entities))):
            facts.append(StableFact(family, entity, fact_value(rng, family), _random_day(rng, now)))
    identified = []
    for ident_family in catalogue.identifiers:
        n = min(identifiers_per_family, len(ident_family.values))
        idents: list[str] = []
        while len(idents) < n:
            ident = make_identifier(rng, ident_family)
            if ident not in idents:
                idents.append(ident)
        identified += [
            IdentifiedNote(ident_family, i, v, _random_day(rng, now))
            for i, v in zip(idents, rng.sample(ident_family.values, n), strict=False)
        ]
    longs = [
        _long_note(rng, spec, now) for spec in catalogue.long_notes[: long_notes if long_notes is not None else None]
    ]
    rule_notes: list[RuleNote] = []
    rule_specs = catalogue.rules[: rules if rules is not None else None]
    for rule_spec in rule_specs:
        rule_notes += [
            RuleNote(rule_spec, entity, _random_day(rng, now)) for entity in rng.sample(rule_spec.entities, 3)
        ]
    owners = sorted({h.spec.owner for h in histories})

    order = rng.sample(histories, len(histories))
    rumours = []
    for number, history in enumerate(order):
        claimed = rng.choice(history.values[:-1])
        sentence = history.spec.claim.format(v=claimed)
        doc = f"rumour-{number:02d}-{history.spec.key}"
        rumour = _remark(rng, catalogue, doc, "rumour", history.spec.key, sentence, now, claimed)
        frames = catalogue.chat_frames if rumour.chat else catalogue.meeting_frames
        rumour.sentence = rng.choice(frames).format(claim=sentence)
        rumours.append(rumour)
    probes = make_probes(rng, catalogue, histories, rule_notes, now)

    world = World(seed, now, catalogue, histories, facts, identified, longs, rule_notes, owners, rumours, probes)
    world.questions = make_questions(rng, world, counts)
    return BenchVault(world, {style: render(world, style) for style in STYLES})


def make_probes(
    rng: random.Random, catalogue: Catalogue, histories: list[PolicyHistory], rules: list[RuleNote], now: dt.date
) -> list[Remark]:
    """Contradiction probes with ground truth: a third of the policies each get one policy probe kind."""
    probes: list[Remark] = []
    usable = [h for h in histories if h.spec.reworded and h.spec.unrelated]
    picked = rng.sample(usable, len(usable))
    share = max(1, len(usable) // 4) if usable else 0
    groups = {
        "reworded_value": picked[:share],
        "agreeing": picked[share : 2 * share],
        "shared_words": picked[2 * share : 3 * share],
    }
    for kind, group in groups.items():
        for history in group:
            spec, current = history.spec, history.values[-1]
            if kind == "agreeing":
                value, sentence = current, spec.reworded.format(v=current)
            else:
                others = [v for v in spec.values if v != current]
                never = [v for v in others if v not in history.values]
                value = rng.choice(never or others)
                sentence = (spec.reworded if kind == "reworded_value" else spec.unrelated).format(v=value)
            claimed = None if kind == "shared_words" else value
            probes.append(_remark(rng, catalogue, f"probe-{kind}-{spec.key}", kind, spec.key, sentence, now, claimed))
    for rule in rules:
        kind = ("negated", "denied", "agreeing_rule")[rules.index(rule) % 3]
        sentence = {"negated": rule.spec.negated, "denied": rule.spec.denied, "agreeing_rule": rule.spec.agreeing}[kind]
        claimed = "yes" if kind == "agreeing_rule" else "no"
        probes.append(
            _remark(
                rng,
                catalogue,
                f"probe-{kind}-{rule.spec.key}-{slug(rule.entity)}",
                kind,
                rule.topic,
                sentence.format(e=rule.entity),
                now,
                claimed,
            )
        )
    return probes


# -- questions -----------------------------------------------------------------------------------


def make_questions(rng: random.Random, world: World, counts: dict[str, int]) -> list[BenchQuestion]:
    questions: list[BenchQuestion] = []
    texts: set[str] = set()
    now = world.now
    today = (now.isoformat(), now.isoformat())

    def add(kind: str, text: str, answer: Expected, topic: str, template: str, **extra) -> bool:
        """Add the question unless its text was already asked; True when added."""
        if text in texts:
            return False
        texts.add(text)
        extra.setdefault("as_of", None)
        extra.setdefault("period", today)
        extra.setdefault("stale", [])
        extra.setdefault("versions", [answer])
        questions.append(
            BenchQuestion(
                f"{kind}-{len(questions) + 1:03d}", kind, text, answer=answer, topic=topic, template=template, **extra
            )
        )
        return True

    def cycle(items: list, n: int) -> list:
        order: list = []
        while items and len(order) < n:
            order += rng.sample(items, len(items))
        return order[:n]

    histories = world.histories
    unasked = {h.spec.key: rng.sample(h.spec.asks, len(h.spec.asks)) for h in histories}
    for history in cycle(histories, counts["current"]):
        if not unasked[history.spec.key]:
            continue
        template = unasked[history.spec.key].pop()
        last = history.current
        add(
            "current",
            template,
            history.expected(last),
            history.spec.key,
            template,
            stale=[history.expected(k) for k in range(last)],
            versions=history.all_versions(),
        )

    pairs = [(h, k) for h in histories for k in range(len(h.starts))]
    for kind in ("time_point", "as_of"):
        for history, k in cycle(pairs, counts[kind]):
            lo, hi = history.window(k)
            stale = [history.expected(j) for j in range(k)]
            for _ in range(20):  # another template or date when this text was already asked
                template = rng.choice(history.spec.asked)
                if kind == "time_point":
                    phrase_kind, phrase, (start, end) = when_phrases(rng, lo, hi)
                    if add(
                        kind,
                        fill_when(template, phrase),
                        history.expected(k),
                        history.spec.key,
                        template,
                        period=(start.isoformat(), end.isoformat()),
                        stale=stale,
                        versions=history.all_versions(),
                        phrase_kind=phrase_kind,
                    ):
                        break
                else:
                    day = (lo + MARGIN + dt.timedelta(days=rng.randrange((hi - lo).days - 2 * MARGIN.days))).isoformat()
                    if add(
                        kind,
                        fill_when(template, ""),
                        history.expected(k),
                        history.spec.key,
                        template,
                        as_of=day,
                        period=(day, day),
                        stale=stale,
                        versions=history.all_versions(),
                    ):
                        break

    for fact in cycle(world.facts, counts["stable"]):
        for template in rng.sample(fact.family.asks, len(fact.family.asks)):
            if add("stable", template.format(e=fact.entity), fact.expected, fact.family.key, template):
                break

    for item in cycle(world.identified, counts["lexical"]):
        for template in rng.sample(item.family.asks, len(item.family.asks)):
            if add("lexical", template.format(id=item.ident), item.expected, item.family.key, template):
                break

    long_facts = [(note, p, side) for note in world.long_notes for p in range(len(note.spec.pairs)) for side in (0, 1)]
    for note, p, side in cycle(long_facts, counts["long_note"]):
        template = note.spec.pairs[p].asks[side]
        add("long_note", template, note.fact(p, side), note.spec.key, template, near_miss=note.fact(p, 1 - side))
    return questions


# -- rendering -----------------------------------------------------------------------------------


@dataclass
class Rendering:
    """One style of the world: the replay steps, the rumours and probes as files, and which note is which."""

    style: str
    steps: list[Step]
    rumour_files: list[NoteFile]  # aligned with World.rumours
    probe_files: list[NoteFile]  # aligned with World.probes
    doc_of: dict[str, str]  # vault path -> the note's key in the world

    def final_files(self) -> dict[str, str]:
        """The vault at the end of the replay (no rumours or probes)."""
        files: dict[str, str] = {}
        for step in self.steps:
            files.update((f.path, f.text) for f in step.files)
        return files

    def path_of(self, doc: str) -> str:
        return next(path for path, key in self.doc_of.items() if key == doc)


class Renderer:
    def __init__(self, world: World, style: str):
        self.world, self.style = world, style
        self.labelled = style == "labelled"
        self.company = world.catalogue.company
        self.doc_of: dict[str, str] = {}

    def file(self, doc: str, path: str, text: str) -> NoteFile:
        known = self.doc_of.setdefault(path, doc)
        if known != doc:
            raise ValueError(f"{path} names both {known} and {doc}")
        return NoteFile(path, text)

    def rng(self, doc: str) -> random.Random:
        return _style_rng(self.world.seed, self.style, doc)

    # policies

    def policy_title(self, history: PolicyHistory, k: int) -> str:
        """Version notes: 'X v2' when labelled; in plain style the first copy is 'X', later ones as people name
        copies."""
        name = history.spec.name
        if not history.versioned:
            return name
        if self.labelled:
            return f"{name} v{k + 1}"
        if k == 0:
            return name
        patterns = self.rng(history.doc(0)).sample(PLAIN_COPY_NAMES, len(PLAIN_COPY_NAMES))
        return patterns[k - 1].format(
            name=name, k=k + 1, year=history.starts[k].year, iso=history.announced[k].isoformat()
        )

    def policy_body(self, history: PolicyHistory, k: int) -> str:
        spec, owner = history.spec, self.world.catalogue.owners[history.spec.owner]
        purpose = (
            f"This policy describes {spec.topic} at {self.company}. It applies to all employees, working "
            "students and interns in every office."
        )
        heading = spec.name
        if history.versioned:
            purpose += f" Effective {long_date(history.starts[k])}."
            if self.labelled:
                heading = f"{spec.name} (Version {k + 1})"
                if k:
                    purpose += f" This version replaces [[{self.policy_title(history, k - 1)}]]."
        fact = spec.fact.format(v=history.values[k]) + (f" ^{spec.key}" if self.labelled else "")
        contact = (
            f"Questions about this policy go to [[{owner.name}]], {owner.role}. "
            "Requests for exceptions are made in the HR portal and answered within five working days."
        )
        return f"# {heading}\n\n## Purpose\n\n{purpose}\n\n## {spec.heading}\n\n{fact}\n\n## Contact\n\n{contact}\n"

    def version_note(self, history: PolicyHistory, k: int) -> NoteFile:
        title, doc = self.policy_title(history, k), history.doc(k)
        if self.labelled:
            start, end = history.window(k)
            fields = {
                "title": title,
                "id": doc,
                "source_type": "policy",
                "date": history.announced[k],
                "valid_from": start,
                "valid_until": end if k + 1 < len(history.starts) and self.rng(doc).random() < 0.5 else None,
                "version": k + 1,
                "supersedes": f"[[{self.policy_title(history, k - 1)}]]" if k else None,
                "tags": ["policy", history.spec.key],
            }
        else:
            fields = {"date": history.announced[k]}
        return self.file(doc, f"policies/{title}.md", frontmatter(fields) + self.policy_body(history, k))

    def edited_note(self, history: PolicyHistory, k: int) -> NoteFile:
        doc = history.doc(0)
        if self.labelled:
            fields = {
                "title": history.spec.name,
                "id": doc,
                "source_type": "policy",
                "date": history.starts[0],
                "tags": ["policy", history.spec.key],
            }
        else:
            fields = {"date": history.starts[0] if self.rng(doc).random() < 0.5 else None}
        return self.file(doc, f"policies/{history.spec.name}.md", frontmatter(fields) + self.policy_body(history, k))

    # notes without versions

    def stable_note(self, fact: StableFact) -> NoteFile:
        family, e = fact.family, fact.entity
        title = family.title.format(e=e)
        dated = fact.created if self.rng(fact.doc).random() < 0.6 else None
        if self.labelled:
            fields = {
                "title": title,
                "id": fact.doc,
                "source_type": family.source_type,
                "date": dated,
                "tags": [family.folder],
            }
        else:
            fields = {"date": dated}
        body = (
            f"# {title}\n\n{family.fact.format(e=e, v=fact.value)}{' ^fact' if self.labelled else ''}\n\n"
            f"{family.context.format(e=e)}\n"
        )
        return self.file(fact.doc, f"{family.folder}/{title}.md", frontmatter(fields) + body)

    def person_note(self, index: int) -> NoteFile:
        person = self.world.catalogue.owners[index]
        doc = f"person-{slug(person.name)}"
        city = self.rng(doc).choice(self.world.catalogue.facts[0].entities)
        fields = {"title": person.name, "id": doc, "source_type": "wiki", "tags": ["people"]} if self.labelled else {}
        body = (
            f"# {person.name}\n\n{person.name} is the {person.role} at {self.company} and works from the {city} "
            "office.\n"
        )
        return self.file(doc, f"people/{person.name}.md", frontmatter(fields) + body)

    def identified_note(self, item: IdentifiedNote) -> NoteFile:
        family = item.family
        title = family.title.format(id=item.ident)
        if self.labelled:
            fields = {
                "title": title,
                "id": item.doc,
                "source_type": "technical_doc",
                "date": item.created,
                "tags": [family.key],
            }
        else:
            fields = {"date": item.created}
        body = f"# {title}\n\n{item.expected.needle} {family.context.format(id=item.ident)}\n"
        return self.file(item.doc, f"{family.folder}/{title}.md", frontmatter(fields) + body)

    def long_note(self, note: LongNote) -> NoteFile:
        spec = note.spec
        if self.labelled:
            fields = {
                "title": spec.title,
                "id": note.doc,
                "source_type": spec.source_type,
                "date": note.created,
                "tags": [spec.folder],
            }
        else:
            fields = {"date": note.created}
        parts = [f"# {spec.title}"]
        for heading, paragraphs in note.sections:
            parts.append(f"## {heading}")
            parts.extend(paragraphs)
        return self.file(note.doc, f"{spec.folder}/{spec.title}.md", frontmatter(fields) + "\n\n".join(parts) + "\n")

    def rule_note(self, rule: RuleNote) -> NoteFile:
        title = rule.spec.title.format(e=rule.entity)
        if self.labelled:
            fields = {
                "title": title,
                "id": rule.doc,
                "source_type": "wiki",
                "date": rule.created,
                "tags": ["office-rules"],
            }
        else:
            fields = {"date": rule.created}
        body = (
            f"# {title}\n\n{rule.spec.fact.format(e=rule.entity)}\n\nThe workplace team can answer questions "
            "about this rule.\n"
        )
        return self.file(rule.doc, f"offices/rules/{title}.md", frontmatter(fields) + body)

    def remark_note(self, remark: Remark, number: int) -> NoteFile:
        """A chat thread or meeting note dated ``remark.day`` whose message is ``remark.sentence``."""
        day, rng = remark.day, self.rng(remark.doc)
        if remark.chat:
            hour, minute = rng.randint(9, 16), rng.randint(10, 49)
            title = f"#{remark.place}, {day.isoformat()}"
            body = (
                f"# {remark.place}, {long_date(day)}\n\n**{remark.speaker}** {hour}:{minute}\n{remark.sentence}\n\n"
                f"**{remark.replier}** {hour}:{minute + rng.randint(1, 9)}\n{remark.reply}\n"
            )
            folder = "chat" if self.labelled else rng.choice(PLAIN_CHAT_FOLDERS)
            path = f"{folder}/{day.isoformat()} {remark.place} {number:02d}.md"
            source = "chat"
        else:
            title = f"{remark.place} sync {day.isoformat()}"
            body = (
                f"# {remark.place} sync, {long_date(day)}\n\nAttendees: {remark.speaker}, {remark.replier}.\n\n"
                f"{remark.sentence}\n"
            )
            folder = "meetings" if self.labelled else rng.choice(PLAIN_MEETING_FOLDERS)
            path = f"{folder}/{day.isoformat()} {remark.place} sync {number:02d}.md"
            source = "meeting_notes"
        if self.labelled:
            fields = {"title": title, "id": remark.doc, "source_type": source, "date": day, "tags": [source]}
        else:
            fields = {"date": day if rng.random() < 0.5 else None}
        return self.file(remark.doc, path, frontmatter(fields) + body)


def render(world: World, style: str) -> Rendering:
    r = Renderer(world, style)
    dated: list[tuple[dt.date, NoteFile]] = []  # files that exist from a day on
    edits: list[tuple[dt.date, NoteFile]] = []  # in-place edits: indexed on exactly that day
    for history in world.histories:
        for k in range(len(history.starts)):
            if history.versioned:
                dated.append((history.announced[k], r.version_note(history, k)))
            else:
                edits.append((history.starts[k], r.edited_note(history, k)))
    dated += [(fact.created, r.stable_note(fact)) for fact in world.facts]
    dated += [(item.created, r.identified_note(item)) for item in world.identified]
    dated += [(note.created, r.long_note(note)) for note in world.long_notes]
    dated += [(rule.created, r.rule_note(rule)) for rule in world.rules]
    dated += [(HISTORY_START, r.person_note(i)) for i in world.owners]
    rumours = [r.remark_note(remark, n) for n, remark in enumerate(world.rumours)]
    probes = [r.remark_note(remark, 50 + n) for n, remark in enumerate(world.probes)]
    return Rendering(style, build_steps(dated, edits, world.now), rumours, probes, r.doc_of)


def build_steps(
    dated: list[tuple[dt.date, NoteFile]], edits: list[tuple[dt.date, NoteFile]], now: dt.date
) -> list[Step]:
    """One index run per in-place edit day (plus now); other files join the first run on or after their day."""
    days = sorted({day for day, _ in edits} | {now})
    steps = {day: Step(day) for day in days}
    for day, file in edits:
        steps[day].files.append(file)
    for day, file in sorted(dated, key=lambda item: item[0]):
        target = next(d for d in days if d >= day) if day <= now else now
        steps[target].files.append(file)
    return [steps[d] for d in days if steps[d].files]


# -- the vault -----------------------------------------------------------------------------------


@dataclass
class BenchVault:
    world: World
    styles: dict[str, Rendering]

    @property
    def seed(self) -> int:
        return self.world.seed

    @property
    def now(self) -> dt.date:
        return self.world.now

    @property
    def questions(self) -> list[BenchQuestion]:
        return self.world.questions

    @property
    def policies(self) -> int:
        return len(self.world.histories)

    def rumour_count(self, rate: float) -> int:
        """How many rumours are injected at ``rate`` (share of policies); the sets are nested across rates."""
        return int(rate * self.policies + 0.5)

    def claims(self, rumours: int, probes: bool) -> list[Claim]:
        """Every value the vault's current text states, with the first ``rumours`` rumours and maybe the probes."""
        found: list[Claim] = []
        day_after = self.now + dt.timedelta(days=1)
        for h in self.world.histories:
            versions = range(len(h.starts)) if h.versioned else [h.current]
            for k in versions:
                start, end = h.window(k)
                found.append(Claim(h.doc(k), h.spec.key, h.values[k], start, end if k < h.current else day_after))
        found += [Claim(rule.doc, rule.topic, "yes", rule.created, day_after) for rule in self.world.rules]
        remarks = self.world.rumours[:rumours] + (self.world.probes if probes else [])
        found += [remark.claim for remark in remarks if remark.claim]
        return found

    def expected_contradictions(self, rumours: int, probes: bool = True) -> dict[frozenset[str], str]:
        """Pairs of notes that state different values for one thing over overlapping times, with the kind of the pair.

        The kind is the remark's (rumour, reworded_value, negated, denied) when one side is a
        remark, else ``versions`` (never the case when the truth is known: versions do not overlap).
        """
        kinds = {remark.doc: remark.kind for remark in self.world.rumours + self.world.probes}
        claims = self.claims(rumours, probes)
        pairs: dict[frozenset[str], str] = {}
        for i, a in enumerate(claims):
            for b in claims[i + 1 :]:
                if a.doc != b.doc and a.topic == b.topic and a.value != b.value and a.start < b.end and b.start < a.end:
                    pair_kinds = sorted(filter(None, (kinds.get(a.doc), kinds.get(b.doc))), key=lambda k: k != "rumour")
                    pairs[frozenset((a.doc, b.doc))] = pair_kinds[0] if pair_kinds else "versions"
        return pairs

    def unflagged_kind(self, pair: frozenset[str]) -> str:
        """Why a flagged pair that is not a contradiction was wrong: what its two notes are."""
        kinds = {remark.doc: remark.kind for remark in self.world.rumours + self.world.probes}
        topics = {remark.doc: remark.topic for remark in self.world.rumours + self.world.probes}
        for h in self.world.histories:
            for k in range(len(h.starts)):
                topics[h.doc(k)] = h.spec.key
        topics.update((rule.doc, rule.topic) for rule in self.world.rules)
        a, b = sorted(pair)
        remark_kinds = {kinds[d] for d in (a, b) if d in kinds}
        if remark_kinds & set(UNFLAGGED_PROBES):
            return sorted(remark_kinds & set(UNFLAGGED_PROBES))[0]
        if a.startswith("pol-") and b.startswith("pol-") and topics.get(a) == topics.get(b):
            return "version_copies"
        if topics.get(a) is not None and topics.get(a) == topics.get(b):
            return "superseded_version"
        return "other"


# -- edits ---------------------------------------------------------------------------------------

WORD = re.compile(r"(?<![\w\[^#*@-])([a-z]{4,})(?![\w\]])")
LINK = re.compile(r"\[\[[^\]]*\]\]")
REPLACEMENTS = ("usually", "clearly", "simply", "always", "normally", "formally", "really", "quickly")


def single_word_edit(text: str, rng: random.Random) -> str:
    """The note with one word of its body (not frontmatter, headings, links or anchors) replaced."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0] == "---":
        start = lines.index("---", 1) + 1
    candidates = []
    for number in range(start, len(lines)):
        line = lines[number]
        if not line.strip() or line.lstrip().startswith(("#", "|", "**")):
            continue
        links = [m.span() for m in LINK.finditer(line)]
        for match in WORD.finditer(line):
            if not any(a <= match.start() < b for a, b in links):
                candidates.append((number, match.span()))
    if not candidates:
        raise ValueError("no word to edit")
    number, (a, b) = rng.choice(candidates)
    word = lines[number][a:b]
    replacement = rng.choice([r for r in REPLACEMENTS if r != word])
    lines[number] = lines[number][:a] + replacement + lines[number][b:]
    return "\n".join(lines)
