"""``smartvec changes --since DATE``: what the vault's passages did in a window of time."""

from __future__ import annotations

from typing import Optional

import typer

from ..core.results import AddedPassage, ContradictedPassage, EndedPassage, PassageVersionRef
from .app import app, open_vault
from .output import JsonOutput, print_json, stdout_console
from .printing import printable, snippet_lines


@app.command("changes")
def changes_command(
    ctx: typer.Context,
    since: str = typer.Option(
        ...,
        "--since",
        metavar="DATE",
        help="From this day on (an ISO date or words such as 'March 2024', 'last week').",
    ),
    until: Optional[str] = typer.Option(
        None, "--until", metavar="DATE", help="Up to the end of this day (read like --since); default: now."
    ),
    as_json: JsonOutput = False,
) -> None:
    """The passages added, replaced, expired or contradicted in a window of time, with what replaced what."""
    with open_vault(ctx) as vault:
        data = vault.changes(since, until)
    if as_json:
        print_json(data.to_dict())
        return
    console = stdout_console()
    lists = {"added": data.added, "replaced": data.replaced, "expired": data.expired, "contradicted": data.contradicted}
    counts = ", ".join(f"{len(items)} {kind}" for kind, items in lists.items())
    console.print(f"from {data.since[:10]} to before {data.until[:16]}: {counts}", markup=False)
    for item in data.added:
        was = f" (replaces v{item.replaces.version})" if item.replaces else ""
        _item(console, "added", item, f"{item.chunk_id} v{item.version}{was}")
    for ended in data.replaced:
        by = ended.by
        target = (
            f" by v{by.version}" if isinstance(by, PassageVersionRef) else f" by {printable(by.path)}" if by else ""
        )
        _item(console, ended.how, ended, f"{ended.chunk_id} v{ended.version}{target}")
    for expired in data.expired:
        _item(console, "expired", expired, f"{expired.chunk_id} v{expired.version}")
    for found in data.contradicted:
        _item(console, "contradicted", found, f"{found.chunk_id} v{found.version} by {printable(found.by.path)}")


def _item(console, what: str, item: AddedPassage | EndedPassage | ContradictedPassage, detail: str) -> None:
    console.print(f"{item.at[:10]}  {what:<12} {printable(item.path)}: {printable(detail)}", markup=False)
    for line in snippet_lines(item.text)[:2]:
        console.print(f"              {line}", markup=False)
