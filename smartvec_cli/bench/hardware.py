"""What this machine allows an encoder, and how much of it embedding gets.

A passages-per-second figure alone cannot say whether embedding is slow or the machine is: the limit is
the rate at which the CPU multiplies matrices of the encoder's shapes. ``gemm_limit`` measures it with
onnxruntime itself (the runtime the embedder uses, on the same number of threads): one MatMul of a batch's
tokens by each of the encoder's weight shapes (hidden x hidden for the attention projections, hidden x
feed-forward and back), in fp32 and in int8 (``MatMulInteger``, what a dynamically quantised graph runs),
and for the bf16 encoder in bf16 with torch, its runtime, timed until the estimate is steady.
``embedding_share`` then embeds real passages through the embedder,
counts the useful work of each (its own tokens, not the padding of its batch: the projections and
feed-forward layers per token, and attention over the passage's length) and divides the rate achieved by
the limit of the embedder's precision (``graph_limit``: fp32's, bf16's, or for the int8 graph the mix of int8
and fp32 products it runs). Everything an encoder does besides these products (layer norms, softmax, GELU, the
tokenizer, pooling) counts against the share, so 100% is out of reach; what is left below it is padding,
small batches, threads waiting, and that other work.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class EncoderShape:
    """The sizes that set a BERT-style encoder's work per token."""

    layers: int
    hidden: int
    feed_forward: int

    def flops(self, tokens: int) -> float:
        """Multiply-adds of one passage of ``tokens`` tokens, times two: per layer the four attention
        projections (4 h^2 per token), the feed-forward pair (2 h f per token), and the attention scores and
        their weighted sum (2 t h per token)."""
        per_token = 4 * self.hidden**2 + 2 * self.hidden * self.feed_forward + 2 * tokens * self.hidden
        return 2.0 * self.layers * tokens * per_token


MINILM_L6 = EncoderShape(layers=6, hidden=384, feed_forward=1536)
E5_SMALL = EncoderShape(layers=12, hidden=384, feed_forward=1536)


def encoder_shape(embedder) -> EncoderShape:
    """The shape of the embedder's model: multilingual-e5-small has twice MiniLM-L6's layers."""
    name = f"{getattr(embedder, 'name', '')} {type(embedder).__name__}".lower()
    return E5_SMALL if "e5" in name else MINILM_L6


def _matmul_session(rows: int, inner: int, cols: int, int8: bool, threads: int):
    from ..embed.onnx import import_onnxruntime

    ort = import_onnxruntime()  # with its telemetry off, as every import of it in smartvec
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    if int8:
        weights = numpy_helper.from_array(rng.integers(-127, 128, (inner, cols), dtype=np.int8), "w")
        inputs = helper.make_tensor_value_info("x", TensorProto.UINT8, [rows, inner])
        output = helper.make_tensor_value_info("y", TensorProto.INT32, [rows, cols])
        node = helper.make_node("MatMulInteger", ["x", "w"], ["y"])
        feed = rng.integers(0, 256, (rows, inner), dtype=np.uint8)
    else:
        weights = numpy_helper.from_array(rng.standard_normal((inner, cols)).astype(np.float32), "w")
        inputs = helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, inner])
        output = helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, cols])
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
        feed = rng.standard_normal((rows, inner)).astype(np.float32)
    graph = helper.make_graph([node], "gemm", [inputs], [output], initializer=[weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session, {"x": feed}


def _torch_bf16_rate(rows: int, inner: int, cols: int, threads: int, seconds: float) -> float:
    """``_rate`` of a bf16 product in torch, the runtime of the bf16 encoder (``embed.bf16``): oneDNN's AMX
    kernels where the CPU has them. torch's thread count is the whole process's, so it is given back after: the
    bf16 encoder set its own (one a batch, side by side), and the embedding timed next must run on it."""
    import torch

    generator = torch.Generator().manual_seed(0)
    x = torch.randn(rows, inner, generator=generator).to(torch.bfloat16)
    w = torch.randn(inner, cols, generator=generator).to(torch.bfloat16)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _timed(lambda: torch.matmul(x, w), rows * inner * cols, seconds)
    finally:
        torch.set_num_threads(before)


def _rate(rows: int, inner: int, cols: int, int8: bool, threads: int, seconds: float) -> float:
    """Operations per second of the best of several timed rounds (a round repeats until it lasts 50 ms)."""
    session, feed = _matmul_session(rows, inner, cols, int8, threads)
    return _timed(lambda: session.run(None, feed), rows * inner * cols, seconds)


def _timed(run: Callable[[], object], multiply_adds: int, seconds: float) -> float:
    """The best rate of ``run``, a product of ``multiply_adds``, over rounds of at least 50 ms for ``seconds``."""
    for _ in range(3):
        run()
    best = 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        runs, started = 0, time.perf_counter()
        while True:
            run()
            runs += 1
            elapsed = time.perf_counter() - started
            if elapsed >= 0.05:
                break
        best = max(best, 2.0 * multiply_adds * runs / elapsed)
    return best


def gemm_limit(shape: EncoderShape, threads: int, tokens: int = 2048, seconds: float = 1.0, bf16: bool = False) -> dict:
    """The fp32 and int8 rates (operations per second) of the encoder's products on ``tokens`` rows, on
    ``threads`` threads, and with ``bf16`` torch's bf16 rate: each precision's rate is the work-weighted mean
    over the three weight shapes, each timed for ``seconds``."""
    h, f = shape.hidden, shape.feed_forward
    products = ((h, h, 4), (h, f, 1), (f, h, 1))  # (inner, cols, how many per layer)
    limit: dict[str, float] = {"threads": threads, "tokens": tokens}
    rates = {
        "fp32": lambda inner, cols: _rate(tokens, inner, cols, False, threads, seconds),
        "int8": lambda inner, cols: _rate(tokens, inner, cols, True, threads, seconds),
    }
    if bf16:
        rates["bf16"] = lambda inner, cols: _torch_bf16_rate(tokens, inner, cols, threads, seconds)
    work = sum(inner * cols * count for inner, cols, count in products)
    for precision, rate in rates.items():
        time_per_op = sum(inner * cols * count / rate(inner, cols) for inner, cols, count in products)
        limit[f"{precision}_gflops"] = round(work / time_per_op / 1e9, 1)
    return limit


def graph_limit(shape: EncoderShape, limit: dict, precision: str, tokens: float) -> float:
    """The rate (GFLOP/s) the machine allows the graph of ``precision`` on passages of ``tokens`` tokens: fp32
    runs every product at the fp32 rate; the int8 graph (``embed.onnx.int8_excluded_nodes``) runs the attention
    projections and the feed-forward up projection at the int8 rate and the feed-forward down projection and the
    attention products at the fp32 rate, so its limit is the work-weighted harmonic mean of the two; the bf16
    encoder runs every product in bf16."""
    if precision == "bf16" and limit.get("bf16_gflops"):
        return limit["bf16_gflops"]
    if precision != "int8" or not limit.get("int8_gflops"):
        return limit["fp32_gflops"]
    h, f = shape.hidden, shape.feed_forward
    in_int8, in_fp32 = 4 * h * h + h * f, f * h + 2 * tokens * h
    return (in_int8 + in_fp32) / (in_int8 / limit["int8_gflops"] + in_fp32 / limit["fp32_gflops"])


def embedding_share(
    embedder, texts: Sequence[str], limit: dict, shape: EncoderShape | None = None, rounds: int = 2
) -> dict:
    """Embed ``texts`` (best of ``rounds``) and say what share of ``limit``'s rate that reached, for fp32 and for
    the embedder's own precision (``graph_limit``), counting each passage's own tokens (as the embedder's
    tokenizer cuts them) and not its batch's padding."""
    shape = shape or encoder_shape(embedder)
    texts = list(texts)
    embedder.embed(texts[:8])
    lengths = token_counts(embedder, texts)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        embedder.embed(texts)
        best = min(best, time.perf_counter() - started)
    useful = sum(shape.flops(n) for n in lengths)
    achieved = useful / best / 1e9
    tokens_mean = float(np.mean(lengths)) if lengths else 0.0
    precision = getattr(embedder, "precision", "fp32")
    own = graph_limit(shape, limit, precision, tokens_mean) if limit.get("fp32_gflops") else None
    return {
        "passages": len(texts),
        "tokens_mean": round(tokens_mean, 1),
        "tokens_p90": int(np.percentile(lengths, 90)) if lengths else 0,
        "passages_per_s": round(len(texts) / best, 1),
        "achieved_gflops": round(achieved, 1),
        "flops_per_passage": useful / len(texts) if texts else 0.0,
        "share_of_fp32_limit": round(achieved / limit["fp32_gflops"], 3) if limit.get("fp32_gflops") else None,
        "precision": precision,
        "limit_gflops": None if own is None else round(own, 1),
        "share_of_limit": None if not own else round(achieved / own, 3),
    }


def token_counts(embedder, texts: Sequence[str]) -> list[int]:
    """Tokens per text as the embedder cuts them (special tokens and truncation included); by whitespace
    words times 1.3 for an embedder without a tokenizer of its own to ask."""
    token_rows = getattr(embedder, "token_rows", None)  # the ONNX embedder's and the bf16 one's
    if token_rows is not None:
        return [len(row) for row in token_rows(list(texts))]
    tokenizer = getattr(embedder, "_tokenizer", None)
    if tokenizer is not None and hasattr(tokenizer, "encode_batch"):
        return [len(e.ids) for e in tokenizer.encode_batch(list(texts), add_special_tokens=True)]
    return [int(len(t.split()) * 1.3) + 2 for t in texts]
