"""Every call the benchmarks make to smartvec, in one small surface: the Python API.

The benchmark measures smartvec as a user runs it: the same ``Vault`` methods the command
line calls, returning what ``--json`` prints. One ``Driver`` per vault loads the model
once and moves its clock to each replayed day with ``Vault.at``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Protocol, Sequence

from ..core.api import Vault
from ..core.consolidate import Consolidator
from ..core.results import ConsolidateReport, IndexRun, VaultStatus
from ..errors import SmartvecError


class AskedQuestion(Protocol):
    """What a batch query needs of a question, so benchmark and off-topic questions are asked alike."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def as_of(self) -> str | None: ...


class Driver:
    """One vault and its index folder, driven the way a user (or a nightly cron) would."""

    def __init__(self, vault: Path, index_dir: Path):
        self.vault, self.index_dir = vault, index_dir
        self.api = Vault.open(vault, index_dir)

    def index(self, when: dt.date) -> IndexRun:
        """``index`` with the clock at ``when``; a note that failed to index is an error here."""
        summary = self.api.at(when).index()
        if summary.errors:
            raise SmartvecError(f"index on {when} reported errors: {[dict(e) for e in summary.errors[:3]]}")
        return summary

    def consolidate(self, when: dt.date) -> ConsolidateReport:
        return self.api.at(when).consolidate()

    def status(self, now: dt.date) -> VaultStatus:
        return self.api.at(now).status()

    def ask(self, questions: Sequence[AskedQuestion], mode: str, now: dt.date, top_k: int) -> dict[str, list[dict]]:
        """Every question in one batch (one model load), untracked so nothing is reinforced; hits by id."""
        batch = ({"id": q.id, "query": q.text, "as_of": q.as_of} for q in questions)
        answers = {
            str(item.id): [hit.to_dict() for hit in item.hits]
            for item in self.api.at(now).query_batch(batch, top_k=top_k, mode=mode, track=False, explain=True)
        }
        missing = [q.id for q in questions if q.id not in answers]
        if missing:
            raise SmartvecError(f"the batch returned no answer for {len(missing)} questions, e.g. {missing[0]}")
        return answers

    def contradiction_edges(self) -> set[frozenset[str]]:
        """Pairs of notes (by vault path) joined by a ``contradicts`` edge, from the note graph."""
        graph = self.api.graph().to_dict()
        paths = {node["note_id"]: node["path"] for node in graph["nodes"]}
        return {
            frozenset((paths[edge["source"]], paths[edge["target"]]))
            for edge in graph["edges"]
            if edge["type"] == "contradicts" and edge["source"] in paths and edge["target"] in paths
        }

    def value_pair_closeness(self) -> list[tuple[str, str, float]]:
        """Every pair of notes (by vault path) with passages that state conflicting values, and the judge's
        closeness for them (``Consolidator.judged_value_pairs``), read-only."""
        with self.api.ws.open_store() as store:
            pairs = Consolidator(self.api.ws, store).judged_value_pairs()
        return [(a.path, b.path, closeness) for a, b, closeness in pairs]

    def close(self) -> None:
        self.api.close()

    def __enter__(self) -> "Driver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
