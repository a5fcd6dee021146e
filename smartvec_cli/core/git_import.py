"""A vault's past from git: its commits replayed through the indexer, oldest first, each at its commit date.

The ``git`` command does the reading (rev-list, diff-tree with rename detection, cat-file), in read-only
commands that never touch the repository's state (``GIT_OPTIONAL_LOCKS=0``); it is on every machine that has a
repository to import, and a library binding would add a compiled dependency for the same three calls. Each
commit on the first-parent line (a merge counts once, as the change it brought to the main line, so the
side branch's back-and-forth is not replayed) becomes one index run restricted to the notes it changed:
their new text is written to a temporary folder outside the vault, the clock is set to the commit date,
and the ordinary indexer decides what is new, edited, renamed or deleted. The last imported commit is kept
in the index, so the next import replays only what came after it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import overload

from ..clock import Clock, parse_when, to_iso
from ..errors import SmartvecError, UsageError
from ..memory.temporal import GIT
from ..store.store import Store
from ..vault.paths import OutsideFolder, refusal, write_within
from ..vault.scan import VaultRules, is_ignored
from .indexer import FIRST_INDEX_AT, Indexer, IndexSummary
from .keys import PASSAGE_COUNTS, renamed
from .progress import COMMITS, ProgressCallback, ProgressReport, ignore_progress
from .relations import VersionsMemo
from .workspace import Workspace

GIT_COMMIT = "git_commit"
"""The last commit an import replayed (meta); the next import starts after it."""
GIT_DATE = "git_date"
"""The time that commit was replayed at: later commits are never replayed before it."""
AHEAD = 100
"""Commits read (and their new passages embedded, in full batches) ahead of their replay."""
COUNTED = (
    "notes_new",
    "notes_changed",
    "notes_deleted",
    "notes_renamed",
    "chunks_embedded",
    "chunks_archived",
)
"""What each commit's run counts that the import adds up: events (a note added, edited, deleted, renamed by a commit;
a version archived) and the texts it embedded itself. Not what it reused: a commit that edits one paragraph of a
note finds all the others stored, and summed over commits that counted the same passages again and again."""


@dataclass
class Commit:
    sha: str
    parent: str | None  # its first parent; None for a root commit
    date: str  # committer date, ISO UTC


@dataclass
class Change:
    """One note a commit touched, in vault paths: ``old`` is where it was (None when added), ``new`` where it is
    now (None when deleted), ``blob`` its new content's object id."""

    old: str | None
    new: str | None
    blob: str | None
    old_blob: str | None = None  # the content it had before the commit, when it was a note then


@dataclass
class ImportSummary:
    """What an import did. ``notes_*`` count a commit's changes to notes (a note edited in three commits counts
    three); ``passages_written`` the passage texts it wrote (new versions, and passages whose title or heading
    changed), each either embedded (``chunks_embedded``: sent to the model by this import) or reused
    (``chunks_reused``: its vector made by an earlier commit), so the two add up to it."""

    commits_read: int = 0  # replayed, and without a note changed
    commits_replayed: int = 0
    commits_without_notes: int = 0
    commits_left: int = 0  # not imported by this run (``max_commits``): the next import replays them
    from_commit: str | None = None
    to_commit: str | None = None
    first_date: str | None = None
    last_date: str | None = None
    notes_new: int = 0
    notes_changed: int = 0
    notes_deleted: int = 0
    notes_renamed: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_archived: int = 0
    passages_written: int = 0
    errors: list[dict] = field(default_factory=list)
    past_errors: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, run: IndexSummary, commit: Commit) -> None:
        for name in COUNTED:
            setattr(self, name, getattr(self, name) + getattr(run, name))
        self.errors.extend({**error, "commit": commit.sha[:12]} for error in run.errors)

    def settle(self, touched_last: dict[str, str]) -> None:
        """Moves to ``past_errors`` each problem of a note version that a later commit replaced (or deleted): a
        malformed front matter three years ago is history, not a failure of this import. What is left in
        ``errors`` is wrong in the last commit imported."""
        errors: list[dict] = []
        for error in self.errors:
            later = touched_last.get(error["path"], error.get("commit"))
            (errors if later == error.get("commit") else self.past_errors).append(error)
        self.errors = errors

    def to_dict(self) -> dict:
        return renamed(asdict(self), PASSAGE_COUNTS)


class Git:
    """The read-only git commands an import needs, run in the vault's repository."""

    def __init__(self, vault: Path):
        if shutil.which("git") is None:
            raise UsageError("index --from-git needs the git command, which is not installed")
        self.vault = vault
        self.env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
        top = self._run("rev-parse", "--show-toplevel", what=f"{vault} is not inside a git repository").strip()
        self.root = Path(top)
        self.prefix = self._run(
            "rev-parse", "--show-prefix"
        ).strip()  # the vault's folder in the repository, "" or "notes/"

    def _run(self, *args: str, what: str | None = None, binary: bool = False):
        """The output of ``git args``. A failure is the repository's (a missing or damaged object, exit 1), except
        ``what``, the usage error a failure means for that call (the vault is not in a repository, exit 2)."""
        done = subprocess.run(["git", "-C", str(self.vault), *args], capture_output=True, env=self.env)
        if done.returncode != 0:
            if what:
                raise UsageError(what)
            raise SmartvecError(f"the git repository of {self.vault} cannot be read: {_last_line(done.stderr)}")
        return done.stdout if binary else done.stdout.decode("utf-8", "surrogateescape")

    def head(self) -> str | None:
        """The commit HEAD names; None in a repository without commits."""
        done = subprocess.run(
            ["git", "-C", str(self.vault), "rev-parse", "--verify", "-q", "HEAD^{commit}"],
            capture_output=True,
            env=self.env,
        )
        return done.stdout.decode().strip() or None

    def is_ancestor(self, older: str, newer: str) -> bool:
        done = subprocess.run(
            ["git", "-C", str(self.vault), "merge-base", "--is-ancestor", older, newer],
            capture_output=True,
            env=self.env,
        )
        return done.returncode == 0

    def commits(self, after: str | None, head: str) -> list[Commit]:
        """The first-parent line up to ``head``, oldest first, after ``after`` when given."""
        span = f"{after}..{head}" if after else head
        out = self._run("rev-list", "--first-parent", "--reverse", "--format=%H %P%x00%cI", span)
        commits = []
        for line in out.splitlines():
            if line.startswith("commit ") or not line.strip():
                continue
            ids, date = line.split("\x00", 1)
            shas = ids.split()
            commits.append(Commit(shas[0], shas[1] if len(shas) > 1 else None, to_iso(parse_when(date.strip()))))
        return commits

    def changes(self, commit: Commit) -> list[Change]:
        """The ``.md`` files under the vault that ``commit`` added, changed, renamed or deleted (against its first
        parent).

        Only notes are compared (a pathspec of ``*.md`` under the vault), so the other files' contents are never
        read: a missing blob of an attachment cannot stop an import. When rename detection cannot read a note's
        blob, the commit is read again without it (a rename then counts as a deletion and an addition)."""
        base = [commit.parent, commit.sha] if commit.parent else ["--root", commit.sha]
        notes = ":(glob,icase)**/*.md"  # relative to the vault's folder, where git runs
        command = ["diff-tree", "-r", "--no-commit-id", "--raw", "-z", *base, "--", notes]
        try:
            out = self._run(*command[:2], "-M", *command[2:])
        except SmartvecError:
            out = self._run(*command)
        fields = out.split("\x00")
        changes, i = [], 0
        while i < len(fields) - 1:
            old_mode, new_mode, old_blob, blob, status = fields[i].lstrip(":").split()
            kind = status[0]
            if kind in "RC":
                old, new, i = fields[i + 1], fields[i + 2], i + 3
            else:
                old = new = fields[i + 1]
                i += 2
            if kind in "AC":  # a copy leaves its source where it was
                old = None
            if kind == "D" or not new_mode.startswith("100"):  # a symlink or a submodule is not a note
                new = None
            change = Change(self._vault_path(old), self._vault_path(new), None)
            change.blob = blob if change.new else None
            change.old_blob = old_blob if change.old and old_mode.startswith("100") else None
            if change.old or change.new:
                changes.append(change)
        return changes

    def _vault_path(self, repo_path: str | None) -> str | None:
        """The path of a note in the vault, or None for a file outside it or not a note."""
        if repo_path is None or not repo_path.startswith(self.prefix) or not repo_path.lower().endswith(".md"):
            return None
        return repo_path[len(self.prefix) :]

    def blobs(self, ids: list[str]) -> dict[str, bytes]:
        """The contents of these blobs, in one ``cat-file --batch``; a blob missing from the repository (a shallow
        or partial clone, a damaged pack) is left out, and when the batch itself fails on a damaged object, each
        blob is read alone so that only the unreadable ones are left out."""
        if not ids:
            return {}
        done = subprocess.run(
            ["git", "-C", str(self.vault), "cat-file", "--batch"],
            input="\n".join(ids).encode() + b"\n",
            capture_output=True,
            env=self.env,
        )
        if done.returncode != 0:
            return {blob: data for blob in ids if (data := self._blob(blob)) is not None}
        data, found, pos = done.stdout, {}, 0
        for blob in ids:
            end = data.index(b"\n", pos)
            header = data[pos:end].split()
            if len(header) < 3:  # "<id> missing"
                pos = end + 1
                continue
            size = int(header[2])
            found[blob] = data[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return found

    def _blob(self, blob: str) -> bytes | None:
        done = subprocess.run(
            ["git", "-C", str(self.vault), "cat-file", "blob", blob], capture_output=True, env=self.env
        )
        return done.stdout if done.returncode == 0 else None


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else "git failed"


def import_git_history(
    ws: Workspace,
    store: Store,
    embedder_factory,
    progress: ProgressCallback | None = None,
    summary: ImportSummary | None = None,
    max_commits: int | None = None,
) -> ImportSummary:
    """Replay the vault's git history after the last imported commit (see the module) into ``summary``.

    ``max_commits`` stops after the oldest that many commits not yet imported, so a long history can be
    imported in steps (each import resumes where the last one stopped); ``commits_left`` says how many remain.

    ``progress`` counts commits replayed, and hears what comes before the first one finishes (reading the
    history, loading the model, embedding the passages of the commits ahead, often a whole first snapshot),
    so that a long import is never silent."""
    started = time.perf_counter()
    summary = summary if summary is not None else ImportSummary()
    report = ImportProgress(progress or ignore_progress, summary)
    report.step("reading the history")
    git = Git(ws.vault)
    last = store.get_meta(GIT_COMMIT)
    if last is None and store.get_meta(FIRST_INDEX_AT) is not None:
        raise UsageError(
            "this index was built from the vault's files, not from its git history, so its past cannot be put before "
            "what it already holds; import into a new index (--index-dir DIR) or delete the index folder first"
        )
    head = git.head()
    if head is None:
        raise UsageError(f"the git repository of {ws.vault} has no commits yet")
    if last and not git.is_ancestor(last, head):
        raise UsageError(
            f"the last imported commit {last[:12]} is not in the history of HEAD any more "
            "(rewritten or another branch); "
            "import into a new index (--index-dir DIR) to replay this history"
        )
    commits = git.commits(last, head)
    if max_commits is not None:
        summary.commits_left = max(0, len(commits) - max_commits)
        commits = commits[:max_commits]
    report.total = len(commits)
    floor = later_of(store.get_meta(GIT_DATE), store.latest_index_run())
    rules = VaultRules.of(ws.vault, ws.config.exclude)
    touched_last: dict[str, str] = {}  # each note's path: the latest commit that replayed or refused it
    claimed: set[str] = set()  # the texts this import embedded that a written passage already took
    checkout_parent = Path(tempfile.mkdtemp(prefix="smartvec-git-"))
    embedding = Indexer(
        ws, store, embedder_factory, source=GIT, progress=report.embedding_ahead, versions_memo=VersionsMemo()
    )
    report.ahead = embedding.summary
    try:
        for window_start in range(0, len(commits), AHEAD):
            report.window = f"commits {window_start + 1}-{min(window_start + AHEAD, len(commits))}"
            report.step(f"reading {report.window}")
            window = []
            for commit in commits[window_start : window_start + AHEAD]:
                touched = git.changes(commit)
                touched_last.update({path: commit.sha[:12] for c in touched for path in (c.old, c.new) if path})
                changes, refused = confine(touched)
                summary.errors.extend({**problem, "commit": commit.sha[:12]} for problem in refused)
                window.append((commit, [c for c in changes if not _ignored(c, rules)]))
            contents = git.blobs(sorted({c.blob for _, changes in window for c in changes if c.blob}))
            window = [(commit, readable(commit, changes, contents, summary)) for commit, changes in window]
            embedding.parsed_ahead.clear()  # the notes of the window before, all replayed
            embedding.embed_ahead(
                [(c.new, contents[c.blob]) for _, changes in window for c in changes if c.blob and c.new]
            )
            for done, (commit, changes) in enumerate(window, window_start + 1):
                when = later_of(commit.date, floor)  # commit dates can go backwards; history cannot
                floor = when
                if changes:
                    report.step(f"replaying commit {done} ({when[:10]})")
                    replayed = _replay(
                        ws, store, embedder_factory, changes, contents, when, checkout_parent / str(done), embedding
                    )
                    summary.add(replayed.summary, commit)
                    for text in replayed.written_hashes:
                        made_now = text in embedding.embedded_hashes or text in replayed.embedded_hashes
                        if made_now and text not in claimed:
                            claimed.add(text)
                        else:
                            summary.chunks_reused += 1
                    summary.passages_written += len(replayed.written_hashes)
                    summary.commits_replayed += 1
                    summary.first_date = summary.first_date or when
                    summary.last_date = when
                else:
                    summary.commits_without_notes += 1
                summary.commits_read += 1
                with store.write():
                    store.set_meta(GIT_COMMIT, commit.sha)
                    store.set_meta(GIT_DATE, when)
                summary.from_commit = summary.from_commit or commit.sha
                summary.to_commit = commit.sha
                report.commit_done(done)
    finally:
        shutil.rmtree(checkout_parent, ignore_errors=True)
        if store.ann_loaded and store.ann.generation != store.generation:
            store.save_ann()
    summary.settle(touched_last)
    summary.chunks_embedded += embedding.summary.chunks_embedded  # the texts of the commits read ahead
    summary.seconds = round(time.perf_counter() - started, 3)
    return summary


class ImportProgress:
    """The reports of one import, in commits: how many are replayed, and what the import is busy with meanwhile."""

    def __init__(self, progress: ProgressCallback, summary: ImportSummary):
        self.progress = progress
        self.summary = summary  # the passages the replays embedded themselves (the ones not embedded ahead)
        self.ahead: IndexSummary | None = None  # the passages embedded ahead of the replays, all windows so far
        self.total = self.done = 0
        self.window = ""  # the commits whose passages are being embedded ahead, as "commits 101-200"

    def embedded(self) -> int:
        return self.summary.chunks_embedded + (self.ahead.chunks_embedded if self.ahead else 0)

    def step(self, what: str) -> None:
        self.progress(ProgressReport(self.done, self.total, COMMITS, self.embedded(), what))

    def commit_done(self, done: int) -> None:
        self.done = done
        self.progress(ProgressReport(done, self.total, COMMITS, self.embedded()))

    def embedding_ahead(self, passages: ProgressReport) -> None:
        """A report of the indexer that embeds ahead, told as a step of the import: "loading the model", or
        the passages of the window embedded so far (its summary counts them only once the window is done)."""
        embedded = self.summary.chunks_embedded + passages.embedded
        if passages.step:
            self.progress(ProgressReport(self.done, self.total, COMMITS, embedded, passages.step))
        else:
            step = f"embedding the passages of {self.window}"
            self.progress(ProgressReport(self.done, self.total, COMMITS, embedded, step, passages.done, passages.total))


@overload
def later_of(a: str, b: str | None) -> str: ...


@overload
def later_of(a: str | None, b: str | None) -> str | None: ...


def later_of(a: str | None, b: str | None) -> str | None:
    return max(filter(None, (a, b)), default=None)


def confine(changes: list[Change]) -> tuple[list[Change], list[dict]]:
    """The changes with every path a checkout could hold, and a ``{path, error}`` for each path refused
    (``vault.paths.refusal``: absolute, ``..``, empty or ``.git`` components), which a crafted tree can hold.

    A refused new path is not written (a note renamed to it counts as deleted from where it was); a refused
    old path is no note the index can hold, so its change is an addition."""
    kept: list[Change] = []
    refused: list[dict] = []
    for change in changes:
        for side in ("old", "new"):
            path = getattr(change, side)
            reason = refusal(path) if path is not None else None
            if reason is not None:
                if not refused or refused[-1]["path"] != path:  # an edit names its path twice
                    refused.append({"path": path, "error": f"{reason} in a git tree: refused, nothing written for it"})
                change = replace(
                    change, **({"old": None, "old_blob": None} if side == "old" else {"new": None, "blob": None})
                )
        if change.old or change.new:
            kept.append(change)
    return kept, refused


def readable(commit: Commit, changes: list[Change], contents: dict[str, bytes], summary: ImportSummary) -> list[Change]:
    """The changes whose new text the repository holds; for each other one, a problem in ``summary`` and no
    change at all (the note keeps the version it had, until a commit whose text can be read)."""
    kept = []
    for change in changes:
        if change.blob and change.blob not in contents:
            summary.errors.append(
                {
                    "path": change.new,
                    "error": f"its text in this commit (blob {change.blob[:12]}) cannot be read from the repository; "
                    "this version skipped",
                    "commit": commit.sha[:12],
                }
            )
        else:
            kept.append(change)
    return kept


def _ignored(change: Change, rules: VaultRules) -> bool:
    """Whether the vault's rules leave out every path of this change (as they are in the working tree: the
    ``.smartvecignore``, Obsidian's settings and the templates folder of now, for every commit)."""
    paths = [p for p in (change.old, change.new) if p]
    return all(is_ignored(p, rules=rules) for p in paths)


NAME_MAX = 255
"""The longest file or folder name, in bytes, that a checkout's file system is trusted to take."""
PATH_MAX = 1024
"""The longest vault path, in bytes, that a checkout folder is trusted to take below its own path."""


def in_memory(paths: list[str], ws: Workspace) -> bool:
    """Whether a checkout folder holding these notes (vault paths) would hold each one under its path, and the
    vault's scan would find each there: no name too long, no note where another's folder is, no two paths one
    on a file system that ignores case, none that the scan skips. Then a run can read them from memory, as it
    would have read them from that folder; otherwise they are written to one, which says what went wrong."""
    files = set(paths)
    folders = {path.rsplit("/", n)[0] for path in paths for n in range(1, path.count("/") + 1)}
    return (
        not files & folders
        and len({p.casefold() for p in files | folders}) == len(files | folders)
        and all(len(os.fsencode(path)) <= PATH_MAX for path in paths)
        and all(len(os.fsencode(part)) <= NAME_MAX for path in paths for part in path.split("/"))
        and not any(is_ignored(path, ws.config.exclude) for path in paths)
    )


def _replay(
    ws: Workspace,
    store: Store,
    embedder_factory,
    changes: list[Change],
    contents: dict[str, bytes],
    when: str,
    checkout: Path,
    ahead: Indexer,
) -> Indexer:
    """One commit as one index run over the notes it touched: their new text held in memory, or, when a folder
    could not hold them all as they are named (``in_memory``), written to ``checkout`` (outside the vault); the
    indexer that ran it, with its summary."""
    new = {c.new: contents[c.blob] for c in changes if c.new and c.blob}
    if in_memory(list(new), ws):
        return _run_commit(ws, store, embedder_factory, changes, when, checkout, ahead, given=new)
    checkout.mkdir(parents=True)
    problems = []
    for change in list(changes):
        if change.new and change.blob:
            try:
                write_within(checkout, change.new, contents[change.blob])
            except OutsideFolder as exc:  # confine() let it through: a link or a file is where a folder should be
                problems.append({"path": change.new, "error": f"{exc}: refused, nothing written for it"})
                changes.remove(change)
            except OSError as exc:  # a name too long for this file system, say
                problems.append(
                    {"path": change.new, "error": f"cannot be written here ({exc.strerror or exc}); skipped"}
                )
                changes.remove(change)
    try:
        run = _run_commit(ws, store, embedder_factory, changes, when, checkout, ahead)
        run.summary.errors.extend(problems)
        return run
    finally:
        shutil.rmtree(checkout, ignore_errors=True)


def _run_commit(
    ws: Workspace,
    store: Store,
    embedder_factory,
    changes: list[Change],
    when: str,
    checkout: Path,
    ahead: Indexer,
    given: dict[str, bytes] | None = None,
) -> Indexer:
    """The index run of one commit over the notes it touched, read from ``checkout`` or ``given``."""
    touched = {p for c in changes for p in (c.old, c.new) if p}
    moved = {c.new: c.old for c in changes if c.old and c.new and c.old != c.new}
    at_commit = replace(ws, vault=checkout, clock=Clock(when))
    indexer = Indexer(
        at_commit,
        store,
        embedder_factory,
        source=GIT,
        moved=moved,
        parsed_ahead=ahead.parsed_ahead,
        given=given,
        versions_memo=ahead.versions_memo,
    )
    indexer.run(only=touched, save_ann=False)
    return indexer
