"""Every file and folder inside the index folder, named in one place.

The index folder is smartvec's and only smartvec's: the user's notes are never written.
Everything here can be rebuilt from the database except the database itself, which
holds the vectors too.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

INDEX_DIR_NAME = ".smartvec"  # the default index folder, inside the vault

DB_FILE = "smartvec.db"
CONFIG_FILE = "config.toml"
ANN_SIDECAR_FILE = "vectors.json"  # names the current ANN file; renamed last, so it is the commit point
ANN_FILE_GLOB = "vectors-*.hnsw*"  # saved ANN files and their temporary copies
SAVED_ANN_FILE_GLOB = "vectors-*.hnsw"
WRITER_LOCK_FILE = "writer.lock"
WATCH_LOCK_FILE = "watch.lock"
SOCKET_FILE = "query.sock"
REFRESH_LOG_FILE = "refresh.log"
CRON_LOG_FILE = "cron.log"
UNTRACKED_QUERY_FILE = "last-untracked-query.json"  # the hits of the last --no-track query, for feedback --rank
ONNX_DIR = "onnx"
BACKUP_DIR = "backup"  # copies of the files a repair replaced, named <file>.<UTC time>
TEMP_SUFFIX = ".tmp"
SQLITE_SIDE_FILES = ("-wal", "-shm")  # SQLite's own files beside the database in WAL mode


def index_dir_for(vault: str | Path, index_dir: str | Path | None = None) -> Path:
    """The index folder of ``vault`` as an absolute path: ``index_dir`` when given, else ``<vault>/.smartvec``.

    Plain path arithmetic, so that a ``query`` answered by a running daemon can find its
    socket before anything heavy is imported."""
    return (Path(index_dir).expanduser() if index_dir else Path(vault) / INDEX_DIR_NAME).absolute()


def ann_file_name(generation: int) -> str:
    return f"vectors-{generation}.hnsw"


def temp_path(path: Path) -> Path:
    """Where ``path`` is written before the rename that makes it whole (see ``leftover_temp_files``)."""
    return path.with_name(path.name + TEMP_SUFFIX)


@dataclass(frozen=True)
class IndexLayout:
    """The paths of one index folder."""

    root: Path

    @property
    def db(self) -> Path:
        return self.root / DB_FILE

    @property
    def config(self) -> Path:
        return self.root / CONFIG_FILE

    @property
    def ann_sidecar(self) -> Path:
        return self.root / ANN_SIDECAR_FILE

    def ann_file(self, generation: int) -> Path:
        return self.root / ann_file_name(generation)

    def saved_ann_files(self) -> list[Path]:
        """Every ANN file on disk, the one the sidecar names and any a killed writer left beside it."""
        return sorted(self.root.glob(SAVED_ANN_FILE_GLOB))

    @property
    def writer_lock(self) -> Path:
        return self.root / WRITER_LOCK_FILE

    @property
    def watch_lock(self) -> Path:
        return self.root / WATCH_LOCK_FILE

    @property
    def socket(self) -> Path:
        return self.root / SOCKET_FILE

    @property
    def refresh_log(self) -> Path:
        return self.root / REFRESH_LOG_FILE

    @property
    def cron_log(self) -> Path:
        return self.root / CRON_LOG_FILE

    @property
    def untracked_query(self) -> Path:
        return self.root / UNTRACKED_QUERY_FILE

    @property
    def onnx_dir(self) -> Path:
        return self.root / ONNX_DIR

    @property
    def backup_dir(self) -> Path:
        return self.root / BACKUP_DIR

    def db_side_file(self, suffix: str) -> Path:
        return self.root / (DB_FILE + suffix)

    def keep_copy(self, path: Path) -> Path:
        """Copy ``path`` to ``backup/<name>.<UTC time>`` before a repair replaces it; the copy's path.

        Written under a temporary name and renamed, so a backup file is always whole."""
        self.backup_dir.mkdir(exist_ok=True)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        target = self.backup_dir / f"{path.name}.{stamp}"
        tmp = temp_path(target)
        shutil.copyfile(path, tmp)
        os.replace(tmp, target)
        return target

    def leftover_temp_files(self) -> list[Path]:
        """Temporary files a killed writer left behind (never the ones a live writer is using: callers hold the
        lock)."""
        return sorted(self.root.glob(f"*{TEMP_SUFFIX}"))


# -- permissions --------------------------------------------------------------------------------
# The index holds every passage's text: it must never be readable by someone the vault keeps out.

PERMISSION_BITS = 0o077  # what group and others may do; the owner's own bits are never narrowed


def private_mask(vault: Path) -> int:
    """The group/other permission bits the vault folder withholds, which nothing in its index may grant
    (0o077 for a 0700 vault, 0o022 for a 0755 one); 0 when the vault cannot be looked at."""
    try:
        return PERMISSION_BITS & ~os.stat(vault).st_mode
    except OSError:
        return 0


def narrow_umask(mask: int) -> None:
    """Add ``mask`` to the process umask (never widening it), so that every file and folder made from now on
    (SQLite's database and its -wal/-shm, which SQLite gives the database's own mode, the vector files,
    logs, locks, the socket) is no wider than the vault."""
    current = os.umask(0o077)
    os.umask(current | mask)


def too_wide(root: Path, mask: int) -> list[tuple[Path, int]]:
    """(path, mode) of the index folder and everything in it that grants a bit ``mask`` forbids."""
    if not mask:
        return []
    found = []
    for path in _tree(root):
        try:
            mode = stat.S_IMODE(path.lstat().st_mode)
        except OSError:
            continue
        if mode & mask and not path.is_symlink():
            found.append((path, mode))
    return sorted(found)


def narrow_modes(root: Path, mask: int) -> int:
    """Take the bits ``mask`` forbids away from the index folder and everything in it; how many were changed."""
    changed = 0
    for path, mode in too_wide(root, mask):
        try:
            os.chmod(path, mode & ~mask)
            changed += 1
        except OSError:
            pass  # not ours to change (another owner): doctor goes on naming it
    return changed


def _tree(root: Path):
    if not root.is_dir():
        return
    yield root
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            yield Path(folder) / name
