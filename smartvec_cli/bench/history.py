"""``bench history``: as-of accuracy and version chains on a real git history of markdown files.

The history is one nobody wrote for the benchmark (by default smartvec's own repository: its README and
sample vault). It is imported with ``index --from-git`` into a scratch index; the questions are then made
from git itself, independently of the indexer: between two versions of a file, a paragraph that left and a
paragraph that arrived sharing at least ``SAME_PARAGRAPH`` of their words (Dice) are one paragraph edited in
place. Each is asked about while its old text was current, with the words the two versions share as the
question (so the wording does not give the version away and only the time can), in ``smart`` and ``cosine``
modes; the top hit is right when it holds the old text, and *another version* when it holds the new one.
The chain of an edited paragraph is *followed* when the index's version holding the old text was replaced
by the one holding the new text. The best overlap of every paragraph that left a file is also tallied,
edited or not: where that distribution has its valley is where ``CHAIN_SIMILARITY`` belongs.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..clock import parse_when, to_iso
from ..core.api import Vault
from ..core.git_import import Git, later_of
from ..core.indexer import CHAIN_SIMILARITY, overlap, word_counts
from ..errors import SmartvecError, UsageError

SAME_PARAGRAPH = 0.5
MIN_WORDS = 8  # shorter blocks (labels, one-line list items) are not paragraphs worth a question
QUESTION_WORDS = 20
BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


@dataclass
class EditedParagraph:
    path: str
    old: str
    new: str
    since: str  # when the old text appeared (the first commit's date for text it already had)
    until: str  # the (replayed) date of the commit that changed it
    commit: str


def paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks of prose, frontmatter, headings and code fences left out, whitespace squeezed."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    prose, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            prose.append("")
        elif not fenced:
            prose.append(line)
    text = "\n".join(prose)
    blocks = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.strip().splitlines() if not line.lstrip().startswith("#")]
        squeezed = " ".join(" ".join(lines).split())
        if len(squeezed.split()) >= MIN_WORDS:
            blocks.append(squeezed)
    return blocks


def squeeze(text: str) -> str:
    return " ".join(text.split())


def shared_words(old: str, new: str) -> str:
    """The words of ``old`` that ``new`` has too, in order, each once: what both versions are about."""
    new_words = set(re.findall(r"\w+", new.lower()))
    seen, kept = set(), []
    for word in re.findall(r"\w+", old):
        if word.lower() in new_words and word.lower() not in seen:
            seen.add(word.lower())
            kept.append(word)
    return " ".join(kept[:QUESTION_WORDS])


def midpoint(start: str, end: str) -> str:
    a, b = parse_when(start), parse_when(end)
    return to_iso(a + (b - a) / 2)


def edited_paragraphs(repo: Path) -> tuple[list[EditedParagraph], Counter, int]:
    """Git's own account: every paragraph edited in place, the histogram of the best overlap of every paragraph
    that left a file, and how many left. Dates follow the import's (never earlier than the previous commit's)."""
    git = Git(repo)
    head = git.head()
    if head is None:
        raise UsageError(f"{repo} has no commits")
    found: list[EditedParagraph] = []
    histogram: Counter = Counter()
    left = 0
    since: dict[str, dict[str, str]] = {}  # path -> paragraph -> when it appeared
    floor = None
    for commit in git.commits(None, head):
        when = later_of(commit.date, floor)
        floor = when
        changes = git.changes(commit)
        contents = git.blobs(sorted({b for c in changes for b in (c.blob, c.old_blob) if b}))
        for change in changes:
            before = paragraphs(contents[change.old_blob].decode("utf-8", "replace")) if change.old_blob else []
            after = paragraphs(contents[change.blob].decode("utf-8", "replace")) if change.blob else []
            known = since.pop(change.old, {}) if change.old else {}
            if change.new:
                since[change.new] = {p: known.get(p, when) for p in after}
            if not change.old or not change.new:
                continue
            gone = [p for p in before if p not in set(after)]
            arrived = [p for p in after if p not in set(before)]
            arrived_words = [word_counts(p) for p in arrived]
            for old in gone:
                left += 1
                words = word_counts(old)
                best, best_new = 0.0, None
                for new, counts in zip(arrived, arrived_words):
                    dice = overlap(words, counts)[0]
                    if dice > best:
                        best, best_new = dice, new
                histogram[next(i for i in range(len(BINS) - 1) if BINS[i] <= best < BINS[i + 1])] += 1
                if best_new is not None and best >= SAME_PARAGRAPH:
                    found.append(EditedParagraph(change.new, old, best_new, known.get(old, when), when, commit.sha))
    return found, histogram, left


def chain_followed(history: dict, edit: EditedParagraph) -> bool | None:
    """Whether the index's version holding the old text (closed by this edit) was replaced by one holding the
    new text; None when no such version is found (the passage changed for another reason too)."""
    texts = {f"{p['chunk_id']}@{v['version']}": squeeze(v["text"]) for p in history["passages"] for v in p["versions"]}
    for passage in history["passages"]:
        for version in passage["versions"]:
            if edit.old in squeeze(version["text"]) and version["valid_until"] == edit.until:
                return bool(version["replaced_by"]) and edit.new in texts.get(version["replaced_by"], "")
    return None


def run_history(repo: Path, folder: Path, log: Callable[[str], None] = lambda text: None) -> dict:
    """Import ``repo``'s history into an index in ``folder``, then ask about every paragraph edited in place."""
    started = time.perf_counter()
    repo = repo.absolute()
    log(f"importing the git history of {repo}")
    with Vault.open(repo, folder / "index") as vault:
        imported = vault.index(from_git=True)
        edits, histogram, left = edited_paragraphs(repo)
        log(f"{imported['commits_replayed']} commits replayed; {len(edits)} paragraphs edited in place; asking about each")
        right = {"smart": 0, "cosine": 0}
        other_version = {"smart": 0, "cosine": 0}
        asked = 0
        followed = checked = 0
        histories: dict[str, dict | None] = {}
        for edit in edits:
            question = shared_words(edit.old, edit.new)
            if edit.path not in histories:
                try:
                    histories[edit.path] = vault.history(edit.path)
                except SmartvecError:
                    histories[edit.path] = None  # deleted since: no lineage to look at
            lineage = histories[edit.path]
            stored = lineage is not None and any(edit.old in squeeze(v["text"]) for p in lineage["passages"] for v in p["versions"])
            if len(question.split()) < 5 or not stored:  # no passage holds the old text whole: the chunker split it otherwise
                continue
            asked += 1
            moment = midpoint(edit.since, edit.until)
            for mode in right:
                hits = vault.query(question, as_of=moment, top_k=1, mode=mode, track=False)
                text = squeeze(hits[0]["text"]) if hits else ""
                right[mode] += edit.old in text
                other_version[mode] += edit.new in text and edit.old not in text
            result = chain_followed(lineage, edit)
            if result is not None:
                checked += 1
                followed += result
    share = lambda n, d: round(n / d, 4) if d else None  # noqa: E731
    return {
        "repo": str(repo),
        "commits_replayed": imported["commits_replayed"],
        "first_date": imported["first_date"],
        "last_date": imported["last_date"],
        "import_seconds": imported["seconds"],
        "paragraphs_left": left,
        "edited_in_place": len(edits),
        "questions": asked,
        "accuracy": {mode: share(n, asked) for mode, n in right.items()},
        "other_version": {mode: share(n, asked) for mode, n in other_version.items()},
        "chains_checked": checked,
        "chains_followed": share(followed, checked),
        "best_overlap_histogram": {f"{BINS[i]:.1f}-{min(BINS[i + 1], 1.0):.1f}": histogram.get(i, 0) for i in range(len(BINS) - 1)},
        "same_paragraph": SAME_PARAGRAPH,
        "chain_similarity": CHAIN_SIMILARITY,
        "seconds": round(time.perf_counter() - started, 1),
    }


def history_markdown(report: dict) -> str:
    accuracy, other = report["accuracy"], report["other_version"]
    pct = lambda v: "-" if v is None else f"{v:.0%}"  # noqa: E731
    lines = [
        f"History of {report['repo']}: {report['commits_replayed']} commits ({(report['first_date'] or '')[:10]} to "
        f"{(report['last_date'] or '')[:10]}), imported in {report['import_seconds']:.0f} s; {report['edited_in_place']} of "
        f"{report['paragraphs_left']} paragraphs that left a file were edited in place; {report['questions']} questions.",
        "",
        "| | smart | cosine |",
        "| --- | --- | --- |",
        f"| as-of answer is the text of that time | {pct(accuracy['smart'])} | {pct(accuracy['cosine'])} |",
        f"| answer is another version of it | {pct(other['smart'])} | {pct(other['cosine'])} |",
        "",
        f"Chains followed: {pct(report['chains_followed'])} of {report['chains_checked']} edited paragraphs "
        f"(link threshold {report['chain_similarity']}).",
        "",
        "Best word overlap (Dice) of each paragraph that left a file with one that arrived:",
        "",
        "| overlap | " + " | ".join(report["best_overlap_histogram"]) + " |",
        "| --- |" + " --- |" * len(report["best_overlap_histogram"]),
        "| paragraphs | " + " | ".join(str(v) for v in report["best_overlap_histogram"].values()) + " |",
        "",
    ]
    return "\n".join(lines)
