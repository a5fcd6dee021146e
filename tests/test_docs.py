"""The documentation says what the program does: every command and option appears in ``docs/``, and the
README's tour and the Python API's example run as shown.

A command is documented by a section whose heading names it (``## `query ...``, ``### ... `bench
questions` ``); each of its options must appear in one of its sections. A new command or option without
documentation fails here, which is how sqlite-utils keeps its CLI reference honest.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import typer.main
from conftest import write

from smartvec_cli import open_vault
from smartvec_cli.cli.app import app, register_commands

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
HEADING = re.compile(r"^(#{1,6}) (.*)$")


def sections() -> list[tuple[str, str]]:
    """(heading, body up to the next heading of the same or a higher level) for every heading in docs/."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        in_fence = False
        headings = []
        for number, line in enumerate(lines):
            if line.startswith("```"):
                in_fence = not in_fence
            match = None if in_fence else HEADING.match(line)
            if match:
                headings.append((number, len(match.group(1)), match.group(2)))
        for position, (number, level, title) in enumerate(headings):
            end = next((n for n, lvl, _ in headings[position + 1 :] if lvl <= level), len(lines))
            found.append((title, "\n".join(lines[number:end])))
    return found


def commands() -> dict:
    """Every command by its full name (``query``, ``bench questions``); Typer's own Click, so groups are told by
    their ``commands``."""
    register_commands()
    root = typer.main.get_command(app)
    named: dict = {}

    def walk(group, prefix: str) -> None:
        for name, command in group.commands.items():
            full = f"{prefix}{name}"
            if hasattr(command, "commands"):
                walk(command, f"{full} ")
            else:
                named[full] = command

    walk(root, "")
    return named


def long_options(command) -> list[str]:
    return sorted(
        {
            opt
            for param in command.params
            if param.param_type_name == "option"
            for opt in param.opts + param.secondary_opts
            if opt.startswith("--") and opt != "--help"
        }
    )


def documenting(name: str, all_sections: list[tuple[str, str]]) -> str:
    pattern = re.compile(rf"`(smartvec )?{re.escape(name)}( |`)")
    return "\n".join(body for title, body in all_sections if pattern.search(title))


ALL_COMMANDS = commands()


@pytest.mark.parametrize("name", sorted(ALL_COMMANDS))
def test_every_command_and_option_is_documented(name):
    text = documenting(name, sections())
    assert text, f"no section of docs/ has a heading naming `{name}`"
    missing = [opt for opt in long_options(ALL_COMMANDS[name]) if not re.search(rf"{re.escape(opt)}\b", text)]
    assert not missing, f"`{name}`: options not in its docs section: {missing}"


def test_global_options_are_documented():
    register_commands()
    root = typer.main.get_command(app)
    text = documenting("Global options", sections()) or next(
        body for title, body in sections() if title == "Global options"
    )
    missing = [opt for opt in long_options(root) if opt not in text]
    assert not missing, f"global options not documented: {missing}"


def test_the_readme_links_only_to_pages_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]*)?\)", readme)
    assert links, "the README links to its documentation"
    assert [link for link in links if not (ROOT / link).is_file()] == []
    assert len(readme.splitlines()) < 250


def readme_tour() -> list[tuple[str, list[str]]]:
    """The README's ``$ smartvec ...`` examples with the lines they print."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    examples = []
    for block in re.findall(r"```text\n(.*?)```", readme, flags=re.S):
        lines = block.splitlines()
        if lines and lines[0].startswith("$ smartvec "):
            examples.append((lines[0][2:], lines[1:]))
    return examples


@pytest.mark.slow
def test_the_readme_tour_runs_as_shown(tmp_path, monkeypatch, real_embedder, cli):
    """Each question of the tour, asked of a copy of sample_vault, answers with the note the README shows,
    and every line the README prints as a hit header names the same note at the same rank."""
    vault = tmp_path / "vault"
    shutil.copytree(ROOT / "sample_vault", vault, ignore=shutil.ignore_patterns(".smartvec"))
    monkeypatch.setenv("SMARTVEC_VAULT", str(vault))
    monkeypatch.setenv("SMARTVEC_INDEX", str(tmp_path / "index"))
    assert cli("index").exit_code == 0
    assert cli("consolidate").exit_code == 0
    tour = readme_tour()
    assert len(tour) >= 2
    for command, shown in tour:
        words = re.findall(r'"[^"]*"|\S+', command)[1:]
        args = [word.strip('"') for word in words]
        result = cli(*args)
        assert result.exit_code == 0, (command, result.output)
        headers = [line for line in shown if re.match(r"^\d+\. ", line)]
        printed = [line for line in result.stdout.splitlines() if re.match(r"^\d+\. ", line)]
        assert len(printed) == len(headers), (command, result.stdout)
        for header, line in zip(headers, printed, strict=False):
            assert line.split(" › ")[0] == header.split(" › ")[0], (command, line)


def python_api_example() -> str:
    """The first Python block of docs/python-api.md's API section."""
    page = (DOCS / "python-api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page.split("## Python API", 1)[1], flags=re.S)
    assert blocks, "docs/python-api.md has no Python example"
    return blocks[0]


def test_the_python_api_example_runs_as_shown(vault, fake_embedder, monkeypatch, capsys):
    """The example, run against a vault that holds the notes it names (``old/secret.md`` deleted after an index),
    makes every call it shows without an error and prints the hits it loops over."""
    monkeypatch.setenv("SMARTVEC_NOW", "2024-01-01")
    write(vault, "policies/remote.md", "# Remote work\n\nEmployees may work remotely up to three days per week.\n")
    write(vault, "travel.md", "# Travel\n\nThe travel per diem is EUR 45 per day for domestic trips in 2023.\n")
    secret = write(vault, "old/secret.md", "# Secret\n\nThe door code of the shed is 4711.\n")
    with open_vault(vault) as setup:
        setup.index()
    secret.unlink()

    code = python_api_example().replace('"~/notes"', repr(str(vault)))
    exec(compile(code, "docs/python-api.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "policies/remote.md" in printed
    assert "travel.md" in printed
