"""Dates in plain words: each phrase with the period it names and the moment it resolves to."""

import datetime as dt
import json
import subprocess
import sys

import pytest
from conftest import REPO, index_rows, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smartvec_cli.errors import UsageError
from smartvec_cli.memory import asof
from smartvec_cli.memory.asof import AFTER, AGO, BEFORE, DAY, MIDDLE, parse_as_of, resolve_as_of
from smartvec_cli.memory.temporal import note_time

NOW = dt.datetime(2026, 11, 29, 9, tzinfo=dt.timezone.utc)

# (question, words it takes as the date, first day, last day, moment's day, rule)
PHRASES = [
    ("policy in mid-2022?", "in mid-2022", "2022-06-01", "2022-07-31", "2022-07-01", MIDDLE),
    ("leave around mid-2025", "around mid-2025", "2025-06-01", "2025-07-31", "2025-07-01", MIDDLE),
    ("per diem in spring 2023", "in spring 2023", "2023-03-01", "2023-05-31", "2023-04-15", MIDDLE),
    ("per diem over the summer of 2023", "over the summer of 2023", "2023-06-01", "2023-08-31", "2023-07-16", MIDDLE),
    ("leave in autumn 2022", "in autumn 2022", "2022-09-01", "2022-11-30", "2022-10-16", MIDDLE),
    ("leave in the fall of 2022", "in the fall of 2022", "2022-09-01", "2022-11-30", "2022-10-16", MIDDLE),
    ("office rules in winter 2023", "in winter 2023", "2023-12-01", "2024-02-29", "2024-01-15", MIDDLE),
    ("what was it before 2023", "before 2023", None, "2022-12-31", "2022-12-31", BEFORE),
    ("the limit before March 2023", "before March 2023", None, "2023-02-28", "2023-02-28", BEFORE),
    ("the limit after 2022", "after 2022", "2023-01-01", None, "2023-01-01", AFTER),
    ("per diem at the start of 2021", "at the start of 2021", "2021-01-01", "2021-02-28", "2021-01-30", MIDDLE),
    ("per diem at the beginning of 2024", "at the beginning of 2024", "2024-01-01", "2024-02-29", "2024-01-30", MIDDLE),
    ("per diem at the end of 2025", "at the end of 2025", "2025-11-01", "2025-12-31", "2025-12-01", MIDDLE),
    ("per diem in early 2024", "in early 2024", "2024-01-01", "2024-04-30", "2024-03-01", MIDDLE),
    ("per diem in late 2024", "in late 2024", "2024-09-01", "2024-12-31", "2024-10-31", MIDDLE),
    ("per diem in early March 2023", "in early March 2023", "2023-03-01", "2023-03-10", "2023-03-05", MIDDLE),
    ("per diem in mid-March 2023", "in mid-March 2023", "2023-03-11", "2023-03-20", "2023-03-15", MIDDLE),
    ("per diem in late March 2023", "in late March 2023", "2023-03-21", "2023-03-31", "2023-03-26", MIDDLE),
    ("per diem on 03/05/2023", "on 03/05/2023", "2023-05-03", "2023-05-03", "2023-05-03", DAY),  # day first
    ("per diem on 03/13/2023", "on 03/13/2023", "2023-03-13", "2023-03-13", "2023-03-13", DAY),  # 13 cannot be a month
    ("per diem on 05.03.2023", "on 05.03.2023", "2023-03-05", "2023-03-05", "2023-03-05", DAY),
    ("per diem on 2023/03/05", "on 2023/03/05", "2023-03-05", "2023-03-05", "2023-03-05", DAY),
    ("per diem on the 5th of March 2023", "on the 5th of March 2023", "2023-03-05", "2023-03-05", "2023-03-05", DAY),
    ("per diem on 5 March 2023", "on 5 March 2023", "2023-03-05", "2023-03-05", "2023-03-05", DAY),
    ("per diem on March 5th, 2023", "on March 5th, 2023", "2023-03-05", "2023-03-05", "2023-03-05", DAY),
    ("as of 2022-05-01 what was the per diem", "as of 2022-05-01", "2022-05-01", "2022-05-01", "2022-05-01", DAY),
    ("what was the policy from 2021 to 2023", "from 2021 to 2023", "2021-01-01", "2023-12-31", "2022-07-02", MIDDLE),
    (
        "leave between March 2022 and May 2022",
        "between March 2022 and May 2022",
        "2022-03-01",
        "2022-05-31",
        "2022-04-15",
        MIDDLE,
    ),
    ("the remote work policy in March 2022?", "in March 2022", "2022-03-01", "2022-03-31", "2022-03-16", MIDDLE),
    ("policy in 2022-05", "in 2022-05", "2022-05-01", "2022-05-31", "2022-05-16", MIDDLE),
    ("policy in Q3 2023", "in Q3 2023", "2023-07-01", "2023-09-30", "2023-08-15", MIDDLE),
    (
        "policy in the third quarter of 2023",
        "in the third quarter of 2023",
        "2023-07-01",
        "2023-09-30",
        "2023-08-15",
        MIDDLE,
    ),
    ("policy in the first half of 2023", "in the first half of 2023", "2023-01-01", "2023-06-30", "2023-04-01", MIDDLE),
    ("back in 2021, how many weeks", "back in 2021", "2021-01-01", "2021-12-31", "2021-07-02", MIDDLE),
    ("what was the rule last year", "last year", "2025-01-01", "2025-12-31", "2025-07-02", MIDDLE),
    ("what was the rule last spring", "last spring", "2026-03-01", "2026-05-31", "2026-04-15", MIDDLE),
    ("what was the rule last quarter", "last quarter", "2026-07-01", "2026-09-30", "2026-08-15", MIDDLE),
    ("leave rules two years ago", "two years ago", "2024-11-29", "2024-11-29", "2024-11-29", AGO),
    ("leave rules 3 weeks ago", "3 weeks ago", "2026-11-08", "2026-11-08", "2026-11-08", AGO),
    ("leave rules yesterday", "yesterday", "2026-11-28", "2026-11-28", "2026-11-28", AGO),
]

# (question, vault language, words it takes as the date, the English phrase that names the same period)
TRANSLATED = [
    ("Wie viele Tage im Sommer 2022?", "de", "im Sommer 2022", "in summer 2022"),
    ("Regeln Anfang 2023", "de", "Anfang 2023", "early 2023"),
    ("Regeln Mitte 2022", "de", "Mitte 2022", "mid-2022"),
    ("Regeln Ende 2024", "de", "Ende 2024", "late 2024"),
    ("Was galt vor März 2021?", "de", "vor März 2021", "before March 2021"),
    ("Was galt nach 2022?", "de", "nach 2022", "after 2022"),
    ("Regeln Mitte März 2023", "de", "Mitte März 2023", "mid-March 2023"),
    ("Spesen am 5. März 2023", "de", "am 5. März 2023", "on 5 March 2023"),
    ("Spesen im 3. Quartal 2023", "de", "im 3. Quartal 2023", "Q3 2023"),
    ("Spesen im Jahr 2021", "de", "im Jahr 2021", "in 2021"),
    ("Spesen von 2021 bis 2023", "de", "von 2021 bis 2023", "from 2021 to 2023"),
    (
        "Urlaub zwischen März 2022 und Mai 2022",
        "de",
        "zwischen März 2022 und Mai 2022",
        "between March 2022 and May 2022",
    ),
    ("¿Cuántos días a principios de 2023?", "es", "a principios de 2023", "in early 2023"),
    ("¿Cuántos días en el verano de 2022?", "es", "en el verano de 2022", "in the summer of 2022"),
    ("dietas a mediados de 2022", "es", "a mediados de 2022", "mid-2022"),
    ("dietas antes de marzo de 2021", "es", "antes de marzo de 2021", "before March 2021"),
    ("dietas el 5 de marzo de 2023", "es", "el 5 de marzo de 2023", "5 March 2023"),
    ("dietas en el tercer trimestre de 2023", "es", "en el tercer trimestre de 2023", "the third quarter of 2023"),
    ("dietas de 2021 a 2023", "es", "de 2021 a 2023", "from 2021 to 2023"),
    ("Combien de jours à la mi-2022 ?", "fr", "à la mi-2022", "mid-2022"),
    ("Combien de jours au printemps 2021 ?", "fr", "au printemps 2021", "in spring 2021"),
    ("la règle avant mars 2021", "fr", "avant mars 2021", "before March 2021"),
    ("la règle fin 2024", "fr", "fin 2024", "late 2024"),
    ("la règle début mars 2023", "fr", "début mars 2023", "early March 2023"),
    ("la règle le 1er mars 2023", "fr", "le 1er mars 2023", "1 March 2023"),
    ("la règle en l'an 2021", "fr", "en l'an 2021", "in 2021"),
    ("2022年夏天有多少天假？", "zh", "2022年夏天", "summer 2022"),
    ("2023年初的规定", "zh", "2023年初", "early 2023"),
    ("2021年3月之前的规定", "zh", "2021年3月之前", "before March 2021"),
    ("2023年3月5日的规定", "zh", "2023年3月5日", "5 March 2023"),
    ("2023年3月下旬的规定", "zh", "2023年3月下旬", "late March 2023"),
    ("2023年第三季度的规定", "zh", "2023年第三季度", "Q3 2023"),
    ("2021年到2023年的规定", "zh", "2021年到2023年", "from 2021 to 2023"),
    ("Was galt letztes Jahr?", "de", "letztes Jahr", "last year"),
    ("Regeln im letzten Sommer", "de", "im letzten Sommer", "last summer"),
    ("Spesen im vergangenen Monat", "de", "im vergangenen Monat", "last month"),
    ("Spesen vor 3 Jahren", "de", "vor 3 Jahren", "3 years ago"),
    ("Was galt gestern?", "de", "gestern", "yesterday"),
    ("¿Qué regla valía el año pasado?", "es", "el año pasado", "last year"),
    ("dietas del trimestre pasado", "es", "trimestre pasado", "last quarter"),
    ("dietas hace 2 semanas", "es", "hace 2 semanas", "2 weeks ago"),
    ("la règle de l'année dernière", "fr", "l'année dernière", "last year"),
    ("la règle de l'été dernier", "fr", "l'été dernier", "last summer"),
    ("la règle il y a 3 jours", "fr", "il y a 3 jours", "3 days ago"),
    ("去年的规定", "zh", "去年", "last year"),
    ("上个月的规定", "zh", "上个月", "last month"),
    ("3年前的规定", "zh", "3年前", "3 years ago"),
]

NOT_DATES = [
    "may I work from home",
    "May I work from home on Fridays?",
    "the second week of onboarding",
    "what is it now",
    "leave for 2 weeks",
    "what changed in version 2023.1",
    "the fee is EUR 2024",
    "the KX-2023 router",
    "within 30 days",
    "in 5 minutes",
    "What is the 2025 budget?",
    "Is port 8883 open?",
    "How many days of leave?",
    "release notes of version 2023.01.05",
    "a march through the park",
    "in spring",
    "the fall of prices",
]


@pytest.mark.parametrize("question, words, first, last, day, rule", PHRASES)
def test_date_phrases_name_a_period_and_a_moment(question, words, first, last, day, rule):
    found = parse_as_of(question, NOW)
    assert found is not None, question
    assert (found.phrase, found.rule) == (words, rule)
    assert (found.first_day and found.first_day.isoformat(), found.last_day and found.last_day.isoformat()) == (
        first,
        last,
    )
    assert found.moment.date().isoformat() == day
    assert found.moment.hour == (NOW.hour if rule == AGO else 12)


@pytest.mark.parametrize("question", NOT_DATES)
def test_phrases_that_are_not_dates(question):
    assert parse_as_of(question, NOW) is None


def _period(found):
    return found.first_day, found.last_day, found.moment, found.rule


@pytest.mark.parametrize("question, language, words, english", TRANSLATED)
def test_date_phrases_in_the_vaults_language_name_the_same_period_as_in_english(question, language, words, english):
    found = parse_as_of(question, NOW, [language, "en"])
    assert found is not None and found.phrase == words
    assert _period(found) == _period(parse_as_of(english, NOW))
    assert _period(resolve_as_of(words, NOW, [language])) == _period(found)


@pytest.mark.parametrize("question, language, words, english", TRANSLATED)
def test_a_question_asked_in_another_language_than_its_vault_s_reads_its_own_dates(question, language, words, english):
    found = parse_as_of(question, NOW, ["en"])
    assert found is not None and found.phrase == words
    assert _period(found) == _period(parse_as_of(english, NOW))


@pytest.mark.parametrize(
    "question",
    [
        "is a hierarchy note a good way to start with breadcrumbs",  # French "hier": yesterday
        "Show the contents of the selected Linux control group hierarchy in a tree.",
        "which layer holds the cache",  # Spanish "ayer"
    ],
)
def test_a_date_word_of_another_language_inside_an_english_word_is_no_date(question):
    assert parse_as_of(question, NOW, ["en"]) is None
    assert parse_as_of(question, NOW, ["fr", "es"]) is None


def test_english_phrases_still_resolve_in_a_vault_of_another_language():
    assert _period(parse_as_of("leave in mid-2022", NOW, ["de"])) == _period(parse_as_of("leave in mid-2022", NOW))


def test_an_impossible_day_in_another_language_is_refused():
    with pytest.raises(UsageError, match="impossible date"):
        parse_as_of("Spesen am 30. Februar 2023", NOW, ["de"])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.from_regex(asof._search()))
def test_every_date_phrase_passes_the_cheap_check_that_spares_compiling_the_search(text):
    """A question the cheap check turns away is never searched: it must hold nothing the search would find."""
    assert asof._MAY_NAME_A_TIME.search(text), text


def test_a_question_without_a_time_is_answered_without_compiling_the_search():
    ask = (
        "import datetime as dt, sys; from smartvec_cli.memory import asof\n"
        "found = asof.parse_as_of({!r}, dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))\n"
        "print(found is not None, asof._search.cache_info().currsize, file=sys.stderr)"
    )
    assert _imports(ask.format("What is the travel per diem?")).splitlines()[-1] == "False 0"
    assert _imports(ask.format("What was the per diem last spring?")).splitlines()[-1] == "True 1"


def test_the_date_words_leave_the_embedded_text():
    assert (
        parse_as_of("What was the remote work policy in mid-2022?", NOW).remainder == "What was the remote work policy?"
    )
    assert parse_as_of("from 2021 to 2023, what was the per diem", NOW).remainder == "what was the per diem"


@pytest.mark.parametrize(
    "value, moment, rule",
    [
        ("March 2023", "2023-03-16T12:00:00Z", MIDDLE),
        ("mid-2022", "2022-07-01T12:00:00Z", MIDDLE),
        ("last spring", "2026-04-15T12:00:00Z", MIDDLE),
        ("2023-03-05", "2023-03-05T12:00:00Z", DAY),
        ("2023-03-05T09:30", "2023-03-05T09:30:00Z", "the moment given"),
        ("2023", "2023-07-02T12:00:00Z", MIDDLE),
        ("in spring 2023", "2023-04-15T12:00:00Z", MIDDLE),
        ("03/05/2023", "2023-05-03T12:00:00Z", DAY),
        (dt.date(2023, 3, 5), "2023-03-05T12:00:00Z", "the moment given"),
    ],
)
def test_as_of_values_take_the_same_words(value, moment, rule):
    found = resolve_as_of(value, NOW)
    assert (found.to_json()["moment"], found.rule) == (moment, rule)


@pytest.mark.parametrize("value", ["someday", "the day after tomorrow", "may", "March 2023 and more", "2 weeks"])
def test_as_of_values_that_are_not_dates_are_usage_errors(value):
    with pytest.raises(UsageError, match="not a date"):
        resolve_as_of(value, NOW)


@pytest.mark.parametrize(
    "metadata, path, doc_date",
    [
        ({"date": "2023-03-05"}, "notes/a.md", "2023-03-05T00:00:00Z"),
        ({"date": "5 March 2023"}, "notes/a.md", "2023-03-05T00:00:00Z"),
        ({"created": "March 5, 2023"}, "notes/a.md", "2023-03-05T00:00:00Z"),
        ({"date": "05.03.2023"}, "notes/a.md", "2023-03-05T00:00:00Z"),
        ({"date": "03/13/2023"}, "notes/a.md", "2023-03-13T00:00:00Z"),
        ({}, "meetings/2023-03-05 Team sync.md", "2023-03-05T00:00:00Z"),
        ({}, "journal/2023_03_05.md", "2023-03-05T00:00:00Z"),
        ({"date": "2024-01-01"}, "meetings/2023-03-05 sync.md", "2024-01-01T00:00:00Z"),  # the frontmatter wins
        ({"date": "soon"}, "notes/a.md", None),
        ({}, "notes/version 2023.md", None),
    ],
)
def test_note_dates_in_any_common_format_and_in_file_names(metadata, path, doc_date):
    assert note_time(metadata, path).doc_date == doc_date


def _imports(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_dateparser_is_imported_only_for_a_written_day():
    ask = (
        "import datetime as dt; from smartvec_cli.memory.asof import parse_as_of; print(parse_as_of({!r}, "
        "dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)))"
    )
    assert "dateparser" not in _imports(ask.format("How many days of leave?"))
    assert "dateparser" not in _imports(ask.format("How many days of leave in mid-2022?"))
    assert "dateparser" in _imports(ask.format("How many days of leave on 03/05/2023?"))
    assert "dateparser" not in _imports(
        "import sys; sys.argv = ['smartvec', '--help']\nfrom smartvec_cli.cli.main import run\ntry:\n    run()\n"
        "except SystemExit:\n    pass"
    )


@pytest.fixture
def dated_policy(vault, cli, fake_embedder):
    """Two versions of a per diem: EUR 45 until mid-2022, EUR 60 since."""
    write(
        vault,
        "policies/travel-v1.md",
        "---\ntitle: Travel v1\nsource_type: policy\nvalid_from: 2020-01-01\nvalid_until: 2022-07-01\n---\n# Travel\n"
        "\nThe per diem is EUR 45.\n",
    )
    write(
        vault,
        "policies/travel-v2.md",
        "---\ntitle: Travel v2\nsource_type: policy\nvalid_from: 2022-07-01\n---\n# Travel\n\n"
        "The per diem is EUR 60.\n",
    )
    cli.json("--now", "2026-01-01", "index", "--json")
    return vault


def test_as_of_flag_takes_words_and_the_answer_says_where_its_moment_came_from(dated_policy, cli):
    hits = cli.json(
        "--now", "2026-01-01", "query", "per diem", "--as-of", "spring 2022", "--json", "--explain", "--no-track"
    )
    assert "EUR 45" in hits[0]["text"]
    assert hits[0]["explain"]["as_of"] == {
        "moment": "2022-04-15T12:00:00Z",
        "words": "spring 2022",
        "first_day": "2022-03-01",
        "last_day": "2022-05-31",
        "rule": MIDDLE,
    }
    hits = cli.json("--now", "2026-01-01", "query", "per diem before 2023", "--json", "--explain", "--no-track")
    assert "EUR 60" in hits[0]["text"] and hits[0]["explain"]["as_of"]["rule"] == BEFORE
    shown = cli("--now", "2026-01-01", "query", "per diem in early 2022", "--no-track", "--top-k", "1")
    assert shown.stdout.startswith(
        'as of 2022-03-01T12:00:00Z ("in early 2022": 2022-01-01 to 2022-04-30, the middle of the period)'
    )
    assert "EUR 45" in shown.stdout
    bad = cli("--now", "2026-01-01", "query", "per diem", "--as-of", "someday")
    assert bad.exit_code == 2 and "not a date" in bad.stderr


def test_the_api_answer_carries_the_period_and_rule(dated_policy, fake_embedder):
    from smartvec_cli.core.api import open_vault

    with open_vault(dated_policy, now="2026-01-01") as vault:
        answer = vault.answer("per diem", as_of="mid-2022", track=False)
    assert (answer.as_of, answer.as_of_phrase, answer.as_of_period, answer.as_of_rule) == (
        "2022-07-01T12:00:00Z",
        "mid-2022",
        ("2022-06-01", "2022-07-31"),
        MIDDLE,
    )
    assert "EUR 60" in answer.hits[0].text
    assert json.loads(json.dumps(answer.to_dict()))["as_of_period"] == ["2022-06-01", "2022-07-31"]


def test_a_german_vault_answers_a_german_question_as_of_its_summer(vault, cli, fake_embedder):
    write(
        vault,
        "richtlinien/urlaub.md",
        "---\ntitle: Urlaub\nsource_type: policy\n---\n# Urlaub\n\n"
        "Mitarbeitende haben im Jahr dreißig Tage Urlaub. Der Urlaub wird bei der Teamleitung beantragt und "
        "im Kalender des Teams eingetragen, damit die Vertretung geplant werden kann.\n",
    )
    write(
        vault,
        "richtlinien/homeoffice.md",
        "# Homeoffice\n\nWir arbeiten bis zu drei Tage in der Woche von zu Hause. Die "
        "Kernzeit liegt zwischen zehn und fünfzehn Uhr, und Besprechungen finden am Dienstag im Büro statt.\n",
    )
    cli.json("--now", "2026-01-01", "index", "--json")
    assert cli.json("--now", "2026-01-01", "status", "--json")["embedder"]["languages"] == ["de"]
    # "Urlaub" alone is a keyword lookup: the fake model's cosines find nothing, and a German noun's capital names
    # nothing
    hits = cli.json("--now", "2026-01-01", "query", "Urlaub im Sommer 2022?", "--json", "--explain", "--no-track")
    assert hits[0]["explain"]["as_of"] == {
        "moment": "2022-07-16T12:00:00Z",
        "words": "im Sommer 2022",
        "first_day": "2022-06-01",
        "last_day": "2022-08-31",
        "rule": MIDDLE,
    }


def test_front_matter_days_written_in_the_vault_s_language_are_read(vault, cli, fake_embedder):
    """``effective: 1. März 2023`` in a German vault is that day, as "1 March 2023" is in an English one; an
    English vault does not read German month names."""
    prose = (
        "Mitarbeitende haben im Jahr dreißig Tage Urlaub. Der Urlaub wird bei der Teamleitung beantragt und "
        "im Kalender des Teams eingetragen, damit die Vertretung geplant werden kann.\n"
    )
    write(
        vault,
        "richtlinien/urlaub.md",
        "---\ntitle: Urlaub\neffective: 1. März 2023\nexpires: 31. Dezember 2024\n"
        "date: 15. Februar 2023\n---\n# Urlaub\n\n" + prose,
    )
    write(
        vault,
        "richtlinien/homeoffice.md",
        "# Homeoffice\n\nWir arbeiten bis zu drei Tage in der Woche von zu Hause. Die "
        "Kernzeit liegt zwischen zehn und fünfzehn Uhr, und Besprechungen finden am Dienstag im Büro statt.\n",
    )
    cli.json("--now", "2026-01-01", "index", "--json")
    shown = cli.json("--now", "2026-01-01", "show", "richtlinien/urlaub.md", "--json")
    assert shown["passages"][0]["valid_from"].startswith("2023-03-01")
    assert shown["passages"][0]["valid_until"].startswith("2024-12-31")
    assert index_rows("SELECT doc_date FROM notes WHERE path = 'richtlinien/urlaub.md'")[0][0].startswith("2023-02-15")


def test_an_english_vault_does_not_read_german_month_names():
    from smartvec_cli.memory.temporal import first_date

    assert first_date({"effective": "1. März 2023"}, ("effective",)) is None
    assert first_date({"effective": "1. März 2023"}, ("effective",), ("de",)) == "2023-03-01T00:00:00Z"
    assert first_date({"effective": "1 March 2023"}, ("effective",), ("de",)) == "2023-03-01T00:00:00Z"
