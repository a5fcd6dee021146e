"""The store's statements for retrieval: candidate passages as memory values, and their use."""

from __future__ import annotations

import json
from typing import Sequence

from ..memory.passage import Passage, Relation
from .base import StoreBase
from .inlist import in_lists

BATCH = 500

PASSAGE_SQL = """
    SELECT c.id, c.note, c.chunk_id, c.heading, c.text, c.state, c.valid_from, c.valid_until, c.from_source,
           c.until_source, c.version,
           c.created_at, c.observed_from, c.feedback, c.access_count, c.last_accessed,
           c.contradiction_penalty, c.ripple_penalty, c.echo_penalty,
           n.note_id, n.path, n.title, n.authority, n.source_type, n.declared, n.doc_date, n.importance,
           n.superseded_at AS note_superseded_at, n.superseded_by AS note_superseded_by,
           n.deleted_at AS note_deleted_at, {note_status} AS note_status,
           s.chunk_id AS successor_chunk, s.version AS successor_version, s.valid_from AS successor_from,
           sn.path AS successor_note_path,
           CASE WHEN n.superseded_by IS NOT NULL THEN
             (SELECT max({inferred_reason}) FROM edges e WHERE e.type = 'supersedes' AND e.src_note = n.superseded_by
                AND e.dst_note = n.id)
           END AS supersession_inferred,
           (SELECT count(*) FROM chunks m WHERE m.note = c.note AND m.current = 1
              AND m.state IN ('UNCONSOLIDATED', 'ACTIVE', 'DORMANT')) AS note_passages
    FROM chunks c
    JOIN notes n ON n.id = c.note
    LEFT JOIN chunks s ON s.id = c.superseded_by
    LEFT JOIN notes sn ON sn.id = n.superseded_by
    WHERE c.id IN ({marks}) AND c.state != 'DELETED'
"""


def _passage(row: dict) -> Passage:
    return Passage(
        id=row["id"],
        note=row["note"],
        chunk_id=row["chunk_id"],
        note_id=row["note_id"],
        path=row["path"],
        title=row["title"] or "",
        heading=row["heading"] or "",
        text=row["text"],
        state=row["state"],
        version=row["version"],
        valid_from=row["valid_from"],
        valid_until=row["valid_until"],
        from_source=row["from_source"],
        until_source=row["until_source"],
        created_at=row["created_at"],
        observed_from=row["observed_from"],
        last_accessed=row["last_accessed"],
        feedback=row["feedback"] or 0.0,
        access_count=row["access_count"] or 0,
        contradiction_penalty=row["contradiction_penalty"] or 0.0,
        ripple_penalty=row["ripple_penalty"] or 0.0,
        echo_penalty=row["echo_penalty"] or 0.0,
        authority=row["authority"],
        source_type=row["source_type"],
        declared=bool(row["declared"]),
        doc_date=row["doc_date"],
        importance=row["importance"],
        successor_chunk=row["successor_chunk"],
        successor_version=row["successor_version"],
        successor_from=row["successor_from"],
        note_superseded_by=row["note_superseded_by"],
        note_superseded_at=row["note_superseded_at"],
        successor_note_path=row["successor_note_path"],
        supersession_inferred=row["supersession_inferred"],
        note_deleted_at=row["note_deleted_at"],
        note_status=row["note_status"] if isinstance(row["note_status"], str) else None,
        note_passages=row["note_passages"] or 0,
    )


class PassageQueries(StoreBase):
    """Mixed into ``Store``: candidates for ranking, their relation warnings, and access counting."""

    def passages(self, ids: Sequence[int]) -> dict[int, Passage]:
        """The stored versions with these row ids (deleted ones left out), keyed by id, each with the count of its
        note's live passages. The count is read per row from the index on the note, not from a joined subquery
        over the rows' notes, which SQLite would materialise and index anew for each batch; the supersession's
        edges are read only for a superseded note, not every edge that points to a note."""
        found: dict[int, Passage] = {}
        for part, marks in in_lists(ids, BATCH):
            found.update(
                (row["id"], _passage(row))
                for row in self.db.query(
                    PASSAGE_SQL.format(
                        marks=marks,
                        inferred_reason=self.dialect.inferred_reason,
                        note_status=self.dialect.field("n.metadata", "status"),
                    ),
                    part,
                )
            )
        return found

    def importance_range(self) -> tuple[float, float]:
        """The least and the greatest graph importance of a live note (0, 0 before consolidation). Read once while
        the database stays unchanged (``kept``): the statement reads every note, which a reader answering many
        questions need not do for each."""

        def read() -> tuple[float, float]:
            low, high = self.db.execute(
                "SELECT min(importance), max(importance) FROM notes WHERE deleted_at IS NULL AND importance > 0"
            ).fetchone()
            return (low or 0.0, high or 0.0)

        return self.kept("importance_range", read)

    def relations_of(self, ids: Sequence[int]) -> list[Relation]:
        """Corrections, contradictions and echoes of outdated values that touch these passages, with both ends named."""
        ids = list(ids)
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        sql = f"""SELECT e.type, e.src_chunk, e.dst_chunk, e.detail, s.chunk_id, sn.path, d.chunk_id, dn.path
                  FROM edges e
                  JOIN chunks s ON s.id = e.src_chunk JOIN notes sn ON sn.id = s.note
                  JOIN chunks d ON d.id = e.dst_chunk JOIN notes dn ON dn.id = d.note
                  WHERE e.type IN ('corrects', 'contradicts', 'echoes')
                    AND (e.src_chunk IN ({marks}) OR e.dst_chunk IN ({marks}))
                    AND s.state != 'DELETED' AND d.state != 'DELETED'"""
        return [
            Relation(kind, src, dst, src_id, src_path, dst_id, dst_path, json.loads(detail or "{}").get("reason"))
            for kind, src, dst, detail, src_id, src_path, dst_id, dst_path in self.db.execute(sql, ids * 2).fetchall()
        ]

    def record_retrieval(self, ids: Sequence[int], last_query: dict, now_iso: str) -> None:
        """Reconsolidation by use: each returned passage counts an access and a dormant one wakes up;
        the query is remembered so that ``feedback --rank N`` can name one of its hits."""
        ids = list(ids)
        with self.write():
            if ids:
                self.db.execute(
                    f"UPDATE chunks SET access_count = access_count + 1, last_accessed = ?, "
                    "state = CASE WHEN state = 'DORMANT' THEN 'ACTIVE' ELSE state END "
                    f"WHERE id IN ({','.join('?' * len(ids))})",
                    [now_iso, *ids],
                )
            self.set_meta("last_query", json.dumps(last_query))

    def note_names(self, notes: Sequence[int]) -> dict[int, list[str]]:
        """The title and the frontmatter aliases of each of these notes: the names a question may call it by."""
        names: dict[int, list[str]] = {}
        for part, marks in in_lists(list(notes), BATCH):
            for note, title, metadata in self.db.execute(
                f"SELECT id, title, metadata FROM notes WHERE id IN ({marks})", part
            ).fetchall():
                aliases = (json.loads(metadata).get("aliases") if metadata and '"aliases"' in metadata else None) or []
                aliases = aliases if isinstance(aliases, list) else [aliases]
                names[note] = [str(name) for name in [title, *aliases] if name]
        return names
