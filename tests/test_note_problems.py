"""What a newcomer's first runs on a real vault must not lose: notes in old encodings, the problems of
notes that could not be read whole, and the record of a run that was interrupted or failed."""

import json

import pytest
from conftest import FakeEmbedder, index_rows, write

from smartvec_cli.errors import EXIT_PARTIAL
from smartvec_cli.vault.decode import decode_note

GOOD = "# Good\n\nA perfectly ordinary note about the quarterly roadmap.\n"
BROKEN_YAML = "---\ntitle: [unclosed\n---\n# Broken\n\nThe body is indexed without its metadata.\n"


@pytest.mark.parametrize(
    "text, encoding, saved_as",
    [
        ("# Café\n\nCafé crème, déjà vu.\n", "latin-1", "cp1252"),
        ("# Notes\n\nThe “quoted” per diem is €75 – per day.\n", "cp1252", "cp1252"),
        ("# Straße\n\nÄrger über Öl in München.\n" * 3, "cp1252", "cp1252"),
        ("# Заметка\n\nПривет, как дела? Это тест заметки.\n", "cp1251", "cp1251"),
        ("# Hallo\n\nGrüße aus Köln.\n", "utf-16", "utf_16"),
        ("# Plain\n\nJust UTF-8 — with a dash.\n", "utf-8", "utf-8"),
    ],
)
def test_notes_in_old_encodings_decode_to_their_text(text, encoding, saved_as):
    assert decode_note(text.encode(encoding)) == (text, saved_as)


def test_binary_is_still_skipped():
    assert decode_note(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))) is None


def test_a_windows_1252_note_is_indexed_found_and_its_encoding_shown(vault, cli, fake_embedder):
    (vault / "old.md").write_bytes("# Déjà vu\n\nThe café's “special” costs €4.\n".encode("cp1252"))
    summary = cli.json("index", "--json")
    assert summary["errors"] == [] and summary["notes_new"] == 1
    shown = cli.json("show", "old.md", "--json")
    assert shown["encoding"] == "cp1252" and shown["title"] == "Déjà vu"
    assert "“special” costs €4" in shown["passages"][0]["text"]
    assert cli.json("query", "café special", "--json", "--no-track")[0]["path"] == "old.md"
    assert "encoding       cp1252" in cli("show", "old.md").stdout


def test_problem_notes_are_remembered_until_they_are_fixed(vault, cli, fake_embedder):
    write(vault, "good.md", GOOD)
    broken = write(vault, "broken.md", BROKEN_YAML)
    (vault / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert cli("index").exit_code == EXIT_PARTIAL
    second = cli("index", "--json")  # broken.md is unchanged, so this run does not even read it
    assert second.exit_code == EXIT_PARTIAL  # image.md is read (and skipped) again

    status = cli.json("status", "--json")
    assert status["notes_with_problems"] == 2
    assert "problems   2 notes skipped or read without metadata" in cli("status").stdout
    doctor = cli("doctor", "--json")
    assert doctor.exit_code == 0  # the index is sound: the notes are the vault's to fix

    problems = {p["path"]: p["error"] for p in json.loads(doctor.stdout)["note_problems"]}
    assert set(problems) == {"broken.md", "image.md"}
    assert "invalid frontmatter" in problems["broken.md"] and "binary file" in problems["image.md"]
    text = cli("doctor").stdout
    assert "warn   notes" in text and "broken.md: invalid frontmatter" in text

    broken.write_text("---\ntitle: Fixed\n---\n# Fixed\n\nNow with metadata.\n", encoding="utf-8")
    (vault / "image.md").unlink()
    assert cli("index").exit_code == 0
    assert cli.json("status", "--json")["notes_with_problems"] == 0
    assert json.loads(cli("doctor", "--json").stdout)["note_problems"] == []


class InterruptingEmbedder(FakeEmbedder):
    """Ctrl-C during the second batch it embeds."""

    def embed(self, texts):
        if self.calls == 1:
            self.calls += 1
            raise KeyboardInterrupt
        return super().embed(texts)


def test_an_interrupted_index_is_recorded_as_interrupted(vault, cli, monkeypatch, tmp_path):
    embedder = InterruptingEmbedder()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: embedder)
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text("[embedder]\nbatch_size = 2\n")
    for n in range(300):
        write(vault, f"n{n:03}.md", f"# Note {n}\n\nParagraph about topic {n}.\n")
    result = cli("index")
    assert result.exit_code == 130
    last = cli.json("status", "--json")["last_run"]
    assert (last["command"], last["status"]) == ("index", "interrupted")
    assert last["summary"]["error"] == "interrupted" and last["summary"]["notes_scanned"] == 300
    assert "last run   index at" in cli("status").stdout and "(interrupted)" in cli("status").stdout


def test_a_failed_index_is_recorded_as_failed(vault, cli, fake_embedder, monkeypatch):
    write(vault, "good.md", GOOD)
    cli.json("index", "--json")
    other = FakeEmbedder("other-model@2")
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: other)
    assert cli("index").exit_code == 1
    last = cli.json("status", "--json")["last_run"]
    assert last["status"] == "failed" and "index --full" in last["summary"]["error"]


def test_an_interrupted_refresh_is_recorded(vault, cli, fake_embedder, monkeypatch):
    write(vault, "good.md", GOOD)
    import smartvec_cli.core.refresh as refresh

    def interrupted(ctx):
        raise KeyboardInterrupt

    monkeypatch.setattr(
        refresh, "NIGHTLY", (refresh.Stage("index", refresh.index_stage), refresh.Stage("consolidate", interrupted))
    )
    assert cli("refresh", "--nightly").exit_code == 130
    last = cli.json("status", "--json")["last_run"]
    assert (last["command"], last["status"]) == ("refresh --nightly", "interrupted")
    assert [s["status"] for s in last["summary"]["stages"]] == ["ok", "interrupted"]


def test_index_on_a_terminal_says_to_consolidate_next(vault, cli, fake_embedder, monkeypatch):
    write(vault, "good.md", GOOD)
    assert cli.json("index", "--json")["notes_to_consolidate"] == 1
    write(vault, "other.md", "# Other\n\nAnother note.\n")
    assert "next: run" not in cli("index").stderr  # not a terminal: a log needs no advice
    monkeypatch.setattr("smartvec_cli.cli.index.stderr_is_terminal", lambda: True)
    write(vault, "third.md", "# Third\n\nA third note.\n")
    said = cli("index")
    assert said.stdout.startswith("3 notes: 1 new") and said.stderr.startswith(
        "next: run 'smartvec consolidate' (3 notes not consolidated yet"
    )
    assert "next       run 'smartvec consolidate'" in cli("status").stdout
    cli.json("consolidate", "--json")
    assert "next " not in cli("status").stdout
    assert cli.json("index", "--json")["notes_to_consolidate"] == 0
    assert "next: run" not in cli("index").stderr


class InterruptedLater(FakeEmbedder):
    """Ctrl-C at its eleventh batch."""

    def embed(self, texts):
        if self.calls == 10:
            raise KeyboardInterrupt
        return super().embed(texts)


def test_ctrl_c_inside_a_huge_note_keeps_the_vectors_already_made(vault, cli, monkeypatch, tmp_path):
    """One note of 200 passages, so its write is one transaction: the vectors made before Ctrl-C are kept all
    the same (every few seconds; here every batch), the run record says how long it ran, and the next run
    embeds only the rest."""
    embedder = InterruptedLater()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: embedder)
    monkeypatch.setattr("smartvec_cli.core.indexer.KEEP_VECTORS_EVERY", 0.0)
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text("[embedder]\nbatch_size = 4\n")
    write(
        vault,
        "huge.md",
        "# Huge\n\n" + "\n\n".join(f"Paragraph {n} says something of its own about {n} things." for n in range(200)),
    )
    assert cli("index").exit_code == 130
    last = cli.json("status", "--json")["last_run"]
    assert last["status"] == "interrupted" and last["summary"]["seconds"] > 0
    assert last["summary"]["passages_embedded"] == 40
    assert index_rows("SELECT COUNT(*) FROM embeddings") == [(40,)] and index_rows("SELECT COUNT(*) FROM notes") == [
        (0,)
    ]

    embedder.calls = 11  # Ctrl-C no more
    embedder.embedded.clear()
    assert cli.json("index", "--json")["passages_embedded"] == 160 and len(embedder.embedded) == 160


def test_a_killed_index_shows_as_interrupted(vault, tmp_path):
    """SIGKILL leaves no chance to record anything: the run's ``running`` record, whose process is gone, is
    what ``status`` reports."""
    import signal
    import subprocess
    import sys
    import time

    from fake_backend import subprocess_env, use_fake_backend

    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    base = [sys.executable, "-m", "smartvec_cli", "--vault", str(vault), "--index-dir", str(index_dir)]
    write(vault, "a.md", GOOD)
    subprocess.run([*base, "index"], env=subprocess_env(), check=True, capture_output=True)
    (index_dir / "config.toml").write_text('[embedder]\nbackend = "fake_backend:make_slow"\n', encoding="utf-8")
    write(vault, "b.md", "# B\n\nA second note, whose embedding never ends.\n")
    env = dict(subprocess_env(), SMARTVEC_TEST_MODEL_RELEASE=str(tmp_path / "never"))
    runner = subprocess.Popen([*base, "index"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "index" / "smartvec.db").exists() or not _running(index_dir):
            assert time.monotonic() < deadline and runner.poll() is None
            time.sleep(0.1)
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    status = json.loads(
        subprocess.run([*base, "status", "--json"], env=subprocess_env(), capture_output=True, text=True).stdout
    )
    assert status["last_run"]["command"] == "index" and status["last_run"]["status"] == "interrupted"
    assert "killed" in status["last_run"]["why"]


def _running(index_dir) -> bool:
    import sqlite3

    with sqlite3.connect(index_dir / "smartvec.db") as db:
        return db.execute("SELECT COUNT(*) FROM runs WHERE status = 'running'").fetchone()[0] > 0
