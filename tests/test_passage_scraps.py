"""A passage is something a reader could take on its own: a fenced code block is never cut so that a passage
holds half a fence, and a scrap (``?``, ``Ok.``, a rule) is never a passage of its own. Real notes in a
temporary vault, indexed through the command line (fake embedder), read back with ``show --json``."""

from __future__ import annotations

import re

from conftest import write

from smartvec_cli.vault.chunk import JUNK_WORD_CHARACTERS

FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def passages(cli, path: str) -> list[dict]:
    return cli.json("show", path, "--json")["passages"]


def fence_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if FENCE_LINE.match(line)]


def word_characters(text: str) -> int:
    return len(re.findall(r"[^\W_]", text))


def test_a_code_block_that_fits_is_never_cut_and_a_longer_one_is_closed_and_reopened(vault, cli, fake_embedder):
    config = "\n".join(f"    setting_{n} = {n * 7}  # the {n}th knob of the pump" for n in range(10))
    lead = " ".join(f"Step {n} of the guide explains the pump settings in plain words." for n in range(12))
    script = "\n".join(f"echo 'line {n} of the long deployment script for the garden pump'" for n in range(40))
    write(
        vault,
        "pump.md",
        f"# Pump\n\n## Settings\n\n{lead} Set these:\n\n```python\n{config}\n```\n\n"
        f"## Deploy\n\nRun the whole script:\n\n```bash\n{script}\n```\n",
    )
    cli.json("index", "--json")
    found = passages(cli, "pump.md")
    for passage in found:  # every passage opens and closes its fences
        assert len(fence_lines(passage["text"])) % 2 == 0, passage["text"]
    whole = [p["text"] for p in found if "setting_0" in p["text"]]
    assert len(whole) == 1 and f"```python\n{config}\n```" in whole[0]  # it fits a passage: kept whole
    parts = [p["text"] for p in found if "echo 'line" in p["text"]]
    assert len(parts) > 1 and all(len(part) <= 900 for part in parts)
    code = [part.split("\n") for part in parts]
    assert all(lines[-1] == "```" for lines in code) and all(
        "```bash" in lines for lines in code
    )  # each part reopens the fence with its language and closes it
    assert [line for lines in code for line in lines if line.startswith("echo")] == script.split("\n")


def test_a_scrap_joins_the_passage_before_it_in_its_section_else_the_one_after(vault, cli, fake_embedder):
    write(
        vault,
        "shed.md",
        "# Shed\n\n## Roof\n\nThe shed roof takes two rolls of green felt and forty nails.\n\n?\n\n"
        "## Door\n\nOk.\n\nThe door hangs on three brass hinges and locks with a padlock.\n\n"
        "## Paint\n\n---\n\n## Floor\n\nThe floor is laid from larch boards on a gravel bed.\n",
    )
    cli.json("index", "--json")
    texts = [p["text"] for p in passages(cli, "shed.md")]
    assert all(word_characters(text) >= JUNK_WORD_CHARACTERS for text in texts), texts
    assert "The shed roof takes two rolls of green felt and forty nails.\n?" in texts  # the one before it
    assert "Ok.\nThe door hangs on three brass hinges and locks with a padlock." in texts  # none before: after
    assert "---\nThe floor is laid from larch boards on a gravel bed." in texts  # alone in its section: the next
    assert len(texts) == 3
    write(vault, "todo.md", "# Todo\n\n?\n")  # a note with nothing else keeps it
    cli.json("index", "--json")
    assert [p["text"] for p in passages(cli, "todo.md")] == ["?"]


def test_the_short_end_of_a_long_paragraph_joins_the_piece_before_it(vault, cli, fake_embedder):
    sentence = "The garden pump lifts rain water from the cistern into the long raised beds each morning."
    assert len(sentence) == 89  # ten of them fill a passage of 900 characters but for four: "Why?" is left over
    paragraph = " ".join([sentence] * 10 + ["Why?"])
    write(vault, "water.md", f"# Water\n\n{paragraph}\n")
    cli.json("index", "--json")
    texts = [p["text"] for p in passages(cli, "water.md")]
    assert len(texts) == 2 and all(len(text) <= 900 for text in texts)
    assert all(word_characters(text) >= JUNK_WORD_CHARACTERS for text in texts), texts
    assert texts[-1] == f"{sentence} Why?"
    assert " ".join(texts) == paragraph  # nothing lost, nothing added


def test_an_index_cut_by_the_rules_before_is_cut_again_once_without_history(vault, cli, fake_embedder, monkeypatch):
    """The rules' stamp (``CHUNKING_RULES``) changed: a stored ``?`` passage goes at the next run, replaced and not
    archived, and no passage gets a second version."""
    import smartvec_cli.core.indexer as indexer
    import smartvec_cli.vault.chunk as chunk

    write(vault, "shed.md", "# Shed\n\nThe shed roof takes two rolls of green felt and forty nails.\n\n## Later\n\n?\n")
    with monkeypatch.context() as old:
        old.setattr(chunk, "_merge_junk", lambda paragraphs: paragraphs)
        old.setattr(indexer, "CHUNKING_RULES", "4: comments, navigation rows, empty anchors, badges ...")
        cli.json("index", "--json")
    assert [p["text"] for p in passages(cli, "shed.md")][-1] == "?"
    summary = cli.json("index", "--json")
    assert summary["passages_recut"] >= 1 and summary["passages_archived"] == 0, summary
    assert [p["text"] for p in passages(cli, "shed.md")] == [
        "The shed roof takes two rolls of green felt and forty nails.\n?"
    ]
    assert all(len(p["versions"]) == 1 for p in cli.json("history", "shed.md", "--json")["passages"])
    assert cli.json("index", "--json")["passages_recut"] == 0
