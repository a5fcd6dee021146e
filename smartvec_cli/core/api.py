"""smartvec from Python, and the one door the commands and the daemons use too: one object per vault, whose
methods return what the commands' ``--json`` prints, each as a typed, frozen value (``core.results``;
``to_dict()`` gives the JSON).

    import smartvec_cli

    with smartvec_cli.open_vault("~/notes") as vault:
        vault.index()
        print(vault.consolidate().transitions)
        for hit in vault.query("How many days can I work remotely?", as_of="2023-03-01", top_k=3):
            print(hit.path, hit.confidence, hit.warnings)

The model is loaded once per ``Vault`` (on the first call that embeds) and shared by
``vault.at(now)``, a view of the same vault with its clock set to another moment (for
replaying history). Writers take the index's writer lock like the commands do, waiting
up to ``wait`` seconds for another writer. Messages the commands would print on stderr
(a rebuilt cache, a taken-over lock) collect in ``vault.notices``.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import inspect
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import (
    Any,
    Callable,
    Concatenate,
    Iterable,
    Iterator,
    Literal,
    Mapping,
    ParamSpec,
    Sequence,
    TypeVar,
    overload,
)

from ..clock import Clock
from ..embed import Embedder
from ..errors import RefreshFailed, UsageError
from ..store.lock import DEFAULT_WAIT
from ..store.store import Store
from .filters import NoteFilter, note_filter
from .progress import ProgressCallback
from .query import Answer, QueryEngine, Question
from .results import (
    TOP_K_MAX,
    TOP_K_MIN,
    BatchAnswer,
    ChangesReport,
    ConsolidateReport,
    DeletedNote,
    DoctorReport,
    EmbedderChoice,
    FeedbackResult,
    ForgetResult,
    GitImportReport,
    IndexReport,
    IndexRun,
    IndexTotals,
    NoteGraph,
    NoteHistory,
    NoteView,
    QueryAnswer,
    QueryHit,
    QueryRequest,
    RefreshRecord,
    RelatedNotes,
    VaultStatus,
)
from .search import SearchOptions
from .workspace import Workspace
from .writing import OnWait, recorded_if_unfinished, writer_lock, writing_store

__all__ = [
    "Answer",
    "BatchAnswer",
    "ChangesReport",
    "ConsolidateReport",
    "DeletedNote",
    "DoctorReport",
    "FeedbackResult",
    "ForgetResult",
    "GitImportReport",
    "IndexReport",
    "IndexRun",
    "NoteGraph",
    "NoteHistory",
    "NoteView",
    "QueryAnswer",
    "QueryHit",
    "QueryRequest",
    "Question",
    "RefreshFailed",
    "RefreshRecord",
    "RelatedNotes",
    "Vault",
    "VaultStatus",
    "Workspace",
    "open_vault",
]
"""What a caller of the door names: the vault, its options and the values it returns. A daemon or command
imports these from here (or ``core.results``) and nothing else of the core (the contract in pyproject.toml)."""

FEEDBACK_VERDICTS = ("up", "down", "correct")


Self_ = TypeVar("Self_")
First = TypeVar("First")
Result = TypeVar("Result")
Options = TypeVar("Options")
Keywords = ParamSpec("Keywords")


def taking_keywords(
    options: Callable[Keywords, Options],
) -> Callable[[Callable[[Self_, First, Options], Result]], Callable[Concatenate[Self_, First, Keywords], Result]]:
    """A method written as ``(self, first, options)`` called as ``(self, first, /, **keywords)``, the keywords
    those of ``options`` (a keyword-only dataclass): the options are listed once, and a type checker still sees
    each keyword of each method with its type and default."""

    def decorate(
        method: Callable[[Self_, First, Options], Result],
    ) -> Callable[Concatenate[Self_, First, Keywords], Result]:
        @functools.wraps(method)
        def call(self: Self_, first: First, /, *args: Keywords.args, **kwargs: Keywords.kwargs) -> Result:
            if args:  # the dataclass would refuse them too, naming itself instead of the method
                name = getattr(method, "__name__", "this method")
                raise TypeError(f"{name}() takes 1 positional argument; give the options as keywords")
            return method(self, first, options(*args, **kwargs))

        call.__signature__ = _signature(method, options)  # type: ignore[attr-defined]
        return call

    return decorate


def _signature(method: Callable[..., object], options: Callable[..., object]) -> inspect.Signature:
    """What ``help()`` and editors show: the method's own first two parameters, then the options' keywords."""
    own = inspect.signature(method)
    first_two = [p.replace(kind=inspect.Parameter.POSITIONAL_ONLY) for p in list(own.parameters.values())[:2]]
    keywords = list(inspect.signature(options).parameters.values())
    return own.replace(parameters=[*first_two, *keywords])


keyword_options = taking_keywords(QueryRequest)


class _Models:
    """The embedders one vault (and its ``at`` views) share: loaded on first use, once."""

    def __init__(self, workspace: Workspace, given: Embedder | None, on_message: Callable[[str], None]):
        self.ws = workspace
        self.given = given
        self.on_message = on_message
        self._reader: Embedder | None = None
        self._writer: Embedder | None = None

    def reader(self) -> Embedder:
        """For questions: the fast path when the index has a verified export."""
        if self.given is not None:
            return self.given
        if self._reader is None:
            self._reader = self._writer or self.ws.embedder()
        return self._reader

    def writer(self) -> Embedder:
        """For indexing: may create the fast path's export once."""
        if self.given is not None:
            return self.given
        if self._writer is None:
            self._writer = self.ws.writer_embedder(on_notice=self.on_message)
            self._reader = self._writer
        return self._writer


class _Reader:
    """The store a vault and its ``at`` views keep open for questions, with the vector index generation it was
    opened (or handed over) at: a writer that moves the generation on makes it be opened again."""

    def __init__(self) -> None:
        self.store: Store | None = None
        self.generation: int | None = None


class Vault:
    """smartvec over one vault. ``on_wait`` hears whom a writer waits for; ``on_message`` hears progress
    worth telling at once (the one-time export of the fast model)."""

    def __init__(
        self,
        workspace: Workspace,
        embedder: Embedder | None = None,
        wait: float = DEFAULT_WAIT,
        on_wait: OnWait | None = None,
        on_message: Callable[[str], None] | None = None,
        _models: _Models | None = None,
        _reader: _Reader | None = None,
    ):
        self.ws = workspace
        self.wait = wait
        self.on_wait = on_wait
        self.notices: list[str] = []
        self._models = _models or _Models(workspace, embedder, on_message or (lambda text: None))
        self._reader = _reader or _Reader()
        self._engine: QueryEngine | None = None

    @classmethod
    def open(
        cls,
        vault: str | Path | None = None,
        index_dir: str | Path | None = None,
        now: str | dt.datetime | None = None,
        embedder: Embedder | None = None,
        wait: float = DEFAULT_WAIT,
        store: str | None = None,
    ) -> "Vault":
        """Options win over SMARTVEC_VAULT / SMARTVEC_INDEX / SMARTVEC_NOW / SMARTVEC_STORE, then the defaults (as on
        the command line); ``store`` is a ``postgresql://`` URL of a team's shared store."""
        return cls(Workspace.resolve(vault, index_dir, now, store), embedder, wait)

    def at(self, now: str | dt.date | dt.datetime | None) -> "Vault":
        """The same vault, loaded model and open store with the clock fixed at ``now`` (None: the wall clock): a
        daemon answers each question at its asker's ``--now`` so. A vault and its views answer one call at a time."""
        view = Vault(
            replace(self.ws, clock=Clock(now)),
            wait=self.wait,
            on_wait=self.on_wait,
            _models=self._models,
            _reader=self._reader,
        )
        view.notices = self.notices
        return view

    @property
    def embedder(self) -> Embedder:
        return self._models.reader()

    # -- writers ------------------------------------------------------------------------------

    def _writing(self, command: str, create: bool = False, fresh_start: bool = False) -> AbstractContextManager[Store]:
        self._close_reader()  # a writer changes what a reader has cached
        return writing_store(
            self.ws,
            command,
            self.wait,
            create=create,
            on_wait=self.on_wait,
            on_notice=self.notices.append,
            fresh_start=fresh_start,
        )

    def _keep_notices(self, store: Store) -> None:
        """Move what the store has to tell into ``notices`` (once: a store kept open tells more later)."""
        self.notices.extend(store.notices)
        store.notices.clear()

    def take_notices(self) -> list[str]:
        """The notices collected since the last call, emptied: for a long-running caller (a daemon) that reports
        them as they come rather than at the end."""
        taken = list(self.notices)
        self.notices.clear()
        return taken

    @overload
    def index(
        self,
        full: bool = False,
        exclude: Sequence[str] = (),
        progress: ProgressCallback | None = None,
        from_git: Literal[False] = False,
        max_commits: int | None = None,
    ) -> IndexRun: ...

    @overload
    def index(
        self,
        full: bool = False,
        exclude: Sequence[str] = (),
        progress: ProgressCallback | None = None,
        *,
        from_git: Literal[True],
        max_commits: int | None = None,
    ) -> GitImportReport: ...

    @overload
    def index(
        self,
        full: bool = False,
        exclude: Sequence[str] = (),
        progress: ProgressCallback | None = None,
        from_git: bool = False,
        max_commits: int | None = None,
    ) -> IndexRun | GitImportReport: ...

    def index(
        self,
        full: bool = False,
        exclude: Sequence[str] = (),
        progress: ProgressCallback | None = None,
        from_git: bool = False,
        max_commits: int | None = None,
    ) -> IndexRun | GitImportReport:
        """Encode what changed (everything with ``full``); what ``index --json`` prints (``to_dict()``), with how
        many notes wait for ``consolidate`` (``IndexRun``). ``from_git`` replays the vault's git commits since the
        last import instead, each at its commit date (``progress`` then counts commits; see ``core.progress``), at
        most the oldest ``max_commits`` of them (``GitImportReport``)."""
        from .indexer import Indexer

        ws = self.ws
        if exclude:
            ws = replace(ws, config=copy.deepcopy(ws.config))
            ws.config.exclude.extend(exclude)
        if from_git:
            if full:
                raise UsageError(
                    "--from-git and --full cannot be combined: re-embed with 'index --full' after the import"
                )
            return self._import_git(ws, progress, max_commits)
        if max_commits is not None:
            raise UsageError("--max-commits only applies to --from-git")
        with self._writing(
            "smartvec index --full" if full else "smartvec index", create=True, fresh_start=full
        ) as store:
            indexer = Indexer(ws, store, self._models.writer, progress=progress)
            with recorded_if_unfinished(store, ws.clock, "index --full" if full else "index", indexer.summary.to_dict):
                summary = indexer.run(full=full)
            run = IndexRun.of(IndexReport.from_dict(summary.to_dict()), after_indexing(store))
        self._keep_notices(store)
        return run

    def _import_git(self, ws: Workspace, progress: ProgressCallback | None, max_commits: int | None) -> GitImportReport:
        from .git_import import ImportSummary, import_git_history

        summary = ImportSummary()
        with self._writing("smartvec index --from-git", create=True) as store:
            with recorded_if_unfinished(store, ws.clock, "index --from-git", summary.to_dict):
                done = import_git_history(ws, store, self._models.writer, progress, summary, max_commits)
            report = GitImportReport.from_dict({**done.to_dict(), **after_indexing(store).to_dict()})
        self._keep_notices(store)
        return report

    def consolidate(self, progress: ProgressCallback | None = None) -> ConsolidateReport:
        """The sleep cycle over what changed since the last run; the summary ``consolidate --json`` prints
        (``to_dict()``).
        ``progress`` hears the pairs of passages compared and what else the run is busy with."""
        from .consolidate import Consolidator

        with self._writing("smartvec consolidate") as store:
            consolidator = Consolidator(self.ws, store, progress=progress)
            with recorded_if_unfinished(store, self.ws.clock, "consolidate", consolidator.summary.to_dict):
                summary = consolidator.run()
        self._keep_notices(store)
        return ConsolidateReport.from_dict(summary.to_dict())

    def refresh(
        self, concepts_only: bool = False, concepts_folder: str = "concepts", progress: ProgressCallback | None = None
    ) -> RefreshRecord:
        """The unattended run (``refresh --nightly``, or aclarai's ``--concepts-only`` job); its record, whose
        ``to_dict()`` is what ``refresh --json`` prints.

        A failed stage raises ``RefreshFailed`` (carrying the record) after the run is recorded."""
        from .refresh import CONCEPTS_ONLY, NIGHTLY, RefreshContext, run_refresh

        command = "refresh --concepts-only" if concepts_only else "refresh --nightly"
        with self._writing(f"smartvec {command}", create=True) as store:
            context = RefreshContext(self.ws, store, self._models.writer, progress, concepts_folder)
            report = run_refresh(command, CONCEPTS_ONLY if concepts_only else NIGHTLY, context)
        self._keep_notices(store)
        record = report.record()
        if report.failure is not None:
            raise RefreshFailed(report.failure, record)
        return record

    def feedback(
        self, chunk_id: str | None = None, verdict: str = "up", correction: str | None = None, rank: int | None = None
    ) -> FeedbackResult:
        """Tell the memory a passage (``chunk_id``, or hit ``rank`` of the last query) was right, wrong, or what is
        right; what ``feedback --json`` prints (``to_dict()``)."""
        from .feedback import give_feedback, resolve_target

        if verdict not in FEEDBACK_VERDICTS:
            raise UsageError(f"verdict must be one of {', '.join(FEEDBACK_VERDICTS)}")
        with self._writing("smartvec feedback") as store:
            target = resolve_target(store, chunk_id, rank)
            result = give_feedback(self.ws, store, target, verdict, correction, embedder_factory=self._models.reader)
        self._keep_notices(store)
        return result

    def deleted_notes(self, names: Sequence[str] = (), every_deleted: bool = False) -> tuple[DeletedNote, ...]:
        """The deleted notes ``forget`` would erase (by path, old path, id or title, or every deleted note), erasing
        nothing; a note still in the vault is refused."""
        from .forget import notes_to_forget

        def read(store: Store) -> tuple[DeletedNote, ...]:
            found = notes_to_forget(store, list(names), every_deleted, self.ws.vault)
            return tuple(DeletedNote(n["path"], n["note_id"], n["deleted_at"]) for n in found)

        return self._report(read)

    def forget(self, names: Sequence[str] = (), every_deleted: bool = False) -> ForgetResult:
        """Erase everything the index keeps of these deleted notes (by path, old path, id or title), or of every
        deleted note; a note still in the vault is refused. ``to_dict()`` is what ``forget --json`` prints."""
        from .forget import forget, notes_to_forget

        with self._writing("smartvec forget") as store:
            result = forget(store, notes_to_forget(store, list(names), every_deleted, self.ws.vault))
        self._keep_notices(store)
        return result

    # -- a long-running writer (the watch daemon) ------------------------------------------

    def ensure_index(self, command: str = "smartvec watch") -> None:
        """Make the index when there is none, and refuse at once one whose vectors another model made: what a
        long-running writer checks before its first batch, so that its readers never race the index's creation."""
        self._close_reader()
        with writer_lock(self.ws, command, self.wait, self.on_wait, self.notices.append):
            with self.ws.open_store(create=True) as store:
                store.check_fingerprint(self._models.writer().fingerprint)
        self._keep_notices(store)

    def update(self, command: str = "smartvec watch") -> IndexReport:
        """Index what changed, then consolidate it, in one hold of the writer lock: a watch daemon's batch. Each
        run records itself. The store stays open as this vault's reader afterwards, its vector index in memory and
        in step with the database, for ``adopt_reader`` to hand to the vault that answers questions."""
        from .consolidate import Consolidator
        from .indexer import Indexer

        self._close_reader()
        with writer_lock(self.ws, command, self.wait, self.on_wait, self.notices.append):
            store = self.ws.open_store(create=True)
            try:
                summary = Indexer(self.ws, store, self._models.writer).run()
                Consolidator(self.ws, store).run()  # incremental: the batch's notes and their neighbourhood
            except BaseException:
                self._keep_notices(store)
                store.close()
                raise
            self._keep_notices(store)
            self._reader.store, self._reader.generation = store, store.generation  # read under the lock
        return IndexReport.from_dict(summary.to_dict())

    def adopt_reader(self, writer: "Vault") -> None:
        """Answer questions from the store ``writer`` last wrote with (``update``) instead of opening the index
        again: its vector index is already in memory. ``writer`` lets go of it; nothing happens when it holds none."""
        store, generation = writer._reader.store, writer._reader.generation
        if store is None:
            return
        writer._reader.store, writer._reader.generation, writer._engine = None, None, None
        self._close_reader()
        self._reader.store, self._reader.generation = store, generation

    # -- the doctor ----------------------------------------------------------------------------

    def doctor(self, repair: bool = False) -> DoctorReport:
        """Check the index folder (``core.doctor``); ``repair`` puts right what can be without re-embedding, under
        the writer lock (its locks are looked at first, so that a lock a dead writer left is reported before it
        is taken over). ``to_dict()`` is what ``doctor --json`` prints."""
        from .doctor import Doctor

        doctor = Doctor(self.ws, repair=repair)
        doctor.inspect_locks()
        if not repair:
            return doctor.run()
        self._close_reader()  # a repair changes what a reader has cached
        with writer_lock(
            self.ws, "smartvec doctor --repair", self.wait, self.on_wait, self.notices.append, narrow_modes=False
        ):
            return doctor.run()

    # -- readers ------------------------------------------------------------------------------

    def _reader_store(self) -> Store:
        """One store kept open for questions (shared with the ``at`` views), opened again when a writer has moved
        the vector index on."""
        reader = self._reader
        if reader.store is not None and reader.store.generation != reader.generation:
            self._close_reader()
        if reader.store is None:
            reader.store = self.ws.open_store()
            reader.generation = reader.store.generation
        if self._engine is None or self._engine.store is not reader.store:
            self._engine = QueryEngine(self.ws, reader.store, self._models.reader)
        return reader.store

    def _close_reader(self) -> None:
        reader = self._reader
        if reader.store is not None:
            self._keep_notices(reader.store)
            reader.store.close()
        reader.store, reader.generation, self._engine = None, None, None

    def ask(self, question: Question, request: QueryRequest) -> Answer:
        """The answer as the engine's own objects (hits with their row ids, the resolved moment): what ``query``
        prints and the daemon's socket carries (``Answer.to_json()``). The question's own ``as_of`` comes before
        the request's."""
        return self._ask(question, self._search_options(request))

    def _ask(self, question: Question, options: SearchOptions) -> Answer:
        store = self._reader_store()
        assert self._engine is not None  # made for the store
        try:
            return self._engine.ask(question, options)
        finally:
            self._keep_notices(store)

    @keyword_options
    def query(self, question: str, request: QueryRequest) -> tuple[QueryHit, ...]:
        """The hits of ``query --json`` (``hit.to_dict()`` is what it prints of each); the options are
        ``QueryRequest``'s, given as keywords."""
        return self._answer(question, request).hits

    @keyword_options
    def answer(self, question: str, request: QueryRequest) -> QueryAnswer:
        """``query``'s hits with the moment they are about (``QueryAnswer``): that of the ``as_of`` given (a
        moment, or words such as "mid-2022"), or of the date the question names, else None (now)."""
        return self._answer(question, request)

    @keyword_options
    def query_batch(self, questions: Iterable[Mapping[str, Any]], request: QueryRequest) -> Iterator[BatchAnswer]:
        """``query --batch``, one model load: ``{"id", "query", "as_of"?, "path"?, "tag"?, "where"?, "since"?,
        "until"?}`` in, a ``BatchAnswer`` out for each. A question's own ``as_of`` and filter fields replace the
        options of the same name for that question."""
        searched = self._search_options(request)
        for item in questions:
            own = request.with_filters(item)
            options = searched if own is request else self._search_options(own)
            question = Question(item["query"], item.get("id"), item.get("as_of") or None)
            answer = self._ask(question, options)
            yield BatchAnswer.of(item.get("id"), answer.result(request.explain))

    def _answer(self, text: str, request: QueryRequest) -> QueryAnswer:
        searched = self._search_options(request)
        if not isinstance(text, str) or not text.strip():
            raise UsageError("the question is empty: say what to look for")
        return self._ask(Question(text), searched).result(request.explain)

    def _search_options(self, request: QueryRequest) -> SearchOptions:
        """The engine's options for a checked request, its note filter read in the vault's languages at its
        moment."""
        return SearchOptions(
            top_k=request.top_k,
            mode=request.mode,
            as_of=request.as_of or None,
            include_archived=request.include_archived,
            include_dormant=request.include_dormant,
            weights=request.checked_weights(),
            record_access=request.track,
            filters=self.note_filter(request.path, request.tag, request.where, request.since, request.until),
        )

    def note_filter(
        self,
        path: str | Sequence[str] | None = None,
        tag: str | Sequence[str] | None = None,
        where: Mapping[str, object] | Sequence[str] | None = None,
        since: str | dt.date | None = None,
        until: str | dt.date | None = None,
    ) -> NoteFilter | None:
        """The checked filter of these conditions (dates read in the vault's languages), None for none."""
        fields = dict(where) if isinstance(where, Mapping) else where
        return note_filter(path, tag, fields, since, until, self.ws.languages(), self.ws.clock.now()) or None

    def _report(self, read: Callable[[Store], Result]) -> Result:
        with self.ws.open_store() as store:
            data = read(store)
        self._keep_notices(store)
        return data

    def status(self) -> VaultStatus:
        """What the index holds: notes, passages by state, the model, the vector index and the last run; what
        ``status --json`` prints (``to_dict()``)."""
        from .report import status

        def read(store: Store) -> VaultStatus:
            # The model and the languages are the index's own: known once its store is open (a PostgreSQL one).
            embedder = EmbedderChoice(
                model=self.ws.embedder_model(),
                chosen_by="config.toml" if self.ws.config.embedder_model != "auto" else "languages",
                languages=tuple(self.ws.languages()),
            )
            return status(store, str(self.ws.vault), self.ws.onnx_export(), embedder)

        return self._report(read)

    def show(self, note: str) -> NoteView:
        """One note (a path, note id, title or former name) as the index knows it: its metadata, links and every
        stored version of its passages; what ``show --json`` prints (``to_dict()``)."""
        from .report import show_note

        return self._report(lambda store: show_note(store, note, self.ws.vault))

    def related(self, note: str, top_k: int = 5, method: str = "best") -> RelatedNotes:
        """The notes most like ``note`` (a path, note id, title or former name), its versions left out: what
        ``related --json`` prints (``to_dict()``; ``core.related``)."""
        from .related import related_report
        from .report import find_note

        if not isinstance(top_k, int) or isinstance(top_k, bool) or not TOP_K_MIN <= top_k <= TOP_K_MAX:
            raise UsageError(f"top_k must be a whole number from {TOP_K_MIN} to {TOP_K_MAX}")
        return self._report(
            lambda store: related_report(
                store, self.ws.config, find_note(store, note, self.ws.vault), self.ws.vault, top_k, method
            )
        )

    def history(self, note: str) -> NoteHistory:
        """The lineage of one note: every version of every passage, what replaced what and when, the notes it
        supersedes or is superseded by, and its events; what ``history --json`` prints (``to_dict()``)."""
        from .report import history

        return self._report(lambda store: history(store, note, self.ws.vault))

    def changes(self, since: str, until: str | None = None) -> ChangesReport:
        """The passages added, replaced, expired and contradicted from ``since`` to ``until`` (default now), with
        their lineage: what ``changes --json`` prints (``to_dict()``; ``core.changes``)."""
        from .changes import changes, window

        begin, end = window(since, until, self.ws.clock, tuple(self.ws.languages()))
        return self._report(lambda store: changes(store, begin, end))

    def graph(self, note: str | None = None, depth: int = 1, limit: int | None = None) -> NoteGraph:
        """Notes and the typed edges between them (``note``: only its neighbourhood, ``depth`` hops around it; at
        most ``limit`` notes, the nearest first); ``to_dict()``, ``mermaid()`` and ``dot()`` are what ``graph``
        prints in each ``--format``."""
        from .report import graph

        return self._report(lambda store: graph(store, note, depth, limit, self.ws.vault))

    def close(self) -> None:
        self._close_reader()

    def __enter__(self) -> "Vault":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def after_indexing(store: Store) -> IndexTotals:
    """What an index run reports of the whole index beside what it did (``IndexTotals``)."""
    return IndexTotals(
        notes_to_consolidate=len(store.pending_notes()),
        passages_stored=sum(store.passage_counts_by_state().values()),
    )


def open_vault(
    vault: str | Path | None = None,
    index_dir: str | Path | None = None,
    now: str | dt.datetime | None = None,
    embedder: Embedder | None = None,
    wait: float = DEFAULT_WAIT,
    store: str | None = None,
) -> Vault:
    """smartvec over ``vault`` (default: SMARTVEC_VAULT, else the current folder); see the module docstring."""
    return Vault.open(vault, index_dir, now, embedder, wait, store)
