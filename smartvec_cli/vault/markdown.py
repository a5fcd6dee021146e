"""The markdown syntax smartvec reads: Obsidian's links, anchors and tags, aclarai's comments.

Shared by the note parser and the chunker, which must agree on what is text and what is markup.
"""

from __future__ import annotations

import re

WIKILINK = re.compile(r"(!?)\[\[([^\[\]|#^]*)(?:#\^([^\[\]|]+)|#([^\[\]|]+))?(?:\|([^\[\]]*))?\]\]")
ACLARAI_COMMENT = re.compile(r"[ \t]*<!--\s*aclarai:(.*?)-->")
ACLARAI_ID = re.compile(r"^id=(\S+?)(?:\s+ver=(\d+))?\s*$")
ANCHOR_LINE = re.compile(r"^\s*\^([A-Za-z0-9][A-Za-z0-9_-]*)\s*$")
TRAILING_ANCHOR = re.compile(r"[ \t]+\^([A-Za-z0-9][A-Za-z0-9_-]*)[ \t]*$")
INLINE_TAG = re.compile(r"(?:(?<=\s)|^)#([A-Za-z_][\w/-]*)", re.MULTILINE)
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")  # closing #s only after a space: "# C#" is "C#"
HIDDEN_COMMENT = re.compile(r"<!--(?!\s*aclarai:)(?:(?!<!--).)*?-->|%%(?:(?!<!--\s*aclarai:).)*?%%", re.DOTALL)
"""What a reader never sees: an HTML comment (not aclarai's, which is metadata) or an Obsidian ``%%`` comment,
closed, over any number of lines. Neither holds an aclarai comment (an HTML comment holds no opening at
all), so that no aclarai id is ever lost inside one."""
MARKDOWN_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)|<https?://[^>\s]+>"
)
"""``[text](target "title")``, ``![alt](image)`` and ``<https://...>``: a link in the text, as a reader sees it."""


def strip_aclarai_comments(line: str) -> str:
    """The line without aclarai comments; repeated, since removing one can close the halves of another."""
    while True:
        stripped = ACLARAI_COMMENT.sub("", line)
        if stripped == line:
            return line
        line = stripped


def parse_aclarai_id(comment_body: str) -> tuple[str, int | None] | None:
    match = ACLARAI_ID.match(comment_body.strip())
    if not match:
        return None
    return match.group(1), int(match.group(2)) if match.group(2) else None
