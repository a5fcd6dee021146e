from smartvec_cli.vault.chunk import chunk_note
from smartvec_cli.vault.parse import parse_note

NOTE = """---
title: Remote Work Policy
tags: [policy, hr]
depends_on: ["[[Company Handbook]]"]
supersedes: "[[Remote Work Policy v1]]"
valid_from: 2022-09-01
---
# Remote Work Policy

Employees may work remotely on up to 3 days per week. #policy/hr ^remote-days

See [[Office Rules]], [[Office Rules|the rules]], [[Handbook#Leave]], [[Handbook#^leave-block]] and ![[diagram.png]].

```python
# not a heading and #not-a-tag
x = "[[not a link]]"
```

Inline `#code-tag` is not a tag either.
"""


def test_frontmatter_title_tags_and_dates():
    note = parse_note(NOTE, "policies/remote.md")
    assert note.title == "Remote Work Policy"
    assert note.metadata["valid_from"] == "2022-09-01"
    assert note.tags == ["policy", "hr", "policy/hr"]
    assert note.frontmatter_error is None


def test_every_wikilink_form_and_frontmatter_relations():
    note = parse_note(NOTE, "policies/remote.md")
    links = {(link.kind, link.target, link.heading, link.block, link.alias) for link in note.links}
    assert ("link", "Office Rules", None, None, None) in links
    assert ("link", "Office Rules", None, None, "the rules") in links
    assert ("link", "Handbook", "Leave", None, None) in links
    assert ("link", "Handbook", None, "leave-block", None) in links
    assert ("embed", "diagram.png", None, None, None) in links
    assert ("depends_on", "Company Handbook", None, None, None) in links
    assert ("supersedes", "Remote Work Policy v1", None, None, None) in links
    assert not any(link.target == "not a link" for link in note.links)


def test_block_ids_key_passages_and_are_not_embedded():
    note = parse_note(NOTE, "policies/remote.md")
    first = note.chunks[0]
    assert first.key == "remote-days"
    assert "^remote-days" not in first.text and "^remote-days" not in first.embed_text
    assert first.embed_text.startswith("Remote Work Policy\n\n")


def test_wikilinks_read_as_words_when_embedded():
    note = parse_note(NOTE, "policies/remote.md")
    links_chunk = next(c for c in note.chunks if "Office Rules" in c.text)
    assert "the rules" in links_chunk.embed_text and "[[" not in links_chunk.embed_text


def test_code_fences_stay_whole():
    note = parse_note(NOTE, "policies/remote.md")
    code = next(c for c in note.chunks if "```python" in c.text)
    assert code.text.count("```") == 2


def test_broken_yaml_is_reported_and_the_body_kept():
    note = parse_note("---\ntitle: [unclosed\n---\n# Hello\n\nBody text that matters a great deal here.\n", "x.md")
    assert note.frontmatter_error and "invalid frontmatter" in note.frontmatter_error
    assert note.metadata == {}
    assert any("Body text" in c.text for c in note.chunks)


def test_frontmatter_only_and_empty_notes_have_no_passages():
    assert parse_note("---\ntitle: Only metadata\n---\n", "a.md").chunks == []
    assert parse_note("", "b.md").chunks == []
    assert parse_note("   \n\n", "c.md").chunks == []


def test_aclarai_ids_comments_and_anchors():
    text = (
        "# Meeting\n\n<!-- aclarai:title=Planning -->\n\n"
        "Alice: We ship on Friday. <!-- aclarai:id=blk_ship ver=2 -->\n^blk_ship\n\n"
        "Bob: Agreed, Friday it is for the release. <!-- aclarai:id=blk_agree ver=1 -->\n^blk_agree\n"
    )
    note = parse_note(text, "conversations/m.md")
    assert [c.key for c in note.chunks] == ["blk_ship", "blk_agree"]
    assert all("aclarai" not in c.embed_text for c in note.chunks)
    assert note.aclarai_id is None  # utterance ids are block ids, not the note's


def test_crlf_bom_and_nul_are_normalised():
    note = parse_note("\ufeff# T\r\n\r\nSome words\x00 here that are long enough to stand.\r\n", "t.md")
    assert note.title == "T"
    assert note.chunks[0].text == "Some words here that are long enough to stand."


def test_keys_stay_stable_when_another_section_changes():
    body = (
        "# A\n\nFirst paragraph about apples and more apples.\n\n## B\n\nSecond about bananas and more bananas.\n"
        "\nThird about cherries and more cherries.\n"
    )
    before = chunk_note("T", body)
    after = chunk_note("T", body.replace("apples and more", "apples, pears and more"))
    assert [c.key for c in before] == [c.key for c in after]
    changed = [a.key for a, b in zip(before, after, strict=False) if a.hash != b.hash]
    assert changed == ["a"]


def test_long_paragraphs_split_within_the_limit_and_lose_nothing():
    sentence = "The quick brown fox jumps over the lazy dog near the river bank. "
    body = "# Long\n\n" + sentence * 60
    chunks = chunk_note("Long", body, max_chars=400)
    assert len(chunks) > 1
    assert all(len(c.text) <= 400 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == (sentence * 60).split()
    assert len({c.key for c in chunks}) == len(chunks)


def test_a_lead_in_line_joins_the_list_it_introduces():
    chunks = chunk_note("T", "# Rules\n\nThe rules:\n\n- one rule here\n- another rule here\n")
    assert len(chunks) == 1 and chunks[0].text.startswith("The rules:")


def test_a_short_list_of_labels_joins_the_paragraph_it_describes():
    """A reference page's setting: its "Default"/"Type" list says nothing without the sentence after it. A
    list that states things (its items are sentences, or many words) stays a passage of its own."""
    body = (
        '## `registry`\n\n* Default: "https://registry.npmjs.org/"\n* Type: URL\n\n'
        "The base URL of the npm registry.\n\n"
        "## Steps\n\n- Open the portal and sign in with your badge.\n- Choose the room you want to book.\n\n"
        "Bookings are confirmed by email within one hour.\n"
    )
    registry, *steps = chunk_note("Config", body)
    assert registry.heading == "`registry`" and registry.text.endswith("The base URL of the npm registry.")
    assert "registry.npmjs.org" in registry.text and "registry.npmjs.org" in registry.embed_text
    assert [c.text.split("\n")[0] for c in steps] == [
        "- Open the portal and sign in with your badge.",
        "Bookings are confirmed by email within one hour.",
    ]


# -- found by the property tests (tests/test_properties.py) and hostile input -------------------


def test_a_closing_hash_needs_a_space_before_it():
    chunks = chunk_note("T", "## Learning C#\n\nNotes about the C# language and its runtime here.\n")
    assert chunks[0].heading == "Learning C#"
    assert parse_note("# F# ##\n\nbody text with enough words\n", "x.md").title == "F#"


def test_aclarai_comments_never_reach_a_passage_even_in_code_or_headings():
    body = (
        "# Title <!-- aclarai:id=concept_t -->\n\n```\ncode line\n<!-- aclarai:id=blk_1 ver=2 -->\n```\n\n"
        "Text <!-<!-- aclarai:x -->- aclarai:y --> end.\n"
    )
    note = parse_note(body, "x.md")
    assert note.title == "Title"
    for chunk in note.chunks:
        assert "aclarai" not in chunk.text and "aclarai" not in chunk.embed_text, chunk


def test_a_long_code_block_keeps_its_lines_when_split():
    code = "\n".join(f"    value_{i} = compute({i})" for i in range(60))
    chunks = chunk_note("T", f"```python\n{code}\n```\n", max_chars=300)
    assert len(chunks) > 1
    assert all(len(c.text) <= 300 for c in chunks)
    assert "\n" in chunks[1].text and "value_59 = compute(59)" in chunks[-1].text.split("\n")[-2]


def test_self_referring_or_exploding_yaml_is_reported_not_followed():
    import time

    laughs = (
        "---\na: &a [x,x,x,x,x,x,x,x,x,x]\n"
        + "".join(f"{b}: &{b} [{', '.join(['*' + a] * 10)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=False))
        + "---\n# Laughs\n\nThe body is still indexed without its metadata.\n"
    )
    for text in ("---\na: &x [*x]\n---\nbody text here\n", "---\na: &x {b: *x}\n---\nbody text\n", laughs):
        started = time.monotonic()
        note = parse_note(text, "x.md")
        assert time.monotonic() - started < 2
        assert note.metadata == {} and "refers to itself" in note.frontmatter_error and note.chunks
