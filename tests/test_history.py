"""A vault's past: notes that appear later were not always there, and where each validity bound came from (real model)."""

import pytest

from conftest import write

pytestmark = pytest.mark.slow

BIKES = "# Bikes\n\nThe garage has a bicycle repair stand, a floor pump and a box of spare inner tubes.\n"
GARAGE = "# Garage\n\nThe garage holds the car, the lawn mower and shelves of paint tins.\n"
KITCHEN = "# Kitchen\n\nThe kitchen has a gas stove, a dishwasher and a coffee grinder on the counter.\n"
BIKE_QUESTION = "Is there a bicycle repair stand in the garage?"


def query(cli, *args):
    return cli.json("query", *args, "--json", "--no-track", "--explain")


@pytest.fixture
def bikes_vault(vault, cli, real_embedder, monkeypatch):
    """Indexed since 2020; bikes.md appears in 2023, an edit to garage.md in 2022."""
    write(vault, "garage.md", GARAGE)
    write(vault, "kitchen.md", KITCHEN)
    monkeypatch.setenv("SMARTVEC_NOW", "2020-01-01")
    cli.json("index", "--json")
    write(vault, "garage.md", GARAGE + "\nA workbench stands along the back wall.\n")
    monkeypatch.setenv("SMARTVEC_NOW", "2022-01-01")
    cli.json("index", "--json")
    write(vault, "bikes.md", BIKES)
    monkeypatch.setenv("SMARTVEC_NOW", "2023-03-01")
    cli.json("index", "--json")
    return vault


def test_a_note_that_appears_later_was_not_there_before(bikes_vault, cli):
    hits = query(cli, BIKE_QUESTION, "--as-of", "2021-01-01")
    bikes = [h for h in hits if h["path"] == "bikes.md"]
    assert hits[0]["path"] != "bikes.md" or any("not yet valid" in w for w in hits[0]["warnings"])
    for hit in bikes:
        assert hit["valid_from"] == "2023-03-01T00:00:00Z"
        assert any("not yet valid on 2021-01-01 (from 2023-03-01)" in w for w in hit["warnings"])
        assert hit["explain"]["valid_from_source"] == "observed"
    now = query(cli, BIKE_QUESTION, "--as-of", "2024-01-01")[0]
    assert now["path"] == "bikes.md" and not now["warnings"]


def test_notes_of_the_first_index_keep_an_unknown_start(bikes_vault, cli):
    hit = query(cli, "What does the kitchen have on the counter?", "--as-of", "2019-01-01")[0]
    assert hit["path"] == "kitchen.md" and hit["valid_from"] is None and not hit["warnings"]
    assert hit["explain"]["valid_from_source"] is None


def test_an_earlier_plausible_date_of_a_new_note_is_its_start(bikes_vault, cli, monkeypatch):
    write(bikes_vault, "shed.md", "---\ndate: 2021-06-01\n---\n# Shed\n\nThe shed stores the canoe and two paddles.\n")
    write(bikes_vault, "future.md", "---\ndate: 2030-01-01\n---\n# Future\n\nThe attic will get a skylight.\n")
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")
    cli.json("index", "--json")
    shed = cli.json("show", "shed.md", "--json")["chunks"][0]
    assert (shed["valid_from"], shed["valid_from_source"]) == ("2021-06-01T00:00:00Z", "inferred")
    future = cli.json("show", "future.md", "--json")["chunks"][0]
    assert future["valid_from"] == "2030-01-01T00:00:00Z" and future["valid_from_source"] == "inferred"


def test_explain_and_history_say_where_each_bound_came_from(bikes_vault, cli):
    versions = cli.json("history", "garage.md", "--json")["passages"]
    added = [v for p in versions for v in p["versions"] if "workbench" in v["text"]]
    assert added and added[0]["valid_from"] == "2022-01-01T00:00:00Z" and added[0]["valid_from_source"] == "observed"
    hit = query(cli, "Where is the workbench?", "--as-of", "2023-01-01")[0]
    assert "workbench" in hit["text"] and hit["explain"]["valid_from_source"] == "observed"
