"""The store's statements for retrieval: candidate passages as memory values, and their use."""

from __future__ import annotations

import json
from typing import Sequence

from ..memory.analysis import analyse_expression, analysed, main_language
from ..memory.passage import Passage, Relation
from .db import FTS_FILL, FTS_TABLE, WORDS_FILL, WORDS_TABLE
from .inlist import first_of_each, in_lists

BATCH = 500

PASSAGE_SQL = """
    SELECT c.id, c.note, c.chunk_id, c.heading, c.text, c.state, c.valid_from, c.valid_until, c.from_source, c.until_source, c.version,
           c.created_at, c.observed_from, c.feedback, c.access_count, c.last_accessed,
           c.contradiction_penalty, c.ripple_penalty, c.echo_penalty,
           n.note_id, n.path, n.title, n.authority, n.source_type, n.declared, n.doc_date, n.importance,
           n.superseded_at AS note_superseded_at, n.superseded_by AS note_superseded_by, n.deleted_at AS note_deleted_at,
           s.chunk_id AS successor_chunk, s.version AS successor_version, s.valid_from AS successor_from,
           sn.path AS successor_note_path,
           (SELECT max({inferred_reason}) FROM edges e WHERE e.type = 'supersedes' AND e.src_note = n.superseded_by
              AND e.dst_note = n.id) AS supersession_inferred
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
    )


class PassageQueries:
    """Mixed into ``Store``: candidates for ranking, their relation warnings, and access counting."""

    def passages(self, ids: Sequence[int]) -> dict[int, Passage]:
        """The stored versions with these row ids (deleted ones left out), keyed by id."""
        found: dict[int, Passage] = {}
        for part, marks in in_lists(ids, BATCH):
            found.update(
                (row["id"], _passage(row))
                for row in self.db.query(PASSAGE_SQL.format(marks=marks, inferred_reason=self.INFERRED_REASON), part)
            )
        return found

    def importance_range(self) -> tuple[float, float]:
        """The least and the greatest graph importance of a live note (0, 0 before consolidation)."""
        low, high = self.db.execute(
            "SELECT min(importance), max(importance) FROM notes WHERE deleted_at IS NULL AND importance > 0"
        ).fetchone()
        return (low or 0.0, high or 0.0)

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
                  WHERE e.type IN ('corrects', 'contradicts', 'echoes') AND (e.src_chunk IN ({marks}) OR e.dst_chunk IN ({marks}))
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
                    f"state = CASE WHEN state = 'DORMANT' THEN 'ACTIVE' ELSE state END WHERE id IN ({','.join('?' * len(ids))})",
                    [now_iso, *ids],
                )
            self.set_meta("last_query", json.dumps(last_query))

    def lexical_language(self) -> str:
        """The language the full-text index reads the vault's words in (``memory.analysis.main_language``)."""
        return main_language(self.get_meta("languages"))

    def full_text(self, expression: str, language: str | None = None) -> tuple[str, str]:
        """The full-text table that answers for this vault and the expression in its terms: FTS5's porter index
        for an English vault, else the analysed one with the expression's words stemmed (or paired) alike.
        ``language``: the vault's (``lexical_language``), when a caller asking many expressions has read it once."""
        language = language or self.lexical_language()
        if analysed(language):
            return WORDS_TABLE, analyse_expression(expression, language)
        return FTS_TABLE, expression

    def record_languages(self, languages: list[str]) -> None:
        """Record the vault's languages (the main one first); when the main one changes, the analysed index
        is filled anew in it (no re-embedding). Inside the caller's write transaction."""
        before = self.lexical_language()
        self.set_meta("languages", " ".join(languages))
        if self.lexical_language() != before:
            self.db.execute(f"DELETE FROM {WORDS_TABLE}")
            self.db.execute(WORDS_FILL)

    def lexical_matches(self, expression: str, limit: int) -> list[tuple[int, float]]:
        """(passage id, BM25 score; higher is better) of the passages matching an FTS5 expression, best first."""
        table, expression = self.full_text(expression)
        rows = self.db.execute(
            f"""SELECT f.rowid, -bm25({table}, 1.0, 0.75, 0.75) AS score
                FROM {table} f JOIN chunks c ON c.id = f.rowid
                WHERE {table} MATCH ? AND c.state != 'DELETED'
                ORDER BY score DESC LIMIT ?""",
            [expression, limit],
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def phrase_holders(self, expressions: list[str], limit: int) -> list[set[int]]:
        """For each FTS5 phrase expression, the stored passages (up to ``limit``, best BM25 first) whose text holds it:
        one statement a phrase, whatever the number of candidates."""
        found, language = [], self.lexical_language()
        for expression in expressions:
            table, expression = self.full_text(expression, language)
            sql = f"""SELECT f.rowid, c.note FROM {table} f JOIN chunks c ON c.id = f.rowid
                      WHERE {table} MATCH ? AND c.state != 'DELETED' ORDER BY bm25({table}) LIMIT ?"""
            found.append({row[0] for row in self.db.execute(sql, [expression, limit])})
        return found

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

    def title_matches(self, expression: str, limit: int, per_note: int) -> list[int]:
        """The passages whose note title matches an FTS5 expression best (``title : (...)``), best first: the notes a
        question names, whatever their passages say. Of the first ``limit`` rows, ``per_note`` of each note (its
        passages all match its title alike)."""
        table, expression = self.full_text(expression)
        sql = f"""SELECT f.rowid, c.note FROM {table} f JOIN chunks c ON c.id = f.rowid
                  WHERE {table} MATCH ? AND c.state != 'DELETED' AND c.current = 1 ORDER BY bm25({table}, 0.0, 0.0, 1.0) LIMIT ?"""
        return first_of_each(self.db.execute(sql, [expression, limit]).fetchall(), per_note)

    def term_frequencies(self, terms: list[str], cap: int) -> dict[str, int]:
        """For each query term, in how many stored passages' own words it occurs (their text: not the note
        title or heading path, which the passages of a note share), counted up to ``cap + 1``: past the cap a
        word is common (``memory.lexical.common_passages``) and its exact count changes nothing."""
        frequency, language = {}, self.lexical_language()
        for term in terms:
            table, expression = self.full_text(f'text : "{term}"', language)
            frequency[term] = self.db.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)", [expression, cap + 1]
            ).fetchone()[0]
        return frequency

    def term_holders(self, terms: list[str], ids: list[int]) -> dict[str, set[int]]:
        """For each query term, which of the passages ``ids`` hold it in their own words."""
        holders, language = {}, self.lexical_language()
        for term in terms:
            table, expression = self.full_text(f'text : "{term}"', language)
            sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid IN ({{marks}})"
            holders[term] = {
                row[0]
                for part, marks in in_lists(ids)
                for row in self.db.execute(sql.format(marks=marks), [expression, *part])
            }
        return holders

    def unknown_terms(self, terms: list[str]) -> frozenset[str]:
        """The query terms that no stored passage's text, heading or note title contains: words the vault
        does not know at all."""
        unknown, language = set(), self.lexical_language()
        for term in terms:
            table, expression = self.full_text(f'"{term}"', language)
            if not self.db.execute(f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1", [expression]).fetchone():
                unknown.add(term)
        return frozenset(unknown)

    def lexical_index_drift(self) -> tuple[int, int, int]:
        """(passages with no full-text entry, entries with no passage, entries whose text differs), over the
        porter index and, for a vault not in English, the analysed one."""
        missing = self.db.execute(
            f"SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM {FTS_TABLE})"
        ).fetchone()[0]
        extra = self.db.execute(
            f"SELECT count(*) FROM {FTS_TABLE} WHERE rowid NOT IN (SELECT id FROM chunks)"
        ).fetchone()[0]
        stale = self.db.execute(
            f"""SELECT count(*) FROM {FTS_TABLE} f JOIN chunks c ON c.id = f.rowid JOIN notes n ON n.id = c.note
                WHERE f.text IS NOT c.text OR f.heading IS NOT c.heading OR f.title IS NOT n.title"""
        ).fetchone()[0]
        languages = self.get_meta("languages")
        if analysed(self.lexical_language()):
            missing += self.db.execute(
                f"SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM {WORDS_TABLE})"
            ).fetchone()[0]
            stale += self.db.execute(
                f"""SELECT count(*) FROM {WORDS_TABLE} f JOIN chunks c ON c.id = f.rowid JOIN notes n ON n.id = c.note
                    WHERE f.text IS NOT smartvec_words(c.text, ?) OR f.heading IS NOT smartvec_words(c.heading, ?)
                       OR f.title IS NOT smartvec_words(n.title, ?)""",
                [languages] * 3,
            ).fetchone()[0]
        extra += self.db.execute(
            f"SELECT count(*) FROM {WORDS_TABLE} WHERE rowid NOT IN (SELECT id FROM chunks)"
        ).fetchone()[0]
        return missing, extra, stale

    def rebuild_lexical_index(self) -> None:
        """The full-text indexes anew from the stored passages (no re-embedding; one transaction)."""
        with self.write():
            self.db.execute(f"DELETE FROM {FTS_TABLE}")
            self.db.execute(FTS_FILL)
            self.db.execute(f"DELETE FROM {WORDS_TABLE}")
            self.db.execute(WORDS_FILL)
