"""A tool nobody can turn against its user: what another local user, or a careless one, can put in smartvec's way.

smartvec runs from cron (often as root) and as a long-lived daemon. Each test here is one probe of the hostile
suite: an index folder or a file in it planted by someone else, names and files in the vault that are not what
they seem, text that drives a terminal, requests that would cost gigabytes, an HTTP server open to every local
user. The other-user probes run as a real second Unix user when the suite runs as root (made with ``useradd`` if
missing), and are skipped otherwise.
"""

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, both_stores, write
from fake_backend import subprocess_env, use_fake_backend

OTHER_USER = "smartvec-probe"


@pytest.fixture(scope="session")
def other_uid() -> int:
    """A second Unix user's uid: only root can give it files, so the probes that need it run as root."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to give files to a second user")
    try:
        return pwd.getpwnam(OTHER_USER).pw_uid
    except KeyError:
        pass
    if shutil.which("useradd") is None:
        pytest.skip("no useradd to make a second user")
    done = subprocess.run(
        ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot make a second user: {done.stderr.decode(errors='replace').strip()}")
    return pwd.getpwnam(OTHER_USER).pw_uid


def run(*args: str, env: dict | None = None, timeout: float = 120, input: str | None = None):
    """``smartvec ARGS`` in a process of its own, as cron or a shell would start it."""
    return subprocess.run(
        [sys.executable, "-m", "smartvec_cli", *args],
        cwd=REPO,
        env=dict(subprocess_env(), **(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
    )


def one_error_line(done, code: int, *needles: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.fixture
def notes(vault) -> Path:
    write(vault, "apples.md", "# Apples\n\nApples grow on trees in the orchard; the harvest is in autumn.\n")
    write(vault, "pears.md", "# Pears\n\nPears ripen after the apples, late in September.\n")
    return vault


@pytest.fixture
def indexed(notes, cli, fake_embedder) -> Path:
    """Two notes indexed; the index folder."""
    cli.json("index", "--json")
    return notes.parent / "index"


# -- the index folder is smartvec's alone -------------------------------------------------------------


def test_a_sidecar_naming_a_file_outside_is_never_read_copied_or_a_reason_to_delete(indexed, cli, tmp_path):
    secret = tmp_path / "root-only" / "secret"
    secret.parent.mkdir()
    secret.write_text("the launch code is 0000\n")
    sidecar = indexed / "vectors.json"
    meta = json.loads(sidecar.read_text())
    real = indexed / meta["file"]
    for planted in (str(secret), "../root-only/secret", "../../x.hnsw"):
        sidecar.write_text(json.dumps({**meta, "file": planted}))
        hits = cli.json("query", "apples harvest", "--json", "--no-track")
        assert hits and hits[0]["path"] == "apples.md"
        cli("doctor", "--repair")
        assert real.exists() or (indexed / json.loads(sidecar.read_text())["file"]).exists()
        backups = list((indexed / "backup").glob("*")) if (indexed / "backup").exists() else []
        assert not any(b.read_bytes() == secret.read_bytes() for b in backups), backups
        assert secret.read_text() == "the launch code is 0000\n"


def test_a_planted_lock_symlink_is_refused_and_its_target_untouched(indexed, vault, tmp_path):
    use_fake_backend(indexed)
    target = tmp_path / "precious.txt"
    target.write_text("do not truncate me\n")
    (indexed / "writer.lock").unlink(missing_ok=True)
    (indexed / "writer.lock").symlink_to(target)
    done = run("--vault", str(vault), "--index-dir", str(indexed), "index")
    one_error_line(done, 1, "writer.lock", "symbolic link")
    assert target.read_text() == "do not truncate me\n"


def test_a_symlinked_config_or_index_folder_is_refused(indexed, vault, tmp_path):
    outside = tmp_path / "elsewhere.toml"
    outside.write_text('[embedder]\nbackend = "fake_backend:make"\n')
    (indexed / "config.toml").unlink(missing_ok=True)
    (indexed / "config.toml").symlink_to(outside)
    one_error_line(run("--vault", str(vault), "--index-dir", str(indexed), "status"), 1, "config.toml", "symbolic link")
    (indexed / "config.toml").unlink()
    link = tmp_path / "linked-index"
    link.symlink_to(indexed)
    one_error_line(run("--vault", str(vault), "--index-dir", str(link), "status"), 1, "symbolic link")


def test_a_world_writable_index_folder_is_refused_unless_sticky(indexed, vault):
    use_fake_backend(indexed)
    os.chmod(indexed, 0o777)
    one_error_line(run("--vault", str(vault), "--index-dir", str(indexed), "status"), 1, "0777", "chmod go-w")
    os.chmod(indexed, 0o1777)  # sticky and ours: others cannot replace what is ours in it
    done = run("--vault", str(vault), "--index-dir", str(indexed), "status")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(indexed.stat().st_mode) == 0o1777


def test_an_index_folder_or_file_of_another_user_is_refused(indexed, vault, other_uid, tmp_path):
    use_fake_backend(indexed)
    os.chown(indexed / "config.toml", other_uid, -1)
    one_error_line(run("--vault", str(vault), "--index-dir", str(indexed), "status"), 1, "config.toml", OTHER_USER)
    os.chown(indexed / "config.toml", 0, -1)
    planted = tmp_path / "planted"
    planted.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("root only\n")
    os.chmod(secret, 0o600)
    (planted / "vectors.json").write_text(json.dumps({"file": str(secret), "generation": 1, "dim": 384}))
    for path in (planted, planted / "vectors.json"):
        os.chown(path, other_uid, -1)
    for _ in range(2):
        done = run("--vault", str(vault), "--index-dir", str(planted), "index")
        one_error_line(done, 1, str(planted), OTHER_USER)
    assert sorted(p.name for p in planted.iterdir()) == ["vectors.json"]


@pytest.fixture
def own_umask():
    """The test process's umask back afterwards: indexing a private vault narrows it for the whole process."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_only_what_smartvec_made_is_narrowed_or_removed(vault, notes, cli, fake_embedder, tmp_path, own_umask):
    os.chmod(vault, 0o700)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    profile = shared / ".profile"
    profile.write_text("export X=1\n")
    os.chmod(profile, 0o644)
    other = shared / "session-123.tmp"
    other.write_text("another program's\n")
    done = cli("--index-dir", str(shared), "index", "--json")
    assert done.exit_code == 0, done.stderr
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert stat.S_IMODE(profile.stat().st_mode) == 0o644
    assert stat.S_IMODE((shared / "smartvec.db").stat().st_mode) & 0o077 == 0  # its own files are private
    doctor = cli("--index-dir", str(shared), "doctor", "--repair")
    assert doctor.exit_code == 0, doctor.stdout + doctor.stderr
    assert other.read_text() == "another program's\n"


def test_an_index_folder_among_the_notes_is_refused(notes, tmp_path):
    inside = notes / "index-here"
    done = run("--vault", str(notes), "--index-dir", str(inside), "index")
    one_error_line(done, 2, "inside the vault")
    assert not inside.exists()


# -- what the vault holds is read as notes, and only as notes -------------------------------------------


def test_a_file_name_that_is_not_utf8_is_reported_and_the_rest_indexed(notes, vault, cli, fake_embedder):
    use_fake_backend(vault.parent / "index")
    latin1 = os.path.join(os.fsencode(vault), "caf\xe9.md".encode("latin-1"))
    with open(latin1, "wb") as fh:
        fh.write(b"# Cafe\n\nCoffee and cake in the afternoon.\n")
    with open(os.path.join(os.fsencode(vault), b"photo \xe9t\xe9.png"), "wb") as fh:
        fh.write(b"\x89PNG")  # an attachment no link can name: left out without a word
    summary = json.loads(run("index", "--json").stdout)
    assert summary["notes_new"] == 2
    assert [e["path"] for e in summary["errors"]] == ["caf\\xe9.md"]
    assert "not UTF-8" in summary["errors"][0]["error"]
    write(vault, "later.md", "# Later\n\nA note written after, indexed all the same.\n")
    again = run("refresh", "--nightly")
    assert again.returncode in (0, 3), again.stderr
    assert "Traceback" not in again.stderr
    assert "later.md" in {hit["path"] for hit in cli.json("query", "note written after", "--json", "--no-track")}


def test_a_fifo_or_device_named_md_is_skipped_not_waited_for(notes, vault, cli, fake_embedder):
    use_fake_backend(vault.parent / "index")
    os.mkfifo(vault / "pipe.md")
    os.symlink("/dev/zero", vault / "zero.md")  # leads out of the vault: never followed
    started = time.monotonic()
    done = run("index", "--json", timeout=60)
    assert time.monotonic() - started < 60
    summary = json.loads(done.stdout)
    assert summary["notes_new"] == 2
    assert [e["path"] for e in summary["errors"]] == ["pipe.md"] and "FIFO" in summary["errors"][0]["error"]


def test_a_fifo_or_link_out_named_as_a_rules_file_is_not_read(vault, tmp_path):
    """``.smartvecignore`` and Obsidian's settings are read as notes are: a FIFO would hang the run, and a link
    out of the vault would make another file the rules."""
    from smartvec_cli.vault.scan import VaultRules

    write(vault, "note.md", "# Note\n\nHarmless.\n")
    os.mkfifo(vault / ".smartvecignore")
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"userIgnoreFilters": ["note.md"]}))
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").symlink_to(outside)
    started = time.monotonic()
    rules = VaultRules.of(vault)
    assert time.monotonic() - started < 10
    assert rules.ignore_lines == [] and rules.obsidian_filters == []
    (vault / ".smartvecignore").unlink()
    write(vault, ".smartvecignore", "drafts/\n")
    assert VaultRules.of(vault).ignore_lines == ["drafts/"]


def test_a_note_swapped_for_a_link_out_after_the_scan_is_not_read(vault, tmp_path):
    from smartvec_cli.core.indexer import NoteReadError, read_note_text
    from smartvec_cli.vault.scan import scan_vault

    write(vault, "note.md", "# Note\n\nHarmless.\n")
    secret = tmp_path / "shadow"
    secret.write_text("root:secret-hash:19000\n")
    (files, _) = scan_vault(vault)
    (vault / "note.md").unlink()
    (vault / "note.md").symlink_to(secret)
    with pytest.raises(NoteReadError, match="link out of the vault"):
        read_note_text(files[0], 1 << 20, vault=vault)
    (vault / "note.md").unlink()
    os.mkfifo(vault / "note.md")
    with pytest.raises(NoteReadError, match="not a regular file"):
        read_note_text(files[0], 1 << 20, vault=vault)


def test_a_note_that_grew_after_the_scan_is_read_only_up_to_the_limit(vault):
    from smartvec_cli.core.indexer import NoteReadError, read_note_text
    from smartvec_cli.vault.scan import scan_vault

    write(vault, "note.md", "# Note\n\nsmall\n")
    (files, _) = scan_vault(vault)
    (vault / "note.md").write_text("x" * 5000)
    with pytest.raises(NoteReadError, match="over the limit"):
        read_note_text(files[0], 1000, vault=vault)


# -- dates, terminals, sizes ------------------------------------------------------------------------------


@both_stores
def test_dates_before_the_year_1000_round_trip(vault, cli, fake_embedder):
    write(vault, "ancient.md", "---\nvalid_from: 0999-06-01\n---\n# Ancient\n\nThe old bridge was built of oak.\n")
    write(vault, "first.md", "---\nvalid_from: 0001-01-01\n---\n# First\n\nThe first stone of the old bridge.\n")
    cli.json("index", "--json")
    hits = cli.json("query", "old bridge", "--json", "--no-track")
    assert {hit["path"] for hit in hits} == {"ancient.md", "first.md"}
    assert {hit["valid_from"][:10] for hit in hits} == {"0999-06-01", "0001-01-01"}
    assert cli.json("query", "old bridge", "--json", "--no-track", "--as-of", "0999-07-01")


def test_the_query_socket_refuses_a_huge_question(indexed, vault, fake_embedder):
    from smartvec_cli.core.workspace import Workspace
    from smartvec_cli.daemon.query_socket import QueryService

    service = QueryService(Workspace.resolve(), fake_embedder, lambda line: None)
    try:
        refused = service.answer({"query": "apples " * 100_000})
        assert refused["exit_code"] == 2 and "characters long" in refused["error"]
        assert service.answer({"query": "apples harvest"})["hits"]
    finally:
        service.close()


def test_terminal_escapes_in_a_note_never_reach_the_terminal(vault, cli, fake_embedder):
    evil = (
        "# Harmless\n\nClipboard \x1b]52;c;ZWNobyBwd25lZA==\x07 and a "
        "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ "
        "and \x1b[2A\x1b[2K1. fake.md  score 1.000 in the orchard apples.\n"
    )
    write(vault, "evil.md", evil)
    cli.json("index", "--json")
    for args in (
        ("query", "orchard apples", "--no-track"),
        ("query", "orchard apples", "--no-track", "--explain"),
        ("query", "orchard apples", "--no-track", "--context"),
        ("changes", "--since", "2000-01-01"),
        ("show", "evil.md"),
        ("history", "evil.md"),
        ("status",),
    ):
        done = cli(*args)
        assert done.exit_code == 0, (args, done.output)
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout, (args, done.stdout)
    assert "\\x1b]52;c;" in cli("query", "orchard apples", "--no-track").stdout
    assert "\\x1b]52;c;" in cli("query", "orchard apples", "--no-track", "--context").stdout


def test_a_huge_question_is_a_usage_error_at_every_door(indexed, vault, cli, fake_embedder, tmp_path):
    use_fake_backend(indexed)
    huge = "apples " * 200_000
    done = run("query", huge[:100_000])
    one_error_line(done, 2, "characters long")
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({"id": 1, "query": huge}) + "\n")
    one_error_line(run("query", "--batch", str(batch)), 2, "batch.jsonl:1", "characters long")
    from smartvec_cli.core.api import Vault
    from smartvec_cli.errors import UsageError

    with Vault.open(vault, index_dir=indexed, embedder=fake_embedder) as api:
        with pytest.raises(UsageError, match="characters long"):
            api.answer(huge)
        assert api.answer("apples " * 500).hits  # long, but within the limit


# -- erase means erased -----------------------------------------------------------------------------------


def test_forget_leaves_no_trace_of_the_text_in_any_index_file(vault, cli, fake_embedder):
    marker = b"zqdoorcode4711"
    write(vault, "keep.md", "# Keep\n\nBananas are yellow and grow in bunches on tall plants.\n")
    secret = write(vault, "secret.md", f"# Secret\n\nThe shed opens with {marker.decode()} and nobody may know.\n")
    cli.json("index", "--json")
    secret.unlink()
    cli.json("index", "--json")
    index_dir = vault.parent / "index"
    vectors = index_dir / json.loads((index_dir / "vectors.json").read_text())["file"]
    vectors.write_bytes(vectors.read_bytes()[:100])  # damaged: a repair would keep a copy of it
    assert any(marker in p.read_bytes() for p in index_dir.rglob("*") if p.is_file())
    cli.json("forget", "secret.md", "--yes", "--json")
    holding = [p.name for p in index_dir.rglob("*") if p.is_file() and marker in p.read_bytes()]
    assert holding == []
    assert not (index_dir / "backup").exists() or not list((index_dir / "backup").glob("vectors*"))
    assert cli.json("status", "--json")["ann"]["live"] == 1


# -- cron lines, arguments, environment, settings ----------------------------------------------------------


def test_cron_refuses_a_path_that_would_break_the_line(tmp_path):
    vault = tmp_path / "notes\n* * * * * touch pwned #"
    vault.mkdir()
    done = run("--vault", str(vault), "--index-dir", str(tmp_path / "index"), "cron")
    one_error_line(done, 2, "control character")
    assert "\n* * * * *" not in done.stdout


def test_columns_of_zero_or_garbage_still_print(indexed, vault):
    use_fake_backend(indexed)
    for columns in ("0", "-3", "abc", "99999999999"):
        for args in (("query", "apples harvest", "--no-track"), ("status",), ("related", "apples.md")):
            done = run(*args, env={"COLUMNS": columns})
            assert done.returncode == 0 and done.stdout.strip(), (columns, args, done.stderr)
            assert "Traceback" not in done.stderr


def test_undecodable_arguments_and_questions_are_usage_errors(indexed, vault, tmp_path):
    use_fake_backend(indexed)
    environment = dict(subprocess_env())
    for argv in ([b"query", b"\xff\xfe apples"], [b"show", b"caf\xe9.md"], [b"--vault", b"/tmp/\xff", b"status"]):
        done = subprocess.run(
            [sys.executable.encode(), b"-m", b"smartvec_cli", *argv], cwd=REPO, env=environment, capture_output=True
        )
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.decode().startswith("error: ") and b"Traceback" not in done.stderr
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"id": 1, "query": "apples \\ud800 harvest"}\n')
    one_error_line(run("query", "--batch", str(batch)), 2, "batch.jsonl:1", "surrogate")
    done = run("feedback", "apples#apples@99999999999999999999999", "--up")
    one_error_line(done, 2, "versions are counted from 1")


def test_an_ascii_output_encoding_gets_escapes_not_an_exception(vault, cli, fake_embedder):
    use_fake_backend(vault.parent / "index")
    write(vault, "café.md", "# Café › crème\n\nThe café serves apples and pears, naïve crème brûlée.\n")
    assert run("index").returncode == 0
    done = run("query", "café apples", "--no-track", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert "caf\\xe9" in done.stdout and "Traceback" not in done.stderr


def test_unknown_or_deeply_nested_settings_are_refused_by_name(indexed, vault):
    config = indexed / "config.toml"
    for text, needles in (
        ('[embedder]\nbackend = "fake_backend:make"\n[chunking]\nmax_char = 900\n', ("[chunking]", "'max_char'")),
        ('[embedder]\nbackend = "fake_backend:make"\nmax_note_megabytes = 3\n', ("'max_note_megabytes'",)),
        ('[embedder]\nbackend = "fake_backend:make"\nbackends = "x"\n', ("'backends'",)),
        (
            '[embedder]\nbackend = "fake_backend:make"\n[scan]\nexclude = []\nexlude = ["x/**"]\n',
            ("[scan]", "'exlude'"),
        ),
        ("exclude = " + "[" * 10_000 + "]" * 10_000 + "\n", ("nested too deeply",)),
    ):
        config.write_text(text)
        one_error_line(run("status"), 2, str(config), *needles)
    config.write_text(
        '[embedder]\nbackend = "fake_backend:make"\n[scoring.weights]\nsemantic = 0.6\ntemporal = 0.2\n'
        "confidence = 0.1\nrelational = 0.1\n[confidence.source_types]\nmeeting = 0.4\n"
        '[scan]\nexclude = ["scratch/**"]\n'
    )
    assert run("status").returncode == 0


FAKE_DAEMON = """
import json, os, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
server.listen(8)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    conn.makefile("rb").readline()
    hit = {"rank": 1, "chunk_id": "x#y", "note_id": "x", "path": "FAKE-ANSWER.md", "heading": "", "text": "lies",
           "score": 1.0, "confidence": 1.0, "state": "ACTIVE", "warnings": [], "url": None}
    conn.sendall(json.dumps({"hits": [hit], "as_of": None}).encode() + b"\\n")
    conn.close()
"""


def test_a_query_socket_of_another_user_is_not_believed(indexed, vault, other_uid):
    """A daemon another user runs (its socket put where ours would be) could answer anything: not asked."""
    use_fake_backend(indexed)
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 for the other user to run")
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="smartvec-probe-"))
    os.chmod(shared, 0o777)
    daemon = subprocess.Popen(
        [python, "-c", FAKE_DAEMON, str(shared / "query.sock")],
        stdout=subprocess.PIPE,
        text=True,
        cwd="/",
        preexec_fn=lambda: os.setuid(other_uid),
    )
    try:
        assert daemon.stdout.readline().strip() == "ready"
        os.rename(shared / "query.sock", indexed / "query.sock")
        done = run("query", "apples harvest", "--json", "--no-track")
    finally:
        daemon.kill()
        daemon.wait()
        shutil.rmtree(shared, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    paths = [hit["path"] for hit in json.loads(done.stdout)]
    assert "FAKE-ANSWER.md" not in paths and paths[0] == "apples.md"
