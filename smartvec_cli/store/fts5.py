"""SQLite's full-text search: FTS5 (BM25) over every stored passage version, and the analysed copy of the
passages of a vault whose main language is not English (``db.m011_words_in_every_language``).

The core asks in words (``lexical.LexicalQuery``, ``lexical.Phrase``); the MATCH expressions are written here
alone: each word or phrase a quoted FTS5 string, any of several words their OR, and a column filter
(``text : ...``, ``title : ...``) where only the passage's own words or its note's title count.
"""

from __future__ import annotations

from typing import Sequence

from ..memory.analysis import analyse, analysed
from .base import StoreBase
from .db import FTS_FILL, FTS_TABLE, WORDS_FILL, WORDS_TABLE
from .inlist import first_of_each, in_lists
from .lexical import LexicalQuery, Phrase

MISSING_ENTRIES = "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM {table})"
EXTRA_ENTRIES = "SELECT count(*) FROM {table} WHERE rowid NOT IN (SELECT id FROM chunks)"
STALE_ENTRIES = """SELECT count(*) FROM {table} f JOIN chunks c ON c.id = f.rowid JOIN notes n ON n.id = c.note
                   WHERE f.text IS NOT {text} OR f.heading IS NOT {heading} OR f.title IS NOT {title}"""
"""The checks of one full-text table against the passages (``lexical_index_drift``): ``{text}``, ``{heading}`` and
``{title}`` are what its columns must hold."""


def fts5_string(words: str, language: str) -> str:
    """``words`` (one word, or a phrase's words joined by spaces) as one quoted FTS5 string in the terms of the
    table that answers for ``language``: as written for FTS5's porter index (an English vault), else analysed
    as the passages were (each word stemmed, a CJK word the phrase of its character pairs)."""
    if analysed(language):
        words = analyse(words, language) or words
    return '"' + words.replace('"', '""') + '"'


def fts5_any(query: LexicalQuery, language: str) -> str:
    """An FTS5 expression that any of the query's words matches: their quoted strings joined by OR."""
    return " OR ".join(fts5_string(term, language) for term in query.terms)


def fts5_phrase(phrase: Phrase, language: str) -> str:
    """An FTS5 phrase query for these words, in order, in a passage's own text (``text : "w1 w2 ..."``)."""
    return "text : " + fts5_string(" ".join(phrase), language)


class Fts5Queries(StoreBase):
    """Mixed into ``SqliteStore``: the full-text statements of ``Store`` in FTS5's terms."""

    def full_text(self, language: str | None = None) -> tuple[str, str]:
        """(the full-text table that answers for this vault, the vault's main language): FTS5's porter index for
        an English vault, else the analysed one, whose expressions ``fts5_string`` writes in its terms.
        ``language``: the vault's (``lexical_language``), when a caller asking many expressions has read it once."""
        language = language or self.lexical_language()
        return (WORDS_TABLE if analysed(language) else FTS_TABLE), language

    def record_languages(self, languages: list[str]) -> None:
        """Record the vault's languages (the main one first); when the main one changes, the analysed index
        is filled anew in it (no re-embedding). Inside the caller's write transaction."""
        before = self.lexical_language()
        self.set_meta("languages", " ".join(languages))
        if self.lexical_language() != before:
            self.db.execute(f"DELETE FROM {WORDS_TABLE}")
            self.db.execute(WORDS_FILL)

    def lexical_matches(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(passage id, BM25 score; higher is better) of the passages holding any of the query's words, best first."""
        if not query:
            return []
        table, language = self.full_text()
        expression = fts5_any(query, language)
        rows = self.db.execute(
            f"""SELECT f.rowid, -bm25({table}, 1.0, 0.75, 0.75) AS score
                FROM {table} f JOIN chunks c ON c.id = f.rowid
                WHERE {table} MATCH ? AND c.state != 'DELETED'
                ORDER BY score DESC LIMIT ?""",
            [expression, limit],
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def phrase_holders(self, phrases: Sequence[Phrase], limit: int) -> list[set[int]]:
        """For each phrase, the stored passages (up to ``limit``, best BM25 first) whose text holds it: one
        statement a phrase, whatever the number of candidates."""
        found = []
        table, language = self.full_text()
        for phrase in phrases:
            expression = fts5_phrase(phrase, language)
            sql = f"""SELECT f.rowid, c.note FROM {table} f JOIN chunks c ON c.id = f.rowid
                      WHERE {table} MATCH ? AND c.state != 'DELETED' ORDER BY bm25({table}) LIMIT ?"""
            found.append({row[0] for row in self.db.execute(sql, [expression, limit])})
        return found

    def title_matches(self, query: LexicalQuery, limit: int, per_note: int) -> list[int]:
        """The passages whose note title best matches any of the query's words (``title : (...)``), best first: the
        notes a question names, whatever their passages say. Of the first ``limit`` rows, ``per_note`` of each note
        (its passages all match its title alike)."""
        if not query:
            return []
        table, language = self.full_text()
        expression = f"title : ({fts5_any(query, language)})"
        sql = f"""SELECT f.rowid, c.note FROM {table} f JOIN chunks c ON c.id = f.rowid
                  WHERE {table} MATCH ? AND c.state != 'DELETED' AND c.current = 1 ORDER BY bm25({table}, 0.0, 0.0,
                  1.0) LIMIT ?"""
        return first_of_each(self.db.execute(sql, [expression, limit]).fetchall(), per_note)

    def term_frequencies(self, terms: list[str], cap: int) -> dict[str, int]:
        """For each query term, in how many stored passages' own words it occurs (their text: not the note
        title or heading path, which the passages of a note share), counted up to ``cap + 1``: past the cap a
        word is common (``memory.lexical.common_passages``) and its exact count changes nothing."""
        frequency = {}
        table, language = self.full_text()
        for term in terms:
            expression = "text : " + fts5_string(term, language)
            frequency[term] = self.db.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)", [expression, cap + 1]
            ).fetchone()[0]
        return frequency

    def term_holders(self, terms: list[str], ids: list[int]) -> dict[str, set[int]]:
        """For each query term, which of the passages ``ids`` hold it in their own words."""
        holders = {}
        table, language = self.full_text()
        for term in terms:
            expression = "text : " + fts5_string(term, language)
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
        unknown = set()
        table, language = self.full_text()
        for term in terms:
            expression = fts5_string(term, language)
            if not self.db.execute(f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1", [expression]).fetchone():
                unknown.add(term)
        return frozenset(unknown)

    def lexical_index_drift(self) -> tuple[int, int, int]:
        """(passages with no full-text entry, entries with no passage, entries whose text differs), over the
        porter index and, for a vault not in English, the analysed one."""

        def count(sql: str, params: list[str | None] | None = None) -> int:
            return int(self.db.execute(sql, params or []).fetchone()[0])

        plain = {"text": "c.text", "heading": "c.heading", "title": "n.title"}
        missing = count(MISSING_ENTRIES.format(table=FTS_TABLE))
        extra = count(EXTRA_ENTRIES.format(table=FTS_TABLE)) + count(EXTRA_ENTRIES.format(table=WORDS_TABLE))
        stale = count(STALE_ENTRIES.format(table=FTS_TABLE, **plain))
        if analysed(self.lexical_language()):
            analysed_columns = {column: f"smartvec_words({value}, ?)" for column, value in plain.items()}
            missing += count(MISSING_ENTRIES.format(table=WORDS_TABLE))
            stale += count(
                STALE_ENTRIES.format(table=WORDS_TABLE, **analysed_columns), [self.get_meta("languages")] * 3
            )
        return missing, extra, stale

    def rebuild_lexical_index(self) -> None:
        """The full-text indexes anew from the stored passages (no re-embedding; one transaction)."""
        with self.write():
            self.db.execute(f"DELETE FROM {FTS_TABLE}")
            self.db.execute(FTS_FILL)
            self.db.execute(f"DELETE FROM {WORDS_TABLE}")
            self.db.execute(WORDS_FILL)

    def body_neighbours(self, chunk: int, query: LexicalQuery, limit: int) -> list[int]:
        """Current live passages of other notes whose own words (the passage text: not the title or heading
        it is embedded with) best match any of the query's words, best first: the lexical side of the pairs that
        consolidation compares."""
        if not query:
            return []
        table, language = self.full_text()
        expression = f"text : ({fts5_any(query, language)})"
        rows = self.db.execute(
            f"""SELECT f.rowid FROM {table} f JOIN chunks c ON c.id = f.rowid
                WHERE {table} MATCH ? AND c.current = 1 AND c.state IN ('UNCONSOLIDATED', 'ACTIVE', 'DORMANT')
                  AND c.note != (SELECT note FROM chunks WHERE id = ?)
                ORDER BY bm25({table}, 1.0, 0.0, 0.0) LIMIT ?""",
            [expression, chunk, limit],
        ).fetchall()
        return [row[0] for row in rows]
