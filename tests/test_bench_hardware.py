"""The machine's limit for the encoder and the share of it that embedding reaches (``bench.hardware``)."""

from __future__ import annotations

import pytest

from smartvec_cli.bench.hardware import (
    E5_SMALL,
    MINILM_L6,
    embedding_share,
    encoder_shape,
    gemm_limit,
    graph_limit,
    token_counts,
)


def test_an_encoder_s_work_grows_with_its_layers_and_with_the_square_of_a_passage():
    # per layer and token: 4 projections of 384 x 384, 384 x 1536 and back, attention over 10 tokens
    assert MINILM_L6.flops(10) == 2 * 6 * 10 * (4 * 384**2 + 2 * 384 * 1536 + 2 * 10 * 384)
    assert E5_SMALL.flops(10) == 2 * MINILM_L6.flops(10)
    assert MINILM_L6.flops(200) > 20 * MINILM_L6.flops(10)


def test_the_int8_graph_s_limit_mixes_the_rates_of_the_products_it_runs():
    """Attention projections and the feed-forward up projection at the int8 rate, the down projection and the
    attention products at the fp32 rate, weighted by their work per token."""
    limit = {"fp32_gflops": 100.0, "int8_gflops": 200.0}
    in_int8 = 4 * 384**2 + 384 * 1536
    in_fp32 = 1536 * 384 + 2 * 53 * 384
    assert graph_limit(MINILM_L6, limit, "int8", 53) == pytest.approx(
        (in_int8 + in_fp32) / (in_int8 / 200.0 + in_fp32 / 100.0)
    )
    assert 140 < graph_limit(MINILM_L6, limit, "int8", 53) < 150
    assert graph_limit(MINILM_L6, limit, "fp32", 53) == 100.0
    assert graph_limit(MINILM_L6, {"fp32_gflops": 100.0, "int8_gflops": None}, "int8", 53) == 100.0


def test_the_limit_is_measured_with_onnxruntime_in_both_precisions():
    limit = gemm_limit(MINILM_L6, threads=1, tokens=128, seconds=0.05)
    assert limit["threads"] == 1 and limit["tokens"] == 128
    assert limit["fp32_gflops"] > 0.1 and limit["int8_gflops"] > 0.1


@pytest.mark.slow
def test_the_real_model_s_share_counts_its_own_tokens(onnx_export):
    from smartvec_cli.embed.onnx import load_onnx_embedder

    embedder = load_onnx_embedder(onnx_export)
    texts = ["A short passage.", "A longer passage about the ingestion service and its nightly batch jobs. " * 4]
    counts = token_counts(embedder, texts)
    assert counts[0] < 10 < counts[1]  # the tokenizer's counts, with [CLS] and [SEP]
    assert encoder_shape(embedder) is MINILM_L6
    share = embedding_share(embedder, texts * 8, {"fp32_gflops": 1.0}, rounds=1)
    assert share["passages"] == 16 and share["tokens_mean"] == sum(counts) / 2
    # a limit of 1 GFLOP/s is far below what embedding reaches on any machine that runs the suite
    assert share["achieved_gflops"] > 1.0 and share["share_of_fp32_limit"] == pytest.approx(
        share["achieved_gflops"], abs=0.06
    )
