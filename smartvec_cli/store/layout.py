"""Every file and folder inside the index folder, named in one place.

The index folder is smartvec's and only smartvec's: the user's notes are never written.
Everything here can be rebuilt from the database except the database itself, which
holds the vectors too.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import SmartvecError

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
MCP_TOKEN_FILE = "mcp-token"  # the bearer token of ``mcp --http``, 0600
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


ANN_FILE_NAME = re.compile(r"vectors-(0|[1-9][0-9]{0,18})\.hnsw")
"""What ``ann_file_name`` makes: the only names a sidecar may give (never a path, never ``..``)."""


def is_ann_file_name(name: object) -> bool:
    return isinstance(name, str) and ANN_FILE_NAME.fullmatch(name) is not None


OWN_FILES = (
    DB_FILE,
    *(DB_FILE + suffix for suffix in SQLITE_SIDE_FILES),
    CONFIG_FILE,
    ANN_SIDECAR_FILE,
    WRITER_LOCK_FILE,
    WATCH_LOCK_FILE,
    SOCKET_FILE,
    REFRESH_LOG_FILE,
    CRON_LOG_FILE,
    MCP_TOKEN_FILE,
    UNTRACKED_QUERY_FILE,
    "pgpass",
)
"""The files smartvec makes at the top of an index folder (besides ``vectors-N.hnsw``), and so the only ones it
may read, replace, back up, narrow or remove there."""
OWN_FOLDERS = (ONNX_DIR, BACKUP_DIR)


def is_own_name(name: str) -> bool:
    """Whether ``name`` (a file or folder at the top of an index folder) is one smartvec makes."""
    return name in OWN_FILES or name in OWN_FOLDERS or is_ann_file_name(name)


def is_own_temp_name(name: str) -> bool:
    """A temporary file smartvec writes before a rename (``<own name>.tmp``), and nothing else ending in .tmp."""
    return name.endswith(TEMP_SUFFIX) and is_own_name(name[: -len(TEMP_SUFFIX)])


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
        """Every ANN file on disk, the one the sidecar names and any a killed writer left beside it (only names
        smartvec makes: ``vectors-N.hnsw``)."""
        return sorted(p for p in self.root.glob(SAVED_ANN_FILE_GLOB) if is_ann_file_name(p.name))

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
    def mcp_token(self) -> Path:
        return self.root / MCP_TOKEN_FILE

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

        Only a regular file of this folder with a name smartvec makes is copied, read without following a
        symbolic link: a backup never holds what someone else put there. Written under a temporary name and
        renamed, so a backup file is always whole."""
        path = Path(path)
        if path.parent != self.root or not is_own_name(path.name):
            raise SmartvecError(f"{path} is not a file of the index folder {self.root}; not copied")
        self.backup_dir.mkdir(exist_ok=True)
        refused = refusal(self.backup_dir, folder=True)
        if refused:
            raise SmartvecError(refused)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        target = self.backup_dir / f"{path.name}.{stamp}"
        tmp = temp_path(target)
        source = open_regular(path)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
            with os.fdopen(source, "rb") as src, os.fdopen(os.open(tmp, flags, 0o600), "wb") as out:
                shutil.copyfileobj(src, out)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, target)
        return target

    def leftover_temp_files(self) -> list[Path]:
        """Temporary files a killed writer left behind (never the ones a live writer is using: callers hold the
        lock); only names smartvec makes, so another program's ``*.tmp`` beside them is never touched."""
        return sorted(p for p in self.root.glob(f"*{TEMP_SUFFIX}") if is_own_temp_name(p.name))


# -- whose folder ---------------------------------------------------------------------------------
# smartvec runs from cron, as root, and as a long-lived daemon: an index folder, or a file in it, that
# someone else made or can change would let that someone choose what it reads, copies, truncates or removes.


def open_regular(path: Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor on ``path``, opened without following a symbolic link and checked (``fstat``) to be a
    regular file of ours; raises SmartvecError naming the path otherwise."""
    try:
        fd = os.open(path, flags | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise SmartvecError(_why_not_opened(path, exc)) from None
    try:
        problem = _ownership_problem(Path(path), os.fstat(fd), folder=False)
        if problem:
            raise SmartvecError(problem)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _why_not_opened(path: Path, exc: OSError) -> str:
    import errno

    if exc.errno == errno.ELOOP:
        return f"{path} is a symbolic link: smartvec uses only files it made in its index folder; remove it"
    return f"cannot open {path}: {exc.strerror or exc}"


def refusal(path: str | Path, folder: bool) -> str | None:
    """Why smartvec must not use ``path`` (the index folder when ``folder``, else a file in it), or None when it is
    absent or acceptable: a symbolic link, another user's, not a folder or regular file, or writable by others
    (a folder may be, when it has the sticky bit: then others cannot rename or remove what is ours in it)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None  # what cannot be looked at is reported by whoever needs it
    if stat.S_ISLNK(info.st_mode):
        return (
            f"{path} is a symbolic link: smartvec uses only an index folder and files it made itself; "
            "pass --index-dir with the real folder, or remove the link"
        )
    return _ownership_problem(Path(path), info, folder)


def _ownership_problem(path: Path, info: os.stat_result, folder: bool) -> str | None:
    me = os.geteuid()
    if info.st_uid != me:
        return (
            f"{path} belongs to {_user(info.st_uid)}, not to {_user(me)} who runs smartvec: "
            "an index folder and its files must be your own"
        )
    if folder and not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a folder"
    if not folder and not stat.S_ISREG(info.st_mode):
        return f"{path} is not a regular file: smartvec reads only files it made in its index folder"
    mode = stat.S_IMODE(info.st_mode)
    sticky = folder and mode & stat.S_ISVTX
    if not sticky and (mode & 0o002 or (mode & 0o020 and not _private_group(info.st_gid))):
        who = "everyone" if mode & 0o002 else "its group"
        return (
            f"{path} is {mode:04o}: {who} can change it, and so what smartvec reads there; "
            f"run 'chmod go-w {path}' if that is meant to be your index"
        )
    return None


def _user(uid: int) -> str:
    try:
        import pwd

        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (KeyError, ImportError):
        return f"uid {uid}"


def _private_group(gid: int) -> bool:
    """Whether ``gid`` is our own user-private group (Debian's default: umask 002 gives group write to a group of
    one), so that its write bit lets nobody else in."""
    if gid != os.getegid():
        return False
    try:
        import grp
        import pwd

        me = pwd.getpwuid(os.geteuid()).pw_name
        group = grp.getgrgid(gid)
    except (KeyError, ImportError):
        return False
    return group.gr_name == me and all(member == me for member in group.gr_mem)


def guard_index_folder(root: Path) -> None:
    """Refuse (SmartvecError, one line) an index folder, or a file or folder smartvec uses in it, that is not
    safely ours: see ``refusal``. Cheap (one ``lstat`` per name that exists, listed by one ``scandir``); called
    before anything in it is read."""
    problem = refusal(root, folder=True)
    if problem is None:
        try:
            entries = [entry for entry in os.scandir(root) if entry.name in GUARDED]
        except OSError:  # absent, or not a folder we may list: whoever uses it says why
            entries = []
        for entry in entries:
            problem = refusal(entry.path, folder=entry.name in OWN_FOLDERS)
            if problem:
                break
    if problem:
        raise SmartvecError(problem)


GUARDED = frozenset(name for name in (*OWN_FILES, *OWN_FOLDERS) if name != SOCKET_FILE)
"""What ``guard_index_folder`` checks: the socket is left to whoever connects (the peer's credentials)."""


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
    """(path, mode) of the index folder and of what smartvec made in it that grants a bit ``mask`` forbids
    (see ``_tree``: what it did not make is never narrowed, nor named)."""
    if not mask:
        return []
    found = []
    for path in _tree(root):
        try:
            mode = stat.S_IMODE(path.lstat().st_mode)
        except OSError:
            continue
        if mode & mask and not path.is_symlink() and path.lstat().st_uid == os.geteuid():
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
    """The index folder (unless it is a shared, sticky folder such as /tmp: then it was not made for the index) and
    what smartvec made in it: its own files, and its own folders with everything in them."""
    if not root.is_dir() or root.is_symlink():
        return
    if not stat.S_IMODE(root.stat().st_mode) & stat.S_ISVTX:
        yield root
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if not (is_own_name(entry.name) or is_own_temp_name(entry.name)) or entry.is_symlink():
            continue
        yield Path(entry.path)
        if entry.name in OWN_FOLDERS and entry.is_dir(follow_symlinks=False):
            for folder, dirs, files in os.walk(entry.path):
                for name in dirs + files:
                    yield Path(folder) / name
