"""Choosing the embedding backend from configuration."""

from __future__ import annotations

from pathlib import Path

from ..config import Config
from ..errors import SmartvecError
from . import Embedder


def select_embedder(config: Config, index_dir: Path) -> Embedder:
    backend = config.embedder_backend
    if backend in ("auto", "sentence-transformers"):
        from .sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(batch_size=config.batch_size)
    raise SmartvecError(f"embedder backend {backend!r} is not available")
