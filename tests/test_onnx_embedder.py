"""The ONNX backend must be interchangeable with sentence-transformers, or refuse to claim it is.

One real export (module-scoped, a few seconds) backs most tests; the refusal test makes its own
exports from deliberately perturbed weights.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from smartvec_cli.embed import DIMENSIONS, packaged_model_dir, weights_fingerprint
from smartvec_cli.embed import onnx as onnx_backend
from smartvec_cli.embed.onnx import (
    MANIFEST_NAME,
    MIN_COSINE,
    PROBE_TEXTS,
    OnnxVerificationError,
    export_onnx,
    load_onnx_embedder,
)
from smartvec_cli.embed.sentence_transformers import SentenceTransformerEmbedder

REPO = Path(__file__).resolve().parents[1]

UNSEEN_TEXTS = [
    "Where did I write down the idea about spaced repetition for reading notes?",
    "grocery list: oat milk, lentils, 2x tomatoes, basil",
    "Le chat dort sur le canapé pendant que la pluie tombe.",
    "Привет, как дела? Это тест на кириллицу.",
    "x",
    "   ",
    "## Heading\n\n- [ ] todo item one\n- [x] done item two\n\n> a quoted line",
    "Gradient descent updates parameters in the direction of the negative gradient of the loss. " * 12,
    "The mitochondria is the powerhouse of the cell; ATP synthase spins like a turbine.",
    "error: could not compile `smartvec` (lib) due to 3 previous errors; 1 warning emitted",
    "🙂 " * 50 + "emoji tail",
    "Meeting with Ana on 2026-05-03 at 14:30 re: budget ➜ follow up by Friday.",
]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return packaged_model_dir()


@pytest.fixture(scope="module")
def exported(onnx_export) -> Path:
    return onnx_export


def _manifest(cache: Path) -> dict:
    return json.loads((cache / MANIFEST_NAME).read_text(encoding="utf-8"))


def test_export_records_the_weights_and_the_evidence(exported, model_dir):
    manifest = _manifest(exported)
    assert manifest["fingerprint"] == weights_fingerprint(model_dir)
    assert manifest["min_cosine"] >= MIN_COSINE
    assert manifest["max_seq_length"] == 256
    assert (exported / manifest["onnx_file"]).stat().st_size == manifest["onnx_bytes"]
    assert not list(exported.glob(".tmp-*"))


def test_onnx_matches_sentence_transformers_on_unseen_texts(exported, model_dir):
    assert not set(UNSEEN_TEXTS) & set(PROBE_TEXTS)
    embedder = load_onnx_embedder(exported)
    reference = SentenceTransformerEmbedder(model_dir)
    assert embedder.fingerprint == reference.fingerprint

    ours = embedder.embed(UNSEEN_TEXTS)
    theirs = reference.embed(UNSEEN_TEXTS)
    assert ours.shape == (len(UNSEEN_TEXTS), DIMENSIONS) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert (ours * theirs).sum(axis=1).min() >= MIN_COSINE


def test_length_sorted_batches_come_back_in_input_order(exported):
    embedder = load_onnx_embedder(exported, batch_size=3)
    together = embedder.embed(UNSEEN_TEXTS)
    alone = np.vstack([embedder.embed([text]) for text in UNSEEN_TEXTS])
    assert (together * alone).sum(axis=1).min() >= MIN_COSINE
    assert embedder.embed([]).shape == (0, DIMENSIONS)


def test_the_optimised_graph_embeds_as_the_export_does_and_is_what_sessions_load(exported, tmp_path):
    """``save_optimised`` (run by writers, and by the session fixture) keeps the graph onnxruntime makes of the export;
    a session is made from it only with the onnxruntime that made it, and only while its files are whole."""
    import onnxruntime

    optimised = _manifest(exported)["optimised"]
    assert (
        optimised["onnxruntime"] == onnxruntime.__version__
        and optimised["max_difference"] <= onnx_backend.OPTIMISED_MAX_DIFFERENCE
    )
    fast = load_onnx_embedder(exported)
    assert fast.optimised == (exported / optimised["onnx_file"], onnxruntime.__version__)
    plain = load_onnx_embedder(exported)
    plain.optimised = None
    assert np.abs(fast.embed(UNSEEN_TEXTS) - plain.embed(UNSEEN_TEXTS)).max() <= onnx_backend.OPTIMISED_MAX_DIFFERENCE
    assert fast._session._model_path == str(exported / optimised["onnx_file"])
    assert plain._session._model_path == str(exported / _manifest(exported)["onnx_file"])

    other_version = load_onnx_embedder(exported)
    other_version.optimised = (other_version.optimised[0], "0.0.1")
    other_version.embed(["a question"])
    assert other_version._session._model_path == str(other_version.onnx_path)

    cut = tmp_path / "cut"
    shutil.copytree(exported, cut)
    with open(cut / optimised["data_file"], "r+b") as data:
        data.truncate(1000)
    assert load_onnx_embedder(cut).optimised is None


def test_a_model_loaded_in_the_background_embeds_as_one_loaded_on_first_use(exported):
    """``start_loading`` (a cold query's overlap of the model load with its other work) changes nothing but when."""
    early = load_onnx_embedder(exported)
    early.start_loading()
    assert early._loading is not None and early._loading.name == "smartvec-model-load" and not early._loading.daemon
    vectors = early.embed(UNSEEN_TEXTS)
    assert early._loading is None and early._session is not None
    early.start_loading()  # loaded already: nothing more to start
    assert early._loading is None
    assert np.array_equal(vectors, load_onnx_embedder(exported).embed(UNSEEN_TEXTS))


def test_a_background_load_that_fails_fails_the_first_embed(exported, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(exported, broken)
    manifest = _manifest(broken)
    embedder = load_onnx_embedder(broken)
    for name in (manifest["onnx_file"], manifest["optimised"]["onnx_file"]):
        (broken / name).write_bytes(b"not a model")
    embedder.start_loading()
    with pytest.raises(Exception, match="(?i)protobuf|invalid|load"):
        embedder.embed(["a question"])
    assert embedder._loading is None and embedder._loading_failed is None


def test_unusable_caches_load_as_none(exported, tmp_path):
    assert load_onnx_embedder(tmp_path / "missing") is None
    assert load_onnx_embedder(exported, expected_fingerprint="all-MiniLM-L6-v2@0000000000000000") is None

    manifest = _manifest(exported)
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    shutil.copy(exported / MANIFEST_NAME, truncated)
    shutil.copy(exported / manifest["tokenizer_file"], truncated)
    (truncated / manifest["onnx_file"]).write_bytes(b"not a model")
    assert load_onnx_embedder(truncated) is None

    unproven = tmp_path / "unproven"
    unproven.mkdir()
    for name in (manifest["onnx_file"], manifest["tokenizer_file"]):
        (unproven / name).symlink_to(exported / name)
    (unproven / MANIFEST_NAME).write_text(json.dumps({**manifest, "min_cosine": 0.99}))
    assert load_onnx_embedder(unproven) is None


def _perturbed_loader(real_loader):
    """One projection scaled by 5%: probes still agree to cosine ~0.999, which is not close enough."""

    def load(model_dir):
        import torch

        model = real_loader(model_dir)
        with torch.no_grad():
            model.encoder.layer[-1].output.dense.weight.mul_(1.05)
        return model

    return load


@pytest.mark.parametrize("start", ["empty", "verified"])
def test_failed_verification_claims_no_fingerprint(start, exported, model_dir, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    if start == "verified":
        shutil.copytree(exported, cache)
        before = {p.name: p.read_bytes() for p in cache.iterdir()}
    monkeypatch.setattr(onnx_backend, "_load_encoder", _perturbed_loader(onnx_backend._load_encoder))

    with pytest.raises(OnnxVerificationError, match="refusing the fast path"):
        export_onnx(model_dir, cache)

    if start == "empty":
        assert list(cache.iterdir()) == []
        assert load_onnx_embedder(cache) is None
    else:
        assert {p.name: p.read_bytes() for p in cache.iterdir()} == before
        assert load_onnx_embedder(cache).fingerprint == weights_fingerprint(model_dir)


def test_query_path_never_imports_torch(exported):
    code = textwrap.dedent(
        f"""
        import sys
        from smartvec_cli.embed.onnx import load_onnx_embedder

        embedder = load_onnx_embedder({str(exported)!r})
        assert embedder is not None
        assert embedder.embed(["where are my notes on vector search?"]).shape == (1, {DIMENSIONS})
        heavy = sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules)
        print(",".join(heavy) or "clean")
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "clean"
