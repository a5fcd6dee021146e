"""Usage errors come out as Click prints them (usage line, the error, a suggestion) with exit code 2;
help lists flags without a value type."""

import subprocess
import sys

import pytest

from smartvec_cli.errors import EXIT_USAGE

from conftest import REPO
from fake_backend import subprocess_env


def smartvec(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "smartvec_cli", *args], cwd=REPO, env=subprocess_env(), capture_output=True, text=True, timeout=60
    )


def test_a_mistyped_command_prints_clicks_usage_and_suggestion_and_exits_2():
    done = smartvec("qeury")
    assert done.returncode == EXIT_USAGE
    assert done.stderr.startswith("Usage: smartvec [OPTIONS] COMMAND [ARGS]...")
    assert "No such command 'qeury'. Did you mean 'query'?" in done.stderr
    assert "error: UsageError" not in done.stderr and "SMARTVEC_DEBUG" not in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    "args, expected",
    [
        (("query", "x", "--top-k", "0"), "Invalid value for '--top-k'"),
        (("query", "x", "--topk", "3"), "No such option: --topk (Possible options: --top-k)"),
        (("index", "--wait", "soon"), "Invalid value for '--wait'"),
        (("bench", "acuracy"), "Did you mean 'accuracy'?"),
    ],
)
def test_bad_options_are_usage_errors(vault, cli, args, expected):
    result = cli(*args)
    assert result.exit_code == EXIT_USAGE, result.stderr
    assert result.stderr.startswith("Usage: smartvec ")
    assert expected in " ".join(result.stderr.split())  # the error box may wrap a long line
    assert "SMARTVEC_DEBUG" not in result.stderr


def test_smartvecs_own_usage_errors_keep_their_one_line(vault, cli):
    result = cli("query")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "error: give either a question or --batch FILE\n"


def test_help_shows_flags_without_a_value_type(cli):
    top = cli("--help").stdout
    assert "--version" in top and "<bool>" not in top
    assert "--vault" in top and "DIR" in top and "ISO-DATE" in top
    for command in ("index", "query", "status", "doctor", ("bench", "perf")):
        words = command if isinstance(command, tuple) else (command,)
        text = cli(*words, "--help").stdout
        assert "--json" in text or "--top-k" in text
        assert "<bool>" not in text, words
