"""MiniLM with bf16 matrix products, for the large runs of an index at ``[embedder] precision = "bf16"``.

On a CPU with AMX (``amx_bf16`` among its flags), torch multiplies bf16 matrices through oneDNN many times as
fast as fp32, and the packaged weights run in bf16 give vectors within cosine 0.9999 of fp32's, closer than the
int8 graph's. So a bf16 index's vectors are fp32's to the fourth decimal, made faster, with no quantization at
all (``docs/benchmarks.md``, *bf16 embedding*, has the numbers).

Importing torch and transformers costs seconds, which a question cannot afford. So :class:`Bf16Embedder`
embeds with the fp32 ONNX graph (its ``fp32`` embedder, carrying the bf16 fingerprint) and loads the bf16
encoder only for a run of :data:`ENCODER_FROM_PASSAGES` passages or more, beside the embedding: a question, a
note saved under ``watch`` or a nightly ``refresh`` never pays for it, a first index does once. Both give the same
vectors to cosine 0.9999, so an index can hold both. If the encoder cannot be loaded, one notice says so and
the fp32 graph goes on.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from . import DIMENSIONS

ENCODER_FROM_PASSAGES = 1000
"""A run of this many passages loads the bf16 encoder (or a single call of as many texts): loading torch,
transformers and the weights costs what the fp32 graph needs for several hundred passages, so a smaller run
would not win it back; it loads beside the embedding."""
BF16_BATCH = 16
"""Passages per bf16 batch, two batches side by side on one torch thread each (:meth:`Bf16Embedder._layout`): the
indexer's calls of 32 embed faster as two batches of 16 side by side than as one batch of 32 on two threads,
though larger batches alone run faster (``docs/benchmarks.md``, *bf16 embedding*)."""
BATCHES_SIDE_BY_SIDE = 2
PAD_TO_MULTIPLE = 16
"""A bf16 batch is padded to a multiple of this many tokens. oneDNN keeps the kernels it made for each shape it
has seen, so batches of every width would make a long run's memory grow; padded to a multiple of 16 a run keeps
few shapes, and pays little padding for it (``docs/benchmarks.md``, *bf16 embedding*, compares the multiples)."""


def amx_bf16_available(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU multiplies bf16 matrices in AMX tiles (Linux's ``amx_bf16`` flag). Read from the flags,
    not by importing torch, because a new index asks before it embeds anything."""
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return "amx_bf16" in line.split()
    except OSError:
        pass
    return False


class TorchBf16Encoder:
    """The packaged weights in bf16 on torch (scaled-dot-product attention), pooled as sentence-transformers
    pools, from token rows already cut by the ONNX embedder's tokenizer."""

    def __init__(self, model_dir: Path, threads: int):
        """Built from the weights file directly: ``AutoModel.from_pretrained`` does much more work for the same
        weights (``docs/benchmarks.md``, *bf16 embedding*)."""
        import torch
        from safetensors.torch import load_file

        from .onnx import _offline_and_quiet

        with _offline_and_quiet():
            from transformers import BertConfig, BertModel

            config = BertConfig.from_pretrained(str(model_dir))
        config._attn_implementation = "sdpa"
        model = BertModel(config, add_pooling_layer=False)
        weights = {
            name.removeprefix("bert."): tensor
            for name, tensor in load_file(Path(model_dir) / "model.safetensors").items()
        }
        missing = model.load_state_dict(weights, strict=False).missing_keys
        if missing:
            raise ValueError(f"the weights file lacks {len(missing)} of the encoder's tensors ({missing[0]}, ...)")
        torch.set_num_threads(threads)
        self._torch = torch
        self._model = model.eval().to(torch.bfloat16)

    def embed_padded(self, rows: list[np.ndarray]) -> np.ndarray:
        from .onnx import mean_pool, padded_batch

        torch = self._torch
        input_ids, attention_mask = padded_batch(rows, PAD_TO_MULTIPLE)
        with torch.inference_mode():
            ids = torch.from_numpy(input_ids)
            hidden = self._model(
                input_ids=ids, attention_mask=torch.from_numpy(attention_mask), token_type_ids=torch.zeros_like(ids)
            ).last_hidden_state
            states = hidden.float().numpy()
        return mean_pool(states, attention_mask)


class Bf16Embedder:
    """The writer's embedder of a bf16 index: the fp32 ONNX embedder ``fp32`` (whose fingerprint, ``+bf16``, is
    the index's) until the bf16 encoder is loaded, the bf16 encoder after.

    A caller that knows a run will embed at least :data:`ENCODER_FROM_PASSAGES` passages says so with
    :meth:`expect` (the indexer does): the encoder then loads in a thread while the fp32 graph embeds
    (onnxruntime runs without the GIL), and takes over when it is ready. A single call of that many texts loads
    it, waiting. Many small calls never do: a ``watch`` daemon's questions and edits stay on the fp32 graph."""

    dim = DIMENSIONS
    precision = "bf16"

    def __init__(
        self,
        fp32,
        model_dir: Path,
        notice: Callable[[str], None],
        from_passages: int | None = None,
        threads: int | None = None,
    ):
        self.fp32 = fp32
        self.name = f"bf16/{fp32.name}"
        self.model_dir = Path(model_dir)
        self.export_id = getattr(fp32, "export_id", None)  # the export that embeds its questions
        self.from_passages = ENCODER_FROM_PASSAGES if from_passages is None else from_passages
        self.threads = threads
        self._notice = notice
        self._encoder: TorchBf16Encoder | None = None
        self._loading: threading.Thread | None = None
        self._failure: str | None = None  # why the encoder could not be loaded, said once
        self._failed = False
        self._pool = None  # runs a call's batches side by side, made on first need

    @property
    def fingerprint(self) -> str:
        return self.fp32.fingerprint

    def token_rows(self, texts: Sequence[str]) -> list[np.ndarray]:
        return self.fp32.token_rows(texts)

    def expect(self, passages: int) -> None:
        """Say that this run is about to embed ``passages`` more: from :data:`ENCODER_FROM_PASSAGES` on, the
        encoder starts loading beside the embedding. Not a daemon thread: torch must not be torn down mid-import
        when a short run ends first."""
        if passages >= self.from_passages and self._encoder is None and self._loading is None and not self._failed:
            self._loading = threading.Thread(target=self._load, name="smartvec-bf16-load")
            self._loading.start()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        encoder = self._ready_encoder(len(texts)) if texts else None
        if encoder is None:
            return self.fp32.embed(texts)
        from .onnx import embed_in_length_order

        return embed_in_length_order(self.token_rows(texts), BF16_BATCH, encoder.embed_padded, self._side_by_side())

    def _layout(self) -> tuple[int, int]:
        """(batches run side by side, torch threads), as the ONNX embedder lays them out, up to
        :data:`BATCHES_SIDE_BY_SIDE` batches: torch releases the GIL inside its operators, so two batches' products
        run at once."""
        from .onnx import batch_layout

        return batch_layout(self.threads, BATCHES_SIDE_BY_SIDE)

    def _side_by_side(self):
        from .onnx import side_by_side_pool

        self._pool = side_by_side_pool(self._pool, self._layout()[0], "smartvec-bf16")
        return self._pool

    def _ready_encoder(self, texts: int) -> TorchBf16Encoder | None:
        """The encoder when it is loaded; loaded now, once, for a call of ``texts`` that :meth:`expect` would
        have loaded it for; None while it loads in its thread or when it cannot be loaded."""
        if self._encoder is None and self._loading is None and not self._failed and texts >= self.from_passages:
            self._load()
        if self._failure is not None:
            self._notice(self._failure)
            self._failure = None
        return self._encoder

    def _load(self) -> None:
        try:
            self._encoder = TorchBf16Encoder(self.model_dir, self._layout()[1])
        except Exception as exc:  # only speed is lost: the fp32 graph's vectors are the same to 1e-4
            self._failed = True
            self._failure = (
                f"warning: the bf16 encoder cannot be loaded ({type(exc).__name__}: {str(exc).strip()[:160]}); "
                "embedding with the fp32 graph"
            )
