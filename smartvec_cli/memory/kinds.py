"""What kind of source a note is when its frontmatter does not say: rules a user can read and change.

Trust needs a note's kind: a chat message goes stale in weeks, a policy does not. Most notes declare none,
but their place and shape tell it: a note in ``Slack/`` is chat, one tagged ``#meeting`` is meeting notes, a
top-level note named ``2024-03-01.md`` is a daily note, and a note most of whose lines are ``Ana: ...`` or
``**Ana** 10:32`` is a chat export wherever it sits. The rules are data (``KindRules``), written out in the
index's ``config.toml`` under ``[kinds]`` when the index is made, so a user can see and edit them there.
Each inference keeps its reason (``folder "Slack"``), which ``show`` prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

# Words in a folder name that give its notes a kind, in English, German, Spanish, French and Chinese (a Chinese
# folder name is one word: "会议记录" is listed whole). "teams" is not a chat word: team pages are wikis.
DEFAULT_FOLDER_WORDS: dict[str, tuple[str, ...]] = {
    "chat": ("slack", "chat", "chats", "discord", "whatsapp", "telegram", "mattermost", "聊天", "聊天记录"),
    "meeting_notes": (
        "meeting",
        "meetings",
        "minutes",
        "1-1",
        "1-1s",
        "one-on-one",
        "one-on-ones",
        "standup",
        "standups",
        "sync",
        "syncs",
        "retro",
        "retros",
        "besprechung",
        "besprechungen",
        "protokolle",
        "reunión",
        "reuniones",
        "actas",
        "réunion",
        "réunions",
        "会议",
        "会议记录",
        "会议纪要",
    ),
    "email": (
        "email",
        "emails",
        "mail",
        "mails",
        "e-mail",
        "e-mails",
        "correo",
        "correos",
        "courriel",
        "courriels",
        "邮件",
    ),
    "daily_note": ("daily", "dailies", "journal", "journals", "tagebuch", "diario", "diarios", "日记"),
}
# Tags (frontmatter ``tags`` or inline ``#tag``; a nested tag counts by each of its parts) that give a kind.
DEFAULT_TAGS: dict[str, tuple[str, ...]] = {
    "chat": ("chat", "slack", "chat-log", "chatlog", "discord", "whatsapp"),
    "meeting_notes": (
        "meeting",
        "meetings",
        "meeting-notes",
        "minutes",
        "standup",
        "1-1",
        "one-on-one",
        "retro",
        "besprechung",
        "protokoll",
        "reunión",
        "reunion",
        "acta",
        "réunion",
        "会议",
    ),
    "email": ("email", "mail", "correo", "courriel", "邮件"),
    "daily_note": ("daily", "daily-note", "dailynote", "journal", "tagebuch", "diario", "日记"),
}
DEFAULT_CHAT_LINE_SHARE = 0.6

FOLDER_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")  # letters of any script: "Réunions", "会议记录"
DAILY_NOTE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}(?:\s.*)?$")
# A line that gives who spoke: "Ana: text", "**Ana Lopez**: text", "[10:32] ana: text", "10:32 - Ana: text",
# "12/03/2023, 10:32 - Ana: text" (WhatsApp), "> @ana: text"; or a Slack copy's "**Ana** 10:32" above the message.
_TIME = r"\d{1,2}[:.]\d{2}(?:[:.]\d{2})?\s*(?:[AaPp]\.?[Mm]\.?)?"
_STAMP = rf"(?:\[?(?:\d{{1,4}}[-/.]\d{{1,2}}[-/.]\d{{1,4}},?\s*)?{_TIME}\]?\s*[-–]?\s*)"
_NAME = r"(?:\*\*|__)?@?(?P<name>[A-Za-zÀ-ÿ][\w.'À-ÿ-]*(?:\s[A-Za-zÀ-ÿ][\w.'À-ÿ-]*){0,2})(?:\*\*|__)?"
SPEAKER_LINE = re.compile(rf"^(?:[-*>]\s*)*{_STAMP}?{_NAME}\s*:(?!//)\s*\S")
SLACK_HEADER = re.compile(rf"^(?:[-*>]\s*)*{_NAME}\s+\[?{_TIME}\]?\s*$")
# Labels that open a line the way a speaker's name does but say it is a document: "Note: ...", "Owner: ...".
NOT_SPEAKERS = frozenset(
    """
    note notes summary status owner owners tags tag date dates updated created source sources see also todo
    question answer q a example examples warning tip important result results update decision decisions action
    actions agenda attendees location time when where who what why how step steps goal goals context problem
    solution fix cause impact description title author version type category link links ref reference
    references pros cons risk risks next total cost price deadline due priority team project contact email
    phone address url host port path command input output error reason rule policy definition term
    """.split()
)


@dataclass
class KindRules:
    """The rules by which a note that declares no kind gets one, in the order they are tried."""

    folder_words: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEFAULT_FOLDER_WORDS))
    tags: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEFAULT_TAGS))
    daily_note_names: bool = True  # a top-level note named by its date is a daily note
    chat_line_share: float = DEFAULT_CHAT_LINE_SHARE  # this share of a note's lines naming a speaker: chat; 0 = off

    def to_toml(self) -> str:
        """The rules as the ``[kinds]`` section of ``config.toml`` (written when an index is made)."""
        lines = [
            "[kinds]  # how a note that declares no source_type gets a kind; `show` says which rule gave it",
            f"daily_note_names = {str(self.daily_note_names).lower()}"
            "  # a top-level note named by its date (2024-03-01.md)",
            f"chat_line_share = {self.chat_line_share}"
            "  # this share of lines like 'Ana: ...' makes a chat export; 0 = off",
            "",
            "[kinds.folder_words]  # a word of a folder's name -> the kind of the notes in it",
        ]
        lines += [f"{kind} = {_toml_list(words)}" for kind, words in self.folder_words.items()]
        lines += ["", "[kinds.tags]  # a tag (#meeting, tags: [meeting]) -> the kind of the note"]
        lines += [f"{kind} = {_toml_list(tags)}" for kind, tags in self.tags.items()]
        return "\n".join(lines) + "\n"


def _toml_list(words) -> str:
    return "[" + ", ".join(f'"{word}"' for word in words) + "]"


@dataclass(frozen=True)
class InferredKind:
    kind: str
    reason: str  # in words, for ``show``: 'folder "Slack"', "tag #meeting", "file name is a date", "speaker lines"


def infer_kind(rel_path: str, tags: list[str], body: str, rules: KindRules) -> InferredKind | None:
    """The kind a note's place, tags or shape give it, with the reason; None when no rule applies.

    Folder words first (where a user keeps a note is the plainest statement of what it is), then tags, then a
    daily note's name, then the shape of a chat export."""
    path = PurePosixPath(rel_path)
    for folder in path.parts[:-1]:
        words = set(FOLDER_WORD.findall(folder.lower()))
        for kind, keys in rules.folder_words.items():
            if words & set(keys):
                return InferredKind(kind, f'folder "{folder}"')
    tag_parts = {part: tag for tag in tags for part in [tag.lower(), *tag.lower().split("/")]}
    for kind, keys in rules.tags.items():
        for key in keys:
            if key in tag_parts:
                return InferredKind(kind, f"tag #{tag_parts[key]}")
    if rules.daily_note_names and len(path.parts) == 1 and DAILY_NOTE_NAME.match(path.stem):
        return InferredKind("daily_note", "file name is a date")
    if rules.chat_line_share > 0:
        share = speaker_line_share(body)
        if share >= rules.chat_line_share:
            return InferredKind("chat", f"{share:.0%} of its lines name a speaker")
    return None


MIN_SPEAKER_LINES = 4


def speaker_line_share(body: str) -> float:
    """The share of a note's text lines that name who spoke, as a chat export's do; 0 when it is not a chat.

    A chat needs at least ``MIN_SPEAKER_LINES`` such lines from at least two speakers, one of whom speaks more
    than once: a list of ``Owner: ...``, ``Status: ...`` fields has neither repeats nor (mostly) names."""
    text_lines = 0
    speaker_lines = 0
    speakers: dict[str, int] = {}
    awaiting_message = False
    for raw in body.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("---") or line.startswith("```"):
            continue
        header = SLACK_HEADER.match(line)
        if header and header.group("name").lower() not in NOT_SPEAKERS:
            speakers[header.group("name").lower()] = speakers.get(header.group("name").lower(), 0) + 1
            speaker_lines += 1
            text_lines += 1
            awaiting_message = True
            continue
        if awaiting_message:  # the message under a Slack header belongs to it
            awaiting_message = False
            speaker_lines += 1
            text_lines += 1
            continue
        text_lines += 1
        match = SPEAKER_LINE.match(line)
        if match and match.group("name").lower() not in NOT_SPEAKERS:
            name = match.group("name").lower()
            speakers[name] = speakers.get(name, 0) + 1
            speaker_lines += 1
    if speaker_lines < MIN_SPEAKER_LINES or len(speakers) < 2 or max(speakers.values()) < 2:
        return 0.0
    return speaker_lines / text_lines
