"""The Typer application, its global options, and the one place errors become exit codes
(``session.report_failure``: 0 ok, 1 error with one line on stderr, 2 usage error, 130 interrupted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import click
import typer
from typer.core import TyperGroup

from .session import open_session, report_failure


class SmartvecGroup(TyperGroup):
    """Turns every failure into one clear line on stderr and a documented exit code (``session.report_failure``)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (typer.Exit, click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except (Exception, KeyboardInterrupt) as exc:
            raise typer.Exit(report_failure(exc)) from None


app = typer.Typer(
    cls=SmartvecGroup,
    name="smartvec",
    help="A self-aware vector memory over a markdown vault: current, trustworthy, connected answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: rendering it with rich would double the time `--help` takes
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass
class GlobalOptions:
    vault: Optional[str]
    index_dir: Optional[str]
    now: Optional[str]

    def workspace(self):
        from ..core.workspace import Workspace

        return Workspace.resolve(self.vault, self.index_dir, self.now)


def version_callback(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"smartvec {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    vault: Optional[str] = typer.Option(None, "--vault", envvar="SMARTVEC_VAULT", help="Vault folder (default: current directory)."),
    index_dir: Optional[str] = typer.Option(
        None, "--index-dir", envvar="SMARTVEC_INDEX", help="Index folder (default: <vault>/.smartvec)."
    ),
    now: Optional[str] = typer.Option(
        None, "--now", envvar="SMARTVEC_NOW", help="Clock for every time computation (ISO date), for replays and tests."
    ),
    version: bool = typer.Option(False, "--version", callback=version_callback, is_eager=True, help="Show the version."),
) -> None:
    ctx.obj = GlobalOptions(vault, index_dir, now)


def workspace(ctx: typer.Context):
    return ctx.find_root().obj.workspace()


def open_vault(ctx: typer.Context, wait: float = 30.0):
    """The Python API's ``Vault`` for this command line (``session.open_session``), as a context manager."""
    return open_session(workspace(ctx), wait)


def register_commands() -> None:
    from . import (  # noqa: F401  (each module adds its command to ``app``)
        bench,
        consolidate,
        cron,
        doctor,
        feedback,
        graph,
        history,
        index,
        mcp,
        query,
        refresh,
        show,
        status,
        watch,
    )


def run() -> None:
    """The whole command line (the console script, ``main.run``, comes here unless a daemon answered)."""
    register_commands()
    app(prog_name="smartvec")


if __name__ == "__main__":
    run()
