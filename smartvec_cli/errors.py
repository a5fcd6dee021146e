"""Errors that reach the user as one line on stderr and a documented exit code."""

from __future__ import annotations

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
