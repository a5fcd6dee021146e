"""Finding the notes of a vault.

Only ``*.md`` files are notes; any other file is an attachment (an image, a PDF) that a note can
link to or embed, listed only when asked for. Hidden files and folders, Obsidian's and git's state,
the index folder itself and editors' temporary files are skipped, as are the user's
``exclude`` globs. Symbolic links are followed only while they stay inside the vault,
and a link that loops is reported, never followed twice.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat as stat_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

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


def _skip_name(name: str) -> bool:
    return name.startswith(".") or name.endswith(IGNORED_SUFFIXES)


def scan_vault(
    vault: Path,
    exclude: list[str] | None = None,
    index_dir: Path | None = None,
    attachments: list[str] | None = None,
) -> tuple[list[NoteFile], list[ScanProblem]]:
    """Walk the vault and return its notes sorted by path, plus what could not be looked at.

    Given a list as ``attachments``, the same walk appends to it the vault paths of the other files,
    sorted, which links resolve against: a second walk of a large vault would cost as much again."""
    vault = Path(vault)
    root_real = Path(os.path.realpath(vault))
    index_real = os.path.realpath(index_dir) if index_dir else None
    exclude = exclude or []
    excluded = glob_matcher(exclude)
    notes: list[NoteFile] = []
    problems: list[ScanProblem] = []
    visited_dirs: set[str] = set()
    found_attachments: list[str] = []

    root_prefix = str(root_real) + os.sep

    def inside_vault(real: str) -> bool:
        return real == str(root_real) or real.startswith(root_prefix)

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
                continue
            if excluded(rel):
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


def is_ignored(rel_path: str, exclude: list[str] | None = None) -> bool:
    """True for a vault path that ``scan_vault`` never walks into or returns: hidden, tool state,
    editors' temporary files, or excluded by the user (the watch daemon filters its events with it)."""
    parts = PurePosixPath(rel_path).parts
    return any(_skip_name(part) or part in IGNORED_DIRS for part in parts) or is_excluded(rel_path, exclude or [])
