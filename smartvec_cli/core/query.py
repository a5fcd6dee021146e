"""Answering questions: one store, one model load, any number of questions."""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Callable

from ..clock import to_iso
from ..embed import Embedder, embed_queries
from ..errors import UsageError, check_question_length
from ..memory.asof import AsOf, parse_as_of, resolve_as_of
from ..store.store import Store
from .filters import matching_notes
from .note_links import is_obsidian_vault, note_url
from .results import QueryAnswer, QueryHit, Signals
from .search import Hit, SearchOptions, prepare_search, record_retrieval, search
from .workspace import Workspace


@dataclass
class Question:
    text: str
    id: object = None
    as_of: str | dt.date | dt.datetime | None = None  # a moment, or words such as "March 2023" (resolved when asked)


@dataclass
class Answer:
    question: Question
    hits: list[Hit]
    as_of: AsOf | None  # the moment the answer is about, with the words, period and rule; None means now
    relevant: int | None = None  # how many passages passed the relevance floor (None: a baseline mode)
    notes_matched: int | None = None  # how many notes the question's note filter kept (None: no filter)

    def result(self, explain: bool = False) -> QueryAnswer:
        """The answer as the Python API returns it; ``explain`` keeps each hit's explanation, which then carries
        the resolved moment too, so that ``query --json --explain`` shows it."""
        when = self.as_of.to_json() if self.as_of else None
        return QueryAnswer(
            hits=tuple(
                query_hit(
                    hit,
                    {**hit.explain, "as_of": when} if explain and hit.explain is not None else None,
                    when["moment"] if when else None,
                )
                for hit in self.hits
            ),
            as_of=when["moment"] if when else None,
            as_of_phrase=when["words"] if when else None,
            as_of_period=(when["first_day"], when["last_day"]) if when else None,
            as_of_rule=when["rule"] if when else None,
            relevant=self.relevant,
            notes_matched=self.notes_matched,
        )

    def to_json(self, explain: bool = True) -> dict:
        """The answer as the daemon's socket carries it (hits with their explanation) and ``query`` prints it."""
        return self.result(explain).to_dict()


def query_hit(hit: Hit, explain: dict | None, as_of: str | None = None) -> QueryHit:
    """The public value of a ranked hit, field by field (the engine's ``row_id`` stays behind), with ``explain`` in
    place of the hit's own explanation."""
    return QueryHit(
        rank=hit.rank,
        chunk_id=hit.chunk_id,
        note_id=hit.note_id,
        path=hit.path,
        heading=hit.heading,
        text=hit.text,
        score=hit.score,
        confidence=hit.confidence,
        signals=Signals.from_dict(hit.signals),
        state=hit.state,
        valid_from=hit.valid_from,
        valid_until=hit.valid_until,
        version=hit.version,
        warnings=tuple(hit.warnings),
        explain=None if explain is None else MappingProxyType(copy.deepcopy(explain)),
        url=hit.url,
        as_of=as_of,
    )


def _masked(text: str, titles: list[str]) -> str:
    """``text`` with each of these titles (any case) blanked out, so that a date inside one is not read."""
    for title in titles:
        text = re.sub(re.escape(title), lambda found: "_" * len(found.group(0)), text, flags=re.IGNORECASE)
    return text


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

    def _titles_around(self, question: str, phrase: str) -> list[str]:
        """The titles of notes that the question quotes and that hold the date ``phrase`` it names (a date inside
        a quoted title names the note, not the time asked about)."""
        digits = max(re.findall(r"\d+", phrase), key=len, default="")
        if not digits:
            return []
        lowered = question.lower()
        spot = lowered.find(phrase.lower())
        around = []
        for title in self.store.live_titles_containing(digits):
            start = lowered.find(title.lower()) if title else -1
            if start >= 0 and start <= spot and spot + len(phrase) <= start + len(title):
                around.append(title)
        return around

    def ask(self, question: Question, options: SearchOptions) -> Answer:
        """Resolve the time the question is about (the question's own as-of, the flag's, then its words), embed,
        rank."""
        check_question_length(question.text)
        now = self.ws.clock.now()
        languages = self.ws.languages()
        given = question.as_of or options.as_of
        when, text = (resolve_as_of(given, now, languages) if given else None), question.text
        if when is None and options.mode == "smart":
            when = parse_as_of(question.text, now, languages)
            titles = self._titles_around(question.text, when.phrase) if when else []
            if when and titles:  # "Market Report Mar 2024": a name, not the time asked about
                when = parse_as_of(_masked(question.text, titles), now, languages)
            elif when:
                text = when.remainder
        if not question.text.strip():
            raise UsageError("the question is empty")
        within, matched = None, None
        if options.filters:
            wanted = options.filters
            rows = self.store.note_filter_fields(
                wanted.needles(), fields=bool(wanted.tags or wanted.where or wanted.since or wanted.until)
            )
            notes = matching_notes(rows, options.filters, now, languages)
            within, matched = set(self.store.passage_rows_of_notes(sorted(notes))), len(notes)
            if not within:  # nothing to rank: the model need not even load
                return Answer(question, [], when, 0 if options.mode == "smart" else None, matched)
        prepare_search(self.store, options)  # before the model is waited for (see ``Workspace.question_embedder``)
        vector = None if options.mode == "lexical" else embed_queries(self.embedder, [text])[0]
        hits, relevant = search(
            self.store, self.ws.config, vector, text, replace(options, as_of=when.moment if when else None), now, within
        )
        obsidian = is_obsidian_vault(self.ws.vault)
        for hit in hits:
            hit.url = note_url(self.ws.vault, hit.path, obsidian)
        if options.record_access:
            record_retrieval(self.store, question.text, hits, to_iso(now))
            self.store.forget_untracked_query()
        elif not self.store.read_only:  # feedback --rank N names a hit of this query, the one the user saw
            self.store.remember_untracked_query(
                {
                    "query": question.text,
                    "at": to_iso(now),
                    "tracked": False,
                    "hits": [{"rank": h.rank, "chunk_id": h.chunk_id, "id": h.row_id} for h in hits],
                }
            )
        return Answer(question, hits, when, relevant, matched)
