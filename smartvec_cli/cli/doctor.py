"""``smartvec doctor``: check the index folder, and with ``--repair`` put right what can be put right."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .app import app, open_vault
from .lock import wait_option
from .output import JsonOutput, message, print_json, printable, stdout_console

if TYPE_CHECKING:
    from ..core.results import DoctorReport

MARKS = {"fail": "FAIL", "fixed": "fixed", "warn": "warn", "note": "note", "ok": "ok"}


@app.command("doctor")
def doctor_command(
    ctx: typer.Context,
    repair: bool = typer.Option(
        False, "--repair", help="Repair what can be repaired without re-embedding (takes the writer lock)."
    ),
    as_json: JsonOutput = False,
    wait: float = wait_option(),
) -> None:
    """Check SQLite, the vector index, the model, orphans and locks; exit 1 while problems remain."""
    with open_vault(ctx, wait) as vault:
        report = vault.doctor(repair=repair)
    if as_json:
        print_json(report.to_dict())
    else:
        print_report(report)
    if report.ok:
        return
    advice = " (run 'smartvec doctor --repair')" if report.repairable and not repair else ""
    problems = report.problems
    message(f"error: {problems} problem{'s' if problems != 1 else ''} found{advice}")
    raise typer.Exit(1)


def print_report(report: DoctorReport) -> None:
    """The findings by kind (``core.results.DOCTOR_KINDS``), worst group and worst finding first; the notes to fix in
    the vault under the ``notes`` line that counts them."""
    console = stdout_console()
    width = max(len(c.name) for c in report.checks)
    for i, (kind, checks) in enumerate(report.grouped()):
        console.print(("\n" if i else "") + kind, markup=False)
        for check in checks:
            console.print(
                f"  {MARKS[check.severity]:<6} {check.name:<{width}}  {printable(check.detail)}", markup=False
            )
            if check.name == "notes":
                for problem in report.note_problems:
                    console.print(
                        f"  {'':<6} {'':<{width}}  {printable(problem['path'])}: {problem['error']}", markup=False
                    )
