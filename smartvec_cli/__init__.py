"""smartvec: a self-aware vector memory over a markdown vault (SmartVector, arXiv 2604.20598).

The Python API is ``smartvec_cli.open_vault(vault, index_dir=None, now=None)`` (see ``smartvec_cli.core.api``),
whose questions return ``QueryHit``, ``QueryAnswer`` and ``BatchAnswer`` values and every other command a typed
report of its own (``VaultStatus``, ``NoteView``, ``DoctorReport``, ...: ``core.results``), whose ``to_dict()``
is the command's ``--json``. Each name is imported on first use, so that ``smartvec --help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core.api import Vault, open_vault
    from .core.query import Answer, Question
    from .core.results import (
        BatchAnswer,
        ChangesReport,
        ConsolidateReport,
        DeletedNote,
        DoctorReport,
        FeedbackResult,
        ForgetResult,
        GitImportReport,
        IndexReport,
        IndexRun,
        NoteGraph,
        NoteHistory,
        NoteView,
        QueryAnswer,
        QueryHit,
        QueryRequest,
        RefreshRecord,
        RelatedNotes,
        Signals,
        VaultStatus,
    )
    from .errors import SmartvecError, UsageError

_HOMES = {
    "open_vault": "core.api",
    "Vault": "core.api",
    "QueryRequest": "core.results",
    "QueryHit": "core.results",
    "QueryAnswer": "core.results",
    "BatchAnswer": "core.results",
    "Signals": "core.results",
    "DoctorReport": "core.results",
    "NoteGraph": "core.results",
    "DeletedNote": "core.results",
    "ForgetResult": "core.results",
    "IndexReport": "core.results",
    "VaultStatus": "core.results",
    "NoteView": "core.results",
    "NoteHistory": "core.results",
    "RelatedNotes": "core.results",
    "ChangesReport": "core.results",
    "IndexRun": "core.results",
    "GitImportReport": "core.results",
    "ConsolidateReport": "core.results",
    "RefreshRecord": "core.results",
    "FeedbackResult": "core.results",
    "Question": "core.query",
    "Answer": "core.query",
    "SmartvecError": "errors",
    "UsageError": "errors",
}
"""Where each public name is defined."""

__all__ = [
    "open_vault",
    "Vault",
    "QueryRequest",
    "QueryHit",
    "QueryAnswer",
    "BatchAnswer",
    "Signals",
    "DoctorReport",
    "NoteGraph",
    "DeletedNote",
    "ForgetResult",
    "IndexReport",
    "VaultStatus",
    "NoteView",
    "NoteHistory",
    "RelatedNotes",
    "ChangesReport",
    "IndexRun",
    "GitImportReport",
    "ConsolidateReport",
    "RefreshRecord",
    "FeedbackResult",
    "Question",
    "Answer",
    "SmartvecError",
    "UsageError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _installed_version()
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'smartvec_cli' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{home}", __name__), name)


def _installed_version() -> str:
    """The version from the package metadata, written once in ``pyproject.toml``; read on demand, since
    ``importlib.metadata`` costs milliseconds that ``smartvec --help`` need not spend."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("smartvec")
    except PackageNotFoundError:
        return "0+unknown"
