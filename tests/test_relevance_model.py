"""The relevance model: what it reads of each candidate (normalised over the question's candidates), the shape of
a passage's text, the names and phrases a question holds, and its settings."""

import math

import pytest
from conftest import write

from smartvec_cli.memory.lexical import named_share, phrases
from smartvec_cli.memory.relevance import FEATURES, Evidence, RelevanceModel, feature_rows, shipped, text_shape


def column(rows, name):
    return [row[FEATURES.index(name)] for row in rows]


def test_each_candidate_is_measured_against_the_question_s_other_candidates():
    found = [
        Evidence(note=1, cosine=0.60, bm25=8.0, heading="Restart schedule", text="The relay restarts on Mondays."),
        Evidence(note=1, cosine=0.40, bm25=0.0, heading="Intro", text="About the relay."),
        Evidence(note=2, cosine=0.50, bm25=4.0, heading="Other", text="Backups run nightly."),
    ]
    rows = feature_rows("when does the relay restart", found)
    assert column(rows, "cosine_norm") == pytest.approx([1.0, -1.0, 0.0])  # from the median to the best
    assert column(rows, "bm25_norm") == pytest.approx([1.0, 0.0, 0.5])
    assert column(rows, "note_cosine_norm") == pytest.approx([1.0, 1.0, 0.0])  # the note's best passage
    assert column(rows, "in_note_cosine") == pytest.approx([0.0, -2.0, 0.0])  # below its note's best
    assert column(rows, "heading")[0] == pytest.approx(0.5)  # "restart" of relay, restart
    assert column(rows, "dense_rank") == pytest.approx([1.0, 1 / math.sqrt(3), 1 / math.sqrt(2)])
    assert column(rows, "lexical_rank")[1] == 0.0  # no full-text match: no lexical rank


def test_link_lists_urls_images_and_scraps_are_told_from_prose():
    urls = text_shape("- https://example.com/a\n- https://example.org/b\n- [docs](https://docs.example.net)")
    assert urls.link_only == 1.0 and urls.links > 0.8
    prose = text_shape("The relay restarts every Monday at six, after the backups have finished.")
    assert prose.link_only == 0.0 and prose.links == 0.0 and prose.short == 0.0
    assert text_shape("![[diagram.png]] The flow of a request").image == 1.0
    assert text_shape("?").short == 1.0
    assert text_shape("```\nlet x = 5;\n```").code > 0.5


def test_the_shipped_model_reads_this_version_s_features_and_scores_every_candidate():
    model = RelevanceModel.from_json(shipped()["model"])
    rows = feature_rows("relay restart", [Evidence(note=1, cosine=0.6, text="The relay restarts.")])
    assert len(model.logits(rows)) == 1 and math.isfinite(model.logits(rows)[0])
    assert 0.0 < shipped()["weak_below"] < 1.0
    with pytest.raises(ValueError, match="features"):
        RelevanceModel.from_json({**shipped()["model"], "features": ["cosine"]})


def test_a_question_names_a_note_by_most_of_its_title_or_an_alias_not_by_a_common_word():
    assert named_share("How do I restore a file from version history?", ["Version history"]) == 1.0
    assert named_share("how do community plugins update", ["Core plugins", "Community plugin list"]) == pytest.approx(
        2 / 3
    )
    assert named_share("What does npm ci do?", ["npm"], common=frozenset({"npm"})) == 0.0
    assert named_share("Where are the sync logs?", ["Troubleshooting sync"]) == 0.0


def test_a_question_is_read_for_quoted_phrases_first_and_else_for_long_sentences():
    assert phrases('Where is "stay in the remote vault" said? And "x"') == [["stay", "in", "the", "remote", "vault"]]
    assert phrases("Since everything in under the settings tab is settings") == [
        ["since", "everything", "in", "under", "the", "settings", "tab", "is", "settings"]
    ]
    assert phrases("How do I sync settings?") == []


@pytest.mark.parametrize(
    "key, value", [("relevance_margin", -1), ("tie_weight", "high"), ("weak_below", 1.5), ("relevance_floor", -0.1)]
)
def test_a_relevance_setting_out_of_range_is_one_clear_line(vault, cli, fake_embedder, key, value):
    write(vault, "a.md", "# A\n\nThe relay restarts every Monday at six.\n")
    cli.json("index", "--json")
    from smartvec_cli.core.workspace import Workspace

    config = Workspace.resolve().index_dir / "config.toml"
    shown = f'"{value}"' if isinstance(value, str) else value
    config.write_text(config.read_text(encoding="utf-8") + f"\n[scoring]\n{key} = {shown}\n", encoding="utf-8")
    result = cli("query", "relay", "--json")
    assert result.exit_code in (1, 2)
    assert key in result.stderr and "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_retired_hand_set_weights_are_read_and_ignored(vault, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nThe relay restarts every Monday at six.\n")
    cli.json("index", "--json")
    from smartvec_cli.core.workspace import Workspace

    config = Workspace.resolve().index_dir / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + "\n[scoring]\ndense_share = 0.8\nspecific_weight = 0.5\n", encoding="utf-8"
    )
    hits = cli.json("query", "when does the relay restart", "--json", "--no-track", "--explain")
    assert hits and hits[0]["path"] == "a.md" and hits[0]["explain"]["bm25"] > 0
