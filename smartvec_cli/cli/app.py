"""The Typer application, its global options, and the one place errors become exit codes.

Exit codes: 0 ok, 1 error (one line on stderr), 2 usage error, 130 interrupted.
Set SMARTVEC_DEBUG=1 to see a traceback instead of the one-line message.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Optional

import click
import typer
from typer.core import TyperGroup

from ..errors import EXIT_ERROR, SmartvecError

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
INTERRUPTED = "interrupted; everything committed before the interruption is kept"


class SmartvecGroup(TyperGroup):
    """Turns every failure into one clear line on stderr and a documented exit code."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (typer.Exit, click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except SmartvecError as exc:
            fail(str(exc), exc.exit_code)
        except KeyboardInterrupt:
            fail(INTERRUPTED, EXIT_INTERRUPTED)
        except BrokenPipeError:
            raise typer.Exit(silence_broken_pipe())
        except sqlite3.OperationalError as exc:
            if os.environ.get("SMARTVEC_DEBUG"):
                raise
            fail(f"index database: {exc} (if this persists, run 'smartvec doctor')", EXIT_ERROR)
        except sqlite3.DatabaseError as exc:
            if os.environ.get("SMARTVEC_DEBUG"):
                raise
            fail(f"the index database is damaged ({exc}); run 'smartvec doctor'", EXIT_ERROR)
        except Exception as exc:  # the last line of defence: never a traceback for the user
            if os.environ.get("SMARTVEC_DEBUG"):
                raise
            fail(f"{type(exc).__name__}: {exc} (set SMARTVEC_DEBUG=1 for a traceback)", EXIT_ERROR)


def fail(message: str, code: int) -> None:
    error_line(message)
    raise typer.Exit(code)


def error_line(message: str) -> None:
    click.echo(f"error: {message}", err=True)


def silence_broken_pipe() -> int:
    """`smartvec query ... | head`: the reader has what it wanted; the exit code says the pipe closed."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


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


@contextmanager
def open_vault(ctx: typer.Context, wait: float = 30.0) -> Iterator:
    """The Python API's ``Vault`` for this command line; what it has to tell the user goes to stderr
    once the command succeeded."""
    from ..core.api import Vault
    from .lock import waiting_note
    from .output import message

    vault = Vault(workspace(ctx), wait=wait, on_wait=waiting_note(wait), on_message=message)
    try:
        yield vault
    finally:
        vault.close()
    for notice in vault.notices:
        message(f"warning: {notice}")


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
