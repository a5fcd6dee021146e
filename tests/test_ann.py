"""The ANN index is a cache: atomic files, catching up after a crash, rebuilt when unreadable."""

import numpy as np
import pytest
from conftest import write

from smartvec_cli.store.ann import CorruptIndexError, HnswIndex
from smartvec_cli.store.sqlite import SqliteStore


def unit_vectors(n, dim=8, seed=0):
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_save_and_load_round_trip_with_tombstones(tmp_path):
    vectors = unit_vectors(20)
    index = HnswIndex(tmp_path, 8)
    index.add(np.arange(20), vectors)
    index.remove([3, 4])
    index.save(7)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors-7.hnsw", "vectors.json"]
    loaded = HnswIndex(tmp_path, 8)
    assert loaded.load() and loaded.generation == 7
    assert loaded.tombstones == {3, 4} and len(loaded.live) == 18
    assert loaded.search(vectors[5], 1)[0][0] == 5
    assert all(label not in (3, 4) for label, _ in loaded.search(vectors[3], 18))
    loaded.add(np.array([3]), vectors[3:4])
    assert loaded.search(vectors[3], 1)[0][0] == 3


def test_a_new_save_replaces_the_old_file(tmp_path):
    index = HnswIndex(tmp_path, 8)
    index.add(np.arange(5), unit_vectors(5))
    index.save(1)
    index.save(2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors-2.hnsw", "vectors.json"]


def test_the_exact_matrix_is_read_once_whether_prepared_or_searched(tmp_path):
    """``prepare_search`` reads the matrix before the question's vector exists (a cold query's wait for its model);
    ``exact_search`` then multiplies what was read, and reads again only once the live set changes."""
    vectors = unit_vectors(30)
    index = HnswIndex(tmp_path, 8)
    index.add(np.arange(30), vectors)
    index.remove([4])
    reads = []
    fetch = lambda labels: (reads.append(list(labels)), vectors[labels])[1]  # noqa: E731
    labels, rows = index.exact_matrix(fetch)
    assert labels.tolist() == [label for label in range(30) if label != 4] and np.allclose(rows, vectors[labels])
    found = index.exact_search(vectors[7], 3, fetch)
    assert found[0][0] == 7 and len(reads) == 1
    index.remove([7])
    assert index.exact_search(vectors[7], 3, fetch)[0][0] != 7 and len(reads) == 2


def test_compaction_drops_tombstones(tmp_path):
    vectors = unit_vectors(50)
    index = HnswIndex(tmp_path, 8)
    index.add(np.arange(50), vectors)
    index.remove(range(30))
    assert index.needs_compaction(minimum=10)
    index.rebuild(np.arange(30, 50), vectors[30:])
    assert not index.tombstones and len(index.live) == 20
    assert not index.needs_compaction(minimum=10)


def test_queries_catch_up_when_the_ann_save_never_happened(vault, cli, fake_embedder, monkeypatch):
    write(vault, "a.md", "# A\n\nApples grow on trees in the orchard.\n")
    cli.json("index", "--json")
    write(vault, "b.md", "# B\n\nSubmarines dive under the ocean waves.\n")
    with monkeypatch.context() as patch:
        patch.setattr(HnswIndex, "save", lambda self, generation: None)  # as if killed after the commit
        cli.json("index", "--json")
    status = cli.json("status", "--json")["ann"]
    assert status["in_sync"] is False and status["live"] == 2  # the saved file lags; caught up in memory
    hits = cli.json("query", "submarines ocean", "--json")
    assert hits[0]["path"] == "b.md"
    cli.json("index", "--json")
    assert cli.json("status", "--json")["ann"]["in_sync"] is True
    with SqliteStore.open(vault.parent / "index") as store:
        assert store.ann.load() and store.ann.generation == store.generation


def test_an_unreadable_index_file_is_rebuilt_from_stored_vectors(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nApples grow on trees in the orchard.\n")
    cli.json("index", "--json")
    [hnsw] = (vault.parent / "index").glob("vectors-*.hnsw")
    hnsw.write_bytes(b"garbage")
    fake_embedder.embedded.clear()
    result = cli("query", "apples orchard", "--json")
    assert result.exit_code == 0 and "searching the stored vectors exactly instead" in result.stderr
    assert "smartvec doctor --repair" in result.stderr
    assert fake_embedder.embedded == ["apples orchard"]
    write(vault, "b.md", "# B\n\nBananas grow in bunches.\n")
    summary = cli.json("index", "--json")  # a writer that touches the index saves a good one
    assert summary["passages_embedded"] == 1
    assert cli("query", "apples orchard").stderr == ""


def test_a_reader_racing_a_saving_writer_loads_the_new_index(tmp_path, monkeypatch):
    vectors = unit_vectors(10)
    first = HnswIndex(tmp_path, 8)
    first.add(np.arange(5), vectors[:5])
    first.save(1)
    writer = HnswIndex(tmp_path, 8)
    writer.load()
    writer.add(np.arange(5, 10), vectors[5:])
    reader = HnswIndex(tmp_path, 8)
    original = HnswIndex._load
    raced = []

    def racing(self, raw_sidecar):
        if self is reader and not raced:
            raced.append(True)
            writer.save(2)  # after the reader read the sidecar: its vectors-1.hnsw is gone
        return original(self, raw_sidecar)

    monkeypatch.setattr(HnswIndex, "_load", racing)
    assert reader.load()
    assert raced and reader.generation == 2 and reader.live == set(range(10))


def test_a_truncated_file_is_caught_before_hnswlib_reads_it(tmp_path):
    index = HnswIndex(tmp_path, 8)
    index.add(np.arange(50), unit_vectors(50))
    index.save(3)
    path = tmp_path / "vectors-3.hnsw"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(CorruptIndexError, match="truncated"):
        HnswIndex(tmp_path, 8).load()
    assert HnswIndex(tmp_path, 8).verify() and "checksum" in HnswIndex(tmp_path, 8).verify()


def test_many_queries_at_once_find_what_one_query_at_a_time_finds():
    """Consolidation asks for thousands of neighbour lists at once (``cosine_top_k_many``, in blocks)."""
    from smartvec_cli.store.ann import QUERY_BLOCK, cosine_top_k, cosine_top_k_many, unit_matrix

    rng = np.random.default_rng(3)
    matrix = unit_matrix(list(range(100, 700)), rng.normal(size=(600, 16)))
    queries = rng.normal(size=(QUERY_BLOCK + 7, 16)) * 3
    many = cosine_top_k_many(matrix, queries, 5)
    assert len(many) == len(queries)
    for query, found in zip(queries, many, strict=False):
        one = cosine_top_k(matrix, query, 5)
        assert [label for label, _ in found] == [label for label, _ in one]
        assert np.allclose([s for _, s in found], [s for _, s in one], atol=1e-5)
    everything = cosine_top_k_many(matrix, queries[:2], 1000)[1]  # more asked than there are: all, best first
    assert len(everything) == 600 and [s for _, s in everything] == sorted((s for _, s in everything), reverse=True)
