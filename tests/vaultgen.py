"""Deterministic synthetic vaults for the reliability tests, and a snapshot of what an index holds.

A generated vault looks like a real one at scale: folders, frontmatter, headings,
wikilinks between notes, ``depends_on`` and ``supersedes`` relations, aclarai comments
with their ``^anchors``, unicode. ``mutate`` applies a seeded mix of additions, edits,
deletions and renames, so that a run has every kind of work to do.
``index_state`` reduces an index folder to plain data that two runs can be compared on:
row ids and run records are left out, since they depend on the order work was done in.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

WORDS = (
    "alpha beta gamma delta policy travel remote office budget quarterly roadmap kernel cuda python vector "
    "memory lease river forest engine spark cloud harbor signal allowance contract invoice meeting review "
    "release sprint backlog latency throughput cache index archive garden kitchen bicycle mountain café "
    "naïve zürich 東京 مرحبا שלום emoji🙂"
).split()


def sentence(rng: random.Random, low: int = 6, high: int = 30) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def note_path(i: int) -> str:
    return f"area{i % 7}/note {i:05d}.md"


def note_text(rng: random.Random, i: int, n: int, sections: int = 3, paragraphs: int = 2) -> str:
    meta = [f"title: Note {i}", f"tags: [t{i % 5}]"]
    if i % 11 == 3:
        meta.append(f'depends_on: ["[[Note {rng.randrange(n)}]]"]')
    if i % 17 == 5 and i > 0:
        meta.append(f"supersedes: Note {i - 1}")
        meta.append(f"valid_from: 2024-0{1 + i % 9}-01")
    lines = ["---", *meta, "---", f"# Note {i}", ""]
    for s in range(sections):
        lines += [f"## Section {s}", ""]
        for p in range(paragraphs):
            text = f"{sentence(rng)} See [[Note {rng.randrange(n)}]]."
            if (i + s + p) % 13 == 0:
                text += f" ^blk{i}x{s}x{p}"
            lines += [text, ""]
    if i % 9 == 0:
        lines += [f"<!-- aclarai:id=concept_{i} ver={1 + i % 3} -->", f"^concept_{i}", ""]
    return "\n".join(lines)


def make_vault(root: Path, n: int, seed: int = 0, **shape) -> Path:
    rng = random.Random(seed)
    for i in range(n):
        path = root / note_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, i, n, **shape), encoding="utf-8")
    return root


def mutate(root: Path, n: int, seed: int, added: int, edited: int, deleted: int, renamed: int) -> None:
    """Add notes n.. n+added, rewrite one paragraph of some, delete and rename others (disjoint sets)."""
    rng = random.Random(seed)
    existing = sorted(p for p in root.rglob("*.md"))
    rng.shuffle(existing)
    to_edit = existing[:edited]
    to_delete = existing[edited : edited + deleted]
    to_rename = existing[edited + deleted : edited + deleted + renamed]
    for path in to_edit:
        lines = path.read_text(encoding="utf-8").split("\n")
        spots = [k for k, line in enumerate(lines) if line.endswith("].") or " ^blk" in line]
        lines[rng.choice(spots)] = f"{sentence(rng)} Edited in round {seed}."
        path.write_text("\n".join(lines), encoding="utf-8")
    for path in to_delete:
        path.unlink()
    for path in to_rename:
        target = path.with_name("moved " + path.name)
        path.rename(target)
    for i in range(n, n + added):
        path = root / note_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, i, n + added), encoding="utf-8")


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def index_state(index_dir: Path) -> dict:
    """Everything an index knows, keyed by names rather than row ids; the ANN live set included."""
    from smartvec_cli.store.ann import HnswIndex

    conn = sqlite3.connect(index_dir / "smartvec.db")
    conn.row_factory = sqlite3.Row
    note_name = {r["id"]: r["note_id"] for r in conn.execute("SELECT id, note_id FROM notes")}
    chunk_name = {
        r["id"]: f"{r['chunk_id']}@{r['version']}" for r in conn.execute("SELECT id, chunk_id, version FROM chunks")
    }

    def rows(sql: str, drop: tuple = ("id",), renames: dict | None = None) -> list:
        out = []
        for row in conn.execute(sql):
            item = {k: row[k] for k in row.keys() if k not in drop}
            for key, table in (renames or {}).items():
                item[key] = table.get(item[key]) if item[key] is not None else None
            out.append(json.dumps(item, sort_keys=True, default=str))
        return sorted(out)

    state = {
        "notes": rows("SELECT * FROM notes", renames={"superseded_by": note_name}),
        "chunks": rows(
            "SELECT c.*, n.note_id AS note_name FROM chunks c JOIN notes n ON n.id = c.note",
            drop=("id", "note"),
            renames={"superseded_by": chunk_name},
        ),
        "edges": rows(
            "SELECT * FROM edges",
            renames={"src_note": note_name, "dst_note": note_name, "src_chunk": chunk_name, "dst_chunk": chunk_name},
        ),
        "events": rows("SELECT * FROM events", renames={"chunk": chunk_name, "note": note_name}),
        "embeddings": sorted(r[0] for r in conn.execute("SELECT hash FROM embeddings")),
        "meta": {
            r[0]: r[1]
            for r in conn.execute("SELECT key, value FROM meta WHERE key NOT IN ('ann_generation', 'last_query')")
        },
    }
    dim = int(state["meta"].get("dim", 384))
    conn.close()
    saved = HnswIndex(index_dir, dim)
    saved.load()
    state["ann_live"] = sorted(chunk_name[label] for label in saved.live)
    return state
