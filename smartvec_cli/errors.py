"""Errors that reach the user as one line on stderr and a documented exit code."""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2


class SmartvecError(Exception):
    """A failure the user can act on; the CLI prints ``error: <message>`` and exits with ``exit_code``."""

    exit_code = EXIT_ERROR


class UsageError(SmartvecError):
    """The command line or the named paths do not make sense."""

    exit_code = EXIT_USAGE


class ModelMismatchError(SmartvecError):
    """The index was built with other weights; mixing vectors would make similarities meaningless."""


class RefreshFailed(SmartvecError):
    """A stage of ``refresh`` failed; the run was recorded all the same and its record travels with the error
    (``core.results.RefreshRecord``, whose ``to_dict()`` is what ``refresh --json`` prints). It exits as its
    cause does."""

    def __init__(self, cause: Exception, record: Any):
        super().__init__(str(cause))
        self.cause = cause
        self.record = record
        self.exit_code = getattr(cause, "exit_code", self.exit_code)


EXIT_PARTIAL = 3
"""The run finished, but some notes could not be read or parsed (they are listed in ``errors``)."""


def index_folder_error(what: str, exc: OSError) -> SmartvecError:
    """One line for an index folder that cannot be written, with the way out when it never will be
    (a read-only vault holding the default ``<vault>/.smartvec``)."""
    import errno

    hint = ""
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        hint = "; the index folder must be writable: pass --index-dir DIR (or set SMARTVEC_INDEX) to keep it elsewhere"
    return SmartvecError(f"{what}: {exc.strerror or exc}{hint}")


MAX_QUESTION_CHARS = 4000
"""The longest question answered: far past what a question says (the models read its first 256 or 512 tokens), and
short enough that one request cannot cost gigabytes of memory in date parsing, the lexical search and the
explanation of every candidate."""


def check_question_length(text: str) -> None:
    """Refuse (a usage error, exit 2) a question longer than ``MAX_QUESTION_CHARS``, or holding a lone surrogate
    (``"\\ud800"`` in JSON, which no UTF-8 can carry), at every door: the command line, a batch line, the query
    socket, the MCP server and the Python API."""
    if not isinstance(text, str):
        return
    if len(text) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"the question is {len(text):,} characters long; at most {MAX_QUESTION_CHARS:,} are answered "
            "(ask with the words that matter)"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(
            f"the question holds {text[exc.start]!r} at position {exc.start + 1}, a lone surrogate that is no character"
        ) from None
