"""The store's statements for consolidation and feedback: edges, penalties, states, importance."""

from __future__ import annotations

import json
from typing import Sequence

import numpy as np

from .base import StoreBase
from .inlist import in_lists


class GraphQueries(StoreBase):
    """Mixed into ``Store``: what consolidation and feedback read and change."""

    # -- the work queue -----------------------------------------------------------------------

    def pending_notes(self) -> dict[int, int]:
        """Live notes the indexer queued for consolidation, with why (1 new or re-described, 2 text changed)."""
        return {
            r[0]: r[1]
            for r in self.db.execute("SELECT id, pending FROM notes WHERE pending > 0 AND deleted_at IS NULL")
        }

    def queued_passages(self, note_pks: Sequence[int]) -> list[int]:
        """Current passages to consolidate: every unconsolidated one, and every one of these notes."""
        unconsolidated = "SELECT id FROM chunks WHERE current = 1 AND state = 'UNCONSOLIDATED'"
        found = dict.fromkeys(r[0] for r in self.db.execute(unconsolidated))
        for part, marks in in_lists(note_pks):
            found.update(
                dict.fromkeys(
                    r[0]
                    for r in self.db.execute(
                        f"SELECT id FROM chunks WHERE current = 1 AND state != 'DELETED' AND note IN ({marks})", part
                    )
                )
            )
        return list(found)

    def mark_consolidated(self, note_pks: Sequence[int]) -> None:
        """Takes these notes off the work queue."""
        for part, marks in in_lists(note_pks):
            self.db.execute(f"UPDATE notes SET pending = 0 WHERE id IN ({marks})", part)

    def count_notes_needing_review(self) -> int:
        return self.db.execute(
            "SELECT COUNT(*) FROM notes WHERE review_reason IS NOT NULL AND deleted_at IS NULL"
        ).fetchone()[0]

    # -- passage states -----------------------------------------------------------------------

    def move_states(self, ids: Sequence[int], old: str, new: str, now_iso: str) -> int:
        """Moves those of these passages that are in state ``old`` to ``new``; how many moved."""
        return sum(
            self.db.execute(
                f"UPDATE chunks SET state = ?, updated_at = ? WHERE state = ? AND id IN ({marks})",
                [new, now_iso, old, *part],
            ).rowcount
            for part, marks in in_lists(ids)
        )

    def passages_with_closed_window(self, now_iso: str) -> list[int]:
        """Current live passages whose validity ended by ``now_iso``: to be archived."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM chunks WHERE current = 1 AND state IN ('UNCONSOLIDATED', 'ACTIVE', 'DORMANT') "
                "AND valid_until IS NOT NULL AND valid_until <= ?",
                [now_iso],
            )
        ]

    def archived_passages_reopened(self, now_iso: str) -> list[int]:
        """Current archived passages whose validity is open again at ``now_iso``: to come back."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM chunks WHERE current = 1 AND state = 'ARCHIVED' "
                "AND (valid_until IS NULL OR valid_until > ?)",
                [now_iso],
            )
        ]

    def active_or_dormant_passages(self) -> list[int]:
        """Current passages that dormancy may put to sleep or wake up."""
        return [
            r[0] for r in self.db.execute("SELECT id FROM chunks WHERE current = 1 AND state IN ('ACTIVE', 'DORMANT')")
        ]

    # -- derived edges and contradiction penalties --------------------------------------------

    def drop_stale_derived_edges(self, kinds: Sequence[str]) -> int:
        """Deletes edges of these kinds whose passages are no longer current (edited away, deleted); how many."""
        kinds = list(kinds)
        cursor = self.db.execute(
            f"""DELETE FROM edges WHERE type IN ({",".join("?" * len(kinds))}) AND (
                  src_chunk NOT IN (SELECT id FROM chunks WHERE current = 1 AND state != 'DELETED') OR
                  dst_chunk NOT IN (SELECT id FROM chunks WHERE current = 1 AND state != 'DELETED'))""",
            kinds,
        )
        return cursor.rowcount

    def supersedes_note_pairs(self) -> list[tuple[int, int]]:
        """(newer note, older note) for every resolved ``supersedes`` edge."""
        return self.db.execute(
            "SELECT src_note, dst_note FROM edges WHERE type = 'supersedes' AND dst_note IS NOT NULL"
        ).fetchall()

    def contradiction_edges_touching(self, ids: Sequence[int]) -> list[tuple[int, int]]:
        """(src, dst) of the ``contradicts`` edges with either end among these passages."""
        found: dict[tuple[int, int], None] = {}
        for part, marks in in_lists(ids):
            found.update(
                dict.fromkeys(
                    tuple(r)
                    for r in self.db.execute(
                        "SELECT src_chunk, dst_chunk FROM edges WHERE type = 'contradicts' AND (src_chunk IN "
                        f"({marks}) OR dst_chunk IN ({marks}))",
                        part + part,
                    )
                )
            )
        return list(found)

    def drop_derived_edges(self, ids: Sequence[int]) -> int:
        """Deletes the ``contradicts`` and ``restates`` edges touching these passages, to be found afresh; how many."""
        return sum(
            self.db.execute(
                "DELETE FROM edges WHERE type IN ('contradicts', 'restates') "
                f"AND (src_chunk IN ({marks}) OR dst_chunk IN ({marks}))",
                part + part,
            ).rowcount
            for part, marks in in_lists(ids)
        )

    def replace_claim_edges(self, rows: Sequence[dict]) -> set[tuple[int, int]]:
        """Replaces the ``contradicts`` edges that stand for claims of supersession (``claim`` in their detail)
        by ``rows``; returns the (src, dst) passages of those there were."""
        dialect = self.dialect
        where = f"type = 'contradicts' AND COALESCE({dialect.field('detail', 'claim')}, {dialect.json_false}) = "
        where += dialect.json_true
        before = {(r[0], r[1]) for r in self.db.execute(f"SELECT src_chunk, dst_chunk FROM edges WHERE {where}")}
        if before:
            self.db.execute(f"DELETE FROM edges WHERE {where}")
        if rows:
            self.insert_edges(rows)
        return before

    def insert_edges(self, rows: Sequence[dict]) -> None:
        self.db.table("edges").insert_all(rows)

    def reset_contradiction_penalties(self, ids: Sequence[int], penalty: float) -> None:
        """Each of these passages gets ``penalty`` if it loses a contradiction (is the source of a
        ``contradicts`` edge), else none."""
        self._penalise_edge_sources("contradiction_penalty", "contradicts", ids, penalty)

    def _penalise_edge_sources(self, column: str, edge_type: str, ids: Sequence[int], penalty: float) -> None:
        """``column`` of each of these passages: ``penalty`` while an ``edge_type`` edge leaves it, else 0."""
        for part, marks in in_lists(ids):
            self.db.execute(
                f"""UPDATE chunks SET {column} = CASE
                      WHEN id IN (SELECT src_chunk FROM edges WHERE type = ?) THEN ? ELSE 0 END
                    WHERE id IN ({marks})""",
                [edge_type, penalty, *part],
            )

    # -- stale echoes -------------------------------------------------------------------------

    def current_successors(self, chunk_pk: int) -> list[int]:
        """The current passages that replaced this stored version: those of the live note its note's
        ``supersedes`` chain ends in, else the current version its own note's edits lead to."""
        row = self.db.execute("SELECT note, superseded_by FROM chunks WHERE id = ?", [chunk_pk]).fetchone()
        if row is None:
            return []
        note, seen_notes = row[0], {row[0]}
        while True:
            successor = self.db.execute("SELECT superseded_by FROM notes WHERE id = ?", [note]).fetchone()
            if not successor or successor[0] is None or successor[0] in seen_notes:
                break
            note = successor[0]
            seen_notes.add(note)
        if note != row[0]:
            return [
                r[0]
                for r in self.db.execute(
                    "SELECT id FROM chunks WHERE note = ? AND current = 1 "
                    "AND state IN ('UNCONSOLIDATED', 'ACTIVE', 'DORMANT') ORDER BY ordinal",
                    [note],
                )
            ]
        step, seen = row[1], {chunk_pk}
        while step is not None and step not in seen:
            seen.add(step)
            found = self.db.execute(
                "SELECT id, superseded_by, current, state FROM chunks WHERE id = ?", [step]
            ).fetchone()
            if found is None or found[3] == "DELETED":
                return []
            if found[2] == 1:
                return [found[0]] if found[3] != "ARCHIVED" else []
            step = found[1]
        return []

    def echo_sources(self) -> set[int]:
        """The passages an ``echoes`` edge marks as repeating outdated information."""
        return {r[0] for r in self.db.execute("SELECT src_chunk FROM edges WHERE type = 'echoes'")}

    def drop_echo_edges(self, ids: Sequence[int]) -> int:
        """Deletes the ``echoes`` edges out of these passages, to be found afresh; how many."""
        return sum(
            self.db.execute(f"DELETE FROM edges WHERE type = 'echoes' AND src_chunk IN ({marks})", part).rowcount
            for part, marks in in_lists(ids)
        )

    def reset_echo_penalties(self, ids: Sequence[int], penalty: float) -> None:
        """Each of these passages gets ``penalty`` while an ``echoes`` edge leaves it, else none."""
        self._penalise_edge_sources("echo_penalty", "echoes", ids, penalty)

    # -- ripple -------------------------------------------------------------------------------

    def clear_ripple(self, note_pks: Sequence[int]) -> None:
        """These notes were edited themselves: their ripple penalty and review request go."""
        for part, marks in in_lists(note_pks):
            self.db.execute(
                f"UPDATE chunks SET ripple_penalty = 0 WHERE note IN ({marks}) AND ripple_penalty != 0", part
            )
            self.db.execute(f"UPDATE notes SET review_reason = NULL, review_since = NULL WHERE id IN ({marks})", part)

    def live_note_paths(self) -> dict[int, str]:
        return {r[0]: r[1] for r in self.db.execute("SELECT id, path FROM notes WHERE deleted_at IS NULL")}

    def depends_on_edges(self) -> list[tuple[int, int]]:
        """(dependent note, note it depends on) for every resolved ``depends_on`` edge."""
        return self.db.execute(
            "SELECT src_note, dst_note FROM edges WHERE type = 'depends_on' AND dst_note IS NOT NULL"
        ).fetchall()

    def set_ripple(self, note_pk: int, penalty: float, reason: str, now_iso: str) -> int:
        """Raises the ripple penalty of the note's current passages to at least ``penalty`` and asks for
        its review; how many passages it touched."""
        cursor = self.db.execute(
            f"UPDATE chunks SET ripple_penalty = {self.dialect.greatest}(ripple_penalty, ?) "
            "WHERE note = ? AND current = 1 AND state != 'DELETED'",
            [penalty, note_pk],
        )
        self.db.execute("UPDATE notes SET review_reason = ?, review_since = ? WHERE id = ?", [reason, now_iso, note_pk])
        return cursor.rowcount

    # -- importance ---------------------------------------------------------------------------

    def live_note_ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM notes WHERE deleted_at IS NULL ORDER BY id")]

    def link_rows(
        self, src_notes: Sequence[int] | None = None
    ) -> list[tuple[int, str, str | None, str | None, int | None]]:
        """(edge id, linking note's path, target, detail JSON, resolved note) of the links that ``src_notes``
        (else every note) wrote: what link resolution reads, since a Markdown link's path is relative to its note."""
        sql = (
            "SELECT e.id, n.path, e.target, e.detail, e.dst_note FROM edges e JOIN notes n ON n.id = e.src_note "
            f"WHERE e.src_chunk IS NULL AND NOT ({self.dialect.inferred_edge})"
        )
        if src_notes is None:
            return self.db.execute(sql).fetchall()
        return [
            row
            for part, marks in in_lists(src_notes)
            for row in self.db.execute(f"{sql} AND e.src_note IN ({marks})", part).fetchall()
        ]

    def set_link_destination(self, edge_id: int, dst_note: int | None, detail: str) -> None:
        """Where a link leads: a note, or none (an attachment is named in ``detail``)."""
        self.db.execute("UPDATE edges SET dst_note = ?, detail = ? WHERE id = ?", [dst_note, detail, edge_id])

    def attachment_links(self) -> list[tuple[int, str, str]]:
        """(linking note, type, detail JSON) of every link resolved to an attachment rather than a note."""
        return self.db.execute(
            "SELECT src_note, type, detail FROM edges WHERE dst_note IS NULL AND src_chunk IS NULL AND detail LIKE "
            "'%\"attachment\"%'"
        ).fetchall()

    def note_graph_edges(self) -> list[tuple[int, int]]:
        """(src, dst) of the links, embeds, dependencies and relations between two different notes."""
        return self.db.execute(
            "SELECT src_note, dst_note FROM edges WHERE dst_note IS NOT NULL AND src_note != dst_note "
            "AND type IN ('link', 'embed', 'depends_on', 'related')"
        ).fetchall()

    def set_importance(self, scores: dict[int, float]) -> None:
        """Stores each note's graph importance, keyed by note row id."""
        self.db.executemany(
            "UPDATE notes SET importance = ? WHERE id = ?", [(float(score), note) for note, score in scores.items()]
        )

    # -- feedback -----------------------------------------------------------------------------

    def passage_row_id(self, chunk_id: str, version: int | None = None) -> int | None:
        """The row of a passage by its chunk id: that version, or else the current one (a live version
        before an archived one, the newest first); None if there is none."""
        params: list = [chunk_id]
        sql = "SELECT id FROM chunks WHERE chunk_id = ? AND state != 'DELETED'"
        if version is not None:
            sql += " AND version = ?"
            params.append(version)
        sql += " ORDER BY state = 'ARCHIVED', version DESC LIMIT 1"
        row = self.db.execute(sql, params).fetchone()
        if row is None and "#" in chunk_id:
            old_id, key = chunk_id.split("#", 1)
            renamed = self.db.execute(
                "SELECT n.note_id FROM note_names o JOIN notes n ON n.id = o.note "
                "WHERE o.note_id = ? ORDER BY o.id DESC LIMIT 1",
                [old_id],
            ).fetchone()
            if renamed and renamed[0] != old_id:
                return self.passage_row_id(f"{renamed[0]}#{key}", version)  # an id from before the note moved
        return row[0] if row else None

    def add_feedback(self, passage_id: int, delta: float, now_iso: str) -> None:
        """Moves the passage's feedback adjustment by ``delta``; feedback wakes a dormant passage."""
        self.db.execute(
            "UPDATE chunks SET feedback = COALESCE(feedback, 0) + ?, updated_at = ?, "
            "state = CASE WHEN state = 'DORMANT' THEN 'ACTIVE' ELSE state END WHERE id = ?",
            [delta, now_iso, passage_id],
        )

    def count_corrections(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM notes WHERE kind = 'correction'").fetchone()[0]

    def insert_correction(
        self, note: dict, passage: dict, embed_text: str, vector: np.ndarray, corrects: int, now_iso: str
    ) -> dict:
        """Stores a correction: its note, its vector, its one passage and the ``corrects`` edge to passage
        ``corrects``. Returns the passage row as stored, with its ``note`` and ``id``."""
        note_pk = self.db.table("notes").insert(note).last_pk
        self.upsert_vector(passage["hash"], embed_text, vector, now_iso)
        chunk = {"note": note_pk, **passage}
        chunk["id"] = self.db.table("chunks").insert(chunk).last_pk
        self.db.table("edges").insert(
            {
                "src_note": note_pk,
                "dst_note": None,
                "src_chunk": chunk["id"],
                "dst_chunk": corrects,
                "type": "corrects",
                "created_at": now_iso,
            }
        )
        return chunk

    # -- events -------------------------------------------------------------------------------

    def record_event(self, kind: str, at: str, data: dict, note: int | None = None, chunk: int | None = None) -> None:
        """Appends to the event log, which keeps what happened to a note or passage for ``history``."""
        event: dict = {"at": at, "kind": kind}
        if chunk is not None:
            event["chunk"] = chunk
        if note is not None:
            event["note"] = note
        event["data"] = json.dumps(data)
        self.insert_row("events", event)
