"""The store's statements about notes and their passages as the indexer writes them."""

from __future__ import annotations

import json
from typing import Collection, Sequence

from ..memory.temporal import DECLARED, INFERRED, archived_by_status
from .base import StoreBase
from .db import CURRENT_TEXT_HASH
from .inlist import in_lists

REFRESH_WINDOWS_SQL = """
    UPDATE chunks SET
      valid_from = CASE
        WHEN observed_from IS NULL THEN ?
        WHEN CAST(? AS TEXT) IS NULL THEN observed_from
        ELSE {greatest}(observed_from, ?) END,
      from_source = CASE
        WHEN observed_from IS NULL THEN ?
        WHEN CAST(? AS TEXT) IS NULL OR observed_from >= ? THEN observed_by
        ELSE ? END,
      valid_until = ?,
      until_source = ?
    WHERE note = ? AND current = 1 AND state != 'DELETED'
"""
"""The windows of a note's live passages from the note's and from their observed start; the ``?`` take valid_from
three times, from_source, valid_from twice, from_source, valid_until, until_source and the note."""

SUPERSESSION_SQL = """
    SELECT e.dst_note, COALESCE({start}, n.valid_from, n.created_at) AS start, n.id
    FROM edges e JOIN notes n ON n.id = e.src_note
    WHERE e.type = 'supersedes' AND e.dst_note IS NOT NULL AND e.dst_note != e.src_note AND n.deleted_at IS NULL
      AND NOT {claim}
"""

CLAIM_SQL = """(NOT ({inferred_edge}) AND EXISTS (
      SELECT 1 FROM notes t WHERE t.id = e.dst_note AND n.authority IS NOT NULL AND t.authority IS NOT NULL
        AND n.authority < t.authority - 1e-9))"""
"""A declared ``supersedes`` edge (of the note ``n``) whose note has less authority than the note it names: a
claim (a chat or an e-mail saying it replaces a policy), not a supersession."""

LINEAGE_CANDIDATES_SQL = """
    SELECT n.id, n.path, n.title, n.doc_date, n.created_at, n.source_type,
           CAST(COALESCE(n.declared, 0) != 0 OR EXISTS (
             SELECT 1 FROM edges e WHERE e.type = 'supersedes' AND e.dst_note = n.id
               AND NOT ({inferred_edge})) AS INTEGER) AS declared
    FROM notes n WHERE n.deleted_at IS NULL AND n.kind = 'vault'
"""


class NoteQueries(StoreBase):
    """Mixed into ``Store``: reading and writing notes, passage rows, links and versions while indexing."""

    # -- notes --------------------------------------------------------------------------------

    def live_vault_notes(self, paths: Collection[str] | None = None) -> list[dict]:
        """Every live note that comes from a vault file (or those at ``paths``), as a full row, by path: what a run
        compares the vault against."""
        sql = "SELECT * FROM notes WHERE deleted_at IS NULL AND kind = 'vault'"
        if paths is None:
            return list(self.db.query(f"{sql} ORDER BY path"))
        rows = [
            row
            for part, marks in in_lists(sorted(paths))
            for row in self.db.query(f"{sql} AND path IN ({marks})", part)
        ]
        return sorted(rows, key=lambda row: row["path"])

    def note_filter_fields(
        self, containing: Sequence[str] = (), fields: bool = True
    ) -> list[tuple[int, str, str | None, str | None, str | None, int | None]]:
        """(id, path, tags JSON, front matter JSON, doc_date, mtime_ns) of every note, deleted ones included (their
        passages answer questions about the past): what a query's note filter reads (``core.filters``). With
        ``containing`` (lower-case texts), only the notes whose tags and front matter hold each of them; without
        ``fields``, tags and front matter are left out (NULL): a filter by path alone read them for nothing."""
        columns = "tags, metadata" if fields else "NULL, NULL"
        sql = f"SELECT id, path, {columns}, doc_date, mtime_ns FROM notes"
        tests = ["lower(COALESCE(tags, '') || COALESCE(metadata, '')) LIKE ? ESCAPE '!'"] * len(containing)
        if tests:
            sql += " WHERE " + " AND ".join(tests)
        like = ["%" + text.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%" for text in containing]
        return self.db.execute(sql, like).fetchall()

    def passage_rows_of_notes(self, note_pks: Sequence[int]) -> list[int]:
        """The row ids of every stored passage version of these notes (deleted ones left out)."""
        sql = "SELECT id FROM chunks WHERE state != 'DELETED' AND note IN ({marks})"
        return [
            row[0]
            for part, marks in in_lists(list(note_pks))
            for row in self.db.execute(sql.format(marks=marks), part).fetchall()
        ]

    def current_passage_notes(self) -> list[tuple[int, int]]:
        """(passage row, note) of the current text of every live note, dormant passages included: what ``related``
        compares a note with (archived versions are history, not what a note says now)."""
        return self.db.execute(
            """SELECT c.id, c.note FROM chunks c JOIN notes n ON n.id = c.note
               WHERE n.deleted_at IS NULL AND c.current = 1 AND c.state IN ('ACTIVE', 'UNCONSOLIDATED', 'DORMANT')
               ORDER BY c.id"""
        ).fetchall()

    def deleted_note_at(self, path: str) -> dict | None:
        """The latest deleted note that lived at ``path``: a file that comes back is that note again."""
        rows = list(
            self.db.query(
                "SELECT * FROM notes WHERE path = ? AND deleted_at IS NOT NULL ORDER BY id DESC LIMIT 1", [path]
            )
        )
        return rows[0] if rows else None

    def note_id_taken(self, note_id: str) -> bool:
        """Whether a note row, deleted ones included, has this id: the column is unique over all of them."""
        return self.db.execute("SELECT 1 FROM notes WHERE note_id = ?", [note_id]).fetchone() is not None

    def insert_note(self, values: dict) -> int:
        """A new note row; returns its primary key."""
        return self.insert_row("notes", values)

    def update_note(self, note_pk: int, values: dict, before: dict | None = None) -> None:
        """Set the note's columns to ``values``; given the row as stored (``before``), only those that differ
        (setting the title, even to what it was, rewrites the full-text rows of every passage of the note)."""
        if before is not None:
            values = {k: v for k, v in values.items() if k not in before or before[k] != v}
        self.update_row("notes", note_pk, values)

    def mark_note_pending(self, note_pk: int, level: int) -> None:
        """Queue the note for consolidation: 1 new or re-described, 2 text changed (never lowered)."""
        self.db.execute(
            f"UPDATE notes SET pending = {self.dialect.greatest}(pending, ?) WHERE id = ?", [level, note_pk]
        )

    def delete_note(self, note_pk: int, now: str, until_source: str | None) -> None:
        """A note whose file is gone: its current passages become history, their windows closed at ``now``
        (never later than they already ended), and they keep their vectors, so a question about their time
        still finds them (``Store.purge_note`` is the only way to erase them). Its links go, edges into its
        passages go, and links that named it are unresolved."""
        self.db.execute(
            """UPDATE chunks SET state = 'ARCHIVED', current = 0, updated_at = ?,
                 until_source = CASE WHEN valid_until IS NOT NULL AND valid_until <= ? THEN until_source ELSE ? END,
                 valid_until = CASE WHEN valid_until IS NOT NULL AND valid_until <= ? THEN valid_until ELSE ? END
               WHERE note = ? AND current = 1 AND state != 'DELETED'""",
            [now, now, until_source, now, now, note_pk],
        )
        self.db.execute("UPDATE notes SET deleted_at = ?, updated_at = ? WHERE id = ?", [now, now, note_pk])
        self.db.execute("DELETE FROM edges WHERE src_note = ?", [note_pk])
        self.db.execute("DELETE FROM edges WHERE dst_chunk IN (SELECT id FROM chunks WHERE note = ?)", [note_pk])
        self.db.execute("UPDATE edges SET dst_note = NULL WHERE dst_note = ?", [note_pk])

    def rename_note(self, note_pk: int, old_path: str, old_note_id: str, new_note_id: str, now: str) -> None:
        """Remember the name a moved note had until ``now``; when its id follows the path, its passages'
        ids follow too (``note_id#key``), and the old id stays an alias (``notes_once_named``)."""
        self.insert_row("note_names", {"note": note_pk, "path": old_path, "note_id": old_note_id, "until": now})
        if new_note_id == old_note_id:
            return
        self.db.execute("UPDATE notes SET note_id = ? WHERE id = ?", [new_note_id, note_pk])
        self.db.execute(
            "UPDATE chunks SET chunk_id = ? || substr(chunk_id, ?) WHERE note = ? AND substr(chunk_id, 1, ?) = ?",
            [new_note_id, len(old_note_id) + 1, note_pk, len(old_note_id) + 1, old_note_id + "#"],
        )

    def former_names(self, note_pk: int) -> list[dict]:
        """The paths and ids a note had before, oldest first, each with when it stopped having it."""
        return list(self.db.query("SELECT path, note_id, until FROM note_names WHERE note = ? ORDER BY id", [note_pk]))

    def notes_once_named(self, name: str) -> list[dict]:
        """The notes, live or deleted, that had this path or id before they moved: the latest holder first."""
        return list(
            self.db.query(
                """SELECT n.* FROM notes n JOIN note_names o ON o.note = n.id WHERE o.path = ? OR o.note_id = ?
                   ORDER BY o.until DESC, o.id DESC""",
                [name, name],
            )
        )

    def deleted_notes_named(self, name: str) -> list[dict]:
        """Deleted notes whose last path or id was this, the latest deleted first."""
        return list(
            self.db.query(
                "SELECT * FROM notes WHERE deleted_at IS NOT NULL AND (path = ? OR note_id = ?) "
                "ORDER BY deleted_at DESC, id DESC",
                [name, name],
            )
        )

    def deleted_notes(self) -> list[dict]:
        return list(self.db.query("SELECT * FROM notes WHERE deleted_at IS NOT NULL ORDER BY path, id"))

    def purge_note(self, note_pk: int) -> list[int]:
        """Erase a deleted note and everything kept of it: passages, edges, events and former names; returns
        the passage rows whose vectors leave the vector index. Vectors no passage uses any more go too."""
        rows = self.db.execute("SELECT id, hash FROM chunks WHERE note = ?", [note_pk]).fetchall()
        chunks, hashes = [r[0] for r in rows], sorted({r[1] for r in rows})
        for part, marks in in_lists(chunks):
            self._unlink_chunks(part, marks)
            self.db.execute(f"DELETE FROM events WHERE chunk IN ({marks})", part)
        self.db.execute("DELETE FROM edges WHERE src_note = ? OR dst_note = ?", [note_pk, note_pk])
        self.db.execute("UPDATE notes SET superseded_by = NULL WHERE superseded_by = ?", [note_pk])
        self.db.execute("DELETE FROM events WHERE note = ?", [note_pk])
        self.db.execute("DELETE FROM note_names WHERE note = ?", [note_pk])
        self.db.execute("DELETE FROM chunks WHERE note = ?", [note_pk])
        self.db.execute("DELETE FROM notes WHERE id = ?", [note_pk])
        for part, marks in in_lists(hashes):
            self.db.execute(
                f"DELETE FROM embeddings WHERE hash IN ({marks}) AND hash NOT IN (SELECT hash FROM chunks)", part
            )
        return chunks

    # -- passages -----------------------------------------------------------------------------

    def current_chunks(self, note_pk: int) -> list[dict]:
        """The note's current passage versions in reading order, with what ``vault.align.StoredChunk`` holds and
        the placement (ordinal, heading, block ids, text hash) a run compares before rewriting a kept passage."""
        return list(
            self.db.query(
                "SELECT id, key, hash, version, text, observed_from, observed_by, feedback, access_count, "
                "last_accessed, created_at, ordinal, heading, block_ids, text_hash FROM chunks"
                " WHERE note = ? AND current = 1 AND state != 'DELETED' ORDER BY ordinal",
                [note_pk],
            )
        )

    def insert_chunk(self, values: dict) -> int:
        """A new passage version; returns its primary key (its ANN label)."""
        return self.insert_row("chunks", values)

    def update_chunk(self, chunk_pk: int, values: dict) -> None:
        self.update_row("chunks", chunk_pk, values)

    def repoint_chunks(self, successor: dict[int, int]) -> None:
        """Archived versions and events that name an old passage name its successor instead (``successor``: old
        row -> new row; a note cut anew, ``core.indexer``). Only the rows that are named are updated."""
        for part, marks in in_lists(list(successor)):
            for table, column in (("chunks", "superseded_by"), ("events", "chunk")):
                named = [
                    r[0]
                    for r in self.db.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {column} IN ({marks})", part)
                ]
                for old in named:
                    self.db.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", [successor[old], old])

    def drop_chunks(self, chunk_pks: Sequence[int]) -> None:
        """Remove passages that were never history (the same text cut anew) and the edges that touch them:
        unlike a deleted note's, nothing of them is kept. The next consolidation relates their replacements."""
        for part, marks in in_lists(chunk_pks):
            self._unlink_chunks(part, marks)
            self.db.execute(f"DELETE FROM chunks WHERE id IN ({marks})", part)

    def _unlink_chunks(self, part: list[int], marks: str) -> None:
        """Before these passages go: the edges that touch them go, and no version names them as its successor."""
        self.db.execute(f"DELETE FROM edges WHERE src_chunk IN ({marks}) OR dst_chunk IN ({marks})", [*part, *part])
        self.db.execute(f"UPDATE chunks SET superseded_by = NULL WHERE superseded_by IN ({marks})", part)

    def chunk_valid_until(self, chunk_pk: int) -> tuple[str | None, str | None]:
        """(valid_until, where that bound came from) of one passage version."""
        row = self.db.execute("SELECT valid_until, until_source FROM chunks WHERE id = ?", [chunk_pk]).fetchone()
        if row is None:
            raise KeyError(f"no passage row {chunk_pk}")
        return row[0], row[1]

    def archive_chunk(
        self, chunk_pk: int, valid_until: str | None, until_source: str | None, superseded_by: int | None, now: str
    ) -> None:
        """Keep a passage version as history: no longer current, its window closed at ``valid_until``."""
        self.update_row(
            "chunks",
            chunk_pk,
            {
                "state": "ARCHIVED",
                "current": 0,
                "valid_until": valid_until,
                "until_source": until_source,
                "superseded_by": superseded_by,
                "updated_at": now,
            },
        )

    def refresh_windows(self, note_pks: Sequence[int]) -> None:
        """Recompute the validity window of the live passages of these notes from note and observation."""
        for note_pk in note_pks:
            note = self.db.execute(
                "SELECT valid_from, from_source, valid_until, superseded_at FROM notes WHERE id = ?", [note_pk]
            ).fetchone()
            if note is None:
                continue
            valid_from, from_source, declared_until, superseded_at = note
            until_source: str | None
            if superseded_at is not None and (declared_until is None or superseded_at < declared_until):
                valid_until, until_source = superseded_at, INFERRED
            else:
                valid_until, until_source = declared_until, DECLARED if declared_until else None
            self.db.execute(
                REFRESH_WINDOWS_SQL.format(greatest=self.dialect.greatest),
                [valid_from, valid_from, valid_from, from_source]
                + [valid_from, valid_from, from_source, valid_until, until_source, note_pk],
            )

    def embedded_texts_in_use(self) -> list[tuple[str, str]]:
        """(hash, embedded text) of every stored vector a passage not deleted still uses."""
        return self.db.execute(
            "SELECT hash, text FROM embeddings WHERE hash IN (SELECT hash FROM chunks WHERE state != 'DELETED')"
        ).fetchall()

    def embedded_texts_of(self, ids: Sequence[int]) -> dict[int, str]:
        """The text each of these passage rows was embedded from, by row id (rows without a vector left out)."""
        found: dict[int, str] = {}
        for part, marks in in_lists(list(ids)):
            found.update(
                self.db.execute(
                    f"SELECT c.id, e.text FROM chunks c JOIN embeddings e ON e.hash = c.hash WHERE c.id IN ({marks})",
                    part,
                ).fetchall()
            )
        return found

    def chunk_texts_without_vectors(self) -> list[tuple[str, str | None, str | None, str]]:
        """(hash, note title, heading, text) of the passages not deleted whose vector is gone."""
        return self.db.execute(
            """SELECT c.hash, n.title, c.heading, c.text FROM chunks c JOIN notes n ON n.id = c.note
               WHERE c.state != 'DELETED' AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = c.hash)"""
        ).fetchall()

    # -- links --------------------------------------------------------------------------------

    def replace_links(self, note_pk: int, links: list[dict]) -> None:
        """The note's own links (not passage edges) become exactly ``links``, unresolved."""
        self.db.execute(
            f"DELETE FROM edges WHERE src_note = ? AND src_chunk IS NULL AND NOT ({self.dialect.inferred_edge})",
            [note_pk],
        )
        self.insert_rows("edges", links)

    def live_note_names(self) -> list[tuple[int, str, str | None, str, str | None]]:
        """(id, path, title, note_id, metadata JSON) of every live note, oldest first: what links can name."""
        return self.db.execute(
            "SELECT id, path, title, note_id, metadata FROM notes WHERE deleted_at IS NULL ORDER BY id"
        ).fetchall()

    def note_links(self, src_notes: Sequence[int] | None = None) -> list[tuple[int, str | None, int | None]]:
        """(edge id, target, resolved note) of the links written by ``src_notes``, or of every note's links."""
        sql = f"SELECT id, target, dst_note FROM edges WHERE src_chunk IS NULL AND NOT ({self.dialect.inferred_edge})"
        if src_notes is None:
            return self.db.execute(sql).fetchall()
        return [
            row
            for part, marks in in_lists(src_notes)
            for row in self.db.execute(f"{sql} AND src_note IN ({marks})", part).fetchall()
        ]

    def resolve_link(self, edge_id: int, dst_note: int | None) -> None:
        self.db.execute("UPDATE edges SET dst_note = ? WHERE id = ?", [dst_note, edge_id])

    # -- supersession -------------------------------------------------------------------------

    def supersession_links(self) -> list[tuple[int, str, int]]:
        """(superseded note, start of its successor, successor) for every resolved ``supersedes`` link of a live
        note."""
        claim = CLAIM_SQL.format(inferred_edge=self.dialect.inferred_edge)
        return self.db.execute(
            SUPERSESSION_SQL.format(start=self.dialect.field("e.detail", "start"), claim=claim)
        ).fetchall()

    def supersession_claims(self) -> list[tuple[int, int]]:
        """(claiming note, note it claims to supersede) for every declared ``supersedes`` edge of a live note whose
        authority is lower than the target's (``CLAIM_SQL``): not applied by ``supersession_links``."""
        claim = CLAIM_SQL.format(inferred_edge=self.dialect.inferred_edge)
        return self.db.execute(
            f"""SELECT e.src_note, e.dst_note FROM edges e JOIN notes n ON n.id = e.src_note
                WHERE e.type = 'supersedes' AND e.dst_note IS NOT NULL AND e.dst_note != e.src_note
                  AND n.deleted_at IS NULL AND {claim}"""
        ).fetchall()

    def superseded_notes(self) -> dict[int, tuple[str, int | None]]:
        """note id -> (superseded_at, superseded_by) as stored now."""
        return {
            r[0]: (r[1], r[2])
            for r in self.db.execute(
                "SELECT id, superseded_at, superseded_by FROM notes WHERE superseded_at IS NOT NULL"
            )
        }

    def notes_archived_by_status(self) -> list[int]:
        """The live vault notes whose front matter says ``status: archived`` or ``deprecated`` (any case)."""
        rows = self.db.execute(
            "SELECT id, metadata FROM notes WHERE deleted_at IS NULL AND kind = 'vault' AND metadata LIKE ?",
            ['%"status"%'],
        ).fetchall()
        return [note_pk for note_pk, metadata in rows if archived_by_status(json.loads(metadata or "{}"))]

    def set_superseded(self, note_pk: int, superseded_at: str | None, superseded_by: int | None) -> None:
        self.update_row("notes", note_pk, {"superseded_at": superseded_at, "superseded_by": superseded_by})

    def lineage_candidates(self) -> list[tuple]:
        """(id, path, title, doc_date, created_at, source_type, declared) of every live vault note, where
        ``declared`` also holds for a note a written ``supersedes`` names: what lineage inference reads."""
        return self.db.execute(LINEAGE_CANDIDATES_SQL.format(inferred_edge=self.dialect.inferred_edge)).fetchall()

    def shared_passages(self) -> list[tuple[str, list[int]]]:
        """(text hash, the live vault notes whose current text holds it) of every passage text (the words alone,
        without the title and headings the stored ``hash`` covers) found in two notes or more. Read from the
        partial index alone, which holds the current texts in order: grouping the rows themselves would read
        the whole table on every consolidation."""
        rows = self.db.execute(
            f"""SELECT DISTINCT text_hash, note FROM chunks WHERE {CURRENT_TEXT_HASH} AND text_hash IN (
                  SELECT text_hash FROM chunks WHERE {CURRENT_TEXT_HASH} GROUP BY text_hash HAVING COUNT(*) > 1)"""
        )
        holders: dict[str, list[int]] = {}
        for text_hash, note in rows:
            holders.setdefault(text_hash, []).append(note)
        return [(text_hash, notes) for text_hash, notes in holders.items() if len(notes) > 1]

    def notes_holding_texts(self, text_hashes: Sequence[str]) -> dict[str, set[int]]:
        """The notes whose current text holds each of these passage texts (by text hash), read from the partial
        index."""
        found: dict[str, set[int]] = {}
        sql = f"SELECT text_hash, note FROM chunks WHERE {CURRENT_TEXT_HASH} AND text_hash IN ({{marks}})"
        for part, marks in in_lists(text_hashes):
            for text_hash, note in self.db.execute(sql.format(marks=marks), part).fetchall():
                found.setdefault(text_hash, set()).add(note)
        return found

    def current_passages_of(self, note_pks: Sequence[int]) -> list[tuple[int, int, str, str]]:
        """(note, passage row, text hash, hash of the embedded text) of the current text of these notes."""
        sql = "SELECT note, id, text_hash, hash FROM chunks WHERE current = 1 AND state != 'DELETED' AND note IN "
        sql += "({marks})"
        return [
            row
            for part, marks in in_lists(note_pks)
            for row in self.db.execute(sql.format(marks=marks), part).fetchall()
        ]

    def inferred_supersessions(self) -> dict[tuple[int, int], str]:
        """(newer note, older note) -> detail JSON of every ``supersedes`` edge that inference made."""
        return {
            (r[0], r[1]): r[2]
            for r in self.db.execute(
                "SELECT src_note, dst_note, detail FROM edges "
                f"WHERE type = 'supersedes' AND {self.dialect.inferred_edge}"
            )
        }

    def replace_inferred_supersessions(self, rows: list[dict]) -> None:
        """The inferred ``supersedes`` edges become exactly ``rows`` (each with its detail JSON)."""
        self.db.execute(f"DELETE FROM edges WHERE type = 'supersedes' AND {self.dialect.inferred_edge}")
        self.insert_rows("edges", rows)

    def mark_notes_pending(self, note_pks: Sequence[int]) -> None:
        """Queue these notes for consolidation as re-described (pending at least 1)."""
        for part, marks in in_lists(note_pks):
            self.db.execute(
                f"UPDATE notes SET pending = {self.dialect.greatest}(pending, 1) WHERE id IN ({marks})", part
            )
