"""Source kinds: where each note's kind came from, as ``status`` tells it, and its warning."""

from conftest import write


def test_status_counts_declared_inferred_and_unknown_kinds(vault, cli, fake_embedder):
    write(vault, "Policy.md", "---\nsource_type: policy\n---\n# Policy\n\nDoors close at 8.\n")
    write(vault, "Slack/general.md", "# general\n\nana: doors close at 9 now\n")
    write(vault, "2024-03-01.md", "# Today\n\nSpoke to the landlord.\n")
    write(vault, "Ideas.md", "---\ndate: 2024-01-05\n---\n# Ideas\n\nA roof garden.\n")
    cli.json("index", "--json")

    status = cli.json("status", "--json")
    assert status["kinds"] == {"declared": 1, "inferred": 2, "unknown": 1}
    assert status["trust_warning"] is None
    text = cli("status").stdout
    assert "kinds      1 declared, 2 inferred, 1 unknown" in text
    assert "warning" not in text


def test_status_warns_when_most_notes_have_neither_a_kind_nor_a_date(vault, cli, fake_embedder):
    write(vault, "Policy.md", "---\nsource_type: policy\n---\n# Policy\n\nDoors close at 8.\n")
    for name in ("Garden", "Roof", "Keys"):
        write(vault, f"notes/{name}.md", f"# {name}\n\nSomething about the {name.lower()}.\n")
    cli.json("index", "--json")

    status = cli.json("status", "--json")
    assert status["kinds"] == {"declared": 1, "inferred": 0, "unknown": 3}
    assert status["trust_warning"].startswith("3 of 4 notes have neither a kind nor a date")
    result = cli("status")
    assert result.exit_code == 0
    assert "warning    3 of 4 notes have neither a kind nor a date" in result.stdout
    assert "[confidence.folders]" in result.stdout

    (vault / "notes" / "Roof.md").write_text("---\ndate: 2024-02-01\n---\n# Roof\n\nIt leaks.\n", encoding="utf-8")
    write(vault, "meetings/Kickoff.md", "# Kickoff\n\nWe start in May.\n")
    cli.json("index", "--json")
    status = cli.json("status", "--json")  # 2 of 5 bare: no longer most
    assert status["kinds"] == {"declared": 1, "inferred": 1, "unknown": 3}
    assert status["trust_warning"] is None


def test_a_kind_rule_in_config_counts_as_inferred(vault, cli, fake_embedder, tmp_path):
    write(vault, "inbox/a.md", "# a\n\nOne.\n")
    write(vault, "inbox/b.md", "# b\n\nTwo.\n")
    (tmp_path / "index").mkdir(exist_ok=True)
    (tmp_path / "index" / "config.toml").write_text('[confidence.folders]\n"inbox/**" = "wiki"\n')
    cli.json("index", "--json")
    status = cli.json("status", "--json")
    assert status["kinds"] == {"declared": 0, "inferred": 2, "unknown": 0}
    assert status["trust_warning"] is None
