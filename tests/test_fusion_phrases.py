"""Verbatim phrases (real model): a sentence pasted from a note, or a phrase quoted in a question, finds
the passage that holds it first in smart mode, however many notes say nearly the same thing."""

import json
import re

import pytest
from conftest import write

pytestmark = pytest.mark.slow

# A small documentation vault in the shape of a plugin's docs: several notes about settings, syncing and
# themes that share most of their words, so meaning alone does not tell their sentences apart.
NOTES = {
    "Settings/Editor settings.md": """# Editor settings

Since everything in under the editor tab is an editor setting, look there first when typing feels wrong.
Spell checking follows the language of the system unless you pick another one in the list.

## Line numbers

Line numbers appear in the gutter once you switch them on, and they stay hidden in reading view.
A readable line length keeps paragraphs narrow on wide screens so the eye does not travel too far.
""",
    "Settings/Appearance settings.md": """# Appearance settings

The appearance tab holds the theme, the accent colour and the base font size of the interface.
Switching between the light and the dark base theme takes effect at once, without a restart.

## Fonts

Interface fonts and text fonts are chosen separately, and a monospace font is used for code.
Zooming with the keyboard changes the size of everything, not only the text of your notes.
""",
    "Sync/Sync settings.md": """# Sync settings

Selective sync lets you leave out images, audio and video from the files that travel between devices.
Settings are synced too when you enable it, so a new device starts with your hotkeys and your theme.

## Version history

Every synced file keeps its earlier versions for a year, and you can restore any one of them.
Deleted files stay in the remote vault until the history of their last version runs out.
""",
    "Sync/Troubleshooting sync.md": """# Troubleshooting sync

When two devices edit the same note while offline, the later edit wins and the other is kept as a copy.
A file that refuses to sync is often larger than the limit of your plan, which the log names.

## Logs

The sync log lists every upload and download with its time, so a missing change can be traced.
Restarting the app reconnects a device that shows an endless spinner next to the vault name.
""",
    "Plugins/Community plugins.md": """# Community plugins

Community plugins run with the same permissions as the app, so install only those you trust.
Restricted mode turns every community plugin off at once without uninstalling any of them.

## Updates

Plugin updates are checked when the app starts, and each can be installed from the plugin list.
A plugin that breaks after an update can be rolled back by reinstalling its previous release.
""",
    "Plugins/Core plugins.md": """# Core plugins

Core plugins ship with the app and can be switched on or off from their own settings tab.
The daily notes plugin creates a note named after today's date in the folder you choose.

## Templates

The templates plugin inserts the contents of a note from your template folder at the cursor.
Dates and times inside a template are written in the format you set for the templates plugin.
""",
}
MIN_WORDS = 6


def sentences() -> list[tuple[str, str]]:
    """(path, sentence) for every sentence of the fixture notes that has at least ``MIN_WORDS`` words."""
    found = []
    for path, text in NOTES.items():
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
                if len(re.findall(r"\w+", sentence)) >= MIN_WORDS:
                    found.append((path, sentence))
    return found


def ask_all(cli, queries: list[str], *options: str) -> list[list[dict]]:
    lines = "".join(json.dumps({"id": str(n), "query": q}) + "\n" for n, q in enumerate(queries))
    result = cli("query", "--batch", "-", "--no-track", *options, input=lines)
    assert result.exit_code == 0, result.stderr
    answers = {item["id"]: item["hits"] for item in map(json.loads, result.stdout.splitlines())}
    return [answers[str(n)] for n in range(len(queries))]


@pytest.fixture
def docs_vault(vault, cli, real_embedder):
    for path, text in NOTES.items():
        write(vault, path, text)
    cli.json("index", "--json")
    cli.json("consolidate", "--json")
    return vault


def test_every_pasted_sentence_of_a_note_comes_first_in_smart_mode(docs_vault, cli):
    pasted = sentences()
    assert len(pasted) == 24
    answers = ask_all(cli, [sentence for _, sentence in pasted], "--top-k", "3")
    wrong = [
        (sentence, hits[0]["path"] if hits else None)
        for (path, sentence), hits in zip(pasted, answers, strict=False)
        if not hits or hits[0]["path"] != path or sentence not in hits[0]["text"]
    ]
    assert wrong == []
    # The model alone does not get there: the check measures something.
    cosine = ask_all(cli, [sentence for _, sentence in pasted], "--top-k", "1", "--mode", "cosine")
    assert any(not hits or sentence not in hits[0]["text"] for (_, sentence), hits in zip(pasted, cosine, strict=False))


def test_a_pasted_sentence_comes_first_with_other_case_and_punctuation(docs_vault, cli):
    sentence = (
        "Since everything in under the editor tab is an editor setting, look there first when typing feels wrong."
    )
    shouted = re.sub(r"[,.]", "", sentence).upper()
    hits = cli.json("query", shouted, "--json", "--no-track", "--explain")
    assert hits[0]["path"] == "Settings/Editor settings.md" and sentence in hits[0]["text"]
    assert hits[0]["explain"]["phrase"] == 1.0


def test_a_quoted_phrase_in_a_question_finds_the_passage_that_holds_it(docs_vault, cli):
    hits = cli.json("query", 'where does it say "stay in the remote vault"?', "--json", "--no-track", "--explain")
    assert hits[0]["path"] == "Sync/Sync settings.md" and "stay in the remote vault" in hits[0]["text"]
    assert hits[0]["explain"]["phrase"] == 1.0
    assert all(h["explain"]["phrase"] == 0.0 for h in hits[1:])


def test_a_question_that_quotes_nothing_verbatim_is_ranked_by_meaning(docs_vault, cli):
    """No phrase of the question is in the vault: the phrase signal is 0 everywhere and the answer is the
    one meaning finds (a question of six words or more is looked up as a phrase, and simply not found)."""
    hits = cli.json(
        "query", "how can I get back an older version of a synced file", "--json", "--no-track", "--explain"
    )
    assert [h["explain"]["phrase"] for h in hits] == [0.0] * len(hits)
    assert hits[0]["path"] == "Sync/Sync settings.md"
