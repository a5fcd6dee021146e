"""A full-text question as words, in no database's syntax.

The core says which words it looks for (``memory.lexical`` chooses them); each store writes them in its own
terms: SQLite as FTS5 MATCH expressions (``fts5.py``), PostgreSQL as tsqueries (``postgres/store.py``). So no
caller quotes a word, joins words with OR or names a column, and a new backend reads the words, not another
database's syntax.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class LexicalQuery:
    """The passages holding any of ``terms``: words as ``memory.lexical.query_terms`` spells them (lower case),
    or an identifier as written ("ERR-4012"). Never syntax: a store reads each term as the word(s) it is, in
    the vault's language. No terms match nothing."""

    terms: tuple[str, ...]

    @classmethod
    def any_of(cls, terms: Iterable[str]) -> LexicalQuery:
        """The query for these words, in the order given (the order a store may write them in)."""
        return cls(tuple(terms))

    def __bool__(self) -> bool:
        return bool(self.terms)


Phrase = tuple[str, ...]
"""The words of a verbatim run (``memory.lexical.phrases``), in order: a passage holds it when its own text has
these words one after the other."""
