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
``c ← c + lr·(f − c)`` stored as the adjustment it made, so it survives re-indexing;
a correction uses a larger rate than a vote.
"""

from __future__ import annotations

import fnmatch
import math
import re
from pathlib import PurePosixPath
from dataclasses import dataclass, field

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
FEEDBACK_VALUES = {"up": 1.0, "down": -1.0, "correct": -1.0}
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


# Kinds of source people keep in folders named for them; a folder (not file) name holding one of these
# words gives its notes that kind when they declare none. Checked in this order; `config.toml` globs win.
FOLDER_KIND_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("chat", frozenset("slack chat chats discord whatsapp telegram mattermost".split())),  # not "teams": team pages
    ("meeting_notes", frozenset("meeting meetings minutes 1-1 1-1s one-on-one one-on-ones standup standups sync syncs retro retros".split())),
    ("email", frozenset("email emails mail mails".split())),
    ("daily_note", frozenset("daily dailies journal journals".split())),
)
DAILY_NOTE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}(?:\s.*)?$")  # a daily note named by its date
FOLDER_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def inferred_kind(rel_path: str) -> str | None:
    """The kind of source a note's place says it is (``chat`` for ``Slack/...``), or None."""
    path = PurePosixPath(rel_path)
    for folder in path.parts[:-1]:
        words = set(FOLDER_WORD.findall(folder.lower()))
        for kind, keys in FOLDER_KIND_WORDS:
            if words & keys:
                return kind
    if DAILY_NOTE_NAME.match(path.stem) and len(path.parts) == 1:
        return "daily_note"
    return None


@dataclass
class ConfidenceSettings:
    half_life_days: float = 0.0  # for source types the table does not name; 0: they do not fade
    floor: float = 0.05
    dormant_below: float = 0.10
    default_authority: float = 0.50
    learning_rate: float = 0.30
    correction_rate: float = 0.60
    access_weight: float = 0.02
    source_types: dict[str, float] = field(default_factory=dict)
    half_lives: dict[str, float] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)
    infer_kinds: bool = True  # read a kind from folder names when a note declares none (FOLDER_KIND_WORDS)

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
folder words, a daily note's name); a note with neither has an unknown kind."""


@dataclass(frozen=True)
class SourceAuthority:
    authority: float  # C0
    source_type: str | None
    kind_source: str | None  # KIND_DECLARED, KIND_INFERRED, or None: the kind is unknown


def base_authority(metadata: dict, rel_path: str, settings: ConfidenceSettings) -> SourceAuthority:
    """C0 and the note's kind: frontmatter ``authority`` wins, then ``source_type``, then the folder rules of
    ``config.toml``, then the kind the note's folder names (``inferred_kind``)."""
    explicit = metadata.get("authority")
    source_type = metadata.get("source_type") or metadata.get("source")
    if not isinstance(source_type, str):
        source_type = None
    kind_source = KIND_DECLARED if source_type else None
    if source_type is None:
        for pattern, folder_type in settings.folders.items():
            if fnmatch.fnmatchcase(rel_path, pattern):
                source_type = folder_type
                break
    if source_type is None and settings.infer_kinds:
        source_type = inferred_kind(rel_path)
    if source_type and kind_source is None:
        kind_source = KIND_INFERRED
    if isinstance(explicit, (int, float)) and not isinstance(explicit, bool) and 0 <= explicit <= 1:
        return SourceAuthority(float(explicit), source_type, kind_source)
    if isinstance(explicit, str):
        by_name = settings.authority_of(explicit)
        if by_name is not None:
            return SourceAuthority(by_name, source_type or explicit, kind_source or KIND_DECLARED)
    by_type = settings.authority_of(source_type)
    return SourceAuthority(by_type if by_type is not None else settings.default_authority, source_type, kind_source)


def retention(age_days: float | None, half_life_days: float | None) -> float:
    """Ebbinghaus: the share of trust left after ``age_days``, ``2^(-age/H)``; 1 when it does not fade."""
    if age_days is None or age_days <= 0 or half_life_days is None:
        return 1.0
    return 2 ** (-age_days / half_life_days)


def trust(c0: float, retained: float, feedback: float, accesses: int, settings: ConfidenceSettings) -> float:
    value = c0 * retained + feedback + settings.access_weight * math.log1p(max(accesses, 0))
    return max(settings.floor, min(1.0, value))


def reconsolidate(current: float, signal: str, settings: ConfidenceSettings) -> float:
    """The paper's step c + lr·(f − c), with the larger rate for a correction; returns the new c."""
    target = FEEDBACK_VALUES[signal]
    rate = settings.correction_rate if signal == "correct" else settings.learning_rate
    return max(settings.floor, min(1.0, current + rate * (target - current)))
