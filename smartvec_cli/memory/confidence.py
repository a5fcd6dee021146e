"""How far to trust a passage: source authority, forgetting, use, and what the user said.

    c(T) = clamp(C0 · 2^(-age/H) + feedback + access_weight · ln(1 + accesses), floor, 1)

C0 comes from the source's authority and H from its kind (chat fades in weeks, a wiki
page over years, a policy not at all). The published method decays every passage from
its creation, so an old policy that is still in force loses to yesterday's chat
message. Here a passage whose validity is *declared* (an effective date, an expiry, a
version that supersedes another) does not decay while it is valid: its validity is an
assertion, not a memory. Only undated passages of a kind that goes stale (chat, email,
meeting notes, daily notes; a half-life in the table or in ``config.toml``) fade, from
their own date or the last time they changed: age alone does not make a note of unknown
kind untrustworthy, and among versions of one thing validity windows already let the
newest win. Feedback is the paper's reconsolidation step
``c ← c + lr·(f − c)`` stored as the adjustment it made, so it survives re-indexing.
A vote aims at 1 (up) or −1 (down). A correction aims at 0: it says the passage is incomplete
or partly wrong, not worthless (the user's text answers in its place, ``memory.ranking``), so
the passage keeps most of its trust and stays findable; aiming it at −1 at a double rate, as
the paper does, cut a right but incomplete passage to the floor and out of the first three.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field
from typing import Sequence

from .kinds import KindRules, infer_kind

SOURCE_AUTHORITY = {
    "official_database": 0.95,
    "policy": 0.90,
    "technical_doc": 0.85,
    "wiki": 0.75,
    "email": 0.50,
    "meeting_notes": 0.45,
    "chat": 0.30,
    "slack": 0.30,
    "unknown": 0.20,
    "correction": 0.95,
}
FEEDBACK_VALUES = {"up": 1.0, "down": -1.0, "correct": 0.0}
# How fast an undated passage of each kind fades, in days (None: it does not fade). Chat is stale
# within weeks, meeting notes and email within months; a wiki page or a technical document is kept
# true by its editors (when it is replaced, its newer version wins by validity, not by age).
SOURCE_HALF_LIFE_DAYS: dict[str, float | None] = {
    "official_database": None,
    "policy": None,
    "correction": None,
    "technical_doc": None,
    "wiki": None,
    "email": 90.0,
    "meeting_notes": 90.0,
    "chat": 30.0,
    "slack": 30.0,
    "daily_note": 90.0,
}


@dataclass
class ConfidenceSettings:
    half_life_days: float = 0.0  # for source types the table does not name; 0: they do not fade
    floor: float = 0.05
    dormant_below: float = 0.10
    default_authority: float = 0.50
    learning_rate: float = 0.30
    correction_rate: float = 0.30
    access_weight: float = 0.02
    source_types: dict[str, float] = field(default_factory=dict)
    half_lives: dict[str, float] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)
    infer_kinds: bool = True  # read a kind from a note's folder, tags, name or shape when it declares none
    kind_rules: KindRules = field(default_factory=KindRules)

    def half_life_for(self, source_type: str | None) -> float | None:
        key = _type_key(source_type)
        if key in self.half_lives:
            value = self.half_lives[key]
            return None if value <= 0 else value
        if key in SOURCE_HALF_LIFE_DAYS:
            return SOURCE_HALF_LIFE_DAYS[key]
        return self.half_life_days if self.half_life_days > 0 else None

    def authority_of(self, source_type: str | None) -> float | None:
        if not source_type:
            return None
        key = _type_key(source_type)
        return self.source_types.get(key, SOURCE_AUTHORITY.get(key))


def _type_key(source_type: str | None) -> str:
    return str(source_type or "").strip().lower().replace("-", "_").replace(" ", "_")


KIND_DECLARED, KIND_INFERRED = "declared", "inferred"
"""Where a note's kind (its ``source_type``) came from: its frontmatter, or a rule (``config.toml`` folder globs,
the kind rules of ``memory.kinds``); a note with neither has an unknown kind."""


@dataclass(frozen=True)
class SourceAuthority:
    authority: float  # C0
    source_type: str | None
    kind_source: str | None  # KIND_DECLARED, KIND_INFERRED, or None: the kind is unknown
    kind_reason: str | None = None  # for an inferred kind, the rule that gave it ('folder "Slack"')


def base_authority(
    metadata: dict, rel_path: str, settings: ConfidenceSettings, tags: Sequence[str] = (), body: str = ""
) -> SourceAuthority:
    """C0 and the note's kind: frontmatter ``authority`` wins, then ``source_type``, then the folder globs of
    ``config.toml``, then the kind rules (folder words, tags, a daily note's name, a chat export's shape)."""
    explicit = metadata.get("authority")
    source_type = metadata.get("source_type") or metadata.get("source")
    if not isinstance(source_type, str):
        source_type = None
    kind_source = KIND_DECLARED if source_type else None
    reason = None
    if source_type is None:
        for pattern, folder_type in settings.folders.items():
            if fnmatch.fnmatchcase(rel_path, pattern):
                source_type, reason = folder_type, f'config glob "{pattern}"'
                break
    if source_type is None and settings.infer_kinds:
        inferred = infer_kind(rel_path, list(tags), body, settings.kind_rules)
        if inferred:
            source_type, reason = inferred.kind, inferred.reason
    if source_type and kind_source is None:
        kind_source = KIND_INFERRED
    if isinstance(explicit, (int, float)) and not isinstance(explicit, bool) and 0 <= explicit <= 1:
        return SourceAuthority(float(explicit), source_type, kind_source, reason)
    if isinstance(explicit, str):
        by_name = settings.authority_of(explicit)
        if by_name is not None:
            return SourceAuthority(by_name, source_type or explicit, kind_source or KIND_DECLARED, reason)
    by_type = settings.authority_of(source_type)
    return SourceAuthority(
        by_type if by_type is not None else settings.default_authority, source_type, kind_source, reason
    )


def retention(age_days: float | None, half_life_days: float | None) -> float:
    """Ebbinghaus: the share of trust left after ``age_days``, ``2^(-age/H)``; 1 when it does not fade."""
    if age_days is None or age_days <= 0 or half_life_days is None:
        return 1.0
    return 2 ** (-age_days / half_life_days)


def trust(c0: float, retained: float, feedback: float, accesses: int, settings: ConfidenceSettings) -> float:
    value = c0 * retained + feedback + settings.access_weight * math.log1p(max(accesses, 0))
    return max(settings.floor, min(1.0, value))


def reconsolidate(current: float, signal: str, settings: ConfidenceSettings) -> float:
    """The paper's step c + lr·(f − c) towards the signal's target (``FEEDBACK_VALUES``), at the correction's own
    rate for a correction; returns the new c."""
    target = FEEDBACK_VALUES[signal]
    rate = settings.correction_rate if signal == "correct" else settings.learning_rate
    return max(settings.floor, min(1.0, current + rate * (target - current)))
