from conftest import write

from smartvec_cli.vault.hashing import aclarai_embedding_hash

# The seed-page example of aclarai's nightly concept refresh, as aclarai documents it.
CUDA_ERROR = (
    "# CUDA error\n"
    "\n"
    "Common issue with PyTorch on Linux when using incompatible CUDA versions like 12.3 or 12.4. "
    "These may trigger \u201cout of memory\u201d or \u201cinvalid device function\u201d.\n"
    "\n"
    "<!-- aclarai:id=concept_cuda_error ver=4 -->\n"
    "^concept_cuda_error\n"
)
CUDA_HASH = "84c850abe189a2cec2d939f67f9131245b43257771672d05356a1d3e0881f46f"


def test_aclarai_hash_matches_the_reference_vector():
    assert aclarai_embedding_hash(CUDA_ERROR) == CUDA_HASH


def test_a_ver_bump_alone_is_not_a_change():
    bumped = CUDA_ERROR.replace("ver=4", "ver=5")
    assert aclarai_embedding_hash(bumped) == CUDA_HASH


def test_a_content_edit_changes_the_hash():
    assert aclarai_embedding_hash(CUDA_ERROR.replace("12.4", "12.5")) != CUDA_HASH


def test_show_json_reports_the_aclarai_hash(vault, cli, fake_embedder):
    write(vault, "concepts/CUDA_error.md", CUDA_ERROR)
    cli.json("index", "--json")
    shown = cli.json("show", "concepts/CUDA_error.md", "--json")
    assert shown["embedding_hash"] == CUDA_HASH
    assert shown["note_id"] == "concept_cuda_error"
    assert shown["version"] == 4
    assert shown["last_updated"]
    [chunk] = shown["passages"]
    assert chunk["chunk_id"] == "concept_cuda_error#concept_cuda_error"
    assert "aclarai" not in chunk["text"] and "^concept" not in chunk["text"]
    assert not any("aclarai" in text for text in fake_embedder.embedded)
