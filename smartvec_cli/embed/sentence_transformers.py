"""The reference backend: sentence-transformers on the packaged all-MiniLM-L6-v2 weights.

Importing sentence-transformers (and torch with it) takes seconds, so the import happens
on first use, never at module import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from . import DIMENSIONS, MODEL_NAME, normalise_rows, packaged_model_dir, weights_fingerprint


class SentenceTransformerEmbedder:
    name = f"sentence-transformers/{MODEL_NAME}"
    dim = DIMENSIONS

    def __init__(self, model_dir: Path | None = None, batch_size: int = 32):
        self.model_dir = Path(model_dir) if model_dir else packaged_model_dir()
        self.batch_size = batch_size
        self._model = None

    @property
    def fingerprint(self) -> str:
        return weights_fingerprint(self.model_dir)

    def _load(self):
        if self._model is None:
            import os

            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()

            self._model = SentenceTransformer(str(self.model_dir), device="cpu")
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return normalise_rows(vectors)
