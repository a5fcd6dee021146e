"""What the store keeps between questions (``StoreBase.kept``) is read again once the database changes."""

from __future__ import annotations

import sqlite3

from smartvec_cli.store.sqlite import SqliteStore


def _note(store: SqliteStore, n: int, importance: float) -> None:
    store.db.table("notes").insert({"id": n, "note_id": f"n{n}", "path": f"n{n}.md", "importance": importance})


def test_importance_range_is_read_again_after_any_connection_writes(tmp_path):
    with SqliteStore.open(tmp_path / "index", create=True) as store:
        with store.write():
            _note(store, 1, 0.2)
            _note(store, 2, 0.6)
        assert store.importance_range() == (0.2, 0.6)
        assert store.importance_range() == (0.2, 0.6)  # kept

        with store.write():  # this connection's own write
            _note(store, 3, 0.9)
        assert store.importance_range() == (0.2, 0.9)

        other = sqlite3.connect(tmp_path / "index" / "smartvec.db")
        with other:  # another connection's commit, as a writer process makes
            other.execute("UPDATE notes SET importance = 0.1 WHERE id = 1")
        other.close()
        assert store.importance_range() == (0.1, 0.9)


def test_nothing_is_kept_inside_a_transaction_that_may_roll_back(tmp_path):
    with SqliteStore.open(tmp_path / "index", create=True) as store:
        with store.write():
            _note(store, 1, 0.5)
        try:
            with store.write():
                store.db.execute("UPDATE notes SET importance = 0.7 WHERE id = 1")
                assert store.importance_range() == (0.7, 0.7)
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        assert store.importance_range() == (0.5, 0.5)
