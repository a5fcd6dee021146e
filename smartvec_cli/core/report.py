"""What the index knows: the whole (``status``) and one note (``show``)."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from ..errors import SmartvecError, UsageError
from ..store.store import LEFT_OUT, Store
from ..vault.paths import OutsideFolder, vault_relative
from .keys import FEEDBACK_EVENT, renamed
from .results import (
    AnnStatus,
    EmbedderChoice,
    FormerName,
    GraphAttachment,
    GraphEdge,
    GraphNode,
    LastRun,
    LineageVersion,
    NoteEvent,
    NoteGraph,
    NoteHistory,
    NoteKind,
    NoteKinds,
    NoteLink,
    NoteView,
    PassageLineage,
    ReviewNote,
    StoredPassage,
    SupersededNote,
    VaultStatus,
)

BARE_SHARE_WARNED = 0.5
"""Above this share of notes with neither a kind nor a date, ``status`` warns that trust has nothing to go on:
every such note gets the default authority and never fades, so a year-old chat ranks like today's policy."""


def kinds_and_trust_warning(counts: dict) -> tuple[dict, str | None]:
    """(notes by where their kind came from, the warning when most notes give trust nothing to go on)."""
    kinds = {key: counts[key] for key in ("declared", "inferred", "unknown")}
    total, bare = sum(kinds.values()), counts["unknown_and_undated"]
    if not total or bare <= BARE_SHARE_WARNED * total:
        return kinds, None
    return kinds, (
        f"{bare} of {total} notes have neither a kind nor a date, so trust cannot tell a policy from a chat "
        "or an old note from a new one: declare source_type and date in their frontmatter, or add kind rules "
        "([kinds] or [confidence.folders] in config.toml)"
    )


def status(store: Store, vault: str, onnx_export: str | None, embedder: EmbedderChoice) -> VaultStatus:
    """What the index holds (``results.VaultStatus``); ``onnx_export`` and ``embedder`` are the workspace's."""
    kinds, trust_warning = kinds_and_trust_warning(store.note_kind_counts())
    states = store.passage_counts_by_state()
    ann = store.load_ann()
    return VaultStatus(
        vault=vault,
        index_dir=str(store.index_dir),
        model=store.fingerprint,
        notes=store.live_note_count(),
        notes_deleted=store.deleted_note_count(),
        passages_of_deleted_notes=store.deleted_notes_passage_count(),
        kinds=NoteKinds(**kinds),
        trust_warning=trust_warning,
        passages=MappingProxyType(
            {state: states.get(state, 0) for state in ("UNCONSOLIDATED", "ACTIVE", "DORMANT", "ARCHIVED", "DELETED")}
        ),
        vectors=store.vector_count(),
        edges=store.edge_count(),
        ann=AnnStatus(live=len(ann.live), tombstones=len(ann.tombstones), in_sync=ann.generation == store.generation),
        left_out=MappingProxyType(json.loads(store.get_meta(LEFT_OUT) or "{}")),
        needs_review=tuple(ReviewNote(path, reason, since) for path, reason, since in store.notes_needing_review()),
        last_run=_last_run(store.last_run()),
        notes_with_problems=store.count_note_problems(),
        onnx_export=onnx_export,
        embedder=embedder,
    )


def _last_run(run: dict | None) -> LastRun | None:
    """The latest run as ``status`` shows it: a killed one (its ``running`` record left, its process gone) is
    interrupted, with why."""
    if run is None:
        return None
    from .writing import run_status

    status, why = run_status(run)
    summary = json.loads(run["summary"] or "{}")
    return LastRun(run["command"], run["started_at"], run["finished_at"], status, MappingProxyType(summary), why)


def find_note(store: Store, name: str, vault: str | Path | None = None) -> dict:
    """A live note by path (with or without .md), note id, file name or title, in that order; else the note
    that had that path or id before it moved, or the deleted note that had it last (``history`` of the past).

    A name that is a file path is confined to ``vault``: one inside it (``/home/u/vault/a.md``, ``sub/../a``)
    is looked up by its vault path, one leaving it is refused, never matched to a note by its file name."""
    exact = name[2:] if name.startswith("./") else name  # a file name may begin or end with spaces
    name = name.strip()
    rel = name[2:] if name.startswith("./") else name
    lookups = [
        (store.live_notes_with_path, exact),
        (store.live_notes_with_path, exact + ".md"),
        (store.live_notes_with_path, rel),
        (store.live_notes_with_path, rel + ".md"),
        (store.live_notes_with_note_id, name),
        (store.live_notes_with_title, name),
    ]
    for lookup, value in lookups:
        rows = lookup(value)
        if len(rows) == 1:
            return rows[0]
    for value in dict.fromkeys((exact, exact + ".md", rel, rel + ".md", name)):
        earlier = store.notes_once_named(value) or store.deleted_notes_named(value)
        if earlier:
            return earlier[0]
    try:
        inside = vault_relative(rel, vault)
    except OutsideFolder:
        where = f"the vault ({vault})" if vault is not None else "the vault"
        raise UsageError(
            f"{name!r} is a path outside {where}; give a note's path inside it, its id or its title"
        ) from None
    if inside is not None:
        for value in (inside, inside + ".md"):
            rows = store.live_notes_with_path(value)
            if len(rows) == 1:
                return rows[0]
        raise SmartvecError(f"no note {name!r} in the index")
    stem = PurePosixPath(rel).stem.lower()
    rows = [r for r in store.live_notes() if PurePosixPath(r["path"]).stem.lower() == stem]
    if len(rows) == 1:
        return rows[0]
    if len(rows) > 1:
        raise SmartvecError(
            f"{name!r} matches {len(rows)} notes ({', '.join(r['path'] for r in rows[:5])}); give the path"
        )
    raise SmartvecError(f"no note {name!r} in the index")


def show_note(store: Store, name: str, vault: str | Path | None = None) -> NoteView:
    """One note as the index knows it (``results.NoteView``): found as ``find_note`` finds it."""
    note = find_note(store, name, vault)
    metadata = json.loads(note["metadata"] or "{}")
    passages = tuple(
        StoredPassage(
            chunk_id=c["chunk_id"],
            version=c["version"],
            state=c["state"],
            heading=c["heading"],
            text=c["text"],
            hash=c["hash"],
            valid_from=c["valid_from"],
            valid_until=c["valid_until"],
            valid_from_source=c["from_source"],
            valid_until_source=c["until_source"],
            access_count=c["access_count"],
        )
        for c in store.note_passages(note["id"])
    )
    return NoteView(
        note_id=note["note_id"],
        path=note["path"],
        deleted_at=note["deleted_at"],
        former_names=_former_names(store, note["id"]),
        title=note["title"],
        embedding_hash=note["embedding_hash"],
        last_updated=note["last_updated"],
        version=metadata.get("version", note["aclarai_ver"]),
        aclarai_id=note["aclarai_id"],
        aclarai_ver=note["aclarai_ver"],
        encoding=note["encoding"],
        kind=NoteKind(note["source_type"], note["kind_source"], note["kind_reason"]),
        authority=note["authority"],
        tags=tuple(json.loads(note["tags"] or "[]")),
        metadata=MappingProxyType(metadata),
        links=tuple(_link_entry(e) for e in store.links_of_note(note["id"])),
        passages=passages,
    )


def _former_names(store: Store, note_pk: int) -> tuple[FormerName, ...]:
    return tuple(FormerName(row["path"], row["note_id"], row["until"]) for row in store.former_names(note_pk))


def _link_entry(edge: dict) -> NoteLink:
    """A link as ``show`` lists it: the note it resolved to, else the attachment (``attachment`` says which)."""
    attachment = (
        json.loads(edge["detail"] or "{}").get("attachment")
        if edge["detail"] and "attachment" in edge["detail"]
        else None
    )
    if edge["path"] is None and attachment:
        return NoteLink(edge["type"], edge["target"], attachment, attachment=True)
    if edge["target"] is None and edge["src_passage"] is not None:
        # An edge consolidation found between two passages names no target: it is from this note's passage to
        # the other's ("contradicts").
        detail = json.loads(edge["detail"] or "{}")
        other = edge["dst_passage"] or "(a passage no longer stored)"
        return NoteLink(
            edge["type"],
            edge["src_passage"],
            f"{edge['path'] or '(a note no longer stored)'}#{other}",
            attachment=False,
            reason=detail.get("reason") if isinstance(detail, dict) else None,
            between_passages=True,
        )
    return NoteLink(edge["type"], edge["target"], edge["path"], attachment=False)


def history(store: Store, name: str, vault: str | Path | None = None) -> NoteHistory:
    """The lineage of one note (``results.NoteHistory``): every version of every passage, what replaced what, and
    when."""
    note = find_note(store, name, vault)
    passages: dict[str, list[LineageVersion]] = {}
    for row in store.passage_lineage(note["id"]):
        passages.setdefault(row["chunk_id"], []).append(
            LineageVersion(
                version=row["version"],
                state=row["state"],
                valid_from=row["valid_from"],
                valid_until=row["valid_until"],
                valid_from_source=row["from_source"],
                valid_until_source=row["until_source"],
                replaced_by=f"{row['successor']}@{row['successor_version']}" if row["successor"] else None,
                text=row["text"],
            )
        )
    superseded_by = store.note_path(note["superseded_by"]) if note["superseded_by"] else None
    inferred = store.supersession_reason(note["superseded_by"], note["id"]) if note["superseded_by"] else None
    return NoteHistory(
        note_id=note["note_id"],
        path=note["path"],
        deleted_at=note["deleted_at"],
        former_names=_former_names(store, note["id"]),
        valid_from=note["valid_from"],
        valid_until=note["valid_until"],
        superseded_by=superseded_by,
        superseded_at=note["superseded_at"],
        superseded_inferred=inferred,
        supersedes=tuple(SupersededNote(*row) for row in store.notes_superseded_by(note["id"])),
        needs_review=note["review_reason"],
        passages=tuple(PassageLineage(chunk_id, tuple(versions)) for chunk_id, versions in passages.items()),
        events=tuple(_event(at, kind, json.loads(data or "{}")) for at, kind, data in store.note_events(note["id"])),
    )


GRAPH_EDGE_TYPES = (
    "link",
    "embed",
    "depends_on",
    "supersedes",
    "related",
    "contradicts",
    "restates",
    "corrects",
    "echoes",
)


def _event(at: str, kind: str, data: dict) -> NoteEvent:
    return NoteEvent(at, kind, MappingProxyType(renamed(data, FEEDBACK_EVENT) if kind == "feedback" else data))


def graph(
    store: Store, name: str | None = None, depth: int = 1, limit: int | None = None, vault: str | Path | None = None
) -> NoteGraph:
    """Notes and the typed edges between them; with ``name``, only its neighbourhood up to ``depth`` hops.

    With ``limit``, at most that many notes (the nearest to ``name`` first, else the first indexed) and the
    edges between them; ``left_out`` says how many notes were not shown."""
    from ..memory.graph import neighbourhood

    notes = {r["id"]: r for r in store.graph_nodes()}
    pairs: dict[tuple[int, int, str], int] = {}
    inferred: dict[tuple[int, int, str], str] = {}
    for src, dst, kind, reason in store.note_to_note_edges(GRAPH_EDGE_TYPES):
        if src in notes and dst in notes:
            pairs[(src, dst, kind)] = pairs.get((src, dst, kind), 0) + 1
            if reason:
                inferred[(src, dst, kind)] = reason
    order = sorted(notes)
    if name is not None:
        distance = neighbourhood(((a, b) for a, b, _ in pairs), find_note(store, name, vault)["id"], max(depth, 0))
        order = sorted(distance, key=lambda n: (distance[n], n))
    left_out = max(0, len(order) - limit) if limit else 0
    keep = set(order[: len(order) - left_out])
    files: dict[tuple[int, str, str], int] = {}
    for src, kind, detail in store.attachment_links():
        attachment = json.loads(detail).get("attachment")
        if src in keep and attachment:
            files[(src, attachment, kind)] = files.get((src, attachment, kind), 0) + 1
    return NoteGraph(
        nodes=tuple(GraphNode(notes[n]["note_id"], notes[n]["path"], notes[n]["title"]) for n in sorted(keep)),
        edges=tuple(
            GraphEdge(notes[a]["note_id"], notes[b]["note_id"], kind, count, inferred.get((a, b, kind)))
            for (a, b, kind), count in sorted(pairs.items())
            if a in keep and b in keep
        ),
        attachments=tuple(
            GraphAttachment(notes[src]["note_id"], path, kind, count)
            for (src, path, kind), count in sorted(files.items())
        ),
        left_out=left_out,
    )
