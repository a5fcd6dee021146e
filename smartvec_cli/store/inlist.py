"""Statements over many rows at once, in slices whose ``IN (...)`` lists both databases accept.

PostgreSQL binds at most 65,535 parameters per statement and some SQLite builds 32,766; a first
consolidation of 10,000 notes passes all 43,000 of their passage ids, twice where a statement asks for
either end of an edge. Every statement here is a SELECT, UPDATE or DELETE whose rows do not depend on one
another, so running it slice by slice changes nothing but the number of statements.
"""

from __future__ import annotations

from typing import Iterator, Sequence

IN_LIST_SIZE = 5000


def in_lists(values: Sequence, size: int | None = None) -> Iterator[tuple[list, str]]:
    """(slice, ``?,?,...`` for it) for each slice of ``values`` (``IN_LIST_SIZE`` long), none when it is empty."""
    values, size = list(values), size or IN_LIST_SIZE
    for start in range(0, len(values), size):
        part = values[start : start + size]
        yield part, ",".join("?" * len(part))


def first_of_each(rows: Sequence[tuple[int, int]], each: int) -> list[int]:
    """The ids of (id, group) rows, in order, keeping only the first ``each`` of every group."""
    seen: dict[int, int] = {}
    kept = []
    for row_id, group in rows:
        seen[group] = seen.get(group, 0) + 1
        if seen[group] <= each:
            kept.append(row_id)
    return kept
