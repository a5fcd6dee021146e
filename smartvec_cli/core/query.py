"""Answering questions: one store, one model load, any number of questions."""

from __future__ import annotations

from dataclasses import dataclass

from ..embed import Embedder
from ..store.store import Store
from .search import Hit, SearchOptions, search
from .workspace import Workspace


@dataclass
class Question:
    text: str
    id: object = None


class QueryEngine:
    """Keeps the store open and the model loaded across questions (``query --batch``)."""

    def __init__(self, workspace: Workspace, store: Store, embedder: Embedder | None = None):
        self.ws = workspace
        self.store = store
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self.ws.embedder()
            self.store.check_fingerprint(self._embedder.fingerprint)
        return self._embedder

    def ask(self, question: Question, options: SearchOptions) -> list[Hit]:
        vector = self.embedder.embed([question.text])[0]
        return search(self.store, vector, options)
