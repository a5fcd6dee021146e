"""Template vaults written differently from ``bench.templates``, each with real conflicts planted among them.

Each family writes many notes from one template, one note per subject, the subjects differing only in a name
or an id, on the same day: none of those notes contradicts another, whatever numbers they give. Planted among
them are notes of another kind (a review, an e-mail, a call's notes) about one subject that state another value
for one of its slots, or deny what its page says: conflicts a reader would flag (``Planted``).

- ``projects``: status pages of numbered projects ("Project P017 has a budget of EUR 40,000 ... the team of
  project P017 works 38 hours a week"), the subject an id in every sentence.
- ``people``: a staff directory, one page per person, the subject the page's title and most sentences
  naming nobody ("She has 25 days of annual leave").
- ``customers``: account pages of customers, the subject a company name and an account id in some sentences
  and only in the title in others. Held out: the subject rules were written against the first two families
  and ``bench.templates`` only, and this one was run to measure them, never to fit them.
- ``sprints``: sprint reviews of many teams, one note per team and sprint, the sprint numbers shared between
  teams ("Sprint 14" of team Falcon is not sprint 14 of team Kestrel), the board id ("FAL-S14") in one passage,
  the team and sprint in some sentences and only in the title in others. Written held out; its misses (counts
  of things with no unit, "41 points") were then read, and the value reader now reads counts.
- ``dailies``: one person's daily notes, one per day, titled by the day ("2023-01-06") as Obsidian names them,
  each giving steps, hours in meetings and a run; the planted weekly reviews name the day they give another
  number for ("On Friday 6 January 2023 I walked 3100 steps"). Held out: written after the count reader.

``python -m smartvec_cli.bench.template_families DIR --family people [--notes N] [--seed S]`` writes one
family's vault and ``planted.json`` beside it; with ``--score INDEX_DIR`` (after ``index`` and ``consolidate``)
it prints the flagged note pairs as a share of all note pairs, the planted conflicts found and the precision.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from .templates import Planted

DAY = "2024-03-04"
FIRST_NAMES = (
    "Ana Bruno Carla Dmitri Elena Farid Greta Hugo Ingrid Jamal Kasia Lars Mina Nikolai Olga Pablo Quentin Rosa "
    "Sven Tamar Ulrich Vera Wiktor Yusuf Zofia"
).split()
LAST_NAMES = (
    "Schmidt Okafor Lindqvist Moreau Tanaka Novak Ferreira Kowalski Haddad Brennan Castillo Dubois Eriksen Fischer "
    "Gallo Horvat Ivanova Jensen Kaur Larsen Mendes Nakamura Oliveira Petrov Quinn Rossi Silva Tran Varga Weber"
).split()
ROLES = ("Data Engineer", "Designer", "Account Manager", "Support Lead", "Recruiter", "Backend Engineer")
OFFICES = ("Lisbon", "Krakow", "Hamburg", "Nairobi", "Montreal", "Osaka")
COMPANY_PARTS = (
    "Acme Borealis Cobalt Dynamo Ember Falcon Granite Harbor Ionic Juniper Kestrel Lumen Meridian Nimbus Onyx "
    "Polaris Quarry Riverside Summit Tidal"
).split()
COMPANY_KINDS = (
    "Logistics",
    "Foods",
    "Health",
    "Energy",
    "Robotics",
    "Textiles",
    "Media",
    "Capital",
    "Labs",
    "Freight",
)
PLANS = ("enterprise", "business", "team")
TEAMS = (
    "Falcon Kestrel Heron Lynx Otter Puma Raven Marten Ibis Bison Condor Dingo Egret Gecko Jackal Koala Lemur "
    "Mantis Narwhal Ocelot"
).split()
GOALS = (
    "the new onboarding flow",
    "faster invoice export",
    "the audit log",
    "search filters",
    "the mobile login",
    "offline mode",
)


@dataclass(frozen=True)
class Family:
    """A template family: its writer and whether the subject rules were fitted on it."""

    write: Callable[[Path, int, int], list[Planted]]
    held_out: bool = False


def _note(title: str, body: str, kind: str | None = None) -> str:
    kind_line = f"source_type: {kind}\n" if kind else ""
    return f"---\ndate: {DAY}\n{kind_line}---\n# {title}\n\n{body.strip()}\n"


def _write(root: Path, written: dict[str, str]) -> None:
    for path, text in written.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _plant_count(notes: int) -> int:
    return max(6, notes // 40)


def write_projects(root: Path, notes: int = 500, seed: int = 11) -> list[Planted]:
    """Status pages of projects P001, P002, ...: every sentence names its project's id."""
    rng = random.Random(seed)
    planted_count = _plant_count(notes)
    written: dict[str, str] = {}
    values: dict[str, tuple[str, dict]] = {}
    for i in range(1, notes - planted_count + 1):
        project = f"P{i:03d}"
        v = {
            "budget": rng.randrange(20, 200) * 1000,
            "spent": rng.randrange(10, 900) * 100,
            "hours": rng.choice((32, 35, 38, 40)),
            "milestone": rng.randrange(3, 60),
            "coverage": rng.randrange(40, 95),
            "frozen": rng.random() < 0.3,
        }
        frozen = "are frozen" if v["frozen"] else "are not frozen"
        body = f"""
## Project {project}

Project {project} has a budget of EUR {v["budget"]:,}. Project {project} spent EUR {v["spent"]:,} so far.
The team of project {project} works {v["hours"]} hours a week.

## Plan

The next milestone of project {project} is in {v["milestone"]} days. Test coverage of project {project} is \
{v["coverage"]}%. Deploys of project {project} {frozen} this month.
"""
        path = f"status/Status {i:03d}.md"
        written[path] = _note(f"Status {i:03d}", body)
        values[path] = (project, v)
    planted = []
    for n, path in enumerate(rng.sample(sorted(values), planted_count)):
        project, v = values[path]
        slot = n % 3
        if slot == 0:
            claim = f"Project {project} has a budget of EUR {v['budget'] + rng.choice((-1, 1)) * 5000:,}."
        elif slot == 1:
            claim = f"The team of project {project} works {60 - v['hours']} hours a week."
        else:
            claim = f"Deploys of project {project} {'are not frozen' if v['frozen'] else 'are frozen'} this month."
        review = f"reviews/Review of {project}.md"
        written[review] = _note(
            f"Review of {project}",
            f"Checked with the project office on Monday.\n\n{claim}\n\nThe next review is in four weeks.",
            "meeting_notes",
        )
        planted.append(Planted(path, review, claim))
    _write(root, written)
    return planted


def write_people(root: Path, notes: int = 500, seed: int = 13) -> list[Planted]:
    """A staff directory: each page is about its title's person, most sentences name nobody."""
    rng = random.Random(seed)
    planted_count = _plant_count(notes)
    people = [f"{first} {last}" for last in LAST_NAMES for first in FIRST_NAMES]
    rng.shuffle(people)
    written: dict[str, str] = {}
    values: dict[str, tuple[str, dict]] = {}
    for person in people[: notes - planted_count]:
        v = {
            "hours": rng.choice((20, 24, 30, 32, 36, 40)),
            "leave": rng.choice((22, 25, 26, 28, 30)),
            "notice": rng.choice((1, 2, 3, 6)),
            "memory": rng.choice((8, 16, 32, 64)),
            "phone": rng.choice((20, 25, 30, 40, 50)),
            "remote": rng.random() < 0.5,
        }
        first = person.split()[0]
        remote = "may work remotely" if v["remote"] else "may not work remotely"
        body = f"""
{rng.choice(ROLES)} in the {rng.choice(OFFICES)} office.

## Employment

{first} works {v["hours"]} hours a week. She has {v["leave"]} days of annual leave. Her notice period is \
{v["notice"]} months. She {remote} on Fridays.

## Equipment

Her laptop has {v["memory"]} GB of memory. The phone allowance is EUR {v["phone"]} per month.
"""
        path = f"people/{person}.md"
        written[path] = _note(person, body)
        values[path] = (person, v)
    planted = []
    for n, path in enumerate(rng.sample(sorted(values), planted_count)):
        person, v = values[path]
        slot = n % 3
        if slot == 0:
            other = next(d for d in (30, 25, 28) if d != v["leave"])
            claim = f"{person} has {other} days of annual leave."
        elif slot == 1:
            other = next(g for g in (32, 16, 64) if g != v["memory"])
            claim = f"IT confirmed that the laptop of {person} has {other} GB of memory."
        else:
            claim = f"{person} {'may not work remotely' if v['remote'] else 'may work remotely'} on Fridays."
        mail = f"mail/About {person}.md"
        written[mail] = _note(f"Re: {person}", f"Hi all,\n\n{claim}\n\nBest, HR", "email")
        planted.append(Planted(path, mail, claim))
    _write(root, written)
    return planted


def write_customers(root: Path, notes: int = 500, seed: int = 17) -> list[Planted]:
    """Account pages of customers, named by company and account id in some sentences and by the title alone in
    others."""
    rng = random.Random(seed)
    planted_count = _plant_count(notes)
    companies = [f"{part} {kind}" for kind in COMPANY_KINDS for part in COMPANY_PARTS]
    rng.shuffle(companies)
    written: dict[str, str] = {}
    values: dict[str, tuple[str, str, dict]] = {}
    for i, company in enumerate(companies[: notes - planted_count]):
        account = f"C-{1000 + i * 7}"
        v = {
            "contract": rng.randrange(20, 400) * 1000,
            "response": rng.choice((1, 2, 4, 8, 24)),
            "retention": rng.choice((30, 60, 90, 180, 365)),
            "storage": rng.randrange(20, 2000),
            "sso": rng.random() < 0.5,
        }
        sso = "is enabled" if v["sso"] else "is not enabled"
        body = f"""
Account {account}, on the {rng.choice(PLANS)} plan since {rng.randrange(2015, 2024)}.

## Contract

The contract value is EUR {v["contract"]:,} per year. Support response time is {v["response"]} hours. Data is \
retained for {v["retention"]} days.

## Usage

{company} stores {v["storage"]} GB on the platform. Single sign-on {sso} for {company}.
"""
        path = f"customers/{company}.md"
        written[path] = _note(f"Customer: {company}", body)
        values[path] = (company, account, v)
    planted = []
    for n, path in enumerate(rng.sample(sorted(values), planted_count)):
        company, account, v = values[path]
        slot = n % 3
        if slot == 0:
            other = next(h for h in (8, 4, 24) if h != v["response"])
            claim = f"The support response time for {company} is {other} hours."
        elif slot == 1:
            claim = f"Account {account} stores {v['storage'] + rng.randrange(100, 400)} GB on the platform."
        else:
            claim = f"Single sign-on {'is not enabled' if v['sso'] else 'is enabled'} for {company}."
        call = f"calls/Call with {company}.md"
        written[call] = _note(
            f"Call with {company}",
            f"Quarterly call with their IT lead.\n\n{claim}\n\nFollow up next quarter.",
            "meeting_notes",
        )
        planted.append(Planted(path, call, claim))
    _write(root, written)
    return planted


def write_sprints(root: Path, notes: int = 500, seed: int = 19) -> list[Planted]:
    """Sprint reviews of many teams, one note per team and sprint: the sprint numbers repeat across teams, the
    board id stands in one passage, and most metric sentences name neither the team nor the sprint."""
    rng = random.Random(seed)
    planted_count = _plant_count(notes)
    per_team = max(1, -(-(notes - planted_count) // len(TEAMS)))
    subjects = [(team, sprint) for sprint in range(1, per_team + 1) for team in TEAMS][: notes - planted_count]
    written: dict[str, str] = {}
    values: dict[str, tuple[str, int, str, dict]] = {}
    for team, sprint in subjects:
        board = f"{team[:3].upper()}-S{sprint}"
        v = {
            "velocity": rng.randrange(18, 60),
            "carry": rng.randrange(0, 9),
            "capacity": rng.randrange(30, 90),
            "bugs": rng.randrange(2, 30),
            "shipped": rng.random() < 0.6,
        }
        shipped = "shipped on time" if v["shipped"] else "did not ship on time"
        body = f"""
Board {board}. Goal: {rng.choice(GOALS)}.

## Metrics

Velocity was {v["velocity"]} points. {v["carry"]} tickets carried over to the next sprint. The team had \
{v["capacity"]} person-days of capacity.

## Quality

Sprint {sprint} of team {team} closed {v["bugs"]} bugs. The release of sprint {sprint} {shipped}.
"""
        path = f"sprints/{team}/Sprint {sprint}.md"
        written[path] = _note(f"{team} Sprint {sprint}", body)
        values[path] = (team, sprint, board, v)
    planted = []
    for n, path in enumerate(rng.sample(sorted(values), planted_count)):
        team, sprint, board, v = values[path]
        slot = n % 3
        if slot == 0:
            claim = f"The velocity of team {team} in sprint {sprint} was {v['velocity'] + rng.randrange(5, 15)} points."
        elif slot == 1:
            claim = f"Board {board} had {v['carry'] + rng.randrange(3, 8)} tickets carried over to the next sprint."
        else:
            claim = (
                f"The release of sprint {sprint} of team {team} "
                f"{'did not ship on time' if v['shipped'] else 'shipped on time'}."
            )
        retro = f"retros/Retro {team} {sprint}.md"
        written[retro] = _note(
            f"Retro: {team}, sprint {sprint}",
            f"Notes from the retrospective with the product owner.\n\n{claim}\n\nAction items follow in the tracker.",
            "meeting_notes",
        )
        planted.append(Planted(path, retro, claim))
    _write(root, written)
    return planted


FOCUS = ("the billing migration", "interview loop", "quarterly planning", "the search rewrite", "on-call handover")


def write_dailies(root: Path, notes: int = 500, seed: int = 23) -> list[Planted]:
    """One person's daily notes from one template, one per day, each day its own subject: the date is the title
    and no sentence names it. Planted: weekly reviews that give another number for one day, naming that day."""
    rng = random.Random(seed)
    planted_count = _plant_count(notes)
    first = dt.date(2023, 1, 2)
    days = [first + dt.timedelta(days=n) for n in range(notes - planted_count)]
    written: dict[str, str] = {}
    values: dict[str, tuple[dt.date, dict]] = {}
    for day in days:
        v = {"steps": rng.randrange(2000, 14000), "meetings": rng.randrange(2, 6), "run": rng.randrange(3, 12)}
        body = f"""
## Morning

Woke at 6:{rng.randrange(10, 59)}. Focus for the day: {rng.choice(FOCUS)}.

## Work

Spent {v["meetings"]} hours in meetings. Closed {rng.randrange(1, 9)} tickets before lunch.

## Health

Walked {v["steps"]} steps. Ran {v["run"]} km after work.
"""
        path = f"daily/{day.isoformat()}.md"
        written[path] = f"---\ndate: {day.isoformat()}\n---\n# {day.isoformat()}\n\n{body.strip()}\n"
        values[path] = (day, v)
    planted = []
    for n, path in enumerate(rng.sample(sorted(values), planted_count)):
        day, v = values[path]
        slot = n % 3
        when = day.strftime("%A %-d %B %Y")
        if slot == 0:
            claim = f"On {when} I walked {v['steps'] + rng.randrange(1500, 4000)} steps."
        elif slot == 1:
            claim = f"On {when} I spent {v['meetings'] + rng.randrange(2, 4)} hours in meetings."
        else:
            claim = f"On {when} I ran {v['run'] + rng.randrange(3, 8)} km after work."
        review_day = day + dt.timedelta(days=6 - day.weekday())
        review = f"reviews/Review {review_day.isoformat()} {n}.md"
        written[review] = (
            f"---\ndate: {review_day.isoformat()}\n---\n# Weekly review, week of {review_day.isoformat()}\n\n"
            f"Looking back at the week.\n\n{claim}\n\nNext week: more focus time.\n"
        )
        planted.append(Planted(path, review, claim))
    _write(root, written)
    return planted


FAMILIES = {
    "projects": Family(write_projects),
    "people": Family(write_people),
    "customers": Family(write_customers, held_out=True),
    "sprints": Family(write_sprints),
    "dailies": Family(write_dailies, held_out=True),
}


@dataclass(frozen=True)
class Score:
    """What consolidation flagged on a family's vault, against what was planted."""

    notes: int
    flagged_pairs: int
    planted: int
    found: int
    correct: int

    @property
    def flagged_share(self) -> float:
        """Flagged note pairs out of all pairs of notes."""
        pairs = self.notes * (self.notes - 1) / 2
        return self.flagged_pairs / pairs if pairs else 0.0

    @property
    def recall(self) -> float:
        return self.found / self.planted if self.planted else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.flagged_pairs if self.flagged_pairs else 1.0


def score(notes: int, planted: list[Planted], flagged: set[frozenset[str]]) -> Score:
    """``flagged``: the note pairs (vault paths) joined by a ``contradicts`` edge."""
    expected = {frozenset((p.original, p.planted)) for p in planted}
    return Score(notes, len(flagged), len(expected), len(expected & flagged), len(expected & flagged))


def flagged_pairs(index_dir: Path) -> set[frozenset[str]]:
    """The note pairs (vault paths) of the ``contradicts`` edges in an index folder's SQLite store."""
    import sqlite3

    from ..store.layout import DB_FILE

    with sqlite3.connect(index_dir / DB_FILE) as db:
        rows = db.execute(
            "SELECT s.path, d.path FROM edges e JOIN notes s ON s.id = e.src_note JOIN notes d ON d.id = e.dst_note "
            "WHERE e.type = 'contradicts'"
        ).fetchall()
    return {frozenset(row) for row in rows if row[0] != row[1]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--family", choices=sorted(FAMILIES), required=True)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--score", type=Path, default=None, metavar="INDEX_DIR")
    args = parser.parse_args(argv)
    planted_file = args.vault.parent / f"planted-{args.family}.json"
    if args.score:
        planted = [Planted(**p) for p in json.loads(planted_file.read_text(encoding="utf-8"))]
        notes = sum(1 for _ in args.vault.rglob("*.md"))
        found = score(notes, planted, flagged_pairs(args.score))
        print(
            f"{args.family}: {notes} notes, {found.flagged_pairs} flagged pairs ({found.flagged_share:.4%} of note "
            f"pairs), planted found {found.found}/{found.planted}, precision {found.correct}/{found.flagged_pairs}"
        )
        return
    family = FAMILIES[args.family]
    planted = family.write(args.vault, args.notes, *([args.seed] if args.seed is not None else []))
    planted_file.write_text(json.dumps([asdict(p) for p in planted], indent=1), encoding="utf-8")
    print(f"{sum(1 for _ in args.vault.rglob('*.md'))} notes, {len(planted)} planted conflicts in {args.vault}")


if __name__ == "__main__":
    main()
