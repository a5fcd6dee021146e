"""What selecting a filter's notes costs on 5,000 generated notes (the tests' fake embedder: no model).

    PYTHONPATH=. python tests/measure_filter_scale.py

Prints the median time, of 10, to pick the notes and their passages for three filters, and of a whole
query with and without a filter.
"""

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, "tests")
from conftest import FakeEmbedder

import smartvec_cli
from smartvec_cli.core.filters import matching_notes, note_filter

tmp = Path(tempfile.mkdtemp())
v = tmp / "v"  # removed at the end
N = 5000
for i in range(N):
    p = v / f"folder{i % 50}" / f"note{i}.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(
        f"---\ntags: [t{i % 20}, area/a{i % 7}]\nstatus: s{i % 3}\ndate: 2023-{1 + i % 12:02}-01\n---\n# Note {i}\n\n"
        f"Text {i} about topic {i % 30}.\n"
    )
with smartvec_cli.open_vault(v, tmp / "i", embedder=FakeEmbedder()) as api:
    t = time.perf_counter()
    api.index()
    print(f"indexed {N} notes in {time.perf_counter() - t:.0f} s")
    with api.ws.open_store() as store:
        for label, f in (
            ("--tag t3", note_filter(tags="t3")),
            ("--path folder7", note_filter(paths="folder7")),
            ("--where status=s1 --since 2023-06-01", note_filter(where=["status=s1"], since="2023-06-01")),
        ):
            spent = []
            for _ in range(10):
                t = time.perf_counter()
                kept = matching_notes(
                    store.note_filter_fields(f.needles(), fields=bool(f.tags or f.where or f.since or f.until)),
                    f,
                    api.ws.clock.now(),
                    ["en"],
                )
                rows = store.passage_rows_of_notes(sorted(kept))
                spent.append(time.perf_counter() - t)
            print(
                f"{label:40} {len(kept)} notes, {len(rows)} passages: median {statistics.median(spent) * 1000:.1f} "
                "ms to select"
            )
    for label, kw in (("no filter", {}), ("--tag t3", {"tag": "t3"})):
        spent = []
        for i in range(10):
            t = time.perf_counter()
            api.query(f"topic {i}", track=False, **kw)
            spent.append(time.perf_counter() - t)
        print(f"query {label:30} median {statistics.median(spent) * 1000:.1f} ms")
shutil.rmtree(tmp)
