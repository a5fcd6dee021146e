"""The package says it is typed (PEP 561): the wheel ships ``py.typed`` beside the modules, so that a type checker
of a program that imports ``smartvec_cli`` reads the annotations of ``open_vault`` and the values it returns.

The wheel is built from this checkout as pip builds it (setuptools from the environment, nothing downloaded) and
unpacked into a bare virtual environment, where mypy finds it as it finds any installed package."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

from conftest import REPO

CALLER = (
    "import smartvec_cli\n\n"
    "with smartvec_cli.open_vault('.') as vault:\n"
    "    report = vault.doctor()\n"
    "    problems: str = report.problems\n"
)
WRONG = 'Incompatible types in assignment (expression has type "int", variable has type "str")'


def type_check(python: Path, folder: Path) -> str:
    caller = folder / "caller.py"
    caller.write_text(CALLER, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--python-executable", str(python), str(caller)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )
    return checked.stdout


def test_the_wheel_ships_py_typed_and_a_caller_is_checked_against_it(tmp_path):
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = tmp_path.glob("smartvec-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"smartvec_cli/py.typed", "smartvec_cli/core/api.py", "smartvec_cli/memory/relevance.json"} <= names

    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    site = Path(sysconfig.get_path("purelib", vars={"base": str(env), "platbase": str(env)}))
    zipfile.ZipFile(wheel).extractall(site)
    assert WRONG in type_check(python, tmp_path)  # the returned value's type is known, so its misuse is caught

    (site / "smartvec_cli" / "py.typed").unlink()  # without the marker mypy refuses to read the package at all
    assert "module is installed, but missing library stubs or py.typed marker" in type_check(python, tmp_path)
