"""The ONNX export is made once per user, in the user cache, and shared by every vault.

Most tests here stand a copy of the session's verified export in for a new one (``export_onnx``
is replaced by a copy), so they check where exports go and how they are found, not the export
itself (``test_onnx_embedder.py`` does that). One test indexes two vaults for real.
"""

import json
import shutil
from pathlib import Path

import pytest
from conftest import Cli, write

from smartvec_cli.embed import cache as export_cache
from smartvec_cli.embed import packaged_model_dir, weights_fingerprint
from smartvec_cli.embed.cache import find_export, prepare_export, user_export_dir, user_export_root
from smartvec_cli.embed.onnx import MANIFEST_NAME, read_manifest

pytestmark = pytest.mark.slow


@pytest.fixture
def empty_user_cache(tmp_path, monkeypatch, onnx_export) -> Path:
    """A user cache of this test's own, and ``export_onnx`` replaced by a copy of the verified export."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    made = []

    def copy_export(model_dir, folder):
        made.append(Path(folder))
        if Path(folder).exists():
            shutil.rmtree(folder)
        shutil.copytree(onnx_export, folder)
        return Path(folder) / read_manifest(folder)["onnx_file"]

    monkeypatch.setattr(export_cache, "export_onnx", copy_export)
    return made


def manifest(folder: Path) -> dict:
    return json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))


def test_the_user_cache_honours_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_export_root() == tmp_path / "xdg" / "smartvec" / "onnx"
    fingerprint = weights_fingerprint(packaged_model_dir())
    assert user_export_dir(fingerprint).name == fingerprint.replace("@", "-")


def test_two_vaults_share_one_export_in_the_user_cache(onnx_export, tmp_path, monkeypatch):
    """Indexed for real with the default backend: no index folder gets an export of its own."""
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    cli = Cli()
    for name in ("a", "b"):
        vault = tmp_path / name
        write(vault, "note.md", f"# Note {name}\n\nThe per diem is EUR 75 in vault {name}.\n")
        result = cli("--vault", str(vault), "--index-dir", str(tmp_path / f"{name}-index"), "index")
        assert result.exit_code == 0, result.stderr
        assert "preparing the fast ONNX model" not in result.stderr
        assert not (tmp_path / f"{name}-index" / "onnx").exists()
        status = cli.json("--vault", str(vault), "--index-dir", str(tmp_path / f"{name}-index"), "status", "--json")
        assert status["onnx_export"] == str(onnx_export)
        assert status["model"] == manifest(onnx_export)["fingerprint"]
        text = cli("--vault", str(vault), "--index-dir", str(tmp_path / f"{name}-index"), "status").stdout
        assert f"onnx       {onnx_export}" in text


def test_a_writer_exports_once_into_the_user_cache(empty_user_cache, tmp_path):
    notices = []
    folder = prepare_export(packaged_model_dir(), tmp_path / "index" / "onnx", notices.append)
    assert folder == user_export_dir(weights_fingerprint(packaged_model_dir()))
    assert empty_user_cache == [folder] and "once per user" in notices[0]
    assert prepare_export(packaged_model_dir(), tmp_path / "other-index" / "onnx", notices.append) == folder
    assert find_export(packaged_model_dir(), tmp_path / "third-index" / "onnx") == folder
    assert empty_user_cache == [folder] and len(notices) == 1


def test_an_unwritable_user_cache_falls_back_to_the_index_folder(empty_user_cache, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    notices = []
    own = tmp_path / "index" / "onnx"
    assert prepare_export(packaged_model_dir(), own, notices.append) == own
    assert "cannot be written" in notices[0]
    assert find_export(packaged_model_dir(), own) == own  # queries find it there


def test_reinstalled_weights_are_recognised_by_their_fingerprint(empty_user_cache, onnx_export, tmp_path):
    folder = user_export_dir(weights_fingerprint(packaged_model_dir()))
    shutil.copytree(onnx_export, folder)
    stale = {**manifest(folder), "weights": {"path": "/elsewhere/model.safetensors", "size": 1, "mtime_ns": 1}}
    (folder / MANIFEST_NAME).write_text(json.dumps(stale))
    # the first question after a reinstall hashes the weights once, and lists their file as it is now
    assert find_export(packaged_model_dir(), tmp_path / "index" / "onnx") == folder
    assert manifest(folder)["installations"] == [manifest(onnx_export)["weights"]]
    assert manifest(folder)["weights"]["path"] == "/elsewhere/model.safetensors"  # the maker's record stays
    assert prepare_export(packaged_model_dir(), tmp_path / "index" / "onnx", print) == folder
    assert find_export(packaged_model_dir(), tmp_path / "index" / "onnx") == folder
    assert empty_user_cache == []


def test_an_index_folders_own_export_is_used_then_moved_into_the_user_cache(empty_user_cache, onnx_export, tmp_path):
    """An index made before the shared cache: queries keep using its export until a writer copies it over."""
    own = tmp_path / "index" / "onnx"
    shutil.copytree(onnx_export, own)
    legacy = manifest(own)
    del legacy["weights"]
    (own / MANIFEST_NAME).write_text(json.dumps(legacy))
    assert find_export(packaged_model_dir(), own) == own
    shared = prepare_export(packaged_model_dir(), own, print)
    assert shared == user_export_dir(weights_fingerprint(packaged_model_dir()))
    assert manifest(shared)["weights"] == manifest(onnx_export)["weights"]
    assert find_export(packaged_model_dir(), own) == shared
    assert empty_user_cache == []  # copied, not exported again
