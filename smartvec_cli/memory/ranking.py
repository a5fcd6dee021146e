"""Ranking passages for one question at one reference time: relevance first, then time, trust and relations.

Pure functions over ``Passage`` values: the store supplies the candidates with their
cosine similarity and their share of the question's rare words; this module decides
which may answer, how each scores, what the user must be warned about, and how sure
the answer is.

Relevance gates, SmartVector chooses. A candidate's relevance is its cosine plus
``lexical_weight`` times its word coverage. Below ``relevance_floor`` it is no answer
at all. Those within ``relevance_margin`` of the most relevant one are about the
question: among them the four-signal score decides (the right version, the trusted
source, the valid one). Every other candidate comes after them, by relevance alone, so
time, trust and the graph never lift a passage that is clearly less relevant above one
that is. A question about a named time is answered from the relevant passages valid
then; when none is, the most relevant ones come back with their "expired" or "not yet
valid" warnings rather than an unrelated passage that happens to be valid. Expired
knowledge is kept the same way: once every relevant passage's declared window has closed
(and consolidation archived them), the last word on the subject (``expired_last_word``)
answers with its "expired on" warning, never nothing and never a version it replaced.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import AbstractSet, Sequence

from ..clock import parse_optional, to_iso
from .confidence import ConfidenceSettings, retention, trust
from .graph import relational_signal
from .passage import Passage, Relation
from .relevance import Evidence, feature_rows
from .scoring import (
    Calibration,
    ScoringSettings,
    Weights,
    combine,
    days_between,
    is_valid_at,
    log_odds,
    relevance,
    sigmoid,
    temporal_signal,
)
from .temporal import ARCHIVED_STATUSES, DECLARED, INFERRED, later

NOT_VALID_CONFIDENCE_FACTOR = 0.1
FIRST_SEEN_LATER_CONFIDENCE_FACTOR = 0.5
"""The share of its confidence a hit keeps when the question is about a time before the index first saw the
vault and the passage declares no window covering it (``first_seen_later``): its text is the one first seen
later, and whether the note said the same then is as likely as not; nothing in the index tells."""
ARCHIVED_TIME_SHARE = 0.5
SEARCHABLE_STATES = frozenset({"UNCONSOLIDATED", "ACTIVE", "DORMANT", "ARCHIVED"})


@dataclass(frozen=True)
class Ask:
    """What a question asks of the memory besides its meaning."""

    moment: dt.datetime  # the reference time: the as-of time, else now
    as_of: bool  # the question names a time (flag or words): only passages valid then may answer
    include_archived: bool = False
    include_dormant: bool = False
    known_since: dt.datetime | None = None  # when the index first saw the vault: nothing before it was seen
    question: str = ""  # the words the relevance model reads (the date words taken out)
    language: str = "en"  # the vault's main language (``Store.lexical_language``)
    cosine_map: tuple[float, float] = (0.0, 1.0)  # (offset, slope) onto the model's cosine scale (``embed.cosine_map``)


@dataclass(frozen=True)
class Candidate:
    """A passage that may answer, with what the question and the passage share."""

    passage: Passage
    cosine: float
    coverage: float = 0.0  # its share of the question's words (memory.lexical.coverage)
    specific: float = 0.0  # its share of the question's specific words: identifiers, numbers, names
    states_value: float = 0.0  # 1 when it states an answer of the kind asked for: a value, a person (memory.answer)
    bm25: float = 0.0  # its full-text score for the question's words (0: it holds none)
    phrase: float = 0.0  # its share of the question's verbatim phrase words (memory.lexical.phrases)
    named: float = 0.0  # how much of its note's title or alias the question names (memory.lexical.named_share)


@dataclass
class Ranked:
    passage: Passage
    relevance: float  # the topical relevance the ranking compared (see ``topical_relevance``)
    score: float
    signals: dict
    explain: dict
    relevant: bool = True  # within the relevance margin of the most relevant candidate
    warnings: list[str] = field(default_factory=list)
    confidence: float = 0.0
    order: float = 0.0  # what orders the list: relevance, and near ties broken by time, trust and relations


def age_days(passage: Passage, moment: dt.datetime) -> float | None:
    """Days since the passage was last known to change: the later of its note's date and the
    edit that made this version; an undated note counts from when it was first indexed."""
    written = passage.doc_date or passage.created_at
    return days_between(parse_optional(later(written, passage.observed_from)), moment)


def retained(passage: Passage, moment: dt.datetime, settings: ConfidenceSettings) -> float:
    """How much of its trust an undated passage keeps at ``moment``; 1 for declared validity."""
    return retained_after(passage, age_days(passage, moment), settings)


def retained_after(passage: Passage, age: float | None, settings: ConfidenceSettings) -> float:
    """``retained`` for a caller that has the passage's ``age_days`` already."""
    if passage.declared:
        return 1.0
    return retention(age, settings.half_life_for(passage.source_type))


def authority(passage: Passage, settings: ConfidenceSettings) -> float:
    return passage.authority if passage.authority is not None else settings.default_authority


def passage_trust(
    passage: Passage, moment: dt.datetime, settings: ConfidenceSettings, kept: float | None = None
) -> float:
    """Trust with the user's feedback and the penalties of consolidation (contradiction, ripple, stale echo);
    ``kept``: its ``retained`` at ``moment`` when the caller has it."""
    adjustment = passage.feedback - passage.contradiction_penalty - passage.ripple_penalty - passage.echo_penalty
    if kept is None:
        kept = retained(passage, moment, settings)
    return trust(authority(passage, settings), kept, adjustment, passage.access_count, settings)


def valid_at(passage: Passage, moment: dt.datetime) -> bool:
    return is_valid_at(passage.valid_from, passage.valid_until, moment)


def superseded(passage: Passage) -> bool:
    """A later version of its passage, or a note that supersedes its note, replaced it."""
    return bool(passage.successor_chunk or passage.note_superseded_by)


def replaced_by(passage: Passage, moment: dt.datetime) -> bool:
    """Superseded, and its window over by ``moment``: among the passages about the question it comes after
    the ones that are not (the version that replaced it, or the head of its chain), whatever the score.
    Versions of one text score alike, and only this tells an old version brought back by
    ``--include-archived`` from the last word on it when every version has expired."""
    end = parse_optional(passage.valid_until)
    return superseded(passage) and end is not None and end <= moment


def closed_by_expiry(passage: Passage) -> bool:
    """Its window was closed by the end its note declares (``valid_until``, ``expires``), not by an edit
    that took the text out or by a deletion: such a passage *expired*, it was not removed."""
    return passage.valid_until is not None and passage.until_source == DECLARED


def expired_last_word(passage: Passage, moment: dt.datetime) -> bool:
    """An archived passage that expired by ``moment`` and that nothing replaced, in a note that still
    exists: what the vault last said on its subject (the head of a supersession chain whose every version
    expired). Consolidation archives
    it when its window closes, yet it is still the best the vault knows, so it may answer with its warning
    (``recall_expired_only_if_needed``); the versions it replaced stay history."""
    if passage.state != "ARCHIVED" or passage.note_deleted_at or superseded(passage) or not closed_by_expiry(passage):
        return False
    end = parse_optional(passage.valid_until)
    return end is not None and end <= moment


def first_seen_later(passage: Passage, ask: Ask) -> bool:
    """The question is about a time before the index first saw the vault, and this passage answers for it
    only because its start is unknown or inferred: what it says is the text first seen later. A start the
    note declares (``valid_from``, an effective date) at or before that time is known: such a passage
    answers for it like any other."""
    if ask.known_since is None or ask.moment >= ask.known_since or not valid_at(passage, ask.moment):
        return False
    start = parse_optional(passage.valid_from)
    return not (passage.from_source == DECLARED and start is not None and start <= ask.moment)


def eligible(candidates: list[Candidate], ask: Ask) -> list[Candidate]:
    """The candidates that may answer: live, dormant, or archived-but-valid passages (archived ones
    past their validity on request). Dormant ones answer only when nothing awake is as relevant
    (``wake_only_if_needed``), expired ones only when nothing else is (``recall_expired_only_if_needed``)."""
    kept = []
    for candidate in candidates:
        passage = candidate.passage
        if passage.state not in SEARCHABLE_STATES:
            continue
        if (
            passage.state == "ARCHIVED"
            and not ask.include_archived
            and not valid_at(passage, ask.moment)
            and not expired_last_word(passage, ask.moment)
        ):
            continue
        # A cosine inside (0, 1) is its own clamp: the candidate is kept as it is, not copied.
        kept.append(
            candidate
            if 0.0 < candidate.cosine < 1.0
            else replace(candidate, cosine=max(0.0, min(1.0, candidate.cosine)))
        )
    return kept


def wake_only_if_needed(
    candidates: list[Candidate], topical: dict[int, float], ask: Ask, scoring: ScoringSettings
) -> list[Candidate]:
    """Dormant passages (faded and unused) stay out of the answer while an awake passage is about the
    question; when none is, the relevant dormant ones answer (with a warning) rather than an unrelated
    awake passage: forgetting chooses among relevant answers, it never hides the only one."""
    if ask.include_dormant or not any(c.passage.state == "DORMANT" for c in candidates):
        return candidates
    best = max((topical[c.passage.id] for c in candidates), default=0.0)
    awake_relevant = any(
        c.passage.state != "DORMANT" and topical[c.passage.id] >= best - scoring.relevance_margin for c in candidates
    )
    if awake_relevant:
        return [c for c in candidates if c.passage.state != "DORMANT"]
    return candidates


def recall_expired_only_if_needed(
    candidates: list[Candidate], topical: dict[int, float], ask: Ask, scoring: ScoringSettings
) -> list[Candidate]:
    """Expired knowledge (``expired_last_word``) stays out of the answer while another passage is about the
    question; when none is, it answers (with its "expired on" warning and a tenth of the confidence) rather
    than nothing: a question about now whose every relevant passage has expired learns what was last true.
    ``--include-archived`` keeps every archived version anyway."""
    if ask.include_archived:
        return candidates
    expired = {c.passage.id for c in candidates if expired_last_word(c.passage, ask.moment)}
    if not expired:
        return candidates
    best = max((topical[c.passage.id] for c in candidates), default=0.0)
    if any(
        c.passage.id not in expired and topical[c.passage.id] >= best - scoring.relevance_margin for c in candidates
    ):
        return [c for c in candidates if c.passage.id not in expired]
    return candidates


def evidence(candidate: Candidate, cosine_map: tuple[float, float] = (0.0, 1.0)) -> Evidence:
    """What the relevance model reads of a candidate, its cosine put on the scale the model was fitted in."""
    p = candidate.passage
    return Evidence(
        note=p.note,
        cosine=cosine_map[0] + cosine_map[1] * candidate.cosine,
        bm25=candidate.bm25,
        coverage=candidate.coverage,
        specific=candidate.specific,
        phrase=candidate.phrase,
        named=candidate.named,
        states_value=candidate.states_value,
        heading=p.heading,
        text=p.text,
    )


def topical_relevance(candidates: list[Candidate], ask: Ask, scoring: ScoringSettings) -> dict[int, float]:
    """Each passage's relevance: the fitted model's log-odds that it answers the question
    (``memory.relevance``), from what it shares with the question, normalised over these candidates."""
    if len(candidates) < FEW_CANDIDATES:
        stating: dict[int, float] = {}  # per note: whether a candidate of it states a value of the kind asked for
        for c in candidates:
            stating[c.passage.note] = max(stating.get(c.passage.note, 0.0), c.states_value)
        return {c.passage.id: few_candidates_relevance(c, stating[c.passage.note], ask.cosine_map) for c in candidates}
    rows = feature_rows(ask.question, [evidence(c, ask.cosine_map) for c in candidates], ask.language)
    logits = scoring.relevance_model.logits(rows)
    return {c.passage.id: logit for c, logit in zip(candidates, logits, strict=True)}


def few_candidates_relevance(c: Candidate, note_states: float, cosine_map: tuple[float, float] = (0.0, 1.0)) -> float:
    """The relevance of a candidate among fewer than ``FEW_CANDIDATES`` (see below); ``note_states``: whether a
    candidate of its note states a value of the kind asked for; ``cosine_map``: onto MiniLM's cosine scale."""
    cosine = cosine_map[0] + cosine_map[1] * c.cosine
    return FEW_SCALE * (cosine - FEW_MIDPOINT - FEW_VALUE * (note_states - c.states_value) + c.phrase)


FEW_CANDIDATES = 10
FEW_SCALE, FEW_MIDPOINT, FEW_VALUE = 1.0 / 0.15, 0.4, 0.3
"""Under ``FEW_CANDIDATES`` candidates (a vault of a handful of passages) the model's features, each normalised over
the question's candidates, say little: relevance is then the cosine's own log-odds, (cosine − 0.4) / 0.15 (even
odds at a cosine of 0.4; ``relevance_margin``, 1, is a cosine 0.15 apart), with the question's verbatim phrase share
added, and 0.3 of cosine less for a passage whose note has another candidate stating a value or a person of the kind
asked for (``memory.answer``) when it states none: which paragraph of a note answers, not which note."""


def corrections_in_place(
    candidates: list[Candidate], topical: dict[int, float], relations: Sequence[Relation]
) -> tuple[list[Candidate], dict[int, float]]:
    """A user's correction (``corrects``) stands where the passage it corrects stands: as relevant as it, and as
    central in the graph, whenever both are candidates. The correction is what the user said that passage
    should have said, so it answers every question the passage answers, even one worded unlike the correction
    (whose own text is often one short sentence)."""
    by_id = {c.passage.id: c for c in candidates}
    corrected = {
        edge.src: edge.dst for edge in relations if edge.kind == "corrects" and edge.src in by_id and edge.dst in by_id
    }
    if not corrected:
        return candidates, topical
    topical = dict(topical)
    moved = []
    for c in candidates:
        target = corrected.get(c.passage.id)
        if target is not None and topical[target] > topical[c.passage.id]:
            topical[c.passage.id] = topical[target]
            importance = max(c.passage.importance or 0.0, by_id[target].passage.importance or 0.0)
            c = replace(c, passage=replace(c.passage, importance=importance))
        moved.append(c)
    return moved, topical


def about_the_question(
    candidates: list[Candidate], ask: Ask, scoring: ScoringSettings, relations: Sequence[Relation] = ()
) -> tuple[list[Candidate], dict[int, float]]:
    """The candidates above the relevance floor or within ``relevance_spread`` of the most relevant one, with their
    topical relevance (a correction standing where the passage it corrects stands): a vault of a handful of
    passages gives the model little to compare, and the closest things it holds come back, as weak matches when
    they are; for a question about a named time, only those valid then when one of the relevant passages is."""
    candidates, topical = corrections_in_place(candidates, topical_relevance(candidates, ask, scoring), relations)
    best = max(topical.values(), default=0.0)
    floor = min(log_odds(scoring.relevance_floor), best - scoring.relevance_spread)
    kept = [c for c in candidates if topical[c.passage.id] >= floor]
    kept = wake_only_if_needed(kept, topical, ask, scoring)
    kept = recall_expired_only_if_needed(kept, topical, ask, scoring)
    if ask.as_of and kept:
        best = max(topical[c.passage.id] for c in kept)
        relevant_valid = any(  # within the spread: one text in two notes (a split, a copy) scores apart by its note
            valid_at(c.passage, ask.moment) and topical[c.passage.id] >= best - scoring.relevance_spread for c in kept
        )
        if relevant_valid:
            kept = [c for c in kept if valid_at(c.passage, ask.moment) or asked_for_archived(c.passage, ask)]
            kept, topical = corrections_in_place(kept, topical, relations)
    return kept, topical


def asked_for_archived(passage: Passage, ask: Ask) -> bool:
    """An archived version the question asked for (``--include-archived``): it competes on what it said,
    its time signal taken as while it was valid (else a current passage that does not even match the
    question outranks it); its confidence and warnings still say it is not current."""
    return ask.include_archived and passage.state == "ARCHIVED"


def score(
    candidate: Candidate,
    topical: float,
    best_topical: float,
    moment: dt.datetime,
    weights: Weights,
    scoring: ScoringSettings,
    confidence: ConfidenceSettings,
    importance_range: tuple[float, float],
    time_as_valid: bool = False,
) -> Ranked:
    """The four signals of one passage and their weighted sum; ``explain`` says where each came from.

    Its semantic signal is its topical relevance relative to the most relevant candidate's: 1 for the
    best, 0 at ``relevance_spread`` below it. ``time_as_valid``: the time signal as if valid at ``moment``,
    at ``ARCHIVED_TIME_SHARE`` of its value (see ``asked_for_archived``): when nothing else tells an old
    version the user asked to see from the one in force, the one in force comes first."""
    passage = candidate.passage
    valid = valid_at(passage, moment)
    age = age_days(passage, moment)
    keeps = retained_after(passage, age, confidence)
    trust_now = passage_trust(passage, moment, confidence, keeps)
    signals = {
        "semantic": relevance(topical, best_topical, scoring.relevance_spread),
        "temporal": temporal_signal(valid or time_as_valid, passage.declared, keeps)
        * (1.0 if valid else ARCHIVED_TIME_SHARE),
        "confidence": trust_now,
        "relational": relational_signal(passage.importance, *importance_range),
    }
    explain = {
        "cosine": round(candidate.cosine, 6),
        "lexical_coverage": round(candidate.coverage, 4),
        "specific_coverage": round(candidate.specific, 4),
        "bm25": round(candidate.bm25, 6),
        "phrase": round(candidate.phrase, 4),
        "named": round(candidate.named, 4),
        "states_value": candidate.states_value,
        "relevance": round(topical, 6),
        "valid_at_reference": valid,
        "valid_from_source": passage.from_source,
        "valid_until_source": passage.until_source,
        "reference_time": to_iso(moment),
        "declared_validity": passage.declared,
        "supersession_inferred": passage.supersession_inferred,
        "authority": round(authority(passage, confidence), 4),
        "age_days": None if age is None else round(age, 1),
        "retention": round(keeps, 4),
        "standing": round(standing(passage, trust_now, confidence), 4),
        "feedback": round(passage.feedback, 4),
        "contradiction_penalty": passage.contradiction_penalty,
        "ripple_penalty": passage.ripple_penalty,
        "echo_penalty": passage.echo_penalty,
        "access_count": passage.access_count,
        "weights": weights.as_dict(),
    }
    return Ranked(passage, topical, combine(signals, weights), signals, explain)


def rank(
    candidates: list[Candidate],
    ask: Ask,
    weights: Weights,
    scoring: ScoringSettings,
    confidence: ConfidenceSettings,
    importance_range: tuple[float, float],
    relations: Sequence[Relation] = (),
) -> list[Ranked]:
    """Every relevant, eligible candidate scored, warned about and calibrated, in ranking order (see the module
    and ``ranking_key``)."""
    pool = eligible(candidates, ask)
    kept, topical = about_the_question(pool, ask, scoring, relations)
    best = max(topical.values(), default=0.0)
    related = relation_warnings(relations, {c.passage.id for c in kept})
    ranked = []
    for c in kept:
        item = score(
            c,
            topical[c.passage.id],
            best,
            ask.moment,
            weights,
            scoring,
            confidence,
            importance_range,
            asked_for_archived(c.passage, ask),
        )
        item.relevant = item.relevance >= best - scoring.relevance_margin
        unknown_then = first_seen_later(c.passage, ask)
        item.explain["known_at_reference"] = not unknown_then
        item.warnings = (
            time_warnings(c.passage, ask.moment) + first_seen_warning(ask, unknown_then) + related.get(c.passage.id, [])
        )
        ranked.append(item)
    for item in successors_about_the_question(ranked, ask.moment, scoring.relevance_spread):
        item.relevant = True
    for item in ranked:
        item.order = item.relevance + (
            scoring.tie_weight * near_tie_signal(item.signals, weights) if item.relevant else 0.0
        )
    yielding = gives_way(relations, ranked)
    for item in ranked:
        item.explain["gives_way"] = item.passage.id in yielding
    ranked.sort(key=lambda r: ranking_key(r, ask.moment, yielding), reverse=True)
    runner_up = None
    if len(ranked) == 1:
        under = [c for c in pool if c.passage.id in topical and c.passage.id != ranked[0].passage.id]
        runner_up = max((topical[c.passage.id] for c in under), default=None)
    calibrate(ranked, scoring, runner_up, answerability(ranked, pool, ask, scoring, runner_up))
    shown_scores(ranked)
    for above, below in zip(ranked, ranked[1:], strict=False):
        below.confidence = min(below.confidence, above.confidence)  # the list says what it ranked likelier
    return ranked


def near_tie_signal(signals: dict, weights: Weights) -> float:
    """Time, trust and relations in one number from -0.5 to 0.5: what breaks a near tie of relevance."""
    rest = {k: v for k, v in weights.as_dict().items() if k != "semantic"}
    total = sum(rest.values())
    if total <= 0:
        return 0.0
    return sum(w * signals[k] for k, w in rest.items()) / total - 0.5


def successors_about_the_question(ranked: Sequence[Ranked], moment: dt.datetime, spread: float) -> list[Ranked]:
    """The versions that replaced a passage about the question, when they are not about it themselves: for each
    replaced passage about the question (``replaced_by``), the passage that took its place in its note
    (``successor_chunk``), else the most relevant passage of the note that superseded its note, if within
    ``spread`` log-odds of it. Versions of one text differ in a number or a date, which the relevance model's
    ranks and normalised cosines can set a log-odds or more apart; the replacement is still about the question,
    and the replaced version then follows it (``ranking_key``)."""
    by_chunk = {item.passage.chunk_id: item for item in ranked}
    by_note: dict[int, Ranked] = {}
    for item in ranked:
        if item.passage.note not in by_note or item.relevance > by_note[item.passage.note].relevance:
            by_note[item.passage.note] = item
    found: dict[int, Ranked] = {}
    for old in ranked:
        if not (old.relevant and replaced_by(old.passage, moment)):
            continue
        successor = by_chunk.get(old.passage.successor_chunk or "") or by_note.get(old.passage.note_superseded_by or -1)
        if successor is not None and not successor.relevant and successor.relevance >= old.relevance - spread:
            found[successor.passage.id] = successor
    return list(found.values())


def gives_way(relations: Sequence[Relation], ranked: Sequence[Ranked]) -> set[int]:
    """The passages about the question that another one about it outranks: one that repeats a value a later version
    replaced (``echoes``, naming the current passage), the loser of a contradiction (``contradicts``: the source
    outranked it by authority or date), and one the user voted down (its feedback below 0) while another is about
    the question."""
    relevant = {item.passage.id for item in ranked if item.relevant}
    stated = {
        edge.src
        for edge in relations
        if edge.kind in ("echoes", "contradicts") and edge.src in relevant and edge.dst in relevant
    }
    voted_down = {item.passage.id for item in ranked if item.relevant and item.passage.feedback < 0}
    return stated | (voted_down if len(relevant) > len(voted_down) else set())


def ranking_key(item: Ranked, moment: dt.datetime, yielding: AbstractSet[int] = frozenset()) -> tuple:
    """The passages about the question first; among them a replaced version after the ones that replaced it, and a
    passage that gives way (``gives_way``) after the rest, each by its relevance with near ties broken by time, trust
    and relations (``Ranked.order``); then every other passage by relevance alone."""
    return (
        item.relevant,
        item.relevant and not replaced_by(item.passage, moment) and item.passage.id not in yielding,
        item.order,
    )


def shown_scores(ranked: list[Ranked]) -> None:
    """The score each hit shows: its ``order`` as a probability, never above the hit ranked before it, so that the
    list reads in the order it was ranked."""
    ceiling = 1.0
    for item in ranked:
        item.score = min(ceiling, sigmoid(item.order))
        ceiling = item.score


def standing(passage: Passage, trust_now: float, settings: ConfidenceSettings) -> float:
    """The share of its source's authority a passage keeps (``trust_now`` is its ``passage_trust``): 1
    unless feedback, a lost contradiction, a ripple or forgetting took some away (a downvoted policy
    paragraph keeps a tenth)."""
    return max(0.0, min(1.0, trust_now / max(authority(passage, settings), 1e-9)))


WEAK_MATCH_CONFIDENCE_CEILING = 0.30
"""The most a weak match (relevance under ``weak_below``) may claim. On the real question sets none of the 41
weak hits among the first five answered (their first hits included: nonsense and unanswerable questions), which
alone would bound their rate near 7%; but on the generated catalogue a paraphrase the model puts at a cosine of
0.28 to 0.35 is often the right answer, so the ceiling is the level the nonsense questions must stay under,
not the lower one: a weak match is told apart from an answer without calling a right paraphrase wrong."""


def hit_confidence(
    relevance: float,
    lead: float,
    first: bool,
    valid: bool,
    kept_standing: float,
    calibration: Calibration,
    known: bool = True,
    weak: bool = False,
) -> float:
    """P(this hit answers the question): Platt scaling of its relevance, its lead over the best other hit and its
    place (``Calibration``), times the standing the passage kept, a tenth when the hit is not valid at the reference
    time, halved when ``known`` is false (``FIRST_SEEN_LATER_CONFIDENCE_FACTOR``), and never above
    ``WEAK_MATCH_CONFIDENCE_CEILING`` for a weak match."""
    probability = calibration.probability(relevance, lead, 1.0 if first else 0.0) * kept_standing
    if not known:
        probability *= FIRST_SEEN_LATER_CONFIDENCE_FACTOR
    if not valid:
        probability *= NOT_VALID_CONFIDENCE_FACTOR
    return min(probability, WEAK_MATCH_CONFIDENCE_CEILING) if weak else probability


def lead_over_others(values: list[float], i: int, runner_up: float | None = None) -> float:
    """Hit ``i``'s relevance minus the best other hit's (negative below the first): for the first, over the
    second, or over ``runner_up`` (the best candidate left out) when it is alone; 0 is the other when there is
    none."""
    if i:
        return values[i] - max(values[:i])
    other = values[1] if len(values) > 1 else runner_up
    return values[0] - (other if other is not None else log_odds(1e-4))


def answerability(
    ranked: Sequence[Ranked], pool: Sequence[Candidate], ask: Ask, scoring: ScoringSettings, runner_up: float | None
) -> float:
    """How likely the vault answers the question at all (``memory.relevance.Answerability``), read off its first
    hit; ``pool``: the question's eligible candidates."""
    if not ranked:
        return 0.0
    first = ranked[0]
    candidate = next(c for c in pool if c.passage.id == first.passage.id)
    offset, slope = ask.cosine_map
    return scoring.answerability.probability(
        (
            first.relevance,
            lead_over_others([item.relevance for item in ranked], 0, runner_up),
            offset + slope * candidate.cosine,
            max(c.phrase for c in pool),
            candidate.coverage,
        )
    )


def calibrate(
    ranked: list[Ranked], scoring: ScoringSettings, runner_up: float | None = None, answerable: float = 1.0
) -> None:
    """Each hit's confidence (``hit_confidence``), with its lead and place kept in ``explain`` (``bench`` fits on
    them). A question less answerable than ``weak_below`` (``answerability``) gets weak matches only: nothing in
    the vault is near the question, and every hit says so."""
    values = [item.relevance for item in ranked]
    is_weak = answerable < scoring.weak_below
    for i, item in enumerate(ranked):
        explain = item.explain
        explain["lead"] = round(lead_over_others(values, i, runner_up), 6)
        explain["first"] = i == 0
        explain["answerable"] = round(answerable, 4)
        if is_weak:
            item.warnings.append(weak_warning(answerable, scoring))
        item.confidence = hit_confidence(
            item.relevance,
            explain["lead"],
            i == 0,
            explain["valid_at_reference"],
            explain["standing"],
            scoring.calibration,
            explain["known_at_reference"],
            is_weak,
        )


def _day(value: str | None) -> str:
    return (value or "")[:10]


def retired_at(passage: Passage) -> str | None:
    """When its note's front matter retired it (``status: archived`` or ``deprecated``), if that is what closed this
    passage's window: not a note another supersedes, nor a text an edit took out before. A retired note is kept as
    superseded by nothing from then; once it is deleted too, that is gone, and its passages' window, closed then
    (``inferred``) before the deletion, with the status still in its front matter, says it."""
    if passage.note_superseded_by is not None:
        return None
    at = passage.note_superseded_at
    if (
        at is None
        and passage.note_deleted_at
        and (passage.note_status or "").strip().lower() in ARCHIVED_STATUSES
        and passage.until_source == INFERRED
        and (passage.valid_until or passage.note_deleted_at) < passage.note_deleted_at
    ):
        at = passage.valid_until
    if at is None or (passage.valid_until or at) < at:
        return None
    return at


def time_warnings(passage: Passage, moment: dt.datetime) -> list[str]:
    """Superseded, its note archived (retired by its front matter; then maybe deleted), its note deleted, removed
    from its note by an edit, not yet valid or expired (its declared window closed), as seen from ``moment``."""
    notes = []
    if passage.successor_chunk:
        notes.append(
            f"superseded by {passage.successor_chunk} v{passage.successor_version}"
            f" on {_day(passage.successor_from or passage.valid_until)}"
        )
    elif passage.note_superseded_by and passage.successor_note_path:
        inferred = " (inferred)" if passage.supersession_inferred else ""
        notes.append(f"superseded by {passage.successor_note_path} on {_day(passage.note_superseded_at)}{inferred}")
    elif passage.state == "ARCHIVED" and retired_at(passage):
        status = (passage.note_status or "").strip().lower()
        deleted = f" and deleted on {_day(passage.note_deleted_at)}" if passage.note_deleted_at else ""
        notes.append(
            f"its note was {status if status in ARCHIVED_STATUSES else 'archived'} on {_day(retired_at(passage))}"
            + deleted
        )
    elif passage.state == "ARCHIVED" and passage.note_deleted_at:
        notes.append(f"its note was deleted on {_day(passage.note_deleted_at)}")
    elif passage.state == "ARCHIVED" and not closed_by_expiry(passage):
        notes.append(f"removed from its note on {_day(passage.valid_until)}")
    if passage.state == "DORMANT":
        notes.append("dormant: its trust faded and it has not been used lately")
    if not valid_at(passage, moment):
        start = parse_optional(passage.valid_from)
        if start is not None and start > moment:
            notes.append(f"not yet valid on {_day(to_iso(moment))} (from {_day(passage.valid_from)})")
        elif not superseded(passage) and (passage.state != "ARCHIVED" or closed_by_expiry(passage)):
            notes.append(f"expired on {_day(passage.valid_until)}")
    return notes


def first_seen_warning(ask: Ask, unknown_then: bool) -> list[str]:
    """The edge of what the index knows, said with a hit that answers for a time before it (``first_seen_later``)."""
    if not unknown_then or ask.known_since is None:
        return []
    return [f"nothing is known before {_day(to_iso(ask.known_since))}; this is the text first seen then"]


WEAK_MATCH = "weak match"  # how the warning of ``weak_warning`` begins (``bench questions`` reads it)


def weak_warning(answerable: float, scoring: ScoringSettings) -> str:
    """A hit of a question less answerable than ``weak_below``: nothing in the vault matched better, and it may
    not answer."""
    return f"{WEAK_MATCH} (answerable {answerable:.2f}, under {scoring.weak_below:.2f}): it may not answer the question"


def relation_warnings(relations: Sequence[Relation], wanted: set[int]) -> dict[int, list[str]]:
    """Corrected by, contradicted by (the loser), disputed by (the winner), repeats outdated information (an
    echo of a superseded value, naming the current passage), for the passages in ``wanted``."""
    found: dict[int, list[str]] = {}
    for edge in relations:
        suffix = f": {edge.reason}" if edge.reason else ""
        if edge.kind == "corrects" and edge.dst in wanted:
            found.setdefault(edge.dst, []).append(f"corrected by {edge.src_chunk_id}")
        elif edge.kind == "contradicts":
            if edge.src in wanted:
                found.setdefault(edge.src, []).append(f"contradicted by {edge.dst_chunk_id} ({edge.dst_path}){suffix}")
            if edge.dst in wanted:
                found.setdefault(edge.dst, []).append(
                    f"disputed by {edge.src_chunk_id} ({edge.src_path}), which it outranks{suffix}"
                )
        elif edge.kind == "echoes" and edge.src in wanted:
            found.setdefault(edge.src, []).append(
                f"repeats outdated information: {edge.reason}; current: {edge.dst_chunk_id} ({edge.dst_path})"
            )
    return found
