"""``smartvec related NOTE`` on the real model: notes like one note, never itself nor its versions."""

from __future__ import annotations

import json

from conftest import index_rows, write

NOTES = {
    "pets/Cat care.md": (
        "# Cat care\n\nFeed an adult cat twice a day and brush its fur every week.\n\n"
        "Cats need fresh water and a clean litter box.\n"
    ),
    "pets/Cat care v2.md": (
        "# Cat care\n\nFeed an adult cat twice a day and brush its fur twice a week.\n\n"
        "Cats need fresh water and a clean litter box.\n"
    ),
    "pets/Kittens.md": "# Kittens\n\nKittens eat four small meals a day until they are six months old.\n",
    "pets/Dog walks.md": "# Dogs\n\nA dog needs two walks a day and a bowl of fresh water.\n",
    "garage/Oil change.md": (
        "# Car maintenance\n\nChange the engine oil every 15,000 kilometres and check the tyre pressure.\n"
    ),
}


def related_paths(cli, *args: str) -> list[str]:
    return [item["path"] for item in cli.json("related", *args, "--json")["related"]]


def test_related_notes_leave_out_the_note_and_its_versions(vault, cli, real_embedder):
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")
    assert index_rows("SELECT count(*) FROM edges WHERE type = 'supersedes'") == [
        (1,)
    ]  # v2 was read as a version of the note
    data = cli.json("related", "pets/Cat care.md", "--json")
    found = [item["path"] for item in data["related"]]
    assert found[:2] == ["pets/Kittens.md", "pets/Dog walks.md"] or found[:2] == [
        "pets/Dog walks.md",
        "pets/Kittens.md",
    ]
    assert (
        "pets/Cat care.md" not in found and "pets/Cat care v2.md" not in found
    )  # its own lineage, the closest text of all
    assert "garage/Oil change.md" not in found  # under the relevance floor: not related at all
    first = data["related"][0]
    assert first["url"].startswith("file://") and first["url"].endswith(first["path"].replace(" ", "%20"))
    assert first["passage"]["chunk_id"].startswith(first["note_id"] + "#") and first["because_of"][
        "chunk_id"
    ].startswith("pets/Cat care#")
    assert [item["rank"] for item in data["related"]] == list(range(1, len(found) + 1))
    scores = [item["score"] for item in data["related"]]
    assert scores == sorted(scores, reverse=True)
    # the newer version is related to the same notes, and not to the note it replaced
    assert "pets/Cat care.md" not in related_paths(cli, "pets/Cat care v2.md")


def test_related_accepts_an_id_a_title_or_a_former_name(vault, cli, real_embedder):
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")
    expected = related_paths(cli, "pets/Kittens.md")
    assert expected and related_paths(cli, "pets/Kittens") == expected and related_paths(cli, "Kittens") == expected
    (vault / "pets/Kittens.md").rename(vault / "pets/Young cats.md")
    cli.json("index", "--json")
    assert cli.json("related", "pets/Kittens.md", "--json")["note"]["path"] == "pets/Young cats.md"
    assert related_paths(cli, "pets/Kittens.md") == expected
    shown = cli("related", "pets/Young cats.md", "-k", "1")
    assert shown.exit_code == 0 and shown.stdout.startswith("1. ") and "score" in shown.stdout
    missing = cli("related", "no such note")
    assert missing.exit_code == 1 and missing.stderr.strip() == "error: no note 'no such note' in the index"


def test_a_note_with_nothing_like_it(vault, cli, real_embedder):
    write(vault, "a.md", "# Engines\n\nChange the engine oil every 15,000 kilometres.\n")
    write(vault, "b.md", "# Poetry\n\nShe wrote sonnets about the sea at dawn.\n")
    cli.json("index", "--json")
    assert cli.json("related", "a.md", "--json")["related"] == []
    shown = cli("related", "a.md")
    assert shown.exit_code == 0 and shown.stdout.startswith("no related note")


def test_the_python_api_names_related_notes_like_the_command(vault, cli, real_embedder):
    import smartvec_cli

    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")
    with smartvec_cli.open_vault(embedder=real_embedder) as api:
        data = api.related("Kittens", top_k=2)
    assert json.loads(cli("related", "Kittens", "-k", "2", "--json").stdout) == data.to_dict()
    assert data.method == "best" and len(data.related) <= 2
