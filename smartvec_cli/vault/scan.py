"""Finding the notes of a vault.

Only ``*.md`` files are notes; any other file is an attachment (an image, a PDF) that a note can
link to or embed, listed only when asked for. Hidden files and folders, Obsidian's and git's state,
the index folder itself and editors' temporary files are skipped, as are the user's
``exclude`` globs. Symbolic links are followed only while they stay inside the vault,
and a link that loops is reported, never followed twice.

The vault's own rules leave out more (``VaultRules``, read once per run): the patterns of a
``.smartvecignore`` file at its top (``.gitignore`` rules), the files Obsidian's *Excluded files* setting names
(``userIgnoreFilters`` in ``.obsidian/app.json``), and the templates folder (the one the core Templates plugin
or Templater is set to, else any folder named ``templates`` or ``_templates``): a template is no answer.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat as stat_module
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .paths import read_regular

IGNORED_DIRS = {".obsidian", ".trash", ".git", ".smartvec", ".aclarai"}
IGNORED_SUFFIXES = (".tmp", "~", ".swp", ".swx")


@dataclass(frozen=True)
class NoteFile:
    rel_path: str  # POSIX path relative to the vault root, e.g. "policies/Remote Work.md"
    path: str  # where it was found (through any in-vault symlinks)
    size: int
    mtime_ns: int

    @property
    def abs_path(self) -> Path:
        return Path(self.path)


@dataclass(frozen=True)
class ScanProblem:
    path: str
    error: str


def glob_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether a vault path or one of its parent folders matches one of the globs (``*`` also crosses ``/``;
    ``dir/**`` means the folder too): the rule of ``exclude`` in ``config.toml`` and of ``--path``, as one
    regular expression compiled once (a glob, then nothing or a ``/`` and the rest)."""
    globs = [g.strip().rstrip("/") for g in patterns]
    globs = [g for g in globs if g] + [g[:-3] for g in globs if g.endswith("/**")]
    if not globs:
        return lambda rel_path: False
    alternatives = "|".join(fnmatch.translate(g).removeprefix("(?s:").removesuffix(")\\Z") for g in globs)
    match = re.compile(f"(?s:{alternatives})(?:/.*)?\\Z").match
    return lambda rel_path: match(rel_path) is not None


def is_excluded(rel_path: str, patterns: Sequence[str]) -> bool:
    """True when ``rel_path`` or one of its parent folders matches a glob (``glob_matcher``)."""
    return glob_matcher(patterns)(rel_path)


def printable_path(rel_path: str) -> str:
    """A vault path as text that can be stored and printed: a name that is not UTF-8 (a Latin-1 ``café.md``, which
    Python holds with surrogates) has its undecodable bytes written as ``\\xe9``."""
    return rel_path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


SMARTVECIGNORE = ".smartvecignore"
"""The vault's own list of paths to leave out, in ``.gitignore`` syntax."""
TEMPLATE_FOLDER_NAMES = ("templates", "_templates")
"""Folder names taken for a templates folder when no plugin setting names one (compared without case)."""

EXCLUDED = "exclude"
IGNORE_FILE = SMARTVECIGNORE
OBSIDIAN_EXCLUDED = "obsidian excluded files"
TEMPLATES = "templates folder"
HIDDEN = "hidden"
LEFT_OUT_REASONS = (EXCLUDED, IGNORE_FILE, OBSIDIAN_EXCLUDED, TEMPLATES, HIDDEN)
"""Why a note is left out of the index, as ``status`` counts them: ``exclude`` globs (``config.toml``,
``index --exclude``), ``.smartvecignore``, Obsidian's *Excluded files*, the templates folder, a hidden note (a
hidden folder is not walked to count its notes)."""


def gitignore_matcher(lines: Sequence[str]) -> Callable[[str, bool], bool]:
    """Whether a vault path (and whether it is a folder) is ignored by these ``.gitignore`` lines: ``#``
    comments, ``!`` to take a path back, a trailing ``/`` for folders only, a ``/`` at the start or in the
    middle anchoring the pattern to the top, ``*``, ``?``, ``[...]`` and ``**``; the last matching line wins.
    A path inside an ignored folder is reached only through that folder (the walk never enters it), as git's."""
    rules: list[tuple[re.Pattern[str], bool, bool]] = []  # (pattern, negated, folders only)
    for raw in lines:
        line = raw.rstrip("\n").rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line.removeprefix("\\")
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        rules.append(
            (re.compile(("" if anchored else "(?:.*/)?") + _gitignore_regex(line) + "\\Z"), negated, folders_only)
        )
    if not rules:
        return lambda rel_path, is_dir: False

    def ignored(rel_path: str, is_dir: bool) -> bool:
        verdict = False
        for pattern, negated, folders_only in rules:
            if (is_dir or not folders_only) and pattern.match(rel_path):
                verdict = not negated
        return verdict

    return ignored


def _gitignore_regex(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2 :]:
            end = glob.index("]", i + 2)
            inner = glob[i + 1 : end]
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner).replace("\\", "\\\\") + "]")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def obsidian_matcher(filters: Sequence[str]) -> Callable[[str, bool], bool]:
    """Obsidian's *Excluded files* (``userIgnoreFilters``): a filter written ``/.../`` is a regular expression
    searched in the path; any other is a start of the path (``Archive/`` leaves out that folder)."""
    prefixes = [f for f in filters if f and not (len(f) > 2 and f.startswith("/") and f.endswith("/"))]
    patterns = []
    for f in filters:
        if len(f) > 2 and f.startswith("/") and f.endswith("/"):
            try:
                patterns.append(re.compile(f[1:-1]))
            except re.error:
                continue
    if not prefixes and not patterns:
        return lambda rel_path, is_dir: False

    def excluded(rel_path: str, is_dir: bool) -> bool:
        shown = rel_path + "/" if is_dir else rel_path
        return any(shown.startswith(p) for p in prefixes) or any(p.search(shown) for p in patterns)

    return excluded


RULES_FILE_LIMIT = 1 << 20
"""The most of a rules file (``.smartvecignore``, Obsidian's settings) that is read: one larger is taken as absent."""


def _read_rules_file(path: Path, vault: Path) -> str | None:
    """The text of a small settings file of the vault, read as notes are (``read_regular``: a regular file inside
    the vault, checked when opened, so a FIFO named ``.smartvecignore`` cannot hang the run); None when absent,
    not such a file, or over ``RULES_FILE_LIMIT``."""
    try:
        data = read_regular(path, RULES_FILE_LIMIT, vault)
    except OSError:
        return None
    if len(data) > RULES_FILE_LIMIT:
        return None
    return data.decode("utf-8", errors="replace")


def _read_json(path: Path, vault: Path) -> dict:
    text = _read_rules_file(path, vault)
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class VaultRules:
    """What a vault says to leave out besides hidden files: the ``exclude`` globs, ``.smartvecignore``,
    Obsidian's *Excluded files* and the templates folder (``templates`` None: any folder named as in
    ``TEMPLATE_FOLDER_NAMES``). ``left_out`` counts the notes each rule left out of the last walk."""

    exclude: list[str] = field(default_factory=list)
    ignore_lines: list[str] = field(default_factory=list)
    obsidian_filters: list[str] = field(default_factory=list)
    templates: list[str] | None = None
    left_out: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._excluded = glob_matcher(self.exclude)
        self._ignored = gitignore_matcher(self.ignore_lines)
        self._obsidian = obsidian_matcher(self.obsidian_filters)

    @classmethod
    def of(cls, vault: Path | None, exclude: Sequence[str] = ()) -> VaultRules:
        """The rules the vault's files give (none read when ``vault`` is None), with these ``exclude`` globs."""
        if vault is None:
            return cls(list(exclude))
        vault = Path(vault)
        lines = (_read_rules_file(vault / SMARTVECIGNORE, vault) or "").splitlines()
        obsidian = vault / ".obsidian"
        filters = _read_json(obsidian / "app.json", vault).get("userIgnoreFilters") or []
        filters = [f for f in filters if isinstance(f, str)] if isinstance(filters, list) else []
        folders = [
            _read_json(obsidian / "templates.json", vault).get("folder"),
            _read_json(obsidian / "plugins" / "templater-obsidian" / "data.json", vault).get("templates_folder"),
        ]
        named = [f.strip().strip("/") for f in folders if isinstance(f, str) and f.strip().strip("/")]
        return cls(list(exclude), lines, filters, named or None)

    def reason(self, rel_path: str, is_dir: bool) -> str | None:
        """Which rule leaves this vault path out (``LEFT_OUT_REASONS``), or None."""
        if self._excluded(rel_path):
            return EXCLUDED
        if self._ignored(rel_path, is_dir):
            return IGNORE_FILE
        if self._obsidian(rel_path, is_dir):
            return OBSIDIAN_EXCLUDED
        if is_dir and self._is_templates(rel_path):
            return TEMPLATES
        return None

    def _is_templates(self, rel_path: str) -> bool:
        if self.templates is not None:
            return rel_path in self.templates
        return rel_path.rsplit("/", 1)[-1].lower() in TEMPLATE_FOLDER_NAMES

    def leaves_out(self, rel_path: str) -> bool:
        """Whether this vault path, or a folder on its way, is left out by a rule (the watch daemon and a git
        import, which see one path at a time, ask this)."""
        parts = rel_path.split("/")
        return any(self.reason("/".join(parts[:n]), n < len(parts)) for n in range(1, len(parts) + 1))


COUNT_LEFT_OUT_UP_TO = 20_000
"""The files a scan looks at, at most, to count the notes in the folders a rule left out (``status``): a folder
of tens of thousands of files left out must not make every run walk it (the counts are then lower bounds)."""


def _count_notes(folder: str, budget: list[int]) -> int:
    """The notes under a folder left out, counted without following links, looking at no more than ``budget[0]``
    files (which it spends)."""
    count = 0
    for _, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
        budget[0] -= len(files) + len(dirs)
        count += sum(1 for name in files if name.lower().endswith(".md"))
        if budget[0] <= 0:
            break
    return count


def _skip_name(name: str) -> bool:
    return name.startswith(".") or name.endswith(IGNORED_SUFFIXES)


def scan_vault(
    vault: Path,
    exclude: list[str] | None = None,
    index_dir: Path | None = None,
    attachments: list[str] | None = None,
    rules: VaultRules | None = None,
) -> tuple[list[NoteFile], list[ScanProblem]]:
    """Walk the vault and return its notes sorted by path, plus what could not be looked at.

    ``rules`` (else only the ``exclude`` globs) say what else to leave out; their ``left_out`` counts the notes
    each rule left out.

    Given a list as ``attachments``, the same walk appends to it the vault paths of the other files,
    sorted, which links resolve against: a second walk of a large vault would cost as much again."""
    vault = Path(vault)
    root_real = Path(os.path.realpath(vault))
    index_real = os.path.realpath(index_dir) if index_dir else None
    if rules is None:
        rules = VaultRules(list(exclude or []))
    rules.left_out.clear()
    notes: list[NoteFile] = []
    problems: list[ScanProblem] = []
    visited_dirs: set[str] = set()
    found_attachments: list[str] = []

    root_prefix = str(root_real) + os.sep

    def inside_vault(real: str) -> bool:
        return real == str(root_real) or real.startswith(root_prefix)

    budget = [COUNT_LEFT_OUT_UP_TO]

    def _tally(entry: os.DirEntry, why: str) -> None:
        try:
            if entry.is_dir(follow_symlinks=False):
                if why != HIDDEN and budget[0] > 0:  # a hidden folder is tool state (.venv, .cache): not walked
                    rules.left_out[why] += _count_notes(entry.path, budget)
            elif entry.name.lower().endswith(".md"):
                rules.left_out[why] += 1
        except OSError:
            pass

    def walk(directory: str, rel_dir: str) -> None:
        real_dir = os.path.realpath(directory)
        if real_dir in visited_dirs:
            problems.append(ScanProblem(rel_dir or ".", "symlink loop: folder already visited, not followed again"))
            return
        visited_dirs.add(real_dir)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            problems.append(ScanProblem(rel_dir or ".", f"cannot list folder: {exc.strerror or exc}"))
            return
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if _skip_name(entry.name) or entry.name in IGNORED_DIRS:
                if entry.name not in IGNORED_DIRS and entry.name.startswith("."):
                    _tally(entry, HIDDEN)
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_dir = False
            why = rules.reason(rel, is_dir)
            if why is not None:
                _tally(entry, why)
                continue
            if not is_utf8(entry.name):
                # a note or a folder of notes is named (an attachment no UTF-8 link can name is left out)
                if entry.name.lower().endswith(".md") or _is_dir(entry):
                    problems.append(
                        ScanProblem(printable_path(rel), "file name is not UTF-8 (rename it to index it); skipped")
                    )
                continue
            path = entry.path
            if entry.is_symlink():
                try:
                    real = os.path.realpath(path, strict=True)
                except (OSError, RuntimeError):
                    problems.append(ScanProblem(rel, "broken or looping symlink, skipped"))
                    continue
                if not inside_vault(real):
                    continue
            try:
                if entry.is_dir(follow_symlinks=True):
                    if index_real and os.path.realpath(path) == index_real:
                        continue
                    walk(path, rel)
                    continue
                if not entry.name.lower().endswith(".md"):
                    if attachments is not None:
                        found_attachments.append(rel)
                    continue
                stat = entry.stat(follow_symlinks=True)
            except OSError as exc:
                problems.append(ScanProblem(rel, f"cannot stat: {exc.strerror or exc}"))
                continue
            if not stat_module.S_ISREG(stat.st_mode):
                problems.append(ScanProblem(rel, f"{file_kind(stat.st_mode)}, not a regular file; skipped"))
                continue
            notes.append(NoteFile(rel, path, stat.st_size, stat.st_mtime_ns))

    walk(str(vault), "")
    notes.sort(key=lambda n: n.rel_path)
    if attachments is not None:
        attachments.extend(sorted(found_attachments))
    return notes, problems


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    if stat_module.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat_module.S_ISCHR(mode) or stat_module.S_ISBLK(mode):
        return "a device"
    if stat_module.S_ISSOCK(mode):
        return "a socket"
    if stat_module.S_ISDIR(mode):
        return "a folder"
    return "a special file"


def is_ignored(rel_path: str, exclude: list[str] | None = None, rules: VaultRules | None = None) -> bool:
    """True for a vault path that ``scan_vault`` never walks into or returns: hidden, tool state,
    editors' temporary files, excluded by the user, or left out by the vault's ``rules`` (the watch daemon
    filters its events with it)."""
    parts = PurePosixPath(rel_path).parts
    if any(_skip_name(part) or part in IGNORED_DIRS for part in parts) or is_excluded(rel_path, exclude or []):
        return True
    return rules is not None and rules.leaves_out(rel_path)
