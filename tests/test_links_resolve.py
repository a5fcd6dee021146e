"""Links as a vault has them: Markdown links and embeds beside wikilinks, resolved the way Obsidian
resolves them (path, exact case, then case-folded, shallowest path), attachments, and the graph over all."""

import json

import pytest
from conftest import both_stores, index_rows, write


def index(cli):
    return cli.json("index", "--json")


def links_of(cli, note):
    return {(link["type"], link["target"]): link["resolved"] for link in cli.json("show", note, "--json")["links"]}


@both_stores
def test_every_markdown_link_shape_resolves_and_urls_are_not_links(vault, cli, fake_embedder):
    write(vault, "Target.md", "# Target\n\nThe note most links point at, with a few words.\n")
    write(vault, "sub/Target Name.md", "# Target Name\n\n## Heading\n\nA note in a folder with a space in its name.\n")
    write(
        vault,
        "source.md",
        (
            "# Source\n\n## Heading\n\n"
            "With extension [one](Target.md), without [two](Target), encoded with a heading "
            "[three](sub/Target%20Name.md#Heading), in angle brackets [four](<sub/Target Name.md>), "
            "to a block [five](Target.md#^intro), and in this note [six](#Heading).\n\n"
            "Not notes: [site](https://example.org/Target.md), [mail](mailto:someone@example.org), "
            "[proto](obsidian://open?vault=x&file=Target), [host](//example.org/Target), "
            "[wrapped]((https://example.org/x)) "
            "and `[code](Target.md)`.\n\n"
            'An embedded note ![shown](Target.md "a title").\n'
        ),
    )
    index(cli)
    assert links_of(cli, "source.md") == {
        ("link", "Target.md"): "Target.md",
        ("link", "Target"): "Target.md",
        ("link", "sub/Target Name.md"): "sub/Target Name.md",
        ("link", ""): "source.md",
        ("embed", "Target.md"): "Target.md",
    }
    details = [
        json.loads(d) for (d,) in index_rows("SELECT detail FROM edges WHERE target = 'sub/Target Name.md' ORDER BY id")
    ]
    assert details == [{"heading": "Heading", "alias": "three", "markdown": True}, {"alias": "four", "markdown": True}]
    assert index_rows(
        "SELECT COUNT(*) FROM edges WHERE target LIKE '%example.org%' OR target LIKE '%mailto%' OR target LIKE "
        "'%obsidian:%'"
    ) == [(0,)]


def test_relative_paths_start_from_the_linking_note_and_stay_in_the_vault(vault, cli, fake_embedder):
    write(vault, "sibling.md", "# Root sibling\n\nThe sibling at the root of the vault.\n")
    write(vault, "Top.md", "# Top\n\nA note at the top of the vault.\n")
    write(vault, "docs/sibling.md", "# Docs sibling\n\nThe sibling in the same folder as the source.\n")
    write(vault, "docs/guide/deep.md", "# Deep\n\nA note two folders down.\n")
    write(
        vault,
        "docs/a.md",
        (
            "# A\n\n[same folder](sibling.md), [up](../Top.md), [down](guide/deep.md), [dot](./guide/deep.md), "
            "[out](../../Top.md), [far out](../../../etc/passwd), [missing up](../nothing.md) "
            "and a wikilink [[sibling]] (vault-wide: the shallowest).\n"
        ),
    )
    index(cli)
    assert links_of(cli, "docs/a.md") == {
        ("link", "sibling.md"): "docs/sibling.md",
        ("link", "../Top.md"): "Top.md",
        ("link", "guide/deep.md"): "docs/guide/deep.md",
        ("link", "./guide/deep.md"): "docs/guide/deep.md",
        ("link", "../../Top.md"): None,  # climbs out of the vault: never the namesake inside it
        ("link", "../../../etc/passwd"): None,
        ("link", "../nothing.md"): None,
        ("link", "sibling"): "sibling.md",
    }


def test_exact_case_and_aliases_win_over_case_folded_names_and_the_shallowest_path_wins_ties(vault, cli, fake_embedder):
    write(vault, "App/secretStorage.md", "# secretStorage\n\nThe property of the app object.\n")
    write(
        vault,
        "SecretStorage.md",
        "---\naliases: [SecretStorage, Secret store]\n---\n# SecretStorage\n\nThe class itself.\n",
    )
    write(vault, "Guides/Vault.md", "# Vault guide\n\nA guide deeper in the tree.\n")
    write(vault, "Guides/Deeper/Vault.md", "# Deeper vault\n\nAn even deeper note of the same name.\n")
    write(vault, "plugins.md", "---\naliases: [Plugin list]\n---\n# Plugins\n\nAll the plugins.\n")
    write(vault, "plugin list.md", "# plugin list (old)\n\nA note whose file name folds to the alias above.\n")
    write(
        vault,
        "user.md",
        (
            "# User\n\n[[SecretStorage]], [[secretStorage]], [[SECRETSTORAGE]], [[Vault]], "
            "[[Plugin list]], [[Secret store]], [text](Deeper/Vault.md) and [[Deeper/Vault]].\n"
        ),
    )
    index(cli)
    assert links_of(cli, "user.md") == {
        ("link", "SecretStorage"): "SecretStorage.md",
        ("link", "secretStorage"): "App/secretStorage.md",
        ("link", "SECRETSTORAGE"): "SecretStorage.md",  # folded: both match, the shallower path wins
        ("link", "Vault"): "Guides/Vault.md",
        ("link", "Plugin list"): "plugins.md",  # the alias as written beats a file name that only folds to it
        ("link", "Secret store"): "SecretStorage.md",
        ("link", "Deeper/Vault.md"): "Guides/Deeper/Vault.md",
        ("link", "Deeper/Vault"): "Guides/Deeper/Vault.md",
    }


@both_stores
def test_attachments_resolve_to_the_file_and_show_says_so(vault, cli, fake_embedder):
    (vault / "assets").mkdir()
    (vault / "assets" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (vault / "papers").mkdir()
    (vault / "papers" / "Spec.pdf").write_bytes(b"%PDF-1.4\n")
    write(
        vault,
        "note.md",
        (
            "# Note\n\n![[diagram.png]] ![flow](assets/diagram.png) [the spec](papers/Spec.pdf) "
            "![[spec.pdf]] ![later](later.png) ![[gone.png]]\n"
        ),
    )
    index(cli)
    assert links_of(cli, "note.md") == {
        ("embed", "diagram.png"): "assets/diagram.png",
        ("embed", "assets/diagram.png"): "assets/diagram.png",
        ("link", "papers/Spec.pdf"): "papers/Spec.pdf",
        ("embed", "spec.pdf"): "papers/Spec.pdf",
        ("embed", "later.png"): None,
        ("embed", "gone.png"): None,
    }
    shown = cli.json("show", "note.md", "--json")["links"]
    assert {link["target"] for link in shown if link["attachment"]} == {
        "diagram.png",
        "assets/diagram.png",
        "papers/Spec.pdf",
        "spec.pdf",
    }
    text = cli("show", "note.md").stdout
    assert "diagram.png -> assets/diagram.png" in text and text.count("(unresolved)") == 2

    (vault / "later.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # no note changed: the new file alone relinks
    summary = index(cli)
    assert summary["notes_unchanged"] == 1
    assert links_of(cli, "note.md")[("embed", "later.png")] == "later.png"
    (vault / "assets" / "diagram.png").unlink()
    index(cli)
    assert links_of(cli, "note.md")[("embed", "diagram.png")] is None

    graph = cli.json("graph", "--format", "json")
    assert [n["path"] for n in graph["nodes"]] == ["note.md"] and graph["edges"] == []  # attachments are no notes
    assert {(a["source"], a["path"], a["type"]) for a in graph["attachments"]} == {
        ("note", "papers/Spec.pdf", "link"),
        ("note", "papers/Spec.pdf", "embed"),
        ("note", "later.png", "embed"),
    }
    mermaid = cli("graph").stdout
    assert '[/"papers/Spec.pdf"/]' in mermaid and "-.->|embed|" in mermaid


def test_pagerank_and_neighbours_follow_markdown_links(vault, cli, fake_embedder):
    """A docs vault that links only with Markdown links: its hub is the most important note and the
    neighbourhood of a page reaches the pages it links to."""
    write(vault, "index.md", "# API\n\n" + " ".join(f"[page {i}](pages/page{i}.md)" for i in range(6)) + "\n")
    for i in range(6):
        write(
            vault,
            f"pages/page{i}.md",
            f"# Page {i}\n\nPage {i} of the reference. Back to the [overview](../Overview.md).\n",
        )
    write(vault, "Overview.md", "# Overview\n\nWhat the reference covers, in a few words.\n")
    write(vault, "lonely.md", "# Lonely\n\nA note nobody links to and that links nowhere.\n")
    index(cli)
    cli.json("consolidate", "--json")
    importance = dict(index_rows("SELECT path, importance FROM notes"))
    assert max(importance, key=importance.get) == "Overview.md"
    assert importance["pages/page0.md"] > importance["lonely.md"] and importance["index.md"] == pytest.approx(
        importance["lonely.md"]
    )
    graph = cli.json("graph", "--format", "json")
    assert len(graph["edges"]) == 12 and {e["type"] for e in graph["edges"]} == {"link"}
    around = cli.json("graph", "pages/page3.md", "--depth", "1", "--format", "json")
    assert sorted(n["path"] for n in around["nodes"]) == ["Overview.md", "index.md", "pages/page3.md"]


def test_an_index_made_before_markdown_links_were_read_learns_them_without_embedding(vault, cli, fake_embedder):
    """The link rules are part of the rules notes are read under: a new release that reads more links
    reads every note once more, resolves what it finds and embeds nothing."""
    import smartvec_cli.vault.parse as parse

    write(vault, "Target.md", "# Target\n\nA note that another links to with a Markdown link.\n")
    write(vault, "source.md", "# Source\n\nRead [the target](Target.md) first.\n")
    wikilinks_only = parse.parse_links
    with pytest.MonkeyPatch.context() as older_release:
        older_release.setattr(
            parse, "parse_links", lambda text: [link for link in wikilinks_only(text) if not link.markdown]
        )
        older_release.setattr("smartvec_cli.core.indexer.LINK_RULES", "1: wikilinks only")
        index(cli)
        assert links_of(cli, "source.md") == {}
    fake_embedder.embedded.clear()
    summary = index(cli)
    assert summary["notes_unchanged"] == 2 and summary["passages_embedded"] == 0 and fake_embedder.embedded == []
    assert links_of(cli, "source.md") == {("link", "Target.md"): "Target.md"}
