"""``related``'s ways of scoring notes on sample_vault, scored against the vault's own links and shared tags.

    PYTHONPATH=. python tests/measure_related.py both    # a linked note or one sharing a top-level tag is related
    PYTHONPATH=. python tests/measure_related.py links   # only a linked note is

Indexes a copy of sample_vault with the real model in a temporary folder and prints, for each method, the
share of the first three related notes that are related by that rule and how often the first one is.
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

import smartvec_cli
from smartvec_cli.embed.sentence_transformers import SentenceTransformerEmbedder

tmp = Path(tempfile.mkdtemp())
shutil.copytree("sample_vault", tmp / "v", ignore=shutil.ignore_patterns(".smartvec"))

emb = SentenceTransformerEmbedder()
with smartvec_cli.open_vault(tmp / "v", tmp / "i", embedder=emb) as v:
    v.index()
    v.consolidate()
    from smartvec_cli.memory.lineage import lineage_members

    with v.ws.open_store() as store:
        notes = {r["id"]: r for r in store.live_notes()}
        links = store.db.execute(
            "SELECT src_note, dst_note FROM edges WHERE src_chunk IS NULL AND dst_note IS NOT NULL AND src_note != "
            "dst_note AND type != 'supersedes'"
        ).fetchall()
        pairs = store.supersedes_note_pairs()
    linked = {n: set() for n in notes}
    for a, b in links:
        if a in linked and b in linked:
            linked[a].add(b)
            linked[b].add(a)
    tags = {n: {t.split("/")[0].lower() for t in json.loads(r["tags"] or "[]")} for n, r in notes.items()}
    mode = sys.argv[1] if len(sys.argv) > 1 else "both"
    truth = {
        n: {m for m in notes if m != n and (m in linked[n] or (mode == "both" and tags[n] & tags[m]))}
        - lineage_members(pairs, n)
        for n in notes
    }
    print(
        f"{len(notes)} notes, {sum(1 for n in truth if truth[n])} with a related note ({mode}), {len(pairs)} "
        "supersedes edges"
    )
    for method in ("best", "average", "mean"):
        p_at, hits1, returned = [], 0, 0
        for n in notes:
            if not truth[n]:
                continue
            got = [r.note_id for r in v.related(notes[n]["path"], top_k=3, method=method).related]
            ids = [m for m in notes if notes[m]["note_id"] in got]
            ranked = sorted(ids, key=lambda m: got.index(notes[m]["note_id"]))
            returned += len(ranked)
            good = [m for m in ranked if m in truth[n]]
            p_at.append(len(good) / 3)
            hits1 += bool(ranked and ranked[0] in truth[n])
        print(
            f"{method:9} precision@3 {sum(p_at) / len(p_at):.3f}  first-hit right {hits1}/{len(p_at)}  notes "
            f"returned {returned}"
        )
shutil.rmtree(tmp)
