"""The address that opens a hit's note: in Obsidian when the vault is one, else the file itself.

Obsidian registers ``obsidian://`` and opens ``obsidian://open?vault=NAME&file=PATH`` in the vault named
NAME (its folder's name) at PATH (vault-relative, without ``.md``, as Obsidian's own "Copy Obsidian URL"
writes it); both are percent-encoded whole, ``/`` included. A folder without ``.obsidian`` gets a
``file://`` URL of the note's absolute path. Either way every byte that is not a plain URL character is
percent-encoded, so a control character in a file name never reaches a terminal raw through a URL.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote


def is_obsidian_vault(vault: Path) -> bool:
    return (vault / ".obsidian").is_dir()


def note_url(vault: Path, rel_path: str, obsidian: bool | None = None) -> str:
    """The URL of the note at ``rel_path`` in ``vault``; ``obsidian`` None: look for ``.obsidian``."""
    root = Path(vault).expanduser().absolute()
    if obsidian is None:
        obsidian = is_obsidian_vault(root)
    if obsidian:
        name = rel_path[:-3] if rel_path.lower().endswith(".md") else rel_path
        return f"obsidian://open?vault={quote(root.name, safe='')}&file={quote(name, safe='')}"
    return "file://" + quote(str(root / rel_path), safe="/")
