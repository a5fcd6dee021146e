"""A vault of notes that share sentence templates, with a few real conflicts planted among them.

Real vaults are full of notes written from one template: weekly status reports of many projects,
weekly notes of a few people, generated reference pages of settings. Each such note states the same
sentence frames with other subjects and other numbers, and none of those differences is a
contradiction: another project, another setting, another week. Planted among them are conflicts a
reader would flag (``Planted``): a second note about the same subject and the same week that states
another value in the same slot, or negates what the report says.

Run ``python -m smartvec_cli.bench.templates DIR [--notes N] [--seed S]`` to write the vault and
``planted.json`` (the planted pairs, as vault paths) next to it; then ``index`` and ``consolidate``
it and compare the ``contradicts`` edges with the planted pairs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

PROJECTS = (
    "Atlas Borealis Cobalt Dynamo Ember Falcon Granite Harbor Ion Juniper Kestrel Lumen Magnet Nimbus Onyx "
    "Pioneer Quartz Raven Sierra Tundra Umbra Vortex Willow Xenon Yarrow Zephyr Aurora Beacon Cedar Delta"
).split()
PEOPLE = ("Mara", "Jonas", "Ines", "Tobias", "Keiko", "Ravi")
AREAS = ("client", "server", "worker", "gateway", "scheduler")
SETTING_WORDS = ("fetch", "cache", "upload", "proxy", "retry", "audit", "build", "index", "session", "sync")
SETTING_KINDS = (
    "timeout",
    "interval",
    "ttl",
    "window",
    "backoff",
    "grace",
    "delay",
    "linger",
    "drain",
    "poll",
    "refresh",
    "jitter",
)
RISKS = ("the database migration", "the vendor contract", "the security review", "the API freeze", "the load tests")


@dataclass(frozen=True)
class Planted:
    """A conflict a reader would flag: ``planted`` states another value (or the negation) of what ``original``
    states."""

    original: str
    planted: str
    claim: str


def _monday(week: int, year: int = 2024) -> dt.date:
    return dt.date.fromisocalendar(year, week, 1)


def _note(title: str, day: dt.date, body: str) -> str:
    return f"---\ndate: {day.isoformat()}\n---\n# {title}\n\n{body.strip()}\n"


def status_report(project: str, week: int, rng: random.Random) -> tuple[str, dict]:
    """A weekly status report: its subject is in some sentences and only in the title of others."""
    values = {
        "spent": rng.randrange(40, 400) * 100,
        "build": rng.randrange(4, 40),
        "uptime": round(rng.uniform(97.0, 99.99), 2),
        "storage": rng.randrange(20, 900),
        "release": rng.randrange(2, 60),
        "blocked": rng.random() < 0.3,
        "risk": rng.choice(RISKS),
    }
    blocked = (
        f"Deploys of {project} are blocked this week by {values['risk']}."
        if values["blocked"]
        else f"Deploys of {project} are not blocked this week."
    )
    body = f"""
## Summary

The {project} team spent EUR {values["spent"]:,} this week. Build time for {project} is {values["build"]} minutes.
Uptime of the {project} service was {values["uptime"]}% over the week.

## Numbers

- Budget spent: EUR {values["spent"]:,}
- Storage used: {values["storage"]} GB
- Next release in {values["release"]} days

## Risks

{blocked}
"""
    return _note(f"{project} status, week {week}", _monday(week), body), values


def weekly_note(person: str, week: int, rng: random.Random) -> str:
    body = f"""
I ran {rng.randrange(5, 60)} km this week and slept {rng.randrange(5, 9)} hours a night on average.
Groceries came to EUR {rng.randrange(40, 180)}. Screen time was {rng.randrange(10, 40)} hours.

## Reading

Read for {rng.randrange(1, 12)} hours, mostly in the evening.
"""
    return _note(f"Week {week} ({person})", _monday(week), body)


def reference_page(key: str, rng: random.Random) -> tuple[str, int]:
    """A generated reference page: the subject is the title and a code span, the frame the same on every page."""
    seconds = rng.choice((1, 2, 5, 10, 15, 30, 45, 60, 90, 120, 300, 600))
    body = (
        f"\n* Default: {seconds} seconds\n* Type: Number\n"
        f"* Maximum payload: {rng.choice((1, 5, 10, 25, 50, 100))} MB\n\n"
        f"The `{key}` setting waits at most {seconds} seconds before giving up. Changes take effect after "
        f"{rng.randrange(1, 10)} minutes.\n"
    )
    return _note(key, dt.date(2024, 1, 2), body), seconds


def write_template_vault(root: Path, notes: int = 2000, seed: int = 7) -> list[Planted]:
    """Writes about ``notes`` notes (60% status reports, 15% weekly notes, 25% reference pages, and the planted
    conflicts among them) under ``root``, and returns the planted conflicts."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    planted_count = max(6, notes // 150)
    reports = int(notes * 0.6) - planted_count
    weeks = max(1, reports // len(PROJECTS))
    written: dict[str, str] = {}
    report_values: dict[str, tuple[str, int, dict]] = {}
    for project in PROJECTS:
        for week in range(1, weeks + 1):
            path = f"status/{project.lower()}/2024-W{week:02d}.md"
            written[path], values = status_report(project, week, rng)
            report_values[path] = (project, week, values)
    people_weeks = max(1, int(notes * 0.15) // len(PEOPLE))
    for person in PEOPLE:
        for week in range(1, people_weeks + 1):
            written[f"weekly/{person.lower()}/2024-W{week:02d}.md"] = weekly_note(person, week, rng)
    keys = [f"{area}.{word}-{kind}" for area in AREAS for word in SETTING_WORDS for kind in SETTING_KINDS]
    pages = notes - len(written) - planted_count
    defaults: dict[str, tuple[str, int]] = {}
    for key in keys[:pages]:
        path = f"reference/{key}.md"
        written[path], seconds = reference_page(key, rng)
        defaults[path] = (key, seconds)
    planted: list[Planted] = []
    for i, path in enumerate(rng.sample(sorted(report_values), planted_count - planted_count // 3)):
        project, week, values = report_values[path]
        check = f"finance/{project.lower()} check 2024-W{week:02d}.md"
        if i % 2 == 0:
            other = values["spent"] + rng.choice((-1, 1)) * rng.randrange(5, 30) * 100
            claim = f"The {project} team spent EUR {other:,} this week."
            body = (
                f"Checked against the invoices of week {week}.\n\n{claim}\n\nInvoices are filed in the finance drive."
            )
        else:
            claim = (
                f"Deploys of {project} are blocked this week."
                if not values["blocked"]
                else f"Deploys of {project} are not blocked this week."
            )
            body = f"Notes from the release review of week {week}.\n\n{claim}\n\nThe next review is on Monday."
        written[check] = _note(f"{project} finance check, week {week}", _monday(week), body)
        planted.append(Planted(path, check, claim))
    for path in rng.sample(sorted(defaults), planted_count // 3):
        key, seconds = defaults[path]
        other = next(s for s in (30, 60, 5, 10) if s != seconds)
        claim = f"The `{key}` setting waits at most {other} seconds before giving up."
        guide = f"guides/tuning {key}.md"
        written[guide] = _note(
            f"Tuning {key}",
            dt.date(2024, 1, 2),
            f"How to tune it for slow networks.\n\n{claim}\n\nRaise it only when needed.",
        )
        planted.append(Planted(path, guide, claim))
    for path, text in written.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return planted


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    planted = write_template_vault(args.vault, args.notes, args.seed)
    (args.vault.parent / "planted.json").write_text(
        json.dumps([asdict(p) for p in planted], indent=1), encoding="utf-8"
    )
    print(f"{sum(1 for _ in args.vault.rglob('*.md'))} notes, {len(planted)} planted conflicts in {args.vault}")


if __name__ == "__main__":
    main()
