"""Asking a question for ``query`` (the Typer command and the shortcut, ``query_line``): the daemon serving the index
while one answers, else the vault opened by this process.

Until the vault itself is needed, only the standard library, ``core.results``, ``errors``, ``store.layout`` and the
socket client are imported.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..core.results import QueryRequest
from ..errors import check_question_length

if TYPE_CHECKING:
    from ..core.api import Vault


class Answerer:
    """Asks the daemon serving this index while it answers; otherwise the vault itself, opened (with the core
    imported) on first need by ``open_direct``, told whether the questions will be embedded (not in lexical
    mode). Answers are ``Answer.to_json()`` dicts either way."""

    def __init__(
        self,
        vault: str | None,
        index_dir: str | None,
        now: str | None,
        request: QueryRequest,
        open_direct: Callable[..., AbstractContextManager] | None = None,
    ):
        from ..store.layout import index_dir_for

        vault_dir = Path(vault or ".").expanduser()
        self.index_dir = index_dir_for(vault_dir, index_dir) if vault_dir.is_dir() else None  # None: ask no daemon
        self.now = now
        self.request = request
        self.open_direct = open_direct
        self._stack = ExitStack()
        self._vault: Vault | None = None

    def ask_daemon(
        self, text: str, question_id=None, as_of: str | None = None, request: QueryRequest | None = None
    ) -> dict | None:
        """The daemon's answer, or None (and no more asking) when there is none."""
        if self.index_dir is None:
            return None
        from ..clock import Clock
        from ..daemon.query_socket import ask_daemon

        clock = Clock(self.now)  # the daemon answers at the client's --now, or at its own wall clock
        answer = ask_daemon(
            self.index_dir,
            text,
            (request or self.request).to_json(),
            clock.now().isoformat() if clock.is_fixed else None,
            question_id,
            as_of,
        )
        if answer is None:
            self.index_dir = None
        return answer

    def ask(self, text: str, question_id=None, as_of: str | None = None, request: QueryRequest | None = None) -> dict:
        """One answer; ``request`` (a batch line's own) replaces the command line's for this question."""
        check_question_length(text)
        request = request or self.request
        answer = self.ask_daemon(text, question_id, as_of, request)
        return answer if answer is not None else self._ask_directly(text, question_id, as_of, request)

    def _ask_directly(self, text: str, question_id, as_of: str | None, request: QueryRequest) -> dict:
        if self._vault is None:
            assert self.open_direct is not None, "no daemon answered and there is no direct vault to ask"
            embeds = self.request.mode in ("smart", "cosine")  # lexical answers without the model
            self._vault = self._stack.enter_context(self.open_direct(embeds_questions=embeds))
        from ..core.api import Question  # after the model has started loading

        return self._vault.ask(Question(text, question_id, as_of), request).to_json()

    def __enter__(self) -> "Answerer":
        return self

    def __exit__(self, *exc) -> None:
        self._stack.__exit__(*exc)


def open_directly(
    vault: str | None, index_dir: str | None, now: str | None, store: str | None, embeds_questions: bool
) -> AbstractContextManager:
    """The vault opened by this process, its ``Workspace`` resolved before the core is imported so that the model
    loads meanwhile (``Workspace.question_embedder``), as the Typer app's ``open_vault`` does."""
    from ..core.workspace import Workspace
    from .session import open_session

    return open_session(Workspace.resolve(vault, index_dir, now, store), embeds_questions=embeds_questions)
