"""Consolidation, the sleep cycle: turn freshly encoded passages into memory.

Incremental and idempotent. Its work queue is the notes the indexer marked
``pending`` (new, re-described, or with changed text) and every UNCONSOLIDATED
passage; everything else is only swept by time (archival of passages whose window
has closed, dormancy of unused low-trust passages). Steps:

1. relations and contradictions: each queued passage's near neighbours come from the
   ANN index (never all pairs); a near-duplicate in another note that states a
   different value (``memory.contradiction``) gets a ``contradicts`` edge, resolved
   by authority, then declared validity, then recency, then feedback; one that
   agrees gets a ``restates`` edge towards the more authoritative passage. Pairs that
   are versions of each other (``supersedes``) or were never valid at the same time
   are not contradictions. The losing side's trust drops; nothing is deleted.
2. supersession and archival: a passage whose validity window has closed (its note
   was superseded, or expired) becomes ARCHIVED, and comes back if that changes.
3. ripple: when a note's text changed, the notes that ``depend_on`` it, breadth-first,
   lose trust by a penalty that halves with every hop (0.15, 0.075, ... up to a depth
   limit) and are listed as needing review until they are edited themselves.
4. queued passages become ACTIVE.
5. dormancy: current passages whose trust fell under the threshold and that have not
   been used lately become DORMANT (hidden by default, never deleted); they wake up
   on access or feedback, or here when their trust recovers.
6. graph importance (PageRank) for the relational signal.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Iterable

import numpy as np

from ..clock import parse_optional
from ..memory.consolidation import ConsolidationSettings
from ..memory.contradiction import (
    NO_FRAMES,
    TITLES_NAMED_AT_MOST,
    Disagreement,
    Frames,
    Quantity,
    Titles,
    Where,
    disagreement,
    identifiers,
    judged_conflicts,
    names,
    negated,
    note_subject,
    quantities,
    repeated_outdated_value,
    repeats_a_value,
    same_statement_groups,
    sentences,
    value_conflicts,
    without_names,
)
from ..memory.graph import pagerank
from ..memory.lexical import query_terms
from ..memory.lineage import lineages
from ..memory.passage import Passage
from ..memory.ranking import authority, passage_trust
from ..store.ann import search_list_size
from ..store.lexical import LexicalQuery
from ..store.store import Store
from ..vault.chunk import embed_text_for
from ..vault.links import NoteName
from .progress import PAIRS, ProgressCallback, ProgressReport, ignore_progress
from .relations import note_name
from .workspace import Workspace

LIVE_STATES = ("UNCONSOLIDATED", "ACTIVE", "DORMANT")
DERIVED_EDGES = ("contradicts", "restates")


@dataclass
class ConsolidationSummary:
    transitions: dict[str, int] = field(default_factory=dict)
    edges_added: int = 0
    edges_removed: int = 0
    contradictions_found: int = 0
    passages_rippled: int = 0
    notes_needing_review: int = 0
    notes_processed: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def changed_anything(self) -> bool:
        return bool(self.transitions or self.edges_added or self.edges_removed or self.passages_rippled)


def cosine_similarity(a, b) -> float:
    """The cosine of two stored vectors (numpy arrays)."""
    norms = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b) / norms if norms else 0.0


PROGRESS_PAIRS = 2000
"""Pairs of passages judged between two progress reports: their sentences are embedded in one batch, as a
whole run's were (the model's own batches are smaller), so the blocks cost nothing in speed."""

HOLDER_PASSAGES = 4 * (TITLES_NAMED_AT_MOST + 1)
"""Passages read to count the notes that name an identifier (``Consolidator._identifier_holders``)."""

PAIR_BLOCK = 4096
"""Pairs whose cosines ``pair_cosines`` reads in one product (4096 x 2 x 384 floats: 12 MB)."""


def pair_cosines(vectors: dict[int, np.ndarray], pairs: list[tuple[int, int]]) -> list[float]:
    """``cosine_similarity`` of each pair of stored vectors, a block of pairs at a time: a first consolidation
    compares hundreds of thousands of pairs, which one product per block does at numpy's speed rather than
    Python's."""
    found: list[float] = []
    for start in range(0, len(pairs), PAIR_BLOCK):
        block = pairs[start : start + PAIR_BLOCK]
        a = np.stack([vectors[x] for x, _ in block]).astype(np.float64)
        b = np.stack([vectors[y] for _, y in block]).astype(np.float64)
        norms = np.sqrt(np.einsum("ij,ij->i", a, a) * np.einsum("ij,ij->i", b, b))
        dots = np.einsum("ij,ij->i", a, b)
        found.extend(np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0).tolist())
    return found


def _where(passage: Passage, note: frozenset[str] = frozenset()) -> Where:
    """What a passage stands under (title and headings), the day its note is of and the note's subject
    (``note_subject``): what sets apart the siblings and editions of a template."""
    return Where(
        " > ".join([passage.title] + passage.heading_path),
        passage.doc_date or passage.valid_from,
        names(passage.text),
        note,
    )


def _current(passage: Passage) -> bool:
    """What is said now, as opposed to an outdated version (archived: edited away, or its window closed)."""
    return passage.state in LIVE_STATES


class Consolidator:
    def __init__(
        self,
        workspace: Workspace,
        store: Store,
        settings: ConsolidationSettings | None = None,
        embedder=None,
        progress: ProgressCallback | None = None,
    ):
        """``embedder`` is a sentence model already loaded (``bench perf`` has one warm); by default the
        workspace's is loaded when the first value conflict is judged. ``progress`` hears the pairs of passages
        compared (``PAIRS``: most of a first run's time) and, between them, the step the run is busy with."""
        self.progress = progress or ignore_progress
        self._pairs_done = 0
        self._pairs_total = 0
        self.ws = workspace
        self.store = store
        self.settings = settings or workspace.config.consolidation
        self.now = workspace.clock.now()
        self.now_iso = workspace.clock.now_iso()
        self.summary = ConsolidationSummary()
        self._transitions: Counter[str] = Counter()
        self._embedder = embedder
        self._sentence_vectors: dict[str, object] = {}
        self._frames = NO_FRAMES
        self._wheres: dict[int, Where] = {}
        self._note_subjects: dict[int, frozenset[str]] = {}
        self._holders: dict[str, set[int]] = {}  # identifier -> the few notes whose passages name it
        self._names: list[NoteName] | None = None  # every live note's names (``_live_names``)
        self._titles_read: Titles | None = None
        self._called: dict[int, tuple[str, ...]] | None = None  # note -> its aliases and id (``_other_names``)
        self._called_ids: dict[str, set[int]] | None = None  # identifier -> the notes whose aliases or id name it
        self._rows: dict[int, Passage] = {}
        self._nearest_found: dict[int, dict[int, list[tuple[int, float]]]] = {}  # by the search list's size

    def run(self) -> ConsolidationSummary:
        started = time.perf_counter()
        pending = self.store.pending_notes()
        queued = self.store.queued_passages(list(pending))
        self.summary.notes_processed = len(pending)
        with self.store.write():
            self._drop_stale_derived_edges()
            if queued:
                self._step(f"finding the neighbours of {len(queued)} passages")
                self._relate(queued)
            self._dispute_claims()
            closed = self._archive_by_time()
            if queued or closed:
                self._step("looking for repeated outdated values")
                self._mark_stale_echoes(queued + closed)
            if any(kind == 2 for kind in pending.values()):
                self._ripple([note for note, kind in pending.items() if kind == 2])
            self._activate(queued)
            self._step("dormancy sweep")
            self._sweep_dormancy()
            if pending:
                self._step("graph importance")
                self._importance()
            if pending:
                self.store.mark_consolidated(list(pending))
        self.progress(ProgressReport(self._pairs_total, self._pairs_total, PAIRS))
        self.summary.transitions = dict(sorted(self._transitions.items()))
        self.summary.notes_needing_review = self.store.count_notes_needing_review()
        self.summary.seconds = round(time.perf_counter() - started, 3)
        self.store.record_run("consolidate", self.now_iso, self.ws.clock.now_iso(), "ok", self.summary.to_dict())
        return self.summary

    def _step(self, step: str) -> None:
        """Tells ``progress`` what the run is busy with, beside the pairs compared so far."""
        self.progress(ProgressReport(self._pairs_done, self._pairs_total, PAIRS, step=step))

    # -- state changes ------------------------------------------------------------------------

    def _move(self, chunk_ids: list[int], old: str, new: str) -> None:
        moved = self.store.move_states(chunk_ids, old, new, self.now_iso)
        if moved:
            self._transitions[f"{old}->{new}"] += moved

    def _activate(self, queued: list[int]) -> None:
        self._move(queued, "UNCONSOLIDATED", "ACTIVE")

    def _archive_by_time(self) -> list[int]:
        """Current passages whose window has closed are archived; reopened ones come back. Returns both."""
        closed = self.store.passages_with_closed_window(self.now_iso)
        for state in LIVE_STATES:
            self._move(closed, state, "ARCHIVED")
        reopened = self.store.archived_passages_reopened(self.now_iso)
        self._move(reopened, "ARCHIVED", "ACTIVE")
        return closed + reopened

    def _nearest(self, ids: list[int], k: int) -> list[list[tuple[int, float]]]:
        """The ``k`` nearest stored vectors of each of ``ids`` (itself among them), best first, as ``search_many``
        finds them. The relations and the echoes both ask for every queued passage's neighbours: where the graph's
        search list is the same for both reaches (``store.ann.search_list_size``: a vault of a few thousand
        passages or more), one batched search at the larger reach serves both, each taking its first ``k``, which
        are the ones a search for ``k`` finds (consolidation adds no vector, so the index is the same for both)."""
        ann = self.store.load_ann()
        size = len(ann.live)
        list_size = search_list_size(size, k)
        reach = max(
            [k]
            + [
                r
                for r in (self.settings.neighbours + 1, self.settings.echo_neighbours + 1)
                if search_list_size(size, r) == list_size
            ]
        )
        found = self._nearest_found.setdefault(list_size, {})
        missing = [chunk for chunk in ids if chunk not in found]
        if missing:
            found.update(zip(missing, ann.search_many(self.store.vectors_for_chunks(missing), reach), strict=True))
        return [found[chunk][:k] for chunk in ids]

    # -- relations and contradictions ---------------------------------------------------------

    def _drop_stale_derived_edges(self) -> None:
        """Derived edges whose passages are no longer current (edited away, deleted) go."""
        self.summary.edges_removed += self.store.drop_stale_derived_edges(DERIVED_EDGES)

    @functools.cached_property
    def _lineages(self) -> dict[int, int]:
        """Each note in a supersession lineage (declared or inferred ``supersedes`` edges, followed through
        every version) mapped to one representative note of its lineage: versions of one document are
        never a contradiction, however many versions lie between them. Read once per run: the edges are
        written by ``index`` (declared, or inferred by ``memory.lineage``), never by consolidation."""
        claims = set(self.store.supersession_claims())
        return lineages(pair for pair in self.store.supersedes_note_pairs() if pair not in claims)

    def _dispute_claims(self) -> None:
        """A note that declares it ``supersedes`` a note of higher authority (a chat or an e-mail naming a
        policy) only claims to: the index does not apply it (``Store.supersession_claims``), the policy stays in
        force, and here the claim becomes a ``contradicts`` edge from the claiming note's first passage to each
        passage of the note it names, resolved for the higher authority. Hits on the policy then warn that the
        chat disputes it, and hits on the chat that the policy outranks it, until a note of equal or higher
        authority supersedes the policy (the claim is then moot) or the claim goes. Worked out afresh on every
        run from the ``supersedes`` edges (a few), so it follows edits of either note."""
        accepted = {superseded for superseded, _, _ in self.store.supersession_links()}
        claims = [(src, dst) for src, dst in self.store.supersession_claims() if dst not in accepted]
        notes = sorted({note for pair in claims for note in pair})
        current: dict[int, list[int]] = {}
        for note, row, _, _ in self.store.current_passages_of(notes):
            current.setdefault(note, []).append(row)
        rows = self.store.passages(sorted(row for held in current.values() for row in held))
        live = {
            note: sorted((rows[r] for r in held if r in rows and rows[r].state in LIVE_STATES), key=lambda p: p.id)
            for note, held in current.items()
        }
        edges = []
        for src, dst in claims:
            claimer, targets = live.get(src), live.get(dst)
            if not claimer or not targets:
                continue
            detail = {"reason": f"claims to supersede {targets[0].path} without its authority", "claim": True}
            edges += [self._edge(claimer[0], target, "contradicts", detail) for target in targets]
        before = self.store.replace_claim_edges(edges)
        added = {(e["src_chunk"], e["dst_chunk"]) for e in edges} - before
        self.summary.edges_added += len(added)
        self.summary.contradictions_found += len(added)
        self.summary.edges_removed += len(before - {(e["src_chunk"], e["dst_chunk"]) for e in edges})
        if before or edges:
            self._reset_contradiction_penalties({c for pair in before for c in pair} | {e["src_chunk"] for e in edges})

    def _candidates(self, queued: list[int]) -> dict[int, set[int]]:
        """The passages each queued passage is compared with: its nearest stored vectors (the ANN index) and
        the passages whose own words best match its own words (the full-text index, by passage text only).
        The second source does not depend on headings: a chat message and a policy that state one rule
        under different titles are embedded with different context, but share the words of the rule.

        Only a passage that gives a value or negates something asks the full-text index, and with its
        ``body_terms`` rarest words among the queued passages: an OR of every word, boilerplate included,
        matches most of the vault and costs as much as a scan. A passage whose values and negations are all
        of templates among the queued passages does not ask: its words match its whole family, and the one
        statement of the same slot at the same time is found by ``same_statement_groups``.

        A passage that names a note's title ("the laptop of Pablo Quinn has 32 GB") is also compared with that
        note's passages (``Titles``): a page whose sentences leave their subject to its title is otherwise found
        by neither index among hundreds of pages of its template."""
        neighbours = self._nearest(queued, self.settings.neighbours + 1)
        found = {chunk: {label for label, _ in near} for chunk, near in zip(queued, neighbours, strict=True)}
        passages = {chunk: p for chunk, p in self.store.passages(queued).items() if p.state in LIVE_STATES}
        frames = Frames.of((p.id, p.text) for p in passages.values())
        language = self.store.lexical_language()
        terms = {
            chunk: query_terms(p.text, language)
            for chunk, p in passages.items()
            if (quantities(p.text) or negated(p.text)) and not frames.only_templates(p.text)
        }
        titles = self._titles()
        named = {chunk: notes for chunk, p in passages.items() if (notes := titles.named_in(p.text) - {p.note})}
        for chunk, p in passages.items():
            holders = self._identifier_holders(chunk, p.text) - {p.note}
            if holders:
                named[chunk] = named.get(chunk, set()) | holders
        if named:
            held: dict[int, list[int]] = {}
            for note, row, _, _ in self.store.current_passages_of(sorted(set().union(*named.values()))):
                held.setdefault(note, []).append(row)
            for chunk, notes in named.items():
                found[chunk].update(row for note in notes for row in held.get(note, ()))
        frequency = Counter(term for words in terms.values() for term in words)
        for chunk, words in terms.items():
            query = LexicalQuery.any_of(
                sorted(words, key=lambda term: (frequency[term], -len(term)))[: self.settings.body_terms]
            )
            if query:
                found[chunk].update(self.store.body_neighbours(chunk, query, self.settings.body_neighbours))
        return found

    def _identifier_holders(self, chunk: int, text: str) -> set[int]:
        """The notes (at most ``TITLES_NAMED_AT_MOST``) whose passages name an identifier that a sentence of
        ``text`` giving a value or negating names ("Account C-1833 stores 502 GB"): the page that gives C-1833 in
        one passage and the stored size in another, which neither index finds among a family of such pages."""
        found: set[int] = set()
        for sentence in sentences(text):
            if not (quantities(sentence) or negated(sentence)):
                continue
            for identifier in sorted(identifiers(sentence)):
                notes = self._holders.get(identifier)
                if notes is None:
                    rows = self.store.body_neighbours(chunk, LexicalQuery.any_of([identifier]), HOLDER_PASSAGES)
                    notes = {p.note for p in self.store.passages(rows).values()} | self._called_by(identifier)
                    notes = self._holders[identifier] = notes if len(notes) <= TITLES_NAMED_AT_MOST else set()
                found |= notes
        return found

    def _called_by(self, identifier: str) -> set[int]:
        """The notes whose aliases or id name ``identifier`` (``aliases: [C-1833]``)."""
        if self._called_ids is None:
            self._called_ids = {}
            for note, names in self._other_names().items():
                for name in names:
                    for named in identifiers(name):
                        self._called_ids.setdefault(named, set()).add(note)
        return self._called_ids.get(identifier, set())

    def _relate(self, queued: list[int]) -> None:
        settings = self.settings
        candidates = self._candidates(queued)
        involved = sorted(set(queued) | {other for found in candidates.values() for other in found})
        rows = self.store.passages(involved)
        vectors = dict(zip(involved, self.store.vectors_for_chunks(involved), strict=False))
        lineage = self._lineages
        touched = set(queued)
        before = {chunk for pair in self.store.contradiction_edges_touching(queued) for chunk in pair}
        removed = self.store.drop_derived_edges(queued)
        self._frames = Frames.of(
            ((p.id, p.text) for p in rows.values() if p.state in LIVE_STATES),
            notes={p.id: p.note for p in rows.values()},
        )
        self._read_note_subjects(rows)
        for group in same_statement_groups(
            ((p.id, p.text, self._where(p).day) for p in rows.values() if p.state in LIVE_STATES), self._frames
        ):
            for chunk in touched.intersection(group):
                candidates[chunk].update(other for other in group if other != chunk)
        pairs: dict[frozenset[int], tuple[Passage, Passage]] = {}
        for chunk, found in candidates.items():
            mine = rows.get(chunk)
            for other_id in found:
                other = rows.get(other_id)
                pair = frozenset((chunk, other_id))
                if mine is None or other is None or other_id == chunk or pair in pairs or mine.note == other.note:
                    continue
                if self._comparable(mine, other, lineage):
                    pairs[pair] = (mine, other)
        new_edges: list[dict] = []
        listed = list(pairs.items())
        self._pairs_total += len(listed)
        self._step("comparing")
        for start in range(0, len(listed), PROGRESS_PAIRS):
            block = listed[start : start + PROGRESS_PAIRS]
            conflicts = {
                pair: judged_conflicts(a.text, b.text, self._frames, self._where(a), self._where(b))
                for pair, (a, b) in block
            }
            self._embed_readings((a, b, conflicts[pair]) for pair, (a, b) in block)
            cosines = pair_cosines(vectors, [(mine.id, other.id) for _, (mine, other) in block])
            for (pair, (mine, other)), cosine in zip(block, cosines, strict=True):
                found_disagreement = self._disagreement(mine, other, conflicts[pair])
                winner, loser = self._resolve(mine, other)
                if found_disagreement:
                    detail = {"reason": found_disagreement.detail, "cosine": round(cosine, 4)}
                    new_edges.append(self._edge(loser, winner, "contradicts", detail))
                    touched.update((mine.id, other.id))
                elif cosine >= settings.restate_cosine:
                    new_edges.append(self._edge(loser, winner, "restates", {"cosine": round(cosine, 4)}))
            self._pairs_done += len(block)
            self.progress(ProgressReport(self._pairs_done, self._pairs_total, PAIRS))
        if new_edges:
            self.store.insert_edges(new_edges)
        added_contradictions = sum(1 for e in new_edges if e["type"] == "contradicts")
        self.summary.contradictions_found += added_contradictions
        self.summary.edges_added += len(new_edges)
        self.summary.edges_removed += removed
        self._reset_contradiction_penalties(touched | before)

    def _embed_sentences(self, sentences: list[str]) -> None:
        """Embeds, in one batch, the sentences not embedded yet; the model is loaded on the first.

        Both sides of every comparison are sentences of notes, so both take the passage form (``embed``): with a
        model that marks queries (E5), a query-form sentence beside a passage-form one would measure the marks'
        difference too, and the fitted thresholds (``value_cosine``, ``echo_cosine``) compare like with like."""
        missing = list(dict.fromkeys(s for s in sentences if s not in self._sentence_vectors))
        if missing:
            if self._embedder is None:
                self._embedder = self.ws.embedder()
            self._sentence_vectors.update(zip(missing, self._embedder.embed(missing), strict=False))

    def _embed_readings(self, conflicts: Iterable[tuple[Passage, Passage, list[tuple[Quantity, Quantity]]]]) -> None:
        """Both readings (``_readings``) of every sentence that gives a conflicting value, embedded in one batch."""
        self._embed_sentences(
            [
                text
                for a, b, found in conflicts
                for qa, qb in found
                for text in self._readings(qa, a) + self._readings(qb, b)
            ]
        )  # the readings without names, seldom needed, are embedded when asked for

    def _read_note_subjects(self, rows: dict[int, Passage]) -> None:
        """``note_subject`` of every note these passages stand in, from all of its current passages (a passage
        that names no subject inherits its note's, which another passage may give), read once per run."""
        notes = sorted({p.note for p in rows.values()} - self._note_subjects.keys())
        if not notes:
            return
        held: dict[int, list[int]] = {}
        for note, row, _, _ in self.store.current_passages_of(notes):
            held.setdefault(note, []).append(row)
        missing = [row for rows_of in held.values() for row in rows_of if row not in rows]
        texts = {row: p.text for row, p in rows.items()}
        texts.update((row, p.text) for row, p in self.store.passages(missing).items())
        titles = {p.note: p.title for p in rows.values()}
        called = self._other_names()
        for note in notes:
            self._note_subjects[note] = note_subject(
                titles.get(note, ""), (texts[row] for row in held.get(note, ()) if row in texts), called.get(note, ())
            )

    def _live_names(self) -> list[NoteName]:
        """What each live note is called (``relations.note_name``), read once per run: consolidation renames none."""
        if self._names is None:
            self._names = [note_name(*row) for row in self.store.live_note_names()]
        return self._names

    def _titles(self) -> Titles:
        """Notes by the words of their titles (a note with none by its file's name), built once per run."""
        if self._titles_read is None:
            self._titles_read = Titles(
                (name.pk, name.title or name.path.rsplit("/", 1)[-1].removesuffix(".md")) for name in self._live_names()
            )
        return self._titles_read

    def _other_names(self) -> dict[int, tuple[str, ...]]:
        """What each live note is also called: its front matter's ``aliases`` and ``id`` (not the path that stands
        in for an id a note does not give)."""
        if self._called is None:
            self._called = {}
            for name in self._live_names():
                given_id = name.note_id if name.note_id != name.path.removesuffix(".md") else None
                if named := tuple(n for n in (*name.aliases, given_id) if n is not None and str(n).strip()):
                    self._called[name.pk] = named
        return self._called

    def _where(self, passage: Passage) -> Where:
        """``_where`` of a passage, read once per run."""
        found = self._wheres.get(passage.id)
        if found is None:
            found = self._wheres[passage.id] = _where(passage, self._note_subjects.get(passage.note, frozenset()))
        return found

    def _disagreement(
        self, mine: Passage, other: Passage, conflicts: list[tuple[Quantity, Quantity]] | None = None
    ) -> Disagreement | None:
        """``memory.contradiction.disagreement`` of two passages, their values judged by ``_same_thing``, their
        sentences set apart by the templates among the passages compared (``_frames``); ``conflicts`` is their
        ``judged_conflicts`` when already read."""
        return disagreement(
            mine.text,
            other.text,
            same_thing=lambda a, b: self._same_thing(a, mine, b, other),
            frames=self._frames,
            where_a=self._where(mine),
            where_b=self._where(other),
            conflicts=conflicts,
        )

    @staticmethod
    def _readings(value: Quantity, passage: Passage) -> tuple[str, str]:
        """The sentence that gives a value, on its own and under its passage's title and headings."""
        return value.sentence, embed_text_for(passage.title, passage.heading_path, value.sentence)

    def _same_thing(self, a: Quantity, passage_a: Passage, b: Quantity, passage_b: Passage) -> bool:
        """Two conflicting values are about one thing when the sentences that give them mean nearly the same:
        "laptops lock after 5 minutes of inactivity" and "the laptop lock kicks in after 10 minutes idle" do;
        "meeting-room screens switch off after 2 minutes of inactivity" does not, though it shares more words.
        Either sentence may also be read under its own title and headings, since a policy's sentence often
        leaves its subject to the heading ("Wellbeing Days: everyone may take 2 days off each year") that a
        chat names outright ("we get 1 day of wellbeing leave"); the two are never both read so, which would
        make two sections of one handbook alike by their shared title. The model is loaded only when a
        conflict is found."""
        return self._sentence_closeness(a, passage_a, b, passage_b) >= self.settings.value_cosine

    def _same_statement(self, a: Quantity, passage_a: Passage, b: Quantity, passage_b: Passage) -> bool:
        """``_same_thing``, unless the templates (``_frames``) already set the two sentences apart: the report of
        week 5 does not echo the report of week 3 where week 4 gives another number."""
        return not self._frames.apart(
            a.sentence, self._where(passage_a), b.sentence, self._where(passage_b)
        ) and self._same_thing(a, passage_a, b, passage_b)

    def _sentence_closeness(self, a: Quantity, passage_a: Passage, b: Quantity, passage_b: Passage) -> float:
        """The closest of the readings of the two sentences. When one names its subject by an identifier that the
        other's note is also known by ("Account C-1833 stores 502 GB" and, on the page of account C-1833, "Onyx
        Foods stores 181 GB"), the sentences are also read with their names left out: the names differ, the
        subject does not, and what is said of it is what is compared."""
        alone_a, read_a = self._readings(a, passage_a)
        alone_b, read_b = self._readings(b, passage_b)
        pairs = [(alone_a, alone_b), (read_a, alone_b), (alone_a, read_b)]
        if self._names_the_other_note(a.sentence, passage_b) or self._names_the_other_note(b.sentence, passage_a):
            pairs.append((without_names(a.sentence), without_names(b.sentence)))
        self._embed_sentences([text for pair in pairs for text in pair])
        vector = self._sentence_vectors
        return max(cosine_similarity(vector[x], vector[y]) for x, y in pairs)

    def _names_the_other_note(self, sentence: str, other: Passage) -> bool:
        """The sentence names an identifier of the subject of ``other``'s note (``note_subject``)."""
        return not identifiers(sentence).isdisjoint(self._where(other).note)

    def judged_value_pairs(self) -> list[tuple[Passage, Passage, float]]:
        """Every pair of passages in force, of different documents, whose values conflict, with the closeness
        that ``_same_thing`` compares with ``value_cosine``. It shows the judge apart from the candidate search
        (``_candidates``): how well the sentence model tells two statements of one thing from two of different
        things when every pair is compared. Quadratic in the passages that state values: for the benchmark's
        vaults (``bench accuracy``), never for a run."""
        live = self.store.passages(sorted(self.store.load_ann().live))
        valued = [p for _, p in sorted(live.items()) if p.state in LIVE_STATES and quantities(p.text)]
        lineage = self._lineages
        conflicts = [
            (a, b, found)
            for i, a in enumerate(valued)
            for b in valued[i + 1 :]
            if a.note != b.note and self._comparable(a, b, lineage) and (found := value_conflicts(a.text, b.text))
        ]
        self._embed_readings(conflicts)
        return [(a, b, max(self._sentence_closeness(x, a, y, b) for x, y in found)) for a, b, found in conflicts]

    def _comparable(self, a: Passage, b: Passage, lineage: dict[int, int]) -> bool:
        """Two passages can contradict only while both are in force (neither archived), if they are not
        versions of one document, and if their validity overlaps."""
        if a.state not in LIVE_STATES or b.state not in LIVE_STATES:
            return False
        if a.note in lineage and lineage.get(a.note) == lineage.get(b.note):
            return False
        start = max(filter(None, (a.valid_from, b.valid_from)), default=None)
        end = min(filter(None, (a.valid_until, b.valid_until)), default=None)
        return start is None or end is None or start < end

    def _resolve(self, a: Passage, b: Passage) -> tuple[Passage, Passage]:
        """(winner, loser): authority, then declared validity, then the more recent, then feedback."""
        settings = self.ws.config.confidence

        def strength(p: Passage) -> tuple:
            recency = p.valid_from or p.doc_date or p.created_at or ""
            return (round(authority(p, settings), 6), p.declared, recency, p.feedback, -p.id)

        return (a, b) if strength(a) >= strength(b) else (b, a)

    def _edge(self, src: Passage, dst: Passage, kind: str, detail: dict) -> dict:
        return {
            "src_note": src.note,
            "dst_note": dst.note,
            "src_chunk": src.id,
            "dst_chunk": dst.id,
            "type": kind,
            "detail": json.dumps(detail),
            "created_at": self.now_iso,
        }

    def _reset_contradiction_penalties(self, chunk_ids: set[int]) -> None:
        self.store.reset_contradiction_penalties(sorted(chunk_ids), self.settings.contradiction_penalty)

    # -- stale echoes -------------------------------------------------------------------------

    def _mark_stale_echoes(self, changed: list[int]) -> None:
        """A current passage that repeats what a superseded or archived version said, where its successor
        now says otherwise, gets an ``echoes`` edge to the current passage and loses trust; it also
        contradicts the current passage (``_echo_contradictions``) when the two were never compared.

        Checked: the passages that changed (queued, archived or reopened now) and their near neighbours,
        since a new version makes what others repeat of the old one outdated.
        """
        settings = self.settings
        reach = settings.echo_neighbours + 1

        def near(ids: list[int]) -> dict[int, list[tuple[int, float]]]:
            if not ids:
                return {}
            found = {}
            for chunk, nearest in zip(ids, self._nearest(ids, reach), strict=True):
                found[chunk] = [
                    (other, cosine) for other, cosine in nearest if other != chunk and cosine >= settings.echo_cosine
                ]
            return found

        around = near(changed)
        check = sorted(set(changed) | {other for found in around.values() for other, _ in found})
        neighbours = {**around, **near([chunk for chunk in check if chunk not in around])}
        rows = self.store.passages(sorted(set(check) | {o for found in neighbours.values() for o, _ in found}))
        before = self.store.echo_sources()
        removed = self.store.drop_stale_derived_edges(("echoes",)) + self.store.drop_echo_edges(check)
        new_edges = []
        echoed: list[tuple[Passage, Passage]] = []
        successors: dict[int, list[Passage]] = {}
        for chunk in check:
            mine = rows.get(chunk)
            if mine is None or not _current(mine):
                continue
            for other_id, cosine in neighbours.get(chunk, []):
                old = rows.get(other_id)
                if old is None or old.note == mine.note or _current(old) or not repeats_a_value(mine.text, old.text):
                    continue
                if other_id not in successors:
                    successors[other_id] = list(self.store.passages(self.store.current_successors(other_id)).values())
                found = self._echo(mine, old, successors[other_id])
                if found:
                    value, now = found
                    detail = {"reason": value, "outdated": f"{old.chunk_id}@{old.version}", "cosine": round(cosine, 4)}
                    new_edges.append(self._edge(mine, now, "echoes", detail))
                    echoed.append((mine, now))
                    break
        contradictions = self._echo_contradictions(echoed)
        new_edges += contradictions
        if new_edges:
            self.store.insert_edges(new_edges)
        self.summary.edges_added += len(new_edges)
        self.summary.contradictions_found += len(contradictions)
        self.summary.edges_removed += removed
        self.store.reset_echo_penalties(
            sorted(before | set(check) | {e["src_chunk"] for e in new_edges}), settings.echo_penalty
        )
        if contradictions:
            self._reset_contradiction_penalties(
                {chunk for e in contradictions for chunk in (e["src_chunk"], e["dst_chunk"])}
            )

    def _echo_contradictions(self, echoed: list[tuple[Passage, Passage]]) -> list[dict]:
        """``contradicts`` edges for echoes that contradict the current passage but were never compared with it.

        An echo states an outdated value where the current version states another for the same thing:
        a disagreement with what holds now. The comparison of relations looks only at a passage's nearest
        neighbours and best word matches, and a chat quoting a policy is often neither (it is found here
        among an outdated version's 40 nearest), so the pair is judged here as it would have been there:
        by ``disagreement`` with the same judge, if both are in force together and are not versions of
        one document."""
        if not echoed:
            return []
        lineage = self._lineages
        existing = {
            frozenset(pair) for pair in self.store.contradiction_edges_touching([mine.id for mine, _ in echoed])
        }
        pairs = [
            (mine, now)
            for mine, now in echoed
            if frozenset((mine.id, now.id)) not in existing and self._comparable(mine, now, lineage)
        ]
        ids = sorted({p.id for pair in pairs for p in pair})
        vectors = dict(zip(ids, self.store.vectors_for_chunks(ids), strict=False))
        edges = []
        for mine, now in pairs:
            found = self._disagreement(mine, now)
            if found:
                winner, loser = self._resolve(mine, now)
                detail = {
                    "reason": found.detail,
                    "cosine": round(cosine_similarity(vectors[mine.id], vectors[now.id]), 4),
                    "echo": True,
                }
                edges.append(self._edge(loser, winner, "contradicts", detail))
        return edges

    def _echo(self, mine: Passage, old: Passage, successors: Iterable[Passage]) -> tuple[str, Passage] | None:
        """(the outdated value ``mine`` repeats, the current passage that replaced ``old``), or None."""
        for successor in successors:
            if successor.note == mine.note:
                continue

            def same(echo: Quantity, now: Quantity, successor: Passage = successor) -> bool:
                return self._same_statement(echo, mine, now, successor)

            value = repeated_outdated_value(mine.text, old.text, successor.text, same)
            if value:
                return value, successor
        return None

    # -- ripple -------------------------------------------------------------------------------

    def _ripple(self, changed_notes: list[int]) -> None:
        """Breadth-first along depended-by edges; a note edited itself counts as reviewed."""
        self.store.clear_ripple(changed_notes)
        paths = self.store.live_note_paths()
        dependents: dict[int, list[int]] = {}
        for src, dst in self.store.depends_on_edges():
            dependents.setdefault(dst, []).append(src)
        visited = set(changed_notes)
        frontier = list(changed_notes)
        origin = {note: note for note in changed_notes}
        for hop, penalty in enumerate(self.settings.ripple_penalties, start=1):
            next_frontier = []
            for note in frontier:
                for dependent in dependents.get(note, []):
                    if dependent in visited or dependent not in paths:
                        continue
                    visited.add(dependent)
                    origin[dependent] = origin[note]
                    next_frontier.append(dependent)
                    self._penalise(dependent, penalty, hop, paths[origin[note]])
            frontier = next_frontier

    def _penalise(self, note: int, penalty: float, hop: int, source_path: str) -> None:
        reason = f"{source_path} changed on {self.now_iso[:10]} (hop {hop})"
        self.summary.passages_rippled += self.store.set_ripple(note, penalty, reason, self.now_iso)
        self.store.record_event(
            "ripple", self.now_iso, {"source": source_path, "hop": hop, "penalty": penalty}, note=note
        )

    # -- dormancy and importance --------------------------------------------------------------

    def _sweep_dormancy(self) -> None:
        threshold = self.ws.config.confidence.dormant_below
        stale_before = self.now - dt.timedelta(days=self.settings.dormant_after_days)
        ids = self.store.active_or_dormant_passages()
        if not ids:
            return
        to_sleep, to_wake = [], []
        for chunk, passage in self.store.passages(ids).items():
            low = passage_trust(passage, self.now, self.ws.config.confidence) < threshold
            last_used = parse_optional(passage.last_accessed)
            unused = last_used is None or last_used < stale_before
            if passage.state == "ACTIVE" and low and unused:
                to_sleep.append(chunk)
            elif passage.state == "DORMANT" and not low:
                to_wake.append(chunk)
        self._move(to_sleep, "ACTIVE", "DORMANT")
        self._move(to_wake, "DORMANT", "ACTIVE")

    def _importance(self) -> None:
        """PageRank over the note graph (links, embeds, dependencies): the relational signal."""
        self.store.set_importance(pagerank(self.store.live_note_ids(), self.store.note_graph_edges()))
