"""Each kind of bad input: a clear message, an entry in ``errors``, the run goes on, nothing stored is lost."""

import os
from pathlib import Path

import pytest
from conftest import write

from smartvec_cli.errors import EXIT_PARTIAL, EXIT_USAGE

GOOD = "# Good\n\nA perfectly ordinary note about the quarterly roadmap.\n"


def run_index(cli):
    result = cli("index", "--json")
    import json

    return result, json.loads(result.stdout)


def errors_by_path(summary):
    return {e["path"]: e["error"] for e in summary["errors"]}


def test_missing_vault_is_a_usage_error(tmp_path, cli, monkeypatch):
    monkeypatch.delenv("SMARTVEC_VAULT", raising=False)
    result = cli("--vault", str(tmp_path / "nope"), "index")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.strip() == f"error: vault folder not found: {tmp_path / 'nope'}"


def test_query_without_an_index_says_what_to_do(vault, cli, fake_embedder):
    result = cli("query", "anything")
    assert result.exit_code == 1
    assert "run 'smartvec index' first" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary file"),
        ("random.md", bytes((i * 7919 + 13) % 256 for i in range(4000)), "binary file"),
    ],
)
def test_undecodable_files_are_skipped_with_a_message(vault, cli, fake_embedder, name, content, expected):
    write(vault, "good.md", GOOD)
    (vault / name).write_bytes(content)
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL, result.stderr
    assert expected in errors_by_path(summary)[name]
    assert f"warning: {name}: " in result.stderr
    assert summary["notes_new"] == 1


def test_broken_yaml_is_indexed_without_metadata(vault, cli, fake_embedder):
    write(vault, "broken.md", "---\ntitle: [unclosed\ntags: {\n---\n# Broken\n\nThe body still deserves to be found.\n")
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert "invalid frontmatter" in errors_by_path(summary)["broken.md"]
    hits = cli.json("query", "body deserves found", "--json")
    assert hits and hits[0]["path"] == "broken.md"


def test_empty_and_frontmatter_only_notes_are_fine(vault, cli, fake_embedder):
    write(vault, "empty.md", "")
    write(vault, "meta.md", "---\ntitle: Only metadata\ntags: [x]\n---\n")
    result, summary = run_index(cli)
    assert result.exit_code == 0 and summary["errors"] == []
    assert summary["notes_new"] == 2 and summary["passages_embedded"] == 0
    assert cli.json("show", "Only metadata", "--json")["passages"] == []


def test_a_huge_note_is_skipped_and_the_run_goes_on(vault, cli, fake_embedder):
    write(vault, "good.md", GOOD)
    (vault / "huge.md").write_bytes(b"word " * (4 * 1024 * 1024))  # 20 MB
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert "over the limit" in errors_by_path(summary)["huge.md"]
    assert summary["notes_new"] == 1


def test_a_file_deleted_between_scan_and_read(vault, cli, fake_embedder, monkeypatch):
    write(vault, "good.md", GOOD)
    doomed = write(vault, "doomed.md", "# Doomed\n\nThis file vanishes mid-run.\n")
    import smartvec_cli.core.indexer as indexer

    original = indexer.scan_vault

    def scan_then_delete(*args, **kwargs):
        found = original(*args, **kwargs)
        doomed.unlink()
        return found

    monkeypatch.setattr(indexer, "scan_vault", scan_then_delete)
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert "disappeared" in errors_by_path(summary)["doomed.md"]
    assert summary["notes_new"] == 1


def test_an_unreadable_file_keeps_what_was_stored(vault, cli, fake_embedder, monkeypatch):
    locked = write(vault, "locked.md", "# Locked\n\nOriginal text that was indexed before.\n")
    write(vault, "good.md", GOOD)
    run_index(cli)
    locked.write_text("# Locked\n\nNew text we cannot read.\n")
    if os.geteuid() == 0:  # root reads anything: simulate what chmod 000 does for a user
        from smartvec_cli.core import indexer

        original = indexer.read_regular

        def deny(path, *args, **kwargs):
            if Path(path).name == "locked.md":
                raise PermissionError(13, "Permission denied")
            return original(path, *args, **kwargs)

        monkeypatch.setattr(indexer, "read_regular", deny)
    else:
        locked.chmod(0)
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert "permission denied" in errors_by_path(summary)["locked.md"]
    assert summary["notes_deleted"] == 0
    shown = cli.json("show", "locked.md", "--json")
    assert "Original text" in shown["passages"][0]["text"]


def test_a_symlink_loop_is_reported(vault, cli, fake_embedder):
    write(vault, "good.md", GOOD)
    os.symlink(vault / "b.md", vault / "a.md")
    os.symlink(vault / "a.md", vault / "b.md")
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert "symlink" in errors_by_path(summary)["a.md"]
    assert summary["notes_new"] == 1


def test_a_malformed_config_is_one_line(vault, cli, fake_embedder, tmp_path):
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text("exclude = [unclosed\n")
    result = cli("index")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.count("\n") == 1 and "invalid TOML" in result.stderr


def test_bad_batch_input_is_a_usage_error(vault, cli, fake_embedder):
    write(vault, "good.md", GOOD)
    run_index(cli)
    result = cli("query", "--batch", "-", input='{"id": 1, "query": "roadmap"}\nnot json\n')
    assert result.exit_code == EXIT_USAGE
    assert "-:2:" in result.stderr


def test_self_referring_frontmatter_is_reported_and_the_run_goes_on(vault, cli, fake_embedder):
    write(vault, "good.md", GOOD)
    write(vault, "alias.md", "---\nrelated: &x [*x]\n---\n# Alias\n\nA note whose frontmatter refers to itself.\n")
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert "refers to itself" in errors_by_path(summary)["alias.md"]
    assert summary["notes_new"] == 2


def test_a_note_the_parser_chokes_on_never_stops_the_run(vault, cli, fake_embedder, monkeypatch):
    import smartvec_cli.core.indexer as indexer

    write(vault, "good.md", GOOD)
    write(vault, "cursed.md", "# Cursed\n\nThe parser has a bug this note finds.\n")
    original = indexer.parse_note

    def parse(text, rel_path, **kwargs):
        if rel_path == "cursed.md":
            raise IndexError("list index out of range")
        return original(text, rel_path, **kwargs)

    monkeypatch.setattr(indexer, "parse_note", parse)
    monkeypatch.delenv("SMARTVEC_DEBUG", raising=False)
    result, summary = run_index(cli)
    assert result.exit_code == EXIT_PARTIAL
    assert errors_by_path(summary)["cursed.md"].startswith("cannot be parsed (IndexError: list index out of range)")
    assert summary["notes_new"] == 1
