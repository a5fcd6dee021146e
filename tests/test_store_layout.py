"""The store is assembled from one query mixin per caller; two mixins must never define the same name,
or one silently shadows the other (it happened once: the indexer and the reports each had a
``note_links``). The SQLite and PostgreSQL stores each implement every operation the abstract one leaves open."""

import inspect

from smartvec_cli.store import base, fts5, graph, notes, passages, problems, reports, sqlite, store
from smartvec_cli.store.postgres.store import PgStore


def clashes(classes: list[type]) -> list[str]:
    seen: dict[str, str] = {}
    found = []
    for cls in classes:
        for name, function in inspect.getmembers(cls, inspect.isfunction):
            if name.startswith("__") or name not in cls.__dict__ or getattr(function, "__isabstractmethod__", False):
                continue  # an abstract declaration is there to be implemented, not a definition to shadow
            if name in seen:
                found.append(f"{name}: {seen[name]} and {cls.__name__}")
            seen[name] = cls.__name__
    return found


def test_no_two_store_mixins_define_the_same_method():
    classes = [
        base.StoreBase,
        notes.NoteQueries,
        graph.GraphQueries,
        passages.PassageQueries,
        reports.ReportQueries,
        problems.ProblemQueries,
        store.Store,
    ]
    assert clashes(classes) == []
    assert clashes([fts5.Fts5Queries, sqlite.SqliteStore]) == []
    assert set(store.Store.__mro__) >= set(classes)


def test_both_stores_implement_every_operation_and_share_the_rest():
    assert store.Store.__abstractmethods__
    for implementation in (sqlite.SqliteStore, PgStore):
        assert issubclass(implementation, store.Store)
        assert implementation.__abstractmethods__ == frozenset(), implementation.__name__
    assert not issubclass(PgStore, sqlite.SqliteStore)
