"""Relations among notes, resolved after the indexer has written them: links to what they name, versions
inferred from names and shared passages, and the validity a superseding note ends.

Each step reads what the store holds (all notes, not only this run's) and writes the edges it changes,
in its own transaction; the indexer marks the relations stale until all three have run
(``core.indexer.RELATIONS_STALE``), so an interrupted run finishes them next time.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache

import numpy as np

from ..config import Config
from ..errors import SmartvecError
from ..memory.lineage import (
    InferredSupersession,
    PassageOverlap,
    VersionCandidate,
    copy_candidates,
    infer_copies,
    infer_supersessions,
)
from ..store.protocols import NoteRelations, VectorSearch
from ..store.store import Store
from ..vault.links import KEYS_KEPT, LinkResolver, NoteName, lookup_keys, note_keys


def resolve_links(
    store: NoteRelations,
    attachments: list[str],
    only_notes: list[int] | None = None,
    renamed: tuple[list[NoteName], set[int]] | None = None,
) -> None:
    """Point links at the notes or attachments they name (``vault.links``: the path, relative to the
    linking note for a Markdown link, then file name or alias as written, title, then case-folded, the
    shortest path on ties).

    Only the written notes' links are resolved, unless the set of names changed (a note or attachment
    appeared, went, moved, or a note changed its title or aliases): then every link is, or, given
    ``renamed`` (the names the changed notes had, and those notes), every link that looks up one of the
    names they had or have now, or leads to one of them, besides ``only_notes``' own: no other link can lead
    elsewhere than it did (a git import changes a few names in each of hundreds of commits).
    """
    names = [note_name(*row) for row in store.live_note_names()]
    rows = store.link_rows(only_notes if renamed is None else None)
    if renamed is not None:
        before, changed = renamed
        keys: set[str] = set()
        for name in [*before, *(n for n in names if n.pk in changed)]:
            keys |= note_keys(name)
        own = set(only_notes or ())
        mine = {r[0] for r in store.link_rows(sorted(own))} if own else set()
        rows = [
            row
            for row in rows
            if row[0] in mine or row[4] in changed or not lookup_keys(row[2], row[1]).isdisjoint(keys)
        ]
    wanted = set().union(*(lookup_keys(row[2], row[1]) for row in rows))
    # A link resolves among the notes filed under the keys it looks up: the others need not be filed at all.
    resolver = LinkResolver([n for n in names if not note_keys(n).isdisjoint(wanted)], attachments)
    with store.write():
        for edge_id, source_path, target, detail_json, current in rows:
            detail = json.loads(detail_json) if detail_json else {}
            found = resolver.resolve(target, source_path, markdown=bool(detail.get("markdown")))
            updated = {k: v for k, v in detail.items() if k != "attachment"}
            if found.attachment:
                updated["attachment"] = found.attachment
            if found.note != current or updated != detail:
                store.set_link_destination(edge_id, found.note, json.dumps(updated))


@lru_cache(maxsize=KEYS_KEPT)
def note_name(note_pk: int, path: str, title: str | None, note_id: str, metadata: str | None) -> NoteName:
    """What links can call a stored note by (its ``aliases`` from the front matter JSON)."""
    aliases = aliases_of(metadata) or []
    aliases = aliases if isinstance(aliases, list) else [aliases]
    return NoteName(note_pk, path, title, note_id, tuple(str(a) for a in aliases if a is not None and str(a).strip()))


class VersionsMemo:
    """What ``infer_versions`` worked out at the last run, for a caller that runs it again and again while no
    stored vector changes (a git import, once a commit): each part is reused while what it is made from is the
    same, the supersessions inferred from names while every candidate is, what two notes' passages share while
    both hold the same passage rows with the same vectors."""

    def __init__(self) -> None:
        self.candidates: list[VersionCandidate] | None = None
        self.by_name: list[InferredSupersession] = []
        self.held: dict[tuple[tuple[int, str, str], ...], int] = {}  # the passages a note holds -> their number
        self.pairs: dict[tuple[int, int], tuple[Counter, int]] = {}  # two such numbers -> (texts in both, near)
        self.copies_from: tuple | None = None
        self.copies: list[InferredSupersession] = []

    def holding(self, passages: tuple[tuple[int, str, str], ...]) -> int:
        """The number that stands for a note holding these passages (row, text hash, vector's hash), in order."""
        return self.held.setdefault(passages, len(self.held))


def infer_versions(store: Store, config: Config, now: str, memo: VersionsMemo | None = None) -> bool:
    """Copies of a note named as versions ("X v2", "X (2024)"), or whose passages mostly match, supersede
    one another as if declared (``memory.lineage``), as edges marked ``inferred`` with their reason;
    whether those edges changed.
    Runs over every note's name on each run (a cheap scan), so turning it off in ``config.toml`` takes
    effect at the next ``index``. ``memo`` keeps what the next run may reuse (``VersionsMemo``)."""
    inferred: list[InferredSupersession] = []
    paths: dict[int, str] = {}
    if config.consolidation.infer_versions:
        memo = memo or VersionsMemo()
        candidates = [
            VersionCandidate(note, path, title or "", doc_date, created_at, source_type, bool(declared))
            for note, path, title, doc_date, created_at, source_type, declared in store.lineage_candidates()
        ]
        if candidates != memo.candidates:
            memo.candidates, memo.by_name = candidates, infer_supersessions(candidates)
        inferred = list(memo.by_name)
        overlaps = passage_overlaps(store, {c.note for c in copy_candidates(candidates)}, memo)
        if memo.copies_from != (candidates, overlaps, inferred):
            memo.copies_from, memo.copies = (
                (candidates, overlaps, list(inferred)),
                infer_copies(candidates, overlaps, inferred),
            )
        inferred += memo.copies
        paths = {c.note: c.path for c in candidates}
    rows = [
        {
            "src_note": edge.newer,
            "dst_note": edge.older,
            "type": "supersedes",
            "target": paths[edge.older],
            "detail": json.dumps({"inferred": True, "reason": edge.reason, "start": edge.start}),
            "created_at": now,
        }
        for edge in inferred
    ]
    wanted = {(row["src_note"], row["dst_note"]): row["detail"] for row in rows}
    if wanted == store.inferred_supersessions():
        return False
    with store.write():
        store.replace_inferred_supersessions(rows)
    return True


def apply_supersession(store: NoteRelations) -> None:
    """A note that another note ``supersedes`` stops being valid when its successor starts; a note whose front
    matter says ``status: archived`` (or ``deprecated``) stops being valid when the index first saw it so
    (the time the indexer stored as its ``superseded_at``, with no successor): its passages then answer only
    for a time before it, or with ``--include-archived``, as a superseded note's do."""
    starts: dict[int, tuple[str, int | None]] = {}
    for dst, start, src in store.supersession_links():
        if dst not in starts or start < starts[dst][0]:
            starts[dst] = (start, src)
    current = store.superseded_notes()
    for note_pk in store.notes_archived_by_status():
        archived_at = current.get(note_pk, (None, None))[0]
        if note_pk not in starts and archived_at is not None:
            starts[note_pk] = (archived_at, None)
    changed = [n for n in set(starts) | set(current) if starts.get(n) != current.get(n)]
    if not changed:
        return
    with store.write():
        for note_pk in changed:
            superseded_at, superseded_by = starts.get(note_pk, (None, None))
            store.set_superseded(note_pk, superseded_at, superseded_by)
        store.refresh_windows(changed)
        store.mark_notes_pending(changed)


COMMON_PASSAGE_NOTES = 3
"""A passage text found in more notes than this is boilerplate (a template's fixed section, a shared footer, a
contact line under every policy of one owner): it counts as matched, but two notes matched only by
boilerplate are notes of one template, not copies (``PassageOverlap.distinct``)."""
PAIRED_BY_AT_MOST = 20
"""Only passage texts found in at most this many notes make their notes candidates for comparison: a text in
hundreds of notes (an empty template section) would make every pair of them one."""
NEAR_COPY_COSINE = 0.95
"""Stored vectors this close make two passages near-identical: one edited copy of the other (a changed number, a
date, a word or two). On the benchmark's calibration vault (seed 1729, plain style) every passage of a policy copy
has a partner 0.95 or closer in the other copy in 17 of 18 pairs of copies (2 of 3 in the last), and no two
passages of different notes are closer than 0.875 (docs/ranking.md, *Copies under another name*)."""


def passage_overlaps(store: Store, notes: set[int], memo: VersionsMemo | None = None) -> list[PassageOverlap]:
    """How far the current passages of each two of ``notes`` that share a passage text match (one to one:
    identical texts first, then the closest near-identical pairs by stored vector). Texts are compared by their
    own hash, without the note title that the stored ``hash`` covers, so a copy under another name shares them.
    Only notes sharing at least one identical text are compared, so the cost follows the copies, not the size of
    the vault. ``memo`` holds the pairs worked out before (``VersionsMemo``)."""
    memo = memo or VersionsMemo()
    shared = store.shared_passages()
    boilerplate = {text_hash for text_hash, holders in shared if len(holders) > COMMON_PASSAGE_NOTES}
    pairs: set[tuple[int, int]] = set()
    for _, holders in shared:
        held = sorted(n for n in holders if n in notes)
        if len(holders) <= PAIRED_BY_AT_MOST:
            pairs.update((a, b) for i, a in enumerate(held) for b in held[i + 1 :])
    if not pairs:
        return []
    passages: dict[int, list[tuple[int, str, str]]] = {}  # note -> (row, text hash, hash its vector is found by)
    for note, row, text_hash, vector_hash in store.current_passages_of(sorted({n for pair in pairs for n in pair})):
        passages.setdefault(note, []).append((row, text_hash, vector_hash))
    holds = {note: memo.holding(tuple(held)) for note, held in passages.items()}
    vectors: dict[int, np.ndarray] | None = None
    found = []
    for a, b in sorted(pairs):
        left, right = passages.get(a, []), passages.get(b, [])
        key = (holds.get(a, -1), holds.get(b, -1))
        known = memo.pairs.get(key)
        if known is None:
            exact = Counter(t for _, t, _ in left) & Counter(t for _, t, _ in right)
            unmatched = _without(left, exact), _without(right, exact)
            near, lasting = 0, True
            if unmatched[0] and unmatched[1]:
                if vectors is None:
                    vectors = _vectors(store, [row for held in passages.values() for row, _, _ in held])
                near, lasting = _near_identical(*unmatched, vectors), bool(vectors)
            known = (exact, near)
            if lasting:  # no vector lost: the counts stand while both notes hold these rows with these vectors
                memo.pairs[key] = known
        exact, near = known
        rare = sum(count for text_hash, count in exact.items() if text_hash not in boilerplate)
        found.append(PassageOverlap((a, b), sum(exact.values()) + near, rare + near, max(len(left), len(right)), near))
    return found


def _vectors(store: VectorSearch, rows: list[int]) -> dict[int, np.ndarray]:
    """The stored vectors of these passage rows, none when some are lost (``doctor`` says so; ``index --full``
    embeds them again): identical texts only then."""
    try:
        return dict(zip(rows, store.vectors_for_chunks(rows), strict=True))
    except SmartvecError:
        return {}


def _near_identical(left: list[int], right: list[int], vectors: dict[int, np.ndarray]) -> int:
    """How many of these passage rows pair off, one to one and closest first, at ``NEAR_COPY_COSINE`` or closer."""
    if not (vectors and left and right):
        return 0
    cosines = np.stack([vectors[r] for r in left]) @ np.stack([vectors[r] for r in right]).T
    used_left: set[int] = set()
    used_right: set[int] = set()
    for i, j in zip(*np.unravel_index(np.argsort(-cosines, axis=None), cosines.shape), strict=True):
        if cosines[i, j] < NEAR_COPY_COSINE:
            break
        if i not in used_left and j not in used_right:
            used_left.add(i)
            used_right.add(j)
    return len(used_left)


def _without(passages: list[tuple[int, str, str]], matched: Counter) -> list[int]:
    """The rows of ``passages`` left once the ``matched`` texts (as many of each as matched) are taken out."""
    left, rows = Counter(matched), []
    for row, text_hash, _ in passages:
        if left[text_hash]:
            left[text_hash] -= 1
        else:
            rows.append(row)
    return rows


def aliases_of(metadata_json: str | None):
    """The ``aliases`` of a note's stored front matter (JSON), without parsing notes that have none."""
    return json.loads(metadata_json).get("aliases") if metadata_json and '"aliases"' in metadata_json else None
