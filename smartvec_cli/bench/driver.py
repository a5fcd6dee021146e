"""Every call the benchmarks make to smartvec, in one small surface.

The benchmark measures smartvec as a user runs it, so it drives the real command line
(``CliCall``: a subprocess, or an in-process runner that ``cli/bench.py`` supplies) and
reads its JSON. Keeping every call here lets the driver move to the Python API without
touching what the benchmark measures. Nothing here imports Typer.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Protocol, Sequence

from ..errors import SmartvecError
from .generator import BenchQuestion


class CliCall(Protocol):
    """Runs ``smartvec ARGS`` with ``stdin`` and returns its stdout; raises SmartvecError on failure."""

    def __call__(self, args: Sequence[str], stdin: str | None = None) -> str: ...


class SubprocessCli:
    """``python -m smartvec_cli`` in a fresh process, importing this very copy of the package."""

    def __init__(self, python: str = sys.executable):
        self.python = python
        self.root = str(Path(__file__).resolve().parents[2])

    def __call__(self, args: Sequence[str], stdin: str | None = None) -> str:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [self.root, os.environ.get("PYTHONPATH")])))
        proc = subprocess.run(
            [self.python, "-m", "smartvec_cli", *args], input=stdin, capture_output=True, text=True, env=env, cwd=self.root
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or [""])[-1]
            raise SmartvecError(f"smartvec {' '.join(args[:8])} exited with {proc.returncode}: {last}")
        return proc.stdout


class Driver:
    """One vault and its index folder, driven the way a user (or a nightly cron) would."""

    def __init__(self, cli: CliCall, vault: Path, index_dir: Path):
        self.cli, self.vault, self.index_dir = cli, vault, index_dir

    def _args(self, now: dt.date | None = None) -> list[str]:
        clock = ["--now", str(now)] if now is not None else []
        return ["--vault", str(self.vault), "--index-dir", str(self.index_dir), *clock]

    def index(self, when: dt.date) -> dict:
        """``index --json`` with the clock at ``when``; a note that failed to index is an error here."""
        summary = json.loads(self.cli([*self._args(when), "index", "--json"]))
        if summary["errors"]:
            raise SmartvecError(f"index on {when} reported errors: {summary['errors'][:3]}")
        return summary

    def consolidate(self, when: dt.date) -> dict:
        return json.loads(self.cli([*self._args(when), "consolidate", "--json"]))

    def status(self, now: dt.date) -> dict:
        return json.loads(self.cli([*self._args(now), "status", "--json"]))

    def ask(self, questions: Sequence[BenchQuestion], mode: str, now: dt.date, top_k: int) -> dict[str, list[dict]]:
        """Every question in one ``query --batch`` (one model load), untracked so nothing is reinforced; hits by id."""
        lines = "".join(q.batch_line() + "\n" for q in questions)
        args = [*self._args(now), "query", "--batch", "-", "--mode", mode, "--top-k", str(top_k), "--no-track", "--explain"]
        answers = {}
        for line in self.cli(args, stdin=lines).splitlines():
            if line.strip():
                item = json.loads(line)
                answers[item["id"]] = item["hits"]
        missing = [q.id for q in questions if q.id not in answers]
        if missing:
            raise SmartvecError(f"query --batch returned no answer for {len(missing)} questions, e.g. {missing[0]}")
        return answers

    def contradiction_edges(self) -> set[frozenset[str]]:
        """Pairs of notes (by vault path) joined by a ``contradicts`` edge, from ``graph --format json``."""
        graph = json.loads(self.cli([*self._args(), "graph", "--format", "json"]))
        paths = {node["id"]: node["path"] for node in graph["nodes"]}
        return {
            frozenset((paths[edge["source"]], paths[edge["target"]]))
            for edge in graph["edges"]
            if edge["type"] == "contradicts" and edge["source"] in paths and edge["target"] in paths
        }
