"""An answer as a block of text to paste into a prompt (``query --context``, the MCP ``context`` tool).

Each passage comes with what a model needs to use it honestly: where it is (the note's path and heading, its
``chunk_id`` for feedback), when it holds (its validity window), how far to trust it (the hit's confidence) and
its warnings (superseded, contradicted, expired, corrected), then its text. Plain text, no markup that a model
could read as instructions: the notes' own text is set apart by its indentation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def context_block(question: str, answer: Mapping[str, Any], mode: str = "smart") -> str:
    """The hits of ``answer`` (``QueryAnswer.to_dict()``) as one prompt-ready block, best first."""
    moment = answer.get("as_of")
    when = f"as of {moment[:10]}" if moment else "as of now"
    if answer.get("as_of_phrase") and moment:
        when += f" (from {answer['as_of_phrase']!r} in the question)"
    hits = answer.get("hits") or []
    lines = [f"Passages from the notes for: {question.strip()} ({when}; {len(hits)} found, best first)"]
    if not hits:
        lines.append("No passage answers this question.")
    for hit in hits:
        where = hit["path"] + (f" > {hit['heading']}" if hit.get("heading") else "")
        window = f"{_day(hit.get('valid_from'), 'always')} to {_day(hit.get('valid_until'), 'open')}"
        measure = f"confidence {hit['confidence']:.0%}" if mode == "smart" else f"{mode} score {hit['confidence']:.2f}"
        lines.append("")
        lines.append(f"[{hit['rank']}] {where}")
        lines.append(f"    id: {hit['chunk_id']} (version {hit['version']}, {hit['state'].lower()})")
        lines.append(f"    valid: {window}; {measure}")
        lines.append("    warnings: " + ("; ".join(hit.get("warnings") or ()) or "none"))
        lines.extend("    | " + line for line in str(hit["text"]).splitlines() or [""])
    return "\n".join(lines) + "\n"


def _day(value: str | None, unknown: str) -> str:
    return value[:10] if value else unknown
