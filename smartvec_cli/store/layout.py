"""Every file and folder inside the index folder, named in one place.

The index folder is smartvec's and only smartvec's: the user's notes are never written.
Everything here can be rebuilt from the database except the database itself, which
holds the vectors too.
"""

from __future__ import annotations

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
ONNX_DIR = "onnx"
TEMP_SUFFIX = ".tmp"


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
    def onnx_dir(self) -> Path:
        return self.root / ONNX_DIR

    def leftover_temp_files(self) -> list[Path]:
        """Temporary files a killed writer left behind (never the ones a live writer is using: callers hold the lock)."""
        return sorted(self.root.glob(f"*{TEMP_SUFFIX}"))
