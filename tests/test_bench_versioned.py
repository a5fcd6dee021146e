"""The vault of ``bench.versioned``: deterministic, named as lineages, versions differing by small edits."""

from smartvec_cli.bench.versioned import write_versioned_vault
from smartvec_cli.memory.lineage import MARKERS


def test_versioned_vault_is_deterministic_and_shaped_as_versions(tmp_path):
    first = write_versioned_vault(tmp_path / "a", documents=34, settings=30, seed=3)
    again = write_versioned_vault(tmp_path / "b", documents=34, settings=30, seed=3)
    assert len(first) == 34 and first == again
    for path in first:
        assert (tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes()
    tools = {path.rsplit("/", 2)[1] for path in first}
    assert len(tools) == 7
    version = dict(MARKERS)["version"]
    assert all(version.search(path.rsplit("/", 1)[1].removesuffix(".md")) for path in first)
    v1 = (tmp_path / "a" / first[0]).read_text(encoding="utf-8").splitlines()
    v2 = (tmp_path / "a" / first[1]).read_text(encoding="utf-8").splitlines()
    assert first[0].endswith("v1.md") and first[1].endswith("v2.md")
    shared = set(v1) & set(v2)
    assert v1 != v2 and len(shared) > 0.8 * len(set(v2))
