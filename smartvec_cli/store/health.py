"""What ``doctor`` hears from a store: the checks that differ between databases are the store's own methods
(``Store.check_database``, ``Store.check_vector_index``), which report each finding to the doctor as they make it,
so that a check that fails half way still leaves what it found."""

from __future__ import annotations

from typing import Protocol

EXAMPLES = 3
"""Passages or problems a finding names as examples, however many there are."""


class Finding(Protocol):
    """One finding as the doctor keeps it; a repair marks it ``repaired`` and says what it did in ``detail``."""

    ok: bool
    detail: str
    repaired: bool


class Findings(Protocol):
    """Where a store reports its findings (``core.doctor.Doctor``)."""

    def add(self, name: str, ok: bool, detail: str, repairable: bool = False) -> Finding: ...
