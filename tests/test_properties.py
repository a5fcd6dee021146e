"""Property-based tests: the parser and chunker on random markdown, frontmatter and unicode.

What the chunker promises, and what is checked here on every example:

- it never raises, whatever the text (RTL, emoji, NUL bytes, CRLF, a BOM, broken or hostile
  frontmatter, unclosed fences, stray markup);
- passage text and embedded text never contain an aclarai comment;
- content is preserved: every non-whitespace character of the note body, except heading lines,
  aclarai comments, ``^block`` anchors, what a reader never sees (closed HTML and ``%%`` comments
  outside code), navigation rows and lone closing tags (``is_page_chrome``) and lines of link-only lists
  (``is_link_item``, which may be left out), appears in the passage texts, in order, and nothing
  else does (only whitespace may change, where a long paragraph is cut or lines are joined);
  a heading with more than a scrap of text under it is carried in the ``heading`` path of that text's passages;
  where a code block is cut, its fence is closed and opened again, and those fence lines are all that is added;
- passages fit the model window (``max_chars``), keys are unique, each hash is that of its
  embedded text;
- passage ids are stable under unrelated edits: after inserting, deleting or rewriting one
  paragraph, or changing the frontmatter, every other passage keeps its id (as the indexer
  matches them, ``align_chunks``).
"""

import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from smartvec_cli.vault.align import StoredChunk, align_chunks
from smartvec_cli.vault.chunk import is_junk, is_link_item, is_page_chrome
from smartvec_cli.vault.hashing import sha256_text
from smartvec_cli.vault.markdown import ACLARAI_COMMENT, ANCHOR_LINE, FENCE, HEADING, TRAILING_ANCHOR
from smartvec_cli.vault.parse import normalise_text, parse_note

PROPERTIES = settings(
    max_examples=int(__import__("os").environ.get("PROPERTY_EXAMPLES", 200)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# -- strategies -------------------------------------------------------------------------------

SCRIPTS = st.sampled_from(
    [
        "hello",
        "world",
        "שלום",
        "עולם",
        "مرحبا",
        "بالعالم",
        "東京",
        "🙂",
        "👩‍💻",
        "e\u0301",
        "\u200f",
        "\u202e",
        "café",
        "Ωμέγα",
    ]
)
MARKUP = st.sampled_from(
    [
        "#",
        "##",
        "###",
        "# ",
        "#tag",
        "[[",
        "]]",
        "[[Note]]",
        "[[Note|alias]]",
        "[[Note#Part]]",
        "[[Note#^blk]]",
        "![[img.png]]",
        "^blk-1",
        " ^anchor",
        "<!--",
        "-->",
        "<!-- aclarai:",
        "<!-- aclarai:id=blk_1 ver=2 -->",
        "<!-- aclarai:id=concept_x -->",
        "```",
        "~~~",
        "`code`",
        "---",
        "+++",
        ":",
        ".",
        "!",
        "?",
        "*",
        "-",
        "|",
        ">",
        "C#",
        "\\",
        "%%",
        "<!-- hidden -->",
        "[Docs](docs.md)",
        "<https://example.org>",
        "/",
        "»",
        "</div>",
        '<figure class="x">',
    ]
)
ODD = st.sampled_from(["\x00", "\ufeff", "\r\n", "\r", "\t", "\u2028", "\x0b", "\x0c", "  ", "\n", "\n\n"])
TOKEN = st.one_of(SCRIPTS, MARKUP, ODD, st.text(min_size=1, max_size=6))


@st.composite
def lines(draw):
    kind = draw(st.sampled_from(["text", "text", "heading", "fence", "comment", "anchor", "blank"]))
    words = " ".join(draw(st.lists(TOKEN, min_size=1, max_size=12)))
    if kind == "heading":
        return "#" * draw(st.integers(1, 7)) + draw(st.sampled_from([" ", "\t", ""])) + words
    if kind == "fence":
        return draw(st.sampled_from(["```", "~~~", "```python", "  ```"]))
    if kind == "comment":
        return (
            f"<!-- aclarai:id={draw(st.sampled_from(['blk_a', 'clm_b', 'concept_c']))} "
            f"ver={draw(st.integers(0, 9))} -->"
        )
    if kind == "anchor":
        return f"^{draw(st.from_regex(r'[A-Za-z0-9][A-Za-z0-9_-]{0,8}', fullmatch=True))}"
    if kind == "blank":
        return ""
    return words


FRONTMATTER = st.sampled_from(
    [
        "",
        "---\ntitle: A title\ntags: [a, b]\n---\n",
        "---\ntitle: [unclosed\n---\n",
        "---\n- a list\n---\n",
        "---\na: &x [*x]\n---\n",
        "---\nvalid_from: not a date\nauthority: high\nsupersedes: [[Other]]\n---\n",
        "+++\ntitle = 'toml'\n+++\n",
        "---\n---\n",
        "---\ntitle: no end\n",
        "\ufeff---\ntitle: bom\n---\n",
    ]
)


@st.composite
def notes(draw):
    body = "\n".join(draw(st.lists(lines(), max_size=25)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return (draw(FRONTMATTER) + body).replace("\n", newline)


# -- what the chunker promises -------------------------------------------------------------------


def strip_comments(text: str) -> str:
    while ACLARAI_COMMENT.search(text):
        text = ACLARAI_COMMENT.sub("", text)
    return text


ACLARAI_OPENING = re.compile(r"<!--\s*aclarai:")
HIDDEN_MARK = "\x00"


def without_hidden_comments(prose: str) -> str:
    """Closed HTML and ``%%`` comments replaced by a mark, by a scan from left to right (written apart
    from the chunker's pattern, to check it): inline code is kept as it is; an HTML comment holds no other
    ``<!--``, a ``%%`` comment no aclarai comment, and aclarai's own comments are not hidden ones."""
    out, i = [], 0
    while i < len(prose):
        if prose[i] == "`":
            end = prose.find("`", i + 1)
            if end != -1 and "\n" not in prose[i:end]:
                out.append(prose[i : end + 1])
                i = end + 1
                continue
        if prose.startswith("<!--", i) and not ACLARAI_OPENING.match(prose, i):
            end = prose.find("-->", i + 4)
            if end != -1 and "<!--" not in prose[i + 4 : end + 3]:
                out.append(HIDDEN_MARK)
                i = end + 3
                continue
        if prose.startswith("%%", i):
            end = prose.find("%%", i + 2)
            opening = ACLARAI_OPENING.search(prose, i + 2)
            if end != -1 and (opening is None or opening.start() >= end):
                out.append(HIDDEN_MARK)
                i = end + 2
                continue
        out.append(prose[i])
        i += 1
    return "".join(out)


def visible_lines(body: str) -> list[str]:
    """The body's lines without hidden comments, the lines they alone filled, and page chrome."""
    kept, prose, in_fence = [], [], False

    def flush():
        for line in without_hidden_comments("\n".join(prose)).split("\n") if prose else []:
            if HIDDEN_MARK in line and not line.replace(HIDDEN_MARK, "").strip():
                continue
            line = line.replace(HIDDEN_MARK, "")
            if not is_page_chrome(line):
                kept.append(line)
        prose.clear()

    for line in body.split("\n"):
        if FENCE.match(line) or in_fence:
            flush()
            in_fence = in_fence != bool(FENCE.match(line))
            kept.append(line)
        else:
            prose.append(line)
    flush()
    return kept


def content_outside_headings(body: str) -> tuple[list[tuple[str, bool, str | None]], list[tuple[str, bool]]]:
    """([(non-whitespace characters of a line passages must hold, whether they may be left out as a link-only
    list item, for a line of code the fence lines a cut inside its block adds)], [(heading, has more than a
    scrap of text under it)]), by the syntax alone."""
    kept: list[tuple[str, bool, str | None]] = []
    headings: list[str] = []
    under, in_fence, opening = [""], False, ""
    for line in visible_lines(body):
        if FENCE.match(line):
            in_fence = not in_fence
            opening = line
            kept.append((squeeze(strip_comments(line)), False, None))
            under[-1] += strip_comments(line)
            continue
        if in_fence:
            mark = re.match(r"\s*(`{3,}|~{3,})", opening)
            kept.append((squeeze(strip_comments(line)), False, (mark.group(1) if mark else "") + squeeze(opening)))
            under[-1] += strip_comments(line)
            continue
        heading = HEADING.match(line)
        if heading:
            headings.append(strip_comments(heading.group(2)).strip())
            under.append("")
            continue
        line = strip_comments(line)
        if ANCHOR_LINE.match(line):
            continue
        trailing = TRAILING_ANCHOR.search(line)
        if trailing:
            line = line[: trailing.start()]
        if line.strip():
            optional = is_link_item(line.rstrip())
            kept.append((squeeze(line), optional, None))
            if not optional:
                under[-1] += line
    return [k for k in kept if k[0] or k[2]], [
        (h, not is_junk(text)) for h, text in zip(headings, under[1:], strict=True)
    ]


def holds_in_order(passages: str, lines: list[tuple[str, bool, str | None]]) -> bool:
    """Whether ``passages`` is exactly the lines in order, some of the optional ones left out, and where a code
    block was cut (between its lines, or inside a line too long for a passage), its fence closed and opened
    again there (and only there: after a line of code, before another of the same block)."""
    pattern = []
    for n, (text, optional, reopened) in enumerate(lines):
        if reopened is None:
            pattern.append(f"(?:{re.escape(text)})?" if optional else re.escape(text))
            continue
        cut = f"(?:{re.escape(reopened)})?"
        after_code = n > 0 and lines[n - 1][2] == reopened
        pattern.append((cut if after_code else "") + cut.join(re.escape(ch) for ch in text))
    return re.fullmatch("".join(pattern), passages, re.DOTALL) is not None


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@PROPERTIES
@given(notes(), st.sampled_from([60, 200, 900]))
def test_parsing_never_fails_and_keeps_every_character(raw, max_chars):
    note = parse_note(raw, "odd/note.md", max_chars=max_chars)
    chunks = note.chunks
    assert "\x00" not in note.body and "\r" not in note.body and not note.body.startswith("\ufeff")
    for chunk in chunks:
        assert not ACLARAI_COMMENT.search(chunk.text) and not ACLARAI_COMMENT.search(chunk.embed_text)
        assert 0 < len(chunk.text) <= max_chars
        assert chunk.hash == sha256_text(chunk.embed_text)
    assert len({c.key for c in chunks}) == len(chunks)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))

    expected, headings = content_outside_headings(note.body)
    assert holds_in_order(squeeze("".join(c.text for c in chunks)), expected), (
        squeeze("".join(c.text for c in chunks)),
        expected,
    )
    for heading, has_text in headings:
        if has_text and heading:
            assert any(heading in c.heading for c in chunks), heading


@PROPERTIES
@given(st.binary(max_size=300))
def test_any_bytes_that_decode_parse(data):
    text = data.decode("utf-8", errors="replace")
    parse_note(text, "bytes.md")
    assert normalise_text(text).count("\r") == 0


# -- ids under unrelated edits ------------------------------------------------------------------

WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzабвгдежзиклмнאבגדהוזחטיכלמ", min_size=2, max_size=9),
    min_size=4,
    max_size=40,
)


@st.composite
def documents(draw):
    """Sections of substantial paragraphs (never a scrap, which joins a neighbour); each carries a unique word, so no
    two are equal."""
    counter = iter(range(10_000))
    sections = []
    for s in range(draw(st.integers(1, 4))):
        heading = draw(st.sampled_from(["Intro", "Details", "Notes", "Rules", "Notes"]))
        paragraphs = [
            f"uniq{next(counter)} paragraph " + " ".join(draw(WORDS)) + "." for _ in range(draw(st.integers(1, 4)))
        ]
        sections.append([f"{heading} {s}" if draw(st.booleans()) else heading, paragraphs])
    return sections, counter


def render(sections, frontmatter="title: Fixed title\n") -> str:
    parts = [f"---\n{frontmatter}---\n"]
    for heading, paragraphs in sections:
        parts.append(f"## {heading}\n")
        parts.extend(p + "\n" for p in paragraphs)
    return "\n".join(parts)


@PROPERTIES
@given(documents(), st.data())
def test_passage_ids_survive_unrelated_edits(document, data):
    sections, counter = document
    before = parse_note(render(sections), "doc.md", max_chars=120).chunks
    edit = data.draw(st.sampled_from(["insert", "delete", "rewrite", "frontmatter", "new section"]))
    s = data.draw(st.integers(0, len(sections) - 1))
    paragraphs = sections[s][1]
    touched = None
    frontmatter = "title: Fixed title\n"
    if edit == "insert":
        paragraphs.insert(
            data.draw(st.integers(0, len(paragraphs))),
            f"uniq{next(counter)} paragraph " + " ".join(data.draw(WORDS)) + ".",
        )
    elif edit == "delete":
        assume(len(paragraphs) > 1)
        touched = paragraphs.pop(data.draw(st.integers(0, len(paragraphs) - 1)))
    elif edit == "rewrite":
        k = data.draw(st.integers(0, len(paragraphs) - 1))
        touched = paragraphs[k]
        paragraphs[k] = f"uniq{next(counter)} paragraph " + " ".join(data.draw(WORDS)) + "."
    elif edit == "frontmatter":
        frontmatter += "tags: [changed]\nauthor: someone\n"
    else:
        sections.insert(s, [f"Inserted {s}", [f"uniq{next(counter)} paragraph " + " ".join(data.draw(WORDS)) + "."]])
    after = parse_note(render(sections, frontmatter), "doc.md", max_chars=120).chunks

    stored = [StoredChunk(i, c.key, c.hash, 1) for i, c in enumerate(before)]
    plan = align_chunks(stored, after)
    kept = {old.id: new.key for old, new in plan.keep}
    for i, chunk in enumerate(before):
        if touched is None or squeeze(chunk.text) not in squeeze(touched):
            assert kept.get(i) == chunk.key, (edit, chunk.key, chunk.text[:40])
