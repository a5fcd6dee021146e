"""``smartvec status``: what the index holds."""

from __future__ import annotations

import typer

from .app import app, open_vault
from .output import JsonOutput, print_json, printable, stdout_console


@app.command("status")
def status_command(ctx: typer.Context, as_json: JsonOutput = False) -> None:
    """Counts of notes and passages by state, the model, and the last run."""
    with open_vault(ctx) as vault:
        data = vault.status()
    if as_json:
        print_json(data.to_dict())
        return
    console = stdout_console()
    console.print(f"vault      {printable(data.vault)}", markup=False)
    console.print(f"index      {printable(data.index_dir)}", markup=False)
    console.print(f"model      {data.model or '(none yet)'}", markup=False)
    embedder = data.embedder
    chosen = "set in config.toml" if embedder.chosen_by == "config.toml" else "chosen by the notes' languages"
    console.print(
        f"languages  {', '.join(embedder.languages)} (model {embedder.model or 'not chosen yet'}, {chosen})",
        markup=False,
    )
    console.print(f"onnx       {data.onnx_export or '(none)'}", markup=False)
    kept_passages = data.passages_of_deleted_notes
    kept = f", {kept_passages} of their passages kept as history" if kept_passages else ""
    console.print(f"notes      {data.notes} ({data.notes_deleted} deleted{kept})", markup=False)
    kinds = data.kinds
    console.print(
        f"kinds      {kinds.declared} declared, {kinds.inferred} inferred, {kinds.unknown} unknown", markup=False
    )
    if data.trust_warning:
        console.print(f"warning    {printable(data.trust_warning)}", markup=False)
    states = ", ".join(f"{k.lower()} {v}" for k, v in data.passages.items() if v)
    console.print(f"passages   {states or 'none'}", markup=False)
    if data.passages["UNCONSOLIDATED"]:
        console.print(
            "next       run 'smartvec consolidate': unconsolidated passages have no relations, contradictions "
            "or supersession yet",
            markup=False,
        )
    ann = data.ann
    console.print(
        f"ann        {ann.live} live, {ann.tombstones} tombstones{'' if ann.in_sync else ' (catching up)'}",
        markup=False,
    )
    if data.notes_with_problems:
        count = data.notes_with_problems
        console.print(
            f"problems   {count} note{'s' if count != 1 else ''} skipped or read without metadata ('smartvec doctor' "
            "lists them)",
            markup=False,
        )
    if data.left_out:
        reasons = ", ".join(f"{why} {count}" for why, count in data.left_out.items())
        total = sum(data.left_out.values())
        console.print(f"left out   {total} note{'s' if total != 1 else ''}: {reasons}", markup=False)
    for review in data.needs_review:
        console.print(f"review     {printable(review.path)}: {printable(review.reason)}", markup=False)
    if data.last_run:
        run = data.last_run
        why = f": {run.why}" if run.why else ""
        console.print(
            printable(f"last run   {run.command} at {run.finished_at or run.started_at} ({run.status}{why})"),
            markup=False,
        )
