"""``smartvec changes --since DATE``: what the vault's passages did in a window of time."""

from __future__ import annotations

from typing import Optional

import typer

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
        print_json(data)
        return
    console = stdout_console()
    counts = ", ".join(f"{len(data[kind])} {kind}" for kind in ("added", "replaced", "expired", "contradicted"))
    console.print(f"from {data['since'][:10]} to before {data['until'][:16]}: {counts}", markup=False)
    for item in data["added"]:
        was = f" (replaces v{item['replaces']['version']})" if item["replaces"] else ""
        _item(console, "added", item, f"{item['chunk_id']} v{item['version']}{was}")
    for item in data["replaced"]:
        by = item["by"] or {}
        target = f" by v{by['version']}" if "version" in by else f" by {printable(by['path'])}" if "path" in by else ""
        _item(console, item["how"], item, f"{item['chunk_id']} v{item['version']}{target}")
    for item in data["expired"]:
        _item(console, "expired", item, f"{item['chunk_id']} v{item['version']}")
    for item in data["contradicted"]:
        _item(
            console, "contradicted", item, f"{item['chunk_id']} v{item['version']} by {printable(item['by']['path'])}"
        )


def _item(console, what: str, item: dict, detail: str) -> None:
    console.print(f"{item['at'][:10]}  {what:<12} {printable(item['path'])}: {printable(detail)}", markup=False)
    for line in snippet_lines(item["text"])[:2]:
        console.print(f"              {line}", markup=False)
