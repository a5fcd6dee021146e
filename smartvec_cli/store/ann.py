"""The approximate-nearest-neighbour index: hnswlib over cosine space, a cache of SQLite's vectors.

The index is never trusted blindly. Each save writes ``vectors-<generation>.hnsw``
and then the sidecar ``vectors.json`` that names it, both through a temporary name
and a rename; the sidecar's rename is the commit point, so the pair on disk is
always consistent. The generation is SQLite's ``ann_generation`` at save time; when
the database has moved on (a crash between the SQLite commit and the save, or a
reader racing a writer) the loaded index is reconciled in memory against the
database: missing labels are added from the stored vectors, extra ones tombstoned.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import AbstractSet, Callable, Iterable, Protocol

import numpy as np

from ..errors import SmartvecError
from .layout import (
    ANN_FILE_GLOB,
    ANN_SIDECAR_FILE,
    IndexLayout,
    ann_file_name,
    is_ann_file_name,
    is_own_temp_name,
    refusal,
    temp_path,
)

LOAD_ATTEMPTS = 5
M = 16
EF_CONSTRUCTION = 200
EF_PER_RESULT = 2  # a search list at least twice the results asked for
MIN_EF = 64
PASSAGES_PER_EF = 100
"""The search list also grows with the index: a fixed one loses true neighbours as the graph grows. On the
benchmark's real vectors grown to 100,000 passages by near-copies, recall@50 against exact search was 0.93 at
ef=100, 0.990 at 400, 0.996 at 700 and 0.999 at 1,000 (one entry per 100 passages); ``bench perf`` measures it."""


def search_list_size(size: int, k: int) -> int:
    """hnswlib's ``ef`` for ``k`` results from an index of ``size`` live items."""
    return max(MIN_EF, EF_PER_RESULT * k, size // PASSAGES_PER_EF)


class VectorIndex(Protocol):
    """What search, indexing and the reports need from a vector index: ``HnswIndex`` (a file beside SQLite)
    or ``postgres.store.PgVectorIndex`` (the server's table)."""

    generation: int

    @property
    def live(self) -> AbstractSet[int]:
        """The passages search can find."""

    @property
    def tombstones(self) -> AbstractSet[int]:
        """Removed passages the index still carries until it is compacted."""

    @property
    def has_graph(self) -> bool:
        """Whether ``search`` has a graph to walk (else only ``exact_search`` answers without building one)."""

    def add(self, labels: np.ndarray, vectors: np.ndarray) -> None: ...
    def remove(self, labels: Iterable[int]) -> None: ...
    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]: ...
    def search_many(self, vectors: np.ndarray, k: int) -> list[list[tuple[int, float]]]: ...
    def exact_search(
        self, vector: np.ndarray, k: int, fetch_vectors: Callable[[list[int]], np.ndarray]
    ) -> list[tuple[int, float]]: ...
    def exact_matrix(self, fetch_vectors: Callable[[list[int]], np.ndarray]) -> tuple[np.ndarray, np.ndarray]: ...
    def needs_compaction(self, ratio: float = 0.2, minimum: int = 1000) -> bool: ...
    def saved_generation(self) -> int | None: ...
    def saved_file_name(self) -> str | None: ...
    def verify(self) -> str | None: ...
    def save(self, generation: int) -> None: ...


class CorruptIndexError(SmartvecError):
    """The index files exist but cannot be read."""


class HnswIndex:
    """hnswlib with tombstone accounting, atomic saves and reconciliation against SQLite."""

    def __init__(self, folder: Path, dim: int):
        self.folder = Path(folder)
        self.layout = IndexLayout(self.folder)
        self.dim = dim
        self.index = self._new(1024)
        self.live: set[int] = set()
        self.tombstones: set[int] = set()
        self.generation = -1
        self.saved_count: int | None = None  # the live count the sidecar recorded, checked against the loaded labels
        self._exact: tuple[np.ndarray, np.ndarray] | None = None  # (labels, unit rows): see ``exact_search``
        self._refill: Callable[[list[int]], np.ndarray] | None = None  # set while there is no graph: see ``exact_only``

    @property
    def sidecar(self) -> Path:
        return self.layout.ann_sidecar

    def _new(self, capacity: int):
        import hnswlib

        index = hnswlib.Index(space="cosine", dim=self.dim)
        index.init_index(max_elements=max(capacity, 1024), ef_construction=EF_CONSTRUCTION, M=M)
        index.set_ef(MIN_EF)
        return index

    def _read_sidecar(self) -> str | None:
        try:
            return self.sidecar.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CorruptIndexError(f"vector index in {self.folder} is unreadable ({exc.strerror or exc})") from None

    def load(self) -> bool:
        """Load the saved index; False (leaving an empty index) when none was saved.

        Raises :class:`CorruptIndexError` when the files are there but unreadable. A reader
        can lose a race with a writer that saves a newer index and removes the file the
        reader's sidecar named; the sidecar has then changed, and the load starts over.
        """
        for attempt in range(LOAD_ATTEMPTS):
            raw = self._read_sidecar()
            if raw is None:
                return False
            try:
                self._load(raw)
                return True
            except CorruptIndexError:
                if attempt + 1 < LOAD_ATTEMPTS and self._read_sidecar() != raw:
                    continue
                raise
        return False

    def _load(self, raw_sidecar: str) -> None:
        import hnswlib

        try:
            meta = json.loads(raw_sidecar)
            path = self.folder / sidecar_file_name(meta)
            if meta.get("dim") != self.dim:
                raise ValueError(f"dimension {meta.get('dim')} != {self.dim}")
            foreign = refusal(path, folder=False)
            if foreign:
                raise ValueError(foreign)
            size = path.stat().st_size
            if "bytes" in meta and size != meta["bytes"]:
                raise ValueError(
                    f"{meta['file']} is {size} bytes, {meta['bytes']} were saved: truncated or overwritten"
                )
            index = hnswlib.Index(space="cosine", dim=self.dim)
            index.load_index(str(path), max_elements=int(meta["capacity"]))
            labels = set(int(x) for x in index.get_ids_list())
        except FileNotFoundError as exc:
            raise CorruptIndexError(
                f"vector index in {self.folder} is unreadable ({exc.filename} is missing)"
            ) from None
        except (OSError, ValueError, KeyError, RuntimeError, TypeError, MemoryError, json.JSONDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise CorruptIndexError(f"vector index in {self.folder} is unreadable ({reason})") from None
        self.index = index
        self.index.set_ef(MIN_EF)
        self._exact = None
        self.tombstones = set(int(x) for x in meta.get("tombstones", [])) & labels
        self.live = labels - self.tombstones
        self.generation = int(meta.get("generation", -1))
        self.saved_count = meta.get("count") if isinstance(meta.get("count"), int) else None
        self._refill = None

    def verify(self) -> str | None:
        """What is wrong with the saved file's bytes, or None: a full checksum, too slow for every load."""
        raw = self._read_sidecar()
        if raw is None:
            return None
        try:
            meta = json.loads(raw)
            expected = meta.get("sha256")
            path = self.folder / sidecar_file_name(meta)
        except (ValueError, KeyError, TypeError, AttributeError):
            return f"its sidecar {ANN_SIDECAR_FILE} is not valid"
        if not expected:
            return None
        try:
            actual = file_sha256(path)
        except OSError as exc:
            return f"{path.name} cannot be read ({exc.strerror or exc})"
        return None if actual == expected else f"{path.name} does not match the checksum it was saved with"

    def saved_file_name(self) -> str | None:
        """The name of the ANN file the sidecar names, or None when the sidecar cannot be read."""
        try:
            return sidecar_file_name(json.loads(self.sidecar.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def saved_generation(self) -> int | None:
        """The generation of the saved index, read from the sidecar alone (cheap: no index load)."""
        try:
            return int(json.loads(self.sidecar.read_text())["generation"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @property
    def has_graph(self) -> bool:
        """False while the saved graph was found damaged and nothing has needed a new one (see ``exact_only``)."""
        return self._refill is None

    def exact_only(self, labels: list[int], fetch_vectors: Callable[[list[int]], np.ndarray]) -> None:
        """Serve ``labels`` without a graph: ``exact_search`` multiplies the stored vectors, which needs none.

        For a damaged saved file, a reader answers at once and exactly instead of building a graph it
        would throw away; the first call that needs the graph (a writer adding, removing or saving, a
        graph search) builds it from ``fetch_vectors``."""
        self.index = self._new(1024)
        self.live, self.tombstones = set(int(x) for x in labels), set()
        self.generation = -1
        self._exact = None
        self._refill = fetch_vectors

    def _graph(self):
        if self._refill is not None:
            labels = sorted(self.live)
            self.rebuild(np.asarray(labels, dtype=np.int64), self._refill(labels))
        return self.index

    def _ensure_capacity(self, extra: int) -> None:
        needed = self.index.get_current_count() + extra
        capacity = self.index.get_max_elements()
        if needed > capacity:
            self.index.resize_index(max(needed, capacity * 2))

    def add(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        labels = np.asarray(labels, dtype=np.int64)
        if len(labels) == 0:
            return
        self._graph()
        for label in labels:
            if int(label) in self.tombstones:
                self.index.unmark_deleted(int(label))
                self.tombstones.discard(int(label))
        self._ensure_capacity(len(labels))
        self.index.add_items(np.asarray(vectors, dtype=np.float32), labels)
        self.live.update(int(x) for x in labels)
        self._exact = None

    def remove(self, labels: Iterable[int]) -> None:
        labels = [int(x) for x in labels]
        if any(label in self.live for label in labels):
            self._graph()
        for label in labels:
            label = int(label)
            if label in self.live:
                self.index.mark_deleted(label)
                self.live.discard(label)
                self.tombstones.add(label)
                self._exact = None

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(label, cosine similarity) pairs, best first: approximate, its search list sized by ``search_list_size``."""
        if not self.live or k <= 0:
            return []
        k = min(k, len(self.live))
        self._graph().set_ef(search_list_size(len(self.live), k))
        labels, distances = self.index.knn_query(np.asarray(vector, dtype=np.float32).reshape(1, -1), k=k)
        return [(int(label), float(1.0 - d)) for label, d in zip(labels[0], distances[0], strict=True)]

    def search_many(self, vectors: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """``search`` for each of ``vectors`` in one ``knn_query`` (consolidation asks for every queued passage's
        neighbours): the same lists, the graph searched for every vector alike, on every core."""
        if not len(vectors):
            return []
        if not self.live or k <= 0:
            return [[] for _ in vectors]
        k = min(k, len(self.live))
        self._graph().set_ef(search_list_size(len(self.live), k))
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
        labels, distances = self.index.knn_query(matrix, k=k)
        return [
            [(int(label), float(1.0 - d)) for label, d in zip(row_labels, row_distances, strict=True)]
            for row_labels, row_distances in zip(labels.tolist(), distances.tolist(), strict=True)
        ]

    def exact_search(
        self, vector: np.ndarray, k: int, fetch_vectors: Callable[[list[int]], np.ndarray]
    ) -> list[tuple[int, float]]:
        """(label, cosine similarity) pairs, best first, over every live item: one matrix product.

        The graph can miss a true neighbour (many near-duplicates crowd it); this cannot. The
        matrix of the live items' vectors comes from ``fetch_vectors`` (the database's stored
        vectors, read in one pass: hnswlib's ``get_items`` copies them out one item at a time, far
        slower at this size) and is kept until the live set changes, so a long-lived reader pays
        for it once."""
        if not self.live or k <= 0:
            return []
        return cosine_top_k(self.exact_matrix(fetch_vectors), vector, k)

    def exact_matrix(self, fetch_vectors: Callable[[list[int]], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The live items' labels and unit vectors, as ``exact_search`` multiplies them (read once per live set)."""
        if self._exact is None:
            labels = sorted(self.live)
            self._exact = unit_matrix(labels, fetch_vectors(labels))
        return self._exact

    def rebuild(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        """A fresh index holding exactly these items: compaction drops every tombstone."""
        self.index = self._new(int(len(labels) * 1.25) + 16)
        self.live, self.tombstones = set(), set()
        self._exact = None
        self._refill = None
        if len(labels):
            self.index.add_items(np.asarray(vectors, dtype=np.float32), np.asarray(labels, dtype=np.int64))
            self.live = set(int(x) for x in labels)

    def needs_compaction(self, ratio: float = 0.2, minimum: int = 1000) -> bool:
        return len(self.tombstones) >= minimum and len(self.tombstones) > ratio * max(len(self.live), 1)

    def reconcile(self, expected: set[int], fetch_vectors: Callable[[list[int]], np.ndarray]) -> tuple[int, int]:
        """Make the live set equal ``expected``; returns (added, removed)."""
        missing = sorted(expected - self.live)
        extra = sorted(self.live - expected)
        self.remove(extra)
        for start in range(0, len(missing), 4096):
            batch = missing[start : start + 4096]
            self.add(np.asarray(batch, dtype=np.int64), fetch_vectors(batch))
        return len(missing), len(extra)

    def save(self, generation: int) -> None:
        """Write ``vectors-<generation>.hnsw``, then commit by renaming the sidecar that names it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._graph()
        name = ann_file_name(generation)
        target = self.layout.ann_file(generation)
        tmp_index = temp_path(target)
        tmp_meta = temp_path(self.sidecar)
        meta = {
            "file": name,
            "generation": generation,
            "dim": self.dim,
            "capacity": self.index.get_max_elements(),
            "count": len(self.live),
            "tombstones": sorted(self.tombstones),
        }
        try:
            self.index.save_index(str(tmp_index))
            meta["bytes"] = tmp_index.stat().st_size
            meta["sha256"] = file_sha256(tmp_index)
            os.replace(tmp_index, target)
            tmp_meta.write_text(json.dumps(meta))
            os.replace(tmp_meta, self.sidecar)
        except OSError as exc:
            raise SmartvecError(f"cannot write vector index in {self.folder}: {exc.strerror or exc}") from None
        for old in self.folder.glob(ANN_FILE_GLOB):
            if old.name != name and (is_ann_file_name(old.name) or is_own_temp_name(old.name)):
                try:
                    old.unlink()
                except OSError:
                    pass
        self.generation = generation


def sidecar_file_name(meta) -> str:
    """The vector file a sidecar names: only a name ``save`` makes (``vectors-N.hnsw``) in the index folder itself;
    anything else (an absolute path, ``..``, another file's name) is a ValueError, as a damaged sidecar is."""
    name = meta["file"]
    if not is_ann_file_name(name):
        raise ValueError(f"{ANN_SIDECAR_FILE} names {str(name)[:80]!r}, not a vector file smartvec made")
    return name


def unit_matrix(labels: list[int], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(labels, their vectors scaled to unit length): what ``cosine_top_k`` searches."""
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(labels, dtype=np.int64), rows / np.where(norms > 0, norms, 1.0)


def cosine_top_k(matrix: tuple[np.ndarray, np.ndarray], vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(label, cosine similarity) of the ``k`` rows of ``unit_matrix`` most similar to ``vector``, best first."""
    labels, rows = matrix
    if not len(labels) or k <= 0:
        return []
    query = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(query))
    # einsum's own single-threaded loop rather than BLAS: OpenBLAS's threads wait for each other on a machine
    # whose cores are busy, and a product this small gains nothing from them (docs/benchmarks.md).
    similarities = np.einsum("ij,j->i", rows, query / norm if norm > 0 else query)
    k = min(k, len(labels))
    best = np.argpartition(-similarities, k - 1)[:k] if k < len(labels) else np.arange(len(labels))
    best = best[np.argsort(-similarities[best], kind="stable")]
    return [(int(labels[i]), float(similarities[i])) for i in best]


QUERY_BLOCK = 256


def cosine_top_k_many(
    matrix: tuple[np.ndarray, np.ndarray], vectors: np.ndarray, k: int
) -> list[list[tuple[int, float]]]:
    """``cosine_top_k`` for many query vectors at once: one matrix product per block of ``QUERY_BLOCK`` queries
    (BLAS pays off here, unlike for one vector), best first for each."""
    labels, rows = matrix
    vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    if not len(labels) or k <= 0:
        return [[] for _ in range(len(vectors))]
    k = min(k, len(labels))
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors / np.where(norms > 0, norms, 1.0)
    found: list[list[tuple[int, float]]] = []
    for start in range(0, len(queries), QUERY_BLOCK):
        similarities = queries[start : start + QUERY_BLOCK] @ rows.T
        best = (
            np.argpartition(-similarities, k - 1, axis=1)[:, :k]
            if k < len(labels)
            else np.tile(np.arange(len(labels)), (len(similarities), 1))
        )
        for row, picked in zip(similarities, best, strict=True):
            picked = picked[np.argsort(-row[picked], kind="stable")]
            found.append([(int(labels[i]), float(row[i])) for i in picked])
    return found


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
