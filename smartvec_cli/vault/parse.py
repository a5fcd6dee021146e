"""Parsing one note: frontmatter, title, tags, links, aclarai ids, and its passages.

Obsidian conventions understood here: YAML frontmatter, ``[[Note]]``, ``[[Note|alias]]``,
``[[Note#Heading]]``, ``[[Note#^block]]``, ``![[embed]]``, Markdown links and embeds
(``[text](sub/Note%20Name.md#Heading)``, ``[text](<Note Name>)``, ``![alt](img.png)``), inline
``#tags``, ``^block-id`` anchors, plus aclarai's ``<!-- aclarai:id=X ver=N -->`` comments, which are metadata:
they never reach a hash of a passage or the model.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

import frontmatter

from .chunk import chunk_note
from .hashing import aclarai_embedding_hash
from .markdown import (
    ACLARAI_COMMENT,
    ANCHOR_LINE,
    FENCE,
    HEADING,
    INLINE_CODE,
    INLINE_TAG,
    WIKILINK,
    parse_aclarai_id,
    strip_aclarai_comments,
)

LINK_RULES = "2: Markdown links and embeds beside wikilinks"
"""Names the rules for reading links out of a note: when they change, every note is read again once
(``core.indexer.note_rules_key``), so an index made before them learns the links they find; nothing is embedded."""
RELATION_KEYS = ("depends_on", "supersedes", "related", "contradicts")
NOTE_LEVEL_ACLARAI_PREFIXES = ("blk_", "clm_")


@dataclass(frozen=True)
class Link:
    """An outgoing reference: a wikilink or embed in the text, or a relation in the frontmatter."""

    target: str
    kind: str = "link"  # link | embed | depends_on | supersedes | related | contradicts
    heading: str | None = None
    block: str | None = None
    alias: str | None = None
    markdown: bool = False  # a ``[text](path)`` link: its path is relative to the linking note's folder


@dataclass
class ParsedNote:
    rel_path: str
    title: str
    metadata: dict[str, Any]
    body: str
    tags: list[str]
    links: list[Link]
    aclarai_id: str | None
    aclarai_ver: int | None
    embedding_hash: str
    frontmatter_error: str | None = None
    chunks: list = field(default_factory=list)

    @property
    def explicit_id(self) -> str | None:
        """An id the author gave the note (frontmatter ``id`` or a file-level aclarai id)."""
        value = self.metadata.get("id")
        if isinstance(value, (str, int)) and str(value).strip():
            return str(value).strip()
        return self.aclarai_id


MAX_FRONTMATTER_NODES = 20_000
MAX_FRONTMATTER_DEPTH = 50


class FrontmatterTooLarge(ValueError):
    """YAML aliases can make a few lines stand for a list that refers to itself, or for a
    billion items ("billion laughs"); either would hang or crash the run that copies it."""


def json_safe(value: Any) -> Any:
    """Frontmatter as JSON can store it: YAML dates become ISO strings.

    Raises :class:`FrontmatterTooLarge` for self-referring or enormous structures.
    """
    budget = [MAX_FRONTMATTER_NODES]

    def convert(item: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_FRONTMATTER_DEPTH:
            raise FrontmatterTooLarge(
                f"frontmatter is nested deeper than {MAX_FRONTMATTER_DEPTH} levels, refers to itself, "
                f"or expands to more than {MAX_FRONTMATTER_NODES} values"
            )
        if isinstance(item, dict):
            return {str(k): convert(v, depth + 1) for k, v in item.items()}
        if isinstance(item, (list, tuple, set)):
            return [convert(v, depth + 1) for v in item]
        if isinstance(item, (dt.date, dt.datetime)):
            return item.isoformat()
        if item is None or isinstance(item, (str, int, float, bool)):
            return item
        return str(item)

    return convert(value, 0)


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(metadata, body, error). Broken frontmatter is reported and dropped; the body is kept."""
    handler = frontmatter.detect_format(text, frontmatter.handlers)
    if handler is None:
        return {}, text, None
    try:
        raw_fm, body = handler.split(text)
    except ValueError:
        return {}, text, None
    try:
        data = handler.load(raw_fm)
    except Exception as exc:  # yaml, toml and json handlers raise their own error types
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return {}, body, f"invalid frontmatter ({first_line}); indexed without metadata"
    if data is None:
        return {}, body, None
    if not isinstance(data, dict):
        return {}, body, "frontmatter is not a mapping of keys to values; indexed without metadata"
    try:
        return json_safe(data), body, None
    except FrontmatterTooLarge as exc:
        return {}, body, f"{exc}; indexed without metadata"


def strip_code(text: str) -> str:
    """The text with fenced blocks and inline code removed, so code is never read as tags or links."""
    kept, in_fence = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            kept.append(INLINE_CODE.sub("", line))
    return "\n".join(kept)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None and str(v).strip()]
    return [str(value)] if str(value).strip() else []


MARKDOWN_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"  # [text], one level of nested brackets
    r"\([ \t]*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"  # (target: <...> or bare, balanced parentheses
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\)"  # an optional "title")
)
"""``[text](target "title")`` and ``![alt](target)``: the target bare (balanced parentheses allowed) or in ``<...>``."""
URL_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]+:|//)")
"""``http:``, ``mailto:``, ``obsidian:``, ``//host``...: a place outside the vault, never a note or attachment."""


def markdown_link_target(raw: str) -> tuple[str, str | None, str | None] | None:
    """(path, heading, block) of a Markdown link's target, percent-decoded; None for an external URL.

    ``#Heading`` alone is a link into the same note: its path is empty."""
    raw = raw.strip()
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1].strip()
    if not raw or URL_SCHEME.match(raw.lstrip("(")):  # ``[x]((https://...))`` is a URL in parentheses
        return None
    path, _, fragment = raw.partition("#")
    path, fragment = unquote(path).strip(), unquote(fragment).strip()
    if not path and not fragment:
        return None
    if fragment.startswith("^"):
        return path, None, fragment[1:] or None
    return path, fragment or None, None


def parse_links(text: str) -> list[Link]:
    """Wikilinks and embeds first, then Markdown links and embeds, each in the order written."""
    links: list[Link] = []
    for match in MARKDOWN_LINK.finditer(text):
        embed, label, raw = match.groups()
        for inner in parse_links(label) if embed == "" and "](" in label else []:
            links.append(inner)  # a linked image, ``[![alt](img.png)](Note.md)``: both the image and the link
        link_target = markdown_link_target(raw)
        if link_target is None:
            continue
        path, heading, block = link_target
        links.append(Link(path, "embed" if embed else "link", heading, block, label.strip() or None, markdown=True))
    wiki = []
    for match in WIKILINK.finditer(text):
        embed, target, block, heading, alias = match.groups()
        wiki.append(
            Link(
                target=target.strip(),
                kind="embed" if embed else "link",
                heading=heading.strip() if heading else None,
                block=block.strip() if block else None,
                alias=alias.strip() if alias else None,
            )
        )
    return wiki + links


def relation_links(metadata: dict[str, Any]) -> list[Link]:
    """``depends_on``/``supersedes``/``related``/``contradicts`` in frontmatter, as ``[[X]]`` or plain names."""
    links: list[Link] = []
    for key in RELATION_KEYS:
        for value in _as_list(metadata.get(key)):
            found = parse_links(value)
            if found:
                links.extend(Link(f.target, key, f.heading, f.block, f.alias, f.markdown) for f in found)
            else:
                links.append(Link(value.strip(), key))
    return links


def parse_tags(metadata: dict[str, Any], body_without_code: str) -> list[str]:
    tags: list[str] = []
    raw = metadata.get("tags") or metadata.get("tag")
    if isinstance(raw, str):
        raw = re.split(r"[,\s]+", raw)
    for tag in _as_list(raw):
        tags.append(tag.lstrip("#").strip())
    if "#" in body_without_code:  # one search over the lines, each heading line read as its heading's text
        lines = body_without_code.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("#") and (heading := HEADING.match(line)):
                lines[i] = heading.group(2)
        tags.extend(INLINE_TAG.findall("\n".join(lines)))
    seen: dict[str, None] = {}
    for tag in tags:
        if tag:
            seen.setdefault(tag, None)
    return list(seen)


def note_level_aclarai_id(body: str) -> tuple[str | None, int | None]:
    """The file-level aclarai id: a whole-line ``aclarai:id`` comment closing the note.

    aclarai writes concept, subject and document ids at the end of the file (optionally
    followed by their ``^anchor``); utterance (``blk_``) and claim (``clm_``) ids belong to blocks.
    """
    lines = [line for line in body.strip().split("\n") if line.strip()]
    while lines and ANCHOR_LINE.match(lines[-1]):
        lines.pop()
    if not lines:
        return None, None
    match = ACLARAI_COMMENT.fullmatch(lines[-1].rstrip())
    if not match or lines[-1].lstrip() != lines[-1]:
        return None, None
    parsed = parse_aclarai_id(match.group(1))
    if not parsed or parsed[0].startswith(NOTE_LEVEL_ACLARAI_PREFIXES):
        return None, None
    return parsed


def note_title(metadata: dict[str, Any], body: str, rel_path: str) -> str:
    title = metadata.get("title")
    if isinstance(title, str) and strip_aclarai_comments(title).strip():
        return strip_aclarai_comments(title).strip()
    in_fence = False
    for line in body.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("# "):
            heading = HEADING.match(line)
            text = strip_aclarai_comments(heading.group(2) if heading else line[2:]).strip()
            if text:
                return text
    return PurePosixPath(rel_path).stem


def normalise_text(raw: str) -> str:
    """Text as every later step sees it: no BOM, no NUL bytes, ``\\n`` line ends."""
    return raw.lstrip("\ufeff").replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")


def parse_note(raw_text: str, rel_path: str, max_chars: int = 900) -> ParsedNote:
    """Parse a note's text; never raises on odd markdown."""
    embedding_hash = aclarai_embedding_hash(raw_text)
    text = normalise_text(raw_text)
    metadata, body, fm_error = split_frontmatter(text)
    without_code = strip_code(body)
    aclarai_id, aclarai_ver = note_level_aclarai_id(body)
    note = ParsedNote(
        rel_path=rel_path,
        title=note_title(metadata, body, rel_path),
        metadata=metadata,
        body=body,
        tags=parse_tags(metadata, without_code),
        links=parse_links(without_code) + relation_links(metadata),
        aclarai_id=aclarai_id,
        aclarai_ver=aclarai_ver,
        embedding_hash=embedding_hash,
        frontmatter_error=fm_error,
    )
    note.chunks = chunk_note(note.title, body, max_chars=max_chars)
    return note
