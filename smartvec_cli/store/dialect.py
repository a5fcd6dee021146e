"""The SQL pieces in which SQLite and PostgreSQL differ, so that every statement of the store is written once.

A statement the two stores share takes its differing parts from the store's ``dialect`` (``Store.dialect``):
how a JSON field of an edge's ``detail`` is read and what it holds for true, the function that gives the
larger of two values, and how the size of a stored vector is measured. Placeholders are SQLite's ``?`` in
both: the PostgreSQL connection rewrites them (``postgres.database.to_pg``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    json_field: str
    """A JSON text column's field as SQL, with ``{column}`` and ``{key}`` to fill."""
    json_true: str
    """What ``json_field`` reads for JSON ``true``."""
    json_false: str
    """What ``json_field`` reads for JSON ``false``."""
    greatest: str
    """The function giving the larger of two values (SQLite's scalar ``max``)."""
    vector_size: str
    """The size of an ``embeddings.vector``, in units of ``vector_unit`` values."""
    vector_unit: int
    """How many units of ``vector_size`` one vector value takes (SQLite stores float32 blobs: 4 bytes)."""

    def field(self, column: str, key: str) -> str:
        """The JSON field ``key`` of ``column``."""
        return self.json_field.format(column=column, key=key)

    @property
    def inferred_edge(self) -> str:
        """The test that an edge (its ``detail``) was made by inference (lineage), not written in a note."""
        return f"COALESCE({self.field('detail', 'inferred')}, {self.json_false}) = {self.json_true}"

    @property
    def inferred_reason(self) -> str:
        """Why an edge ``e`` was inferred, NULL for a declared one."""
        inferred = self.field("e.detail", "inferred")
        return f"CASE WHEN {inferred} = {self.json_true} THEN {self.field('e.detail', 'reason')} END"


SQLITE = Dialect(
    json_field="json_extract({column}, '$.{key}')",
    json_true="1",
    json_false="0",
    greatest="max",
    vector_size="length(vector)",
    vector_unit=4,
)

POSTGRES = Dialect(
    json_field="{column}::jsonb ->> '{key}'",
    json_true="'true'",
    json_false="'false'",
    greatest="GREATEST",
    vector_size="vector_dims(vector)",
    vector_unit=1,
)
