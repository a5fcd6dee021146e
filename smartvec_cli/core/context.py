"""An answer as a block of text to paste into a prompt (``query --context``, the MCP ``context`` tool).

Each passage comes with what a model needs to use it honestly: where it is (the note's path and heading, its
``chunk_id`` for feedback), when it holds (its validity window), how far to trust it (the hit's confidence) and
its warnings (superseded, contradicted, expired, corrected), then its text. Plain text, no markup that a model
could read as instructions: the notes' own text is set apart by its indentation. Control characters in the
notes (an escape sequence, a carriage return) are written as escapes (``\\x1b``), as every human output does
(``cli.printing.printable``): the block is printed on a terminal by ``query --context``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

UNPRINTABLE = ("Cc", "Zl", "Zp")  # as ``cli.printing.UNPRINTABLE`` (which this layer may not import)


def context_block(question: str, answer: Mapping[str, Any], mode: str = "smart") -> str:
    """The hits of ``answer`` (``QueryAnswer.to_dict()``) as one prompt-ready block, best first."""
    moment = answer.get("as_of")
    when = f"as of {moment[:10]}" if moment else "as of now"
    if answer.get("as_of_phrase") and moment:
        when += f" (from {answer['as_of_phrase']!r} in the question)"
    hits = answer.get("hits") or []
    lines = [f"Passages from the notes for: {_inert(question.strip())} ({when}; {len(hits)} found, best first)"]
    if not hits:
        lines.append("No passage answers this question.")
    for hit in hits:
        where = _inert(hit["path"]) + (f" > {_inert(hit['heading'])}" if hit.get("heading") else "")
        window = f"{_day(hit.get('valid_from'), 'always')} to {_day(hit.get('valid_until'), 'open')}"
        confidence = hit.get("confidence")  # None in a baseline mode, whose score is all it has
        measure = f"confidence {confidence:.0%}" if confidence is not None else f"{mode} score {hit['score']:.2f}"
        lines.append("")
        lines.append(f"[{hit['rank']}] {where}")
        lines.append(f"    id: {hit['chunk_id']} (version {hit['version']}, {hit['state'].lower()})")
        lines.append(f"    valid: {window}; {measure}")
        lines.append("    warnings: " + (_inert("; ".join(hit.get("warnings") or ())) or "none"))
        lines.extend("    | " + _inert(line) for line in _text_lines(str(hit["text"])))
    return "\n".join(lines) + "\n"


def _day(value: str | None, unknown: str) -> str:
    return value[:10] if value else unknown


def _text_lines(text: str) -> list[str]:
    """The lines of a passage as ``str.splitlines`` gives them, but split only at line feeds: a carriage return or
    a form feed inside a line is shown as an escape, not obeyed."""
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _inert(text: str) -> str:
    """``text`` with its control characters (and line or paragraph separators) written as escapes: one line."""
    if all(unicodedata.category(ch) not in UNPRINTABLE for ch in text):
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in UNPRINTABLE else ch for ch in text)


def _escape(ch: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in named:
        return named[ch]
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
