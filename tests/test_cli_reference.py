"""docs/commands.md's reference is what the commands say: written by ``python -m smartvec_cli.cli.reference`` from
the Typer app, checked here (and by ``make lint``) so that a new option or a changed default cannot leave it behind;
the hand-written prose around it is never touched."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

from smartvec_cli.cli.reference import BEGIN, END, PAGE, main, updated


def test_the_reference_in_the_docs_is_up_to_date():
    page = PAGE.read_text(encoding="utf-8")
    assert updated(page) == page, "run 'python -m smartvec_cli.cli.reference' and commit docs/commands.md"


def test_every_command_and_option_is_in_it():
    reference = PAGE.read_text(encoding="utf-8").split(BEGIN, 1)[1].split(END, 1)[0]
    for heading in ("### smartvec\n", "### smartvec index\n", "### smartvec query\n", "### smartvec bench perf\n"):
        assert heading in reference
    assert "    smartvec graph [OPTIONS] [note]\n" in reference
    assert "| `--format <str>` | mermaid, dot or json. [default: mermaid] |" in reference
    assert "--help" not in reference.replace("`-h`, `--help`", "")


def test_check_fails_on_a_stale_page_and_writing_keeps_the_prose(tmp_path, capsys):
    page = tmp_path / "commands.md"
    stale = f"# Commands\n\nProse before.\n\n{BEGIN}\n### smartvec\n\nold text\n{END}\n\nProse after.\n"
    page.write_text(stale, encoding="utf-8")
    assert main(["--check", "--page", str(page)]) == 1
    assert "out of date" in capsys.readouterr().out
    assert page.read_text(encoding="utf-8") == stale  # --check writes nothing
    assert main(["--page", str(page)]) == 0
    written = page.read_text(encoding="utf-8")
    assert written.startswith("# Commands\n\nProse before.\n\n" + BEGIN) and written.endswith(
        END + "\n\nProse after.\n"
    )
    assert "old text" not in written and "### smartvec doctor\n" in written
    assert main(["--check", "--page", str(page)]) == 0


def test_a_page_without_its_markers_is_refused(tmp_path):
    page = tmp_path / "commands.md"
    page.write_text("# Commands\n\nNo markers.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="needs one"):
        main(["--page", str(page)])


def test_it_runs_as_a_module():
    done = subprocess.run(
        [sys.executable, "-m", "smartvec_cli.cli.reference", "--check"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
