"""Bad values from outside are refused where they come in: one line on stderr naming the value, exit 2.

Through the real command line (CliRunner over the Typer app, a real SQLite index of a temporary vault
built with the fake embedder): weights, times, ``config.toml`` values, ``query --batch`` lines.
"""

import json
import math

import pytest
from conftest import write

from smartvec_cli.errors import EXIT_USAGE

NOTE = "# Roadmap\n\nThe quarterly roadmap puts the search rewrite first and the mobile app second.\n"
QUESTION = "what does the roadmap put first"


@pytest.fixture
def indexed(vault, cli, fake_embedder, tmp_path):
    write(vault, "roadmap.md", NOTE)
    cli.json("index", "--json")
    return tmp_path / "index"


def refused(result, *words: str) -> str:
    """The one line a refused value gives: exit 2, no traceback, no output, naming ``words``."""
    assert result.exit_code == EXIT_USAGE, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def finite_json(text: str):
    """The JSON printed, read by a parser that refuses NaN and Infinity (which are not JSON)."""

    def no_constant(name):
        raise AssertionError(f"{name} in the JSON output")

    return json.loads(text, parse_constant=no_constant)


@pytest.mark.parametrize(
    "weights, named",
    [
        ("semantic=nan,temporal=0.25,confidence=0.25,relational=0.15", "semantic=nan"),
        ("semantic=inf", "semantic=inf"),
        ("temporal=-0.5", "temporal=-0.5"),
        ("nan,0.25,0.25,0.15", "semantic=nan"),
        ("semantic=0,temporal=0,confidence=0,relational=0", "not all be 0"),
        ("semantic=1e308,temporal=1e308", "finite"),
        ("meaning=0.5", "'meaning' is not a signal"),
        ("0.5,0.5", "four numbers"),
    ],
)
def test_bad_weights_are_refused_by_the_command_line(indexed, cli, weights, named):
    refused(cli("query", QUESTION, "--json", "--weights", weights), named)


def test_bad_weights_are_refused_in_the_python_api_and_the_socket_options(indexed):
    """The Python API and the query socket's options go through the same parser as ``--weights``."""
    from smartvec_cli.core.api import QueryRequest
    from smartvec_cli.errors import UsageError

    for bad in (
        {"semantic": math.nan},
        {"relational": math.inf},
        {"temporal": -1},
        {"semantic": "lots"},
        {"semantic": True},
    ):
        with pytest.raises(UsageError, match="must be a finite number"):
            QueryRequest(weights=bad)
        with pytest.raises(UsageError, match="must be a finite number"):
            QueryRequest.from_json({"weights": bad})
    with pytest.raises(UsageError, match="semantic=nan"):
        QueryRequest.from_json({"weights": "semantic=nan"})
    with pytest.raises(UsageError, match="unknown weight"):
        QueryRequest(weights={"semantics": 0.5})


def test_good_weights_give_finite_scores_and_confidences(indexed, cli):
    result = cli("query", QUESTION, "--json", "--weights", "semantic=1,temporal=0,confidence=0,relational=0")
    assert result.exit_code == 0, result.stderr
    hits = finite_json(result.stdout)
    assert hits and all(math.isfinite(h["score"]) and 0 <= h["confidence"] <= 1 for h in hits)


@pytest.mark.parametrize(
    "when, named",
    [
        ("2023-03-05T25:00", "hour must be in 0..23"),
        ("2023-03-05T24:00", "hour must be in 0..23"),
        ("2023-03-05T10:60", "minute must be in 0..59"),
        ("2023-02-30", "day is out of range for month"),
        ("2023-13-01", "month must be in 1..12"),
        ("30 February 2023", "February 2023 has no day 30"),
    ],
)
def test_impossible_times_are_refused_everywhere_a_time_is_given(indexed, cli, monkeypatch, when, named):
    refused(cli("query", QUESTION, "--json", "--as-of", when), repr(when) if "-" in when else named, named)
    if "-" in when:  # --now and SMARTVEC_NOW take ISO times only
        refused(cli("--now", when, "query", QUESTION, "--json"), repr(when), named)
        refused(cli("--now", when, "status", "--json"), named)
        monkeypatch.setenv("SMARTVEC_NOW", when)
        refused(cli("query", QUESTION, "--json"), named)
        monkeypatch.delenv("SMARTVEC_NOW")
    line = refused(cli("query", f"{QUESTION} as of {when}", "--json"), "in the question", named)
    assert "--as-of" in line  # the way out


def test_possible_times_still_work(indexed, cli):
    """The checks refuse only what the calendar lacks: a leap day, 23:59, a number after a date."""
    for args in (("--as-of", "2024-02-29"), ("--as-of", "2023-03-05T23:59"), ()):
        result = cli("query", f"{QUESTION} on 2023-03-05 25 people", "--json", *args)
        assert result.exit_code == 0, result.stderr
        finite_json(result.stdout)
    answer = cli("query", QUESTION, "--json", "--explain", "--as-of", "2023-03-05T09:30")
    assert finite_json(answer.stdout)[0]["explain"]["as_of"]["moment"] == "2023-03-05T09:30:00Z"


@pytest.mark.parametrize(
    "toml, named",
    [
        ('[chunking]\nmax_chars = "lots"\n', "[chunking] max_chars must be an integer, not 'lots'"),
        ("[chunking]\nmax_chars = 0\n", "[chunking] max_chars must be 1 or more, not 0"),
        ('max_note_mb = "big"\n', "max_note_mb must be a number, not 'big'"),
        ("max_note_mb = nan\n", "max_note_mb must be a number, not nan"),
        ("max_passages_per_note = 2.5\n", "max_passages_per_note must be an integer, not 2.5"),
        ('[embedder]\nbatch_size = "32"\n', "[embedder] batch_size must be an integer, not '32'"),
        ("embedder = 3\n", "[embedder] must be a table, not 3"),
        ("[embedder]\nbackend = 7\n", "[embedder] backend must be a string, not 7"),
        ("[scoring]\nweights = { semantic = nan }\n", "[scoring] weights: weight semantic=nan"),
        ("[scoring]\nweights = { semantic = -1 }\n", "[scoring] weights: weight semantic=-1"),
        ("[scoring]\nweights = 0.5\n", "[scoring] weights: weights must map signal names to numbers"),
        ("[scoring]\nrelevance_floor = inf\n", "[scoring] relevance_floor must be a number, not inf"),
        ("[scoring]\nrelevance_spread = -0.1\n", "[scoring] relevance_spread must be 0 or more"),
        ("[scoring.calibration]\nbias = nan\n", "[scoring.calibration] bias must be a number, not nan"),
        ("[scoring.calibration]\nslope = 1\n", "[scoring.calibration] has no key 'slope'"),
        ('[confidence]\nfloor = "low"\n', "[confidence] floor must be a number, not 'low'"),
        ("[confidence]\nfloor = 2\n", "[confidence] floor must be a number from 0 to 1, not 2"),
        ('[confidence]\ninfer_kinds = "no"\n', "[confidence] infer_kinds must be true or false, not 'no'"),
        ('[confidence.source_types]\nchat = "x"\n', "[confidence.source_types] chat must be a number"),
        ("[confidence.half_lives]\nchat = -3\n", "[confidence.half_lives] chat must be 0 or more, not -3"),
        ('[confidence.folders]\n"chat/**" = 3\n', "[confidence.folders] chat/** must be a string, not 3"),
        ("[kinds]\nchat_line_share = 1.5\n", "[kinds] chat_line_share must be a number from 0 to 1, not 1.5"),
        ('[kinds]\ndaily_note_names = "yes"\n', "[kinds] daily_note_names must be true or false, not 'yes'"),
        ("[consolidation]\nneighbours = -1\n", "[consolidation] neighbours must be 0 or more, not -1"),
        (
            '[consolidation]\ninfer_versions = "false"\n',
            "[consolidation] infer_versions must be true or false, not 'false'",
        ),
        ("[consolidation]\nvalue_cosine = 3\n", "[consolidation] value_cosine must be a number from -1 to 1, not 3"),
        (
            '[consolidation]\nripple_penalties = [0.1, "a"]\n',
            "[consolidation] ripple_penalties must be a list of numbers",
        ),
    ],
)
def test_a_malformed_config_value_names_the_file_and_the_key(indexed, cli, toml, named):
    config = indexed / "config.toml"
    config.write_text(toml, encoding="utf-8")
    for args in (("query", QUESTION, "--json"), ("index", "--json"), ("status", "--json")):
        line = refused(cli(*args), named)
        assert line.startswith(f"error: {config}: "), line


def test_a_well_typed_config_is_read(indexed, cli):
    (indexed / "config.toml").write_text(
        "[chunking]\nmax_chars = 300.0\n[consolidation]\nneighbours = 0\ninfer_versions = false\n"
        "[scoring]\nweights = { semantic = 1, temporal = 0 }\n",
        encoding="utf-8",
    )
    from smartvec_cli.config import load_config

    config = load_config(indexed / "config.toml")
    assert config.chunk_max_chars == 300 and config.consolidation.neighbours == 0
    assert config.consolidation.infer_versions is False and config.scoring.weights.semantic == 1.0
    assert cli("index", "--json").exit_code == 0


def batch(cli, tmp_path, content: bytes):
    path = tmp_path / "questions.jsonl"
    path.write_bytes(content)
    return cli("query", "--batch", str(path)), str(path)


@pytest.mark.parametrize(
    "second_line, named",
    [
        ('{"id": 2, "query": "caf\xe9 roadmap"}'.encode("latin-1"), "not UTF-8 (byte 0xe9 at column 24)"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"id": 2, "query": {"a": ' * 5000 + b"1" + b"}" * 5000, "nested too deeply"),
        (b"not json", "not JSON"),
        (b'["roadmap"]', "a JSON list, not an object"),
        (b"null", "a JSON null, not an object"),
        (b'{"id": 2}', '"query" must be a non-empty string, not missing'),
        (b'{"id": 2, "query": 7}', '"query" must be a non-empty string, not 7'),
        (b'{"id": 2, "query": "  "}', '"query" must be a non-empty string'),
        (b'{"id": [2], "query": "roadmap"}', '"id" must be a string, a number or null'),
        (b'{"id": NaN, "query": "roadmap"}', "NaN is not a JSON value"),
        (b'{"id": 2, "query": "roadmap", "as_of": 2023}', '"as_of" must be a date or time as a string'),
        (
            b'{"id": 2, "query": "roadmap", "as_of": "2023-03-05T25:00"}',
            "as_of: impossible date or time '2023-03-05T25:00'",
        ),
    ],
)
def test_a_malformed_batch_line_stops_the_batch_naming_its_line(indexed, cli, tmp_path, second_line, named):
    """The file is checked whole first: nothing is answered, and the line number is in the message."""
    first = json.dumps({"id": 1, "query": QUESTION}).encode()
    result, path = batch(cli, tmp_path, first + b"\n\n" + second_line + b"\n")
    refused(result, f"{path}:3: ", named)


def test_an_impossible_date_in_a_batch_question_is_refused(indexed, cli, tmp_path):
    """A date inside the question's words is read when the question is asked, with the same parser."""
    result, path = batch(cli, tmp_path, b'{"id": 2, "query": "roadmap as of 2023-02-30"}\n')
    refused(result, "in the question", "'2023-02-30'", "day is out of range")


def test_a_good_batch_answers_every_line(indexed, cli, tmp_path):
    lines = [
        {"id": 1, "query": QUESTION},
        {"id": "b", "query": QUESTION, "as_of": "2023-03-05T09:00"},
        {"query": QUESTION},
    ]
    result, _ = batch(cli, tmp_path, "\n".join(json.dumps(item) for item in lines).encode() + b"\n")
    assert result.exit_code == 0, result.stderr
    answers = [finite_json(line) for line in result.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, "b", None] and all(a["hits"] for a in answers)


def test_a_batch_on_stdin_is_checked_the_same_way(indexed, cli):
    result = cli(
        "query", "--batch", "-", input='{"id": 1, "query": "roadmap"}\n{"id": 2, "query": "x", "as_of": "2023-02-30"}\n'
    )
    refused(result, "-:2: as_of:", "day is out of range")
