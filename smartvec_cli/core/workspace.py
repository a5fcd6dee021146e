"""Where a run works: the vault, the index folder, the clock and the settings, resolved once."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..clock import Clock
from ..config import Config, is_import_spec, load_config
from ..errors import UsageError
from ..store.backend import StoreBackend, WriterLock, store_backend
from ..store.layout import (
    IndexLayout,
    guard_index_folder,
    index_dir_for,
    narrow_modes,
    narrow_umask,
    private_mask,
)

if TYPE_CHECKING:
    from ..embed import Embedder
    from ..store.store import Store


def refuse_index_among_notes(vault: Path, index_dir: Path) -> None:
    """An index folder inside the vault must be a hidden one (``.smartvec``, the default): the vault's walk skips
    hidden folders, and the index folder itself, so one among the notes would leave the notes already in it out
    of the index without a word, and put index files among the user's notes."""
    real_vault = Path(os.path.realpath(vault))
    real_index = Path(os.path.realpath(index_dir))
    try:
        inside = real_index.relative_to(real_vault)
    except ValueError:
        return
    if not inside.parts:
        raise UsageError(f"the index folder cannot be the vault folder itself ({vault}): pass another --index-dir")
    if not any(part.startswith(".") for part in inside.parts):
        raise UsageError(
            f"the index folder {index_dir} is inside the vault, among the notes (which would not be indexed): "
            "pass an --index-dir outside the vault, or a hidden one such as <vault>/.smartvec"
        )


@dataclass
class Workspace:
    vault: Path
    index_dir: Path
    clock: Clock
    config: Config
    backend: StoreBackend  # where the index's database is (``store.backend``): the index folder, or a team's server
    private_bits: int = 0  # the group/other permission bits the vault withholds, and so its index too
    facts: dict = field(default_factory=dict)
    """What the index says of itself that choosing a model needs (``model``: the one its vectors are from;
    ``precision``: MiniLM's arithmetic for them; ``languages``), learnt when a store is opened or the first index
    decides. Shared by the copies
    ``dataclasses.replace`` makes of a workspace (``index --exclude``), so a decision reaches them all."""

    @classmethod
    def resolve(
        cls,
        vault: str | Path | None = None,
        index_dir: str | Path | None = None,
        now: str | dt.datetime | None = None,
        store: str | None = None,
    ) -> "Workspace":
        """Options win over environment variables (SMARTVEC_VAULT, SMARTVEC_INDEX, SMARTVEC_NOW, SMARTVEC_STORE),
        then ``config.toml`` (``store``), then defaults.

        The process umask takes on the bits the vault withholds (``store.layout.narrow_umask``): whatever the
        user's umask, nothing made in the index folder of a 0700 vault is readable by anyone else."""
        vault_path = Path(vault or os.environ.get("SMARTVEC_VAULT") or ".").expanduser()
        if not vault_path.is_dir():
            raise UsageError(f"vault folder not found: {vault_path}")
        index_path = index_dir_for(vault_path, index_dir or os.environ.get("SMARTVEC_INDEX"))
        refuse_index_among_notes(vault_path, index_path)
        guard_index_folder(index_path)
        clock = Clock(now or os.environ.get("SMARTVEC_NOW") or None)
        config = load_config(IndexLayout(index_path).config)
        backend = store_backend(store or os.environ.get("SMARTVEC_STORE") or config.store, index_path)
        private_bits = private_mask(vault_path)
        narrow_umask(private_bits)
        return cls(vault_path.resolve(), index_path, clock, config, backend, private_bits)

    @property
    def layout(self) -> IndexLayout:
        return IndexLayout(self.index_dir)

    def open_store(self, create: bool = False, fresh_start: bool = False) -> Store:
        """The store this workspace is configured for: the index folder's SQLite database, or the team's
        PostgreSQL server (whose client libraries are imported only then). ``fresh_start`` (``index --full``)
        sets an emptied or truncated SQLite database aside instead of refusing it."""
        store = self.backend.open(create=create, fresh_start=fresh_start)
        self.learn_from(store)
        return store

    def learn_from(self, store: Store) -> None:
        """Take the index's model and precision (from the fingerprint its vectors were stored with) and languages."""
        from ..store.store import LANGUAGES

        self._learn_fingerprint(store.fingerprint, overwrite=True)
        languages = store.get_meta(LANGUAGES)
        if languages:
            self.facts["languages"] = languages.split()

    def _peek(self) -> None:
        """The index's facts without opening the store (a cold query starts loading its model first), where the
        backend can read them so (``StoreBackend.peek_meta``); a PostgreSQL store is learnt when opened."""
        if self.facts.get("peeked"):
            return
        self.facts["peeked"] = True
        found = self.backend.peek_meta(("fingerprint", "languages"))
        if not found:
            return
        self._learn_fingerprint(found.get("fingerprint"), overwrite=False)
        if found.get("languages"):
            self.facts.setdefault("languages", found["languages"].split())

    def _learn_fingerprint(self, fingerprint: str | None, overwrite: bool) -> None:
        from ..embed import model_of_fingerprint, precision_of_fingerprint

        for key, value in (
            ("model", model_of_fingerprint(fingerprint)),
            ("precision", precision_of_fingerprint(fingerprint)),
        ):
            if value and (overwrite or key not in self.facts):
                self.facts[key] = value

    def embedder_model(self) -> str | None:
        """The model this index is embedded with: ``[embedder] model`` when set, else the index's own (the
        first index chose it from the vault's languages: ``core.indexer``); None when neither is known yet
        (a new index, or a PostgreSQL one not opened yet)."""
        if self.config.embedder_model != "auto":
            return self.config.embedder_model
        self._peek()
        return self.facts.get("model")

    def embedder_precision(self) -> str:
        """MiniLM's arithmetic for this index: ``[embedder] precision`` when set, else the index's own (its vectors'
        fingerprint), else what its first run chose by the passages it embeds (``choose_precision``), else fp32."""
        if self.config.embedder_precision != "auto":
            return self.config.embedder_precision
        self._peek()
        return self.facts.get("precision") or "fp32"

    def choose_precision(self, passages: int) -> None:
        """``[embedder] precision = "auto"`` for a new index about to embed its first ``passages``: from
        ``embed.INT8_FROM_PASSAGES`` on int8, and from ``embed.BF16_FROM_PASSAGES`` on bf16 instead on a CPU with
        AMX (``embed.bf16``: faster than int8 there, and fp32's vectors to cosine 0.9999), else fp32, recorded in
        ``facts`` for ``embedder_precision``. multilingual-e5's ONNX model has fp32 and int8 (no bf16); the caller
        knows the index holds no vectors yet."""
        from ..embed import BF16_FROM_PASSAGES, INT8_FROM_PASSAGES, MINILM, MULTILINGUAL
        from ..embed.bf16 import amx_bf16_available

        model = self.embedder_model() or MINILM
        if self.config.embedder_precision != "auto" or not passages:
            return
        if model == MULTILINGUAL and self.config.embedder_backend == "auto":
            self.facts["precision"] = "fp32" if passages < INT8_FROM_PASSAGES else "int8"
            return
        if self.config.embedder_backend not in ("auto", "onnx") or model != MINILM:
            return
        if passages < INT8_FROM_PASSAGES:
            self.facts["precision"] = "fp32"
        else:
            self.facts["precision"] = "bf16" if passages >= BF16_FROM_PASSAGES and amx_bf16_available() else "int8"

    def languages(self) -> list[str]:
        """The vault's languages, the main one first: ``languages`` in ``config.toml``, else what the first index
        read in the notes (``vault.language``), else English."""
        if self.config.languages:
            return list(self.config.languages)
        self._peek()
        return list(self.facts.get("languages") or ["en"])

    def open_store_unmigrated(self) -> Store:
        """The store as it is, for ``doctor``: pending migrations are reported, not applied."""
        return self.backend.open_unmigrated()

    def writer_lock(self, command: str) -> WriterLock:
        """The one-writer-at-a-time lock: a lock file in the index folder, or for a PostgreSQL store an
        advisory lock on the server, which writers on every machine share."""
        return self.backend.writer_lock(command)

    def narrow_index_modes(self) -> int:
        """Take from the index folder and its files the permission bits the vault withholds; how many changed."""
        return narrow_modes(self.index_dir, self.private_bits)

    def embedder(self, prepare: bool = False, on_notice: Callable[[str], None] | None = None) -> Embedder:
        """The configured embedder; writers pass ``prepare`` so the fast ONNX export is made once."""
        from ..embed import MINILM
        from ..embed.select import select_embedder

        model = self.embedder_model() or MINILM
        return select_embedder(
            self.config,
            self.layout.onnx_dir,
            prepare=prepare,
            on_notice=on_notice,
            model=model,
            precision=self.embedder_precision(),
        )

    def question_embedder(self):
        """The configured embedder with its model already loading in the background, where the backend can
        (``OnnxEmbedder.start_loading``): for a caller about to embed a question with other work to do first,
        such as importing the rest of the core (a cold ``query``). None while the index's model or precision is not
        known without opening its store (a PostgreSQL one): the question's embedder is then made after."""
        unknown = self.embedder_model() is None or (
            self.config.embedder_precision == "auto" and "precision" not in self.facts
        )
        if unknown and not self.backend.peekable and not is_import_spec(self.config.embedder_backend):
            return None
        embedder = self.embedder()
        start_loading = getattr(embedder, "start_loading", None)
        if start_loading is not None:
            start_loading()
        return embedder

    def writer_embedder(self, on_notice: Callable[[str], None] | None = None) -> Embedder:
        return self.embedder(prepare=True, on_notice=on_notice)

    def onnx_export(self) -> str | None:
        """Where the verified ONNX export that queries use lives (the user cache, shared by every
        vault, or this index folder); None without one, or when another backend is configured."""
        from ..embed import MINILM, MULTILINGUAL
        from ..embed.select import onnx_export_location

        model = self.embedder_model() or MINILM
        backends = ("auto",) if model == MULTILINGUAL else ("auto", "onnx")
        if self.config.embedder_backend not in backends or model not in (MINILM, MULTILINGUAL):
            return None
        found = onnx_export_location(self.layout.onnx_dir, model)
        return str(found) if found is not None else None
