"""The ONNX fast path: the same answers as sentence-transformers, without importing torch."""

import json
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, SAMPLE_VAULT, Cli

pytestmark = pytest.mark.slow

QUESTIONS = [
    "How many days can I work remotely?",
    "What is the travel per diem?",
    "How many weeks of parental leave back in 2023?",
    "Which language is the ingestion service written in?",
    "What is the street address of the Hamburg headquarters?",
]


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory, real_embedder_session, onnx_export):
    """The sample vault indexed with sentence-transformers; the verified ONNX export is in the session's user cache."""
    root = tmp_path_factory.mktemp("fast")
    vault, index = root / "vault", root / "index"
    shutil.copytree(SAMPLE_VAULT, vault, ignore=shutil.ignore_patterns(".smartvec"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: real_embedder_session)
        Cli().json("--vault", str(vault), "--index-dir", str(index), "--now", "2026-11-29", "index", "--json")
    return vault, index


def top5(vault, index, question):
    hits = Cli().json(
        "--vault",
        str(vault),
        "--index-dir",
        str(index),
        "--now",
        "2026-11-29",
        "query",
        question,
        "--json",
        "--no-track",
    )
    return [h["chunk_id"] for h in hits]


def test_both_backends_give_the_same_top5_on_the_sample_vault(sample_index, monkeypatch, real_embedder_session):
    vault, index = sample_index
    from smartvec_cli.config import Config
    from smartvec_cli.embed.select import select_embedder

    assert type(select_embedder(Config(), index / "onnx")).__name__ == "OnnxEmbedder"  # auto picks the verified export
    fast = {q: top5(vault, index, q) for q in QUESTIONS}
    monkeypatch.setattr(
        "smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: real_embedder_session
    )
    reference = {q: top5(vault, index, q) for q in QUESTIONS}
    assert fast == reference


def test_a_query_process_never_imports_torch(sample_index):
    vault, index = sample_index
    script = (
        "import json, sys\n"
        "from smartvec_cli.cli.app import app, register_commands\n"
        "register_commands()\n"
        f"app(['--vault', {str(vault)!r}, '--index-dir', {str(index)!r}, 'query', 'per diem', '--json', '--no-track'],"
        " standalone_mode=False)\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)\n"
        "print(json.dumps(heavy), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["path"] == "policies/Travel Expense Policy v3.md"
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []


def test_a_cold_query_loads_the_model_while_it_opens_the_index_and_ends_cleanly_when_that_fails(sample_index, tmp_path):
    """The model starts loading before the core is imported (``Workspace.question_embedder``); a query that fails
    meanwhile still ends with its one line and exit code (onnxruntime aborts a process that exits mid-load)."""
    vault, index = sample_index
    base = ("--vault", str(vault), "--now", "2026-11-29")
    script = (
        "import json, sys, threading\n"
        "from smartvec_cli.cli.main import run\n"
        "started = []\n"
        "real_start = threading.Thread.start\n"
        "threading.Thread.start = lambda self: (started.append(self.name), real_start(self))[1]\n"
        "sys.argv = ['smartvec', *sys.argv[1:]]\n"
        "try:\n    run()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(json.dumps([code, started]), file=sys.stderr)\n"
    )
    for mode, loads in (("smart", True), ("cosine", True), ("lexical", False)):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                script,
                *base,
                "--index-dir",
                str(index),
                "query",
                "per diem",
                "--mode",
                mode,
                "--json",
                "--no-track",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        code, started = json.loads(done.stderr.strip().splitlines()[-1])
        assert code == 0 and json.loads(done.stdout), (mode, done.stderr)
        assert started == (["smartvec-model-load"] if loads else []), mode
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-m", "smartvec_cli", *base, "--index-dir", str(tmp_path / "none"), "query", "per diem"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (done.returncode, done.stderr) == (
            1,
            f"error: no index in {tmp_path / 'none'}; run 'smartvec index' first\n",
        )


def test_help_imports_nothing_heavy():
    script = (
        "import sys\n"
        "from smartvec_cli.cli.app import app, register_commands\n"
        "register_commands()\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('torch', 'numpy', 'hnswlib', 'sentence_transformers', 'onnxruntime') if m in "
        "sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr.strip().splitlines()[-1] == "[]"
