"""One name for one thing in every JSON answer: ``--json``, the Python API and the MCP tools.

A passage is a ``passage`` (``passages``, ``passages_embedded``; its id stays ``chunk_id``, the name
``feedback CHUNK_ID`` takes), a note's id is ``note_id``, a vault file is a ``path``. Keys that were
named otherwise before are renamed where they are made (the code still says ``chunks`` in places); the old
names, printed beside the new ones for one release, are gone (``docs/output.md`` lists them).
"""

from __future__ import annotations

PASSAGE_COUNTS = {
    "passages_embedded": "chunks_embedded",
    "passages_reused": "chunks_reused",
    "passages_archived": "chunks_archived",
    "passages_recut": "chunks_recut",
}
"""``index`` (and ``refresh``'s index stage) counted passages as ``chunks_*``."""

PASSAGE_LISTS = {"passages": "chunks"}
"""``show`` listed a note's passages, and ``status`` counted them by state, as ``chunks``."""

FEEDBACK_EVENT = {"trust_before": "before", "trust_after": "after"}
"""A feedback event in ``history`` gave the passage's trust as ``before`` and ``after``, which ``feedback`` itself
calls ``trust_before`` and ``trust_after`` (the events are stored as they were; the names change as they are read)."""


def renamed(data: dict, names: dict[str, str]) -> dict:
    """``data`` with each old key in ``names`` (new -> old) under its new name, in its place."""
    old_to_new = {old: new for new, old in names.items()}
    return {old_to_new.get(key, key): value for key, value in data.items()}
