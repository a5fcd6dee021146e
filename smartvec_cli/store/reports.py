"""The store's read-only views for status, show, history, graph and doctor."""

from __future__ import annotations

from typing import Sequence

from .base import StoreBase
from .inlist import in_lists


class ReportQueries(StoreBase):
    """Mixed into ``Store``: what the reports and the doctor read (``Store.dialect`` reads an edge's reason)."""

    # -- the whole index (status, doctor) -----------------------------------------------------

    def passage_counts_by_state(self) -> dict[str, int]:
        """How many stored passage versions are in each state (states without any are left out)."""
        return {row[0]: row[1] for row in self.db.execute("SELECT state, COUNT(*) FROM chunks GROUP BY state")}

    def last_run(self) -> dict | None:
        """The latest recorded run (command, started_at, finished_at, status, summary as JSON text)."""
        return next(
            iter(
                self.db.query(
                    "SELECT command, started_at, finished_at, status, summary FROM runs ORDER BY id DESC LIMIT 1"
                )
            ),
            None,
        )

    def live_note_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM notes WHERE deleted_at IS NULL").fetchone()[0]

    def note_kind_counts(self) -> dict:
        """How many live vault notes have a declared, an inferred or no kind, and how many have neither a kind
        nor any date of their own (no validity, no ``date:``/``created:``, no day in the name)."""
        declared, inferred, unknown, bare = self.db.execute(
            """SELECT COUNT(*) FILTER (WHERE kind_source = 'declared'),
                      COUNT(*) FILTER (WHERE kind_source = 'inferred'),
                      COUNT(*) FILTER (WHERE kind_source IS NULL),
                      COUNT(*) FILTER (WHERE kind_source IS NULL AND valid_from IS NULL AND valid_until IS NULL
                                       AND doc_date IS NULL)
               FROM notes WHERE deleted_at IS NULL AND kind = 'vault'"""
        ).fetchone()
        return {"declared": declared, "inferred": inferred, "unknown": unknown, "unknown_and_undated": bare}

    def deleted_note_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM notes WHERE deleted_at IS NOT NULL").fetchone()[0]

    def deleted_notes_passage_count(self) -> int:
        """Passage versions kept as history of deleted notes (``forget`` erases them)."""
        return self.db.execute(
            "SELECT COUNT(*) FROM chunks WHERE state != 'DELETED' "
            "AND note IN (SELECT id FROM notes WHERE deleted_at IS NOT NULL)"
        ).fetchone()[0]

    def vector_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]

    def wrong_size_vector_count(self, dim: int) -> int:
        """How many stored vectors do not hold ``dim`` float32 values (written by another model)."""
        return self.db.execute(
            f"SELECT COUNT(*) FROM embeddings WHERE {self.dialect.vector_size} != ?", [dim * self.dialect.vector_unit]
        ).fetchone()[0]

    def edge_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM edges").fetchone()[0]

    def notes_needing_review(self) -> list[tuple[str, str, str]]:
        """(path, reason, since) of every live note consolidation flagged for a human, by path."""
        return self.db.execute(
            "SELECT path, review_reason, review_since FROM notes "
            "WHERE review_reason IS NOT NULL AND deleted_at IS NULL ORDER BY path"
        ).fetchall()

    def live_passage_ids(self) -> set[int]:
        """Row ids of every stored passage version that is not deleted, with or without a vector."""
        return {r[0] for r in self.db.execute("SELECT id FROM chunks WHERE state != 'DELETED'")}

    def passage_versions(self, ids: Sequence[int]) -> list[tuple[str, int]]:
        """(chunk_id, version) of these passage rows, to name them in messages."""
        return [
            row
            for part, marks in in_lists(ids)
            for row in self.db.execute(f"SELECT chunk_id, version FROM chunks WHERE id IN ({marks})", part).fetchall()
        ]

    # -- finding a note (show, history, graph) ------------------------------------------------

    def live_notes_with_path(self, path: str) -> list[dict]:
        return list(self.db.query("SELECT * FROM notes WHERE deleted_at IS NULL AND path = ?", [path]))

    def live_notes_with_note_id(self, note_id: str) -> list[dict]:
        return list(self.db.query("SELECT * FROM notes WHERE deleted_at IS NULL AND note_id = ?", [note_id]))

    def live_notes_with_title(self, title: str) -> list[dict]:
        """Titles match whatever their case."""
        return list(self.db.query("SELECT * FROM notes WHERE deleted_at IS NULL AND lower(title) = lower(?)", [title]))

    def live_notes(self) -> list[dict]:
        return list(self.db.query("SELECT * FROM notes WHERE deleted_at IS NULL"))

    def live_titles_containing(self, fragment: str) -> list[str]:
        """The titles of live notes that hold ``fragment``, whatever its case (a question quoting a title)."""
        pattern = "%" + fragment.lower().replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"
        return [
            row[0]
            for row in self.db.execute(
                "SELECT DISTINCT title FROM notes WHERE deleted_at IS NULL AND lower(title) LIKE ? ESCAPE '!'",
                [pattern],
            )
        ]

    # -- one note (show, history) -------------------------------------------------------------

    def note_path(self, note: int) -> str | None:
        """The path of the note with this row id, deleted or not."""
        row = self.db.execute("SELECT path FROM notes WHERE id = ?", [note]).fetchone()
        return row[0] if row else None

    def note_passages(self, note: int) -> list[dict]:
        """A note's stored passage versions but the deleted ones: current text first, in reading order."""
        return list(
            self.db.query(
                "SELECT * FROM chunks WHERE note = ? AND state != 'DELETED' "
                "ORDER BY state = 'ARCHIVED', ordinal, version",
                [note],
            )
        )

    def links_of_note(self, note: int) -> list[dict]:
        """The edges out of a note (type, target as written, path of the note it resolved to, detail JSON, which
        names an attachment it resolved to, and for an edge between passages, such as ``contradicts``, the
        chunk ids of its two passages), in the order found."""
        return list(
            self.db.query(
                "SELECT e.type, e.target, n.path, e.detail, s.chunk_id AS src_passage, d.chunk_id AS dst_passage "
                "FROM edges e LEFT JOIN notes n ON n.id = e.dst_note LEFT JOIN chunks s ON s.id = e.src_chunk "
                "LEFT JOIN chunks d ON d.id = e.dst_chunk WHERE e.src_note = ? ORDER BY e.id",
                [note],
            )
        )

    def passage_lineage(self, note: int) -> list[dict]:
        """Every version of every passage of a note, deleted ones too, each with the chunk id and version
        of the row that replaced it (``successor``, ``successor_version``)."""
        return list(
            self.db.query(
                """SELECT c.*, s.chunk_id AS successor, s.version AS successor_version
           FROM chunks c LEFT JOIN chunks s ON s.id = c.superseded_by
           WHERE c.note = ? ORDER BY c.ordinal, c.version""",
                [note],
            )
        )

    def passages_begun_between(self, since: str, until: str) -> list[dict]:
        """Every passage version of a vault note first stored in ``[since, until)`` (ISO times), oldest first, with
        the version it replaced (``replaces``, ``replaces_version``, ``replaces_text``) when it replaced one."""
        return list(
            self.db.query(
                """SELECT c.chunk_id, c.version, c.heading, c.text, c.created_at AS at, n.path,
                          p.chunk_id AS replaces, p.version AS replaces_version, p.text AS replaces_text
                   FROM chunks c JOIN notes n ON n.id = c.note LEFT JOIN chunks p ON p.superseded_by = c.id
                   WHERE n.kind = 'vault' AND c.state != 'DELETED' AND c.created_at >= ? AND c.created_at < ?
                   ORDER BY c.created_at, c.chunk_id, c.version""",
                [since, until],
            )
        )

    def passages_ended_between(self, since: str, until: str) -> list[dict]:
        """Every passage version of a vault note whose validity ended in ``[since, until)``, oldest first, with what
        ended it: the version that replaced it (``successor``...), the note that superseded its note
        (``superseding_path``), its note's deletion (``note_deleted_at``), or the source of its end."""
        return list(
            self.db.query(
                """SELECT c.chunk_id, c.version, c.heading, c.text, c.valid_until AS at, c.until_source, n.path,
                          n.deleted_at AS note_deleted_at, n.superseded_at AS note_superseded_at,
                          s.chunk_id AS successor, s.version AS successor_version, s.text AS successor_text,
                          sn.path AS superseding_path
                   FROM chunks c JOIN notes n ON n.id = c.note
                   LEFT JOIN chunks s ON s.id = c.superseded_by LEFT JOIN notes sn ON sn.id = n.superseded_by
                   WHERE n.kind = 'vault' AND c.state != 'DELETED' AND c.valid_until >= ? AND c.valid_until < ?
                   ORDER BY c.valid_until, c.chunk_id, c.version""",
                [since, until],
            )
        )

    def contradictions_found_between(self, since: str, until: str) -> list[dict]:
        """Every contradiction between two passages found in ``[since, until)``, oldest first."""
        return list(
            self.db.query(
                """SELECT e.created_at AS at, a.chunk_id, a.version, a.text, an.path,
                          b.chunk_id AS other, b.version AS other_version, b.text AS other_text, bn.path AS other_path
                   FROM edges e JOIN chunks a ON a.id = e.src_chunk JOIN chunks b ON b.id = e.dst_chunk
                   JOIN notes an ON an.id = a.note JOIN notes bn ON bn.id = b.note
                   WHERE e.type = 'contradicts' AND e.created_at >= ? AND e.created_at < ?
                   ORDER BY e.created_at, a.chunk_id""",
                [since, until],
            )
        )

    def notes_superseded_by(self, note: int) -> list[tuple[str, str | None, str | None]]:
        """(path, superseded_at, why it was inferred or None when declared) of the notes this note supersedes."""
        return self.db.execute(
            f"""SELECT n.path, n.superseded_at, {self.dialect.inferred_reason} FROM edges e JOIN notes n ON n.id =
              e.dst_note
                WHERE e.type = 'supersedes' AND e.src_note = ?""",
            [note],
        ).fetchall()

    def supersession_reason(self, newer: int, older: int) -> str | None:
        """Why ``newer`` was inferred to supersede ``older``; None when the note declared it (or it does not)."""
        row = self.db.execute(
            f"SELECT {self.dialect.inferred_reason} FROM edges e WHERE e.type = 'supersedes' "
            "AND e.src_note = ? AND e.dst_note = ? LIMIT 1",
            [newer, older],
        ).fetchone()
        return row[0] if row else None

    def note_events(self, note: int) -> list[tuple[str, str, str | None]]:
        """(at, kind, data as JSON text) of every event about a note or one of its passages, oldest first."""
        return self.db.execute(
            "SELECT at, kind, data FROM events WHERE note = ? "
            "OR chunk IN (SELECT id FROM chunks WHERE note = ?) ORDER BY id",
            [note, note],
        ).fetchall()

    # -- the graph ----------------------------------------------------------------------------

    def graph_nodes(self) -> list[dict]:
        """id, note_id, path and title of every live note."""
        return list(self.db.query("SELECT id, note_id, path, title FROM notes WHERE deleted_at IS NULL"))

    def note_to_note_edges(self, types: Sequence[str]) -> list[tuple[int, int, str, str | None]]:
        """(src_note, dst_note, type, why it was inferred or None) of every edge of these types between two
        different notes, one per edge."""
        types = list(types)
        marks = ",".join("?" * len(types))
        return self.db.execute(
            f"SELECT src_note, dst_note, type, {self.dialect.inferred_reason} FROM edges e "
            f"WHERE dst_note IS NOT NULL AND src_note != dst_note AND type IN ({marks})",
            types,
        ).fetchall()
