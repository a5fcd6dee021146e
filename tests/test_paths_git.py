"""A crafted git repository cannot make ``index --from-git`` write outside its scratch folder.

The trees are built with git's plumbing (``hash-object -t tree --literally``), which stores entry names no
checkout accepts: absolute paths, ``..``, ``a/../../x``, ``.git``, doubled slashes, and a symlink and a folder
of one name. The import runs through the real command line on a real index; the whole temporary folder is
compared before and after, and the scratch folder is looked at while each commit is replayed.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from smartvec_cli.core.indexer import Indexer
from smartvec_cli.errors import EXIT_PARTIAL
from smartvec_cli.vault.paths import OutsideFolder, refusal, within, write_within

NORMAL = {
    "ok.md": "# Ok\n\nzqokay an ordinary note.\n",
    "sub dir/ünïcødé 東京.md": "# Unicode\n\nzqunicode in a folder with a space.\n",
    "-leading dash.md": "# Dash\n\nzqdash a name that looks like an option.\n",
    "back\\slash.md": "# Backslash\n\nzqbackslash is an ordinary character here.\n",
    " spaced  out .md": "# Spaced\n\nzqspaced spaces around and inside.\n",
    "new\nline.md": "# Newline\n\nzqnewline a name with a line break.\n",
}
EVIL = b"# Evil\n\nzqevil this text must not land anywhere outside.\n"
KNOWN = b"known content, never to be overwritten\n"


class Crafted:
    """A repository whose trees are written byte by byte."""

    def __init__(self, root: Path):
        self.root = root
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, input: bytes | None = None, date: str = "2022-01-01") -> str:
        when = f"{date}T12:00:00+00:00"
        env = dict(
            os.environ,
            GIT_AUTHOR_NAME="T",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="T",
            GIT_COMMITTER_EMAIL="t@example.com",
            GIT_AUTHOR_DATE=when,
            GIT_COMMITTER_DATE=when,
        )
        done = subprocess.run(["git", *args], cwd=self.root, input=input, capture_output=True, check=True, env=env)
        return done.stdout.decode().strip()

    def blob(self, data: bytes) -> str:
        return self.git("hash-object", "-w", "--stdin", input=data)

    def tree(self, entries: dict[str, tuple[str, str]] | list[tuple[str, str, str]]) -> str:
        """A tree from ``{name: (mode, id)}`` or ``[(mode, name, id)]`` (which may hold one name twice), names taken
        as they are (slashes included), in git's order."""
        if isinstance(entries, dict):
            entries = [(mode, name, sha) for name, (mode, sha) in entries.items()]

        def order(entry):
            mode, name, _ = entry
            return name.encode() + (b"/" if mode == "40000" else b"")

        raw = b"".join(
            f"{mode} {name}".encode() + b"\0" + bytes.fromhex(sha) for mode, name, sha in sorted(entries, key=order)
        )
        return self.git("hash-object", "-w", "-t", "tree", "--literally", "--stdin", input=raw)

    def commit(self, tree: str, parent: str | None, date: str) -> str:
        sha = self.git("commit-tree", tree, *(["-p", parent] if parent else []), "-m", date, date=date)
        self.git("update-ref", "refs/heads/main", sha)
        return sha


def snapshot(root: Path, skip: Path) -> dict[str, tuple]:
    """Every entry under ``root`` but ``skip``: files by content and mtime, links by target, folders by name."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path == skip or skip in path.parents:
            continue
        rel = str(path.relative_to(root))
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path))
        elif path.is_file():
            found[rel] = ("file", path.read_bytes(), path.stat().st_mtime_ns)
        else:
            found[rel] = ("dir",)
    return found


@pytest.fixture
def crafted(vault, tmp_path, monkeypatch):
    """Two commits of crafted trees in the vault's repository, and the files outside they aim at."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "existing.md").write_bytes(KNOWN)
    scratch_home = tmp_path / "t" / "u"  # the import's scratch folders are made here: ../../../../x is tmp_path/x
    scratch_home.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_home))

    repo = Crafted(vault)
    evil = repo.blob(EVIL)
    normal = {name: ("100644", repo.blob(text.encode())) for name, text in NORMAL.items()}
    sub = repo.tree({"ünïcødé 東京.md": normal.pop("sub dir/ünïcødé 東京.md")})
    dotgit = repo.tree({"evil.md": ("100644", evil)})
    planted = repo.tree({"planted.md": ("100644", evil)})
    up = {"escape.md": ("100644", evil)}
    hostile = {
        str(outside / "existing.md"): ("100644", evil),  # overwrites a file that exists
        str(outside / "created.md"): ("100644", evil),  # makes a file that must not exist
        "a/../../escape2.md": ("100644", evil),
        "../../../../escape-deep.md": ("100644", evil),
        "a//doubled.md": ("100644", evil),
        ".git": ("40000", dotgit),
        "link-out.md": ("120000", repo.blob(str(outside / "existing.md").encode())),
        "x" * 300 + ".md": ("100644", evil),  # longer than a file name may be
    }
    first = {**normal, **hostile, "sub dir": ("40000", sub), "..": ("40000", repo.tree(up))}
    entries = [(mode, name, sha) for name, (mode, sha) in first.items()]
    entries += [("120000", "linkdir", repo.blob(str(outside).encode())), ("40000", "linkdir", planted)]
    c1 = repo.commit(repo.tree(entries), None, "2022-01-01")

    # the second commit changes the absolute entry and renames ok.md out of the tree, next to a normal addition
    second = dict(first)
    ok = second.pop("ok.md")
    second[str(outside / "existing.md")] = ("100644", repo.blob(EVIL + b"again\n"))
    second[".."] = ("40000", repo.tree({**up, "renamed-out.md": ok}))
    second["second.md"] = ("100644", repo.blob(b"# Second\n\nzqsecond a note of the second commit.\n"))
    entries = [(mode, name, sha) for name, (mode, sha) in second.items()]
    entries += [("120000", "linkdir", repo.blob(str(outside).encode())), ("40000", "linkdir", planted)]
    c2 = repo.commit(repo.tree(entries), c1, "2022-02-01")
    return {"outside": outside, "scratch_home": scratch_home, "commits": (c1, c2)}


def test_a_crafted_repository_writes_nothing_outside_the_scratch_folder(
    crafted, vault, tmp_path, cli, fake_embedder, monkeypatch
):
    outside, scratch_home = crafted["outside"], crafted["scratch_home"]
    seen_while_replaying: list[str] = []
    real_run = Indexer.run

    def run_and_look(self, *args, **kwargs):
        """While a commit is replayed, every file under the scratch home must be inside that commit's folder (a
        commit whose notes a folder could hold as named is read from memory: nothing written at all)."""
        scratch = Path(self.ws.vault)
        for path in scratch_home.rglob("*"):
            if not path.is_dir():
                assert scratch in path.parents, f"{path} is outside the scratch folder {scratch}"
                seen_while_replaying.append(str(path.relative_to(scratch)))
        seen_while_replaying.extend(self.given or ())
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(Indexer, "run", run_and_look)
    before = snapshot(tmp_path, skip=tmp_path / "index")

    data = cli.json("index", "--from-git", "--json", expect=EXIT_PARTIAL)

    assert snapshot(tmp_path, skip=tmp_path / "index") == before  # nothing made, changed or removed outside
    assert (outside / "existing.md").read_bytes() == KNOWN and not (outside / "created.md").exists()
    assert not (outside / "planted.md").exists()
    assert data["commits_replayed"] == 2
    c1, c2 = (sha[:12] for sha in crafted["commits"])
    refused = sorted((e["commit"], e["path"]) for e in data["errors"] + data["past_errors"])
    assert [(e["commit"], e["path"]) for e in data["past_errors"]] == [(c1, str(outside / "existing.md"))]
    assert refused == sorted(
        [
            (c1, str(outside / "existing.md")),
            (c1, str(outside / "created.md")),
            (c1, "../escape.md"),
            (c1, "a/../../escape2.md"),
            (c1, "../../../../escape-deep.md"),
            (c1, "a//doubled.md"),
            (c1, ".git/evil.md"),
            (c1, "x" * 300 + ".md"),
            (c2, str(outside / "existing.md")),
            (c2, "../renamed-out.md"),
        ]
    )
    reasons = {e["path"]: e["error"] for e in data["errors"]}
    assert reasons[str(outside / "created.md")].startswith("absolute path")
    assert reasons["../escape.md"].startswith("'..' path component")
    assert reasons["a//doubled.md"].startswith("empty path component")
    assert reasons[".git/evil.md"].startswith("'.git' path component")
    assert reasons["x" * 300 + ".md"] == "cannot be written here (File name too long); skipped"
    assert all("refused, nothing written" in e["error"] for e in data["errors"] if not e["path"].startswith("xxx"))

    # the notes a checkout could hold were replayed: written into the scratch folder and indexed
    assert set(seen_while_replaying) >= set(NORMAL) | {"linkdir/planted.md", "second.md"}
    assert (
        data["notes_new"] == len(NORMAL) + 2 and data["notes_deleted"] == 1
    )  # ok.md left the tree (renamed out of it)
    for name in set(NORMAL) - {"ok.md"}:
        assert cli.json("show", "--json", "--", name)["path"] == name
    assert cli.json("show", "ok.md", "--json")["deleted_at"]  # kept as history, no longer in the vault
    paths = {
        h["path"]
        for h in cli.json("query", "zqevil outside", "--json", "--no-track", "--mode", "cosine", "--top-k", "20")
    }
    assert paths <= set(NORMAL) | {"linkdir/planted.md", "second.md"}


def test_the_refused_paths_are_reported_on_stderr_with_exit_code_3(crafted, vault, cli, fake_embedder):
    result = cli("index", "--from-git")
    assert result.exit_code == EXIT_PARTIAL == 3
    lines = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 10 and any(line.startswith("warning: ../escape.md (commit ") for line in lines)
    assert "Traceback" not in result.stderr


# -- the checks themselves, on a real folder ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, reason",
    [
        ("/etc/passwd.md", "absolute path"),
        ("../x.md", "'..' path component"),
        ("a/../../x.md", "'..' path component"),
        ("a/./x.md", "'.' path component"),
        ("a//x.md", "empty path component"),
        ("a/", "empty path component"),
        (".git/x.md", "'.git' path component"),
        ("sub/.GIT/x.md", "'.git' path component"),
        ("", "empty path"),
        ("a\x00b.md", "path contains a NUL byte"),
    ],
)
def test_paths_a_checkout_could_not_hold_are_refused(path, reason):
    assert refusal(path).startswith(reason)


@pytest.mark.parametrize(
    "path",
    ["ok.md", "-rf.md", "back\\slash.md", " spaced .md", "ünï/東京.md", "..dots.md", ".hidden/x.md", "a..b/c.md"],
)
def test_odd_but_harmless_paths_are_accepted(path, tmp_path):
    assert refusal(path) is None
    assert write_within(tmp_path, path, b"x").read_bytes() == b"x"
    assert within(tmp_path, path) == tmp_path / path


def test_a_link_planted_in_the_folder_is_never_written_through(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "victim.md").write_bytes(KNOWN)
    os.symlink(outside, root / "folder")
    os.symlink(outside / "victim.md", root / "file.md")
    with pytest.raises(OutsideFolder, match="not a plain folder"):
        write_within(root, "folder/new.md", b"evil")
    with pytest.raises(OutsideFolder, match="symbolic link"):
        write_within(root, "file.md", b"evil")
    assert sorted(p.name for p in outside.iterdir()) == ["victim.md"] and (outside / "victim.md").read_bytes() == KNOWN
    assert within(root, "folder/new.md") is None and within(root, "file.md") is None
