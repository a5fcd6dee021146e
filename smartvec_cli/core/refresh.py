"""The unattended refresh (cron): a pipeline of named stages, recorded in ``runs`` and in ``refresh.log``.

A stage is a name and a function ``(RefreshContext) -> StageResult``; a pipeline is a
tuple of stages, so adding one (consolidation, a decay sweep) is one line in
``NIGHTLY``. Stages run in order under the caller's writer lock; the first that raises
stops the pipeline (later stages build on earlier ones), and the run is still recorded.

``refresh --concepts-only`` is aclarai's nightly "refresh concept embeddings" job: only
``concepts/*.md``, and only notes whose aclarai ``embedding_hash`` changed are updated
(the indexer stores that hash for every note; a ``ver=`` bump leaves it, and therefore
everything, unchanged). Within such a note only the passages whose text changed are
embedded again, which is aclarai's rule at a finer grain.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Callable

from ..embed import Embedder
from ..store.store import Store
from .consolidate import Consolidator
from .indexer import Indexer
from .progress import ProgressCallback
from .results import RefreshRecord, RefreshStage
from .workspace import Workspace

NIGHTLY_COMPACTION_RATIO = 0.05
"""Tombstones per live item above which the nightly run compacts the ANN index. Daytime runs wait for 20%
and 1,000 (a rebuild of a large index takes a minute); at night any noticeable share is worth dropping."""


@dataclass
class RefreshContext:
    ws: Workspace
    store: Store
    embedder_factory: Callable[[], Embedder]
    progress: ProgressCallback | None = None
    concepts_folder: str = "concepts"


@dataclass
class StageResult:
    """What one stage did.

    ``processed``/``updated``/``skipped`` count notes; a stage whose work is not about notes
    leaves them at 0 and puts its own numbers in ``details``. ``changed`` is whether the index
    differs afterwards (a refresh that changed nothing prints nothing); ``note`` is a few words
    for the human summary.
    """

    processed: int = 0
    updated: int = 0
    skipped: int = 0
    changed: bool = False
    errors: list[dict] = field(default_factory=list)
    details: dict = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[RefreshContext], StageResult]


def _note_states(store: Store, only: Callable[[str], bool] | None) -> dict[str, tuple[str, str | None]]:
    return {note_id: (path, digest) for note_id, path, digest in store.live_note_hashes() if only is None or only(path)}


def _encode(ctx: RefreshContext, only: Callable[[str], bool] | None) -> StageResult:
    """Run the indexer; a note counts as updated when it appeared, vanished, moved or its aclarai hash changed."""
    before = _note_states(ctx.store, only)
    summary = Indexer(ctx.ws, ctx.store, ctx.embedder_factory, progress=ctx.progress).run(only=only)
    after = _note_states(ctx.store, only)
    updated_live = sum(1 for note_id, state in after.items() if before.get(note_id) != state)
    vanished = sum(1 for note_id in before if note_id not in after)
    details = summary.to_dict()
    del details["errors"]
    return StageResult(
        processed=summary.notes_scanned,
        updated=updated_live + vanished,
        skipped=max(0, summary.notes_scanned - updated_live),
        changed=bool(updated_live or vanished or summary.chunks_embedded or summary.chunks_archived),
        errors=list(summary.errors),
        details=details,
        note=f"{summary.chunks_embedded} passages embedded, {summary.chunks_reused} passages reused",
    )


def in_folder(folder: str) -> Callable[[str], bool]:
    """Vault paths directly inside ``folder`` (``concepts/*.md``, not its subfolders)."""
    parent = PurePosixPath(folder.strip().strip("/"))
    return lambda rel_path: PurePosixPath(rel_path).parent == parent


def index_stage(ctx: RefreshContext) -> StageResult:
    return _encode(ctx, None)


def concepts_stage(ctx: RefreshContext) -> StageResult:
    return _encode(ctx, in_folder(ctx.concepts_folder))


def compact_stage(ctx: RefreshContext) -> StageResult:
    """Rebuild the ANN index without its tombstones when they are more than a few percent of it."""
    ann = ctx.store.load_ann()
    live, dead = len(ann.live), len(ann.tombstones)
    if not ann.needs_compaction(ratio=NIGHTLY_COMPACTION_RATIO, minimum=1):
        return StageResult(details={"compacted": False, "live": live, "tombstones": dead})
    ctx.store.rebuild_ann()
    ctx.store.save_ann()
    return StageResult(
        changed=True,
        details={"compacted": True, "live": live, "tombstones": 0, "dropped": dead},
        note=f"{dead} tombstones dropped",
    )


def consolidate_stage(ctx: RefreshContext) -> StageResult:
    """The sleep cycle: relations, contradictions, archival, ripple, the decay and dormancy sweep."""
    summary = Consolidator(ctx.ws, ctx.store, progress=ctx.progress).run()
    moves = ", ".join(f"{k} {v}" for k, v in summary.transitions.items())
    return StageResult(changed=summary.changed_anything, details=summary.to_dict(), note=moves or "no state changes")


NIGHTLY: tuple[Stage, ...] = (
    Stage("index", index_stage),
    Stage("consolidate", consolidate_stage),
    Stage("compact", compact_stage),
)
CONCEPTS_ONLY: tuple[Stage, ...] = (Stage("concepts", concepts_stage),)


@dataclass
class RefreshReport:
    command: str
    started_at: str
    finished_at: str = ""
    seconds: float = 0.0
    stages: list[RefreshStage] = field(default_factory=list)
    results: list[StageResult] = field(default_factory=list)
    failure: Exception | None = None
    interrupted: bool = False  # Ctrl-C stopped a stage; recorded, then raised again
    known_before: dict[str, str] = field(default_factory=dict)  # path -> the problem stored before the run

    @property
    def all_errors(self) -> list[dict]:
        return [e for r in self.results for e in r.errors]

    @property
    def errors(self) -> list[dict]:
        """The problems this run found that were not already reported, the same, by an earlier run: only news
        makes an unattended run partial (a cron job mails on every exit 3, and a permanent problem is not news)."""
        messages = self._messages()
        return [e for e in self.all_errors if self.known_before.get(e["path"]) != messages[e["path"]]]

    @property
    def known_problems(self) -> int:
        """Notes whose problem is the one already reported (``doctor`` and ``status`` keep listing them)."""
        return len({e["path"] for e in self.all_errors} - {e["path"] for e in self.errors})

    def _messages(self) -> dict[str, str]:
        """Each path's problems joined as the store keeps them (``Store.remember_note_problems``)."""
        found: dict[str, list[str]] = {}
        for entry in self.all_errors:
            found.setdefault(entry["path"], []).append(entry["error"])
        return {path: "; ".join(messages) for path, messages in found.items()}

    @property
    def changed(self) -> bool:
        return any(r.changed for r in self.results)

    @property
    def status(self) -> str:
        return "interrupted" if self.interrupted else "failed" if self.failure else "partial" if self.errors else "ok"

    def record(self) -> RefreshRecord:
        """The run as the frozen value ``Vault.refresh`` returns."""
        return RefreshRecord(
            command=self.command,
            status=self.status,
            started_at=self.started_at,
            finished_at=self.finished_at,
            seconds=self.seconds,
            changed=self.changed,
            processed=sum(r.processed for r in self.results),
            updated=sum(r.updated for r in self.results),
            skipped=sum(r.skipped for r in self.results),
            errors=tuple(MappingProxyType(dict(e)) for e in self.errors),
            known_problems=self.known_problems,
            error=str(self.failure) if self.failure else "interrupted" if self.interrupted else None,
            stages=tuple(self.stages),
        )

    def to_dict(self) -> dict:
        """What ``refresh --json`` prints (``RefreshRecord.to_dict``)."""
        return self.record().to_dict()


def run_refresh(command: str, stages: tuple[Stage, ...], ctx: RefreshContext) -> RefreshReport:
    """Run the stages in order; record the run in ``runs`` and append it to ``refresh.log`` whatever happened.

    A stage that raises ends the pipeline; the exception is kept in ``report.failure`` for the
    caller to report after the record is written. Ctrl-C is recorded (``interrupted``) and raised again.
    """
    report = RefreshReport(command, started_at=ctx.ws.clock.now_iso())
    report.known_before = {p["path"]: p["error"] for p in ctx.store.note_problems()}
    started = time.perf_counter()
    for stage in stages:
        stage_started = time.perf_counter()
        try:
            result = stage.run(ctx)
        except KeyboardInterrupt:
            report.interrupted = True
            report.stages.append(RefreshStage(stage.name, "interrupted", _since(stage_started)))
            break
        except Exception as exc:
            report.failure = exc
            report.stages.append(RefreshStage(stage.name, "failed", _since(stage_started), error=str(exc)))
            break
        report.results.append(result)
        report.stages.append(
            RefreshStage(
                stage.name,
                "partial" if any(e in report.errors for e in result.errors) else "ok",
                _since(stage_started),
                changed=result.changed,
                note=result.note,
                details=MappingProxyType(copy.deepcopy(result.details)),
            )
        )
    report.seconds = _since(started)
    report.finished_at = ctx.ws.clock.now_iso()
    data = report.to_dict()
    ctx.store.append_refresh_log(data)
    ctx.store.record_run(command, report.started_at, report.finished_at, report.status, data)
    if report.interrupted:
        raise KeyboardInterrupt
    return report


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 3)
