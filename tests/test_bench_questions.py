"""``bench questions``: the user's own questions about the user's own vault, with the real model."""

import json

import pytest
from conftest import write

from smartvec_cli.bench.questions import LabelledQuestion, answer_rank, says_nothing, score_mode
from smartvec_cli.errors import EXIT_USAGE

DOCS = {
    "commands/unpublish.md": "# unpublish\n\n## Description\n\nRemoves a package version from the registry.\n\n"
    "If you unpublish the entire package, you may not publish any new versions of it until 24 hours have passed.\n",
    "commands/deprecate.md": (
        "# deprecate\n\n## Description\n\nMarks a version as deprecated: everyone who installs it sees a warning.\n"
    ),
    "config.md": '# Config\n\n## `registry`\n\n* Default: "https://registry.npmjs.org/"\n* Type: URL\n\n'
    "The base URL of the npm registry.\n\n"
    "## `fetch-retries`\n\n* Default: 2\n* Type: Number\n\nHow many times to retry a failed fetch from the registry.\n",
}
QUESTIONS = [
    {
        "id": "wait",
        "query": "After unpublishing a whole package, how long before I can publish it again?",
        "expect": ["commands/unpublish.md"],
        "contains": "24 hours",
    },
    {
        "id": "warn",
        "query": "How do I warn users that a version should not be used?",
        "expect": "commands/deprecate.md",
    },
    {
        "id": "registry",
        "query": "What is the default registry URL?",
        "expect": ["config.md"],
        "contains": "registry.npmjs.org",
    },
    {"query": "How long should sourdough bread proof?", "expect": []},
]


@pytest.fixture
def docs(vault, cli, real_embedder, tmp_path):
    for path, text in DOCS.items():
        write(vault, path, text)
    cli.json("index", "--json")
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return questions


@pytest.mark.slow
def test_the_users_questions_are_scored_in_every_mode(docs, cli):
    report = cli.json("bench", "questions", str(docs), "--json")
    smart = report["modes"]["smart"]
    assert (smart["answerable"], smart["unanswerable"], smart["top1"], smart["mrr"]) == (3, 1, 1.0, 1.0)
    assert smart["said_nothing"] == 1.0  # the bread question gets no hit, or a weak one
    assert report["modes"]["cosine"]["said_nothing"] == 0.0  # plain cosine always answers
    assert set(report["modes"]) == {"smart", "cosine", "lexical"}
    by_id = {q["id"]: q for q in report["questions"]}
    assert by_id["registry"]["smart"]["first"]["path"] == "config.md" and by_id["4"]["expect"] == []
    assert (
        "registry.npmjs.org" in by_id["registry"]["smart"]["first"]["text"]
    )  # the default and what it is, one passage

    table = cli("bench", "questions", str(docs), "--modes", "smart")
    assert table.exit_code == 0 and "| first hit answers (n=3) | 100.0% |" in table.stdout
    shown = cli.json("show", "config.md", "--json")["passages"]
    assert all(chunk["access_count"] == 0 for chunk in shown)  # asked untracked: nothing is reinforced


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json\n", "not a JSON object"),
        ('{"expect": []}\n', 'a non-empty string "query"'),
        ('{"query": "q", "expect": 3}\n', '"expect" must list the paths'),
        ('{"query": "q", "expect": ["a.md"], "contains": ""}\n', '"contains" must be a non-empty string'),
        ("\n", "holds no questions"),
        ('{"id": "a", "query": "q", "expect": []}\n{"id": "a", "query": "r", "expect": []}\n', "id 'a' is used twice"),
    ],
)
def test_a_bad_questions_file_is_one_line_and_exit_2(vault, cli, tmp_path, content, message):
    questions = tmp_path / "q.jsonl"
    questions.write_text(content, encoding="utf-8")
    result = cli("bench", "questions", str(questions))
    assert result.exit_code == EXIT_USAGE and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert cli("bench", "questions", str(tmp_path / "missing.jsonl")).exit_code == EXIT_USAGE
    assert "--modes takes" in cli("bench", "questions", str(questions), "--modes", "smart,fuzzy").stderr


def test_scores_by_hand():
    right = LabelledQuestion("a", "q", ("a.md",), "24 hours")
    none = LabelledQuestion("b", "q", ())
    hits = {
        "a": [{"path": "a.md", "text": "wait a day"}, {"path": "a.md", "text": "Wait 24 HOURS."}],
        "b": [{"path": "x.md", "text": "t", "warnings": []}],
    }
    assert (
        answer_rank(right, hits["a"]) == 2
        and says_nothing([])
        and says_nothing([{"warnings": ["weak match (relevance 0.27)"]}])
    )
    anywhere = LabelledQuestion("c", "q", ("*",), "24 hours")
    pages = LabelledQuestion("d", "q", ("commands/*.md", "[draft] a.md"))
    assert (
        answer_rank(anywhere, hits["a"]) == 2 and answer_rank(pages, [{"path": "commands/npm-ci.md", "text": ""}]) == 1
    )
    assert (
        answer_rank(pages, [{"path": "[draft] a.md", "text": ""}]) == 1
        and answer_rank(pages, [{"path": "d.md", "text": ""}]) is None
    )
    scores = score_mode([right, none], hits, 5)
    assert (
        scores["top1"],
        scores["top3"],
        scores["top5"],
        scores["mrr"],
        scores["note_top1"],
        scores["said_nothing"],
    ) == (0.0, 1.0, 1.0, 0.5, 1.0, 0.0)
