"""Values, units, number formats and stems that the contradiction check reads (memory.contradiction)."""

import pytest

from smartvec_cli.memory.contradiction import disagreement, quantities, repeated_outdated_value, stem, value_conflicts


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
    assert disagreement("The per diem for business travel is EUR 75 per day.", "The hotel limit for business travel is EUR 180 per night.") is None


def test_the_stemmer_is_snowball():
    assert stem("capped") == stem("cap") and stem("changed") == stem("change") and stem("hotels") == stem("hotel")


def test_the_refund_windows_disagree():
    found = disagreement("Customers get a full refund within 30 days of delivery.", "you get a refund within 14 days of delivery, I think")
    assert found and "30 days" in found.detail and "14 days" in found.detail


def test_a_shared_value_does_not_hide_one_that_differs():
    found = disagreement(
        "The Standard plan limit is 50 MB per upload and the Plus plan limit is 200 MB per upload.",
        "The Standard plan limit is 5 MB per upload and the Plus plan limit is 200 MB per upload.",
    )
    assert found and "50 MB" in found.detail and "5 MB" in found.detail


def test_a_history_of_the_value_agrees_with_the_current_value():
    assert disagreement("The per diem was EUR 60 until March, now it is EUR 75 per day.", "The per diem is EUR 75 per day.") is None


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
    assert value_conflicts(policy, "**Chiara Quiroga** 12:13\nGifts to the Lisbon team over EUR 25 go to Quiroga.") == []


def test_different_identifiers_are_different_things():
    memory = "Alert ALR-3158 fires when free memory on a worker drops under 5 percent."
    assert disagreement(memory, "Alert ALR-8956 fires when free memory on a worker drops under 2 percent.") is None
    assert disagreement(memory, "Alert ALR-3158 fires when free memory on a worker drops under 2 percent.")


def test_a_reason_shows_the_words_as_written_not_their_stems():
    found = disagreement("Customers get a full refund within 30 days of their deliveries.", "you get a refund within 14 days of delivery, I think")
    assert found and "deliveries" in found.detail and "deliveri " not in found.detail + " "


def test_an_echo_is_judged_against_the_current_value():
    outdated, current = "The phone allowance is EUR 40 per month.", "The phone allowance is EUR 25 per month."
    chat = "the phone allowance is EUR 40 per month, nothing changed"
    assert repeated_outdated_value(chat, outdated, current) == "EUR 40 per month"
    judged = []
    assert repeated_outdated_value(chat, outdated, current, lambda echo, now: judged.append((echo.written, now.written)) or False) is None
    assert judged == [("EUR 40 per month", "EUR 25 per month")]


def test_a_negation_must_restate_one_sentence_of_like_size():
    """Found on a vault of the npm docs, where whole passages were compared: a list of links that names a
    command is no negation of a paragraph that names it and says "not"."""
    see_also = "* [npm deny-scripts](/commands/npm-deny-scripts)\n* [npm install](/commands/npm-install)"
    paragraph = "List packages with install scripts that are not yet covered by the allowScripts setting of npm install."
    assert disagreement(see_also, paragraph) is None
    assert disagreement("Smoking is allowed on the roof terrace. Ask facilities for an ashtray.", "Smoking is not allowed on the roof terrace.")
