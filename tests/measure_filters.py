"""What a note filter costs a question on sample_vault: the median time of ``Vault.query`` with and without one.

    PYTHONPATH=. python tests/measure_filters.py

Each question is embedded once by the real model and reused, so the times are the search's own (the
filter's selection of notes included); 5 questions, 10 rounds, every case in turn.
"""

import shutil
import statistics
import tempfile
import time
from pathlib import Path

import smartvec_cli
from smartvec_cli.embed.sentence_transformers import SentenceTransformerEmbedder


class Cached:
    """The real model, each question embedded once: the timings are the search's own."""

    def __init__(self, inner):
        self.inner, self.seen = inner, {}

    name, dim = "cached", 384
    fingerprint = property(lambda self: self.inner.fingerprint)

    def embed(self, texts):
        import numpy as np

        missing = [t for t in texts if t not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.inner.embed(missing), strict=False))
        return np.stack([self.seen[t] for t in texts])


tmp = Path(tempfile.mkdtemp())
shutil.copytree("sample_vault", tmp / "v", ignore=shutil.ignore_patterns(".smartvec"))
questions = [
    "What is the travel per diem?",
    "How many weeks of parental leave?",
    "Who owns the payments service?",
    "When is the next release?",
    "How many days can I work remotely?",
]
with smartvec_cli.open_vault(tmp / "v", tmp / "i", embedder=Cached(SentenceTransformerEmbedder())) as v:
    v.index()
    cases = (
        ("no filter", {}),
        ("--path policies", {"path": "policies"}),
        ("--tag policy", {"tag": "policy"}),
        ("--since 2023-01-01", {"since": "2023-01-01"}),
    )
    times = {label: [] for label, _ in cases}
    for q in questions:
        v.query(q, track=False)
    for _round in range(10):
        for label, kwargs in cases:
            for q in questions:
                start = time.perf_counter()
                v.query(q, track=False, **kwargs)
                times[label].append(time.perf_counter() - start)
    for label, spent in times.items():
        print(f"{label:20} median {statistics.median(spent) * 1000:.1f} ms over {len(spent)} questions")
shutil.rmtree(tmp)
