"""The store's statements for consolidation and feedback: edges, penalties, states, importance."""

from __future__ import annotations


class GraphQueries:
    """Mixed into ``Store``: what consolidation and feedback read and change."""
