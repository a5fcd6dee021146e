"""The Typer application, its global options, and the one place errors become exit codes
(``session.report_failure``: 0 ok, 1 error with one line on stderr, 2 usage error, 130 interrupted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import typer
from typer.core import TyperCommand, TyperGroup

from ..store.lock import DEFAULT_WAIT
from .session import open_session, report_failure


class FlagsWithoutType:
    """Help lists a flag without a value type (``--json``, not ``--json <bool>``): it takes no value."""

    def get_params(self, ctx: typer.Context):
        params = super().get_params(ctx)
        for param in params:
            if getattr(param, "is_bool_flag", False) and param.metavar is None:
                param.metavar = ""
        return params


class SmartvecCommand(FlagsWithoutType, TyperCommand):
    """Every command's class (``register_commands`` sets it)."""


class SmartvecGroup(FlagsWithoutType, TyperGroup):
    """Turns every failure into one clear line on stderr and a documented exit code.

    Typer's own exceptions pass through untouched: a usage error (an unknown command or
    option, a bad value) is printed by Click as Click prints it, with the usage line and
    a suggestion, and exits 2.
    """

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
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
    vault: Optional[str] = typer.Option(
        None, "--vault", envvar="SMARTVEC_VAULT", metavar="DIR", help="Vault folder (default: current directory)."
    ),
    index_dir: Optional[str] = typer.Option(
        None, "--index-dir", envvar="SMARTVEC_INDEX", metavar="DIR", help="Index folder (default: <vault>/.smartvec)."
    ),
    now: Optional[str] = typer.Option(
        None, "--now", envvar="SMARTVEC_NOW", metavar="ISO-DATE", help="Clock for every time computation (ISO date), for replays and tests."
    ),
    version: bool = typer.Option(False, "--version", callback=version_callback, is_eager=True, help="Show the version."),
) -> None:
    ctx.obj = GlobalOptions(vault, index_dir, now)


def workspace(ctx: typer.Context):
    return ctx.find_root().obj.workspace()


def open_vault(ctx: typer.Context, wait: float = DEFAULT_WAIT, embeds_questions: bool = False):
    """The Python API's ``Vault`` for this command line (``session.open_session``), as a context manager."""
    return open_session(workspace(ctx), wait, embeds_questions)


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

    _use_smartvec_classes(app)


def _use_smartvec_classes(typer_app: typer.Typer) -> None:
    """Every command and sub-group gets the help and error handling of the main group."""
    for command in typer_app.registered_commands:
        if not isinstance(command.cls, type) or command.cls is TyperCommand:  # None or Typer's default
            command.cls = SmartvecCommand
    for group in typer_app.registered_groups:
        if not isinstance(group.cls, type) or group.cls is TyperGroup:
            group.cls = SmartvecGroup
        _use_smartvec_classes(group.typer_instance)


def run() -> None:
    """The whole command line (the console script, ``main.run``, comes here unless a daemon answered)."""
    register_commands()
    app(prog_name="smartvec")


if __name__ == "__main__":
    run()
