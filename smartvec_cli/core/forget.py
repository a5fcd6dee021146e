"""``forget``: erase what the index keeps of deleted notes.

A deleted note's passages stay in the index as history (valid until the run that saw the file gone), so a
question about their time still finds them. Erasing them is never a side effect of indexing: it is this
explicit step, for text that must not be kept (a secret pasted by mistake, a note removed for a reason).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..store.store import Store
from .report import find_note
from .results import ForgetResult


def notes_to_forget(store: Store, names: list[str], every_deleted: bool, vault: str | Path | None = None) -> list[dict]:
    """The deleted notes named (by path, old path, id or title), or every deleted note; a note still in the
    vault is refused: forgetting it would only last until the next index."""
    if every_deleted:
        return store.deleted_notes()
    notes: dict[int, dict] = {}
    for name in names:
        note = find_note(store, name, vault)
        if not note["deleted_at"]:
            raise UsageError(
                f"{note['path']} is still in the vault: delete the file and run 'smartvec index' before forgetting it"
            )
        notes[note["id"]] = note
    return list(notes.values())


def forget(store: Store, notes: list[dict]) -> ForgetResult:
    """Erase these deleted notes in one transaction; the vector index follows.

    Erased for real: the database's files are rewritten (``Store.erase_freed``), and the vector file is built
    anew from the vectors left (a removed vector would stay in the old one as a tombstone), with no copy of the
    old one kept in ``backup/``."""
    passages = 0
    with store.write():
        for note in notes:
            passages += len(store.purge_note(note["id"]))
        if notes:
            store.bump_generation()
    if notes:
        store.rebuild_ann()
        store.ann_damage = None  # the old file held the forgotten vectors: no backup of it
        store.save_ann()
        store.erase_freed()
    return ForgetResult(tuple(note["path"] for note in notes), passages)
