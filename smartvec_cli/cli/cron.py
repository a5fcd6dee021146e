"""``smartvec cron``: a crontab line for the nightly refresh, with every path absolute."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import typer

from ..errors import UsageError
from ..store.layout import IndexLayout
from .app import app, workspace


@app.command("cron")
def cron_command(
    ctx: typer.Context,
    at: str = typer.Option("03:00", "--at", metavar="HH:MM", help="Time of day for the nightly refresh."),
) -> None:
    """Print a crontab line that runs 'refresh --nightly' (install it with 'crontab -e').

    The line keeps the store: a --store or SMARTVEC_STORE URL is written on it as --store. A password in
    that URL is not: it goes to <index>/pgpass (mode 0600, rewritten each time), which the line names as
    PGPASSFILE, PostgreSQL's own way to give a password to its client; the password never appears on a
    command line or in the crontab. A store set in the index's config.toml is read by the nightly run
    itself and needs nothing on the line."""
    try:
        hour, minute = (int(part) for part in at.split(":"))
        if not (0 <= hour < 24 and 0 <= minute < 60):
            raise ValueError
    except ValueError:
        raise UsageError(f"--at must be a time of day such as 03:00, not {at!r}") from None
    ws = workspace(ctx)
    environment, store = store_words(ws)
    words = [
        *smartvec_executable(),
        *store,
        "--vault",
        str(ws.vault),
        "--index-dir",
        str(ws.index_dir),
        "refresh",
        "--nightly",
    ]
    for word in (*words, str(IndexLayout(ws.index_dir).cron_log)):
        refuse_control_characters(word)
    command = " ".join([*environment, *(cron_quote(w) for w in words)])
    typer.echo(f"{minute} {hour} * * * {command} >> {cron_quote(str(IndexLayout(ws.index_dir).cron_log))} 2>&1")


def store_words(ws) -> tuple[list[str], list[str]]:
    """(environment assignments, options) that give the nightly run this run's store.

    A URL from ``config.toml`` is found there again by the nightly run; one from ``--store`` or
    SMARTVEC_STORE (which cron does not set) goes on the line, its password in a private file."""
    given = ws.backend.url
    if not given or given == ws.config.store:
        return [], []
    from ..store.postgres.secrets import write_pgpass

    url, pgpass = write_pgpass(ws.index_dir, given)
    environment = [f"PGPASSFILE={cron_quote(str(pgpass))}"] if pgpass else []
    return environment, ["--store", url]


def smartvec_executable() -> list[str]:
    """How cron (with its bare PATH) can start this very installation."""
    argv0 = Path(sys.argv[0])
    if argv0.name == "smartvec" and argv0.is_file():
        return [str(argv0.absolute())]
    beside_python = Path(sys.executable).parent / "smartvec"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return [str(beside_python)]
    found = shutil.which("smartvec")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "smartvec_cli"]


def refuse_control_characters(word: str) -> None:
    """A crontab entry is one line, and no quoting survives a newline in it: cron ends the entry there, and the
    rest of the path would be a line of its own (a command cron runs). Refused, with every control character."""
    bad = next((ch for ch in word if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in "\u2028\u2029\x85"), None)
    if bad is not None:
        raise UsageError(
            f"cannot write a crontab line for {word.encode('unicode_escape').decode('ascii')}: it holds a control "
            f"character ({bad!r}); rename the folder, or pass another --vault / --index-dir"
        )


def cron_quote(word: str) -> str:
    """Shell-quote, and escape ``%``, which cron turns into a newline."""
    return shlex.quote(word).replace("%", "\\%")
