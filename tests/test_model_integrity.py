"""A damaged model cache is never used silently, and vectors a damaged model made are found and made again.

Each test works on its own copy of the test run's verified export (``conftest.onnx_export``), in a user cache
of its own, and damages it as a disk or a sync tool would: 64 KB garbled inside a file, its size kept (as
``dd conv=notrunc`` does), its mtime put back (as ``touch -d`` would). Where a writer makes the export again,
a copy of the test run's export stands in for ``export_onnx`` (``test_onnx_embedder.py`` proves the export
itself), renamed in time as a fresh export is.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import index_rows

from smartvec_cli.embed import cache as export_cache
from smartvec_cli.embed import packaged_model_dir, weights_fingerprint
from smartvec_cli.embed.cache import user_export_dir
from smartvec_cli.embed.integrity import STAMP_NAME, check_export
from smartvec_cli.embed.onnx import MANIFEST_NAME, OnnxEmbedder, OnnxLoadError, load_onnx_embedder, read_manifest

pytestmark = pytest.mark.slow

QUESTIONS = (
    "What is the travel per diem?",
    "Who leads the vector search project?",
    "How many days of remote work are allowed?",
    "When was the budget meeting?",
    "Which database does the team use?",
)
GARBLE = 64 * 1024


class CacheFolder(type(Path())):
    """The export's folder, and ``made``: the folders a writer made the export in again."""

    made: list


@pytest.fixture
def cache(tmp_path, monkeypatch, onnx_export) -> Path:
    """This test's user cache holding a copy of the verified export; ``export_onnx`` copies it again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = CacheFolder(user_export_dir(weights_fingerprint(packaged_model_dir())))
    shutil.copytree(onnx_export, folder)
    made = []

    def export_again(model_dir, target):
        made.append(Path(target))
        staging = Path(target).with_name(".rebuilt")
        shutil.copytree(onnx_export, staging)
        manifest = json.loads((staging / MANIFEST_NAME).read_text())
        (staging / MANIFEST_NAME).write_text(json.dumps({**manifest, "created": f"rebuilt {len(made)}"}))
        shutil.rmtree(target, ignore_errors=True)
        os.replace(staging, target)
        return Path(target) / manifest["onnx_file"]

    monkeypatch.setattr(export_cache, "export_onnx", export_again)
    folder.made = made
    return folder


def manifest(folder: Path) -> dict:
    return json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))


def garble(path: Path, keep_mtime: bool = True) -> None:
    """64 KB of noise three quarters into the file (past the word-embedding table, which fills the first half of
    the weights: noise there changes only words no question uses), its size kept, and its times put back as
    ``touch -d`` would."""
    before = path.stat()
    with open(path, "r+b") as fh:
        fh.seek(max(0, before.st_size * 3 // 4 - GARBLE // 2))
        fh.write(np.random.default_rng(7).bytes(min(GARBLE, before.st_size)))
    if keep_mtime:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert after.st_size == before.st_size and (after.st_mtime_ns == before.st_mtime_ns or not keep_mtime)


def top3(cli, *extra: str) -> tuple[dict, list[str]]:
    """The first three passages for each question, and the warnings the queries printed."""
    answers, warnings = {}, []
    for question in QUESTIONS:
        result = cli("query", question, "--top-k", "3", "--json", "--no-track")
        assert result.exit_code == 0, result.stderr
        answers[question] = [hit["chunk_id"] for hit in json.loads(result.stdout)]
        warnings += [line for line in result.stderr.splitlines() if line.strip()]
    return answers, warnings


def onnx_in_use(cli) -> bool:
    from smartvec_cli.core.workspace import Workspace

    return isinstance(Workspace.resolve().embedder(), OnnxEmbedder)


@pytest.mark.parametrize("damaged", ["export", "optimised"])
def test_garbled_weights_are_never_used_and_every_answer_stays_right(damaged, sample_vault, cli, cache):
    assert cli("index").exit_code == 0
    good, warnings = top3(cli)
    assert warnings == [] and onnx_in_use(cli)
    files = manifest(cache)
    name = files["onnx_file"] if damaged == "export" else files["optimised"]["data_file"]
    graph = (cache / files["onnx_file"], cache / files["optimised"]["onnx_file"])
    garble(cache / name)

    answers, warnings = top3(cli)
    assert answers == good
    assert len(warnings) == 1, warnings  # once per process, however many questions
    assert (
        warnings[0].startswith("warning: the ONNX model cache in ")
        and str(cache) in warnings[0]
        and name in warnings[0]
    )
    assert "smartvec index" in warnings[0]

    # The damage matters: the same files loaded without the check embed the questions elsewhere.
    unchecked = OnnxEmbedder(
        graph[0],
        cache / files["tokenizer_file"],
        files["fingerprint"],
        optimised=(graph[1], files["optimised"]["onnxruntime"]) if damaged == "optimised" else None,
    )
    honest = load_onnx_embedder(cache, notice=lambda text: None)
    reference = honest.embed(QUESTIONS) if honest is not None else None
    if reference is None:
        from smartvec_cli.embed.sentence_transformers import SentenceTransformerEmbedder

        reference = SentenceTransformerEmbedder().embed(QUESTIONS)
    cosines = (np.nan_to_num(unchecked.embed(QUESTIONS), nan=0.0) * reference).sum(axis=1)
    assert cosines.min() < 0.99, cosines


def test_a_stamp_is_not_fooled_by_a_restored_mtime_and_spares_a_query_the_hashing(cache):
    files = manifest(cache)
    check = check_export(cache, files)
    assert check.sound and (cache / STAMP_NAME).is_file()
    stamps = json.loads((cache / STAMP_NAME).read_text())["files"]
    assert set(stamps) == {
        files["onnx_file"],
        files["tokenizer_file"],
        files["optimised"]["onnx_file"],
        files["optimised"]["data_file"],
    }

    # A stamp that matches is believed: bytes changed under an unchanged stat would pass (doctor hashes in full).
    from smartvec_cli.embed import integrity

    integrity._verified.clear()
    hashed = []
    real = integrity.file_sha256
    integrity.file_sha256 = lambda path: hashed.append(path) or real(path)
    try:
        assert check_export(cache, files).sound and hashed == []
        garble(cache / files["tokenizer_file"])  # mtime put back: ctime still moved
        result = check_export(cache, files)
    finally:
        integrity.file_sha256 = real
    assert result.damaged == [files["tokenizer_file"]] and not result.export_sound
    assert [p.name for p in hashed] == [files["tokenizer_file"]]
    assert check_export(cache, files, full=True).damaged == [files["tokenizer_file"]]


def test_a_garbled_tokenizer_is_named_then_a_writer_makes_the_cache_again(sample_vault, cli, cache):
    assert cli("index").exit_code == 0
    good, _ = top3(cli)
    garble(cache / "tokenizer.json")

    answers, warnings = top3(cli)
    assert answers == good
    assert len(warnings) == 1 and str(cache) in warnings[0] and "tokenizer.json" in warnings[0], warnings
    assert "Exception" not in warnings[0] and "UTF-8" not in warnings[0]

    result = cli("index")
    assert result.exit_code == 0, result.stderr
    assert cache.made == [cache]
    assert "making it again from the packaged weights" in result.stderr and str(cache) in result.stderr
    assert check_export(cache, read_manifest(cache), full=True).sound
    assert onnx_in_use(cli)
    answers, warnings = top3(cli)
    assert answers == good and warnings == []


def test_a_load_failure_names_the_cache_and_the_remedy(cache, tmp_path):
    """What no digest can catch (a cache whose manifest records no digests, loaded directly): never a bare Exception."""
    broken = tmp_path / "broken"
    shutil.copytree(cache, broken)
    garble(broken / "tokenizer.json")
    files = manifest(broken)
    embedder = OnnxEmbedder(broken / files["onnx_file"], broken / "tokenizer.json", files["fingerprint"])
    with pytest.raises(OnnxLoadError) as failure:
        embedder.embed(["a question"])
    text = str(failure.value)
    assert str(broken) in text and "remove that folder and run 'smartvec index'" in text and "\n" not in text


def test_an_export_without_digests_is_not_trusted_by_a_query_and_made_again_by_a_writer(sample_vault, cli, cache):
    legacy = manifest(cache)
    del legacy["digests"]
    (cache / MANIFEST_NAME).write_text(json.dumps(legacy))
    (cache / STAMP_NAME).unlink(missing_ok=True)
    assert load_onnx_embedder(cache, notice=lambda text: None) is None
    result = cli("index")
    assert result.exit_code == 0, result.stderr
    assert "no recorded checksums" in result.stderr and cache.made == [cache]
    assert onnx_in_use(cli)


def feedback_and_vectors() -> tuple[dict, dict]:
    rows = index_rows("SELECT c.chunk_id, c.version, c.feedback FROM chunks c WHERE c.feedback != 0")
    events = index_rows("SELECT count(*) FROM events WHERE kind = 'feedback'")
    return {(r[0], r[1]): r[2] for r in rows}, {"events": events[0][0]}


def doctor(cli, *extra: str):
    result = cli("doctor", "--json", *extra)
    report = json.loads(result.stdout)
    return result.exit_code, {c["name"]: c for c in report["checks"]}, result


def test_doctor_finds_vectors_a_damaged_model_made_and_repair_embeds_them_again(
    sample_vault, cli, cache, tmp_path, monkeypatch
):
    """An index built while the cache was damaged (by a smartvec that checked sizes only) keeps wrong vectors
    after the cache is whole again: doctor finds them by a sample, --repair re-embeds, feedback kept."""
    assert cli("index").exit_code == 0
    good, _ = top3(cli)
    shutil.rmtree(tmp_path / "index")

    damaged = tmp_path / "damaged"
    shutil.copytree(cache, damaged)
    garble(damaged / manifest(damaged)["optimised"]["data_file"])
    files = manifest(damaged)
    poisoned = OnnxEmbedder(
        damaged / files["onnx_file"],
        damaged / files["tokenizer_file"],
        files["fingerprint"],
        optimised=(damaged / files["optimised"]["onnx_file"], files["optimised"]["onnxruntime"]),
    )
    with monkeypatch.context() as patch:
        patch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, onnx_dir, **_: poisoned)
        assert cli("index").exit_code == 0
        wrong, _ = top3(cli)
    assert wrong != good  # what the user got, silently, before
    first = good[QUESTIONS[0]][0]
    assert cli("feedback", first, "--up", "--json").exit_code == 0
    kept = feedback_and_vectors()

    code, checks, result = doctor(cli)
    assert code == 1 and not checks["model_files"]["ok"], checks["model_files"]
    assert "sampled stored vectors differ" in checks["model_files"]["detail"]
    assert "doctor --repair" in result.stderr

    code, checks, result = doctor(cli, "--repair")
    assert code == 0, (checks, result.stderr)
    assert checks["model_files"]["repaired"] and "re-embedded" in checks["model_files"]["detail"]
    assert feedback_and_vectors() == kept
    assert doctor(cli)[0] == 0
    answers, _ = top3(cli)
    assert answers[QUESTIONS[0]][0] == first
    assert {q: a for q, a in answers.items() if q != QUESTIONS[0]} == {
        q: a for q, a in good.items() if q != QUESTIONS[0]
    }


def test_doctor_finds_a_damaged_cache_and_vectors_of_a_replaced_export_and_repair_mends_both(sample_vault, cli, cache):
    assert cli("index").exit_code == 0
    good, _ = top3(cli)
    made_by = index_rows("SELECT value FROM meta WHERE key = 'model_exports'")[0][0]
    assert made_by.startswith("onnx:") and " " not in made_by
    assert cli("feedback", good[QUESTIONS[1]][0], "--down", "--json").exit_code == 0
    kept = feedback_and_vectors()
    garble(cache / manifest(cache)["onnx_file"])

    code, checks, _ = doctor(cli)
    assert code == 1 and not checks["model_files"]["ok"]
    assert f"the ONNX model cache in {cache} is damaged" in checks["model_files"]["detail"]

    code, checks, result = doctor(cli, "--repair")
    assert code == 0, (checks, result.stderr)
    assert cache.made == [cache] and check_export(cache, read_manifest(cache), full=True).sound
    detail = checks["model_files"]["detail"]
    assert checks["model_files"]["repaired"] and f"vectors made by ONNX export {made_by}, since replaced" in detail
    now = index_rows("SELECT value FROM meta WHERE key = 'model_exports'")[0][0]
    assert now.startswith("onnx:") and now != made_by
    assert feedback_and_vectors() == kept
    code, checks, _ = doctor(cli)
    assert code == 0 and checks["model_files"]["ok"]
    answers, warnings = top3(cli)
    assert warnings == [] and answers[QUESTIONS[0]] == good[QUESTIONS[0]]
