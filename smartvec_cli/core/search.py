"""Retrieval: candidates from the ANN index, then four-signal ranking at a reference time.

``mode="smart"`` ranks by meaning, time, trust and relations (``memory.scoring``).
A question about now sees live passages, and archived versions only while still
valid, or when they are the expired last word on a question nothing else answers
(``memory.ranking.expired_last_word``); expired passages score 0 on time and carry a warning. A question about a past
(or future) moment is answered from the passages valid at that moment, archived
versions included. ``mode="cosine"`` is plain cosine similarity over every stored
passage, all versions, computed exactly: the baseline every comparison is made against; its
``score`` is the similarity itself, as a plain RAG system would report it. ``mode="lexical"`` is BM25,
the other baseline, its ``score`` the BM25 over the best hit's. Neither baseline has a probability that a
hit answers, so their hits' ``confidence`` is None: it means one thing, smart mode's calibrated probability.

Smart mode's candidates are exact too while the index is small enough for one matrix
product to be cheap (``EXACT_CANDIDATES_UP_TO``), and come from the ANN graph above that,
whose search list grows with the index (``store.ann.search_list_size``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np

from ..clock import parse_optional
from ..config import Config
from ..embed import cosine_map
from ..memory.answer import AskedAnswer
from ..memory.lexical import (
    common_passages,
    coverage,
    named_share,
    phrase_shares,
    phrases,
    query_terms,
    specific_terms,
)
from ..memory.passage import Passage, Relation
from ..memory.ranking import Ask, Candidate, Ranked, rank
from ..memory.scoring import Weights
from ..store.ann import cosine_top_k, unit_matrix
from ..store.lexical import LexicalQuery
from ..store.protocols import AccessLog, FullTextSearch, Retrieval, VectorSearch
from .filters import NoteFilter
from .results import MODES  # noqa: F401  (bench.questions names the modes here)

CANDIDATE_FACTOR = 10
MIN_CANDIDATES = 100
LEXICAL_CANDIDATES = 50  # the best full-text matches join the ANN's candidates, so rare words are never lost
BLEND_CANDIDATES = 100  # the best full-text matches that join the candidates when BM25 is blended with the cosine
BM25_SCORED = 2000
"""How many of the best full-text matches have their BM25 read for the blend (``[scoring] dense_share``,
``answer_dense_share``); a candidate outside them counts 0. FTS5 scores every match to sort them, so reading
2,000 instead of 100 cost about 2 ms (6.6 → 8.5 ms, median of 20 questions on the 4,589 passages of the
Obsidian hub sample), while the passages of one note that only the
vector index found (a section whose words the question shares, beyond the first hundred) kept a BM25 of 0
and could not be chosen by their words. Scoring the candidates by row id instead (a full-text match restricted
to them) cost 0.28 s a question on 3,115 passages: FTS5 runs the whole match once per listed row id."""
TITLE_ROWS = 200  # passages of the notes whose titles best match the question's words, read to find...
TITLE_PASSAGES = 3  # ...this many of each such note, which join the candidates
NO_LIMIT = 1 << 40  # a limit no store reaches: every match
EXACT_CANDIDATES_UP_TO = 20_000
"""Passages up to which smart mode scores every stored vector instead of asking the graph. The product
grows with the index (0.4 ms for 4,300 rows; about 90 ms for 100,000 on a busy 2-core machine, where the
graph at ef=1,000 took 15 ms) and the matrix (30 MB at this size) is read from the database once per reader."""


@dataclass
class Hit:
    rank: int
    chunk_id: str
    note_id: str
    path: str
    heading: str
    text: str
    score: float
    confidence: float | None  # smart mode's calibrated probability; None in the baseline modes
    signals: dict
    state: str
    valid_from: str | None
    valid_until: str | None
    version: int
    warnings: list[str] = field(default_factory=list)
    explain: dict | None = None
    row_id: int = 0
    url: str | None = None  # opens the note (``core.note_links``); set by whoever knows the vault's folder


@dataclass
class SearchOptions:
    """The engine's own options: a checked ``QueryRequest`` as the vault reads it (the weights parsed, the note
    filter read in the vault's languages, ``as_of`` still the words until the question is asked)."""

    top_k: int = 5
    mode: str = "smart"
    as_of: dt.datetime | dt.date | str | None = None  # words ("March 2023") until asked; a moment for search
    include_archived: bool = False
    include_dormant: bool = False
    weights: Weights | None = None
    record_access: bool = True
    filters: NoteFilter | None = None  # the notes the hits may come from (``core.filters``); None: every note


def search(
    store: Retrieval,
    config: Config,
    query_vector: np.ndarray | None,
    query_text: str,
    options: SearchOptions,
    now: dt.datetime,
    within: set[int] | None = None,
) -> tuple[list[Hit], int | None]:
    """Rank stored passages for one question (its text, and its embedding unless the mode is lexical):
    the best ``top_k`` hits, and in smart mode how many passages passed the relevance floor.

    ``within`` (passage row ids: a note filter's, ``core.filters``) restricts every candidate source, the
    vector search included, before any cut: the ranking sees the best candidates among those rows only."""
    if options.mode == "lexical":
        return _numbered(_lexical_hits(store, query_text, options.top_k, within)), None
    assert query_vector is not None, "smart and cosine modes need the question's embedding"
    depth = max(MIN_CANDIDATES, options.top_k * CANDIDATE_FACTOR)
    if within is None:
        similar = dict(nearest(store, query_vector, depth, exact=options.mode == "cosine"))
    else:
        similar = dict(nearest_within(store, query_vector, depth, within))
    if options.mode == "cosine":
        passages = store.passages(list(similar))
        hits = [_cosine_hit(passages[label], similarity) for label, similarity in similar.items() if label in passages]
        hits.sort(key=lambda h: h.score, reverse=True)
        return _numbered(hits[: options.top_k]), None
    gathered = gather(store, query_vector, query_text, similar, within)
    found, relations = gathered.candidates, gathered.relations
    moment = options.as_of or now
    assert isinstance(moment, dt.datetime), "the question's words are read into a moment before search"
    ask = Ask(
        moment=moment,
        as_of=options.as_of is not None,
        include_archived=options.include_archived,
        include_dormant=options.include_dormant,
        known_since=parse_optional(store.known_since),
        question=query_text,
        language=store.lexical_language(),
        cosine_map=cosine_map(store.fingerprint),
    )
    ranked = rank(
        found,
        ask,
        options.weights or config.scoring.weights,
        config.scoring,
        config.confidence,
        store.importance_range(),
        relations,
    )
    return _numbered([_smart_hit(item) for item in ranked[: options.top_k]]), len(ranked)


@dataclass
class Gathered:
    """One question's candidates with everything the ranking weighs, and the relations among them."""

    candidates: list[Candidate]
    relations: list[Relation]


def gather(
    store: Retrieval,
    query_vector: np.ndarray,
    query_text: str,
    similar: dict[int, float],
    within: set[int] | None = None,
) -> Gathered:
    """The candidate stage of smart mode: the passages nearest the question (``similar``: row id to cosine), joined
    by the best full-text matches of its words, the holders of its verbatim phrases and the passages of the notes
    its words name, each with its cosine, BM25, word shares, phrase share and title share."""
    language = store.lexical_language()
    specific = specific_terms(query_text, language)
    # Of the question's words only those not common in the vault count (``common_passages``).
    terms = query_terms(query_text, language)
    total, frequency = 0, dict[str, int]()
    if terms:
        total = len(store.load_ann().live)  # the passages search can see: the N of a word's rarity
        common = common_passages(total)
        frequency = store.term_frequencies(terms, common)
        terms = [t for t in terms if frequency[t] <= common]
    joining: dict[int, None] = {}  # full-text candidates the vector index missed, in the order found
    rare_specific = [t for t in terms if t in specific]
    if rare_specific:
        specific_matches = lexical_matches_within(
            store, LexicalQuery.any_of(query_terms(" ".join(rare_specific), language)), LEXICAL_CANDIDATES, within
        )
        joining.update((label, None) for label, _ in specific_matches)
    bm25: dict[int, float] = {}
    everything = LexicalQuery.any_of(query_terms(query_text, language))  # every content word, as lexical mode asks
    if everything:
        scored = lexical_matches_within(store, everything, BM25_SCORED, within)
        bm25 = dict(scored)
        joining.update((label, None) for label, _ in scored[:BLEND_CANDIDATES])
    asked_phrases = phrases(query_text)
    holding = (
        store.phrase_holders(
            [tuple(words) for words in asked_phrases], LEXICAL_CANDIDATES if within is None else NO_LIMIT
        )
        if asked_phrases
        else []
    )
    if within is not None:
        holding = [found & within for found in holding]
    for held in holding:
        joining.update((label, None) for label in sorted(held))
    asked_terms = query_terms(query_text, language)
    if asked_terms:
        joining.update(
            (label, None) for label in store.title_matches(LexicalQuery.any_of(asked_terms), TITLE_ROWS, TITLE_PASSAGES)
        )
    missing = [label for label in joining if label not in similar and (within is None or label in within)]
    if missing:
        similar.update(zip(missing, (store.vectors_for_chunks(missing) @ query_vector).tolist(), strict=False))
    relations = store.relations_of(list(similar))
    # A user's correction answers wherever the passage it corrects is found (memory.ranking.corrections_in_place).
    corrections = [e.src for e in relations if e.kind == "corrects" and e.dst in similar and e.src not in similar]
    if corrections:
        similar.update(zip(corrections, (store.vectors_for_chunks(corrections) @ query_vector).tolist(), strict=False))
        relations = store.relations_of(list(similar))
    passages = store.passages(list(similar))
    ids = [label for label in similar if label in passages]
    verbatim = phrase_shares(holding, [len(words) for words in asked_phrases], ids)
    named: dict[int, float] = {}
    if asked_terms:
        if not total:
            total = len(store.load_ann().live)
        counted = store.term_frequencies([t for t in asked_terms if t not in frequency], common_passages(total))
        common_terms = frozenset(t for t, n in {**frequency, **counted}.items() if n > common_passages(total))
        names = store.note_names(list({passages[i].note for i in ids}))
        named = {
            note: named_share(query_text, note_names, common_terms, language) for note, note_names in names.items()
        }
    shares: dict[int, float] = {}
    specific_shares: dict[int, float] = {}
    if terms:
        holders = store.term_holders(terms, ids)
        shares = coverage(total, {t: frequency[t] for t in terms}, holders, ids)
        if specific:
            specific_frequency = {t: frequency[t] for t in terms if t in specific}
            unknown = store.unknown_terms([t for t, n in specific_frequency.items() if n == 0])
            specific_shares = coverage(total, specific_frequency, holders, ids, unknown)
    asked = AskedAnswer.of(query_text)
    found = [
        Candidate(
            passages[i],
            similar[i],
            shares.get(i, 0.0),
            specific_shares.get(i, 0.0),
            float(asked.stated_by(passages[i].text)),
            bm25.get(i, 0.0),
            verbatim.get(i, 0.0),
            named.get(passages[i].note, 0.0),
        )
        for i in ids
    ]
    return Gathered(found, [e for e in relations if e.src in passages or e.dst in passages])


def prepare_search(store: VectorSearch, options: SearchOptions) -> None:
    """Read what ``search`` reads whatever the question: the vector index and, where the candidates are exact,
    the matrix of stored vectors. A cold query does it while its model is still loading; later calls cost nothing."""
    if options.mode != "lexical":
        ann = store.load_ann()
        if ann.live and (options.mode == "cosine" or len(ann.live) <= EXACT_CANDIDATES_UP_TO):
            ann.exact_matrix(store.vectors_for_chunks)


def nearest(store: VectorSearch, query_vector: np.ndarray, k: int, exact: bool = False) -> list[tuple[int, float]]:
    """The candidate stage: the ``k`` stored passages most similar to the question, (row id, cosine) best
    first; exact when asked or when the index is small (``EXACT_CANDIDATES_UP_TO``), else from the graph."""
    ann = store.load_ann()
    # A damaged saved graph is searched exactly until a writer rebuilds it (pgvector's index is always there).
    if not exact and len(ann.live) > EXACT_CANDIDATES_UP_TO and ann.has_graph:
        try:
            return ann.search(query_vector, k)
        except RuntimeError:  # hnswlib reached fewer than k items: duplicates have cut the graph apart
            pass
    return ann.exact_search(query_vector, k, store.vectors_for_chunks)


def nearest_within(store: VectorSearch, query_vector: np.ndarray, k: int, rows: set[int]) -> list[tuple[int, float]]:
    """``nearest`` among ``rows`` only, always exact: the searchable passages of the filtered notes. Read
    from the matrix ``prepare_search`` keeps while the index is small, else from the rows' own vectors."""
    ann = store.load_ann()
    labels = sorted(rows & ann.live)
    if not labels or k <= 0:
        return []
    if len(ann.live) <= EXACT_CANDIDATES_UP_TO:
        every, vectors = ann.exact_matrix(store.vectors_for_chunks)
        keep = np.isin(every, np.asarray(labels, dtype=np.int64))
        return cosine_top_k((every[keep], vectors[keep]), query_vector, k)
    return cosine_top_k(unit_matrix(labels, store.vectors_for_chunks(labels)), query_vector, k)


def _numbered(hits: list[Hit]) -> list[Hit]:
    for number, hit in enumerate(hits, start=1):
        hit.rank = number
    return hits


def lexical_matches_within(
    store: FullTextSearch, query: LexicalQuery, limit: int, within: set[int] | None
) -> list[tuple[int, float]]:
    """The best ``limit`` full-text matches, among the passages ``within`` when a filter gives them: every match is
    read and those outside dropped before the cut (FTS5 scores every match to sort them anyway), so a filter
    never loses a match that better ones elsewhere in the vault would have pushed out."""
    if within is None:
        return store.lexical_matches(query, limit)
    return [match for match in store.lexical_matches(query, NO_LIMIT) if match[0] in within][:limit]


def _lexical_hits(store: Retrieval, query_text: str, top_k: int, within: set[int] | None = None) -> list[Hit]:
    """BM25 over every stored passage, all versions: the full-text baseline (``--mode lexical``), each hit's score
    its BM25 over the best hit's (the raw BM25 stays in ``explain``); with ``within``, every match is read and those
    outside it dropped (FTS5 scores every match to sort them anyway)."""
    query = LexicalQuery.any_of(query_terms(query_text, store.lexical_language()))
    if not query:
        return []
    matches = lexical_matches_within(store, query, top_k, within)
    passages = store.passages([label for label, _ in matches])
    best = matches[0][1] if matches else 0.0
    hits = []
    for label, bm25 in matches:
        if label in passages:
            relative = bm25 / best if best > 0 else 0.0  # the raw BM25 differs between stores; its share does not
            hit = _hit(
                passages[label], relative, {"semantic": None, "temporal": None, "confidence": None, "relational": None}
            )
            hit.explain = {"bm25": round(bm25, 6), "valid_at_reference": None}
            hits.append(hit)
    return hits


def _hit(passage: Passage, score: float, signals: dict) -> Hit:
    return Hit(
        rank=0,
        chunk_id=passage.chunk_id,
        note_id=passage.note_id,
        path=passage.path,
        heading=passage.heading,
        text=passage.text,
        score=round(score, 6),
        confidence=None,
        signals={k: (None if v is None else round(v, 6)) for k, v in signals.items()},
        state=passage.state,
        valid_from=passage.valid_from,
        valid_until=passage.valid_until,
        version=passage.version,
        row_id=passage.id,
    )


def _smart_hit(item: Ranked) -> Hit:
    hit = _hit(item.passage, item.score, item.signals)
    hit.confidence = round(item.confidence, 4)
    hit.explain = item.explain
    hit.warnings = item.warnings
    return hit


def _cosine_hit(passage: Passage, similarity: float) -> Hit:
    semantic = max(0.0, min(1.0, similarity))
    hit = _hit(passage, semantic, {"semantic": semantic, "temporal": None, "confidence": None, "relational": None})
    hit.explain = {"valid_at_reference": None}
    return hit


def record_retrieval(store: AccessLog, text: str, hits: list[Hit], now_iso: str) -> None:
    """Every returned hit counts an access; the hits are remembered for ``feedback --rank N``."""
    if store.read_only:  # a read-only index answers, but cannot remember that it did
        return
    payload = {
        "query": text,
        "at": now_iso,
        "hits": [{"rank": h.rank, "chunk_id": h.chunk_id, "id": h.row_id} for h in hits],
    }
    store.record_retrieval([h.row_id for h in hits], payload, now_iso)
