"""Which questions ask for a value, and which passages state one (memory.answer)."""

import pytest

from smartvec_cli.memory.answer import ALL_UNITS, MONEY_UNITS, TIME_UNITS, about_words, asked_units, states_value


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
    assert states_value(units, about, "Each new parent receives 12 weeks of fully paid parental leave after a birth or adoption.")
    assert not states_value(units, about, "This policy describes the paid time off for parents after a birth or an adoption.")
