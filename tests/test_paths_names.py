"""Note names on the command line and link targets in notes never reach a file outside the vault."""

from __future__ import annotations

import builtins
import io
import json
import os

import pytest
from conftest import write

SECRET = "zqoutsidesecret"


@pytest.fixture
def outside(tmp_path):
    """Files next to the vault that hostile names and links aim at."""
    folder = tmp_path / "outside"
    write(folder, "secret.md", f"# Secret\n\n{SECRET} lives outside the vault.\n")
    write(folder, "passwd.md", f"# Passwd\n\n{SECRET} root:x:0:0.\n")
    (folder / "photo.png").write_bytes(b"\x89PNG not really " + SECRET.encode())
    return folder


@pytest.fixture
def opened(monkeypatch):
    """Every path a command opens (builtins.open, io.open, os.open), to prove what it never read."""
    paths: list[str] = []

    def recording(original):
        def opener(file, *args, **kwargs):
            if isinstance(file, (str, bytes, os.PathLike)):
                paths.append(os.path.realpath(os.fsdecode(file)))
            return original(file, *args, **kwargs)

        return opener

    monkeypatch.setattr(builtins, "open", recording(builtins.open))
    monkeypatch.setattr(io, "open", recording(io.open))
    monkeypatch.setattr(os, "open", recording(os.open))
    return paths


def test_note_names_that_leave_the_vault_are_refused_not_matched_by_file_name(vault, outside, cli, fake_embedder):
    write(vault, "secret.md", "# Inside secret\n\nzqinside a vault note that shares the outside file's name.\n")
    write(vault, "passwd.md", "# Inside passwd\n\nzqinside another one.\n")
    cli.json("index", "--json")
    hostile = [
        "/etc/passwd",
        str(outside / "secret.md"),
        "../outside/secret.md",
        "../../etc/passwd",
        "sub/../../secret.md",
        "..",
    ]
    for name in hostile:
        for command in (["show"], ["history"], ["graph", "--format", "json"], ["show", "--json"]):
            result = cli(*command, "--", name)
            assert result.exit_code == 2, (command, name, result.stdout)
            assert result.stdout == "" and "Traceback" not in result.stderr
            lines = result.stderr.strip().splitlines()
            assert (
                len(lines) == 1
                and "is a path outside the vault" in lines[0]
                and "give a note's path inside it" in lines[0]
            ), lines


def test_paths_inside_the_vault_are_found_however_they_are_written(vault, outside, cli, fake_embedder):
    write(vault, "sub/a.md", "# A\n\nzqa a note in a folder.\n")
    write(vault, "secret.md", "# Inside secret\n\nzqinside.\n")
    os.symlink(outside, vault / "to-outside")  # scan does not follow it: no note there
    cli.json("index", "--json")
    for name in (
        str(vault / "sub" / "a.md"),
        str(vault / "sub" / "a"),
        "sub/../sub/a.md",
        str(vault / "x" / ".." / "sub" / "a.md"),
    ):
        assert cli.json("show", "--json", "--", name)["path"] == "sub/a.md", name
        assert cli.json("history", "--json", "--", name)["path"] == "sub/a.md"
    assert cli.json("show", "--json", "--", "sub/../secret.md")["path"] == "secret.md"
    result = cli("show", "--", str(vault / "to-outside" / "secret.md"))
    assert result.exit_code == 1 and "no note" in result.stderr and SECRET not in result.stdout + result.stderr


def test_link_targets_outside_the_vault_are_never_read_or_resolved(vault, outside, cli, fake_embedder, opened):
    write(vault, "inside.md", "# Inside\n\nzqinside an ordinary note.\n")
    write(
        vault,
        "hostile.md",
        (
            "# Hostile\n\nzqhostile links out: [[../outside/secret]], [[../../outside/secret.md]], "
            f"[[{outside / 'secret.md'}]], ![[{outside / 'photo.png'}]], ![[../outside/photo.png]], "
            "[[/etc/passwd]], [[../../../../etc/passwd|alias]] and one in: [[inside]].\n"
        ),
    )
    runs = [
        cli("index", "--json"),
        cli("consolidate", "--json"),
        cli("show", "hostile", "--json"),
        cli("graph", "--format", "json"),
        cli("graph", "hostile", "--depth", "10", "--format", "json"),
        cli("query", "zqoutsidesecret root", "--json", "--no-track"),
        cli("history", "hostile", "--json"),
        cli("doctor", "--json"),
    ]
    assert [r.exit_code for r in runs] == [0] * len(runs), [(r.exit_code, r.stderr) for r in runs]
    root, inside = os.path.realpath(outside), os.path.realpath(vault)
    assert any(p.startswith(inside + os.sep) for p in opened)  # the recorder sees the notes being read
    assert [p for p in opened if p == root or p.startswith(root + os.sep)] == []
    assert all(SECRET not in r.stdout + r.stderr for r in runs)
    links = json.loads(runs[2].stdout)["links"]
    assert {link["target"]: link["resolved"] for link in links} == {
        "../outside/secret": None,
        "../../outside/secret.md": None,
        str(outside / "secret.md"): None,
        str(outside / "photo.png"): None,
        "../outside/photo.png": None,
        "/etc/passwd": None,
        "../../../../etc/passwd": None,
        "inside": "inside.md",
    }
    graph = json.loads(runs[3].stdout)
    assert sorted(n["path"] for n in graph["nodes"]) == ["hostile.md", "inside.md"]
    assert {(e["source"], e["target"]) for e in graph["edges"]} == {("hostile", "inside")}
