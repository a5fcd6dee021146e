"""A passage as the memory model sees it: what one stored version says, when, and how far to trust it.

The store builds these values from its rows; everything in ``memory`` reads them and
never a row, so the model can be reasoned about (and tested) without a database.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Passage:
    id: int  # the stored version's row id (also its label in the vector index)
    note: int  # its note's row id
    chunk_id: str
    note_id: str
    path: str
    title: str
    heading: str
    text: str
    state: str
    version: int
    valid_from: str | None = None
    valid_until: str | None = None
    from_source: str | None = (
        None  # where valid_from came from: declared, observed, inferred, git (None: unknown start)
    )
    until_source: str | None = None  # where valid_until came from
    created_at: str | None = None  # when this version was first indexed
    observed_from: str | None = None  # when an edit that made this version was seen
    last_accessed: str | None = None
    feedback: float = 0.0
    access_count: int = 0
    contradiction_penalty: float = 0.0
    ripple_penalty: float = 0.0
    echo_penalty: float = 0.0  # it repeats a value a later version replaced
    authority: float | None = None  # C0 of its note; None: the configured default
    source_type: str | None = None
    declared: bool = False  # the note declares its validity (effective date, expiry, version, supersedes)
    doc_date: str | None = None  # the note's own date
    importance: float | None = None
    successor_chunk: str | None = None  # the version that replaced this one in its note
    successor_version: int | None = None
    successor_from: str | None = None
    note_superseded_by: int | None = None  # the note that superseded this passage's note
    note_superseded_at: str | None = None
    successor_note_path: str | None = None
    supersession_inferred: str | None = (
        None  # why its note was inferred to be superseded (memory.lineage); None if declared
    )
    note_deleted_at: str | None = None  # when the run that found its note gone ran; None while the note exists
    note_status: str | None = None  # its note's front-matter ``status`` (``archived``, ``deprecated`` retire it)
    note_passages: int = 0  # how many live passages its note holds now (a confidence feature)

    @property
    def heading_path(self) -> list[str]:
        return self.heading.split(" > ") if self.heading else []


@dataclass(frozen=True)
class Relation:
    """A passage-level edge that the user should hear about with a hit: a correction, a contradiction, or
    a repeated outdated value."""

    kind: str  # corrects | contradicts | echoes
    src: int
    dst: int
    src_chunk_id: str
    src_path: str
    dst_chunk_id: str
    dst_path: str
    reason: str | None = None
