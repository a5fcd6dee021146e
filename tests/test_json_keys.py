"""Every command's ``--json`` speaks one vocabulary: each key is in ``KEYS``, and a key renamed in this release
(``core.keys``) appears only beside its new name, with the same value.

A command that gains ``--json`` must be run here (``RUNS``), and a key that is not in ``KEYS`` fails: a new
name for a thing that already has one (``chunks`` for passages, ``file`` for a path, ``id`` for a note id) is
caught before a script depends on it.
"""

import json
import re

import pytest
import typer.main
from conftest import write

from smartvec_cli.cli.app import app
from smartvec_cli.core import keys

KEYS = {
    # changes (and "since", "until", "at" below)
    "added",
    "replaced",
    "expired",
    "contradicted",
    "replaces",
    "how",
    "by",
    # notes and passages
    "note_id",
    "path",
    "title",
    "chunk_id",
    "version",
    "state",
    "heading",
    "text",
    "hash",
    "valid_from",
    "valid_until",
    "valid_from_source",
    "valid_until_source",
    "access_count",
    "replaced_by",
    "versions",
    "passages",
    "tags",
    "links",
    "type",
    "target",
    "resolved",
    "attachment",
    "kind",
    "source",
    "reason",
    "authority",
    "metadata",
    "aclarai_id",
    "aclarai_ver",
    "embedding_hash",
    "encoding",
    "last_updated",
    "deleted_at",
    "former_names",
    "until",
    "events",
    "at",
    "from",
    "into",
    "superseded_by",
    "superseded_at",
    "superseded_inferred",
    "supersedes",
    "inferred",
    "needs_review",
    "since",
    "notes",
    "correction",
    "hop",
    "penalty",
    "share",
    # index, refresh, consolidate, forget, feedback
    "notes_scanned",
    "notes_new",
    "notes_changed",
    "notes_unchanged",
    "notes_deleted",
    "notes_renamed",
    "passages_embedded",
    "passages_reused",
    "passages_archived",
    "passages_recut",
    "passages_stored",
    "errors",
    "error",
    "seconds",
    "notes_to_consolidate",
    "notes_processed",
    "transitions",
    "edges_added",
    "edges_removed",
    "contradictions_found",
    "passages_rippled",
    "notes_needing_review",
    "command",
    "status",
    "started_at",
    "finished_at",
    "processed",
    "updated",
    "skipped",
    "changed",
    "stages",
    "name",
    "note",
    "details",
    "known_problems",
    "compacted",
    "live",
    "tombstones",
    "forgotten",
    "passage_versions",
    "signal",
    "trust_before",
    "trust_after",
    "correction_chunk_id",
    # status, doctor, graph
    "vault",
    "index_dir",
    "model",
    "embedder",
    "chosen_by",
    "languages",
    "onnx_export",
    "passages_of_deleted_notes",
    "kinds",
    "declared",
    "unknown",
    "trust_warning",
    "vectors",
    "edges",
    "ann",
    "in_sync",
    "notes_with_problems",
    "last_run",
    "why",
    "summary",
    "ok",
    "checks",
    "detail",
    "repaired",
    "severity",
    "note_problems",
    "seen_at",
    "nodes",
    "attachments",
    "count",
    "left_out",
    # query
    "id",
    "hits",
    "relevant",
    "rank",
    "score",
    "confidence",
    "signals",
    "semantic",
    "temporal",
    "relational",
    "warnings",
    "explain",
    "as_of",
    "as_of_phrase",
    "as_of_period",
    "as_of_rule",
    "url",
    "notes_matched",
    # related
    "related",
    "method",
    "passage",
    "because_of",
}
"""Every key any ``--json`` prints (``query``'s ``explain`` details aside: they name the ranking's inner
signals, ``memory.scoring``). ``id`` is a batch question's id, the caller's own."""

ALIASES = {
    **{old: new for new, old in keys.PASSAGE_COUNTS.items()},
    **{old: new for new, old in keys.PASSAGE_LISTS.items()},
    **{old: new for new, old in keys.FEEDBACK_EVENT.items()},
    "confidence_before": "trust_before",
    "confidence_after": "trust_after",
}
"""Old names, printed for one release beside the new (``core.keys``), and printed no more."""

DATA_KEYS = re.compile(r"^[A-Z_]+(->[A-Z_]+)?$")
"""Keys that are values: passage states (``ACTIVE``) and state transitions (``UNCONSOLIDATED->ACTIVE``)."""

FREE_FORM = {"metadata", "explain"}
"""Objects whose keys are not ours to name: a note's frontmatter as written, the ranking's signal details."""

NOT_RUN = {"bench": "benchmarks build vaults of their own and run for minutes; their reports are documented with them"}


def runs(vault, cli) -> dict[str, list]:
    """Each command with ``--json``, run on a small vault with a renamed note, a deleted one and feedback."""
    write(
        vault,
        "policy.md",
        "---\ntags: [policy]\n---\n# Remote work\n\nStaff may work remotely three days a week.\n\n"
        "See [[Office]] for the desks.\n",
    )
    write(vault, "office.md", "# Office\n\nThe office has forty desks.\n")
    write(vault, "gone.md", "# Gone\n\nA note that will be deleted.\n")
    write(vault, "concepts/Desk.md", "# Desk\n\nA desk is where one works.\n")
    out: dict[str, list] = {"index": [cli.json("index", "--json")]}
    (vault / "gone.md").unlink()
    (vault / "office.md").rename(vault / "offices.md")
    write(
        vault,
        "policy.md",
        "---\ntags: [policy]\n---\n# Remote work\n\nStaff may work remotely two days a week.\n\n"
        "See [[Office]] for the desks.\n",
    )
    out["index"].append(cli.json("index", "--json"))
    out["consolidate"] = [cli.json("consolidate", "--json")]
    out["query"] = [cli.json("query", "How many days remotely?", "--json", "--explain")]
    batch = vault.parent / "questions.jsonl"
    batch.write_text(json.dumps({"id": "q1", "query": "desks in the office"}) + "\n", encoding="utf-8")
    out["query"].append(json.loads(cli("query", "--batch", str(batch), "--json").stdout))
    out["show"] = [cli.json("show", "policy.md", "--json")]
    out["feedback"] = [cli.json("feedback", out["show"][0]["passages"][0]["chunk_id"], "--up", "--json")]
    out["history"] = [cli.json("history", "policy.md", "--json"), cli.json("history", "offices.md", "--json")]
    out["status"] = [cli.json("status", "--json")]
    out["doctor"] = [cli.json("doctor", "--json")]
    out["refresh"] = [cli.json("refresh", "--nightly", "--json"), cli.json("refresh", "--concepts-only", "--json")]
    out["forget"] = [cli.json("forget", "--all-deleted", "--yes", "--json")]
    out["graph"] = [cli.json("graph", "--format", "json")]
    out["related"] = [cli.json("related", "policy.md", "--json")]
    out["changes"] = [cli.json("changes", "--since", "2000-01-01", "--json")]
    return out


def key_problems(value, where: str = "") -> list[str]:
    problems = []
    if isinstance(value, dict):
        for key, inner in value.items():
            at = f"{where}.{key}" if where else key
            if key in ALIASES:
                problems.append(f"{at}: an old name still printed (its name is {ALIASES[key]})")
            elif key not in KEYS and not DATA_KEYS.match(key):
                problems.append(f"{at}: not a known key")
            if key not in FREE_FORM:
                problems += key_problems(inner, at)
    elif isinstance(value, list):
        for item in value:
            problems += key_problems(item, f"{where}[]")
    return problems


def commands_with_json() -> set[str]:
    """The commands whose options include ``--json``, and ``graph`` (``--format json``)."""
    group = typer.main.get_command(app)
    found = {"graph"}
    for name, command in group.commands.items():
        if any("--json" in getattr(p, "opts", ()) for p in command.params):
            found.add(name)
        elif hasattr(command, "commands"):  # a group (bench)
            found.add(name)
    return found


def test_every_json_key_is_a_known_name_and_old_names_are_gone(vault, cli, fake_embedder):
    out = runs(vault, cli)
    assert commands_with_json() - set(NOT_RUN) == set(out)
    problems = [
        f"{command}: {problem}"
        for command, answers in out.items()
        for answer in answers
        for problem in key_problems(answer)
    ]
    assert problems == [], "\n".join(problems)


def test_one_name_for_a_passage_in_every_command(vault, cli, fake_embedder):
    out = runs(vault, cli)
    shown, status, first, second = out["show"][0], out["status"][0], out["index"][0], out["index"][1]
    assert "chunks" not in shown and shown["passages"][0]["chunk_id"].startswith("policy")
    assert "chunks" not in status and sum(status["passages"].values()) == second["passages_stored"]
    assert first["passages_embedded"] > 0 and "chunks_embedded" not in first
    assert all("id" not in node and node["note_id"] for node in out["graph"][0]["nodes"])
    assert out["forget"][0]["passage_versions"] >= 1 and "passages" not in out["forget"][0]
    event = next(e for e in out["history"][0]["events"] if e["kind"] == "feedback")
    assert "after" not in event and event["trust_after"] == pytest.approx(out["feedback"][0]["trust_after"], abs=1e-4)
    stage = next(s for s in out["refresh"][0]["stages"] if s["name"] == "index")
    assert stage["details"]["passages_embedded"] == 0 and "chunks_embedded" not in stage["details"]


def test_the_check_catches_a_stray_name():
    assert key_problems({"hits": [{"chunk_id": "a#b", "file": "a.md"}], "chunks_reused": 1}) == [
        "hits[].file: not a known key",
        "chunks_reused: an old name still printed (its name is passages_reused)",
    ]
