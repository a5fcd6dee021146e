"""``smartvec show NOTE``: what the index knows about one note."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import typer

from .app import app, open_vault
from .output import JsonOutput, one_line, print_json, print_rows, printable, stdout_console, window_day

if TYPE_CHECKING:
    from ..core.results import NoteKind, NoteLink


@app.command("show")
def show_command(
    ctx: typer.Context,
    note: str = typer.Argument(..., help="Path (with or without .md), note id, file name or title."),
    as_json: JsonOutput = False,
) -> None:
    """Hashes, dates, links and passages (with their states) of one note."""
    with open_vault(ctx) as vault:
        data = vault.show(note)
    if as_json:
        print_json(data.to_dict())
        return
    console = stdout_console()
    for key in ("note_id", "path", "title", "embedding_hash", "last_updated", "version", "encoding"):
        value = getattr(data, key)
        if value is not None:
            console.print(f"{key:<15}{printable(value)}", markup=False)
    for former in data.former_names:
        console.print(f"{'was':<15}{printable(former.path)} until {(former.until or '')[:10]}", markup=False)
    if data.deleted_at:
        console.print(f"{'deleted':<15}{data.deleted_at[:10]}", markup=False)
    console.print(f"{'kind':<15}{printable(kind_line(data.kind))}", markup=False)
    if data.tags:
        console.print(f"{'tags':<15}{printable(', '.join(data.tags))}", markup=False)
    for (kind, target, resolved, reason), count in link_lines(data.links).items():
        times = f" (x{count})" if count > 1 else ""
        why = f": {reason}" if reason else ""
        console.print(
            f"{kind:<15}{printable(target)} -> {printable(resolved or '(unresolved)')}{times}{printable(why)}",
            markup=False,
        )
    print_rows(
        console,
        PASSAGE_COLUMNS,
        [
            (
                p.chunk_id,
                p.version,
                p.state,
                window_day(p.valid_from, "always"),
                window_day(p.valid_until, "open"),
                one_line(p.text, 80),
            )
            for p in data.passages
        ],
    )


PASSAGE_COLUMNS = ("passage", "v", "state", "valid from", "valid until", "text")
"""``show``'s table; ``history``'s has the same columns, with ``replaced by`` before the text."""


def kind_line(kind: NoteKind) -> str:
    """``chat (inferred: folder "Slack")``, ``policy (declared)``, or ``unknown`` with how to give one."""
    if not kind.type:
        return "unknown (no source_type, and no kind rule matched)"
    if kind.source == "inferred":
        return f"{kind.type} (inferred: {kind.reason or 'a kind rule'})"
    return f"{kind.type} ({kind.source or 'declared'})"


def link_lines(links: Sequence[NoteLink]) -> dict[tuple, int]:
    """Each link once, with how often the note makes it (every ``[[mention]]`` is stored as an edge)."""
    counted: dict[tuple, int] = {}
    for link in links:
        key = (link.type, link.target, link.resolved, link.reason)
        counted[key] = counted.get(key, 0) + 1
    return counted
