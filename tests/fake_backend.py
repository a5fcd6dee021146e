"""The tests' fake embedder as a configurable backend, for the CLI subprocesses some tests start.

An in-process test patches ``select_embedder`` (the ``fake_embedder`` fixture); a subprocess
cannot be patched, so its index folder gets a ``config.toml`` with
``[embedder] backend = "fake_backend:make"`` and ``tests/`` on its PYTHONPATH. Same vectors and
fingerprint as the fixture, so both can work on one index.
"""

import os
from pathlib import Path

from conftest import REPO, FakeEmbedder


def make() -> FakeEmbedder:
    return FakeEmbedder()


BACKEND = "fake_backend:make"


def use_fake_backend(index_dir: Path) -> None:
    """Make every smartvec process on this index folder embed with the fake."""
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / "config.toml").write_text(f'[embedder]\nbackend = "{BACKEND}"\n', encoding="utf-8")


def subprocess_env() -> dict[str, str]:
    """The environment for ``[sys.executable, "-m", "smartvec_cli", ...]``: this worktree's code, and this folder."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]))


class SlowLoadingEmbedder(FakeEmbedder):
    """The fake whose "model" takes until the file named by ``SMARTVEC_TEST_MODEL_RELEASE`` exists to load, on its
    first embed: a test decides when loading ends, and sees what a server answers before (no clock involved)."""

    def __init__(self):
        super().__init__()
        self.release = Path(os.environ["SMARTVEC_TEST_MODEL_RELEASE"])
        self.loaded = False

    def embed(self, texts):
        import time

        while not self.loaded and not self.release.exists():
            time.sleep(0.05)
        if not self.loaded:
            self.loaded = True
            self.release.with_suffix(".loaded").write_text("loaded", encoding="utf-8")
        return super().embed(texts)


def make_slow() -> SlowLoadingEmbedder:
    return SlowLoadingEmbedder()
