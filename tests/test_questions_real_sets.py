"""The real-vault question sets and their samples (smartvec_cli/bench/real): checked without any corpus.

Each set must parse with ``bench questions``' own loader, and every note a question expects must be in
the fixed sample its manifest lists, or the set would score a note that is never indexed. The runner's
own steps (building the sample vault, refusing an archive that does not give the listed sample, a
missing archive) are exercised on files written here in the corpus' shape.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from smartvec_cli.bench.questions import LabelledQuestion, from_answering_note, read_questions
from smartvec_cli.bench.real import run

KINDS = {"how-to", "keyword", "identifier", "value", "pasted", "unanswerable"}


def raw_items(corpus):
    lines = (run.HERE / corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("corpus", run.CORPORA)
def test_every_set_parses_and_every_expected_note_is_in_the_sample(corpus):
    questions = read_questions(run.HERE / corpus / "questions.jsonl")
    listed = run.sample_notes(corpus)
    assert len(questions) >= 30  # the six sets written elsewhere hold 30 or 40 questions, the project's own 247 or more
    for question in questions:
        answering = [path for path in listed if from_answering_note(question, path)]
        assert bool(answering) == bool(question.expect), (
            f"{corpus}: {question.id} expects {question.expect}, none in the sample"
        )
        for expected in question.expect:  # each path (or pattern) names a listed note, not just one of them
            assert any(
                from_answering_note(LabelledQuestion(question.id, question.query, (expected,)), p) for p in listed
            ), expected


@pytest.mark.parametrize("corpus", run.CORPORA)
def test_every_question_has_a_kind_and_the_mix_is_kept(corpus):
    items = raw_items(corpus)
    kinds = Counter(item.get("kind") for item in items)
    assert set(kinds) <= KINDS and None not in kinds
    assert all((item["kind"] == "unanswerable") == (item["expect"] == []) for item in items)
    assert all(item.get("contains") for item in items if item["kind"] in ("pasted", "value", "identifier"))
    for kind in ("pasted", "unanswerable"):  # about one in ten of each (2 of 30 in the smallest sets)
        assert 0.06 <= kinds[kind] / len(items) <= 0.15, (kind, kinds[kind], len(items))
    assert kinds["how-to"] >= len(items) / 3


@pytest.mark.parametrize("corpus", run.CORPORA)
def test_the_manifest_describes_its_listed_sample(corpus):
    spec, listed = run.manifest(corpus), run.sample_notes(corpus)
    assert spec["corpus"] == corpus and spec["archive"].endswith(".tar.gz") and spec["source"]
    assert spec["notes"] == len(listed) <= 600
    assert listed == sorted(set(listed))  # sorted, no path twice
    assert run.selected_by_rule(spec, listed) == listed  # every listed note satisfies the stated rule
    assert run.selected_by_rule(spec, listed + ["not/in/any/rule.txt"]) == listed


def fake_corpus(root: Path, paths) -> Path:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"# {Path(path).stem}\n\nText of {path}.\n", encoding="utf-8")
    return root


def test_the_sample_vault_holds_exactly_the_listed_notes_and_a_rebuild_touches_nothing(tmp_path):
    listed = run.sample_notes("rust-book")
    source = fake_corpus(tmp_path / "src", listed)
    vault = tmp_path / "vault"
    (vault / "stale.md").parent.mkdir(parents=True)
    (vault / "stale.md").write_text("# left from another sample\n", encoding="utf-8")
    assert run.build_vault("rust-book", source, vault, log=lambda _: None) == len(listed)
    built = sorted(str(p.relative_to(vault)) for p in vault.rglob("*.md"))
    assert built == listed  # the stale note is gone
    first = vault / listed[0]
    assert first.read_text(encoding="utf-8") == (source / listed[0]).read_text(encoding="utf-8")
    stamp = first.stat().st_mtime_ns
    run.build_vault("rust-book", source, vault, log=lambda _: None)
    assert first.stat().st_mtime_ns == stamp  # unchanged notes are not rewritten, so the index reuses them


def test_an_archive_that_does_not_give_the_listed_sample_is_refused(tmp_path):
    listed = run.sample_notes("rust-book")
    source = fake_corpus(tmp_path / "src", listed[1:] + ["ch99-not-in-the-book.md"])
    with pytest.raises(run.RunError) as caught:
        run.build_vault("rust-book", source, tmp_path / "vault", log=lambda _: None)
    assert "1 listed notes missing, 1 unlisted picked" in str(caught.value) and listed[0] in str(caught.value)
    assert not (tmp_path / "vault").exists() or not any((tmp_path / "vault").rglob("*.md"))


def test_a_missing_corpus_folder_is_one_clear_line_and_exit_1(tmp_path, capsys):
    code = run.main(
        [
            "tldr",
            "--shared",
            str(tmp_path / "nowhere"),
            "--work",
            str(tmp_path / "work"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert err[0].startswith("error: corpus archive") and "tldr.tar.gz not found" in err[0] and "SHARED=" in err[0]


def test_an_unknown_corpus_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as caught:
        run.main(["wikipedia", "--work", str(tmp_path)])
    assert caught.value.code == 2 and "unknown corpus 'wikipedia'" in capsys.readouterr().err


def test_unpacking_extracts_once_under_a_temporary_name(tmp_path):
    import tarfile

    content = fake_corpus(tmp_path / "content" / "tldr" / "pages", ["common/cat.md"])
    archive = tmp_path / "corpora" / "tldr.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(content.parent, arcname="tldr")
    into = run.unpack(archive, tmp_path / "work" / "tldr", log=lambda _: None)
    assert (into / "tldr" / "pages" / "common" / "cat.md").is_file()
    assert [p.name for p in into.parent.iterdir()] == ["tldr"]  # no staging folder left beside it
    archive.unlink()
    assert run.unpack(archive, tmp_path / "work" / "tldr", log=lambda _: None) == into  # not read again
