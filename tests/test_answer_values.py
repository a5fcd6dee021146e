"""Which questions ask for a value, and which passages state one (memory.answer)."""

import pytest
from conftest import write

from smartvec_cli.memory.answer import (
    ALL_UNITS,
    MONEY_UNITS,
    TIME_UNITS,
    AskedAnswer,
    about_words,
    asked_units,
    asks_for_person,
    states_value,
)


@pytest.mark.parametrize(
    "question, units",
    [
        ("How many weeks of parental leave?", {"duration"}),  # a unit names its dimension: weeks and days compare
        ("How long is the probation?", TIME_UNITS),
        ("How much is the per diem?", MONEY_UNITS | {"percent"}),
        ("What was the paid time-off entitlement after a birth or adoption?", ALL_UNITS),
        ("What was the deadline for handing in receipts?", ALL_UNITS),
        ("Up to what value may a gift be accepted?", ALL_UNITS),
        ("What notice did leavers have to serve?", set()),  # "notice" alone names no measure; "notice period" does
        ("How large was the payout for bringing in a new colleague?", ALL_UNITS),
        ("Which limit applies to uploads?", ALL_UNITS),
        ("What is the Wi-Fi password?", set()),
        ("Who heads the Growth group?", set()),
        ("Which language is the ingestion service written in?", set()),
        ("What does the code KX-3344 tell us?", set()),
    ],
)
def test_the_units_a_question_asks_for(question, units):
    assert asked_units(question) == frozenset(units)


def test_a_measure_question_prefers_the_paragraph_with_the_number_over_the_one_that_describes_the_topic():
    question = "What was the paid time-off entitlement after a birth or adoption?"
    units, about = asked_units(question), about_words(question)
    assert states_value(
        units, about, "Each new parent receives 12 weeks of fully paid parental leave after a birth or adoption."
    )
    assert not states_value(
        units, about, "This policy describes the paid time off for parents after a birth or an adoption."
    )


def test_the_day_or_year_of_a_date_is_no_amount():
    """A policy's introduction ("Effective 1 February 2025. This version replaces [[Business Accommodation
    Policy v4]]") holds numbers next to a word of the question, but they are a date: the sentence with the
    nightly amount states the value."""
    question = "What is the most a hotel room may cost on business trips?"
    units, about = asked_units(question), about_words(question)
    assert units == ALL_UNITS
    intro = "Effective 1 February 2025. This version replaces [[Business Accommodation Policy v4]] for business trips."
    assert not states_value(units, about, intro)
    assert not states_value(units, about, "Since 2024-05-01 business trips are booked in the portal.")
    assert states_value(units, about, "A hotel room on business trips may cost up to 200 per night.")
    assert states_value(units, about, "The business trips budget covers 12 rooms from March 3.")  # 12 is no day of it


@pytest.mark.parametrize(
    "question, person",
    [
        ("Who backs the Compass initiative?", True),
        ("Which executive stands behind Harvest?", True),
        ("Which team lead owns the rota?", True),
        ("Whose sign-off does a refund need?", True),
        ("Which datastore sits behind the Billing system?", False),
        ("What is the upload limit?", False),
        ("How many people fit in the Ember room?", False),
        ("Which phone line belongs to the Security Desk?", False),
    ],
)
def test_which_questions_ask_for_a_person(question, person):
    assert asks_for_person(question) is person


def test_a_person_question_is_answered_by_the_passage_that_names_someone_the_question_does_not():
    asked = AskedAnswer.of("Which executive stands behind Harvest?")
    assert asked.stated_by("The Harvest project is sponsored by Marta Rossi, who signs off its budget.")
    assert asked.stated_by("Questions about it go to [[Ana Duarte]].")
    assert not asked.stated_by("The Harvest project reports progress in the monthly steering committee.")
    assert not asked.stated_by("Harvest Project updates are sent on Fridays.")  # the question's own name is no answer
    assert not AskedAnswer.of("What is the upload limit?").stated_by("Marta Rossi owns the upload service.")


@pytest.mark.slow
def test_who_backs_a_project_gets_the_sponsor_paragraph(vault, cli, real_embedder):
    write(
        vault,
        "projects/Harvest Project.md",
        "# Harvest Project\n\nThe Harvest project reports progress in the monthly steering committee.\n\n"
        "The Harvest project is sponsored by Marta Rossi, who signs off its budget.\n",
    )
    cli.json("index", "--json")
    hits = cli.json("query", "Which executive stands behind Harvest?", "--json", "--no-track", "--top-k", "1")
    assert "Marta Rossi" in hits[0]["text"]


@pytest.mark.parametrize(
    "question, english",
    [
        ("Wie viele Tage Urlaub?", "How many are allowed?"),
        ("Wie lange dauert die Probezeit?", "How long is the probation?"),
        ("Wie viel kostet das Hotel?", "How much is the hotel?"),
        ("¿Cuántos días de vacaciones?", "How many are allowed?"),
        ("¿Cuánto tiempo dura?", "How long does it last?"),
        ("Combien de jours de congé ?", "How many are allowed?"),
        ("Combien de temps dure la période d'essai ?", "How long is the probation?"),
        ("有多少天假？", "How many are allowed?"),
        ("试用期多久？", "How long is the probation?"),
    ],
)
def test_value_questions_in_other_languages_ask_for_what_the_english_ones_do(question, english):
    assert asked_units(question) == asked_units(english)


@pytest.mark.parametrize(
    "question", ["Wer leitet Harvest?", "¿Quién dirige Harvest?", "Qui dirige Harvest ?", "Harvest的负责人是谁？"]
)
def test_who_in_other_languages_asks_for_a_person(question):
    assert asks_for_person(question)
