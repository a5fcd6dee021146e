"""Passage alignment: which of a note's stored passages each new passage continues.

A note re-read after an edit is cut into passages again; ``align_chunks`` maps the stored ones onto the
new ones, so that a passage keeps its identity (its ``chunk_id`` and version chain) across edits elsewhere
in the note, a move to another section, a reworded sentence or a split. Pure functions over passages: the
indexer reads the stored side and writes the plan.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, fields

from .chunk import Chunk


@dataclass
class StoredChunk:
    id: int
    key: str
    hash: str
    version: int
    text: str = ""
    observed_from: str | None = (
        None  # since when this text is known to stand in the note (None: since before the first index)
    )
    observed_by: str | None = None
    feedback: float = 0.0  # what a re-cut passage carries over (``core.indexer.Indexer._recut_passages``)
    access_count: int = 0
    last_accessed: str | None = None
    created_at: str | None = None


STORED_CHUNK_COLUMNS = tuple(f.name for f in fields(StoredChunk))

CHAIN_SIMILARITY = 0.5
"""Word overlap (Dice) from which a new passage continues an old one's version chain when neither its text nor
its key matches: a paragraph reworded, moved to another section, or the larger half of a split. Real edits keep
most of their words, far above this; unrelated paragraphs share far fewer; few pairs fall between, where no
value separates them cleanly (``smartvec bench history``'s overlaps: docs/benchmarks.md, *History*)."""
KEY_BONUS = 0.3
"""Added to the overlap of a pair in the same place (same key): position breaks near ties, never a clear text match."""
MERGED_CONTAINMENT = 0.8
"""The share of a vanished passage's words that a new passage must hold for the old one to have been merged into it."""
MAX_PAIRS = 40_000
"""Above this many (old, new) pairs in one note, only the same-place rule links versions (a bulk rewrite)."""


@dataclass
class ChunkPlan:
    """How a note's stored passages map onto its new passages."""

    keep: list[tuple[StoredChunk, Chunk]] = field(default_factory=list)
    revise: list[tuple[StoredChunk, Chunk]] = field(default_factory=list)
    add: list[Chunk] = field(default_factory=list)
    merged: list[tuple[StoredChunk, Chunk]] = field(
        default_factory=list
    )  # old text now part of a revised or added passage
    retire: list[StoredChunk] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        """Some passage is new, revised, merged or gone: the note's passages are not what is stored."""
        return bool(self.revise or self.add or self.merged or self.retire)


def word_counts(text: str) -> Counter:
    return Counter(re.findall(r"\w+", text.lower()))


def overlap(a: Counter, b: Counter) -> tuple[float, float]:
    """(Dice coefficient of the two word multisets, share of the smaller one's words the other holds)."""
    common = sum((a & b).values())
    sizes = sum(a.values()), sum(b.values())
    if not common:
        return 0.0, 0.0
    return 2 * common / (sizes[0] + sizes[1]), common / min(sizes)


def align_chunks(old: list[StoredChunk], new: list[Chunk]) -> ChunkPlan:
    """Match stored passages to new ones, so that each new text continues the version chain it came from.

    Same embedded text first (even if moved), then the same words under another title or heading (a renamed
    note: the passage is kept, embedded anew, never a new version of itself), then by similarity of text and
    place: the pairs whose words overlap by ``CHAIN_SIMILARITY`` or more, or that sit in the same place (same
    key), best first, one to one (a reworded paragraph, one moved to another section and edited, the larger
    half of a split). A stored passage left over whose words are mostly inside a revised or new one was merged
    into it; any other is retired. Matched passages keep their stored key, so chunk ids stay stable; new
    passages whose key is already taken get a numeric suffix.
    """
    plan = ChunkPlan()
    unmatched_old = {c.id: c for c in old}
    pending: list[Chunk] = []
    for chunk in new:
        match = next((c for c in unmatched_old.values() if c.hash == chunk.hash and c.key == chunk.key), None)
        if match:
            plan.keep.append((match, chunk))
            del unmatched_old[match.id]
        else:
            pending.append(chunk)
    for same in (
        lambda c, chunk: c.hash == chunk.hash,
        lambda c, chunk: c.text == chunk.text and c.key == chunk.key,
        lambda c, chunk: c.text == chunk.text,
    ):
        still: list[Chunk] = []
        for chunk in pending:
            match = next((c for c in unmatched_old.values() if same(c, chunk)), None)
            if match:
                chunk.key = match.key
                plan.keep.append((match, chunk))
                del unmatched_old[match.id]
            else:
                still.append(chunk)
        pending = still
    compare = len(still) * len(unmatched_old) <= MAX_PAIRS
    old_words = {c.id: word_counts(c.text) for c in unmatched_old.values()} if compare else {}
    new_words = [word_counts(c.text) for c in still] if compare else []
    pairs = []
    for i, chunk in enumerate(still):
        for stored in unmatched_old.values():
            similarity = overlap(old_words[stored.id], new_words[i])[0] if compare else 0.0
            same_place = stored.key == chunk.key
            if same_place or similarity >= CHAIN_SIMILARITY:
                pairs.append((similarity + (KEY_BONUS if same_place else 0.0), i, stored.id))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    continued: dict[int, StoredChunk] = {}
    for _, i, stored_id in pairs:
        if i in continued or stored_id not in unmatched_old:
            continue
        continued[i] = unmatched_old.pop(stored_id)
    taken = {c.key for c, _ in plan.keep} | {c.key for c in continued.values()}
    for i, chunk in enumerate(still):
        continuing = continued.get(i)
        if continuing is not None:
            chunk.key = continuing.key
            plan.revise.append((continuing, chunk))
            continue
        base, n = chunk.key, 2
        while chunk.key in taken or any(c.key == chunk.key for c in unmatched_old.values()):
            chunk.key, n = f"{base}-{n}", n + 1
        taken.add(chunk.key)
        plan.add.append(chunk)
    for stored in unmatched_old.values():
        best = max(
            ((overlap(old_words[stored.id], new_words[i])[1], i) for i in range(len(still))) if compare else (),
            default=(0.0, -1),
        )
        if best[0] >= MERGED_CONTAINMENT:
            plan.merged.append((stored, still[best[1]]))
        else:
            plan.retire.append(stored)
    return plan
