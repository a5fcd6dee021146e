"""``related NOTE``: the notes most like one note, by what their current passages say.

Every current passage of the note is a question, asked of every current passage of every other live
note (``best``): a note scores the cosine of its passage that answers one of them best, and a note
none of whose passages reaches ``RELATED_FLOOR`` (a cosine under which MiniLM's passages are about something
else) for any of them is not related at all. The alternatives are the note's mean vector as one
question (``mean``) and the mean over the note's passages of each one's best answer in the other note
(``average``); ``best`` is the default because it agrees with a vault's own links and shared tags as
often as they do or more (``docs/filters.md`` compares them on ``sample_vault``).

The note itself is never related to itself, and neither are its versions: the notes its lineage
(written or inferred ``supersedes`` edges, ``memory.lineage``) connects it with, in either direction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import Config
from ..errors import UsageError
from ..memory.lineage import lineage_members
from ..store.ann import unit_matrix
from ..store.store import Store
from .results import NoteRef, PassageHeading, PassageRef, RelatedNote, RelatedNotes

METHODS = ("best", "average", "mean")


RELATED_FLOOR = 0.25
"""The cosine a passage of another note must reach for one of the note's passages to relate the two."""


@dataclass
class Nearest:
    note: int
    score: float
    passage: int  # the row of its passage closest to the note
    source: int  # the note's own passage that one answers best


def related_notes(store: Store, config: Config, note: int, top_k: int = 5, method: str = "best") -> list[Nearest]:
    """The ``top_k`` notes most like ``note`` (see the module), best first."""
    rows = store.current_passage_notes()
    excluded = lineage_members(store.supersedes_note_pairs(), note)
    own = [row for row, owner in rows if owner == note]
    others = [(row, owner) for row, owner in rows if owner not in excluded]
    if not own or not others:
        return []
    _, mine = unit_matrix(own, store.vectors_for_chunks(own))
    labels = [row for row, _ in others]
    _, theirs = unit_matrix(labels, store.vectors_for_chunks(labels))
    owners = np.asarray([owner for _, owner in others], dtype=np.int64)
    pairs = mine @ theirs.T  # (the note's passages, the others' passages)
    centre = mine.mean(axis=0)
    centre = theirs @ (centre / max(float(np.linalg.norm(centre)), 1e-12))
    floor = RELATED_FLOOR
    found = []
    order = np.argsort(owners, kind="stable")
    starts = np.flatnonzero(np.r_[True, owners[order][1:] != owners[order][:-1]])
    for columns in np.split(order, starts[1:]):
        block = pairs[:, columns]
        best_each = block.max(axis=1)  # per passage of the note: the closest passage of this other note
        if float(best_each.max()) < floor:
            continue
        source, column = np.unravel_index(int(np.argmax(block)), block.shape)
        score = {
            "average": float(best_each.mean()),
            "best": float(best_each.max()),
            "mean": float(centre[columns].max()),
        }[method]
        found.append(Nearest(int(owners[columns[0]]), round(score, 6), labels[int(columns[column])], own[int(source)]))
    found.sort(key=lambda r: (-r.score, r.note))
    return found[:top_k]


def related_report(
    store: Store, config: Config, note: dict, vault, top_k: int = 5, method: str = "best"
) -> RelatedNotes:
    """What ``related --json`` prints (``results.RelatedNotes``): the note, and each related note with its closest
    passage and the note's own passage that passage answers best (why they are related), each with the URL that
    opens it."""
    from .note_links import is_obsidian_vault, note_url

    if method not in METHODS:
        raise UsageError(f"method must be one of {', '.join(METHODS)}")
    found = related_notes(store, config, note["id"], top_k, method)
    passages = store.passages([r.passage for r in found] + [r.source for r in found])
    obsidian = is_obsidian_vault(vault)
    related = []
    for rank, item in enumerate(found, start=1):
        passage, source = passages[item.passage], passages.get(item.source)
        related.append(
            RelatedNote(
                rank=rank,
                path=passage.path,
                note_id=passage.note_id,
                title=passage.title,
                score=item.score,
                url=note_url(vault, passage.path, obsidian),
                passage=PassageRef(passage.chunk_id, passage.heading, passage.text),
                because_of=PassageHeading(source.chunk_id, source.heading) if source else None,
            )
        )
    subject = NoteRef(note["path"], note["note_id"], note["title"], note_url(vault, note["path"], obsidian))
    return RelatedNotes(subject, method, tuple(related))
