"""What the index knows: the whole (``status``) and one note (``show``)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from ..errors import SmartvecError
from ..store.store import Store


def status(store: Store, vault: str) -> dict:
    db = store.db
    states = {row[0]: row[1] for row in db.execute("SELECT state, COUNT(*) FROM chunks GROUP BY state")}
    last_run = db.execute("SELECT command, started_at, finished_at, status, summary FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    ann = store.load_ann()
    return {
        "vault": vault,
        "index_dir": str(store.index_dir),
        "model": store.fingerprint,
        "notes": db.execute("SELECT COUNT(*) FROM notes WHERE deleted_at IS NULL").fetchone()[0],
        "notes_deleted": db.execute("SELECT COUNT(*) FROM notes WHERE deleted_at IS NOT NULL").fetchone()[0],
        "chunks": {state: states.get(state, 0) for state in ("UNCONSOLIDATED", "ACTIVE", "DORMANT", "ARCHIVED", "DELETED")},
        "vectors": db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0],
        "edges": db.execute("SELECT COUNT(*) FROM edges").fetchone()[0],
        "ann": {"live": len(ann.live), "tombstones": len(ann.tombstones), "in_sync": ann.generation == store.generation},
        "needs_review": [
            {"path": r[0], "reason": r[1], "since": r[2]}
            for r in db.execute(
                "SELECT path, review_reason, review_since FROM notes WHERE review_reason IS NOT NULL AND deleted_at IS NULL ORDER BY path"
            )
        ],
        "last_run": (
            {
                "command": last_run[0],
                "started_at": last_run[1],
                "finished_at": last_run[2],
                "status": last_run[3],
                "summary": json.loads(last_run[4] or "{}"),
            }
            if last_run
            else None
        ),
    }


def find_note(store: Store, name: str) -> dict:
    """A live note by path (with or without .md), note id, file name or title, in that order."""
    exact = name[2:] if name.startswith("./") else name  # a file name may begin or end with spaces
    name = name.strip()
    rel = name[2:] if name.startswith("./") else name
    queries = [
        ("path = ?", exact),
        ("path = ?", exact + ".md"),
        ("path = ?", rel),
        ("path = ?", rel + ".md"),
        ("note_id = ?", name),
        ("lower(title) = lower(?)", name),
    ]
    for where, value in queries:
        rows = list(store.db.query(f"SELECT * FROM notes WHERE deleted_at IS NULL AND {where}", [value]))
        if len(rows) == 1:
            return rows[0]
    stem = PurePosixPath(rel).stem.lower()
    rows = [
        r for r in store.db.query("SELECT * FROM notes WHERE deleted_at IS NULL") if PurePosixPath(r["path"]).stem.lower() == stem
    ]
    if len(rows) == 1:
        return rows[0]
    if len(rows) > 1:
        raise SmartvecError(f"{name!r} matches {len(rows)} notes ({', '.join(r['path'] for r in rows[:5])}); give the path")
    raise SmartvecError(f"no note {name!r} in the index")


def show_note(store: Store, name: str) -> dict:
    note = find_note(store, name)
    metadata = json.loads(note["metadata"] or "{}")
    chunks = [
        {
            "chunk_id": c["chunk_id"],
            "version": c["version"],
            "state": c["state"],
            "heading": c["heading"],
            "text": c["text"],
            "hash": c["hash"],
            "valid_from": c["valid_from"],
            "valid_until": c["valid_until"],
            "access_count": c["access_count"],
        }
        for c in store.db.query(
            "SELECT * FROM chunks WHERE note = ? AND state != 'DELETED' ORDER BY state = 'ARCHIVED', ordinal, version", [note["id"]]
        )
    ]
    links = [
        {"type": e["type"], "target": e["target"], "resolved": e["path"]}
        for e in store.db.query(
            "SELECT e.type, e.target, n.path FROM edges e LEFT JOIN notes n ON n.id = e.dst_note WHERE e.src_note = ? ORDER BY e.id",
            [note["id"]],
        )
    ]
    return {
        "note_id": note["note_id"],
        "path": note["path"],
        "title": note["title"],
        "embedding_hash": note["embedding_hash"],
        "last_updated": note["last_updated"],
        "version": metadata.get("version", note["aclarai_ver"]),
        "aclarai_id": note["aclarai_id"],
        "aclarai_ver": note["aclarai_ver"],
        "encoding": note["encoding"],
        "tags": json.loads(note["tags"] or "[]"),
        "metadata": metadata,
        "links": links,
        "chunks": chunks,
    }


def history(store: Store, name: str) -> dict:
    """The lineage of one note: every version of every passage, what replaced what, and when."""
    note = find_note(store, name)
    passages: dict[str, list[dict]] = {}
    rows = store.db.query(
        """SELECT c.*, s.chunk_id AS successor, s.version AS successor_version
           FROM chunks c LEFT JOIN chunks s ON s.id = c.superseded_by
           WHERE c.note = ? ORDER BY c.ordinal, c.version""",
        [note["id"]],
    )
    for row in rows:
        passages.setdefault(row["chunk_id"], []).append(
            {
                "version": row["version"],
                "state": row["state"],
                "valid_from": row["valid_from"],
                "valid_until": row["valid_until"],
                "replaced_by": f"{row['successor']}@{row['successor_version']}" if row["successor"] else None,
                "text": row["text"],
            }
        )
    superseded_by = store.db.execute("SELECT path FROM notes WHERE id = ?", [note["superseded_by"]]).fetchone() if note["superseded_by"] else None
    supersedes = [
        {"path": r[0], "until": r[1]}
        for r in store.db.execute(
            "SELECT n.path, n.superseded_at FROM edges e JOIN notes n ON n.id = e.dst_note WHERE e.type = 'supersedes' AND e.src_note = ?",
            [note["id"]],
        )
    ]
    events = [
        {"at": r[0], "kind": r[1], **json.loads(r[2] or "{}")}
        for r in store.db.execute(
            "SELECT at, kind, data FROM events WHERE note = ? OR chunk IN (SELECT id FROM chunks WHERE note = ?) ORDER BY id",
            [note["id"], note["id"]],
        )
    ]
    return {
        "note_id": note["note_id"],
        "path": note["path"],
        "valid_from": note["valid_from"],
        "valid_until": note["valid_until"],
        "superseded_by": superseded_by[0] if superseded_by else None,
        "superseded_at": note["superseded_at"],
        "supersedes": supersedes,
        "needs_review": note["review_reason"],
        "passages": [{"chunk_id": chunk_id, "versions": versions} for chunk_id, versions in passages.items()],
        "events": events,
    }


GRAPH_EDGE_TYPES = ("link", "embed", "depends_on", "supersedes", "related", "contradicts", "restates", "corrects")


def graph(store: Store, name: str | None = None, depth: int = 1) -> dict:
    """Notes and the typed edges between them; with ``name``, only its neighbourhood up to ``depth`` hops."""
    notes = {r["id"]: r for r in store.db.query("SELECT id, note_id, path, title FROM notes WHERE deleted_at IS NULL")}
    pairs: dict[tuple[int, int, str], int] = {}
    marks = ",".join("?" * len(GRAPH_EDGE_TYPES))
    for src, dst, kind in store.db.execute(
        f"SELECT src_note, dst_note, type FROM edges WHERE dst_note IS NOT NULL AND src_note != dst_note AND type IN ({marks})",
        list(GRAPH_EDGE_TYPES),
    ):
        if src in notes and dst in notes:
            pairs[(src, dst, kind)] = pairs.get((src, dst, kind), 0) + 1
    keep = set(notes)
    if name is not None:
        start = find_note(store, name)["id"]
        keep, frontier = {start}, {start}
        for _ in range(max(depth, 0)):
            frontier = {b for a, b, _ in pairs if a in frontier} | {a for a, b, _ in pairs if b in frontier}
            frontier -= keep
            keep |= frontier
    return {
        "nodes": [{"id": notes[n]["note_id"], "path": notes[n]["path"], "title": notes[n]["title"]} for n in sorted(keep)],
        "edges": [
            {"source": notes[a]["note_id"], "target": notes[b]["note_id"], "type": kind, "count": count}
            for (a, b, kind), count in sorted(pairs.items())
            if a in keep and b in keep
        ],
    }


def graph_as_mermaid(data: dict) -> str:
    ids = {node["id"]: f"n{i}" for i, node in enumerate(data["nodes"])}
    lines = ["graph LR"]
    for node in data["nodes"]:
        title = node["title"].replace('"', "'")
        lines.append(f'  {ids[node["id"]]}["{title}"]')
    arrows = {"contradicts": "-.->", "supersedes": "==>"}
    for edge in data["edges"]:
        lines.append(f"  {ids[edge['source']]} {arrows.get(edge['type'], '-->')}|{edge['type']}| {ids[edge['target']]}")
    return "\n".join(lines)


def graph_as_dot(data: dict) -> str:
    def quote(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph smartvec {", "  rankdir=LR;"]
    for node in data["nodes"]:
        lines.append(f"  {quote(node['id'])} [label={quote(node['title'])}];")
    styles = {"contradicts": ' style=dashed color=red', "supersedes": " style=bold"}
    for edge in data["edges"]:
        lines.append(f"  {quote(edge['source'])} -> {quote(edge['target'])} [label={quote(edge['type'])}{styles.get(edge['type'], '')}];")
    lines.append("}")
    return "\n".join(lines)
