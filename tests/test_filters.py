"""Query filters (``--path``, ``--tag``, ``--where``, ``--since``, ``--until``) and the url of every hit, on the real
model.

Each filter is tried on a vault where it changes the answer: four notes say how often one may work remotely,
and the unfiltered question is answered by the current policy; each filter keeps another note.
"""

from __future__ import annotations

import io
import json
import os
import re
import time

import pytest
from conftest import both_stores, write

from smartvec_cli.errors import UsageError

QUESTION = "How many days per week can employees work remotely?"
NOTES = {
    "policies/remote.md": (
        "---\ntags: [policy/hr]\nstatus: current\ndate: 2024-05-01\n---\n# Remote work policy\n\n"
        "Employees may work remotely up to three days per week.\n"
    ),
    "archive/remote-2019.md": (
        "---\ntags: [policy/hr, old]\nstatus: retired\ndate: 2019-02-01\n---\n# Old remote work rule\n\n"
        "Staff could work from home one day per week, with the approval of their manager.\n"
    ),
    "meetings/2023-03-10 Remote work.md": (
        "# Team meeting\n\nWe discussed letting people work remotely on Fridays. #meeting\n"
    ),
    "journal/thoughts.md": "# Thoughts\n\nWorking remotely from the mountains two days a week suits me.\n",
}


def mtime(path, day: str) -> None:
    stamp = time.mktime(time.strptime(day, "%Y-%m-%d")) + 12 * 3600
    os.utime(path, (stamp, stamp))


@pytest.fixture
def remote_vault(vault, cli, real_embedder):
    for rel, text in NOTES.items():
        write(vault, rel, text)
    mtime(vault / "journal/thoughts.md", "2021-06-15")
    for rel in NOTES:
        if rel != "journal/thoughts.md":
            mtime(vault / rel, "2026-01-10")
    cli.json("index", "--json")
    return vault


def paths(cli, *args: str) -> list[str]:
    return [hit["path"] for hit in cli.json("query", QUESTION, "--json", "--no-track", *args)]


def test_each_filter_changes_the_answer_to_the_notes_it_keeps(remote_vault, cli):
    assert paths(cli)[0] == "policies/remote.md"
    assert set(paths(cli, "--path", "archive")) == {"archive/remote-2019.md"}
    assert set(paths(cli, "--path", "archive/**", "--path", "journal/*.md")) == {
        "archive/remote-2019.md",
        "journal/thoughts.md",
    }
    assert set(paths(cli, "--path", "*2023*")) == {"meetings/2023-03-10 Remote work.md"}
    # a nested tag counts as its parent; repeated tags must all hold; inline #tags count
    assert set(paths(cli, "--tag", "policy")) == {"policies/remote.md", "archive/remote-2019.md"}
    assert set(paths(cli, "--tag", "#Policy", "--tag", "old")) == {"archive/remote-2019.md"}
    assert set(paths(cli, "--tag", "policy/hr/x")) == set()
    assert set(paths(cli, "--tag", "meeting")) == {"meetings/2023-03-10 Remote work.md"}
    assert set(paths(cli, "--where", "status=Retired")) == {"archive/remote-2019.md"}
    assert set(paths(cli, "--where", "status=retired", "--where", "date=2024-05-01")) == set()
    # dates: front matter, else the day in the file name, else the file time at indexing
    assert set(paths(cli, "--until", "2019")) == {"archive/remote-2019.md"}
    assert set(paths(cli, "--since", "2023-01-01", "--until", "March 2023")) == {"meetings/2023-03-10 Remote work.md"}
    assert set(paths(cli, "--since", "2021-06-15", "--until", "2021-06-15")) == {"journal/thoughts.md"}
    assert set(paths(cli, "--since", "2024-05-01")) == {"policies/remote.md"}
    # the baselines are filtered too
    assert set(paths(cli, "--mode", "cosine", "--path", "journal")) == {"journal/thoughts.md"}
    assert set(paths(cli, "--mode", "lexical", "--path", "archive")) == {"archive/remote-2019.md"}


def test_a_filter_that_keeps_no_note_answers_nothing_with_a_hint(remote_vault, cli):
    result = cli("query", QUESTION, "--json", "--tag", "polcy")
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    [hint] = result.stderr.splitlines()
    assert hint.startswith("hint: no indexed note matches --tag 'polcy'")
    result = cli("query", QUESTION, "--path", "nowhere/**")
    assert result.exit_code == 0 and "no relevant passage" in result.stdout and "--path 'nowhere/**'" in result.stderr
    for bad, said in (
        (["--where", "status"], "key=value"),
        (["--since", "someday"], "--since: not a date"),
        (["--since", "2024-01-01", "--until", "2023-01-01"], "after --until"),
        (["--tag", "#"], "--tag needs"),
    ):
        result = cli("query", QUESTION, *bad)
        assert result.exit_code == 2, (bad, result.stdout)
        [line] = result.stderr.splitlines()
        assert said in line and "Traceback" not in result.stderr


def test_a_filter_keeps_its_note_whatever_the_ranking_cut(vault, cli, real_embedder):
    """One note of 130, far from the best 100 passages by cosine, still answers when a filter keeps it alone."""
    for i in range(130):
        write(
            vault,
            f"teams/team-{i:03}.md",
            f"# Team {i} travel\n\nThe travel budget of team {i} is {1000 + i} euros a year.\n",
        )
    write(
        vault,
        "misc/allowance.md",
        "# Conferences\n\nConference trips are paid from the department's yearly allowance.\n",
    )
    cli.json("index", "--json")
    question = "What is the travel budget?"
    nearest = [
        hit["path"] for hit in cli.json("query", question, "--json", "--no-track", "--mode", "cosine", "-k", "100")
    ]
    assert (
        len(nearest) == 100 and "misc/allowance.md" not in nearest
    )  # outside the candidates an unfiltered search reads
    hits = cli.json("query", question, "--json", "--no-track", "--path", "misc")
    assert [hit["path"] for hit in hits] == ["misc/allowance.md"]


def test_batch_lines_carry_their_own_filters(remote_vault, cli, tmp_path):
    batch = tmp_path / "questions.jsonl"
    batch.write_text(
        "\n".join(
            json.dumps(line)
            for line in (
                {"id": 1, "query": QUESTION},
                {"id": 2, "query": QUESTION, "tag": ["old"]},
                {"id": 3, "query": QUESTION, "where": {"status": "current"}, "path": "policies"},
                {"id": 4, "query": QUESTION, "since": "March 2023", "until": "2023-03-31"},
                {"id": 5, "query": QUESTION, "tag": "nothing-like-it"},
            )
        )
        + "\n"
    )
    result = cli("query", "--batch", str(batch), "--path", "archive/**", "--path", "policies/**", "--no-track")
    assert result.exit_code == 0, result.stderr
    answers = {line["id"]: line for line in map(json.loads, result.stdout.splitlines())}
    assert {h["path"] for h in answers[1]["hits"]} == {"archive/remote-2019.md", "policies/remote.md"}
    assert {h["path"] for h in answers[2]["hits"]} == {"archive/remote-2019.md"}
    assert {h["path"] for h in answers[3]["hits"]} == {"policies/remote.md"}
    assert answers[4]["hits"] == [] and answers[4]["notes_matched"] == 0  # the flags' paths still hold
    assert answers[5]["hits"] == [] and "line with id 5" in result.stderr
    assert answers[1]["notes_matched"] == 2
    batch.write_text(json.dumps({"id": 1, "query": QUESTION, "where": ["status"]}) + "\n")
    result = cli("query", "--batch", str(batch))
    assert result.exit_code == 2 and f"{batch}:1: --where takes key=value" in result.stderr and result.stdout == ""


def test_the_python_api_filters_query_answer_and_batch(remote_vault, real_embedder):
    import smartvec_cli

    with smartvec_cli.open_vault(embedder=real_embedder) as api:
        assert api.query(QUESTION, track=False)[0].path == "policies/remote.md"
        assert {h.path for h in api.query(QUESTION, track=False, tag="old")} == {"archive/remote-2019.md"}
        answer = api.answer(QUESTION, track=False, where={"status": "retired"}, path=["archive/**"])
        assert answer.notes_matched == 1 and {h.path for h in answer.hits} == {"archive/remote-2019.md"}
        later = api.answer(QUESTION, track=False, since="2030-01-01")
        assert later.hits == () and later.notes_matched == 0
        batch = list(
            api.query_batch(
                [{"id": "a", "query": QUESTION}, {"id": "b", "query": QUESTION, "path": "journal"}],
                track=False,
                until="2022-01-01",
            )
        )
        assert {h.path for h in batch[0].hits} == {"archive/remote-2019.md", "journal/thoughts.md"}
        assert {h.path for h in batch[1].hits} == {"journal/thoughts.md"}
        with pytest.raises(UsageError, match="key=value"):
            api.query(QUESTION, where=["status"])


def test_every_hit_has_a_url_that_opens_its_note(vault, cli, real_embedder):
    write(vault, "sub dir/Remote & home.md", "# Remote\n\nEmployees may work remotely up to three days per week.\n")
    cli.json("index", "--json")
    [hit] = cli.json("query", QUESTION, "--json", "--no-track", "-k", "1")
    assert hit["url"] == "file://" + str(vault.absolute()).replace(" ", "%20") + "/sub%20dir/Remote%20%26%20home.md"
    (vault / ".obsidian").mkdir()
    [hit] = cli.json("query", QUESTION, "--json", "--no-track", "-k", "1")
    assert hit["url"] == f"obsidian://open?vault={vault.name}&file=sub%20dir%2FRemote%20%26%20home"
    plain = cli("query", QUESTION, "--no-track", "-k", "1")
    assert "sub dir/Remote & home.md" in plain.stdout and "\x1b]8;" not in plain.stdout  # no hyperlink into a pipe


def test_on_a_terminal_the_header_links_and_control_characters_are_shown_escaped(monkeypatch):
    from rich.console import Console

    from smartvec_cli.cli import printing
    from smartvec_cli.core.note_links import note_url

    screen = io.StringIO()
    monkeypatch.setattr(
        printing, "stdout_console", lambda: Console(file=screen, force_terminal=True, highlight=False, width=200)
    )
    path = "odd\x1b[31mred\nline.md"
    url = note_url(__import__("pathlib").Path("/v"), path, obsidian=True)
    assert url == "obsidian://open?vault=v&file=odd%1B%5B31mred%0Aline" and url.isprintable()
    hit = {
        "rank": 1,
        "path": path,
        "heading": "",
        "state": "ACTIVE",
        "score": 0.5,
        "confidence": 0.5,
        "text": "x",
        "warnings": [],
        "url": url,
    }
    printing.show_answer({"hits": [hit]}, explain=False)
    shown = screen.getvalue()
    assert "\x1b]8;id=" in shown and url in shown  # an OSC 8 hyperlink to the note
    text = re.sub(r"\x1b\]8;[^\x1b]*\x1b\\|\x1b\[[0-9;]*m", "", shown)  # what the reader sees
    assert "odd\\x1b[31mred\\nline.md" in text
    assert "\x1b[31m" not in shown and "red\nline" not in shown


def test_the_mcp_search_tool_takes_the_filters(vault, tmp_path, cli, monkeypatch):
    """The transport, with the tests' fake embedder in the server subprocess (``test_mcp``'s way)."""
    from fake_backend import use_fake_backend
    from test_mcp import NOW, payload, run_client, server_parameters

    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    monkeypatch.setenv("SMARTVEC_NOW", NOW)
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")

    async def scenario(session):
        return [
            payload(await session.call_tool("search", arguments))
            for arguments in (
                {"query": QUESTION, "tag": ["old"]},
                {"query": QUESTION, "path": ["journal/**", "meetings"], "where": {"status": "current"}},
                {"query": "people work remotely on Fridays", "since": "March 2023", "until": "2023-03-31"},
            )
        ]

    old, none, march = run_client(server_parameters(vault, index_dir), tmp_path / "mcp.err", scenario)
    assert {h["path"] for h in old["hits"]} == {"archive/remote-2019.md"} and old["notes_matched"] == 1
    assert old["hits"][0]["url"].startswith("file://")
    assert none["hits"] == [] and none["notes_matched"] == 0
    assert {h["path"] for h in march["hits"]} == {"meetings/2023-03-10 Remote work.md"} and march["notes_matched"] == 1


def test_a_daemon_answers_a_filtered_query_as_the_vault_would(vault, cli, fake_embedder, tmp_path):
    """The filter travels to a serving daemon inside the options: same hits as the vault itself answers."""
    from smartvec_cli.core.workspace import Workspace
    from smartvec_cli.daemon.query_socket import QueryServer, QueryService, SharedEmbedder, socket_path

    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")
    direct = cli.json("query", QUESTION, "--json", "--no-track", "--tag", "policy", "--path", "archive")
    ws = Workspace.resolve()
    requests: list[dict] = []
    service = QueryService(ws, SharedEmbedder(fake_embedder), log=lambda line: None)
    server = QueryServer(
        socket_path(ws.index_dir), lambda r: requests.append(r) or service.answer(r), log=lambda line: None
    )
    assert server.start()
    try:
        served = cli.json("query", QUESTION, "--json", "--no-track", "--tag", "policy", "--path", "archive")
        nothing = cli("query", QUESTION, "--no-track", "--tag", "nope")
    finally:
        server.close()
        service.close()
    assert len(requests) == 2 and requests[0]["options"]["filters"]["tag"] == ["policy"]
    assert served == direct and {h["path"] for h in served} == {"archive/remote-2019.md"}
    assert nothing.exit_code == 0 and "hint: no indexed note matches --tag 'nope'" in nothing.stderr


@both_stores
def test_filters_and_related_read_the_same_from_either_store(vault, cli, fake_embedder):
    for rel, text in NOTES.items():
        write(vault, rel, text)
    cli.json("index", "--json")
    assert {h["path"] for h in cli.json("query", QUESTION, "--json", "--no-track", "--tag", "old")} == {
        "archive/remote-2019.md"
    }
    assert {h["path"] for h in cli.json("query", QUESTION, "--json", "--no-track", "--where", "date=2024-05-01")} == {
        "policies/remote.md"
    }
    assert {
        h["path"]
        for h in cli.json("query", QUESTION, "--json", "--no-track", "--mode", "lexical", "--until", "2019-12-31")
    } == {"archive/remote-2019.md"}
    write(
        vault,
        "faq.md",
        "# Remote work policy\n\nEmployees may work remotely up to three days per week, the FAQ says.\n",
    )
    cli.json("index", "--json")
    related = cli.json("related", "policies/remote.md", "--json")["related"]
    assert related[0]["path"] == "faq.md" and "policies/remote.md" not in {r["path"] for r in related}


def folder_or_path_matches(rel_path: str, glob: str) -> bool:
    """The rule spelled out: the path or one of its parent folders matches the glob; ``dir/**`` also means
    ``dir``."""
    import fnmatch
    from pathlib import PurePosixPath

    parts = PurePosixPath(rel_path).parts
    glob = glob.strip().rstrip("/")
    bare = glob[:-3] if glob.endswith("/**") else glob
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch.fnmatchcase(p, glob) or fnmatch.fnmatchcase(p, bare) for p in prefixes)


def test_path_globs_follow_the_exclude_rule():
    """``--path`` means what an ``exclude`` glob means (``vault.scan.glob_matcher``, one regular expression):
    checked against the rule spelled out on random globs and paths."""
    import random

    from smartvec_cli.vault.scan import glob_matcher

    rng = random.Random(7)
    checked = 0
    for _ in range(5000):
        glob = "".join(rng.choice("ab/*?.[]") for _ in range(rng.randint(1, 6)))
        path = "/".join("".join(rng.choice("ab.") for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3)))
        if "." in path.split("/") or not glob.strip("/"):
            continue
        assert glob_matcher([glob])(path) == folder_or_path_matches(path, glob), (glob, path)
        checked += 1
    assert checked > 3000
    assert glob_matcher(["projects/**", "*2023*"])("projects/sub/x.md") and glob_matcher(["projects"])("projects")
    assert not glob_matcher(["projects"])("projects-old/x.md") and glob_matcher(["*2023*"])("journal/2023-01-02.md")
    assert not glob_matcher([])("notes/a.md") and not glob_matcher(["", "/"])("notes/a.md")


def test_a_filter_keeps_an_identifier_match_that_better_matches_elsewhere_would_push_out(vault, cli, fake_embedder):
    """More full-text matches outside the filter than the search takes (50), and more kept passages than its
    vector candidates (100): the one kept passage naming the identifier is still among the candidates, because
    the matches are narrowed to the filter before they are cut (the fake embedder puts every kept note nearer
    the question's other words, so where it ranks is the relevance model's call, not what this tests)."""
    for n in range(300):
        # the question's other words: closer to it by bag of words than the passage that names the identifier
        write(vault, f"keep/note-{n:03}.md", f"# Keep {n}\n\nRack {n} holds the spare relay cables of the basement.\n")
    write(vault, "keep/the-one.md", "# Incident\n\nThe outage was traced to ZQ9931X.\n")
    for n in range(60):
        write(vault, f"other/echo-{n:02}.md", f"# Echo {n}\n\nZQ9931X ZQ9931X ZQ9931X.\n")
    cli.json("index", "--json")
    from smartvec_cli.core.search import LEXICAL_CANDIDATES, lexical_matches_within
    from smartvec_cli.core.workspace import Workspace
    from smartvec_cli.memory.lexical import query_terms
    from smartvec_cli.store.lexical import LexicalQuery

    store = Workspace.resolve().open_store()
    try:
        passages = store.passages(sorted(store.load_ann().live))
        kept = {row for row, p in passages.items() if p.path.startswith("keep/")}
        the_one = next(row for row, p in passages.items() if p.path == "keep/the-one.md")
        expression = LexicalQuery.any_of(query_terms("ZQ9931X spare relay cables basement"))
        everywhere = [row for row, _ in store.lexical_matches(expression, LEXICAL_CANDIDATES)]
        assert the_one not in everywhere  # the echoes outside the filter fill the cut
        assert the_one in [row for row, _ in lexical_matches_within(store, expression, LEXICAL_CANDIDATES, kept)]
    finally:
        store.close()
