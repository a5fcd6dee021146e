"""Fusion of meaning and full-text: the per-question blend of cosine and BM25, the note names a question
calls a note by, and their settings."""

import pytest
from conftest import write

from smartvec_cli.memory.lexical import blend, named_share, phrases


def test_the_blend_with_the_dense_share_at_one_or_no_full_text_match_is_the_cosine():
    dense = {1: 0.62, 2: 0.40, 3: 0.31}
    assert blend(dense, {2: 7.5}, 1.0) == dense
    assert blend(dense, {}, 0.8) == dense


def test_the_blend_keeps_the_cosine_scale_and_lifts_the_full_text_best():
    """Normalised from the median (0) to the best (1) and mapped back onto the cosines: a candidate best on
    both keeps the best cosine, one at the median of both keeps the median cosine, and the full-text best
    with a median cosine moves up by (1 - alpha) of the cosine span."""
    dense = {1: 0.60, 2: 0.40, 3: 0.40, 4: 0.20, 5: 0.40}
    sparse = {1: 10.0, 4: 5.0}
    fused = blend(dense, sparse, 0.8)
    assert fused[1] == pytest.approx(0.60)
    assert fused[2] == pytest.approx(0.40) and fused[3] == pytest.approx(0.40)
    assert fused[4] == pytest.approx(0.8 * 0.20 + 0.2 * (0.40 + 0.5 * 0.20))
    spread = blend(dense, {5: 10.0}, 0.8)
    assert spread[5] == pytest.approx(0.40 + 0.2 * 0.20) and spread[1] == pytest.approx(0.60 - 0.2 * 0.20)


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
    "key, value",
    [
        ("dense_share", 1.5),
        ("dense_share", -0.1),
        ("answer_dense_share", 2),
        ("title_weight", -1),
        ("phrase_weight", "high"),
    ],
)
def test_a_fusion_setting_out_of_range_is_one_clear_line(vault, cli, fake_embedder, key, value):
    write(vault, "a.md", "# A\n\nThe relay restarts every Monday at six.\n")
    cli.json("index", "--json")
    from smartvec_cli.core.workspace import Workspace

    config = Workspace.resolve().index_dir / "config.toml"
    shown = f'"{value}"' if isinstance(value, str) else value
    config.write_text(config.read_text(encoding="utf-8") + f"\n[scoring]\n{key} = {shown}\n", encoding="utf-8")
    result = cli("query", "relay", "--json")
    assert result.exit_code in (1, 2)
    assert key in result.stderr and "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_blended_query_explains_its_bm25_and_fused_relevance(vault, cli, fake_embedder):
    write(vault, "ops/relay.md", "# Relay\n\nThe ACME relay restarts every Monday at six.\n")
    write(vault, "ops/other.md", "# Other\n\nThe backup job runs nightly and mails a report.\n")
    cli.json("index", "--json")
    from smartvec_cli.core.workspace import Workspace

    config = Workspace.resolve().index_dir / "config.toml"
    config.write_text(config.read_text(encoding="utf-8") + "\n[scoring]\ndense_share = 0.8\n", encoding="utf-8")
    hits = cli.json("query", "when does the relay restart", "--json", "--no-track", "--explain")
    relay = next(h for h in hits if h["path"] == "ops/relay.md")
    assert relay["explain"]["bm25"] > 0 and relay["explain"]["fused"] is not None
    assert all(h["explain"]["bm25"] == 0.0 for h in hits if h["path"] != "ops/relay.md")


def test_one_notes_passages_are_compared_as_sources_are_unless_they_have_their_own_share():
    """``answer_dense_share`` at 1 leaves the choice within a note to ``dense_share``'s blend (what a config with
    only ``dense_share`` always meant); below 1 the passages of one note get their own blend."""
    from smartvec_cli.memory.passage import Passage
    from smartvec_cli.memory.ranking import Candidate, fuse
    from smartvec_cli.memory.scoring import ScoringSettings

    def candidate(row: int, cosine: float, bm25: float) -> Candidate:
        return Candidate(Passage(row, 1, f"c{row}", "n", "a.md", "A", "A", "text", "ACTIVE", 1), cosine, bm25=bm25)

    candidates = [candidate(1, 0.60, 2.0), candidate(2, 0.40, 10.0), candidate(3, 0.30, 0.0), candidate(4, 0.20, 0.0)]
    by_sources = fuse(candidates, ScoringSettings(dense_share=0.8))
    assert all(c.fused_answer is None and c.answer_meaning == c.meaning != c.cosine for c in by_sources[:2])
    own = fuse(candidates, ScoringSettings(dense_share=0.8, answer_dense_share=0.0))
    assert own[1].answer_meaning > own[0].answer_meaning and own[1].meaning < own[0].meaning
