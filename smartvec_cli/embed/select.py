"""Choosing the embedding backend from configuration.

Besides the built-in backends, ``[embedder] backend = "package.module:factory"`` names a
callable that returns an :class:`Embedder`: a model of the user's own, or the tests' fake
embedder in the daemon subprocesses they start.
"""

from __future__ import annotations

from pathlib import Path

from ..config import Config, is_import_spec
from ..errors import SmartvecError
from . import Embedder


def select_embedder(config: Config, index_dir: Path) -> Embedder:
    backend = config.embedder_backend
    if backend in ("auto", "sentence-transformers"):
        from .sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(batch_size=config.batch_size)
    if is_import_spec(backend):
        return load_embedder(backend)
    raise SmartvecError(f"embedder backend {backend!r} is not available")


def load_embedder(spec: str) -> Embedder:
    import importlib

    module_name, _, attr = spec.partition(":")
    try:
        factory = importlib.import_module(module_name)
        for name in attr.split("."):
            factory = getattr(factory, name)
    except (ImportError, AttributeError) as exc:
        raise SmartvecError(f"embedder backend {spec!r} cannot be loaded: {exc}") from None
    embedder = factory()
    if not isinstance(embedder, Embedder):
        raise SmartvecError(f"embedder backend {spec!r} did not return an embedder (name, dim, fingerprint, embed)")
    return embedder
