"""The template families of ``bench.template_families``: what each generator plants."""

import datetime as dt
import re

from smartvec_cli.bench.template_families import FAMILIES


def test_sprint_reviews_plant_what_they_say(tmp_path):
    """``bench.template_families``' ``sprints``: one note per team and sprint, sprint numbers shared by
    teams, and each planted retro states another value (or the opposite) for its own team and sprint only."""
    family = FAMILIES["sprints"]
    planted = family.write(tmp_path, 120, 3)
    pages = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "sprints").rglob("*.md"))
    assert len(pages) + len(planted) == 120 and len(planted) == 6
    assert {p.split("/")[1] for p in pages} >= {"Falcon", "Kestrel"}  # several teams
    assert {p.rsplit("/", 1)[1] for p in pages if "/Falcon/" in p} & {
        p.rsplit("/", 1)[1] for p in pages if "/Kestrel/" in p
    }  # sprint numbers repeat across teams
    for plant in planted:
        page = (tmp_path / plant.original).read_text(encoding="utf-8")
        retro = (tmp_path / plant.planted).read_text(encoding="utf-8")
        team, sprint = re.search(r"# (\w+) Sprint (\d+)", page).groups()
        assert plant.claim in retro and "source_type: meeting_notes" in retro
        assert f"# Retro: {team}, sprint {sprint}\n" in retro
        assert plant.claim not in page
        if "velocity" in plant.claim:
            assert f"team {team} in sprint {sprint}" in plant.claim
            page_value = re.search(r"Velocity was (\d+) points", page).group(1)
            assert re.search(r"was (\d+) points", plant.claim).group(1) != page_value
        elif plant.claim.startswith("Board"):
            board = re.search(r"Board (\S+)\.", page).group(1)
            assert plant.claim.startswith(f"Board {board} had ")
            page_value = re.search(r"(\d+) tickets carried over", page).group(1)
            assert re.search(r"had (\d+) tickets", plant.claim).group(1) != page_value
        else:
            assert f"sprint {sprint} of team {team}" in plant.claim
            assert ("did not ship" in plant.claim) != ("did not ship" in page)


def test_daily_notes_plant_what_they_say(tmp_path):
    """The held-out ``dailies``: one note per day titled by its day, and each planted weekly review gives another
    number for one day, naming that day and no other."""
    family = FAMILIES["dailies"]
    assert family.held_out
    planted = family.write(tmp_path, 120, 5)
    days = sorted((tmp_path / "daily").glob("*.md"))
    assert len(days) + len(planted) == 120 and len(planted) == 6
    for plant in planted:
        page = (tmp_path / plant.original).read_text(encoding="utf-8")
        review = (tmp_path / plant.planted).read_text(encoding="utf-8")
        day = plant.original.removeprefix("daily/").removesuffix(".md")
        assert f"# {day}\n" in page and f"date: {day}\n" in page
        assert plant.claim in review and plant.claim not in page
        named = dt.date.fromisoformat(day)
        assert named.strftime("%A %-d %B %Y") in plant.claim
        number = re.search(r"(\d+) (steps|hours|km)", plant.claim)
        given = re.search(rf"(\d+) {number.group(2)}", page).group(1)
        assert number.group(1) != given
