"""The store's statements about notes and their passages as the indexer writes them."""

from __future__ import annotations


class NoteQueries:
    """Mixed into ``Store``: reading and writing notes, passage rows, links and versions while indexing."""
