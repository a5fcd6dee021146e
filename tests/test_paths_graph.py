"""``graph NOTE --depth N``: the walk ends when a hop reaches nothing new, and the output is capped."""

from __future__ import annotations

import json

from conftest import write

from smartvec_cli.memory.graph import neighbourhood

LINKS = {  # a chain with a loop in it, a note pointing in, and one on its own
    "a": ["b"],
    "b": ["c"],
    "c": ["d"],
    "d": ["b", "e"],
    "e": [],
    "in": ["a"],
    "alone": [],
}


def linked_vault(vault, cli) -> None:
    for name, targets in LINKS.items():
        write(vault, f"{name}.md", f"# {name.title()}\n\nNote {name}. " + " ".join(f"[[{t}]]" for t in targets) + "\n")
    cli.json("index", "--json")


def node_ids(data: dict) -> list[str]:
    return [n["note_id"] for n in data["nodes"]]


def test_a_huge_depth_finishes_at_once_with_what_the_reaching_depth_gives(vault, cli, fake_embedder):
    linked_vault(vault, cli)
    depths = {d: cli.json("graph", "in", "--depth", str(d), "--format", "json") for d in range(5)}
    assert node_ids(depths[1]) == ["a", "in"]
    assert sorted(node_ids(depths[4])) == ["a", "b", "c", "d", "e", "in"]  # in, a, b, d (d links to b), e
    assert sorted(node_ids(depths[3])) == ["a", "b", "c", "d", "in"]
    huge = cli.json("graph", "in", "--depth", "1000000", "--format", "json")
    assert huge == depths[4] and huge["left_out"] == 0
    assert {(e["source"], e["target"]) for e in huge["edges"]} == {
        ("in", "a"),
        ("a", "b"),
        ("b", "c"),
        ("c", "d"),
        ("d", "b"),
        ("d", "e"),
    }
    assert cli("graph", "in", "--depth", "1000000").stdout.count("-->") == 6  # mermaid: every edge once


def test_the_walk_stops_when_a_hop_reaches_nothing_new():
    chain = [(i, i + 1) for i in range(300)]
    distance = neighbourhood(chain, 0, 10**15)  # a hop per depth would never end
    assert distance == {i: i for i in range(301)}
    assert neighbourhood(chain, 150, 2) == {148: 2, 149: 1, 150: 0, 151: 1, 152: 2}  # edges count both ways
    assert neighbourhood(chain, 5, 0) == {5: 0}
    assert neighbourhood([], 7, 3) == {7: 0}


def test_the_output_is_capped_nearest_first_with_a_line_saying_how_many_were_left_out(vault, cli, fake_embedder):
    linked_vault(vault, cli)
    result = cli("graph", "in", "--depth", "1000000", "--format", "json", "--limit", "3")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert sorted(node_ids(data)) == ["a", "b", "in"] and data["left_out"] == 3  # the three nearest of six
    assert {(e["source"], e["target"]) for e in data["edges"]} == {("in", "a"), ("a", "b")}
    assert result.stderr.strip() == "graph: 3 of 6 notes shown (3 left out); --limit N to change, --limit 0 for all"
    whole = cli("graph", "--format", "json", "--limit", "0")
    assert len(json.loads(whole.stdout)["nodes"]) == len(LINKS) and whole.stderr == ""
    capped = cli("graph", "--format", "json", "--limit", "5")
    assert json.loads(capped.stdout)["left_out"] == 2 and "5 of 7 notes shown" in capped.stderr
    assert cli("graph", "--limit", "-1").exit_code == 2
