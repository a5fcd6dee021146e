"""Which note or attachment a link names, the way Obsidian decides it.

A Markdown link's path is read relative to the linking note's folder first, then from the vault's
root; a path that climbs out of the vault names nothing. Any link then falls back to names, best
tier first: the exact path; the file name or an alias as written (exact case); the title or note id
as written; then the same case-folded (with aclarai's ``_`` for spaces). Within a tier the shortest
path wins, as in Obsidian, so ``[[SecretStorage]]`` names ``SecretStorage.md`` even where
``App/secretStorage.md`` exists, and a name shared by two notes names the shallower one. A target
that is no note but a file in the vault (an image, a PDF) resolves to that attachment.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from .paths import normalised_inside

NOTE_SUFFIX = ".md"


KEYS_KEPT = 1 << 16
"""Link targets and note names whose keys are remembered: a run that changed names reads every note's names and
every link's target again (a git import, once per commit)."""


@lru_cache(maxsize=KEYS_KEPT)
def link_key(name: str) -> str:
    """Case-, extension- and separator-insensitive form of a link target or note name."""
    name = name.strip().lower()
    if name.endswith(NOTE_SUFFIX):
        name = name[:-3]
    return name.replace(" ", "_").replace(":", "_")


def _stem(path: str) -> str:
    return path[:-3] if path.lower().endswith(NOTE_SUFFIX) else path


@dataclass(frozen=True)
class NoteName:
    """What a link can call a note by."""

    pk: int
    path: str
    title: str | None = None
    note_id: str | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resolved:
    """A link's destination: a note (its row id), an attachment (its vault path), or neither."""

    note: int | None = None
    attachment: str | None = None

    def __bool__(self) -> bool:
        return self.note is not None or self.attachment is not None


UNRESOLVED = Resolved()


def inside_vault(path: str) -> str | None:
    """``path`` normalised (``a/./b/../c`` is ``a/c``), or None when it climbs out of the vault."""
    if not path:
        return None
    normal = normalised_inside(path.lstrip("/"))
    return None if normal == "." else normal


BY_PATH, BY_STEM = -1, -2
"""``_filed_under``'s tables besides the name tiers 0-3: a note's path, and its path without ``.md``."""


def _filed_under(note: NoteName) -> Iterable[tuple[int, str]]:
    """(table, key) for every place ``LinkResolver`` files ``note``: its path and stem, then the name tiers (0 exact
    path tail or alias, 1 exact title or id, 2 and 3 the same case-folded: ``link_key``)."""
    stem = _stem(note.path)
    yield BY_PATH, note.path
    yield BY_STEM, stem
    parts = stem.split("/")
    for i in range(len(parts)):  # every tail of the path: ``[[folder/Note]]`` names ``a/folder/Note.md``
        suffix = "/".join(parts[i:])
        yield 0, suffix
        yield 2, link_key(suffix)
    for alias in note.aliases:
        yield 0, alias.strip()
        yield 2, link_key(alias)
    for name in (note.title, note.note_id):
        if name and name.strip():
            yield 1, name.strip()
            yield 3, link_key(name)


@lru_cache(maxsize=KEYS_KEPT)
def note_keys(note: NoteName) -> frozenset[str]:
    """Every key ``LinkResolver`` files ``note`` under, in any of its tables: a link that looks up none of them
    (``lookup_keys``) cannot lead to it, whatever else the note is called."""
    return frozenset(key for _, key in _filed_under(note))


@lru_cache(maxsize=KEYS_KEPT)
def lookup_keys(target: str | None, source_path: str) -> frozenset[str]:
    """The keys ``LinkResolver.resolve`` may read for this link, Markdown or not (an empty target names the
    linking note, by its path)."""
    target = (target or "").strip()
    return _lookup_keys(target, posixpath.dirname(source_path)) if target else frozenset((source_path,))


@lru_cache(maxsize=KEYS_KEPT)
def _lookup_keys(target: str, folder: str) -> frozenset[str]:
    keys: set[str] = set()
    for path in (posixpath.join(folder, target), target):
        inside = inside_vault(path)
        if inside:
            keys.update((inside, inside + NOTE_SUFFIX))
    name = target[2:] if target.startswith("./") else target.lstrip("/")
    stem = _stem(name)
    keys.update((stem, link_key(stem)))
    return frozenset(keys)


class LinkResolver:
    """Built once per run from every live note's names and the vault's attachment paths."""

    def __init__(self, notes: Iterable[NoteName], attachments: Iterable[str] = ()):
        self._by_path: dict[str, NoteName] = {}
        self._folded_path: dict[str, list[NoteName]] = {}
        self._tiers: list[dict[str, list[NoteName]]] = [{}, {}, {}, {}]  # exact name/alias, exact title/id, folded ...
        for note in notes:
            for table, key in _filed_under(note):
                if table == BY_PATH:
                    self._by_path[key] = note
                elif table == BY_STEM:
                    self._by_path.setdefault(key, note)
                else:
                    self._tiers[table].setdefault(key, []).append(note)
        self._attachments = set(attachments)
        self._attachment_names: dict[str, list[str]] = {}
        self._folded_attachments: dict[str, list[str]] = {}
        for path in self._attachments:
            name = path.rsplit("/", 1)[-1]
            self._attachment_names.setdefault(name, []).append(path)
            self._folded_attachments.setdefault(name.lower(), []).append(path)

    def resolve(self, target: str | None, source_path: str, markdown: bool = False) -> Resolved:
        """Where a link written in the note at ``source_path`` leads (``markdown``: a ``[text](path)`` link)."""
        target = (target or "").strip()
        if not target:  # ``[[#Heading]]``, ``[text](#Heading)``: the linking note itself
            source = self._by_path.get(source_path)
            return Resolved(note=source.pk) if source else UNRESOLVED
        relative = target.startswith(("./", "../"))
        tries = []
        if markdown or relative:
            tries.append(inside_vault(posixpath.join(posixpath.dirname(source_path), target)))
        if not relative:
            tries.append(inside_vault(target))
        for path in tries:
            found = self._at_path(path) if path else UNRESOLVED
            if found:
                return found
        if relative and not target.startswith("./"):
            return UNRESOLVED  # a path up and out of the folder names that file or nothing, never a namesake
        name = target[2:] if target.startswith("./") else target.lstrip("/")
        stem = _stem(name)
        for tier, key in ((0, stem), (1, stem), (2, link_key(stem)), (3, link_key(stem))):
            namesakes = self._tiers[tier].get(key)
            if namesakes:
                return Resolved(note=min(namesakes, key=lambda n: (n.path.count("/"), len(n.path), n.path)).pk)
        return self._attachment_named(name)

    def _at_path(self, path: str) -> Resolved:
        note = (
            self._by_path.get(path)
            if path.lower().endswith(NOTE_SUFFIX)
            else self._by_path.get(path) or self._by_path.get(path + NOTE_SUFFIX)
        )
        if note:
            return Resolved(note=note.pk)
        return Resolved(attachment=path) if path in self._attachments else UNRESOLVED

    def _attachment_named(self, name: str) -> Resolved:
        """The attachment with this file name (or path tail), exact case before case-folded, the shallowest first."""
        base = name.rsplit("/", 1)[-1]
        for table, key, fold in ((self._attachment_names, base, False), (self._folded_attachments, base.lower(), True)):
            tail = ("/" + name).lower() if fold else "/" + name
            paths = [p for p in table.get(key, []) if ("/" + (p.lower() if fold else p)).endswith(tail)]
            if paths:
                return Resolved(attachment=min(paths, key=lambda p: (p.count("/"), len(p), p)))
        return UNRESOLVED
