"""The store is assembled from one query mixin per caller; two mixins must never define the same name,
or one silently shadows the other (it happened once: the indexer and the reports each had a
``note_links``)."""

import inspect

from smartvec_cli.store import graph, notes, passages, problems, reports, store


def test_no_two_store_mixins_define_the_same_method():
    classes = [
        notes.NoteQueries,
        graph.GraphQueries,
        passages.PassageQueries,
        reports.ReportQueries,
        problems.ProblemQueries,
        store.Store,
    ]
    seen: dict[str, str] = {}
    clashes = []
    for cls in classes:
        for name, _ in inspect.getmembers(cls, inspect.isfunction):
            if name.startswith("__") or name not in cls.__dict__:
                continue
            if name in seen:
                clashes.append(f"{name}: {seen[name]} and {cls.__name__}")
            seen[name] = cls.__name__
    assert clashes == []
    assert set(store.Store.__mro__) >= set(classes)
