"""The Typer application, its global options, and the one place errors become exit codes
(``session.report_failure``: 0 ok, 1 error with one line on stderr, 2 usage error, 130 interrupted).
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Optional

import typer
import typer.main
from typer import _click as click
from typer.core import TyperCommand, TyperGroup

from ..store.lock import DEFAULT_WAIT
from .session import open_session, report_failure


class FlagsWithoutType(click.Command):
    """Help lists a flag without a value type (``--json``, not ``--json <bool>``): it takes no value."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
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

    The console script's group (``command_line``) holds its commands as Typer definitions until
    one is run or its help is shown (``pending``: name -> (conversion, outline)); the list of
    commands in ``--help`` is written from each one's outline (name, docstring, flags), which
    needs none of its parameters read.
    """

    pending: dict[str, tuple[Callable[[], click.Command], click.Command]] = {}
    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *self.pending]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.pending:
            convert, outline = self.pending[cmd_name]
            if self._listing:
                return outline
            del self.pending[cmd_name]
            self.commands[cmd_name] = convert()
        elif cmd_name not in self.commands:  # Click's "did you mean" looks among ``commands``
            for name in list(self.pending):
                self.get_command(ctx, name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False

    def invoke(self, ctx: click.Context) -> Any:
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
    store: Optional[str] = None

    def workspace(self):
        from ..core.workspace import Workspace

        return Workspace.resolve(self.vault, self.index_dir, self.now, self.store)


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
        None,
        "--now",
        envvar="SMARTVEC_NOW",
        metavar="ISO-DATE",
        help="Clock for every time computation (ISO date), for replays and tests.",
    ),
    store: Optional[str] = typer.Option(
        None,
        "--store",
        envvar="SMARTVEC_STORE",
        metavar="URL",
        help="A shared PostgreSQL + pgvector store (postgresql://...) instead of SQLite in the index folder.",
    ),
    version: bool = typer.Option(
        False, "--version", callback=version_callback, is_eager=True, help="Show the version."
    ),
) -> None:
    ctx.obj = GlobalOptions(vault, index_dir, now, store)


def workspace(ctx: typer.Context):
    return ctx.find_root().obj.workspace()


def open_vault(ctx: typer.Context, wait: float = DEFAULT_WAIT, embeds_questions: bool = False):
    """The Python API's ``Vault`` for this command line (``session.open_session``), as a context manager."""
    return open_session(workspace(ctx), wait, embeds_questions)


def register_commands() -> None:
    from . import (  # noqa: F401  (each module adds its command to ``app``)
        bench,
        changes,
        consolidate,
        cron,
        doctor,
        feedback,
        forget,
        graph,
        history,
        index,
        mcp,
        query,
        refresh,
        related,
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
        assert group.typer_instance is not None, "``add_typer`` always records the sub-app"
        _use_smartvec_classes(group.typer_instance)


def command_line() -> SmartvecGroup:
    """The app as Click runs it, with each command made a Click command only when needed (see
    ``SmartvecGroup``): Typer makes one by reading every parameter of the function, which for all of
    them is a large share of what ``smartvec --help`` costs. ``typer.main.get_command(app)`` makes the same group
    with every command made at once (the tests' ``CliRunner`` does)."""
    register_commands()
    shell = copy.copy(app)
    shell.registered_commands, shell.registered_groups = [], []
    group = typer.main.get_command(shell)
    assert isinstance(group, SmartvecGroup), "the app has a callback, so Typer makes it a group of ``cls``"
    group.pending = {}
    for info in app.registered_commands:
        assert info.callback is not None, "``app.command`` registers the decorated function"
        convert = partial(
            typer.main.get_command_from_info,
            info,
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
        )
        name = info.name or typer.main.get_command_name(info.callback.__name__)
        help_text = inspect.cleandoc(info.help) if info.help is not None else inspect.getdoc(info.callback)
        group.pending[name] = (convert, _outline(name, help_text, info))
    for group_info in app.registered_groups:
        convert_group = partial(
            typer.main.get_group_from_info,
            group_info,
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
            suggest_commands=app.suggest_commands,
        )
        solved = typer.main.solve_typer_info_defaults(group_info)
        assert solved.name is not None, "every sub-app is added with a name"
        group.pending[solved.name] = (convert_group, _outline(solved.name, solved.help, solved))
    return group


def _outline(name: str, help_text: str | None, info) -> TyperCommand:
    """What the list of commands shows of a command: its name, help, short help and flags."""
    return TyperCommand(
        name, help=help_text, short_help=info.short_help, hidden=bool(info.hidden), deprecated=info.deprecated
    )


def run() -> None:
    """The whole command line (the console script, ``main.run``, comes here unless a daemon answered)."""
    command_line()(prog_name="smartvec")


if __name__ == "__main__":
    run()
