"""A store URL's password kept off command lines: split from the URL, written to a ``pgpass`` file.

Free of psycopg, so that ``cron`` and the console script can use it without the PostgreSQL client.
libpq (under psycopg) reads a password it is not given from the file ``PGPASSFILE`` names (default
``~/.pgpass``), and only when that file is private (0600): a command line such as cron's can then name
the URL without its password and the file that holds it, and ``ps`` shows neither the password nor
anything that is not already on disk, readable by its owner alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

PGPASS_NAME = "pgpass"


def split_password(url: str) -> tuple[str, str | None]:
    """``(url without its password, the password or None)``; the password may be in the user part
    (``postgresql://ana:secret@db/team``) or a ``password=`` parameter (``...?password=secret``)."""
    parts = urlsplit(url)
    password = None
    netloc = parts.netloc
    userinfo, at, hostport = netloc.rpartition("@")
    if at and ":" in userinfo:
        user, _, raw = userinfo.partition(":")
        password = unquote(raw)
        netloc = f"{user}@{hostport}" if user else hostport
    pieces = parts.query.split("&") if parts.query else []
    kept = [piece for piece in pieces if piece.partition("=")[0] != "password"]  # the others as written
    if len(kept) != len(pieces):
        password = next(value for key, value in parse_qsl(parts.query, keep_blank_values=True) if key == "password")
    if password is None:
        return url, None
    return urlunsplit((parts.scheme, netloc, parts.path, "&".join(kept), parts.fragment)), password


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    return split_password(url)[0]


def url_user(url: str) -> str | None:
    """The user the URL connects as (``user=`` parameter or user part); None: libpq's default."""
    parts = urlsplit(url)
    for key, value in parse_qsl(parts.query):
        if key == "user":
            return value
    userinfo, at, _ = parts.netloc.rpartition("@")
    return unquote(userinfo.partition(":")[0]) if at and userinfo.partition(":")[0] else None


def _pgpass_field(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def write_pgpass(index_dir: Path, url: str) -> tuple[str, Path | None]:
    """The URL without its password, and the private file (``<index>/pgpass``, mode 0600) that now holds
    it for libpq; ``(url, None)`` when the URL holds no password.

    The file names any host, port and database (it is read only by the commands that name it, for this
    one store) and the URL's user. Written to a temporary name created 0600 and renamed over the old one,
    so it is never readable by others, nor found half written."""
    bare, password = split_password(url)
    if password is None:
        return url, None
    index_dir = Path(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / PGPASS_NAME
    tmp = path.with_name(f".{PGPASS_NAME}.{os.getpid()}.tmp")
    line = ":".join(["*", "*", "*", _pgpass_field(url_user(url) or "*"), _pgpass_field(password)]) + "\n"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("# the password of the store smartvec's crontab line names; read by libpq (PGPASSFILE)\n")
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)  # whatever the umask did
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return bare, path
