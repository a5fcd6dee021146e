"""The parts of ``Store`` the core asks for (``store.protocols``) are all there on both stores: what a new backend
must provide, checked on a real SQLite index and a real PostgreSQL database (mypy checks the signatures against
``Store``; this checks that each opened store answers to every name)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typing_extensions import get_protocol_members

from smartvec_cli.store import protocols
from smartvec_cli.store.ann import VectorIndex
from smartvec_cli.store.backend import store_backend
from smartvec_cli.store.postgres.store import PgStore
from smartvec_cli.store.sqlite import SqliteStore
from smartvec_cli.store.store import Store


@pytest.fixture(params=["sqlite", "postgres"])
def opened(request, tmp_path) -> Iterator[Store]:
    """A new, empty store of each backend, opened as a writer opens it."""
    url = request.getfixturevalue("pg_store_url") if request.param == "postgres" else None
    with store_backend(url, tmp_path / "index").open(create=True) as store:
        assert type(store) is {"sqlite": SqliteStore, "postgres": PgStore}[request.param]
        yield store


def test_each_store_is_every_part_the_core_asks_for(opened):
    for protocol in (*protocols.PROTOCOLS, protocols.Retrieval):
        missing = sorted(name for name in get_protocol_members(protocol) if not hasattr(opened, name))
        assert missing == [], (type(opened).__name__, protocol.__name__)
        assert isinstance(opened, protocol), protocol.__name__


def test_the_parts_are_small_and_name_only_what_store_has():
    """Each protocol is a part, not ``Store`` again; every name it lists is a public member of ``Store``."""
    public = {name for name in dir(Store) if not name.startswith("_")} | {"read_only"}  # set in ``__init__``
    for protocol in protocols.PROTOCOLS:
        members = get_protocol_members(protocol)
        assert len(members) <= 20, protocol.__name__
        assert members <= public, (protocol.__name__, sorted(members - public))
    assert len(public) > 3 * max(len(get_protocol_members(p)) for p in protocols.PROTOCOLS)


def test_each_store_s_vector_index_says_whether_it_has_a_graph(opened):
    """``search.nearest`` reads ``has_graph`` of whatever ``load_ann`` gives: each index declares every member of
    ``VectorIndex``."""
    ann = opened.load_ann()
    missing = sorted(name for name in get_protocol_members(VectorIndex) if not hasattr(ann, name))
    assert missing == [], type(ann).__name__
    assert ann.has_graph is True  # a new, whole index: hnswlib's graph, or pgvector's
