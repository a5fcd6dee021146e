"""Answering questions: one store, one model load, any number of questions."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Callable

from ..clock import to_iso
from ..embed import Embedder
from ..errors import UsageError
from ..memory.asof import parse_as_of
from ..store.store import Store
from .search import Hit, SearchOptions, record_retrieval, search
from .workspace import Workspace


@dataclass
class Question:
    text: str
    id: object = None
    as_of: dt.datetime | None = None


@dataclass
class Answer:
    question: Question
    hits: list[Hit]
    as_of: dt.datetime | None  # the moment the answer is about; None means now
    as_of_phrase: str | None  # the words of the question that named it
    relevant: int | None = None  # how many passages passed the relevance floor (None: a baseline mode)

    def to_json(self, explain: bool = True) -> dict:
        """The answer as the daemon's socket carries it (hits with their explanation) and ``query`` prints it."""
        return {
            "hits": [hit.to_dict(explain) for hit in self.hits],
            "as_of": to_iso(self.as_of) if self.as_of else None,
            "as_of_phrase": self.as_of_phrase,
            "relevant": self.relevant,
        }


class QueryEngine:
    """Keeps the store open and the model loaded across questions (``query --batch``)."""

    def __init__(self, workspace: Workspace, store: Store, embedder_factory: Callable[[], Embedder] | None = None):
        self.ws = workspace
        self.store = store
        self._embedder_factory = embedder_factory or workspace.embedder
        self._embedder: Embedder | None = None

    @property
    def embedder(self) -> Embedder:
        """Loaded on the first question, and checked against the model the index was built with."""
        if self._embedder is None:
            embedder = self._embedder_factory()
            self.store.check_fingerprint(embedder.fingerprint)
            self._embedder = embedder
        return self._embedder

    def ask(self, question: Question, options: SearchOptions) -> Answer:
        """Resolve the time the question is about (flag first, then its words), embed, rank."""
        now = self.ws.clock.now()
        as_of, phrase, text = question.as_of or options.as_of, None, question.text
        if as_of is None and options.mode == "smart":
            found = parse_as_of(question.text, now)
            if found:
                as_of, phrase, text = found.moment, found.phrase, found.remainder
        if not question.text.strip():
            raise UsageError("the question is empty")
        vector = None if options.mode == "lexical" else self.embedder.embed([text])[0]
        hits, relevant = search(self.store, self.ws.config, vector, text, replace(options, as_of=as_of), now)
        if options.record_access:
            record_retrieval(self.store, question.text, hits, to_iso(now))
        return Answer(question, hits, as_of, phrase, relevant)

