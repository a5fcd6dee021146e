"""A vault of long versioned documents: the reference manuals of a few tools, each kept in several versions.

Real vaults hold copies of one long document, one per release of what it describes: the configuration
reference of a command-line tool as of v1, v2, v3, each a few hundred passages long, each version the
previous one with a few defaults changed, a few settings added or removed and a sentence reworded.
Every passage of a version has near-copies in every other version of its document and, through the
shared sentence frames ("Default: 30 seconds."), in the manuals of the other tools: the shape that makes
a consolidation compare the same passages over and over.

The versions are named "<Tool> reference v<N>" (``memory.lineage`` reads them as one lineage) and dated
one release apart. Written deterministically from a seed, with nothing read from anywhere else.

Run ``python -m smartvec_cli.bench.versioned DIR [--documents 34] [--settings 90] [--seed S]`` to write
the vault; then ``index`` and ``consolidate`` it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path

TOOLS = ("Fetchkit", "Loomctl", "Parcel Gate", "Quarry", "Relay", "Stashd", "Tallyman")
AREAS = ("client", "server", "cache", "proxy", "worker", "audit", "upload", "sync", "index", "build", "shell")
SUBJECTS = ("fetch", "retry", "lock", "queue", "token", "log", "socket", "batch", "mirror", "script", "prune")
KINDS = (
    ("timeout", "seconds", (5, 10, 15, 30, 60, 90, 120)),
    ("interval", "minutes", (1, 2, 5, 10, 15, 30)),
    ("limit", "MB", (16, 32, 64, 128, 256, 512)),
    ("retries", "", (0, 1, 2, 3, 5, 8)),
    ("ttl", "hours", (1, 6, 12, 24, 48, 72)),
    ("workers", "", (1, 2, 4, 8, 16)),
    ("enabled", "flag", (0, 1)),
)
PURPOSES = (
    "when the registry does not answer",
    "for every request sent to a mirror",
    "while a lock file is held by another process",
    "before the queue is flushed to disk",
    "for each batch written to the store",
    "when a script runs as part of an install",
    "for connections kept open between requests",
    "before stale entries are pruned",
)
ADVICE = (
    "Raise it on slow networks, lower it in continuous integration.",
    "Most projects never need to change it.",
    "Set it in the user configuration file rather than on the command line.",
    "The value is read once, when the command starts.",
    "A project configuration file overrides the user's own.",
    "Changing it does not invalidate what is already cached.",
)
REWORDINGS = (
    ("Most projects never need to change it.", "Few projects ever change it."),
    ("The value is read once, when the command starts.", "The value is read when the command starts."),
    ("Set it in the user configuration file rather than on the command line.", "Prefer the user configuration file."),
)
FIRST_RELEASE = dt.date(2022, 3, 1)
RELEASE_DAYS = 120


@dataclass(frozen=True)
class Setting:
    key: str
    kind: str
    unit: str
    value: int
    purpose: str
    advice: str
    since: int  # the version that added it


def _value_text(setting: Setting) -> str:
    if setting.unit == "flag":
        return "true" if setting.value else "false"
    return f"{setting.value} {setting.unit}".strip()


def _section(tool: str, setting: Setting) -> str:
    """One setting: a heading, what it does, its default and type, and advice (three or four passages)."""
    if setting.unit == "flag":
        does = f"Turns the {setting.key.replace('-', ' ')} behaviour of {tool} on or off {setting.purpose}."
        kind = "Boolean"
    elif setting.unit:
        does = f"How long or how much {tool} allows for `{setting.key}` {setting.purpose}, in {setting.unit}."
        kind = "Number"
    else:
        does = f"How many {setting.kind} {tool} uses for `{setting.key}` {setting.purpose}."
        kind = "Number"
    lines = [
        f"### `{setting.key}`",
        "",
        does,
        "",
        f"- Default: {_value_text(setting)}",
        f"- Type: {kind}",
        f"- Added in: v{setting.since}",
        "",
        f"The `{setting.key}` setting applies to every command that touches the {setting.key.split('-')[0]} "
        f"area. {setting.advice}",
        "",
    ]
    if setting.unit not in ("", "flag"):
        lines += [
            f"Example: `{tool.lower().replace(' ', '-')} config set {setting.key} {setting.value * 2}` doubles it "
            "for the current user only.",
            "",
        ]
    return "\n".join(lines)


def _first_settings(rng: random.Random, count: int) -> list[Setting]:
    keys = [f"{area}-{subject}-{kind[0]}" for area in AREAS for subject in SUBJECTS for kind in KINDS]
    chosen = rng.sample(keys, count)
    settings = []
    for key in chosen:
        kind = next(k for k in KINDS if key.endswith(k[0]))
        settings.append(
            Setting(key, kind[0], kind[1], rng.choice(kind[2]), rng.choice(PURPOSES), rng.choice(ADVICE), 1)
        )
    return settings


def _next_version(rng: random.Random, settings: list[Setting], version: int, spare: list[str]) -> list[Setting]:
    """The previous version with a few small edits: defaults changed, settings added and removed, advice reworded."""
    settings = list(settings)
    for i in rng.sample(range(len(settings)), max(1, len(settings) // 40)):
        kind = next(k for k in KINDS if k[0] == settings[i].kind)
        others = [v for v in kind[2] if v != settings[i].value]
        settings[i] = replace(settings[i], value=rng.choice(others))
    for i in rng.sample(range(len(settings)), max(1, len(settings) // 50)):
        for old, new in REWORDINGS:
            if settings[i].advice == old:
                settings[i] = replace(settings[i], advice=new)
    if len(settings) > 20:
        del settings[rng.randrange(len(settings))]
    for _ in range(rng.randint(1, 3)):
        if spare:
            key = spare.pop()
            kind = next(k for k in KINDS if key.endswith(k[0]))
            at = rng.randrange(len(settings) + 1)
            settings.insert(
                at,
                Setting(key, kind[0], kind[1], rng.choice(kind[2]), rng.choice(PURPOSES), rng.choice(ADVICE), version),
            )
    return settings


def _document(tool: str, version: int, day: dt.date, settings: list[Setting]) -> str:
    intro = (
        f"This is the configuration reference of {tool} v{version}, released on {day.isoformat()}. "
        f"Every setting can be given in the project configuration file, in the user configuration file, "
        f"or on the command line as `--<key>`."
    )
    groups: dict[str, list[Setting]] = {}
    for setting in settings:
        groups.setdefault(setting.key.split("-")[0], []).append(setting)
    parts = [f"---\ndate: {day.isoformat()}\n---\n# {tool} reference v{version}\n", intro, ""]
    for area, members in groups.items():
        parts.append(f"## {area.capitalize()} settings\n")
        parts.append(f"The settings of the {area} area of {tool}, in the order the configuration file lists them.\n")
        parts += [_section(tool, s) for s in members]
    return "\n".join(parts)


def write_versioned_vault(root: Path, documents: int = 34, settings: int = 90, seed: int = 7) -> list[str]:
    """Writes ``documents`` notes: the tools of ``TOOLS`` in turn, each in as many versions as fall to it
    (34 documents of 7 tools: 5 versions each, 4 of the last one), each version ``settings`` settings long
    give or take the few a release adds or removes. Returns the written paths, relative to ``root``."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    tools = TOOLS[: max(1, min(len(TOOLS), documents))]
    counts = [documents // len(tools) + (1 if i < documents % len(tools) else 0) for i in range(len(tools))]
    written = []
    for tool, versions in zip(tools, counts, strict=True):
        tool_rng = random.Random(f"{seed}:{tool}")
        current = _first_settings(tool_rng, settings)
        used = {s.key for s in current}
        spare = [
            f"{area}-{subject}-{kind[0]}"
            for area in AREAS
            for subject in SUBJECTS
            for kind in KINDS
            if f"{area}-{subject}-{kind[0]}" not in used
        ]
        tool_rng.shuffle(spare)
        for version in range(1, versions + 1):
            if version > 1:
                current = _next_version(tool_rng, current, version, spare)
            day = FIRST_RELEASE + dt.timedelta(days=RELEASE_DAYS * (version - 1) + rng.randrange(0, 20))
            path = f"manuals/{tool.lower().replace(' ', '-')}/{tool} reference v{version}.md"
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_document(tool, version, day, current), encoding="utf-8")
            written.append(path)
    return written


SECTION = re.compile(r"^### `([^`]+)`\n(?:.*\n)*?- Default: (.+)$", re.MULTILINE)
DATE = re.compile(r"^date: (\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def versioned_questions(root: Path) -> list[dict]:
    """Questions with known answers over a vault ``write_versioned_vault`` wrote, read back from its documents:
    for every setting whose default changed between versions of a tool, its default now (from the last version
    that lists it) and as of the middle of each version's window (from that version), in ``bench questions``'
    format. Another version of the document answering first is a stale answer."""
    questions = []
    for folder in sorted(p for p in (root / "manuals").iterdir() if p.is_dir()):
        versions = []
        for path in sorted(folder.glob("*.md"), key=lambda p: int(p.stem.rsplit(" v", 1)[1])):
            text = path.read_text(encoding="utf-8")
            found = DATE.search(text)
            assert found is not None, f"{path} has no date"
            day = dt.date.fromisoformat(found.group(1))
            versions.append((str(path.relative_to(root)), day, dict(SECTION.findall(text))))
        tool = versions[0][0].split("/")[-1].rsplit(" reference v", 1)[0]
        keys = sorted({k for _, _, defaults in versions for k in defaults})
        for key in keys:
            values = [defaults.get(key) for _, _, defaults in versions]
            if len({v for v in values if v is not None}) < 2:
                continue
            latest, _, defaults = next(v for v in reversed(versions) if key in v[2])
            base = {"kind": "versioned", "expect": [latest], "contains": f"Default: {defaults[key]}"}
            questions.append({"id": f"{tool}-{key}-now", "query": f"What is the default of {key} in {tool}?", **base})
            for number, (written, day, defaults) in enumerate(versions):
                if key not in defaults or number + 1 >= len(versions):
                    continue
                middle = day + (versions[number + 1][1] - day) / 2
                questions.append(
                    {
                        "id": f"{tool}-{key}-v{number + 1}",
                        "kind": "versioned-as-of",
                        "query": f"What was the default of {key} in {tool} in {middle:%B %Y}?",
                        "expect": [written],
                        "contains": f"Default: {defaults[key]}",
                    }
                )
    return questions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--documents", type=int, default=34)
    parser.add_argument("--settings", type=int, default=90)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    paths = write_versioned_vault(args.vault, args.documents, args.settings, args.seed)
    print(f"{len(paths)} versioned documents in {args.vault}")


if __name__ == "__main__":
    main()
