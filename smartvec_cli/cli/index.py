"""``smartvec index``: encode what changed in the vault."""

from __future__ import annotations

from typing import List, Optional

import typer

from ..core.results import GitImportReport, IndexRun
from ..errors import EXIT_PARTIAL
from .app import app, open_vault
from .lock import wait_option
from .output import JsonOutput, QuietOutput, message, print_json, printable, progress_bar, result, stderr_is_terminal


@app.command("index")
def index_command(
    ctx: typer.Context,
    full: bool = typer.Option(
        False, "--full", help="Re-read every note and re-embed every passage (after a model change)."
    ),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", help="Glob of vault paths to skip (repeatable), on top of config.toml."
    ),
    from_git: bool = typer.Option(
        False,
        "--from-git",
        help="Replay the vault's git commits since the last import, each at its commit date (the working tree is not "
        "read).",
    ),
    max_commits: Optional[int] = typer.Option(
        None,
        "--max-commits",
        min=1,
        help="With --from-git: replay only the oldest N commits not yet imported (the next import goes on from there).",
    ),
    as_json: JsonOutput = False,
    quiet: QuietOutput = False,
    wait: float = wait_option(),
) -> None:
    """Scan the vault and embed new or changed passages; unchanged notes are not even read."""
    with (
        open_vault(ctx, wait) as vault,
        progress_bar("git history" if from_git else "embedding", quiet, first_at_once=from_git) as progress,
    ):
        data = vault.index(
            full=full, exclude=exclude or (), progress=progress, from_git=from_git, max_commits=max_commits
        )
    if as_json:
        print_json(data.to_dict())
    elif not quiet and isinstance(data, GitImportReport):
        result(import_line(data))
    elif not quiet:
        result(
            f"{data.notes_scanned} notes: {data.notes_new} new, {data.notes_changed} changed, "
            f"{data.notes_unchanged} unchanged, {data.notes_deleted} deleted, {data.notes_renamed} renamed; "
            f"{passage_counts(data)}; {data.seconds:.2f}s"
        )
        if data.notes_to_consolidate and stderr_is_terminal():
            message(next_step(data.notes_to_consolidate))
    for problem in data.errors:
        where = f" (commit {problem['commit']})" if "commit" in problem else ""
        message(f"warning: {printable(problem['path'])}{where}: {problem['error']}")
    for problem in data.past_errors if isinstance(data, GitImportReport) else ():  # versions a later commit replaced
        message(
            f"warning: {printable(problem['path'])} (commit {problem['commit']}, replaced by a later commit): "
            f"{problem['error']}"
        )
    if data.errors:
        raise typer.Exit(EXIT_PARTIAL)


def passage_counts(data: IndexRun) -> str:
    """``219 passages embedded, 12 passages reused, 240 passages stored in all``: what the run embedded, what it
    found already embedded (same text, vector kept), and every passage version the index holds, as ``status``
    counts them ("in all": the unchanged notes' passages and the archived versions too, which the run did not
    read, so the first two do not add up to it)."""
    return (
        f"{data.passages_embedded} passages embedded, {data.passages_reused} passages reused, "
        f"{data.passages_stored} passages stored in all"
    )


def import_line(data: GitImportReport) -> str:
    """The summary of ``index --from-git``: ``7 commits read (6 replayed, 1 changed no note), 2021-01-01 to
    2021-07-01: 3 notes added, 3 edits, 1 deletion, 1 rename; 9 passages written: 8 embedded, 1 reused from an
    earlier commit; 9 passages stored in all; 0.65s``. The changes to notes are counted per commit (a note edited in
    three commits is three edits); the passages written (new versions, and passages whose title or heading changed)
    once each, each embedded or reused, so the two add up to them; "in all" is every passage version the index
    holds, as ``status`` counts them."""
    period = f", {data.first_date[:10]} to {(data.last_date or '')[:10]}" if data.first_date else ""
    left = f"; {data.commits_left} commits left (run it again to go on)" if data.commits_left else ""
    return (
        f"{plural(data.commits_read, 'commit')} read ({data.commits_replayed} replayed, "
        f"{data.commits_without_notes} changed no note){period}: {plural(data.notes_new, 'note')} added, "
        f"{plural(data.notes_changed, 'edit')}, {plural(data.notes_deleted, 'deletion')}, "
        f"{plural(data.notes_renamed, 'rename')}; {plural(data.passages_written, 'passage')} written: "
        f"{data.passages_embedded} embedded, {data.passages_reused} reused from an earlier commit; "
        f"{data.passages_stored} passages stored in all; {data.seconds:.2f}s{left}"
    )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def next_step(notes: int) -> str:
    """What to run after an ``index`` on a terminal: until ``consolidate``, new passages have no relations,
    contradictions or supersession, so rankings differ from what they will be."""
    return (
        f"next: run 'smartvec consolidate' ({notes} note{'s' if notes != 1 else ''} not consolidated yet: until then "
        "relations, contradictions and supersession leave them out; 'watch' and 'refresh --nightly' consolidate for "
        "you)"
    )
