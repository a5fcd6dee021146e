"""A seeded synthetic vault of versioned policies, stable facts and injected contradictions.

The vault is built in the spirit of the SmartVector paper's benchmark (about 250
passages, about 140 questions) and is honest by construction: every question names the
passage (``chunk_id``) and version that answers it, known from how the vault was
written, never from what smartvec returns.

- Policies change several times over the years. Half of them are written as one note
  per version with declared validity in frontmatter (``valid_from``, ``version``,
  ``supersedes``, sometimes ``valid_until``); the other half are one note edited in
  place, replayed through time with the clock so each edit is seen on the day it took
  effect.
- Stable facts (an office's address, a team's lead) live in notes without versions.
- Contradictions are low-authority notes (chat, meeting notes), recent, that restate an
  outdated value of a policy as if it were current. They are ordered, so the set at a
  higher rate contains the set at a lower one and a sweep can add them incrementally.
- Questions paraphrase (they never copy a note's sentence). Time-point questions name a
  period (a day, month, quarter or year) that lies wholly inside one version's window,
  at least two weeks from either end, so no reading of the period can fall on a
  boundary; ``as_of`` questions carry the date as a field instead of in the words.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import random
import re
from dataclasses import asdict, dataclass, field

from .catalogue import (
    CHANNELS, CHAT_FRAMES, CHAT_REPLIES, COMPANY, DATABASES, FACT_FAMILIES, FIRST_NAMES, LAST_NAMES, MEETING_FRAMES,
    OWNERS, POLICIES, STREETS, WIFI_WORDS, FactFamily, PolicySpec,
)

QUESTION_TYPES = ("current", "time_point", "as_of", "stable")
DEFAULT_COUNTS = {"current": 42, "time_point": 42, "as_of": 28, "stable": 28}
DEFAULT_NOW = dt.date(2026, 6, 1)
HISTORY_START = dt.date(2019, 1, 1)
MIN_GAP_MONTHS = 8
MARGIN = dt.timedelta(days=14)
MONTH_NAMES = tuple(calendar.month_name)[1:]


@dataclass(frozen=True)
class Expected:
    """One passage version: what a question's top hit is compared with."""

    chunk_id: str
    version: int

    def label(self) -> str:
        return f"{self.chunk_id}@{self.version}"


@dataclass
class BenchQuestion:
    id: str
    type: str  # one of QUESTION_TYPES
    text: str
    as_of: str | None  # ISO date for the batch field (type as_of only)
    period: tuple[str, str]  # the span of time the question is about (inclusive ISO dates)
    answer: Expected
    stale: list[Expected]  # versions already superseded during ``period``
    topic: str  # policy or fact key, for analysis
    versions: list[Expected] = field(default_factory=list)  # every version of the answering passage

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
        return data


@dataclass
class NoteFile:
    path: str
    text: str


@dataclass
class Step:
    """Files as they are on ``when``: written, then indexed with the clock set to that day."""

    when: dt.date
    files: list[NoteFile] = field(default_factory=list)


@dataclass
class Contradiction:
    topic: str
    note_id: str
    claimed: str
    file: NoteFile


@dataclass
class BenchVault:
    seed: int
    now: dt.date
    steps: list[Step]
    contradictions: list[Contradiction]  # in injection order
    questions: list[BenchQuestion]
    policies: int

    def contradictions_at(self, rate: float) -> list[Contradiction]:
        """The contradictions injected at ``rate`` (share of policies); nested across rates."""
        return self.contradictions[: int(rate * self.policies + 0.5)]

    def final_files(self) -> dict[str, str]:
        files: dict[str, str] = {}
        for step in self.steps:
            files.update((f.path, f.text) for f in step.files)
        return files


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
        if all(b - a >= MIN_GAP_MONTHS for a, b in zip(picks, picks[1:])):
            return [month_start(p) for p in picks]


def _inside(start: dt.date, end: dt.date, lo: dt.date, hi: dt.date) -> bool:
    """Is [start, end] (inclusive days) inside the window [lo, hi) with MARGIN on both sides?"""
    return start >= lo + MARGIN and end <= hi - dt.timedelta(days=1) - MARGIN


def when_phrases(rng: random.Random, lo: dt.date, hi: dt.date) -> tuple[str, tuple[dt.date, dt.date]]:
    """A date phrase for a moment inside [lo, hi) and the period it names; never near a boundary."""
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
            if day.month == 1 and _inside(day, dt.date(day.year, 12, 31), lo, hi):
                options += [("year", f"{lead} {day.year}", (day, dt.date(day.year, 12, 31))) for lead in ("back in", "during")]
        day = end + dt.timedelta(days=1)
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
    if not options:
        raise ValueError(f"no period fits inside {lo}..{hi}")
    weights = {"month": 0.4, "day": 0.35, "quarter": 0.15, "year": 0.1}
    kinds = sorted({kind for kind, _, _ in options})
    kind = rng.choices(kinds, [weights[k] for k in kinds])[0]
    _, phrase, period = rng.choice([o for o in options if o[0] == kind])
    return phrase, period


def fill_when(template: str, phrase: str) -> str:
    """Put a date phrase where ``{when}`` is (or remove it when ``phrase`` is empty)."""
    if template.startswith("{when}"):
        rest = template[len("{when}") :].lstrip(", ")
        return f"{phrase[0].upper()}{phrase[1:]}, {rest}" if phrase else rest[0].upper() + rest[1:]
    text = template.replace("{when}", phrase)
    return re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


# -- markdown ------------------------------------------------------------------------------------


def frontmatter(fields: dict) -> str:
    lines = ["---"]
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
    lines.append("---")
    return "\n".join(lines) + "\n"


def long_date(day: dt.date) -> str:
    return f"{day.day} {MONTH_NAMES[day.month - 1]} {day.year}"


# -- policies ------------------------------------------------------------------------------------


@dataclass
class PolicyHistory:
    spec: PolicySpec
    versioned: bool  # one note per version (True) or one note edited in place
    starts: list[dt.date]
    values: list[str]
    now: dt.date

    def window(self, k: int) -> tuple[dt.date, dt.date]:
        """Version k's window [start, end); the current version's ends now."""
        return self.starts[k], self.starts[k + 1] if k + 1 < len(self.starts) else self.now

    def expected(self, k: int) -> Expected:
        if self.versioned:
            return Expected(f"{self.note_id(k)}#{self.spec.key}", 1)
        return Expected(f"{self.note_id(k)}#{self.spec.key}", k + 1)

    def all_versions(self) -> list[Expected]:
        return [self.expected(k) for k in range(len(self.starts))]

    def note_id(self, k: int) -> str:
        return f"pol-{self.spec.key}-v{k + 1}" if self.versioned else f"pol-{self.spec.key}"

    def title(self, k: int) -> str:
        return f"{self.spec.name} v{k + 1}" if self.versioned else self.spec.name


def policy_values(rng: random.Random, spec: PolicySpec, versions: int) -> list[str]:
    picks = rng.sample(range(len(spec.values)), versions)
    if spec.ordered:
        picks.sort()
    return [spec.values[i] for i in picks]


def policy_body(history: PolicyHistory, k: int) -> str:
    spec, owner = history.spec, OWNERS[history.spec.owner]
    purpose = f"This policy describes {spec.topic} at {COMPANY}. It applies to all employees, working students and interns in every office."
    heading = spec.name
    if history.versioned:
        heading = f"{spec.name} (Version {k + 1})"
        purpose += f" Effective {long_date(history.starts[k])}."
        if k:
            purpose += f" This version replaces [[{history.title(k - 1)}]]."
    fact = spec.fact.format(v=history.values[k])
    contact = (
        f"Questions about this policy go to [[{owner.name}]], {owner.role}. "
        "Requests for exceptions are made in the HR portal and answered within five working days."
    )
    return (
        f"# {heading}\n\n## Purpose\n\n{purpose}\n\n## {spec.heading}\n\n{fact} ^{spec.key}\n\n"
        f"## Contact\n\n{contact}\n"
    )


def version_note(rng: random.Random, history: PolicyHistory, k: int) -> tuple[dt.date, NoteFile]:
    start, end = history.window(k)
    announced = start - dt.timedelta(days=rng.randint(10, 40))
    fields = {
        "title": history.title(k),
        "id": history.note_id(k),
        "source_type": "policy",
        "date": announced,
        "valid_from": start,
        "valid_until": end if k + 1 < len(history.starts) and rng.random() < 0.5 else None,
        "version": k + 1,
        "supersedes": f"[[{history.title(k - 1)}]]" if k else None,
        "tags": ["policy", history.spec.key],
    }
    path = f"policies/{history.title(k)}.md"
    return announced, NoteFile(path, frontmatter(fields) + "\n" + policy_body(history, k))


def edited_note(history: PolicyHistory, k: int) -> NoteFile:
    fields = {
        "title": history.title(0),
        "id": history.note_id(0),
        "source_type": "policy",
        "date": history.starts[0],
        "tags": ["policy", history.spec.key],
    }
    return NoteFile(f"policies/{history.title(0)}.md", frontmatter(fields) + "\n" + policy_body(history, k))


# -- stable facts --------------------------------------------------------------------------------


def person_name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def fact_value(rng: random.Random, family: FactFamily) -> str:
    if family.key == "office-address":
        return f"{rng.randint(2, 98)} {rng.choice(STREETS)}"
    if family.key == "team-lead":
        return person_name(rng)
    if family.key == "service-db":
        return rng.choice(DATABASES)
    if family.key == "room-capacity":
        return str(rng.choice((4, 6, 8, 10, 12, 14, 16, 20, 24)))
    if family.key == "support-line":
        return str(rng.randint(300, 899))
    if family.key == "guest-wifi":
        return f"{rng.choice(WIFI_WORDS)}-Guest-{rng.randint(10, 99)}"
    raise ValueError(family.key)


@dataclass
class StableFact:
    family: FactFamily
    entity: str
    value: str
    note_id: str
    created: dt.date

    @property
    def expected(self) -> Expected:
        return Expected(f"{self.note_id}#fact", 1)


def slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "-", text.lower()).strip("-")


def stable_note(rng: random.Random, fact: StableFact) -> NoteFile:
    family, e = fact.family, fact.entity
    title = family.title.format(e=e)
    fields = {
        "title": title,
        "id": fact.note_id,
        "source_type": family.source_type,
        "date": fact.created if rng.random() < 0.6 else None,
        "tags": [family.folder],
    }
    body = f"# {title}\n\n{family.fact.format(e=e, v=fact.value)} ^fact\n\n{family.context.format(e=e)}\n"
    return NoteFile(f"{family.folder}/{title}.md", frontmatter(fields) + "\n" + body)


def person_note(rng: random.Random, index: int) -> NoteFile:
    person = OWNERS[index]
    city = rng.choice(FACT_FAMILIES[0].entities)
    fields = {"title": person.name, "id": f"person-{slug(person.name)}", "source_type": "wiki", "tags": ["people"]}
    body = f"# {person.name}\n\n{person.name} is the {person.role} at {COMPANY} and works from the {city} office.\n"
    return NoteFile(f"people/{person.name}.md", frontmatter(fields) + "\n" + body)


# -- contradictions ------------------------------------------------------------------------------


def contradiction_note(rng: random.Random, number: int, history: PolicyHistory) -> Contradiction:
    """A recent chat message or meeting note restating an outdated value of a policy as current."""
    now = history.now
    day = now - dt.timedelta(days=rng.randint(3, 45))
    claimed = rng.choice(history.values[:-1])
    claim = history.spec.claim.format(v=claimed)
    speaker, replier = person_name(rng), person_name(rng)
    note_id = f"rumour-{number:02d}-{history.spec.key}"
    if number % 2 == 0:
        channel = rng.choice(CHANNELS)
        title = f"#{channel}, {day.isoformat()}"
        fields = {"title": title, "id": note_id, "source_type": "chat", "date": day, "tags": ["chat"]}
        hour, minute = rng.randint(9, 16), rng.randint(10, 49)
        body = (
            f"# {channel}, {long_date(day)}\n\n**{speaker}** {hour}:{minute}\n"
            f"{rng.choice(CHAT_FRAMES).format(claim=claim)}\n\n**{replier}** {hour}:{minute + rng.randint(1, 9)}\n"
            f"{rng.choice(CHAT_REPLIES)}\n"
        )
        path = f"chat/{day.isoformat()} {channel} {number:02d}.md"
    else:
        team = rng.choice(FACT_FAMILIES[1].entities)
        title = f"{team} sync {day.isoformat()}"
        fields = {"title": title, "id": note_id, "source_type": "meeting_notes", "date": day, "tags": ["meeting"]}
        body = (
            f"# {team} sync, {long_date(day)}\n\nAttendees: {speaker}, {replier}.\n\n"
            f"{rng.choice(MEETING_FRAMES).format(claim=claim)}\n"
        )
        path = f"meetings/{day.isoformat()} {team} sync {number:02d}.md"
    return Contradiction(history.spec.key, note_id, claimed, NoteFile(path, frontmatter(fields) + "\n" + body))


# -- the vault -----------------------------------------------------------------------------------


def generate(
    seed: int = 2604,
    now: dt.date = DEFAULT_NOW,
    policies: int = len(POLICIES),
    entities_per_family: int = 5,
    counts: dict[str, int] | None = None,
) -> BenchVault:
    """Build the vault's history and its questions, all decided by ``seed``."""
    rng = random.Random(seed)
    counts = {**DEFAULT_COUNTS, **(counts or {})}
    specs = rng.sample(POLICIES, policies)
    histories: list[PolicyHistory] = []
    for i, spec in enumerate(specs):
        versions = min(rng.choice((3, 3, 4, 4, 5)), len(spec.values))
        histories.append(PolicyHistory(spec, i % 2 == 0, change_dates(rng, versions, now), policy_values(rng, spec, versions), now))

    dated: list[tuple[dt.date, NoteFile]] = []  # files that exist from a day on
    edits: list[tuple[dt.date, NoteFile]] = []  # in-place edits: indexed on exactly that day
    for history in histories:
        for k in range(len(history.starts)):
            if history.versioned:
                dated.append(version_note(rng, history, k))
            else:
                edits.append((history.starts[k], edited_note(history, k)))
    facts: list[StableFact] = []
    history_days = (now - HISTORY_START).days - 60
    for family in FACT_FAMILIES:
        for entity in rng.sample(family.entities, min(entities_per_family, len(family.entities))):
            created = HISTORY_START + dt.timedelta(days=rng.randrange(history_days))
            facts.append(StableFact(family, entity, fact_value(rng, family), f"fact-{family.key}-{slug(entity)}", created))
    dated += [(fact.created, stable_note(rng, fact)) for fact in facts]
    owners = sorted({h.spec.owner for h in histories})
    dated += [(HISTORY_START, person_note(rng, i)) for i in owners]

    steps = build_steps(dated, edits, now)
    order = rng.sample(histories, len(histories))
    contradictions = [contradiction_note(rng, n, h) for n, h in enumerate(order)]
    questions = make_questions(rng, histories, facts, counts)
    return BenchVault(seed, now, steps, contradictions, questions, len(histories))


def build_steps(dated: list[tuple[dt.date, NoteFile]], edits: list[tuple[dt.date, NoteFile]], now: dt.date) -> list[Step]:
    """One index run per in-place edit day (plus now); other files join the first run on or after their day."""
    days = sorted({day for day, _ in edits} | {now})
    steps = {day: Step(day) for day in days}
    for day, file in edits:
        steps[day].files.append(file)
    for day, file in sorted(dated, key=lambda item: item[0]):
        target = next(d for d in days if d >= day) if day <= now else now
        steps[target].files.append(file)
    return [steps[d] for d in days if steps[d].files]


def make_questions(rng: random.Random, histories: list[PolicyHistory], facts: list[StableFact], counts: dict[str, int]) -> list[BenchQuestion]:
    questions: list[BenchQuestion] = []
    now = histories[0].now
    today = (now.isoformat(), now.isoformat())

    def add(kind: str, text: str, as_of: str | None, period, answer: Expected, stale: list[Expected], topic: str, versions=None) -> None:
        number = f"{kind}-{len(questions) + 1:03d}"
        questions.append(BenchQuestion(number, kind, text, as_of, period, answer, stale, topic, versions or [answer]))

    def cycle(items: list, n: int) -> list:
        order: list = []
        while len(order) < n:
            order += rng.sample(items, len(items))
        return order[:n]

    asked: dict[str, int] = {}
    for history in cycle(histories, counts["current"]):
        template = history.spec.asks[asked.get(history.spec.key, rng.randrange(3)) % len(history.spec.asks)]
        asked[history.spec.key] = asked.get(history.spec.key, 0) + 1
        last = len(history.starts) - 1
        add("current", template, None, today, history.expected(last), [history.expected(k) for k in range(last)], history.spec.key, history.all_versions())

    pairs = [(h, k) for h in histories for k in range(len(h.starts))]
    for kind in ("time_point", "as_of"):
        for history, k in cycle(pairs, counts[kind]):
            lo, hi = history.window(k)
            template = rng.choice(history.spec.asked)
            stale = [history.expected(j) for j in range(k)]
            if kind == "time_point":
                phrase, (start, end) = when_phrases(rng, lo, hi)
                add(kind, fill_when(template, phrase), None, (start.isoformat(), end.isoformat()), history.expected(k), stale, history.spec.key, history.all_versions())
            else:
                moment = lo + MARGIN + dt.timedelta(days=rng.randrange((hi - lo).days - 2 * MARGIN.days))
                day = moment.isoformat()
                add(kind, fill_when(template, ""), day, (day, day), history.expected(k), stale, history.spec.key, history.all_versions())

    for fact in cycle(facts, counts["stable"]):
        template = rng.choice(fact.family.asks)
        add("stable", template.format(e=fact.entity), None, today, fact.expected, [], fact.family.key)
    return questions
