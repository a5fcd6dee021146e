"""The reports' ``--json`` is a contract with scripts: on a copy of ``sample_vault`` at a fixed ``--now``, what
``index``, ``consolidate``, ``status``, ``show``, ``history``, ``related``, ``graph``, ``doctor`` (and ``doctor
--repair``), ``changes``, ``forget``, ``feedback`` and ``refresh`` print is compared byte for byte with the files in
``tests/snapshots/``.

A refactoring of the code behind a command must leave these files as they are. Only what differs from run to
run is masked before comparing: the temporary folder's path and the seconds a run took. A change that is meant
to change the output rewrites the files with ``SMARTVEC_UPDATE_SNAPSHOTS=1`` and shows the new bytes in its
diff.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_VAULT, Cli, FakeEmbedder
from fake_backend import use_fake_backend

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
NOW = "2026-11-01T12:00:00Z"
SECONDS = re.compile(r'"seconds": [0-9.e+-]+')

REPORTS = {
    "status": ("status",),
    "show": ("show", "policies/Remote Work Policy v3.md"),
    "history": ("history", "policies/Remote Work Policy v3.md"),
    "related": ("related", "policies/Travel Expense Policy v3.md"),
    "graph": ("graph", "--format", "json"),  # graph's JSON is its --format
    "graph-note": ("graph", "projects/Project Lighthouse.md", "--depth", "2", "--format", "json"),
    "doctor": ("doctor",),
    "doctor-repair": ("doctor", "--repair"),
    "changes": ("changes", "--since", "2020-01-01"),
    "forget": ("forget", "chat/2026-10-20 sales-travel.md", "--yes"),
    "feedback": ("feedback", "pol-remote-work-v3#office-days", "--down"),
    "refresh": ("refresh", "--nightly"),
}
"""Each snapshot's name and the command (``--json`` added, but to ``graph``) that prints it, in the order they run:
``doctor --repair`` after the vector file's sidecar was deleted, ``forget`` after its note was deleted and indexed
again, then ``feedback`` (it changes a passage's trust) and ``refresh --nightly``. The ``index`` and
``consolidate`` that build the index are snapshotted too."""


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> dict[str, str]:
    """Each report's stdout, masked, from one index of the sample vault made with the fake embedder."""
    root = tmp_path_factory.mktemp("snapshots")
    vault, index_dir = root / "vault", root / "index"
    shutil.copytree(SAMPLE_VAULT, vault, ignore=shutil.ignore_patterns(".smartvec"))
    vault.chmod(0o755)
    use_fake_backend(index_dir)
    embedder = FakeEmbedder()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: embedder)
        for name in ("SMARTVEC_STORE", "SMARTVEC_VAULT", "SMARTVEC_INDEX", "SMARTVEC_NOW"):
            patch.delenv(name, raising=False)
        cli = Cli()
        base = ("--vault", str(vault), "--index-dir", str(index_dir), "--now", NOW)
        out: dict[str, str] = {}
        for command in ("index", "consolidate"):
            result = cli(*base, command, "--json")
            assert result.exit_code == 0, result.stderr
            out[command] = SECONDS.sub('"seconds": 0', result.stdout)
        for name, args in REPORTS.items():
            if name == "doctor-repair":  # the vector file's sidecar lost: rebuilt from the stored vectors
                (index_dir / "vectors.json").unlink()
            if name == "forget":
                (vault / args[1]).unlink()
                assert cli(*base, "index", "--json").exit_code == 0
            result = cli(*base, *args, *(() if name.startswith("graph") else ("--json",)))
            assert result.exit_code == 0, (name, result.stdout, result.stderr)
            out[name] = SECONDS.sub('"seconds": 0', result.stdout.replace(str(root), "<TMP>"))
    return out


@pytest.mark.parametrize("name", ["index", "consolidate", *REPORTS])
def test_json_output_is_unchanged(printed, name):
    path = SNAPSHOTS / f"{name}.json"
    if os.environ.get("SMARTVEC_UPDATE_SNAPSHOTS"):
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(printed[name], encoding="utf-8")
    assert printed[name] == path.read_text(encoding="utf-8"), f"{name} --json changed; see {path}"


def test_the_snapshots_hold_the_reports():
    """The masked files are the reports, not empty shells: each names what its command reports on."""
    expected = {
        "status": '"notes"',
        "show": "Remote Work Policy v3.md",
        "history": "Remote Work Policy v3.md",
        "related": "Travel Expense Policy",
        "graph": '"edges"',
        "graph-note": "Project Lighthouse.md",
        "doctor": '"checks"',
        "doctor-repair": "rebuilt from 219 stored vectors",
        "changes": '"added"',
        "forget": "chat/2026-10-20 sales-travel.md",
        "index": '"notes_to_consolidate"',
        "consolidate": '"transitions"',
        "feedback": '"trust_after"',
        "refresh": '"stages"',
    }
    for name, needle in expected.items():
        assert needle in (SNAPSHOTS / f"{name}.json").read_text(encoding="utf-8"), name
