"""Splitting a note into passages: one per paragraph, grouped under headings, within the model window.

A passage's ``key`` is what keeps its identity while the rest of the note changes:
an explicit block id (``^id`` or an aclarai id) when the author gave one, otherwise
the slug of its heading plus its place in that section. The indexer further keeps
the identity of passages whose text did not change even when they move (see
``vault.align.align_chunks``).

What gets hashed and embedded is ``embed_text``: the note title and heading path as
context, then the paragraph with metadata removed and wikilinks read as words.

What a reader would not cut out as a passage is not one: HTML and ``%%`` comments (never shown),
breadcrumb and navigation rows (``[[Home]] > [[Docs]] > Page``, ``[Previous](a.md) | [Next](b.md)``)
lines of nothing but closing HTML tags or empty anchors (``<a id="old-name"></a>``), and lines of
nothing but remote images (download and version badges) are left out of passage text, and a list of nothing but
links is context for the paragraph before it in its section, or left out when none is. Their links
still count: links are read from the whole body (``vault.parse``), not from passages. A step keeps
its code: a lead-in ending in ``:``, a numbered step or a caption joins the code block that follows
it, and code keeps its line breaks. A fenced code block is never cut so that a passage holds half a
fence: it stays whole when it fits a passage, and a longer one is cut between its lines, each part
closing the fence and the next opening it again. A scrap (``?``, ``Ok.``, a rule: fewer than
``JUNK_WORD_CHARACTERS`` letters and digits) is never a passage of its own while the note has another: it
joins the passage before it in its section, else the one after it.

``CHUNKING_RULES`` names these rules: when they change, every note is read again once
(``core.indexer.note_rules_key``), and only the passages whose text changed are embedded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from typing import Sequence

from .hashing import sha256_text
from .markdown import (
    ACLARAI_COMMENT,
    ANCHOR_LINE,
    FENCE,
    HEADING,
    HIDDEN_COMMENT,
    INLINE_CODE,
    MARKDOWN_LINK,
    TRAILING_ANCHOR,
    WIKILINK,
    parse_aclarai_id,
    strip_aclarai_comments,
)

CHUNKING_RULES = (
    "5: comments, navigation rows, empty anchors, badges and lone link lists are not passages; a step keeps its code;"
    " a code block is cut only between lines, its fence closed and reopened; a scrap joins a neighbour"
)
JUNK_WORD_CHARACTERS = 15
"""A passage with fewer letters and digits than this (``?``, ``Ok.``, ``---``, ``See [[X]].``) says nothing a
question could find on its own: it joins a neighbour (``_merge_junk``, and ``_split_long`` for the end of a
long paragraph)."""
LETTER_OR_DIGIT = re.compile(r"[^\W_]")
FENCE_MARK = re.compile(r"^(\s*)(`{3,}|~{3,})")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MIN_STANDALONE_WORDS = 4
EMBED = re.compile(r"!\[\[[^\]]*\]\]|!\[[^\]]*\]\([^)]*\)")
TAG_TOKEN = re.compile(r"(?:^|\s)#[\w/-]+")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
LABEL_LIST_WORDS = 12
WORD = re.compile(r"[^\W\d_]{2,}")
NUMBERED_STEP = re.compile(r"^\s*\d+[.)]\s")
HIDDEN_OR_CODE = re.compile(f"({INLINE_CODE.pattern})|{HIDDEN_COMMENT.pattern}", re.DOTALL)
HIDDEN = "\x00"  # where a comment stood; the body holds no NUL (``vault.parse.normalise_text``)
HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
LINK_MARK = "\x01"
CLOSING_TAGS = re.compile(r"\s*(?:</[A-Za-z][\w-]*>\s*)+")
EMPTY_ELEMENTS = re.compile(r"\s*(?:(?:<a\b[^<>]*>\s*</a>|<br\s*/?>)\s*)+")  # anchors for old links, line breaks
REMOTE_IMAGE = re.compile(r"\[?!\[[^\[\]]*\]\(https?://[^()\s]*\)(?:\]\([^()\s]*\))?")  # a badge, maybe linked
CAPTION = re.compile(r"^\s*<[A-Za-z][\w-]*(?:\s.*)?>\s*$")
NAV_SEPARATOR = re.compile(r"[|<>«»‹›/→←·•]")
NAV_CRUMB_WORDS = 5
LINK_ITEM_REST = re.compile(f"[\\s{LINK_MARK},;.·|–—-]*")


@dataclass
class Chunk:
    key: str
    heading: str
    text: str
    embed_text: str
    hash: str
    ordinal: int = 0
    block_ids: list[str] = field(default_factory=list)


@dataclass
class _Paragraph:
    lines: list[str]
    headings: list[str]
    block_ids: list[str] = field(default_factory=list)
    has_code: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


def slugify(text: str, limit: int = 48) -> str:
    slug = re.sub(r"[^0-9a-z]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "section"


def words_of_links(text: str) -> str:
    """``[[Note|alias]]`` reads as ``alias``, ``[[Note#Part]]`` as ``Note Part``: what a reader sees."""

    def replace(match: re.Match) -> str:
        _, target, block, heading, alias = match.groups()
        if alias:
            return alias
        return " ".join(p for p in (target, heading) if p) or (block or "")

    return WIKILINK.sub(replace, text)


def _links_marked(text: str) -> tuple[str, int]:
    """The text with each wikilink, embed and Markdown link replaced by ``LINK_MARK``, and how many there were."""
    text, wikilinks = WIKILINK.subn(LINK_MARK, text)
    text, others = MARKDOWN_LINK.subn(LINK_MARK, text)
    return text, wikilinks + others


def is_navigation_line(line: str) -> bool:
    """A breadcrumb or a row of navigation links: ``[[Home]] > [[Docs]] > Page``, ``[Home](..) / [Docs](..)``,
    ``[← Previous](a.md) | [Next →](b.md)``, a footer of links in a ``<span>``. Every part between the
    separators is one link or a short crumb of a few words with no sentence in it, and two at least are
    links (or one link and the page's own short name): a line that says something (a colon, a sentence,
    words around a link) is never one."""
    stripped = line.strip()
    if not stripped or stripped.startswith(("#", "|")) or LIST_ITEM.match(line) or FENCE.match(line):
        return False
    marked, links = _links_marked(HTML_TAG.sub(" ", stripped))
    if not links:
        return False
    parts = [part.strip() for part in NAV_SEPARATOR.split(marked)]
    parts = [part for part in parts if part]
    if len(parts) < 2:
        return False
    crumbs = [part for part in parts if LINK_MARK not in part]
    if any(part != LINK_MARK for part in parts if LINK_MARK in part):
        return False
    if any(len(part.split()) > NAV_CRUMB_WORDS or ":" in part or SENTENCE_END.search(part + " ") for part in crumbs):
        return False
    return len(parts) - len(crumbs) >= 2 or (len(crumbs) == 1 and len(crumbs[0].split()) <= 3)


LINES_KEPT = 1 << 16
"""Lines whose verdict is remembered (``is_page_chrome``, ``_is_slight``): the versions of a note a git import reads
repeat most of their lines."""


@lru_cache(maxsize=LINES_KEPT)
def is_page_chrome(line: str) -> bool:
    """A line that is the page's furniture, not its text: a navigation row, only closing HTML tags
    (``</Listing>``, ``</figure>``) whose opening line carries what they wrap, only empty anchors kept for
    old links (``<a id="old-heading"></a>``), or only remote badges (``![downloads](https://img.shields.io/...)``)."""
    if is_navigation_line(line) or CLOSING_TAGS.fullmatch(line) or EMPTY_ELEMENTS.fullmatch(line):
        return True
    badges, found = REMOTE_IMAGE.subn("", line)
    return found > 0 and not badges.strip()


def is_link_item(line: str) -> bool:
    """A list item that is only links (``- [[Note]]``, ``* [Guide](guide.md)``), nothing said about them."""
    item = LIST_ITEM.match(line)
    if not item:
        return False
    marked, links = _links_marked(line[item.end() :])
    return links > 0 and LINK_ITEM_REST.fullmatch(marked) is not None


def visible_text(body: str) -> str:
    """The body as a reader sees it: without HTML and ``%%`` comments (aclarai's stay: they are ids) and
    without navigation rows and lone closing tags (``is_page_chrome``). Code, fenced or inline, is kept
    as written. A line that held only a comment or a navigation row is gone, not left blank, so the
    paragraph around it stays one paragraph."""
    kept: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if not prose:
            return
        text = HIDDEN_OR_CODE.sub(lambda m: m.group(1) or HIDDEN, "\n".join(prose))
        for line in text.split("\n"):
            if HIDDEN in line:
                line = line.replace(HIDDEN, "")
                if not line.strip():
                    continue
            if not is_page_chrome(line):
                kept.append(line)
        prose.clear()

    in_fence = False
    for line in body.split("\n"):
        if FENCE.match(line) or in_fence:
            flush()
            if FENCE.match(line):
                in_fence = not in_fence
            kept.append(line)
        else:
            prose.append(line)
    flush()
    return "\n".join(kept)


def _clean_lines(lines: list[str]) -> tuple[list[str], list[str], bool]:
    """Remove aclarai comments and block anchors from paragraph lines; return (lines, ids, has_code)."""
    kept, ids, in_fence, has_code = [], [], False, False
    for line in lines:
        if FENCE.match(line) or in_fence:
            if FENCE.match(line):
                in_fence = not in_fence
                has_code = True
            code = strip_aclarai_comments(line)  # metadata even in code: never hashed, never embedded
            if code.strip() or code == line:
                kept.append(code)
            continue
        for comment in ACLARAI_COMMENT.findall(line):
            parsed = parse_aclarai_id(comment)
            if parsed:
                ids.append(parsed[0])
        line = strip_aclarai_comments(line)
        anchor = ANCHOR_LINE.match(line)
        if anchor:
            ids.append(anchor.group(1))
            continue
        trailing = TRAILING_ANCHOR.search(line)
        if trailing:
            ids.append(trailing.group(1))
            line = line[: trailing.start()]
        if line.strip():
            kept.append(line.rstrip())
    return kept, ids, has_code


def _paragraphs(body: str) -> list[_Paragraph]:
    paragraphs: list[_Paragraph] = []
    headings: list[tuple[int, str]] = []
    current: list[str] = []
    in_fence = False

    def flush() -> None:
        if current:
            lines, ids, has_code = _clean_lines(current)
            paragraphs.append(_Paragraph(lines, [h for _, h in headings], list(dict.fromkeys(ids)), has_code))
            current.clear()

    for line in body.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
            current.append(line)
            continue
        if in_fence:
            current.append(line)
            continue
        heading = HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, strip_aclarai_comments(heading.group(2)).strip()))
            continue
        if not line.strip():
            flush()
            continue
        current.append(line)
    flush()
    return paragraphs


def _attach_metadata_only(paragraphs: list[_Paragraph]) -> list[_Paragraph]:
    """A paragraph that held only ids (aclarai's comment + ``^anchor`` lines) names the one before it."""
    result: list[_Paragraph] = []
    for para in paragraphs:
        if para.text:
            result.append(para)
        elif para.block_ids and result and not result[-1].block_ids:
            result[-1].block_ids = para.block_ids
    return result


def _is_link_list(para: _Paragraph) -> bool:
    return (
        bool(para.lines) and not para.has_code and not para.block_ids and all(is_link_item(line) for line in para.lines)
    )


def _place_link_lists(paragraphs: list[_Paragraph]) -> list[_Paragraph]:
    """A list of nothing but links is context, not a statement: it joins the paragraph before it in its
    section ("Plugins I use:" and the list), and is left out when its section has none before it (a "See
    also" or "Related" list under its own heading). Its links stay in the note's links. A note made of
    nothing but such lists (an index, a list of resources) keeps them: they are all it says."""
    if all(_is_link_list(para) for para in paragraphs):
        return paragraphs
    result: list[_Paragraph] = []
    for para in paragraphs:
        if not _is_link_list(para):
            result.append(para)
        elif result and result[-1].headings == para.headings:
            before = result[-1]
            result[-1] = _Paragraph(before.lines + para.lines, before.headings, before.block_ids, before.has_code)
    return result


def _join_steps(paragraphs: list[_Paragraph]) -> list[_Paragraph]:
    """A step keeps its code: a paragraph ending in ``:``, in a numbered step ("3. Enter the following")
    or in a caption element (``<Listing file-name="src/main.rs">``, ``<span>Filename: x</span>``) forms
    one passage with the fenced block right after it in the same section."""
    result: list[_Paragraph] = []
    for para in paragraphs:
        before = result[-1] if result else None
        if (
            before is not None
            and para.lines
            and FENCE.match(para.lines[0])
            and before.headings == para.headings
            and not FENCE.match(before.lines[-1])
            and (before.text.endswith(":") or NUMBERED_STEP.match(before.lines[-1]) or CAPTION.match(before.lines[-1]))
            and not (before.block_ids and para.block_ids)
        ):
            result[-1] = _Paragraph(before.lines + para.lines, before.headings, before.block_ids + para.block_ids, True)
        else:
            result.append(para)
    return result


def _is_label_list(text: str) -> bool:
    """A short list of labels or settings and no sentence ("* Default: false", "* Type: Boolean"): what
    the paragraph beside it is about, not a statement of its own."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not all(LIST_ITEM.match(line) for line in lines):
        return False
    items = [LIST_ITEM.sub("", line).strip() for line in lines]
    return not _at_least(WORD, " ".join(items), LABEL_LIST_WORDS) and not any(
        SENTENCE_END.search(item + " ") for item in items
    )


@lru_cache(maxsize=LINES_KEPT)
def _is_slight(text: str) -> bool:
    """Too little to stand alone: a lead-in ("The rules:"), a tag line, a lone link or label, a short list
    of labels (``_is_label_list``), a rule (``***``), an image."""
    if text.endswith(":") or _is_label_list(text):
        return True
    return not _at_least(WORD, TAG_TOKEN.sub(" ", words_of_links(EMBED.sub(" ", text))), MIN_STANDALONE_WORDS)


def _joined(slight: _Paragraph, host: _Paragraph, slight_first: bool) -> _Paragraph:
    """``slight`` folded into ``host``, in reading order; the host's heading and block ids come first,
    so the joined passage keeps the host's key."""
    lines = slight.lines + host.lines if slight_first else host.lines + slight.lines
    return _Paragraph(lines, host.headings, host.block_ids + slight.block_ids, slight.has_code or host.has_code)


def _merge_short(paragraphs: list[_Paragraph]) -> list[_Paragraph]:
    """Fold each slight paragraph into a neighbour, so that no passage is a lone label or announcement:
    into the next paragraph of its section, else the previous one, else the first paragraph of the
    subsections that follow (as their lead-in, its heading still in their path). A code block is never
    slight but takes its lead-in. Two paragraphs that both carry block ids are joined only when nothing
    else is near (the host's id stays first, so its passage keeps its key). A slight paragraph alone in
    its section with nothing nested under it keeps its own passage: its heading says what it is."""
    result = list(paragraphs)
    i = 0
    while i < len(result):
        para = result[i]
        if para.has_code or not _is_slight(para.text) or len(result) == 1:
            i += 1
            continue
        before = result[i - 1] if i > 0 else None
        after = result[i + 1] if i + 1 < len(result) else None

        def fits(other: _Paragraph | None, nested: bool, both_ids: bool, para: _Paragraph = para) -> bool:
            if other is None or (other.block_ids and para.block_ids and not both_ids):
                return False
            if nested:  # a lead-in of the subsections that follow keeps its own heading in their path
                return other.headings[: len(para.headings)] == para.headings
            return other.headings == para.headings

        for nested, both_ids in ((False, False), (True, False), (False, True), (True, True)):
            if after is not None and fits(after, nested, both_ids):
                result[i : i + 2] = [_joined(para, after, slight_first=True)]
                break
            if not nested and before is not None and fits(before, nested, both_ids):
                result[i - 1 : i + 1] = [_joined(para, before, slight_first=False)]
                i -= 1
                break
        else:
            i += 1
    return result


def _at_least(pattern: re.Pattern, text: str, count: int) -> bool:
    """Whether ``pattern`` matches ``text`` ``count`` times or more, reading no further than that."""
    return sum(1 for _ in islice(pattern.finditer(text), count)) >= count


def is_junk(text: str) -> bool:
    """Too little to be found on its own: fewer than ``JUNK_WORD_CHARACTERS`` letters and digits."""
    return not _at_least(LETTER_OR_DIGIT, text, JUNK_WORD_CHARACTERS)


def _merge_junk(paragraphs: list[_Paragraph]) -> list[_Paragraph]:
    """Fold each scrap (``is_junk``) into the paragraph before it in its section, else the one after it, else the
    one before it; a note of one paragraph keeps it. What ``_merge_short`` leaves alone (a short line under its
    own heading, a scrap of code) is folded here too: a passage of ``?`` answers nothing."""
    result = list(paragraphs)
    i = 0
    while i < len(result) and len(result) > 1:
        para = result[i]
        if not is_junk(para.text):
            i += 1
            continue
        before = result[i - 1] if i > 0 else None
        after = result[i + 1] if i + 1 < len(result) else None
        if before is not None and (before.headings == para.headings or after is None):
            result[i - 1 : i + 1] = [_joined(para, before, slight_first=False)]
        elif after is not None:
            result[i : i + 2] = [_joined(para, after, slight_first=True)]  # may still be a scrap: looked at again
    return result


Unit = tuple[str, str, str]
"""What ``_split_long`` packs into pieces: (what separated it from the unit before, its text, its kind): ``prose``
(a sentence, or a line), ``block`` (a whole fenced code block), or, of a block too long for one piece, ``open``
(its opening line), ``code`` (one of its lines) and ``close`` (its closing line); ``reopen`` and ``reclose`` are
the fence lines a cut adds."""


def _units(text: str, max_chars: int) -> list[Unit]:
    """The units of a paragraph: prose by sentence, a fenced block whole, or by line when it is longer than a piece
    (and a line too long for a piece cut at a space). A block whose fence line leaves no room for code in a piece
    (a fence line longer than a passage) is read as prose."""
    units: list[Unit] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            end = next((j for j in range(i + 1, len(lines)) if FENCE.match(lines[j])), len(lines) - 1)
            block = lines[i : end + 1]
            closed = end > i and FENCE.match(lines[end]) is not None
            if len("\n".join(block)) <= max_chars:
                units.append(("\n", "\n".join(block), "block"))
                i = end + 1
                continue
            room = max_chars - len(block[0]) - max(len(_closing(block[0])), len(block[-1]) if closed else 0) - 2
            if room > 0:
                units.append(("\n", block[0], "open"))
                for line in block[1:-1] if closed else block[1:]:
                    while len(line) > room:
                        cut = line.rfind(" ", 0, room)
                        cut = cut if cut > room // 2 else room
                        units.append(("\n", line[:cut].rstrip(), "code"))
                        line = line[cut:].lstrip()
                    units.append(("\n", line, "code"))
                if closed:
                    units.append(("\n", block[-1], "close"))
                i = end + 1
                continue
        parts_of_line = (s for s in SENTENCE_END.split(lines[i]) if s)
        units.extend(("\n" if k == 0 else " ", s, "prose") for k, s in enumerate(parts_of_line))
        i += 1
    return units


def _closing(opening: str) -> str:
    """The line that closes the fence ``opening`` opens: its indent and its run of backticks or tildes."""
    mark = FENCE_MARK.match(opening)
    return mark.group(1) + mark.group(2) if mark else opening.strip()


def _split_long(text: str, max_chars: int) -> list[str]:
    """Pieces of at most ``max_chars`` characters, cut at sentence ends, then line ends, then spaces.

    Line breaks inside a piece are kept, and so is the indent of the line a piece starts with: code
    stays code, and two lines never run together into something neither said (half a comment on one
    line closed on the next). A fenced code block is kept whole when it fits a piece; a longer one is cut
    between its lines, the piece before the cut closing the fence and the piece after it opening it again
    with the same line, so that no piece holds half a fence. A scrap left at either end of a piece
    (``is_junk``: "Why?" after a long paragraph) joins the piece beside it (``_rejoined``).
    """
    if len(text) <= max_chars:
        return [text]
    pieces: list[list[Unit]] = []
    current = _Piece()
    fence: str | None = None  # the opening line of the block being cut, while inside it

    def fits(*more: Unit, reserve: int = 0) -> bool:
        return current.size_with(more) + reserve <= max_chars

    def flush() -> None:
        nonlocal current
        if current.units:
            pieces.append(current.units)
        current = _Piece()

    units = _units(text, max_chars)
    reserve = 0  # room kept for the line that closes the fence, while inside a block being cut
    for at, (separator, unit, kind) in enumerate(units):
        if kind == "prose":
            while len(unit) > max_chars:
                cut = unit.rfind(" ", 0, max_chars)
                cut = cut if cut > max_chars // 2 else max_chars
                flush()
                pieces.append([(separator, unit[:cut].rstrip(), kind)])
                separator, unit = " ", unit[cut:].strip()
        elif kind == "open":
            fence = unit
            end = next((u for u in units[at:] if u[2] == "close"), None)
            reserve = 1 + max(len(_closing(unit)), len(end[1]) if end else 0)
            continue  # written with its first line, where that fits
        elif kind == "code" and fence is not None:
            inside = bool(current.units) and current.units[-1][2] in ("open", "reopen", "code")  # it is open here
            start: list[Unit] = [] if inside else [("\n", fence, "open")]
            if not fits(*start, (separator, unit, kind), reserve=reserve):
                if inside:
                    current.add(("\n", _closing(fence), "reclose"))
                flush()
                start = [("\n", fence, "reopen" if inside else "open")]
            for opening in start:
                current.add(opening)
            current.add((separator, unit, kind))
            continue
        elif kind == "close":
            fence = None
            current.add((separator, unit, kind))
            continue
        if current.units and not fits((separator, unit, kind)):
            flush()
        current.add((separator, unit, kind))
    flush()
    pieces = [piece for piece in pieces if _text(piece).strip()]
    i = 0
    while i < len(pieces):
        if is_junk(_text(pieces[i])):  # the piece before it first, else the one after it
            if i > 0 and (joined := _rejoined(pieces[i - 1], pieces[i], max_chars, scrap_last=True)):
                pieces[i - 1 : i + 1] = joined
                continue
            if i + 1 < len(pieces) and (joined := _rejoined(pieces[i], pieces[i + 1], max_chars, scrap_last=False)):
                pieces[i : i + 2] = joined
        i += 1
    return [_text(piece).rstrip() for piece in pieces]


class _Piece:
    """The units being packed into one piece, and the length of their text (``_text``) kept as they come: a long
    paragraph asks after each unit whether the next one fits."""

    __slots__ = ("units", "size")

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.size = 0

    def add(self, unit: Unit) -> None:
        self.size = self.size_with((unit,))
        self.units.append(unit)

    def size_with(self, more: Sequence[Unit]) -> int:
        size, first = self.size, not self.units
        for separator, text, _ in more:
            size += len(text) + (0 if first else len(separator))
            first = False
        return size


def _text(units: list[Unit]) -> str:
    return "".join(f"{separator}{unit}" if n else unit for n, (separator, unit, _) in enumerate(units))


def _rejoined(first: list[Unit], second: list[Unit], max_chars: int, scrap_last: bool) -> list[list[Unit]]:
    """Two neighbouring pieces, one a scrap (the second when ``scrap_last``, else the first): joined when both fit
    (without the fence lines a cut between them added), else the scrap given its neighbour's prose beside it, a
    unit at a time, until neither is a scrap; empty when neither works within ``max_chars``."""
    other = first if scrap_last else second
    if first[-1][2] == "reclose" and second[0][2] == "reopen":
        joined = first[:-1] + second[1:]
    else:
        joined = first + second
    if len(_text(joined)) <= max_chars:
        return [joined]
    for moved in range(1, len(other)):
        if scrap_last:
            giver, given, taker = other[:-moved], other[-moved:], other[-moved:] + second
        else:
            giver, given, taker = other[moved:], other[:moved], first + other[:moved]
        if any(kind != "prose" for _, _, kind in given) or len(_text(taker)) > max_chars:
            break
        if not is_junk(_text(taker)) and not is_junk(_text(giver)):
            return [giver, taker] if scrap_last else [taker, giver]
    return []


def embed_text_for(title: str, headings: list[str], text: str) -> str:
    """What the model sees for a passage: title and heading path as context, then the words."""
    path = list(headings)
    if path and path[0].strip().lower() == title.strip().lower():
        path = path[1:]
    return f"{' > '.join([title] + path)}\n\n{words_of_links(text)}"


def chunk_note(title: str, body: str, max_chars: int = 900) -> list[Chunk]:
    """The passages of a note body (frontmatter already removed), in reading order."""
    paragraphs = _merge_junk(
        _merge_short(_join_steps(_place_link_lists(_attach_metadata_only(_paragraphs(visible_text(body))))))
    )
    chunks: list[Chunk] = []
    used_keys: set[str] = set()
    per_section: dict[str, int] = {}

    def unique(key: str) -> str:
        candidate, n = key, 2
        while candidate in used_keys:
            candidate, n = f"{key}-{n}", n + 1
        used_keys.add(candidate)
        return candidate

    for para in paragraphs:
        heading_path = " > ".join(para.headings)
        if para.block_ids:
            base = para.block_ids[0]
        else:
            section = slugify(para.headings[-1]) if para.headings else "top"
            count = per_section.get(section, 0) + 1
            per_section[section] = count
            base = section if count == 1 else f"{section}-{count}"
        pieces = _split_long(para.text, max_chars)
        for piece_no, piece in enumerate(pieces, start=1):
            key = unique(base if piece_no == 1 else f"{base}.{piece_no}")
            embed_text = embed_text_for(title, para.headings, piece)
            chunks.append(
                Chunk(
                    key=key,
                    heading=heading_path,
                    text=piece,
                    embed_text=embed_text,
                    hash=sha256_text(embed_text),
                    ordinal=len(chunks),
                    block_ids=list(para.block_ids) if piece_no == 1 else [],
                )
            )
    return chunks
