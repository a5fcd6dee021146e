"""Is the ONNX export on disk still the one that was verified? Checked by content, cheaply.

An export earns its fingerprint by agreeing with sentence-transformers when it is made
(``onnx.export_onnx``); what can spoil it later is the disk: a sync tool, a restored backup, a
stray write. 64 KB garbled inside the weights keep the file's size and made every query answer
wrongly, without a word. So the manifest records the sha256 of every file of the export (the
graph, the tokenizer, and the optimised graph with its weights), and a folder is used only while
its files hash to them.

Hashing the 180 MB on every query would cost a cold query a large share of its time (docs/benchmarks.md,
*Measurements behind the code*). So ``verified.json`` beside them
records, for each file that last hashed right, what it looked like then: size, mtime_ns,
ctime_ns, inode and device. A write in place changes mtime; one that puts mtime back
(``touch -d``) still changes ctime, which no user can set; a replaced file has another inode. A
file whose stat matches its stamp is taken as verified, any other is hashed (and the stamp brought
up to date when it matches). A process remembers what it verified, so a daemon hashes nothing
twice. ``doctor`` ignores the stamps and hashes everything (``full``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

STAMP_NAME = "verified.json"
BLOCK = 1 << 20

Notice = Callable[[str], None]

_verified: dict[str, tuple[tuple[int, ...], str]] = {}  # path -> (stat key, digest) hashed right by this process
_warned: set[str] = set()  # notices this process has given already


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


EXTRAS = ("optimised", "int8")
"""The manifest's entries for files derived from the export (the optimised graph, the int8 graph): each
optional, each used only while its own files are sound."""


def extra_digests(manifest: dict, entry: str) -> dict[str, str | None]:
    """The files of one derived entry of the manifest (``optimised`` or ``int8``) with their sha256."""
    extra = manifest.get(entry) or {}
    digests = extra.get("digests") or {}
    return {extra[key]: digests.get(extra[key]) for key in ("onnx_file", "data_file") if key in extra}


def expected_digests(manifest: dict) -> tuple[dict[str, str | None], dict[str, str | None]]:
    """(the export's own files: graph, tokenizer, and multilingual-e5's normalisation map and vocabulary
    (``model_files``); the files derived from it: optimised and int8 graphs), each name with its recorded sha256
    (None where the manifest, made by an older smartvec, has none)."""
    digests = manifest.get("digests") or {}
    own = (manifest["onnx_file"], manifest["tokenizer_file"], *(manifest.get("model_files") or ()))
    base = {name: digests.get(name) for name in own}
    extra: dict[str, str | None] = {}
    for entry in EXTRAS:
        extra.update(extra_digests(manifest, entry))
    return base, extra


def export_id(manifest: dict, precision: str = "fp32") -> str | None:
    """What an index records as the export that made its vectors: its files' digests and when it was
    made, so that an export rebuilt after damage is another one even where its bytes come out the same.
    The int8 graph is named by its own digest too (``onnx-int8:``)."""
    base, _ = expected_digests(manifest)
    if None in base.values():
        return None
    if precision == "int8":
        int8 = extra_digests(manifest, "int8")
        if not int8 or None in int8.values():
            return None
        text = json.dumps({"digests": {**base, **int8}, "created": manifest.get("created")}, sort_keys=True)
        return "onnx-int8:" + hashlib.sha256(text.encode()).hexdigest()[:16]
    text = json.dumps({"digests": base, "created": manifest.get("created")}, sort_keys=True)
    return "onnx:" + hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class ExportCheck:
    """What :func:`check_export` found in one folder."""

    folder: Path
    damaged: list[str] = field(default_factory=list)  # files whose content is not what was recorded (or that are gone)
    unverified: list[str] = field(default_factory=list)  # files with no recorded digest
    optimised: set[str] = field(default_factory=set)  # which of the names belong to the optimised graph
    int8: set[str] = field(default_factory=set)  # which of the names belong to the int8 graph

    @property
    def export_sound(self) -> bool:
        """The export itself (graph and tokenizer) is what was verified."""
        derived = self.optimised | self.int8
        return not any(name not in derived for name in self.damaged + self.unverified)

    @property
    def optimised_sound(self) -> bool:
        return not any(name in self.optimised for name in self.damaged + self.unverified)

    @property
    def int8_sound(self) -> bool:
        return not any(name in self.int8 for name in self.damaged + self.unverified)

    @property
    def sound(self) -> bool:
        return not self.damaged and not self.unverified

    def describe(self) -> str:
        """The cause, naming the folder: what a warning or ``doctor`` says."""
        if self.damaged:
            return (
                f"the ONNX model cache in {self.folder} is damaged ({', '.join(sorted(self.damaged))} "
                "not as recorded in its manifest)"
            )
        return f"the ONNX model cache in {self.folder} has no recorded checksums (made by an older smartvec)"


def check_export(folder: Path, manifest: dict, full: bool = False) -> ExportCheck:
    """Compare every file of the export in ``folder`` with the sha256 its manifest records; ``full``
    hashes every file, trusting no stamp."""
    folder = Path(folder)
    base, extra = expected_digests(manifest)
    result = ExportCheck(
        folder, optimised=set(extra_digests(manifest, "optimised")), int8=set(extra_digests(manifest, "int8"))
    )
    stamps = {} if full else _read_stamps(folder)
    fresh: dict[str, dict] = {}
    for name, digest in {**base, **extra}.items():
        if digest is None:
            result.unverified.append(name)
            continue
        path = folder / name
        try:
            key = _stat_key(path)
        except OSError:
            result.damaged.append(name)
            continue
        remembered = _verified.get(str(path))
        stamp = stamps.get(name) or {}
        if not full and (
            remembered == (key, digest) or (stamp.get("stat") == list(key) and stamp.get("sha256") == digest)
        ):
            _verified[str(path)] = (key, digest)
            continue
        try:
            actual = file_sha256(path)
        except OSError:
            actual = None
        if actual != digest:
            _verified.pop(str(path), None)
            result.damaged.append(name)
            continue
        _verified[str(path)] = (key, digest)
        if stamp.get("stat") != list(key) or stamp.get("sha256") != digest:
            fresh[name] = {"stat": list(key), "sha256": digest}
    if fresh:
        _write_stamps(folder, {**_read_stamps(folder), **fresh})
    return result


def warn_once(notice: Notice, text: str) -> None:
    """A warning a process gives once, however often the cache is opened (a daemon opens it for every run)."""
    if text not in _warned:
        _warned.add(text)
        notice(text)


def stderr_notice(text: str) -> None:
    """Where a reader's warning goes when its caller gave no place for it: one line on stderr."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _stat_key(path: Path) -> tuple[int, ...]:
    info = os.stat(path)
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _read_stamps(folder: Path) -> dict:
    try:
        stamps = json.loads((folder / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamps.get("files", {}) if isinstance(stamps, dict) and isinstance(stamps.get("files"), dict) else {}


def _write_stamps(folder: Path, files: dict) -> None:
    """Atomically; where the folder cannot be written, the next process hashes again."""
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=folder)
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"files": files}, fh, indent=2)
        os.replace(name, folder / STAMP_NAME)
    except OSError:
        Path(name).unlink(missing_ok=True)
