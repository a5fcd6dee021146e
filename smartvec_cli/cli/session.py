"""How a command runs over the Python API: the ``Vault`` it opens, and the one line and exit code
that any failure becomes.

Free of Typer, so that ``query``'s shortcut (``query_line``) runs exactly as the command would.
Exit codes: 0 ok, 1 error (one line on stderr), 2 usage error, 130 interrupted, 141 the
reader of stdout went away. Set SMARTVEC_DEBUG=1 to see a traceback instead of the line.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator

from ..errors import EXIT_ERROR, SmartvecError
from ..store.lock import DEFAULT_WAIT
from .printing import message

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
INTERRUPTED = "interrupted; everything committed before the interruption is kept"


@contextmanager
def open_session(workspace, wait: float = DEFAULT_WAIT, embeds_questions: bool = False) -> Iterator:
    """The Python API's ``Vault`` for a command line; what it has to tell the user goes to stderr
    once the command succeeded. A session that ``embeds_questions`` (``query``) starts loading the
    model before the rest of the core is imported, so that the two overlap (``Workspace.question_embedder``)."""
    embedder = workspace.question_embedder() if embeds_questions else None
    from ..core.api import Vault
    from .lock import waiting_note

    vault = Vault(workspace, embedder, wait=wait, on_wait=waiting_note(wait), on_message=message)
    try:
        yield vault
    finally:
        vault.close()
    for notice in vault.notices:
        message(f"warning: {notice}")


def report_failure(exc: BaseException) -> int:
    """Say what went wrong in one line on stderr; the exit code. Re-raises what is not a failure to
    report (or everything, with SMARTVEC_DEBUG)."""
    if isinstance(exc, SmartvecError):
        error_line(str(exc))
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        error_line(INTERRUPTED)
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):
        return silence_broken_pipe()
    if not isinstance(exc, Exception) or os.environ.get("SMARTVEC_DEBUG"):
        raise exc
    import sqlite3  # here, not for every command line: only a failure needs its exception types

    if isinstance(exc, sqlite3.OperationalError):
        error_line(f"index database: {exc} (if this persists, run 'smartvec doctor')")
    elif isinstance(exc, sqlite3.DatabaseError):
        error_line(f"the index database is damaged ({exc}); run 'smartvec doctor'")
    else:  # the last line of defence: never a traceback for the user
        error_line(f"{type(exc).__name__}: {exc} (set SMARTVEC_DEBUG=1 for a traceback)")
    return EXIT_ERROR


def error_line(text: str) -> None:
    message(f"error: {text}")


def silence_broken_pipe() -> int:
    """`smartvec query ... | head`: the reader has what it wanted; the exit code says the pipe closed."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_BROKEN_PIPE
