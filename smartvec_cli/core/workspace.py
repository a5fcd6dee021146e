"""Where a run works: the vault, the index folder, the clock and the settings, resolved once."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..clock import Clock
from ..config import Config, load_config
from ..errors import UsageError
from ..store.layout import IndexLayout, index_dir_for


@dataclass
class Workspace:
    vault: Path
    index_dir: Path
    clock: Clock
    config: Config

    @classmethod
    def resolve(cls, vault: str | Path | None = None, index_dir: str | Path | None = None, now: str | None = None) -> "Workspace":
        """Options win over environment variables (SMARTVEC_VAULT, SMARTVEC_INDEX, SMARTVEC_NOW), then defaults."""
        vault_path = Path(vault or os.environ.get("SMARTVEC_VAULT") or ".").expanduser()
        if not vault_path.is_dir():
            raise UsageError(f"vault folder not found: {vault_path}")
        index_path = index_dir_for(vault_path, index_dir or os.environ.get("SMARTVEC_INDEX"))
        clock = Clock(now or os.environ.get("SMARTVEC_NOW") or None)
        return cls(vault_path.resolve(), index_path, clock, load_config(IndexLayout(index_path).config))

    @property
    def layout(self) -> IndexLayout:
        return IndexLayout(self.index_dir)

    def open_store(self, create: bool = False):
        from ..store.store import Store

        return Store.open(self.index_dir, create=create)

    def embedder(self, prepare: bool = False, on_notice=None):
        """The configured embedder; writers pass ``prepare`` so the fast ONNX export is made once."""
        from ..embed.select import select_embedder

        return select_embedder(self.config, self.layout.onnx_dir, prepare=prepare, on_notice=on_notice)

    def question_embedder(self):
        """The configured embedder with its model already loading in the background, where the backend can
        (``OnnxEmbedder.start_loading``): for a caller about to embed a question with other work to do first,
        such as importing the rest of the core (a cold ``query``)."""
        embedder = self.embedder()
        start_loading = getattr(embedder, "start_loading", None)
        if start_loading is not None:
            start_loading()
        return embedder

    def writer_embedder(self, on_notice=None):
        return self.embedder(prepare=True, on_notice=on_notice)

    def onnx_export(self) -> str | None:
        """Where the verified ONNX export that queries use lives (the user cache, shared by every
        vault, or this index folder); None without one, or when another backend is configured."""
        if self.config.embedder_backend not in ("auto", "onnx"):
            return None
        from ..embed.select import onnx_export_location

        found = onnx_export_location(self.layout.onnx_dir)
        return str(found) if found is not None else None
