"""Candidates are not lost: exact cosine where it is documented, and where the graph would miss."""

import numpy as np
from conftest import write

from smartvec_cli.bench.metrics import recall_at
from smartvec_cli.bench.perf import grown_vectors
from smartvec_cli.store.ann import HnswIndex, search_list_size

SHORT_NOTES = {
    "Parking.md": "# Parking\n\nVisitors park on level minus two of the garage behind reception.\n",
    "Badges.md": "# Badges\n\nLost badges are replaced by the front desk within one working day.\n",
}
REPEATED = "The nightly export wrote another batch of rows to the archive bucket without errors. " * 9


def test_cosine_mode_finds_what_exact_cosine_ranks_first_behind_a_wall_of_duplicates(
    vault, cli, fake_embedder, monkeypatch
):
    """1,500 identical passages added after two short notes cut the hnswlib graph apart (asked for 100
    neighbours it fails: it cannot reach that many); ``--mode cosine`` is exact, so each short note is still
    the first hit for its own sentence, and smart mode falls back to exact search when the graph fails."""
    for path, text in SHORT_NOTES.items():
        write(vault, path, text)
    cli.json("index", "--json")
    monkeypatch.setattr(
        "smartvec_cli.store.sqlite.ONE_PASS_FROM", 100
    )  # the matrix read in one pass, as for a large index
    write(vault, "Export log.md", "# Export log\n\n" + "\n\n".join([REPEATED] * 1500) + "\n")
    assert cli.json("index", "--json")["passages_embedded"] >= 1
    for path, text in SHORT_NOTES.items():
        sentence = text.split("\n\n", 1)[1].strip()
        hits = cli.json("query", sentence, "--mode", "cosine", "--top-k", "3", "--json", "--no-track")
        assert hits[0]["path"] == path
        assert cli.json("query", sentence, "--top-k", "3", "--json", "--no-track")[0]["path"] == path
    monkeypatch.setattr("smartvec_cli.core.search.EXACT_CANDIDATES_UP_TO", 0)
    for path, text in SHORT_NOTES.items():
        assert cli.json("query", text.split("\n\n", 1)[1].strip(), "--json", "--no-track")[0]["path"] == path


def test_exact_search_scores_every_live_item_and_follows_removals(tmp_path):
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    index = HnswIndex(tmp_path, 16)
    index.add(np.arange(300), vectors)
    fetched = []

    def fetch(ids):
        fetched.append(len(ids))
        return vectors[ids]

    query = vectors[42] + 0.01
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = np.argsort(-(unit @ (query / np.linalg.norm(query))))[:10].tolist()
    found = index.exact_search(query, 10, fetch)
    assert [label for label, _ in found] == expected and found[0][0] == 42
    assert abs(found[0][1] - float(unit[42] @ (query / np.linalg.norm(query)))) < 1e-5
    index.exact_search(query, 10, fetch)
    assert fetched == [300]  # the matrix is read once while the live set stays
    index.remove([42])
    assert 42 not in [label for label, _ in index.exact_search(query, 10, fetch)]
    assert fetched == [300, 299]
    assert len(index.exact_search(query, 1000, fetch)) == 299


def test_recall_at_k_is_the_share_of_the_exact_top_k_found():
    assert recall_at([1, 2, 3, 4], [1, 2, 3, 4], 4) == 1.0
    assert recall_at([1, 2, 9, 8], [1, 2, 3, 4], 4) == 0.5
    assert recall_at([9, 1, 2, 3, 4], [1, 2, 3, 4, 5], 2) == 0.5  # only the first k found count
    assert recall_at([], [], 50) == 1.0


def test_the_search_list_grows_with_the_index():
    assert search_list_size(1_000, 50) == 100
    assert search_list_size(100_000, 50) > search_list_size(10_000, 50) >= 100
    assert search_list_size(100_000, 50) == 1_000 and search_list_size(45_000, 100) == 450


def test_grown_vectors_keep_the_real_rows_and_add_near_copies():
    base = np.random.default_rng(0).normal(size=(50, 32)).astype(np.float32)
    grown = grown_vectors(base, 400, seed=1)
    assert grown.shape == (400, 32)
    assert np.allclose(np.linalg.norm(grown, axis=1), 1.0, atol=1e-5)
    unit = base / np.linalg.norm(base, axis=1, keepdims=True)
    assert np.allclose(grown[:50], unit, atol=1e-6)
    nearest_original = (grown[50:] @ unit.T).max(axis=1)
    assert nearest_original.min() > 0.79 and nearest_original.max() < 0.98
