"""Source kinds: where each note's kind came from, as ``status`` tells it, and its warning."""

import pytest
from conftest import write

from smartvec_cli.memory.kinds import KindRules, infer_kind


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


CHAT_EXPORT = """# Export of #support

[09:58] ana: the refund window is 14 days now
[10:02] Bo Lind: are you sure?
[10:03] ana: I think so
[10:05] Bo Lind: ok, I'll tell the customer
"""
SLACK_COPY = """**Ana Lopez** 10:32 AM
who has the keys to the roof?

**Bo** 10:35
Marta has them

**Ana Lopez** 10:36
thanks!
"""
TEAM_PAGE = """# Platform team

Owner: Marta Rossi
Status: active
Updated: 2024-01-05
Contact: platform@example.com

The platform team runs the build farm and the deploy pipeline.
"""


def test_kinds_from_tags_and_from_the_shape_of_a_chat_export(vault, cli, fake_embedder):
    write(vault, "Inbox/support.md", CHAT_EXPORT)
    write(vault, "Inbox/roof.md", SLACK_COPY)
    write(vault, "notes/kickoff.md", "---\ntags: [project/meeting]\n---\n# Kickoff\n\nWe start in May.\n")
    write(vault, "notes/standup.md", "# Standup\n\n#standup\n\nThe deploy is blocked.\n")
    write(vault, "notes/team.md", TEAM_PAGE)
    cli.json("index", "--json")

    def kind(path):
        return cli.json("show", path, "--json")["kind"]

    assert kind("Inbox/support.md") == {
        "type": "chat",
        "source": "inferred",
        "reason": "100% of its lines name a speaker",
    }
    assert kind("Inbox/roof.md")["type"] == "chat"
    assert kind("notes/kickoff.md") == {"type": "meeting_notes", "source": "inferred", "reason": "tag #project/meeting"}
    assert kind("notes/standup.md") == {"type": "meeting_notes", "source": "inferred", "reason": "tag #standup"}
    assert kind("notes/team.md") == {"type": None, "source": None, "reason": None}  # "Owner: ..." lines are no chat
    assert "chat (inferred: 100% of its lines name a speaker)" in cli("show", "Inbox/support.md").stdout
    assert "kind           unknown" in cli("show", "notes/team.md").stdout
    assert cli.json("status", "--json")["kinds"] == {"declared": 0, "inferred": 4, "unknown": 1}


def test_a_new_index_writes_its_kind_rules_to_config_toml_and_edits_apply_at_the_next_run(
    vault, cli, fake_embedder, tmp_path
):
    write(vault, "Inbox/support.md", CHAT_EXPORT)
    write(vault, "notes/kickoff.md", "---\ntags: [kickoff]\n---\n# Kickoff\n\nWe start in May.\n")
    write(vault, "Slack/general.md", "# general\n\nana: doors close at 9 now\n")
    cli.json("index", "--json")
    config = tmp_path / "index" / "config.toml"
    text = config.read_text(encoding="utf-8")
    assert "[kinds.folder_words]" in text and "[kinds.tags]" in text and "chat_line_share = 0.6" in text
    assert cli.json("status", "--json")["kinds"] == {"declared": 0, "inferred": 2, "unknown": 1}

    rules, tags = text.split("[kinds.tags]")
    edited = (
        rules.replace("chat_line_share = 0.6", "chat_line_share = 0")
        + "[kinds.tags]"
        + tags.replace('meeting_notes = ["meeting",', 'meeting_notes = ["kickoff", "meeting",')
    )
    assert edited.count("kickoff") == 1
    config.write_text(edited, encoding="utf-8")
    summary = cli.json("index", "--json")  # no note changed, but the rules did: every note is read again
    assert summary["passages_embedded"] == 0
    assert cli.json("show", "Inbox/support.md", "--json")["kind"]["type"] is None
    assert cli.json("show", "notes/kickoff.md", "--json")["kind"] == {
        "type": "meeting_notes",
        "source": "inferred",
        "reason": "tag #kickoff",
    }
    assert cli.json("show", "Slack/general.md", "--json")["kind"]["reason"] == 'folder "Slack"'
    assert cli.json("index", "--json")["notes_unchanged"] == 3  # read once under the new rules, then left alone

    config.write_text(edited + "\n[confidence]\ninfer_kinds = false\n", encoding="utf-8")
    cli.json("index", "--json")
    assert cli.json("status", "--json")["kinds"] == {"declared": 0, "inferred": 0, "unknown": 3}


def test_an_existing_config_toml_is_never_rewritten(vault, cli, fake_embedder, tmp_path):
    write(vault, "a.md", "# a\n\nOne.\n")
    (tmp_path / "index").mkdir(exist_ok=True)
    own = "# mine\nmax_note_mb = 5\n"
    (tmp_path / "index" / "config.toml").write_text(own, encoding="utf-8")
    cli.json("index", "--json")
    assert (tmp_path / "index" / "config.toml").read_text(encoding="utf-8") == own


def test_bad_kind_rules_are_one_clear_line(vault, cli, fake_embedder, tmp_path):
    write(vault, "a.md", "# a\n\nOne.\n")
    (tmp_path / "index").mkdir(exist_ok=True)
    (tmp_path / "index" / "config.toml").write_text('[kinds.tags]\nchat = "slack"\n', encoding="utf-8")
    result = cli("index")
    assert result.exit_code == 2
    assert "kinds.tags must map each kind to a list of words" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "path, tags, kind",
    [
        ("Besprechungen/Team.md", [], "meeting_notes"),
        ("Reuniones/equipo.md", [], "meeting_notes"),
        ("Réunions/équipe.md", [], "meeting_notes"),
        ("会议记录/周会.md", [], "meeting_notes"),
        ("notes/a.md", ["besprechung"], "meeting_notes"),
        ("notes/a.md", ["réunion"], "meeting_notes"),
        ("notes/a.md", ["会议"], "meeting_notes"),
        ("Correos/a.md", [], "email"),
        ("Tagebuch/a.md", [], "daily_note"),
    ],
)
def test_folder_and_tag_words_in_other_languages_give_the_kind(path, tags, kind):
    assert infer_kind(path, tags, "Text.", KindRules()).kind == kind
