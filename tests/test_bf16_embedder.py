"""``[embedder] precision = "bf16"``: a writer's large runs embedded with torch in bf16 (``embed.bf16``), its
questions and small runs with the fp32 graph, all under one fingerprint of its own; ``auto`` takes it for a new
large index on a CPU with AMX."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Cli
from test_int8_embedder import PASSAGES, many_passages, vault_of_passages

from smartvec_cli.bench.hardware import MINILM_L6, gemm_limit, graph_limit
from smartvec_cli.config import load_config
from smartvec_cli.embed import BF16_SUFFIX, precision_of_fingerprint
from smartvec_cli.embed.bf16 import Bf16Embedder, amx_bf16_available
from smartvec_cli.embed.onnx import load_onnx_embedder, precision_fingerprint

WEIGHTS = "all-MiniLM-L6-v2@53aa51172d142c89"


@pytest.fixture(autouse=True)
def torch_threads_restored():
    """The bf16 encoder sets torch's threads for the whole process (one per batch side by side); the tests after
    these ones get torch's threads back, for the sentence-transformers model they run."""
    import sys

    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        from smartvec_cli.embed.onnx import _default_threads

        torch.set_num_threads(threads or _default_threads())


def test_amx_is_read_from_the_cpu_s_flags(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx512_vnni amx_bf16 amx_tile amx_int8\n\n")
    assert amx_bf16_available(cpuinfo)
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx512_vnni avx512_bf16\n\n")
    assert not amx_bf16_available(cpuinfo)
    assert not amx_bf16_available(tmp_path / "missing")


def test_bf16_has_a_fingerprint_and_a_setting_of_its_own(tmp_path):
    assert precision_fingerprint(WEIGHTS, "bf16") == WEIGHTS + BF16_SUFFIX
    assert precision_of_fingerprint(WEIGHTS + BF16_SUFFIX) == "bf16"
    path = tmp_path / "config.toml"
    path.write_text('[embedder]\nprecision = "bf16"\n', encoding="utf-8")
    assert load_config(path).embedder_precision == "bf16"


@pytest.mark.parametrize(
    ("amx", "notes", "expected"), [(True, 10, "bf16"), (False, 10, "int8"), (True, 5, "int8"), (True, 2, "fp32")]
)
def test_auto_chooses_bf16_for_a_large_first_index_on_a_cpu_with_amx(tmp_path, monkeypatch, amx, notes, expected):
    """Thresholds lowered to 10 passages for int8 and 20 for bf16; each note has 3."""
    from test_int8_embedder import PrecisionSpy

    spy = PrecisionSpy()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", spy)
    monkeypatch.setattr("smartvec_cli.embed.INT8_FROM_PASSAGES", 10)
    monkeypatch.setattr("smartvec_cli.embed.BF16_FROM_PASSAGES", 20)
    monkeypatch.setattr("smartvec_cli.embed.bf16.amx_bf16_available", lambda: amx)
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    many_passages(vault, notes)
    cli = Cli()
    args = ("--vault", str(vault), "--index-dir", str(index_dir))
    assert cli(*args, "index").exit_code == 0
    assert cli.json(*args, "status", "--json")["model"] == precision_fingerprint("all-MiniLM-L6-v2@fake", expected)
    monkeypatch.setattr("smartvec_cli.embed.bf16.amx_bf16_available", lambda: not amx)  # the index keeps its own
    assert cli(*args, "query", "what value does note 2 part 1 say").exit_code == 0
    assert set(spy.asked) == {expected}


def test_the_bf16_limit_is_torch_s_bf16_rate():
    import torch

    torch.set_num_threads(1)  # as the bf16 encoder leaves it for two batches side by side on 2 cores
    limit = gemm_limit(MINILM_L6, threads=2, tokens=128, seconds=0.05, bf16=True)
    assert torch.get_num_threads() == 1  # given back for the embedding timed next
    assert limit["bf16_gflops"] > 0.1 and limit["fp32_gflops"] > 0.1
    assert graph_limit(MINILM_L6, {"fp32_gflops": 100.0, "bf16_gflops": 900.0}, "bf16", 53) == 900.0
    assert "bf16_gflops" not in gemm_limit(MINILM_L6, threads=1, tokens=128, seconds=0.05)


class Counting:
    """The fp32 embedder, counting the texts it is given."""

    def __init__(self, inner):
        self.inner, self.texts = inner, 0
        self.name, self.fingerprint, self.export_id = inner.name, inner.fingerprint, inner.export_id

    def embed(self, texts):
        self.texts += len(texts)
        return self.inner.embed(texts)

    def token_rows(self, texts):
        return self.inner.token_rows(texts)


@pytest.mark.slow
def test_bf16_vectors_are_fp32_s_to_the_fourth_decimal_and_small_runs_stay_fp32(onnx_export):
    from smartvec_cli.embed import packaged_model_dir

    fp32 = load_onnx_embedder(onnx_export)
    under_bf16 = load_onnx_embedder(onnx_export, precision="bf16")
    assert fp32 is not None and under_bf16 is not None
    assert under_bf16.fingerprint == fp32.fingerprint + BF16_SUFFIX and under_bf16.export_id == fp32.export_id
    counting = Counting(under_bf16)
    notices: list[str] = []
    embedder = Bf16Embedder(counting, packaged_model_dir(), notices.append, from_passages=len(PASSAGES))
    assert embedder.fingerprint == under_bf16.fingerprint and embedder.export_id == fp32.export_id
    reference = fp32.embed(PASSAGES)

    for _ in range(3):  # small calls, however many: the fp32 graph itself
        assert np.array_equal(embedder.embed(PASSAGES[:3]), reference[:3])
    assert counting.texts == 9 and embedder._encoder is None
    bf16 = embedder.embed(PASSAGES)  # a call of the threshold's size: the bf16 encoder
    assert counting.texts == 9 and embedder._encoder is not None and not notices
    assert not np.array_equal(bf16, reference)
    cosines = (bf16 * reference).sum(axis=1)
    assert cosines.min() > 0.999, cosines
    assert np.allclose(np.linalg.norm(bf16, axis=1), 1.0, atol=1e-5)
    one_by_one = np.vstack([embedder.embed([text]) for text in PASSAGES])
    assert ((one_by_one * reference).sum(axis=1)).min() > 0.999


@pytest.mark.slow
def test_a_large_run_loads_the_encoder_beside_the_fp32_graph(onnx_export):
    from smartvec_cli.embed import packaged_model_dir

    fp32 = load_onnx_embedder(onnx_export, precision="bf16")
    assert fp32 is not None
    counting = Counting(fp32)
    embedder = Bf16Embedder(counting, packaged_model_dir(), print, from_passages=100)
    embedder.expect(99)  # a small run: nothing loads
    assert embedder._loading is None
    embedder.expect(100)
    assert embedder._loading is not None
    embedder.embed(PASSAGES)  # while it loads, or whatever it has reached, no wait for it
    embedder._loading.join(timeout=120)
    before = counting.texts
    bf16 = embedder.embed(PASSAGES)
    assert embedder._encoder is not None and counting.texts == before  # the encoder embedded these
    assert ((bf16 * fp32.embed(PASSAGES)).sum(axis=1)).min() > 0.999


@pytest.mark.slow
def test_an_encoder_that_cannot_load_leaves_the_fp32_graph_embedding(onnx_export, tmp_path):
    fp32 = load_onnx_embedder(onnx_export, precision="bf16")
    assert fp32 is not None
    notices: list[str] = []
    embedder = Bf16Embedder(fp32, tmp_path / "no-weights-here", notices.append, from_passages=0)
    embedder.expect(len(PASSAGES))
    assert embedder._loading is not None
    embedder._loading.join(timeout=120)
    assert np.array_equal(embedder.embed(PASSAGES), fp32.embed(PASSAGES))
    assert np.array_equal(embedder.embed(PASSAGES[:2]), fp32.embed(PASSAGES[:2]))
    assert len(notices) == 1 and "bf16 encoder cannot be loaded" in notices[0] and "fp32 graph" in notices[0]


@pytest.mark.slow
def test_a_bf16_index_is_written_in_bf16_and_asked_with_the_fp32_graph(onnx_export, tmp_path, monkeypatch):
    """Indexed for real with ``precision = "bf16"``, the threshold lowered and the encoder loaded before the
    first call (a run this small would end before it loads beside it), so the bf16 encoder embeds every passage:
    the index records the precision, answers with the fp32 graph, ``doctor`` finds its vectors sound, and fp32
    is refused until ``index --full``."""
    from smartvec_cli.embed.bf16 import TorchBf16Encoder

    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    monkeypatch.setattr("smartvec_cli.embed.bf16.ENCODER_FROM_PASSAGES", 3)
    monkeypatch.setattr(Bf16Embedder, "expect", lambda self, passages: self._load())
    in_bf16: list[int] = []
    embed_padded = TorchBf16Encoder.embed_padded

    def counted(self, rows):
        in_bf16.append(len(rows))
        return embed_padded(self, rows)

    monkeypatch.setattr(TorchBf16Encoder, "embed_padded", counted)
    vault, index_dir = vault_of_passages(onnx_export, tmp_path, monkeypatch)
    index_dir.mkdir()
    (index_dir / "config.toml").write_text('[embedder]\nprecision = "bf16"\n', encoding="utf-8")
    cli = Cli()
    args = ("--vault", str(vault), "--index-dir", str(index_dir))
    assert cli.json(*args, "index", "--json")["passages_embedded"] == len(PASSAGES)
    assert sum(in_bf16) == len(PASSAGES)
    model = cli.json(*args, "status", "--json")["model"]
    assert model.endswith(BF16_SUFFIX)

    from smartvec_cli.core.workspace import Workspace
    from smartvec_cli.embed.onnx import OnnxEmbedder

    ws = Workspace.resolve(vault, index_dir)
    assert type(ws.question_embedder()) is OnnxEmbedder and ws.question_embedder().fingerprint == model
    assert type(ws.writer_embedder()) is Bf16Embedder
    assert cli.json(*args, "query", "how do I unpack a gzipped tarball", "--json")[0]["path"] == "p2.md"
    assert cli.json(*args, "query", "can a value have two owners at once", "--json")[0]["path"] == "p1.md"
    assert sum(in_bf16) == len(PASSAGES)  # the questions went to the fp32 graph
    assert cli(*args, "doctor").exit_code == 0

    (index_dir / "config.toml").write_text('[embedder]\nprecision = "fp32"\n', encoding="utf-8")
    refused = cli(*args, "query", "gzipped tarball")
    assert refused.exit_code == 1 and "index --full" in refused.stderr and model in refused.stderr


@pytest.mark.slow
def test_a_call_s_bf16_batches_run_side_by_side(onnx_export, monkeypatch):
    import threading

    from smartvec_cli.embed import packaged_model_dir

    monkeypatch.setattr("smartvec_cli.embed.onnx._default_threads", lambda: 2)
    fp32 = load_onnx_embedder(onnx_export, precision="bf16")
    assert fp32 is not None
    side_by_side = Bf16Embedder(fp32, packaged_model_dir(), print, from_passages=0)
    assert side_by_side._layout() == (2, 1)
    assert Bf16Embedder(fp32, packaged_model_dir(), print, threads=2)._layout() == (1, 2)
    texts = [f"{passage} ({n})" for n in range(6) for passage in PASSAGES][:32]  # two batches of 16
    side_by_side.embed(texts[:1])  # loads the encoder
    encoder = side_by_side._encoder
    assert encoder is not None
    both_running = threading.Barrier(2, timeout=30)
    meetings = iter(range(2))
    embed_padded = encoder.embed_padded

    def meeting_the_other(rows):
        if next(meetings, None) is not None:
            both_running.wait()  # broken (and the test failed) unless two batches run at once
        return embed_padded(rows)

    monkeypatch.setattr(encoder, "embed_padded", meeting_the_other)
    vectors = side_by_side.embed(texts)
    assert ((vectors * fp32.embed(texts)).sum(axis=1)).min() > 0.999


def test_a_bf16_batch_is_padded_to_a_multiple_of_sixteen_tokens():
    """Fewer shapes for oneDNN to keep kernels for (``embed.bf16.PAD_TO_MULTIPLE``); the mask covers each row's
    own tokens only, so the padding changes no vector beyond bf16's rounding."""
    from smartvec_cli.embed.bf16 import PAD_TO_MULTIPLE
    from smartvec_cli.embed.onnx import padded_batch

    rows = [np.array([101, 7, 102]), np.array([101, 7, 8, 9, 102])]
    ids, mask = padded_batch(rows)
    assert ids.shape == (2, 5) and mask.sum(axis=1).tolist() == [3, 5]
    ids, mask = padded_batch(rows, PAD_TO_MULTIPLE)
    assert PAD_TO_MULTIPLE == 16 and ids.shape == (2, 16) and mask.sum(axis=1).tolist() == [3, 5]
    assert ids[1, :5].tolist() == [101, 7, 8, 9, 102] and not ids[:, 5:].any()
    assert padded_batch([np.arange(32)], 16)[0].shape == (1, 32)
