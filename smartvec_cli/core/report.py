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
    name = name.strip()
    rel = name[2:] if name.startswith("./") else name
    queries = [
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
        "tags": json.loads(note["tags"] or "[]"),
        "metadata": metadata,
        "links": links,
        "chunks": chunks,
    }
