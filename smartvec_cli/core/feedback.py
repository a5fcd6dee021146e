"""Reconsolidation by the user: up-votes, down-votes and corrections.

Each piece of feedback moves the passage's *trust* (the ranking's trust signal, not the hit's
confidence) by the paper's step ``c ← c + lr·(f − c)`` and is stored twice: as the adjustment on
the passage (which survives re-indexing, since an unchanged passage keeps its row) and as an
event (which is never lost). A correction also records the user's text as a new,
high-authority passage linked to the corrected one by a ``corrects`` edge; it lives in
the index, never in the vault, and answers wherever the passage it corrects is found
(``memory.ranking``).
"""

from __future__ import annotations

import json

import numpy as np

from ..errors import SmartvecError, UsageError
from ..memory.confidence import SOURCE_AUTHORITY, reconsolidate
from ..memory.passage import Passage
from ..memory.ranking import passage_trust
from ..memory.temporal import DECLARED
from ..store.protocols import AccessLog
from ..store.store import Store
from ..vault.chunk import embed_text_for
from ..vault.hashing import sha256_text
from .results import FeedbackResult
from .workspace import Workspace

SIGNALS = ("up", "down", "correct")
CORRECTIONS_PREFIX = "smartvec:corrections/"


def resolve_target(store: AccessLog, chunk_id: str | None, rank: int | None) -> int:
    """The passage row feedback is about: ``CHUNK_ID`` (current version), ``CHUNK_ID@N``, or rank N of the last
    query, tracked or not (the hits the user saw last)."""
    if (chunk_id is None) == (rank is None):
        raise UsageError("name a passage: CHUNK_ID or --rank N (a hit of the last query)")
    if rank is not None:
        last = store.last_untracked_query() or json.loads(store.get_meta("last_query") or "null")
        if not last:
            raise SmartvecError("no query has been run yet; --rank refers to the hits of the last query")
        for hit in last["hits"]:
            if hit["rank"] == rank:
                return hit["id"]
        raise UsageError(f"the last query ({last['query']!r}) has no hit ranked {rank}")
    assert chunk_id is not None  # exactly one of the two is given, and it is not the rank
    name, _, version = chunk_id.partition("@")
    if version and not (version.lstrip("v").isascii() and version.lstrip("v").isdigit()):
        raise UsageError(f"bad version in {chunk_id!r}: use CHUNK_ID@N")
    if version and len(version.lstrip("v")) > 9:
        raise UsageError(f"no version {version.lstrip('v')} in {chunk_id[:80]!r}: versions are counted from 1")
    found = store.passage_row_id(name, int(version.lstrip("v")) if version else None)
    if found is None:
        raise SmartvecError(f"no passage {chunk_id!r} in the index (see 'smartvec show NOTE' for chunk ids)")
    return found


def give_feedback(
    ws: Workspace,
    store: Store,
    target: int,
    signal: str,
    correction: str | None = None,
    embedder_factory=None,
) -> FeedbackResult:
    if signal not in SIGNALS:
        raise UsageError(f"feedback is one of {', '.join(SIGNALS)}")
    corrected = correction.strip() if correction else ""
    if signal == "correct" and not corrected:
        raise UsageError("--correct needs the corrected text")
    now = ws.clock.now()
    now_iso = ws.clock.now_iso()
    row = store.passages([target])[target]
    before = passage_trust(row, now, ws.config.confidence)
    after = reconsolidate(before, signal, ws.config.confidence)
    correction_row = None
    if signal == "correct":
        embedder = embedder_factory()
        store.check_fingerprint(embedder.fingerprint)
        context = embed_text_for(row.title, row.heading_path, corrected)
        vector = embedder.embed([context])[0]
    with store.write():
        store.add_feedback(target, after - before, now_iso)
        if signal == "correct":
            correction_row = _record_correction(store, row, corrected, context, vector, now_iso)
        store.record_event(
            "feedback",
            now_iso,
            {
                "signal": signal,
                "chunk_id": row.chunk_id,
                "version": row.version,
                "before": before,
                "after": after,
                "correction": correction,
                "correction_chunk_id": correction_row["chunk_id"] if correction_row else None,
            },
            chunk=target,
        )
    if correction_row:
        ann = store.load_ann()
        ann.add(np.asarray([correction_row["id"]], dtype=np.int64), vector.reshape(1, -1))
        store.save_ann()
    return FeedbackResult(
        row.chunk_id,
        row.version,
        signal,
        round(before, 4),
        round(after, 4),
        correction_row["chunk_id"] if correction_row else None,
    )


def _record_correction(
    store: Store, corrected: Passage, text: str, embed_text: str, vector: np.ndarray, now_iso: str
) -> dict:
    """A note of kind 'correction' holding the user's text, valid from now, linked to what it corrects."""
    number = store.count_corrections() + 1
    note_id = f"correction-{number}"
    note = {
        "note_id": note_id,
        "path": f"{CORRECTIONS_PREFIX}{number}",
        "title": f"Correction of {corrected.chunk_id}",
        "kind": "correction",
        "source_type": "correction",
        "authority": SOURCE_AUTHORITY["correction"],
        "valid_from": now_iso,
        "from_source": DECLARED,
        "declared": 1,
        "doc_date": now_iso,
        "metadata": json.dumps({"corrects": corrected.chunk_id}),
        "tags": "[]",
        "created_at": now_iso,
        "updated_at": now_iso,
    }
    passage = {
        "chunk_id": f"{note_id}#correction",
        "key": "correction",
        "version": 1,
        "ordinal": 0,
        "heading": corrected.heading,
        "text": text,
        "hash": sha256_text(embed_text),
        "block_ids": "[]",
        "state": "ACTIVE",
        "created_at": now_iso,
        "updated_at": now_iso,
        "valid_from": now_iso,
        "from_source": DECLARED,
    }
    chunk = store.insert_correction(note, passage, embed_text, vector, corrected.id, now_iso)
    store.bump_generation()
    return chunk
