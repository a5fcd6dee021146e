"""One output discipline: a command's result on stdout (as text or ``--json``), progress, warnings and hints on
stderr; tables that a pipe gets whole; names with control characters printed as escapes, one line each."""

import pytest
from conftest import write

LONG = "projects/a-rather-long-folder-name/another-level-of-folders/the-quarterly-planning-notes-of-the-team"


def test_every_summary_is_data_on_stdout_and_stderr_stays_empty(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nThe deploy window is Tuesday afternoon.\n")
    write(vault, "b.md", "# B\n\nA note that will be deleted.\n")
    said = {"index": cli("index")}
    (vault / "b.md").unlink()
    write(vault, "c.md", "# C\n\nThe budget is approved in March.\n")
    said["refresh"] = cli("refresh", "--nightly")
    said["consolidate"] = cli("consolidate")
    cli.json("query", "deploy window", "--json")
    said["feedback"] = cli("feedback", "--rank", "1", "--up")
    said["forget"] = cli("forget", "--all-deleted", "--yes")
    for command, result in said.items():
        assert (command, result.exit_code, result.stderr) == (command, 0, "")
        assert len(result.stdout.splitlines()) == 1, (command, result.stdout)
    assert said["index"].stdout.startswith("2 notes: 2 new")
    assert said["forget"].stdout.startswith("forgot 1 deleted notes (1 passage versions)")


def test_the_index_summary_says_what_it_counted(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nFirst paragraph about apples.\n\nSecond paragraph about pears.\n")
    write(vault, "b.md", "# B\n\nFirst paragraph about apples.\n")
    first = cli("index").stdout
    write(vault, "a.md", "# A\n\nFirst paragraph about apples.\n\nSecond paragraph about plums now.\n")
    again = cli("index").stdout
    stored = sum(cli.json("status", "--json")["passages"].values())
    assert "3 passages embedded, 0 passages reused, 3 passages stored in all" in first
    assert (
        f"1 passages embedded, 1 passages reused, {stored} passages stored in all" in again and stored == 4
    )  # one archived


@pytest.mark.parametrize("command", ["show", "history"])
def test_piped_tables_are_tab_separated_rows_with_whole_ids(vault, cli, fake_embedder, command):
    write(vault, f"{LONG}.md", "# Plan\n\nThe plan for the quarter has three goals.\n\nThe second goal is hiring.\n")
    cli("index")
    shown = cli.json("show", f"{LONG}.md", "--json")
    out = cli(command, f"{LONG}.md")
    assert out.exit_code == 0 and "┏" not in out.stdout and "…" not in out.stdout
    rows = [line.split("\t") for line in out.stdout.splitlines() if "\t" in line]
    header, *body = rows
    assert header[:5] == ["passage", "v", "state", "valid from", "valid until"] and header[-1] == "text"
    assert [row[0] for row in body] == [p["chunk_id"] for p in shown["passages"]] and len(body[0][0]) > 80
    assert all(len(row) == len(header) for row in body)
    assert all(row[3] == "always" and row[4] == "open" for row in body)  # the same words in show and history
    assert body[0][-1].endswith("The plan for the quarter has three goals.")


def test_on_a_terminal_the_table_is_drawn(vault, cli, fake_embedder, monkeypatch):
    write(vault, "a.md", "# A\n\nThe deploy window is Tuesday afternoon.\n")
    cli("index")
    monkeypatch.setattr("smartvec_cli.cli.printing.stdout_is_terminal", lambda: True)
    for command in ("show", "history"):
        text = cli(command, "a.md").stdout
        assert "┏" in text and "valid from" in text and "always" in text and "open" in text


NAME = "odd\nname\x1b[31m"


def test_control_characters_in_a_note_name_are_escaped_wherever_it_is_printed(vault, cli, fake_embedder):
    write(vault, f"{NAME}.md", "---\ntitle: [broken\n---\n# Odd\n\nA note whose file name holds a newline.\n")
    indexed = cli("index")
    escaped = "odd\\nname\\x1b[31m"
    assert f"warning: {escaped}.md: " in indexed.stderr and "\x1b" not in indexed.stderr
    shown = cli("show", f"{NAME}.md").stdout
    history = cli("history", f"{NAME}.md").stdout
    doctor = cli("doctor").stdout
    for text in (shown, history, doctor):
        assert escaped in text and "\x1b" not in text and "odd\n" not in text
    rows = [line for line in shown.splitlines() if "\t" in line]
    assert len(rows) == 2 and rows[1].startswith(
        escaped.replace(".md", "")
    )  # the header and one passage, one line each


def test_a_query_hit_from_a_note_with_a_control_character_in_its_name_is_one_line(vault, cli, fake_embedder):
    write(vault, f"{NAME}.md", "# Odd\n\nThe kiwi harvest starts in May.\n")
    cli("index")
    text = cli("query", "kiwi harvest").stdout
    assert "odd\\nname\\x1b[31m.md" in text and "\x1b" not in text


def test_explain_at_80_columns_prints_each_id_whole_on_one_line(vault, cli, fake_embedder, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    write(
        vault, "policies/Travel and expenses policy 2025.md", "# Per diem and meals abroad\n\nThe per diem is 70 EUR.\n"
    )
    cli.json("index", "--json")
    shown = cli("query", "per diem", "--explain", "--no-track").stdout
    chunk_id = "policies/Travel and expenses policy 2025#per-diem-and-meals-abroad"
    assert any(line.strip().endswith(chunk_id) for line in shown.splitlines()), shown
