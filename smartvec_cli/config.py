"""Settings that live in the index folder (``config.toml``), with defaults that need no file.

The file is optional; every key has a default. Example::

    exclude = ["drafts/**", "*.excalidraw.md"]
    max_note_mb = 10

    [embedder]
    backend = "auto"        # auto | onnx | sentence-transformers | module:factory
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UsageError

CONFIG_FILE = "config.toml"
EMBEDDER_BACKENDS = ("auto", "onnx", "sentence-transformers")


@dataclass
class Config:
    exclude: list[str] = field(default_factory=list)
    max_note_mb: float = 10.0
    embedder_backend: str = "auto"
    batch_size: int = 32
    chunk_max_chars: int = 900

    @property
    def max_note_bytes(self) -> int:
        return int(self.max_note_mb * 1024 * 1024)


def load_config(index_dir: Path) -> Config:
    """Read ``<index_dir>/config.toml`` if present; a malformed file is a usage error, not a traceback."""
    path = Path(index_dir) / CONFIG_FILE
    config = Config()
    if not path.is_file():
        return config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    exclude = data.get("exclude", [])
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise UsageError(f"{path}: 'exclude' must be a list of glob strings")
    config.exclude = list(exclude)
    if "max_note_mb" in data:
        config.max_note_mb = float(data["max_note_mb"])
    embedder = data.get("embedder", {})
    backend = embedder.get("backend", config.embedder_backend)
    if backend not in EMBEDDER_BACKENDS and not is_import_spec(backend):
        raise UsageError(f"{path}: embedder.backend must be one of {', '.join(EMBEDDER_BACKENDS)}, or 'module:factory'")
    config.embedder_backend = backend
    config.batch_size = int(embedder.get("batch_size", config.batch_size))
    chunking = data.get("chunking", {})
    config.chunk_max_chars = int(chunking.get("max_chars", config.chunk_max_chars))
    return config


def is_import_spec(value) -> bool:
    """``package.module:factory``: an embedder of the user's own (the subprocess tests use a fake one)."""
    if not isinstance(value, str):
        return False
    module, _, attr = value.partition(":")
    return bool(module) and bool(attr) and all(part.isidentifier() for part in module.split(".") + attr.split("."))
