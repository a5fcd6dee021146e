"""Usage errors come out as Click prints them (usage line, the error, a suggestion) with exit code 2;
help lists flags without a value type."""

import re
import subprocess
import sys

import pytest
from conftest import REPO, cli_process
from fake_backend import subprocess_env

from smartvec_cli.errors import EXIT_USAGE


def smartvec(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "smartvec_cli", *args],
        cwd=REPO,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
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


@pytest.mark.parametrize("columns", ["80", "200", "50"])
def test_the_console_scripts_help_is_the_apps_though_it_makes_commands_only_when_needed(columns):
    """``command_line`` lists commands from their outlines and makes a Click command only for the one run; the help it
    prints is the one the whole Typer app prints (``typer.main.get_command``, as the ``cli`` fixture runs it), at any
    width; a mistyped command makes them all, for Click's suggestion."""
    import json

    env = {**subprocess_env(), "COLUMNS": columns}
    for words in ((), ("query",), ("bench",), ("bench", "perf"), ("index",)):
        lazy = subprocess.run(
            [sys.executable, "-m", "smartvec_cli", *words, "--help"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        whole = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, typer.main; from smartvec_cli.cli.app import app, register_commands; "
                "register_commands(); typer.main.get_command(app)(sys.argv[1:], prog_name='smartvec')",
                *words,
                "--help",
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (lazy.returncode, lazy.stdout) == (whole.returncode, whole.stdout) == (0, whole.stdout), words
        assert "Commands:" in lazy.stdout or "Options:" in lazy.stdout
    made = (
        "import json, sys\nfrom smartvec_cli.cli import app\ngroup = app.command_line()\n"
        "try:\n    group(sys.argv[1:], prog_name='smartvec')\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(group.commands)), file=sys.stderr)\n"
    )
    top = cli_process("--help")
    assert (top.exit_code, top.heavy) == (0, []) and "Commands:" in top.stdout
    every = [
        "bench",
        "changes",
        "consolidate",
        "cron",
        "doctor",
        "feedback",
        "forget",
        "graph",
        "history",
        "index",
        "mcp",
        "query",
        "refresh",
        "related",
        "show",
        "status",
        "watch",
    ]
    for words, converted in ((("--help",), []), (("query", "--help"), ["query"]), (("qeury",), every)):
        done = subprocess.run(
            [sys.executable, "-c", made, *words], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
        assert json.loads(done.stderr.strip().splitlines()[-1]) == converted, words


def test_progress_lines_for_a_log_every_few_seconds_and_none_for_a_short_run():
    from smartvec_cli.cli.output import ProgressLines
    from smartvec_cli.core.progress import ProgressReport

    now = [0.0]
    lines: list[str] = []
    progress = ProgressLines("embedding", every=5.0, clock=lambda: now[0], write=lines.append)
    for done, at in ((32, 1.0), (64, 4.9), (96, 5.0), (128, 7.0), (160, 10.5)):
        now[0] = at
        progress(ProgressReport(done, 320, embedded=done))
    assert lines == [
        # the pace since the first batch, too short for an estimate
        "embedding: 96/320 passages (30%), 16.0 passages/s",
        "embedding: 160/320 passages (50%), 13.5 passages/s, about 12 s left",
    ]
    now[0] = 11.0
    progress(ProgressReport(320, 320, embedded=320))
    assert lines[-1] == "embedding: 320/320 passages (100%), 28.8 passages/s"

    short: list[str] = []
    quick = ProgressLines("embedding", every=5.0, clock=lambda: 1.0, write=short.append)
    quick(ProgressReport(10, 10, embedded=10))
    assert short == []


def test_no_time_left_is_guessed_from_a_model_load_or_the_first_batches():
    """A first index of 26,000 passages whose model took a minute to load: the minute is not the pace, and a
    handful of batches is too little of the total to extrapolate from."""
    from smartvec_cli.cli.output import ProgressLines
    from smartvec_cli.core.progress import ProgressReport

    now = [0.0]
    lines: list[str] = []
    progress = ProgressLines("embedding", every=5.0, clock=lambda: now[0], write=lines.append)
    progress(ProgressReport(0, 0, step="reading the notes"))
    now[0] = 2.0
    progress(ProgressReport(0, 26000, step="loading the model"))
    now[0] = 6.0
    progress.tick()  # nothing new for a while: the log still hears what the run waits for
    for at, done in ((62.0, 32), (70.0, 320), (80.0, 640)):
        now[0] = at
        progress(ProgressReport(done, 26000, embedded=done))
    assert lines == [
        "embedding: 0/26000 passages (0%), loading the model",
        "embedding: 32/26000 passages (0%)",
        "embedding: 320/26000 passages (1%), 36.0 passages/s",
        "embedding: 640/26000 passages (2%), 33.8 passages/s",
    ]
    now[0] = 100.0
    progress(ProgressReport(1400, 26000, embedded=1400))
    assert lines[-1] == "embedding: 1400/26000 passages (5%), 36.0 passages/s, about 683 s left"


@pytest.mark.parametrize("quiet", [False, True])
def test_index_prints_progress_lines_when_stderr_is_not_a_terminal_unless_quiet(
    vault, cli, fake_embedder, monkeypatch, quiet
):
    from conftest import write

    monkeypatch.setattr("smartvec_cli.cli.output.PROGRESS_EVERY_SECONDS", 0.0)
    for n in range(40):
        write(vault, f"n{n}.md", f"# Note {n}\n\nParagraph number {n} about the roadmap.\n")
    result = cli("index", *(["--quiet"] if quiet else []))
    assert result.exit_code == 0
    progress = [line for line in result.stderr.splitlines() if line.startswith("embedding: ")]
    if quiet:
        assert result.stderr == ""
    else:
        assert progress and progress[-1].startswith("embedding: 40/40 passages (100%)")
        assert result.stdout.startswith("40 notes: 40 new") and "40 notes" not in result.stderr


def test_show_prints_no_empty_version_each_link_once_and_named_validity_columns(vault, cli, fake_embedder):
    from conftest import write

    write(vault, "target.md", "# Target\n\nThe note everyone links to.\n")
    write(vault, "source.md", "# Source\n\nSee [[Target]] first.\n\nThen [[Target]] again, and [[Nowhere]].\n")
    cli.json("index", "--json")
    text = cli("show", "source.md").stdout
    assert "version" not in text.split("┏")[0]  # no 'version None' above the table
    assert text.count("link           Target -> target.md (x2)") == 1
    assert "link           Nowhere -> (unresolved)" in text
    assert "valid from" in text and "valid until" in text and "always" in text and "open" in text


def test_a_rate_is_given_only_once_a_passage_more_is_embedded():
    from smartvec_cli.cli.output import Pace
    from smartvec_cli.core.progress import ProgressReport

    pace = Pace()
    assert pace.rate(ProgressReport(32, 1000, embedded=32), now=1.0) is None  # the first batch: no span yet
    assert pace.rate(ProgressReport(32, 1000, embedded=32), now=6.0) is None  # was "0.0 passages/s"
    assert pace.rate(ProgressReport(96, 1000, embedded=96), now=9.0) == 8.0


@pytest.mark.parametrize("quiet", [False, True])
def test_consolidate_prints_progress_lines_on_stderr_and_the_same_stdout(vault, cli, fake_embedder, monkeypatch, quiet):
    """Progress with the pairs compared and the step the run is on, like ``index``; stdout unchanged."""
    from conftest import write

    for n in range(30):
        write(vault, f"n{n}.md", f"# Note {n}\n\nThe roadmap item {n} ships in {n + 2} days.\n")
    cli.json("index", "--json")
    monkeypatch.setattr("smartvec_cli.cli.output.PROGRESS_EVERY_SECONDS", 0.0)
    result = cli("consolidate", *(["--quiet"] if quiet else []))
    assert result.exit_code == 0
    assert result.stdout.startswith("30 notes consolidated:") and "consolidated" not in result.stderr
    progress = [line for line in result.stderr.splitlines() if line.startswith("consolidating: ")]
    if quiet:
        assert progress == []
    else:
        assert any("finding the neighbours of 30 passages" in line for line in progress)
        assert re.match(r"consolidating: (\d+)/\1 pairs \(100%\)", progress[-1]), progress
