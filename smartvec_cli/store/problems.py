"""The store's statements about notes that could not be read whole: written by the indexer, read by
``status`` and ``doctor``, so a problem is not forgotten once the run that met it has printed it."""

from __future__ import annotations

from typing import Iterable

from .base import StoreBase


class ProblemQueries(StoreBase):
    """Mixed into ``Store``: the last problem of each vault path."""

    def remember_note_problems(
        self, errors: list[dict], read: Iterable[str], present: set[str] | None, now: str
    ) -> None:
        """Keep this run's ``errors`` (``{path, error}``) as each path's last problem; forget the problems of
        the ``read`` paths that had none this time, and of every path no longer ``present`` in the vault
        (None: the run did not look at the whole vault, so keep them)."""
        found: dict[str, list[str]] = {}
        for entry in errors:
            found.setdefault(entry["path"], []).append(entry["error"])
        with self.write():
            cleared = [path for path in read if path not in found]
            if present is not None:
                cleared += [
                    row[0] for row in self.db.execute("SELECT path FROM note_problems") if row[0] not in present
                ]
            for path in cleared:
                self.db.execute("DELETE FROM note_problems WHERE path = ?", [path])
            if found:
                self.db.table("note_problems").upsert_all(
                    [{"path": path, "error": "; ".join(messages), "seen_at": now} for path, messages in found.items()],
                    pk="path",
                )

    def note_problems(self) -> list[dict]:
        """``{path, error, seen_at}`` for every note last skipped, or read without its metadata, by path."""
        return list(self.db.query("SELECT path, error, seen_at FROM note_problems ORDER BY path"))

    def count_note_problems(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM note_problems").fetchone()[0]
