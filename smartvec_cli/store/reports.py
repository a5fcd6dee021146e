"""The store's read-only views for status, show, history, graph and doctor."""

from __future__ import annotations


class ReportQueries:
    """Mixed into ``Store``: what the reports and the doctor read."""
