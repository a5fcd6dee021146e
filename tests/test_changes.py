"""``smartvec changes --since DATE``: the passages added, replaced, expired and contradicted in a window, with
lineage (the CLI on a real index, fake embedder: what is stored when is the point)."""

from __future__ import annotations

from conftest import write

BUDGET = "# Budget\n\nThe shed budget is {amount} euros.\n\n## Owner\n\nAnna owns the budget.\n"
OFFER = "---\nvalid_until: 2026-03-10\n---\n# Spring offer\n\nBikes are 10 percent off.\n"


def test_changes_in_a_window_with_what_replaced_what(vault, cli, fake_embedder):
    write(vault, "budget.md", BUDGET.format(amount=400))
    write(vault, "offer.md", OFFER)
    write(vault, "old.md", "# Old\n\nThe old depot closes at noon.\n")
    cli.json("--now", "2026-03-01", "index", "--json")
    write(vault, "budget.md", BUDGET.format(amount=450))
    write(vault, "roof.md", "# Roof\n\nThe roof takes green felt.\n")
    (vault / "old.md").unlink()
    cli.json("--now", "2026-03-15", "index", "--json")

    data = cli.json("--now", "2026-03-20", "changes", "--since", "2026-03-10", "--json")
    assert (data["since"], data["until"]) == ("2026-03-10T00:00:00Z", "2026-03-20T00:00:01Z")
    added = {(a["path"], a["text"]): a for a in data["added"]}
    new_budget = added[("budget.md", "The shed budget is 450 euros.")]
    assert new_budget["replaces"]["text"] == "The shed budget is 400 euros." and new_budget["at"].startswith(
        "2026-03-15"
    )
    assert ("roof.md", "The roof takes green felt.") in added
    assert not any(path == "offer.md" for path, _ in added)  # added before the window
    replaced = {(r["path"], r["how"]): r for r in data["replaced"]}
    edited = replaced[("budget.md", "edited")]
    assert edited["text"] == "The shed budget is 400 euros." and edited["by"]["version"] == 2
    assert replaced[("old.md", "deleted")]["by"] is None
    assert [(e["path"], e["at"][:10]) for e in data["expired"]] == [("offer.md", "2026-03-10")]

    before = cli.json("--now", "2026-03-20", "changes", "--since", "2026-02-01", "--until", "2026-03-05", "--json")
    assert {a["path"] for a in before["added"]} == {"budget.md", "offer.md", "old.md"} and before["replaced"] == []

    shown = cli("--now", "2026-03-20", "changes", "--since", "2026-03-10").stdout
    assert "2 added" in shown.splitlines()[0] and "edited" in shown and "budget.md" in shown


def test_changes_refuses_a_window_that_ends_before_it_starts(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nText.\n")
    cli.json("index", "--json")
    result = cli("changes", "--since", "2026-03-10", "--until", "2026-03-01")
    assert result.exit_code == 2 and "comes before" in result.stderr
    assert cli("changes", "--since", "someday soon").exit_code == 2
