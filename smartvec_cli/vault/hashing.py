"""Content hashes: the per-passage hash that decides re-embedding, and aclarai's note hash."""

from __future__ import annotations

import hashlib

ACLARAI_PREFIX = "<!-- aclarai:"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def aclarai_embedding_hash(raw_text: str) -> str:
    """The ``embedding_hash`` of aclarai's nightly concept refresh, bit for bit.

    Drop every line that starts with ``<!-- aclarai:`` (a ``ver=`` bump is not a change),
    join the remaining lines with ``\\n`` and take the sha256 of the UTF-8 bytes. Lines are
    split the way Python's ``str.splitlines`` splits them, as aclarai does.
    """
    kept = [line for line in raw_text.splitlines() if not line.startswith(ACLARAI_PREFIX)]
    return sha256_text("\n".join(kept))
