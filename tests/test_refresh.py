"""``refresh``: the cron run. Quiet when nothing changed, recorded and logged, aclarai's concept job exactly."""

import json
import os
import sqlite3
from pathlib import Path

from conftest import write

from smartvec_cli.core.refresh import NIGHTLY, RefreshContext, Stage, StageResult, run_refresh
from smartvec_cli.core.workspace import Workspace
from smartvec_cli.errors import EXIT_PARTIAL, EXIT_USAGE
from smartvec_cli.vault.hashing import aclarai_embedding_hash


def concept(title: str, body: str, ver: int = 1) -> str:
    slug = "concept_" + title.lower().replace(" ", "_")
    return f"# {title}\n\n{body}\n\n<!-- aclarai:id={slug} ver={ver} -->\n^{slug}\n"


def runs(index_dir: Path) -> list[tuple[str, str, dict]]:
    with sqlite3.connect(index_dir / "smartvec.db") as db:
        return [
            (c, s, json.loads(j)) for c, s, j in db.execute("SELECT command, status, summary FROM runs ORDER BY id")
        ]


def log_lines(index_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (index_dir / "refresh.log").read_text().splitlines()]


def test_refresh_is_silent_when_nothing_changed(vault, tmp_path, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nFirst note about the roadmap.\n")
    first = cli("refresh", "--nightly")
    assert first.exit_code == 0
    assert first.stderr == "" and first.stdout.startswith(
        "refresh --nightly: 1 notes, 1 updated, 0 skipped, 0 errors in "
    )
    again = cli("refresh", "--nightly")
    assert (again.exit_code, again.stdout, again.stderr) == (0, "", "")
    touched = vault / "a.md"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))  # read again, same content
    assert cli("refresh", "--nightly").output == ""
    assert len(log_lines(tmp_path / "index")) == 3  # every run is logged, the quiet ones too


def test_json_summary_run_record_and_log_line(vault, tmp_path, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nFirst note about the roadmap.\n")
    write(vault, "b.md", "# B\n\nSecond note about the budget.\n")
    cli("index")
    write(vault, "b.md", "# B\n\nSecond note about the travel budget.\n")
    write(vault, "c.md", "# C\n\nA third note.\n")
    result = cli("--now", "2026-03-01T02:00:00", "refresh", "--nightly", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    summary = json.loads(result.stdout)
    assert summary["command"] == "refresh --nightly" and summary["status"] == "ok" and summary["changed"]
    assert (summary["processed"], summary["updated"], summary["skipped"], summary["errors"]) == (3, 2, 1, [])
    assert summary["started_at"] == summary["finished_at"] == "2026-03-01T02:00:00Z"
    assert (
        [s["name"] for s in summary["stages"]]
        == [stage.name for stage in NIGHTLY]
        == ["index", "consolidate", "compact"]
    )
    assert all(isinstance(s["seconds"], float) and s["status"] == "ok" for s in summary["stages"])
    assert summary["stages"][0]["details"]["passages_embedded"] == 2

    command, status, recorded = runs(tmp_path / "index")[-1]
    assert (command, status, recorded) == ("refresh --nightly", "ok", summary)
    assert log_lines(tmp_path / "index")[-1] == summary
    assert cli.json("status", "--json")["last_run"]["command"] == "refresh --nightly"

    quiet = cli.json("refresh", "--nightly", "--json")  # --json always prints
    assert not quiet["changed"] and (quiet["processed"], quiet["updated"], quiet["skipped"]) == (3, 0, 3)


def test_unreadable_notes_make_refresh_exit_3(vault, cli, fake_embedder):
    write(vault, "good.md", "# Good\n\nFine.\n")
    (vault / "bad.md").write_bytes(b"\x00\x01binary")
    result = cli("refresh", "--nightly")
    assert result.exit_code == EXIT_PARTIAL
    assert "warning: bad.md: binary file" in result.stderr
    again = cli("refresh", "--nightly", "--json")  # the same problem again is not news
    assert (
        again.exit_code == 0
        and json.loads(again.stdout)["status"] == "ok"
        and json.loads(again.stdout)["known_problems"] == 1
    )


def test_a_failing_stage_is_recorded_and_exits_1(vault, tmp_path, cli, fake_embedder):
    write(vault, "a.md", "# A\n\nText.\n")
    cli("index")
    fake_embedder._fingerprint = "other-model@2"
    result = cli("refresh", "--nightly", "--json")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: index was built with fake@1") and result.stderr.count("\n") == 1
    summary = json.loads(result.stdout)
    assert summary["status"] == "failed" and "index --full" in summary["error"]
    assert [(s["name"], s["status"]) for s in summary["stages"]] == [("index", "failed")]  # compaction never ran
    assert runs(tmp_path / "index")[-1][:2] == ("refresh --nightly", "failed")
    assert log_lines(tmp_path / "index")[-1]["status"] == "failed"


def test_nightly_compacts_the_tombstones_that_daytime_runs_tolerate(vault, cli, fake_embedder):
    for i in range(10):
        write(vault, f"n{i}.md", f"# Note {i}\n\nParagraph number {i}.\n")
    cli("index")
    for i in range(3):
        (vault / f"n{i}.md").unlink()
    cli("index")
    assert cli.json("status", "--json")["ann"]["tombstones"] == 0  # deleted notes' passages stay as history
    cli("forget", "--all-deleted", "--yes")  # erasing rebuilds the vector file: it keeps no forgotten vector
    assert cli.json("status", "--json")["ann"] == {"live": 7, "tombstones": 0, "in_sync": True}
    (vault.parent / "index" / "config.toml").write_text("[chunking]\nmax_chars = 12\n")
    cli("index")  # every passage cut anew: the old ones leave the vector file as tombstones
    before = cli.json("status", "--json")["ann"]
    assert before["tombstones"] == 7 and before["live"] > 7
    summary = cli.json("refresh", "--nightly", "--json")
    compact = next(stage for stage in summary["stages"] if stage["name"] == "compact")
    assert compact["changed"] and compact["details"] == {
        "compacted": True,
        "live": before["live"],
        "tombstones": 0,
        "dropped": 7,
    }
    status = cli.json("status", "--json")["ann"]
    assert status == {"live": before["live"], "tombstones": 0, "in_sync": True}
    assert cli("refresh", "--nightly").output == ""


def test_adding_a_stage_is_one_line(vault, fake_embedder):
    write(vault, "a.md", "# A\n\nText.\n")
    ws = Workspace.resolve()
    seen = []

    def sweep(ctx: RefreshContext) -> StageResult:
        seen.append(ctx.store.db.execute("SELECT COUNT(*) FROM notes").fetchone()[0])
        return StageResult(details={"looked_at": seen[-1]})

    store = ws.open_store(create=True)
    try:
        report = run_refresh(
            "refresh --nightly", NIGHTLY + (Stage("sweep", sweep),), RefreshContext(ws, store, lambda: fake_embedder)
        )
    finally:
        store.close()
    assert seen == [1]  # ran after the index stage
    assert [s["name"] for s in report.to_dict()["stages"]] == ["index", "consolidate", "compact", "sweep"]
    assert report.to_dict()["stages"][-1]["details"] == {"looked_at": 1}


CONCEPT_A = concept("CUDA error", "Common issue with PyTorch on Linux with CUDA 12.3 or 12.4.", ver=4)
CONCEPT_B = concept("Rate limiting", "Clients back off when the API answers 429.", ver=2)


def test_concepts_only_reembeds_only_concepts_whose_aclarai_hash_changed(vault, cli, fake_embedder):
    write(vault, "concepts/CUDA_error.md", CONCEPT_A)
    write(vault, "concepts/Rate_limiting.md", CONCEPT_B)
    write(vault, "notes/diary.md", "# Diary\n\nToday I read about CUDA.\n")
    write(vault, "concepts/archive/Old.md", "# Old\n\nA concept in a subfolder.\n")
    cli("--now", "2026-01-01", "index")
    before = {p: cli.json("show", p, "--json") for p in ("concepts/CUDA_error.md", "concepts/Rate_limiting.md")}

    write(vault, "concepts/CUDA_error.md", CONCEPT_A.replace("12.4", "12.5"))  # content: a change
    write(vault, "concepts/Rate_limiting.md", CONCEPT_B.replace("ver=2", "ver=3"))  # a ver bump: not a change
    write(vault, "concepts/New_concept.md", concept("New concept", "Something nobody wrote about before."))
    write(vault, "notes/diary.md", "# Diary\n\nToday I read about ROCm instead.\n")  # not a concept
    write(vault, "concepts/archive/Old.md", "# Old\n\nA concept in a subfolder, edited.\n")  # not concepts/*.md
    fake_embedder.embedded.clear()

    result = cli("--now", "2026-02-01", "refresh", "--concepts-only", "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["processed"], summary["updated"], summary["skipped"]) == (3, 2, 1)
    assert [s["name"] for s in summary["stages"]] == ["concepts"]
    assert sorted(fake_embedder.embedded) == [
        "CUDA error\n\nCommon issue with PyTorch on Linux with CUDA 12.3 or 12.5.",
        "New concept\n\nSomething nobody wrote about before.",
    ]

    cuda = cli.json("show", "concepts/CUDA_error.md", "--json")
    assert (
        cuda["embedding_hash"]
        == aclarai_embedding_hash(CONCEPT_A.replace("12.4", "12.5"))
        != before["concepts/CUDA_error.md"]["embedding_hash"]
    )
    assert cuda["last_updated"] == "2026-02-01T00:00:00Z"
    rate = cli.json("show", "concepts/Rate_limiting.md", "--json")
    assert rate["embedding_hash"] == before["concepts/Rate_limiting.md"]["embedding_hash"]
    assert rate["last_updated"] == "2026-01-01T00:00:00Z"
    assert "ROCm" not in json.dumps(cli.json("show", "notes/diary.md", "--json"))
    assert "edited" not in json.dumps(cli.json("show", "concepts/archive/Old.md", "--json"))

    fake_embedder.embedded.clear()
    write(vault, "concepts/CUDA_error.md", CONCEPT_A.replace("12.4", "12.5").replace("ver=4", "ver=5"))
    bump = cli.json("refresh", "--concepts-only", "--json")
    assert fake_embedder.embedded == [] and bump["updated"] == 0 and not bump["changed"]
    assert cli("refresh", "--concepts-only").output == ""


def test_concepts_folder_is_configurable_and_deletions_are_followed(vault, cli, fake_embedder):
    write(vault, "kb/concepts/A.md", concept("A", "Alpha body."))
    write(vault, "other.md", "# Other\n\nNot a concept.\n")
    summary = cli.json("refresh", "--concepts-only", "--concepts-folder", "kb/concepts", "--json")
    assert (summary["processed"], summary["updated"]) == (1, 1)
    assert cli.json("status", "--json")["notes"] == 1  # other.md is outside the job
    (vault / "kb/concepts/A.md").unlink()
    gone = cli.json("refresh", "--concepts-only", "--concepts-folder", "kb/concepts/", "--json")
    assert (gone["processed"], gone["updated"]) == (0, 1)
    assert cli.json("status", "--json")["notes"] == 0


def test_refresh_needs_a_mode(vault, cli):
    assert cli("refresh").exit_code == EXIT_USAGE
    assert cli("refresh", "--nightly", "--concepts-only").exit_code == EXIT_USAGE


def test_cron_prints_a_ready_crontab_line(vault, tmp_path, cli, monkeypatch):
    monkeypatch.chdir(vault)
    monkeypatch.delenv("SMARTVEC_VAULT")
    monkeypatch.delenv("SMARTVEC_INDEX")
    result = cli("--vault", ".", "cron")
    assert result.exit_code == 0
    line = result.stdout.strip()
    assert "\n" not in line
    schedule, rest = line[: len("0 3 * * * ")], line[len("0 3 * * * ") :]
    assert schedule == "0 3 * * * "
    executable = rest.split(" ")[0]
    assert os.path.isabs(executable) and os.access(executable, os.X_OK)
    assert (
        f" --vault {vault} --index-dir {vault / '.smartvec'} refresh --nightly >> {vault / '.smartvec' / 'cron.log'} "
        "2>&1" in rest
    )
    assert cli("--vault", ".", "cron", "--at", "02:30").stdout.startswith("30 2 * * * ")
    assert cli("--vault", ".", "cron", "--at", "25:00").exit_code == EXIT_USAGE


def test_cron_quotes_paths_for_the_shell_and_for_cron(tmp_path, cli, monkeypatch):
    vault = tmp_path / "my vault 100%"
    vault.mkdir()
    monkeypatch.setenv("SMARTVEC_VAULT", str(vault))
    monkeypatch.delenv("SMARTVEC_INDEX", raising=False)
    line = cli("cron").stdout
    assert f"--vault '{tmp_path}/my vault 100\\%'" in line


def test_a_permanent_problem_fails_one_night_not_every_night(vault, tmp_path):
    """cron runs ``refresh --nightly`` as a process every night: a note that cannot be read makes the first
    night partial (exit 3, a warning); the next nights, unchanged, exit 0 with it counted as known, silent;
    a new problem is news again."""
    from conftest import cli_process
    from fake_backend import use_fake_backend

    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    write(vault, "good.md", "# Good\n\nA perfectly fine note about bicycles.\n")
    (vault / "binary.md").write_bytes(b"\x00\x01\x02 not text \xff\xfe\x00" * 20)
    nightly = ("--vault", str(vault), "--index-dir", str(index_dir), "refresh", "--nightly")

    first = cli_process(*nightly)
    assert first.exit_code == EXIT_PARTIAL and "binary.md" in first.stderr
    second = cli_process(*nightly, "--json")
    data = json.loads(second.stdout)
    assert second.exit_code == 0 and data["status"] == "ok" and data["errors"] == [] and data["known_problems"] == 1
    third = cli_process(*nightly)
    assert (third.exit_code, third.stdout, third.stderr) == (0, "", "")
    status = json.loads(cli_process("--vault", str(vault), "--index-dir", str(index_dir), "status", "--json").stdout)
    assert status["notes_with_problems"] == 1  # still listed where a user looks

    (vault / "other.md").write_bytes(b"\x00\xff" * 50)
    fourth = cli_process(*nightly, "--json")
    assert fourth.exit_code == EXIT_PARTIAL and [e["path"] for e in json.loads(fourth.stdout)["errors"]] == ["other.md"]
