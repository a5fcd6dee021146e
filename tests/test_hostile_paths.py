"""Hostile paths: odd note names, symlinks out of the vault, a read-only vault with the index elsewhere."""

import builtins
import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
import uuid

import pytest
from conftest import REPO, write
from fake_backend import subprocess_env, use_fake_backend

NAMES = [
    "-rf.md",
    "--help.md",
    'it\'s "quoted".md',
    "spaced  out .md",
    " leading space.md",
    "ünïcødé 東京.md",
    "emoji 🙂 note.md",
    "$(touch pwned) `x`.md",
    "back\\slash.md",
    "semi;colon & amp | pipe.md",
    "#hash.md",
    "[bold]brackets[x].md",
    "%percent%.md",
    "שלום עולם.md",
    "new\nline.md",
    "tab\tname.md",
    "dots..md",
    "sub dir/-nested 'q'.md",
]


def token(i: int) -> str:
    return f"zq{i}x{'abcdefghij'[i % 10]}marker"


def test_odd_note_names_are_indexed_found_shown_and_quoted(vault, cli, fake_embedder, tmp_path):
    for i, name in enumerate(NAMES):
        write(vault, name, f"# {token(i)}\n\n{token(i)} {token(i)} {token(i)} {token(i)}.\n")
    summary = cli.json("index", "--json")
    assert summary["notes_new"] == len(NAMES) and summary["errors"] == []
    for i, name in enumerate(NAMES):
        hits = cli.json("query", token(i), "--json", "--no-track", "--mode", "cosine")
        assert hits[0]["path"] == name, (name, hits[0]["path"])
        for args in (
            ["show", "--json", "--", name],
            ["show", "--json", "./" + name],
            ["history", "--json", "--", name],
        ):
            assert cli.json(*args)["path"] == name
    write(vault, "[bold]brackets[x].md", "# Markup\n\nText with [/red] and [bold]markup[/bold] in it, zqmarkup.\n")
    cli.json("index", "--json")
    for args in (
        ("query", "zqmarkup", "--explain", "--no-track"),
        ("show", "[bold]brackets[x].md"),
        ("history", "[bold]brackets[x].md"),
    ):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.stderr)
        assert "[bold]brackets[x]" in result.stdout and ("[/red]" in result.stdout or args[0] == "history"), (
            result.stdout
        )
    assert cli("graph").exit_code == 0 and cli("status").exit_code == 0


def test_hostile_vault_and_index_folders_through_a_real_command_line(tmp_path):
    vault = tmp_path / "-my 'vault' $HOME; ünï"
    index_dir = tmp_path / '--index dir "x"'
    write(vault, "-rf.md", "# Dash\n\nA note whose name starts with a dash and says zebra.\n")
    use_fake_backend(index_dir)
    env = subprocess_env()
    for key in ("SMARTVEC_VAULT", "SMARTVEC_INDEX", "SMARTVEC_NOW"):
        env.pop(key, None)
    base = [sys.executable, "-m", "smartvec_cli", f"--vault={vault}", f"--index-dir={index_dir}"]

    def run(*args):
        done = subprocess.run([*base, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    run("index")
    assert json.loads(run("query", "zebra", "--json"))[0]["path"] == "-rf.md"
    assert json.loads(run("show", "--json", "--", "-rf.md"))["path"] == "-rf.md"
    line = run("cron", "--at", "03:30").strip()
    words = shlex.split(line.split(" ", 5)[5].replace("\\%", "%"))
    assert words[words.index("--vault") + 1] == str(vault) and words[words.index("--index-dir") + 1] == str(index_dir)


def test_symlinks_out_of_the_vault_are_never_followed(vault, cli, fake_embedder, tmp_path):
    outside = tmp_path / "outside"
    write(outside, "secret.md", "# Secret\n\nThe outsidesecret password lives here.\n")
    write(outside, "folder/deep.md", "# Deep\n\nAnother outsidesecret in a folder.\n")
    write(vault, "inside.md", "# Inside\n\nAn ordinary note about the garden.\n")
    os.symlink(outside / "secret.md", vault / "to-secret.md")
    os.symlink("../outside/folder", vault / "to-folder")
    os.symlink(vault / "to-secret.md", vault / "chain.md")  # inside -> inside -> outside
    os.symlink(vault / "inside.md", vault / "alias.md")  # inside -> inside: followed
    summary = cli.json("index", "--json")
    assert summary["notes_new"] == 2 and summary["errors"] == []
    hits = cli.json("query", "outsidesecret password", "--json", "--no-track")
    assert all("outsidesecret" not in h["text"] for h in hits)
    assert sorted(h["path"] for h in cli.json("query", "garden", "--json", "--no-track")) == ["alias.md", "inside.md"]


# -- a read-only vault --------------------------------------------------------------------------

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@contextlib.contextmanager
def vault_is_read_only(monkeypatch, vault):
    """Every way Python writes a file, refused under the vault; yields the list of attempts."""
    root = os.path.realpath(vault)
    attempts = []

    def inside(path) -> bool:
        try:
            real = os.path.realpath(os.fspath(path))
        except TypeError:
            return False  # a file descriptor
        return real == root or real.startswith(root + os.sep)

    def refuse(name, path):
        attempts.append(f"{name} {path}")
        raise PermissionError(13, "read-only vault (test)", os.fspath(path))

    def guard_open(original):
        def opener(file, mode="r", *args, **kwargs):
            if isinstance(mode, str) and set(mode) & set("wax+") and inside(file):
                refuse("open", file)
            return original(file, mode, *args, **kwargs)

        return opener

    real_os_open = os.open

    def os_open(path, flags, *args, **kwargs):
        if flags & WRITE_FLAGS and inside(path):
            refuse("os.open", path)
        return real_os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guard_open(builtins.open))
    monkeypatch.setattr(io, "open", guard_open(io.open))
    monkeypatch.setattr(os, "open", os_open)
    for name in ("mkdir", "makedirs", "remove", "unlink", "rmdir", "utime", "chmod", "truncate", "symlink", "link"):
        real = getattr(os, name)

        def guarded(path, *args, _name=name, _real=real, **kwargs):
            if inside(path):
                refuse(_name, path)
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, guarded)
    for name in ("rename", "replace"):
        real = getattr(os, name)

        def guarded2(src, dst, *args, _name=name, _real=real, **kwargs):
            if inside(src) or inside(dst):
                refuse(_name, f"{src} -> {dst}")
            return _real(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, name, guarded2)
    yield attempts


def snapshot(root):
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_no_command_ever_writes_into_the_vault(sample_vault, cli, fake_embedder, monkeypatch):
    """Simulated read-only vault: root ignores file modes, so every Python write path is refused under it."""
    before = snapshot(sample_vault)
    with vault_is_read_only(monkeypatch, sample_vault) as attempts:
        for args in (
            ("index", "--json"),
            ("consolidate", "--json"),
            ("query", "travel per diem", "--json"),
            ("feedback", "--rank", "1", "--up"),
            ("feedback", "--rank", "2", "--correct", "The per diem is EUR 80."),
            ("refresh", "--nightly", "--json"),
            ("status", "--json"),
            ("show", "Travel Expense Policy v3", "--json"),
            ("history", "Travel Expense Policy v3", "--json"),
            ("graph",),
            ("doctor", "--repair", "--json"),
            ("index", "--full", "--json"),
        ):
            result = cli(*args)
            assert result.exit_code == 0, (args, result.stderr)
    assert attempts == []
    assert snapshot(sample_vault) == before


@pytest.fixture
def read_only_mount(tmp_path):
    """The vault as a read-only bind mount, where this sandbox allows mounting; skipped elsewhere."""
    source, target = tmp_path / "rw", tmp_path / f"ro-{uuid.uuid4().hex[:6]}"
    source.mkdir()
    target.mkdir()
    mounted = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True).returncode == 0
    if mounted and subprocess.run(["mount", "-o", "remount,ro,bind", str(target)], capture_output=True).returncode != 0:
        subprocess.run(["umount", str(target)], capture_output=True)
        mounted = False
    if not mounted:
        pytest.skip("cannot make a read-only bind mount here; test_no_command_ever_writes_into_the_vault covers it")
    try:
        yield source, target
    finally:
        subprocess.run(["umount", str(target)], capture_output=True)


def test_a_vault_on_a_read_only_filesystem(read_only_mount, tmp_path):
    source, vault = read_only_mount
    write(source, "notes/alpha.md", "# Alpha\n\nThe read-only vault still answers about kiwis.\n")
    with pytest.raises(OSError):
        (vault / "probe.md").write_text("x")
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    env = dict(subprocess_env(), SMARTVEC_VAULT=str(vault), SMARTVEC_INDEX=str(index_dir))

    def run(*args, expect=0, environ=env):
        done = subprocess.run(
            [sys.executable, "-m", "smartvec_cli", *args],
            env=environ,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == expect, (args, done.stderr)
        return done

    run("index")
    run("consolidate")
    assert json.loads(run("query", "kiwis", "--json").stdout)[0]["path"] == "notes/alpha.md"
    run("refresh", "--nightly")
    run("doctor")

    env_default = {k: v for k, v in env.items() if k != "SMARTVEC_INDEX"}  # the index would go inside the vault
    failed = run("index", expect=1, environ=env_default)
    assert (
        failed.stderr.count("\n") == 1 and "Read-only file system" in failed.stderr and "--index-dir" in failed.stderr
    )


def test_the_state_of_a_hit_is_shown_not_read_as_markup(vault, cli, fake_embedder):
    write(vault, "kiwi.md", "# Kiwi\n\nKiwis cost two euros at the market today.\n")
    cli.json("index", "--json")
    write(vault, "kiwi.md", "# Kiwi\n\nKiwis cost three euros at the market today.\n")
    cli.json("index", "--json")
    result = cli("query", "kiwis cost euros market", "--include-archived", "--no-track")
    assert result.exit_code == 0 and "[archived]" in result.stdout, result.stdout
