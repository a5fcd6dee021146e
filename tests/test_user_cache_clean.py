"""smartvec keeps everything it writes in the index folder and in its own folder of the user cache.

onnxruntime, left to itself, makes ``Microsoft/DeveloperTools/.onnxruntime/deviceid`` and an event
database in the user's cache each time a process loads a model (``embed.onnx.import_onnxruntime``).
"""

import shutil

import pytest
from conftest import cli_process, write

pytestmark = pytest.mark.slow


def test_index_and_query_write_nothing_outside_smartvecs_cache_folder(vault, tmp_path, onnx_export):
    home = tmp_path / "home"
    cache = home / ".cache"
    ours = cache / "smartvec"
    shutil.copytree(onnx_export, ours / "onnx" / onnx_export.name)
    write(vault, "remote.md", "# Remote work\n\nStaff may work remotely three days a week.\n")
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(cache)}

    indexed = cli_process("index", env=env)
    asked = cli_process("query", "How many days can I work remotely?", "--json", env=env)

    assert (indexed.exit_code, asked.exit_code) == (0, 0), (indexed.stderr, asked.stderr)
    assert "onnxruntime" in indexed.heavy and "onnxruntime" in asked.heavy
    assert "torch" not in asked.heavy  # the ONNX backend answered, not a fallback that never loads onnxruntime
    outside = sorted(
        str(p.relative_to(home)) for p in home.rglob("*") if p not in (cache, ours) and ours not in p.parents
    )
    assert outside == []
