import os

from conftest import write

from smartvec_cli.vault.scan import is_excluded, scan_vault


def paths(vault, **kwargs):
    notes, problems = scan_vault(vault, **kwargs)
    return [n.rel_path for n in notes], problems


def test_default_ignore_rules(vault, tmp_path):
    for rel in [
        "a.md",
        "folder/b.md",
        ".obsidian/workspace.md",
        ".trash/old.md",
        ".git/x.md",
        ".hidden.md",
        "folder/.c.md.tmp",
        "draft.md~",
        "notes.md.tmp",
        "image.png",
        ".smartvec/state.md",
    ]:
        write(vault, rel, "text")
    found, problems = paths(vault)
    assert found == ["a.md", "folder/b.md"]
    assert problems == []


def test_index_folder_inside_the_vault_is_skipped(vault):
    write(vault, "a.md", "x")
    write(vault, "state/inner.md", "x")
    found, _ = paths(vault, index_dir=vault / "state")
    assert found == ["a.md"]


def test_user_excludes():
    assert is_excluded("drafts/a.md", ["drafts/**"])
    assert is_excluded("drafts/deep/a.md", ["drafts"])
    assert is_excluded("x/board.excalidraw.md", ["*.excalidraw.md"])
    assert not is_excluded("notes/a.md", ["drafts/**"])


def test_symlinks_never_lead_outside_the_vault(vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "secret.md", "secret")
    write(vault, "inside.md", "inside")
    os.symlink(outside / "secret.md", vault / "link-to-secret.md")
    os.symlink(outside, vault / "outside-dir")
    os.symlink(vault / "inside.md", vault / "alias.md")
    found, _ = paths(vault)
    assert found == ["alias.md", "inside.md"]


def test_symlink_loops_are_reported_not_followed(vault):
    write(vault, "a.md", "x")
    os.symlink(vault / "loop2.md", vault / "loop1.md")
    os.symlink(vault / "loop1.md", vault / "loop2.md")
    os.symlink(vault, vault / "folder-loop")
    found, problems = paths(vault)
    assert found == ["a.md"]
    reported = {p.path for p in problems}
    assert {"loop1.md", "loop2.md", "folder-loop"} <= reported
