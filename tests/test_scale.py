"""Scale: a 10,000-note vault indexes, consolidates and answers within a small machine's memory.

Opt-in (about two minutes on 2 cores): ``SMARTVEC_SCALE_NOTES=10000 pytest tests/test_scale.py -s``.
Each command is a real subprocess using the fake embedder (through ``config.toml``), so the
numbers are smartvec's own: SQLite, hnswlib, parsing, ranking. The model adds its own weight
on top (see docs/reliability.md). Peak memory is the child's ``ru_maxrss``.
"""

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import REPO
from fake_backend import subprocess_env, use_fake_backend
from vaultgen import make_vault

NOTES = int(os.environ.get("SMARTVEC_SCALE_NOTES", "0"))
MEMORY_BUDGET_MB = 2048  # per command; the target machine has 24 GB


def measured(argv, env, tmp_path, name):
    """Run a command; (exit code, stdout, peak RSS in MB, seconds)."""
    out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
    started = time.monotonic()
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen(argv, env=env, cwd=REPO, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out.read_text(), usage.ru_maxrss / 1024, time.monotonic() - started, err.read_text()


@pytest.mark.slow
@pytest.mark.skipif(NOTES <= 0, reason="opt-in: set SMARTVEC_SCALE_NOTES=10000")
def test_a_large_vault_fits_in_memory(tmp_path, capsys):
    vault = make_vault(tmp_path / "vault", NOTES, seed=0)
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    env = dict(subprocess_env(), SMARTVEC_VAULT=str(vault), SMARTVEC_INDEX=str(index_dir))
    base = [sys.executable, "-m", "smartvec_cli"]
    steps = [
        ("index", ["index", "--json"]),
        ("query", ["query", "quarterly budget for the kitchen", "--json", "-k", "10"]),
        ("index, nothing changed", ["index", "--json"]),
        ("consolidate", ["consolidate", "--json"]),
        ("query after consolidation", ["query", "remote office lease", "--json", "-k", "10"]),
        ("doctor", ["doctor", "--json"]),
    ]
    rows = []
    for name, args in steps:
        code, stdout, peak_mb, seconds, stderr = measured(base + args, env, tmp_path, name.split()[0])
        assert code == 0, (name, stderr)
        rows.append((name, peak_mb, seconds))
        data = json.loads(stdout)
        if name == "index":
            assert data["notes_new"] == NOTES and data["errors"] == []
            passages = data["passages_embedded"]
        elif name.startswith("query"):
            assert len(data) == 10
        elif name == "doctor":
            assert data["ok"], data
    with capsys.disabled():
        print(f"\n{NOTES} notes, {passages} passages (fake embedder), {sys.platform}, {os.cpu_count()} cores")
        for name, peak_mb, seconds in rows:
            print(f"  {name:<28} peak RSS {peak_mb:7.0f} MB  {seconds:6.1f} s")
    for name, peak_mb, _ in rows:
        assert peak_mb < MEMORY_BUDGET_MB, (name, peak_mb)
