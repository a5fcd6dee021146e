"""``bench history``: time travel on a real git history of markdown files, past and now.

The history is one nobody wrote for the benchmark (by default smartvec's own repository: its README and
sample vault). It is imported with ``index --from-git`` into a temporary index, all of it or a sample of its
snapshots (``max_commits`` evenly spaced commits of the first-parent line, each made one commit of a temporary
repository with its tree and date, so a long history fits in minutes). The questions are made from git
itself, independently of the indexer, by comparing the paragraphs of consecutive snapshots:

- *edited*: a paragraph that left a file that is still there, while one arrived in it sharing at least
  ``SAME_PARAGRAPH`` of their words (Dice): one paragraph edited in place;
- *moved*: a file that is gone while its paragraphs arrived in one other file (renamed or moved, edited or not);
- *split*: a file whose paragraphs arrived in two or more files, or in a file that is new, leaving it;
- *deleted*: a file that is gone with its paragraphs nowhere else.

Each such paragraph is asked about at the middle of the time its old text was current, with the words its two
versions share as the question (so the wording does not give the version away and only the time can), and
each paragraph of the last snapshot is asked about now. A paragraph whose words (addresses and numbers left
out) are in two places at once, as templates and badge lines are, is never asked about: no top hit could tell
which note was meant; nor is one longer than a passage. The top hit is *right* when it
holds the paragraph's words, *stale* when it holds its newer version (or, now, text gone from the last
snapshot), *not yet valid* when git shows its text arrived after the question's time; the rest is *other*.
The chain of an edited paragraph is *followed* when the index's version holding the old text was replaced by
the one holding the new text. The best overlap of every paragraph that left a file is also tallied: where
that distribution has its valley is where ``CHAIN_SIMILARITY`` belongs.
"""

from __future__ import annotations

import bisect
import os
import random
import re
import subprocess
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from ..clock import parse_when, to_iso
from ..core.api import Vault
from ..core.git_import import Commit, Git, later_of
from ..core.results import NoteHistory
from ..errors import SmartvecError, UsageError
from ..vault.align import CHAIN_SIMILARITY, overlap, word_counts

SAME_PARAGRAPH = 0.5
MIN_WORDS = 8  # shorter blocks (labels, one-line list items) are not paragraphs worth a question
MAX_CHARS = 800  # longer ones the chunker cuts in pieces, and no one passage holds them whole
QUESTION_WORDS = 20
MIN_QUESTION_WORDS = 5
HOLDS = 0.8
"""Share of a paragraph's words a passage must hold to be that paragraph (the chunker drops some markup)."""
DISTINCT = 50
"""A word in more new paragraphs than this does not point at where an edited one went."""
PAST_KINDS = ("edited", "moved", "split", "deleted")
OUTCOMES = ("right", "stale", "not_yet_valid", "other")
MODES = ("smart", "cosine")
BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


@dataclass
class Snapshot:
    sha: str
    date: str  # as the import replays it: never earlier than the previous snapshot's
    notes: dict[str, str]  # vault path -> blob id


@dataclass
class PastParagraph:
    """A paragraph of ``path`` current from ``since`` until ``until``, when ``kind`` happened to it; ``new`` is
    its newer text (in ``to`` for a moved or split note), None when it went nowhere."""

    kind: str
    path: str
    old: str
    new: str | None
    since: str
    until: str
    commit: str
    to: str | None = None


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


def prose(text: str) -> str:
    """The text without its addresses and HTML tags, which nobody types into a question."""
    return re.sub(r"<[^>]*>|\(?https?://[^\s)]*\)?", " ", text)


@lru_cache(maxsize=1 << 18)
def gist(paragraph: str) -> str:
    """The words of a paragraph's prose, numbers left out: two paragraphs with one gist (a badge line, a
    template's sentence with another address) are one question that no passage can answer better than another."""
    return " ".join(re.findall(r"[^\W\d_]+", prose(paragraph).lower()))


def shared_words(old: str, new: str) -> str:
    """The words of ``old``'s prose that ``new`` has too, in order, each once: what both versions are about.
    Numbers are left out, since a query reads a year in its words as the moment it asks about."""
    new_words = set(re.findall(r"\w+", new.lower()))
    seen, kept = set(), []
    for word in re.findall(r"\w+", prose(old)):
        if word.lower() in new_words and word.lower() not in seen and not word.isdigit():
            seen.add(word.lower())
            kept.append(word)
    return " ".join(kept[:QUESTION_WORDS])


def holds(passage: Counter, paragraph: Counter) -> float:
    """The share of the paragraph's words the passage holds."""
    total = sum(paragraph.values())
    return sum((passage & paragraph).values()) / total if total else 0.0


def midpoint(start: str, end: str) -> str:
    a, b = parse_when(start), parse_when(end)
    return to_iso(a + (b - a) / 2)


def evenly_spaced(count: int, most: int | None) -> list[int]:
    """``most`` indices of ``range(count)`` spread evenly, first and last included (all when ``most`` is None)."""
    if most is None or most >= count:
        return list(range(count))
    if most <= 1:
        return [count - 1]
    return sorted({round(i * (count - 1) / (most - 1)) for i in range(most)})


def _git(repo: Path, *args: str, env: dict | None = None, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        input=data,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", **(env or {})},
    )
    if done.returncode != 0:
        raise SmartvecError(f"git {args[0]} failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8", "surrogateescape")


def snapshots(repo: Path, most: int | None) -> tuple[Git, list[Snapshot]]:
    """The commits of the first-parent line the benchmark replays (``most`` evenly spaced ones, or all), with
    the notes each holds and the date the import gives it."""
    git = Git(repo)
    head = git.head()
    if head is None:
        raise UsageError(f"{repo} has no commits")
    commits = git.commits(None, head)
    dates: list[str] = []
    floor: str | None = None
    for commit in commits:
        floor = later_of(commit.date, floor)
        assert floor is not None, "every commit has a date"
        dates.append(floor)
    chosen = []
    for i in evenly_spaced(len(commits), most):
        listing = _git(repo, "ls-tree", "-r", "-z", "--full-tree", commits[i].sha)
        notes = {}
        for entry in filter(None, listing.split("\x00")):
            info, path = entry.split("\t", 1)
            mode, kind, blob = info.split()
            if (
                kind == "blob"
                and mode.startswith("100")
                and path.startswith(git.prefix)
                and path.lower().endswith(".md")
            ):
                notes[path[len(git.prefix) :]] = blob
        chosen.append(Snapshot(commits[i].sha, dates[i], notes))
    return git, chosen


def snapshot_repository(git: Git, chosen: list[Snapshot], folder: Path) -> Path:
    """A temporary repository (sharing the objects of ``git``'s) whose history is the chosen snapshots, one commit
    each with its tree and replayed date; made the same way twice, it has the same commits. Returns the vault
    folder in it."""
    target = folder / "snapshots"
    if not (target / ".git").exists():
        subprocess.run(
            ["git", "clone", "-q", "--shared", "--no-checkout", str(git.root), str(target)],
            check=True,
            capture_output=True,
        )
    parent: str | None = None
    for snap in chosen:
        tree = _git(git.root, "rev-parse", f"{snap.sha}^{{tree}}").strip()
        who = {
            "GIT_AUTHOR_NAME": "snapshot",
            "GIT_AUTHOR_EMAIL": "snapshot@localhost",
            "GIT_AUTHOR_DATE": snap.date,
            "GIT_COMMITTER_NAME": "snapshot",
            "GIT_COMMITTER_EMAIL": "snapshot@localhost",
            "GIT_COMMITTER_DATE": snap.date,
        }
        parent = _git(
            target, "commit-tree", tree, *(["-p", parent] if parent else []), "-m", f"snapshot of {snap.sha}", env=who
        ).strip()
    assert parent is not None, "a history with commits has at least one snapshot"
    _git(target, "update-ref", "refs/heads/snapshots", parent)
    _git(target, "symbolic-ref", "HEAD", "refs/heads/snapshots")
    vault = target / git.prefix
    vault.mkdir(parents=True, exist_ok=True)
    return vault


class GitAccount:
    """What git shows happened to the paragraphs of the chosen snapshots, and when each text was anywhere."""

    def __init__(self, git: Git, chosen: list[Snapshot]):
        self.git, self.snapshots = git, chosen
        self.dates = [s.date for s in chosen]
        self._paragraphs: dict[str, list[str]] = {}  # blob -> its paragraphs, each once
        self.runs: dict[str, list[list]] = defaultdict(
            list
        )  # paragraph -> [first, end) snapshot runs, end None while there
        self.versions: dict[str, list[str]] = defaultdict(list)  # path -> its blobs, oldest first
        self.counts: Counter = Counter()  # paragraph -> files holding it in the last snapshot
        self.gists: Counter = Counter()  # gist -> paragraphs in files holding it in the last snapshot
        self.past: list[PastParagraph] = []
        self.histogram: Counter = Counter()
        self.left = 0
        previous: dict[str, str] = {}
        since: dict[str, dict[str, str]] = {}  # path -> paragraph -> when it appeared there
        for index, snap in enumerate(chosen):
            changed = {p for p in snap.notes if previous.get(p) != snap.notes[p]}
            gone = {p for p in previous if p not in snap.notes}
            self._read({snap.notes[p] for p in changed} | {previous[p] for p in gone | changed if p in previous})
            touched = {
                q
                for p in changed | gone
                for side in (previous, snap.notes)
                if p in side
                for q in self._paragraphs[side[p]]
            }
            before = {q: self.counts[q] for q in touched}
            before_gists = {gist(q): self.gists[gist(q)] for q in touched}
            for path in changed | gone:
                if path in previous:
                    self.counts.subtract(self._paragraphs[previous[path]])
                    self.gists.subtract(map(gist, self._paragraphs[previous[path]]))
                if path in snap.notes:
                    self.counts.update(self._paragraphs[snap.notes[path]])
                    self.gists.update(map(gist, self._paragraphs[snap.notes[path]]))
                    self.versions[path].append(snap.notes[path])
            for q in touched:
                if self.counts[q] > 0 and not before[q] > 0:
                    self.runs[q].append([index, None])
                elif before[q] > 0 and not self.counts[q] > 0:
                    self.runs[q][-1][1] = index
                if self.counts[q] <= 0:
                    del self.counts[q]
                if self.gists[gist(q)] <= 0:
                    self.gists.pop(gist(q), None)
            if index:
                self._compare(previous, snap, changed, gone, since, before, before_gists)
            for path in gone:
                since.pop(path, None)
            for path in changed:
                known = since.get(path, {})
                since[path] = {p: known.get(p, snap.date) for p in self._paragraphs[snap.notes[path]]}
            previous = snap.notes

    def _read(self, blobs: set[str]) -> None:
        missing = sorted(b for b in blobs if b not in self._paragraphs)
        for start in range(0, len(missing), 2000):
            for blob, data in self.git.blobs(missing[start : start + 2000]).items():
                self._paragraphs[blob] = list(dict.fromkeys(paragraphs(data.decode("utf-8", "replace"))))

    def _compare(
        self,
        previous: dict[str, str],
        snap: Snapshot,
        changed: set[str],
        gone: set[str],
        since: dict[str, dict[str, str]],
        before: dict[str, int],
        before_gists: dict[str, int],
    ) -> None:
        """The paragraphs that left each file between the previous snapshot and ``snap``, and where they went."""
        notes = snap.notes
        arrived_in: dict[str, set[str]] = defaultdict(set)  # paragraph -> the changed files it arrived in
        for path in changed:
            had_before = set(self._paragraphs[previous[path]]) if path in previous else set()
            for p in self._paragraphs[notes[path]]:
                if p not in had_before:
                    arrived_in[p].add(path)
        renamed = self._renames(snap) if gone else {}
        fresh: dict[str, list[tuple[Counter, str]]] = defaultdict(
            list
        )  # word -> (words, path) of paragraphs of new files
        for path in (changed - set(previous)) if gone else set():
            for p in self._paragraphs[notes[path]]:
                words = word_counts(p)
                for word in sorted(words, key=len)[-3:]:
                    fresh[word].append((words, path))
        for path in sorted(gone | (changed & set(previous))):
            had = self._paragraphs[previous[path]]
            kept = set(self._paragraphs[notes[path]]) if path in notes else set()
            left = [p for p in had if p not in kept]
            if not left:
                continue
            destinations = Counter(
                d for p in left if before[p] == 1 and self.counts[p] == 1 for d in arrived_in.get(p, ()) if d != path
            )
            if path not in notes and renamed.get(path) in notes:
                destinations[renamed[path]] += 1  # moved with its words edited, so no paragraph is the same
            if path not in notes and not destinations:
                unique = [p for p in left if before[p] == 1]
                nearest = Counter(filter(None, (self._nearest(p, fresh) for p in unique)))
                if nearest and 2 * nearest.most_common(1)[0][1] >= len(unique):
                    destinations[nearest.most_common(1)[0][0]] += 1  # most of it is there, edited
            if path not in notes:
                most = max(destinations.values(), default=0)
                destinations = Counter({d: n for d, n in destinations.items() if 4 * n >= most})  # not one stray line
                kind = "deleted" if not destinations else "moved" if len(destinations) == 1 else "split"
            else:
                kind = "split" if any(d not in previous for d in destinations) else "edited"
            targets = ([path] if path in notes else []) + (
                [d for d, _ in destinations.most_common()] if kind != "edited" else []
            )
            arrived = [(word_counts(p), p, t) for t in targets for p in self._paragraphs[notes[t]] if p not in set(had)]
            for old in left:
                words = word_counts(old)
                best, new, to = 0.0, None, None
                for candidate_words, candidate, target in arrived:
                    dice = overlap(words, candidate_words)[0]
                    if dice > best:
                        best, new, to = dice, candidate, target
                if path in notes:
                    self.left += 1
                    self.histogram[next(i for i in range(len(BINS) - 1) if BINS[i] <= best < BINS[i + 1])] += 1
                if before[old] != 1 or before_gists[gist(old)] != 1 or len(old) > MAX_CHARS:
                    continue  # in another file too, in other words or not, or too long for one passage
                exact = next((t for t in targets if t != path and old in arrived_in and t in arrived_in[old]), None)
                if exact is not None:
                    new, to = old, exact
                elif best < SAME_PARAGRAPH:
                    new, to = None, None
                if path in notes and new is None:
                    continue  # a paragraph taken out of a note that stays, going nowhere: not a change of the note
                here = "edited" if path in notes and to == path else kind
                self.past.append(
                    PastParagraph(
                        here,
                        path,
                        old,
                        new,
                        since.get(path, {}).get(old, snap.date),
                        snap.date,
                        snap.sha,
                        None if to == path else to,
                    )
                )

    @staticmethod
    def _nearest(paragraph: str, fresh: dict[str, list[tuple[Counter, str]]]) -> str | None:
        """The new file holding an edited copy of ``paragraph`` (sharing ``SAME_PARAGRAPH`` of its words), if any:
        candidates share one of its longest words, unless that word is everywhere."""
        words = word_counts(paragraph)
        best, found = SAME_PARAGRAPH, None
        for word in sorted(words, key=len)[-3:]:
            if len(fresh.get(word, ())) > DISTINCT:
                continue
            for candidate, path in fresh[word]:
                dice = overlap(words, candidate)[0]
                if dice >= best:
                    best, found = dice, path
        return found

    def _renames(self, snap: Snapshot) -> dict[str, str]:
        """Git's own renames (``diff-tree -M``) from the previous snapshot to ``snap``, old vault path -> new."""
        previous = self.snapshots[self.snapshots.index(snap) - 1]
        changes = self.git.changes(Commit(snap.sha, previous.sha, snap.date))
        return {c.old: c.new for c in changes if c.old and c.new and c.old != c.new}

    def at(self, moment: str) -> int:
        """The snapshot current at ``moment``."""
        return max(0, bisect.bisect_right(self.dates, moment) - 1)

    def current(self) -> list[tuple[str, str]]:
        """(path, paragraph) of the last snapshot, each paragraph (and its gist) in that one file only, and short
        enough for one passage."""
        return [
            (path, p)
            for path, blob in sorted(self.snapshots[-1].notes.items())
            for p in self._paragraphs.get(blob, [])
            if self.counts[p] == 1 and self.gists[gist(p)] == 1 and len(p) <= MAX_CHARS
        ]

    def when(self, path: str | None, text: str, index: int) -> str | None:
        """Where the text of a passage of ``path`` stands at snapshot ``index`` by git: ``"there"`` (some file held
        it then), ``"later"`` (it arrived after), ``"earlier"`` (it was gone by then); None when no version of the
        file holds it."""
        words = word_counts(text)
        found = []
        for blob in dict.fromkeys(self.versions.get(path or "", [])):
            for p in self._paragraphs.get(blob, []):
                mine = word_counts(p)
                if holds(words, mine) >= HOLDS or holds(mine, words) >= HOLDS:
                    found.append(p)
        runs = [run for p in found for run in self.runs.get(p, [])]
        if not runs:
            return None
        if any(first <= index and (end is None or index < end) for first, end in runs):
            return "there"
        return "later" if all(first > index for first, _ in runs) else "earlier"


def chain_followed(history: NoteHistory, edit: PastParagraph) -> bool | None:
    """Whether the index's version holding the old text (closed by this edit) was replaced by one holding the
    new text; None when no such version is found (the passage changed for another reason too)."""
    texts = {f"{p.chunk_id}@{v.version}": squeeze(v.text) for p in history.passages for v in p.versions}
    for passage in history.passages:
        for version in passage.versions:
            if edit.old in squeeze(version.text) and version.valid_until == edit.until:
                assert edit.new is not None, "an edited paragraph has its newer text"
                return bool(version.replaced_by) and edit.new in texts.get(version.replaced_by or "", "")
    return None


def judge(hit: dict | None, paragraph: PastParagraph, account: GitAccount, index: int, now: bool = False) -> str:
    """One top hit's outcome (``OUTCOMES``) for a paragraph whose text of the question's time is ``old``. A hit
    holding the words of the newer text is stale only in the note that has it: in another note (a template
    quoted in a guide, say) it is some other text."""
    old, new = paragraph.old, paragraph.new
    if hit is None:
        return "other"
    text = squeeze(hit["text"])
    words = word_counts(text)
    mine = holds(words, word_counts(old))
    newer = holds(words, word_counts(new)) if new and new != old else 0.0
    if mine >= HOLDS and mine >= newer:
        return "right"
    if newer >= HOLDS and hit.get("path") in (paragraph.path, paragraph.to):
        return "stale"
    where = account.when(hit.get("path"), text, index)
    if now:
        return "stale" if where == "earlier" else "other"
    return "not_yet_valid" if where == "later" else "other"


def choose(items: list, most: int, rng: random.Random) -> list:
    return items if len(items) <= most else sorted(rng.sample(items, most), key=items.index)


def run_history(
    repo: Path,
    folder: Path,
    max_commits: int | None = None,
    per_kind: int = 100,
    seed: int = 0,
    log: Callable[[str], None] = lambda text: None,
) -> tuple[dict, list[dict]]:
    """Import ``repo``'s history (all of it, or ``max_commits`` evenly spaced snapshots) into an index in ``folder``,
    then ask at most ``per_kind`` questions (chosen with ``seed``) of each kind, past and now: the report and one
    record per question."""
    started = time.perf_counter()
    repo = repo.absolute()
    git, chosen = snapshots(repo, max_commits)
    head = git.head()
    assert head is not None, "snapshots refuses a repository without commits"
    sampled = max_commits is not None and max_commits < len(git.commits(None, head))
    vault_path = snapshot_repository(git, chosen, folder) if sampled else repo
    log(f"importing {len(chosen)} {'snapshots' if sampled else 'commits'} of the git history of {repo}")
    account = GitAccount(git, chosen)
    rng = random.Random(seed)
    asked: dict[str, list[tuple[PastParagraph, str, str]]] = {}
    for kind in PAST_KINDS:
        found = [(p, shared_words(p.old, p.new or p.old)) for p in account.past if p.kind == kind]
        usable = [(p, q, midpoint(p.since, p.until)) for p, q in found if len(q.split()) >= MIN_QUESTION_WORDS]
        asked[kind] = choose(usable, per_kind, rng)
    now_found = [(path, p, shared_words(p, p)) for path, p in account.current()]
    now_usable = [
        (PastParagraph("now", path, p, None, "", "", chosen[-1].sha), q, "")
        for path, p, q in now_found
        if len(q.split()) >= MIN_QUESTION_WORDS
    ]
    asked["now"] = choose(now_usable, per_kind, rng)
    found_counts = {kind: sum(p.kind == kind for p in account.past) for kind in PAST_KINDS} | {"now": len(now_found)}
    records: list[dict] = []
    tally: dict[str, dict[str, Counter[str]]] = {
        mode: {kind: Counter() for kind in (*PAST_KINDS, "now")} for mode in MODES
    }
    followed = checked = 0
    with Vault.open(vault_path, folder / "index") as vault:
        imported = vault.index(from_git=True)
        log(
            f"{imported.commits_replayed} commits replayed in {imported.seconds:.0f} s; asking "
            + ", ".join(f"{len(v)} {k}" for k, v in asked.items())
        )
        histories: dict[str, NoteHistory | None] = {}
        last = len(chosen) - 1
        for kind, questions in asked.items():
            for paragraph, question, moment in questions:
                record: dict[str, object] = {
                    "kind": kind,
                    "path": paragraph.path,
                    "to": paragraph.to,
                    "question": question,
                    "as_of": moment or None,
                    "since": paragraph.since or None,
                    "until": paragraph.until or None,
                    "old": paragraph.old,
                    "new": paragraph.new if paragraph.new != paragraph.old else None,
                }
                index = account.at(moment) if moment else last
                for mode in MODES:
                    hits = vault.query(question, as_of=moment or None, top_k=1, mode=mode, track=False)
                    hit = hits[0].to_dict() if hits else None
                    outcome = judge(hit, paragraph, account, index, now=not moment)
                    tally[mode][kind][outcome] += 1
                    record[mode] = {
                        "outcome": outcome,
                        "path": hit and hit.get("path"),
                        "valid_from": hit and hit.get("valid_from"),
                        "text": hit and squeeze(hit["text"])[:300],
                    }
                records.append(record)
                if kind == "edited":
                    if paragraph.path not in histories:
                        try:
                            histories[paragraph.path] = vault.history(paragraph.path)
                        except SmartvecError:
                            histories[paragraph.path] = None  # deleted since: no lineage to look at
                    lineage = histories[paragraph.path]
                    result = chain_followed(lineage, paragraph) if lineage else None
                    if result is not None:
                        checked += 1
                        followed += result
    share = lambda n, d: round(n / d, 4) if d else None  # noqa: E731
    results = {}
    for mode in MODES:
        rows = dict(tally[mode])
        rows["past"] = sum((tally[mode][k] for k in PAST_KINDS), Counter())
        results[mode] = {
            kind: {
                "questions": sum(c.values()),
                "counts": {o: c[o] for o in OUTCOMES},
                "shares": {o: share(c[o], sum(c.values())) for o in OUTCOMES},
            }
            for kind, c in rows.items()
        }
    report = {
        "repo": str(repo),
        "snapshots": len(chosen),
        "sampled": sampled,
        "max_commits": max_commits,
        "per_kind": per_kind,
        "seed": seed,
        "commits_replayed": imported.commits_replayed,
        "index_reused": not imported.commits_replayed,
        "first_date": chosen[0].date,
        "last_date": chosen[-1].date,
        "import_seconds": imported.seconds,
        "notes_at_head": len(chosen[-1].notes),
        "paragraphs_left": account.left,
        "found": found_counts,
        "results": results,
        "chains_checked": checked,
        "chains_followed": share(followed, checked),
        "best_overlap_histogram": {
            f"{BINS[i]:.1f}-{min(BINS[i + 1], 1.0):.1f}": account.histogram.get(i, 0) for i in range(len(BINS) - 1)
        },
        "same_paragraph": SAME_PARAGRAPH,
        "chain_similarity": CHAIN_SIMILARITY,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return report, records


def history_markdown(report: dict) -> str:
    pct = lambda v: "-" if v is None else f"{v:.0%}"  # noqa: E731
    sample = f"{report['snapshots']} evenly spaced snapshots" if report["sampled"] else f"{report['snapshots']} commits"
    lines = [
        f"History of {report['repo']}: {sample} ({report['first_date'][:10]} to {report['last_date'][:10]}), "
        + (
            "already imported in the work folder"
            if report["index_reused"]
            else f"{report['commits_replayed']} replayed in {report['import_seconds']:.0f} s"
        )
        + f"; {report['notes_at_head']} notes at "
        f"the end. Questions: at most {report['per_kind']} of each kind (seed {report['seed']}); found by git: "
        + ", ".join(f"{n} {k}" for k, n in report["found"].items())
        + ".",
        "",
        "| questions about | asked | smart right | stale | not yet valid | other | cosine right | stale | not yet "
        "valid | other |",
        "| --- | --- |" + " --- |" * 8,
    ]
    smart, cosine = report["results"]["smart"], report["results"]["cosine"]
    names = {
        "edited": "past: edited in place",
        "moved": "past: moved or renamed",
        "split": "past: split",
        "deleted": "past: deleted",
        "past": "**past, all**",
        "now": "**now**",
    }
    for kind in (*PAST_KINDS, "past", "now"):
        row = [names[kind], str(smart[kind]["questions"])]
        for mode in (smart, cosine):
            row += [pct(mode[kind]["shares"][o]) for o in OUTCOMES]
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "Right: the top hit holds the paragraph's words (at least 80% of them); stale: it holds its newer version "
        "(now: text git shows gone by the last snapshot); not yet valid: git shows its text arrived after the "
        "question's time.",
        "",
        f"Chains followed: {pct(report['chains_followed'])} of {report['chains_checked']} edited paragraphs "
        f"(link threshold {report['chain_similarity']}).",
        "",
        "Best word overlap (Dice) of each paragraph that left a file that stayed with one that arrived:",
        "",
        "| overlap | " + " | ".join(report["best_overlap_histogram"]) + " |",
        "| --- |" + " --- |" * len(report["best_overlap_histogram"]),
        "| paragraphs | " + " | ".join(str(v) for v in report["best_overlap_histogram"].values()) + " |",
        "",
    ]
    return "\n".join(lines)
