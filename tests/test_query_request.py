"""``QueryRequest``: the one shape of a question's options, checked when made, carried by the query socket."""

import dataclasses
import datetime as dt
import json

import pytest

from smartvec_cli.core.results import QueryRequest
from smartvec_cli.errors import UsageError


def test_the_defaults_are_the_commands_and_travel_as_the_socket_protocol_documents():
    assert QueryRequest().to_json() == {
        "top_k": 5,
        "mode": "smart",
        "as_of": None,
        "include_archived": False,
        "include_dormant": False,
        "weights": None,
        "record_access": True,
    }


def test_a_request_comes_back_from_its_json_as_it_was():
    request = QueryRequest(
        as_of="mid-2022",
        top_k=7,
        mode="cosine",
        include_archived=True,
        include_dormant=True,
        weights="semantic=1,temporal=0",
        track=False,
        tag=["project"],
        path="projects/**",
        where=["status=done"],
        since="2022-01-01",
        until="March 2023",
    )
    wire = json.loads(json.dumps(request.to_json()))
    assert wire["filters"] == {
        "path": ["projects/**"],
        "tag": ["project"],
        "where": ["status=done"],
        "since": "2022-01-01",
        "until": "March 2023",
    }
    back = QueryRequest.from_json(wire)
    assert back.to_json() == wire
    assert (back.top_k, back.mode, back.as_of, back.track, back.include_dormant) == (
        7,
        "cosine",
        "mid-2022",
        False,
        True,
    )
    assert QueryRequest(as_of=dt.date(2023, 3, 1)).to_json()["as_of"] == "2023-03-01"
    assert QueryRequest(weights={"semantic": 1.0}).to_json()["weights"] == {"semantic": 1.0}


def test_a_key_of_another_version_is_a_type_error_and_a_bad_value_a_usage_error():
    with pytest.raises(TypeError, match="unknown search options: colour"):
        QueryRequest.from_json({"colour": "blue"})
    with pytest.raises(UsageError, match="'filters' must be an object"):
        QueryRequest.from_json({"filters": ["a"]})
    with pytest.raises(UsageError, match="unknown filter fields: colour"):
        QueryRequest.from_json({"filters": {"colour": "blue"}})
    with pytest.raises(UsageError, match="top_k must be a whole number from 1 to 1000"):
        QueryRequest.from_json({"top_k": "3"})


@pytest.mark.parametrize(
    "fields, says",
    [
        ({"mode": "psychic"}, "mode must be one of smart, cosine, lexical"),
        ({"top_k": 0}, "top_k must be a whole number"),
        ({"top_k": True}, "top_k must be a whole number"),
        ({"weights": "semantic=nan"}, "semantic=nan"),
        ({"as_of": "someday"}, "someday"),
        ({"tag": [""]}, "--tag needs a tag"),
        ({"where": ["no equals sign"]}, "--where takes key=value"),
        ({"since": "2024-01-01", "until": "2023-01-01"}, "is after --until"),
    ],
)
def test_making_a_request_is_its_check(fields, says):
    with pytest.raises(UsageError, match=says):
        QueryRequest(**fields)


def test_a_request_is_frozen_and_takes_keywords_only():
    request = QueryRequest(top_k=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.top_k = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        QueryRequest(None, 2)  # type: ignore[misc]


def test_a_batch_lines_filter_fields_replace_the_requests_own_and_are_checked_with_them():
    shared = QueryRequest(tag="a", path="notes/**", until="2023-12-31")
    own = shared.with_filters({"tag": ["b"], "path": "", "where": [], "query": "ignored"})
    assert (own.tag, own.path, own.until) == (["b"], "notes/**", "2023-12-31")
    assert shared.with_filters({"path": None}) is shared
    with pytest.raises(UsageError, match="is after --until"):
        shared.with_filters({"since": "2024-06-01"})
