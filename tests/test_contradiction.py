"""Values, units, number formats and stems that the contradiction check reads (memory.contradiction)."""

import pytest

from smartvec_cli.memory.contradiction import (
    Frames,
    Where,
    antonyms_spelled_out,
    disagreement,
    names,
    quantities,
    repeated_outdated_value,
    stem,
    value_conflicts,
)


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("a fee of 1.000,50 EUR", 1000.5, "currency:EUR"),
        ("a fee of EUR 1,200", 1200.0, "currency:EUR"),
        ("rooms up to £40", 40.0, "currency:GBP"),
        ("a deposit of CHF 300", 300.0, "currency:CHF"),
        ("bags up to 5 kg", 5000.0, "mass"),
        ("answered in 2 h", 7200.0, "duration"),
        ("a timeout of 250 ms", 0.25, "duration"),
        ("uploads up to 1.5 GB", 1.5e9, "data"),
        ("a bonus of $1,200.50", 1200.5, "currency:USD"),
    ],
)
def test_values_are_read_in_their_unit_and_number_format(text, value, unit):
    [quantity] = quantities(text)
    assert quantity.value == pytest.approx(value) and quantity.unit == unit


def test_a_rate_is_part_of_the_unit():
    [per_day], [a_day] = quantities("The per diem is EUR 75 per day."), quantities("The per diem is EUR 60 a day.")
    assert per_day.unit == a_day.unit != quantities("Hotels up to EUR 180 per night.")[0].unit
    assert quantities("EUR 0.42 per kilometre")[0].unit == quantities("EUR 0.32 per km")[0].unit
    assert (
        disagreement(
            "The per diem for business travel is EUR 75 per day.",
            "The hotel limit for business travel is EUR 180 per night.",
        )
        is None
    )


def test_the_stemmer_is_snowball():
    assert stem("capped") == stem("cap") and stem("changed") == stem("change") and stem("hotels") == stem("hotel")


def test_the_refund_windows_disagree():
    found = disagreement(
        "Customers get a full refund within 30 days of delivery.",
        "you get a refund within 14 days of delivery, I think",
    )
    assert found and "30 days" in found.detail and "14 days" in found.detail


def test_a_shared_value_does_not_hide_one_that_differs():
    found = disagreement(
        "The Standard plan limit is 50 MB per upload and the Plus plan limit is 200 MB per upload.",
        "The Standard plan limit is 5 MB per upload and the Plus plan limit is 200 MB per upload.",
    )
    assert found and "50 MB" in found.detail and "5 MB" in found.detail


def test_a_history_of_the_value_agrees_with_the_current_value():
    assert (
        disagreement(
            "The per diem was EUR 60 until March, now it is EUR 75 per day.", "The per diem is EUR 75 per day."
        )
        is None
    )


def test_the_same_value_in_another_unit_agrees():
    assert disagreement("Uploads of video are capped at 2 h.", "Uploads of video are capped at 120 minutes.") is None
    assert disagreement("Backups are kept for 1 year.", "Backups are kept for 12 months.") is None
    assert disagreement("Backups are kept for 1 month.", "Backups are kept for 30 days.") is None
    assert disagreement("The notice period is 6 weeks.", "The notice period is 3 months.")


def test_a_negation_about_another_place_is_not_a_contradiction():
    policy = "Smoking is allowed on the roof terrace of the Hamburg office."
    assert disagreement(policy, "Smoking is not allowed on the roof terrace of the Hamburg office.")
    assert disagreement(policy, "Smoking is not allowed on the roof terrace of the Krakow office.") is None


def test_names_are_read_in_the_sentences_that_give_the_values():
    """A chat's speaker line and a department named in the policy say nothing about what the values are of."""
    policy = "Gifts from suppliers or customers worth more than EUR 75 must be declared to Legal."
    chat = "**Chiara Quiroga** 12:13\nHeads up: gifts over EUR 25 must be declared, still true as far as I know."
    [(a, b)] = value_conflicts(policy, chat)
    assert (a.written, b.written) == ("EUR 75", "EUR 25")
    assert (
        value_conflicts(policy, "**Chiara Quiroga** 12:13\nGifts to the Lisbon team over EUR 25 go to Quiroga.") == []
    )


def test_different_identifiers_are_different_things():
    memory = "Alert ALR-3158 fires when free memory on a worker drops under 5 percent."
    assert disagreement(memory, "Alert ALR-8956 fires when free memory on a worker drops under 2 percent.") is None
    assert disagreement(memory, "Alert ALR-3158 fires when free memory on a worker drops under 2 percent.")


def test_a_reason_shows_the_words_as_written_not_their_stems():
    found = disagreement(
        "Customers get a full refund within 30 days of their deliveries.",
        "you get a refund within 14 days of delivery, I think",
    )
    assert found and "deliveries" in found.detail and "deliveri " not in found.detail + " "


def test_an_echo_is_judged_against_the_current_value():
    outdated, current = "The phone allowance is EUR 40 per month.", "The phone allowance is EUR 25 per month."
    chat = "the phone allowance is EUR 40 per month, nothing changed"
    assert repeated_outdated_value(chat, outdated, current) == "EUR 40 per month"
    judged = []
    assert (
        repeated_outdated_value(
            chat, outdated, current, lambda echo, now: judged.append((echo.written, now.written)) or False
        )
        is None
    )
    assert judged == [("EUR 40 per month", "EUR 25 per month")]


def test_a_negation_must_restate_one_sentence_of_like_size():
    """Found on a vault of the npm docs, where whole passages were compared: a list of links that names a
    command is no negation of a paragraph that names it and says "not"."""
    see_also = "* [npm deny-scripts](/commands/npm-deny-scripts)\n* [npm install](/commands/npm-install)"
    paragraph = (
        "List packages with install scripts that are not yet covered by the allowScripts setting of npm install."
    )
    assert disagreement(see_also, paragraph) is None
    assert disagreement(
        "Smoking is allowed on the roof terrace. Ask facilities for an ashtray.",
        "Smoking is not allowed on the roof terrace.",
    )


def test_two_negated_instructions_agree():
    """Found on the Obsidian developer docs: a typographic apostrophe hid the negation of one of them."""
    assert (
        disagreement(
            "Do not add a top-level heading to the settings tab.",
            "Don\u2019t add a top-level heading to the settings tab.",
        )
        is None
    )
    assert (
        disagreement(
            "You shouldn't add a top-level heading to the settings tab.",
            "Don't add a top-level heading to the settings tab.",
        )
        is None
    )


def test_a_negated_claim_about_the_same_subject_is_a_contradiction():
    found = disagreement(
        "Community plugins are available on mobile, once enabled.",
        "Community plugins are not available on mobile, once enabled.",
    )
    assert found and found.kind == "negation"
    assert (
        disagreement("Are community plugins available on mobile?", "Community plugins are not available on mobile.")
        is None
    )


def status(project: str, week: int) -> Where:
    return Where(f"{project} status, week {week} > Numbers", f"2024-01-{week:02d}")


FAMILY = [
    ("Atlas", 1, "- Budget spent: EUR 7,500\n- The Atlas team shipped 3 releases in 12 days."),
    ("Atlas", 2, "- Budget spent: EUR 6,100\n- The Atlas team shipped 2 releases in 9 days."),
    ("Borealis", 1, "- Budget spent: EUR 9,900\n- The Borealis team shipped 4 releases in 14 days."),
    ("Cobalt", 1, "- Budget spent: EUR 3,300\n- The Cobalt team shipped 1 releases in 3 days."),
]


def test_notes_of_one_template_are_siblings_and_editions_not_contradictions():
    """Another project (in the title or the sentence) or another week of one project: no conflict."""
    frames = Frames.of((project + str(week), text) for project, week, text in FAMILY)
    assert frames.is_template("- Budget spent: EUR 1,000")
    for i, (project_a, week_a, text_a) in enumerate(FAMILY):
        for project_b, week_b, text_b in FAMILY[i + 1 :]:
            assert (
                disagreement(
                    text_a, text_b, frames=frames, where_a=status(project_a, week_a), where_b=status(project_b, week_b)
                )
                is None
            )
    assert disagreement(FAMILY[0][2], FAMILY[2][2]), "without the templates, the differing numbers look like conflicts"


def test_the_same_slot_of_the_same_subject_at_the_same_time_conflicts_within_a_template():
    frames = Frames.of((project + str(week), text) for project, week, text in FAMILY)
    review = Where("Atlas finance check, week 1", "2024-01-01")
    found = disagreement(
        FAMILY[0][2],
        "The Atlas team shipped 3 releases in 20 days.",
        frames=frames,
        where_a=status("Atlas", 1),
        where_b=review,
    )
    assert found and "12 days" in found.detail and "20 days" in found.detail
    assert disagreement(
        FAMILY[0][2], "- Budget spent: EUR 9,000", frames=frames, where_a=status("Atlas", 1), where_b=status("Atlas", 1)
    )


def test_a_negation_in_a_condition_or_a_qualifier_is_no_denial():
    """Found on the npm docs and the Obsidian hub: the negated words must be what the other sentence claims."""
    assert (
        disagreement(
            "It is the tag added to the package when you publish, if no explicit tag is given.",
            "It is the tag added to the package when you publish.",
        )
        is None
    )
    assert (
        disagreement(
            "You can manually install any plugin by copying main.js and manifest.json into the plugins folder.",
            "You can manually install plugins that aren't in the community list by copying main.js and manifest.json "
            "into the plugins folder.",
        )
        is None
    )


def test_ordinals_and_examples_are_no_values():
    assert (
        disagreement(
            "The videos of the 2nd week of the live sessions are up.",
            "The videos of the 3rd week of the live sessions are up.",
        )
        is None
    )
    assert (
        disagreement(
            "Schedule a suspend after a 5 minute delay.", "Schedule a suspend after a certain delay (e.g., 2 minute)."
        )
        is None
    )


@pytest.mark.parametrize(
    "a, b",
    [
        ("Strings in Rust are immutable by default.", "Strings in Rust are mutable by default."),
        ("Sync is enabled for every vault by default.", "Sync is disabled for every vault by default."),
        (
            "A manifest file is required for every community plugin.",
            "A manifest file is optional for every community plugin.",
        ),
        (
            "Smoking is allowed on the roof terrace of the office.",
            "Smoking is forbidden on the roof terrace of the office.",
        ),
        (
            "Community plugins are supported on mobile devices.",
            "Community plugins are not available on mobile devices.",
        ),
        (
            "The reader is blocking on every call to the socket.",
            "The reader is non-blocking on every call to the socket.",
        ),
    ],
)
def test_an_antonym_of_the_other_sentence_s_word_is_a_contradiction(a, b):
    found = disagreement(a, b)
    assert found and found.kind == "negation", (a, b)
    assert disagreement(b, a), "whichever passage comes first"


@pytest.mark.parametrize(
    "a, b",
    [
        ("Strings in Rust are immutable by default.", "Strings in Rust are not mutable by default."),
        ("Strings in Rust aren't immutable by default.", "Strings in Rust are mutable by default."),
        (
            "Smoking is not allowed on the roof terrace of the office.",
            "Smoking is forbidden on the roof terrace of the office.",
        ),
        ("Community plugins are supported on mobile devices.", "Community plugins are available on mobile devices."),
        ("Sync is not enabled for every vault by default.", "Sync is disabled for every vault by default."),
        ("Is sync enabled for every vault by default?", "Sync is disabled for every vault by default."),
        ("The information panel shows the date of every note.", "The formation panel shows the date of every note."),
    ],
)
def test_antonyms_that_agree_or_claim_nothing_are_no_contradiction(a, b):
    assert disagreement(a, b) is None and disagreement(b, a) is None, (a, b)


def test_an_antonym_is_read_only_where_the_other_sentence_says_its_partner():
    """ "optional" is "not required" beside "required" only: two sentences about other things are left as written."""
    assert antonyms_spelled_out("The field is optional.", "The field is documented.") == (
        "The field is optional.",
        "The field is documented.",
    )
    assert antonyms_spelled_out("The value is immutable.", "The value is mutable.") == (
        "The value is not mutable.",
        "The value is mutable.",
    )


def test_codes_of_letters_and_digits_name_subjects_but_a_value_is_no_code():
    assert names("The team of project P017 works 38 hours a week.") == {"P017"}
    assert "web03" in names("Host web03 restarts every 10 minutes.")
    assert names("It costs EUR75 per day.") == frozenset()


PROJECT = Where("Status 017 > Project P017", "2024-03-04", frozenset({"P017"}))
OTHER_PROJECT = Where("Status 018 > Project P018", "2024-03-04", frozenset({"P018"}))
REVIEW = Where("Review of P017", "2024-03-04", frozenset({"P017", "Monday"}))


def test_the_same_slot_of_other_projects_is_no_contradiction_and_of_the_same_project_is_one():
    """Status pages of numbered projects, one template: "Project P017 has a budget of EUR 40,000" and "Project
    P018 has a budget of EUR 55,000" are two subjects; a review of P017 that gives another budget conflicts."""
    budget = "Project P017 has a budget of EUR 40,000."
    frames = Frames.of((n, f"Project P{n:03d} has a budget of EUR {n},000.") for n in range(1, 6))
    assert value_conflicts(budget, "Project P018 has a budget of EUR 55,000.") == []
    assert (
        disagreement(
            budget,
            "Project P018 has a budget of EUR 55,000.",
            frames=frames,
            where_a=PROJECT,
            where_b=OTHER_PROJECT,
        )
        is None
    )
    found = disagreement(
        budget, "Project P017 has a budget of EUR 55,000.", frames=frames, where_a=PROJECT, where_b=REVIEW
    )
    assert found and "EUR 55,000" in found.detail
    frozen, thawed = (
        "Deploys of project P017 are frozen this month.",
        "Deploys of project P017 are not frozen this month.",
    )
    assert disagreement(thawed, frozen, where_a=PROJECT, where_b=REVIEW), "an id is a word of the claim"
    assert disagreement(thawed, frozen.replace("P017", "P018"), where_a=PROJECT, where_b=OTHER_PROJECT) is None


def person(name: str) -> Where:
    return Where(f"{name} > {name} > Employment", "2024-03-04", frozenset({"Fridays"}))


def test_a_page_whose_sentences_name_nobody_is_about_its_title():
    """A staff directory: "She has 25 days of annual leave" on one person's page is not what another person's
    page says, nor what an e-mail about someone else says; an e-mail about this person conflicts."""
    pages = [
        f"She has {d} days of annual leave. She may{m} work remotely on Fridays."
        for d in (22, 25, 26)
        for m in ("", " not")
    ]
    frames = Frames.of(enumerate(pages))
    ana, greta = person("Ana Jensen"), person("Greta Gallo")
    assert disagreement(pages[0], pages[2], frames=frames, where_a=ana, where_b=greta) is None
    denied = "She has 22 days of annual leave. She may not work remotely on Fridays."
    assert disagreement(pages[0], denied, frames=frames, where_a=ana, where_b=person("Ana Gallo")) is None
    mail = Where("Re: Carla Jensen", "2024-03-04", frozenset({"Jensen"}))
    claim = "Carla Jensen has 30 days of annual leave."
    assert frames.apart(claim, mail, "She has 28 days of annual leave.", ana)
    assert not frames.apart(claim, mail, "She has 28 days of annual leave.", person("Carla Jensen"))


def test_a_pronoun_and_the_name_it_stands_for_are_one_subject_of_a_negation():
    """ "She may work remotely on Fridays" on Olga Moreau's page is denied by an e-mail's "Olga Moreau may not
    work remotely on Fridays"; the page of another person is not."""
    page = "She may work remotely on Fridays."
    mail = "Olga Moreau may not work remotely on Fridays."
    frames = Frames.of(enumerate([page] + [page.replace("may", "may not")] * 3))
    found = disagreement(
        page, mail, frames=frames, where_a=person("Olga Moreau"), where_b=Where("Re: Olga Moreau", "2024-03-04")
    )
    assert found and found.kind == "negation"
    assert (
        disagreement(
            page, mail, frames=frames, where_a=person("Vera Schmidt"), where_b=Where("Re: Olga Moreau", "2024-03-04")
        )
        is None
    )


@pytest.mark.parametrize(
    "a, b",
    [
        ("The export call is synchronous in the public API.", "The export call is asynchronous in the public API."),
        (
            "Two-factor login is mandatory for every admin account.",
            "Two-factor login is optional for every admin account.",
        ),
        ("Uploads are accepted over the public API.", "Uploads are rejected over the public API."),
        ("Remote work is allowed for all engineers.", "Remote work is disallowed for all engineers."),
        ("The service is stateless across every request.", "The service is stateful across every request."),
        (
            "Access to the reports is granted to every contractor.",
            "Access to the reports is denied to every contractor.",
        ),
        ("Shipping costs are included in the quoted price.", "Shipping costs are excluded from the quoted price."),
    ],
)
def test_curated_antonyms_say_the_opposite(a, b):
    found = disagreement(a, b)
    assert found and found.kind == "negation"


@pytest.mark.parametrize(
    "a, b",
    [
        ("The export call is synchronous in the public API.", "The export call is not asynchronous in the public API."),
        (
            "Two-factor login is mandatory for every admin account.",
            "Two-factor login is required for every admin account.",
        ),
        (
            "Open the settings file in the editor before you start.",
            "The settings file is closed in the editor before you start.",
        ),
    ],
)
def test_an_antonym_negated_or_a_synonym_agrees(a, b):
    assert disagreement(a, b) is None


def test_a_sentence_naming_part_of_its_title_speaks_of_the_whole_title():
    """ "Bruno works 20 hours a week" (a first word is no name to ``names``) on the page of Bruno Petrov is not
    what the page of Bruno Nakamura says; an e-mail "Re: Ana Silva" is about Ana Silva's page."""
    assert (
        disagreement(
            "Bruno works 20 hours a week.",
            "Bruno works 40 hours a week.",
            where_a=person("Bruno Petrov"),
            where_b=person("Bruno Nakamura"),
        )
        is None
    )
    assert Frames().apart(
        "Ingrid works 36 hours a week.", person("Ingrid Haddad"), "Ana works 32 hours a week.", person("Ana Silva")
    )
    assert not Frames().apart(
        "Ana Silva works 36 hours a week.", Where("Re: Ana Silva"), "Ana works 32 hours a week.", person("Ana Silva")
    )


def test_a_note_subject_is_its_few_identifiers_and_the_numbered_names_of_its_title():
    """The identifiers a note names in any passage and its title's numbered names are what the note is about; a
    note naming many identifiers is about none of them in particular."""
    from smartvec_cli.memory.contradiction import note_subject, other_notes

    page = note_subject("Falcon Sprint 14", ["Board FAL-S14. Goal: search filters.", "Velocity was 32 points."])
    assert page == {"FAL-S14", "sprint#14"}
    assert note_subject("Incidents", [f"Alert ALR-{n} fired twice." for n in range(10)]) == frozenset()
    assert other_notes(page, note_subject("Retro: Falcon, sprint 13", ["Velocity was 40 points."]))
    assert not other_notes(page, note_subject("Retro: Falcon, sprint 14", ["Velocity was 40 points."]))
    assert not other_notes(page, note_subject("Call with finance", ["Board FAL-S14 had 5 tickets."]))
    assert not other_notes(page, note_subject("Weekly notes", ["Velocity was 40 points."]))  # names no subject


def test_a_count_of_things_is_a_value_and_a_label_or_a_time_is_not():
    """ "41 points" and "12 open tickets" are counts (``count:point``), compared like any value; a number after a
    capitalised word inside a sentence ("see Sprint 24 notes"), a year, and the minutes of a time followed by the
    next sentence ("Woke at 6:57. Focus for the day") count nothing."""
    from smartvec_cli.memory.contradiction import quantities, value_conflicts

    def read(text):
        return [(q.written, q.unit) for q in quantities(text)]

    assert read("Velocity was 41 points.") == [("41 points", "count:point")]
    assert read("Project P017 has 12 open tickets.") == [("12 open tickets", "count:ticket")]
    assert read("Walked 3735 steps.") == [("3735 steps", "count:step")]
    assert read("Woke at 6:57. Focus for the day: the audit log.") == []
    assert read("See Sprint 24 notes.") == []
    assert read("The 2024 budgets are final.") == []
    assert read("Sprint 24 retro notes") == []
    assert read("Listing 13-22 shows an example.") == []
    assert read("Figure 3 shows the result.") == []
    assert value_conflicts("Velocity was 41 points.", "The velocity was 44 points.")
    assert not value_conflicts("Velocity was 41 points.", "41 points of velocity, said the team.")
    assert not value_conflicts("Velocity was 41 points.", "Closed 44 tickets.")  # other things counted


def test_a_sentence_speaks_of_the_day_it_names():
    """Days named in full are read whatever their form; two sentences naming different days are apart, and a month
    or a weekday is no subject's name."""
    from smartvec_cli.memory.contradiction import Frames, Where, frame_key, named_days, names

    assert named_days("On Friday 6 January 2023 I ran 11 km.") == {"2023-01-06"}
    assert named_days("Met on Jan 6, 2023 and on 2023-01-09.") == {"2023-01-06", "2023-01-09"}
    assert named_days("On 31 February 2023 nothing happened.") == frozenset()
    assert names("On Friday 6 January 2023 Ana ran 11 km.") == {"Ana"}
    review = Where("Weekly review", "2023-01-08")
    assert Frames().apart("On 6 January 2023 I ran 11 km.", review, "On 9 January 2023 I ran 5 km.", review)
    daily = Where("2023-01-06 > Health", "2023-01-06")
    other = Where("2023-01-05 > Health", "2023-01-05")
    frames = Frames(frozenset({frame_key("Ran 6 km after work.")}))  # every daily note says it
    claim = "On Friday 6 January 2023 I ran 11 km after work."
    assert not frames.apart(claim, review, "Ran 6 km after work.", daily)
    assert frames.apart(claim, review, "Ran 5 km after work.", other)


def test_code_blocks_and_bracketed_years_state_no_value():
    """A program's output in a fenced block is an example, not a statement; a unit and a number with a sentence's
    end or a bracket between them ("these days? (2021)") are not one value."""
    from smartvec_cli.memory.contradiction import quantities, value_conflicts

    output = "Cargo fetches the crates:\n\n```console\n$ cargo build\n  Downloaded 3 crates (162.9KiB) in 0.59s\n```\n"
    assert not value_conflicts(output, "```console\n  Downloaded 1 crate (213.6 KB) in 0.40s\n```")
    assert value_conflicts(output + "\nA clean build takes 5 seconds.", "A clean build takes 9 seconds.")
    assert [q.unit for q in quantities("What's the best TV to buy these days? (2021)")] == []
    assert [q.written for q in quantities("Slides change every 30 days (or sooner).")] == ["30 days"]
