"""Paths that come from outside (git trees, command lines, links in notes), confined to the folder they belong to.

A path read from a git tree is whatever bytes the tree holds: ``git hash-object --literally`` stores entries
named ``/home/u/.bashrc``, ``..`` or ``a/../../x`` that no checkout would accept. Such a path is refused before
anything is written, and the write itself walks the folder one component at a time without following a
symbolic link, so even a link planted in the folder cannot lead the file elsewhere.
"""

from __future__ import annotations

import errno
import os
import posixpath
from pathlib import Path, PurePosixPath

SEPARATORS = ("/",) if os.sep == "/" else ("/", "\\")
"""What splits a path into folders here: on posix a backslash is an ordinary character of a name."""


def refusal(rel_path: str) -> str | None:
    """Why ``rel_path`` (a ``/``-separated path meant to stay inside some folder) must not be used, or None.

    Refused: an empty path, an absolute one, an empty, ``.`` or ``..`` component, a ``.git`` component
    (where git keeps its own state), a NUL byte; on Windows also a backslash or a drive letter."""
    if not rel_path:
        return "empty path"
    if "\x00" in rel_path:
        return "path contains a NUL byte"
    if os.sep != "/" and (":" in rel_path or rel_path.startswith("\\")):
        return "absolute path (drive or share)"
    if rel_path.startswith(SEPARATORS):
        return "absolute path"
    for part in rel_path.replace("\\", "/").split("/") if os.sep != "/" else rel_path.split("/"):
        if part == "":
            return "empty path component (a doubled or trailing '/')"
        if part in (".", ".."):
            return f"'{part}' path component"
        if part.lower() == ".git":
            return "'.git' path component"
    return None


def within(root: str | Path, rel_path: str) -> Path | None:
    """``root / rel_path`` when it is acceptable (:func:`refusal`) and, with every symbolic link resolved, still
    inside ``root``; else None. Reads nothing but the links on the way."""
    if refusal(rel_path) is not None:
        return None
    real_root = os.path.realpath(root)
    candidate = os.path.realpath(os.path.join(real_root, *PurePosixPath(rel_path).parts))
    if candidate != real_root and not candidate.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return Path(root) / PurePosixPath(rel_path)


class OutsideFolder(ValueError):
    """A path that would leave its folder: the message says why."""


def write_within(root: str | Path, rel_path: str, data: bytes) -> Path:
    """Writes ``data`` to ``root / rel_path``, making the folders on the way, never outside ``root``.

    Each folder is opened relative to the one before it with ``O_NOFOLLOW``, and so is the file: a symbolic
    link anywhere on the way (planted before or during the write) fails the write instead of being
    followed. Raises :class:`OutsideFolder` for a refused path or a link on the way."""
    reason = refusal(rel_path)
    if reason is not None:
        raise OutsideFolder(reason)
    *folders, name = PurePosixPath(rel_path).parts
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    directory = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for folder in folders:
            try:
                os.mkdir(folder, 0o700, dir_fd=directory)
            except FileExistsError:
                pass
            try:
                inner = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow, dir_fd=directory)
            except OSError as exc:
                raise OutsideFolder(f"'{folder}' on the way is not a plain folder ({exc.strerror or exc})") from None
            os.close(directory)
            directory = inner
        try:
            handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | nofollow, 0o600, dir_fd=directory)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OutsideFolder("the file's place is a symbolic link") from None
            raise
        with os.fdopen(handle, "wb") as out:
            out.write(data)
    finally:
        os.close(directory)
    return Path(root) / PurePosixPath(rel_path)


def normalised_inside(rel_path: str) -> str | None:
    """``rel_path`` (``/``-separated, relative) with ``.`` and ``..`` worked out (``a/./b/../c`` is ``a/c``), or
    None when it climbs out of the folder it is relative to. Reads nothing: the path is only text."""
    normal = posixpath.normpath(rel_path)
    if normal == ".." or normal.startswith("../"):
        return None
    return normal


def vault_relative(name: str, vault: str | Path | None) -> str | None:
    """The vault path that a note name written as a file path stands for, or None for a name that is not one.

    ``/home/u/vault/a.md`` (a shell's completion) and ``sub/../a.md`` stand for ``a.md``; a plain name, title or
    id is None. Raises :class:`OutsideFolder` for a path that leaves the vault (``/etc/passwd``, ``../x``),
    which must never be matched to a note by its file name alone (with no ``vault``, every absolute path does).
    Reads nothing but the links on the way."""
    if os.path.isabs(name):
        if vault is None:
            raise OutsideFolder(f"{name} is an absolute path")
        real_vault = os.path.realpath(vault)
        for candidate, root in (
            (os.path.normpath(name), os.path.normpath(os.path.abspath(vault))),
            (os.path.realpath(name), real_vault),
        ):
            if candidate.startswith(root.rstrip(os.sep) + os.sep):
                return PurePosixPath(*Path(os.path.relpath(candidate, root)).parts).as_posix()
        raise OutsideFolder(f"{name} is outside the vault ({vault})")
    if ".." not in name.split("/"):
        return None
    normal = normalised_inside(name)
    if normal is None:
        raise OutsideFolder(f"{name} leaves the vault ({vault})")
    return normal


class NotARegularFile(OSError):
    """A path that is (now) a FIFO, a device, a folder, or a link leading out of the vault: never read."""


def read_regular(path: str | Path, limit: int, inside: str | Path | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` + 1 of them (a caller that gets more knows the
    file is over its limit, whatever its size said when it was listed).

    Checked when it is opened, not when it was listed: opened without blocking (a FIFO would hang the run), then
    ``fstat`` says whether it is a regular file, and, given ``inside`` (the vault), where the opened file really is
    must be within it, so a note swapped for a symbolic link to ``/etc/shadow`` between the scan and the read is
    refused. Raises OSError (``NotARegularFile`` for those refusals)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, device or socket)"
            raise NotARegularFile(f"is {kind}")
        if inside is not None and not _opened_inside(fd, path, info, inside):
            raise NotARegularFile("became a link out of the vault after it was listed")
        os.set_blocking(fd, True)
        chunks = []
        left = limit + 1
        while left > 0:
            block = os.read(fd, min(left, 1 << 20))
            if not block:
                break
            chunks.append(block)
            left -= len(block)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _opened_inside(fd: int, path: str | Path, info: os.stat_result, inside: str | Path) -> bool:
    real_root = os.path.realpath(inside)
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")  # where the open file really is (Linux)
    except OSError:
        real = os.path.realpath(path)
        try:
            same = os.stat(real)
        except OSError:
            return False
        if (same.st_dev, same.st_ino) != (info.st_dev, info.st_ino):
            return False
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)
