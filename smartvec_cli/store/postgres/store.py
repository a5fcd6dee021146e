"""``PgStore``: the ``Store`` interface on PostgreSQL + pgvector.

Everything the SQLite store keeps in its database lives here in the server's: notes, passage versions,
vectors, edges, events and runs. There is no ANN file to keep in step: vectors are searched in the
database, by pgvector's HNSW index (cosine) above the size where smart search asks the graph, and exactly
below it, so ``load_ann`` hands out a ``PgVectorIndex`` that answers with SQL. The index folder keeps
only what is local to one machine: ``config.toml``, the ONNX export, logs and the daemon's socket.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Callable, ClassVar, Iterable, Iterator, Sequence

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.pq import TransactionStatus

from ...errors import SmartvecError
from ...memory.analysis import analysed, split_cjk
from ..ann import cosine_top_k, cosine_top_k_many, search_list_size, unit_matrix
from ..dialect import POSTGRES
from ..health import Findings
from ..inlist import first_of_each
from ..lexical import LexicalQuery, Phrase
from ..store import VECTORS_OF_CHUNKS, Migrations, Store
from . import database as schema
from .database import (
    FTS_FILL,
    FTS_TABLE,
    TRANSACTION_LOCK,
    TS_CONFIG,
    WORDS_CONFIG,
    PgDatabase,
    connect,
    one,
    safe_url,
)
from .lock import WRITE_TRANSACTION

MAX_EF_SEARCH = 1000  # pgvector's ceiling for hnsw.ef_search
SEARCH_MANY_IN_PROCESS = 200
"""Neighbour lists asked at once from which the live matrix is read rather than the server asked for each: a round
number, not tuned; fewer lists are not worth reading the whole matrix for."""
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200  # as the hnswlib index (``ann.py``)
FetchVectors = Callable[[list[int]], np.ndarray]


def any_terms(terms: Sequence[str], paired: bool = False) -> str | None:
    """A tsquery that any of these words matches (``to_tsquery``'s ``'w1' | 'w2'``), or None for no words: each
    word as the text search configuration reads it (letters and digits only, so no word is tsquery syntax);
    ``paired``, CJK runs as the character pairs the analysed columns hold."""
    words = [word for term in terms for word in term.split()]
    if paired:
        words = [part for word in words for part in split_cjk(word)]
    words = ["".join(ch for ch in word if ch.isalnum()) for word in words]
    words = [word for word in words if word]
    return " | ".join(f"'{word}'" for word in dict.fromkeys(words)) or None


def as_array(value) -> np.ndarray:
    """A vector as pgvector's loader gives it (a ``Vector``, or an array in older versions) as float32."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


class PgVectorIndex:
    """``load_ann``'s answer on PostgreSQL: the vectors are the table's rows, so adding, removing and
    saving are nothing to do, and a search is one statement."""

    tombstones: frozenset[int] = frozenset()

    def __init__(self, store: PgStore):
        self.store = store
        self.generation = store.generation
        self._live: set[int] | None = None
        self._exact: tuple[np.ndarray, np.ndarray] | None = None  # (labels, unit rows): see ``exact_search``

    @property
    def live(self) -> set[int]:
        """The passages search can find (read once per generation: a writer's change makes a new index)."""
        if self._live is None:
            self._live = self.store.ann_expected_labels()
        return self._live

    @property
    def has_graph(self) -> bool:
        """Always: pgvector's HNSW index, which the server keeps."""
        return True

    def add(self, labels: np.ndarray, vectors: np.ndarray) -> None:
        self._live = self._exact = None

    def remove(self, labels: Iterable[int]) -> None:
        self._live = self._exact = None

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.store.nearest_by_graph(vector, k, len(self.live))

    def search_many(self, vectors: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """Many neighbour lists at once (a consolidation of thousands of passages): in process over the live
        matrix, read once, rather than one round trip to the graph each, which a large vault's tens of thousands
        of lists would each pay; a few are still asked of the server, to spare a short consolidation reading the
        matrix."""
        if len(vectors) < SEARCH_MANY_IN_PROCESS:
            return [self.search(vector, k) for vector in vectors]
        return cosine_top_k_many(self.exact_matrix(), vectors, k)

    def exact_search(
        self, vector: np.ndarray, k: int, fetch_vectors: FetchVectors | None = None
    ) -> list[tuple[int, float]]:
        """Every live passage compared, in process, as on SQLite: the matrix of their vectors is read once
        per generation, which a long-lived reader pays for once, and the product in process is far cheaper than a
        statement that compares every row on the server for each question."""
        return cosine_top_k(self.exact_matrix(), vector, k)

    def exact_matrix(self, fetch_vectors: FetchVectors | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The live passages' labels and unit vectors (``HnswIndex.exact_matrix``), read from the database."""
        if self._exact is None:
            labels = sorted(self.live)
            self._exact = unit_matrix(labels, self.store.vectors_for_chunks(labels))
        return self._exact

    def needs_compaction(self, ratio: float = 0.2, minimum: int = 1000) -> bool:
        """Never: PostgreSQL's own vacuum keeps the HNSW index, and there are no tombstones to drop."""
        return False

    def saved_generation(self) -> int:
        return self.store.generation

    def saved_file_name(self) -> str | None:
        return None

    def verify(self) -> str | None:
        """Nothing to check: the server keeps its own index whole."""
        return None

    def save(self, generation: int) -> None:
        self.generation = generation


class PgStore(Store):
    """The store on a PostgreSQL server. ``index_dir`` is still the local index folder (config, model
    export, logs); ``url`` names the database every machine of the team shares."""

    dialect = POSTGRES
    migrations: ClassVar[Migrations] = schema
    DATABASE_ERRORS = (psycopg.DatabaseError,)
    damage_advice = "see the PostgreSQL server's log"
    vector_index_check = "vector_index"
    db: PgDatabase

    def __init__(self, index_dir: Path, db: PgDatabase):
        super().__init__(index_dir, db)
        self.url = db.url
        self._ann: PgVectorIndex | None = None
        self._vector_indexes: set[int] = set()

    @classmethod
    def open(cls, url: str, index_dir: Path | None = None, create: bool = False) -> "PgStore":
        db = PgDatabase(connect(url), url)
        try:
            if not create and not db.table_exists("_migrations"):
                raise SmartvecError(f"no index in {safe_url(url)}; run 'smartvec index' first")
            schema.migrate(db)
            register_vector(db.conn)
        except BaseException:
            db.close()
            raise
        return cls(Path(index_dir or "."), db)

    @classmethod
    def open_unmigrated(cls, url: str, index_dir: Path | None = None) -> "PgStore":
        db = PgDatabase(connect(url), url)
        if not db.table_exists("_migrations"):
            db.close()
            raise SmartvecError(f"no index in {safe_url(url)}; run 'smartvec index' first")
        try:
            register_vector(db.conn)
        except psycopg.ProgrammingError:
            pass  # the vector extension comes with the first migration, which doctor reports as pending
        return cls(Path(index_dir or "."), db)

    @contextmanager
    def write(self) -> Iterator[None]:
        """A transaction (nested ones become savepoints) that waits its turn behind every other store
        transaction that writes, as SQLite's BEGIN IMMEDIATE does.

        Writers of different machines are kept apart by the writer lock (``postgres.lock``); this lock is
        for readers that also write (a query counting accesses, feedback) beside the one writer. Without
        it a reader's UPDATE of a few passages and a writer's long consolidation, each locking rows in
        its own order, deadlock, and the server aborts one of them."""
        outermost = self.db.conn.info.transaction_status == TransactionStatus.IDLE
        with self.db.conn.transaction():
            if outermost:
                self.db.conn.execute(TRANSACTION_LOCK, WRITE_TRANSACTION)
            yield

    @property
    def location(self) -> str:
        return safe_url(self.url)

    # -- metadata and schema ------------------------------------------------------------------

    def apply_migrations(self) -> None:
        super().apply_migrations()
        register_vector(self.db.conn)  # the vector type exists once the first migration made the extension

    def integrity_problems(self) -> list[str]:
        """``["ok"]`` when the server answers and has pgvector; the server keeps its own files whole."""
        installed = self.db.conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        return ["ok"] if installed else ["the pgvector extension is not installed in this database"]

    def database_size(self) -> int:
        return int(one(self.db.conn.execute("SELECT pg_database_size(current_database())")))

    def check_database(self, findings: Findings) -> bool:
        """The server keeps its files whole; what can be missing is pgvector, which the migration that the schema
        check applies installs, so the checks go on either way."""
        problems = self.integrity_problems()
        if problems != ["ok"]:
            findings.add(
                "database",
                False,
                f"PostgreSQL at {self.location}: {'; '.join(problems)} "
                "(run 'CREATE EXTENSION vector' as a user allowed to, or any writing command)",
                repairable=True,
            )
            return True
        findings.add(
            "database",
            True,
            f"PostgreSQL at {self.location}, pgvector installed ({self.database_size() / 1048576:.1f} MB)",
        )
        return True

    def check_vector_index(self, findings: Findings, repair: bool) -> None:
        """No ANN file: the vectors are searched by an HNSW index in the database, which ``repair`` builds again
        when it is gone (a database restored without its indexes)."""
        if not self.vector_index_missing():
            findings.add("ann_index", True, f"pgvector HNSW index serves {len(self.load_ann().live)} passages")
            return
        check = findings.add(
            "ann_index",
            False,
            f"the stored vectors have no HNSW index (idx_embeddings_hnsw_{self.dim})",
            repairable=True,
        )
        if repair:
            count = self.rebuild_ann()
            check.repaired = True
            check.detail += f"; built for {count} passages"

    # -- vectors ------------------------------------------------------------------------------

    def store_vectors(self, vectors: dict[str, tuple[str, np.ndarray]], created_at: str) -> None:
        super().store_vectors(vectors, created_at)
        for vector_dim in {len(v) for _, v in vectors.values()}:
            self.ensure_vector_index(vector_dim)

    def vector_value(self, vector: np.ndarray) -> np.ndarray:
        return np.asarray(vector, dtype=np.float32)

    def ensure_vector_index(self, vector_dim: int) -> None:
        """pgvector's HNSW index over the vectors of this size (an index needs one size; an index being
        re-embedded by another model holds two for a while)."""
        if vector_dim in self._vector_indexes:
            return
        name = f"idx_embeddings_hnsw_{int(vector_dim)}"
        if not self.db.table_exists(name):
            self.db.conn.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw ((vector::vector({int(vector_dim)})) "
                "vector_cosine_ops) "
                f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) WHERE vector_dims(vector) = "
                f"{int(vector_dim)}"
            )
        self._vector_indexes.add(vector_dim)

    def vector_index_missing(self) -> bool:
        """Whether vectors of the index's size have no HNSW index to be searched by (doctor repairs it)."""
        return bool(self.vector_count()) and not self.db.table_exists(f"idx_embeddings_hnsw_{self.dim}")

    def vectors_for_chunks(self, chunk_ids: list[int]) -> np.ndarray:
        chunk_ids = [int(i) for i in chunk_ids]
        if not chunk_ids:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = self.db.conn.execute(f"{VECTORS_OF_CHUNKS} WHERE c.id = ANY(%s)", [chunk_ids]).fetchall()
        by_id = {row[0]: row[1] for row in rows}
        missing = [i for i in chunk_ids if i not in by_id]
        if missing:
            raise SmartvecError(
                f"{len(missing)} passages have no stored vector; run 'smartvec index --full' to embed them again"
            )
        return np.stack([as_array(by_id[i]) for i in chunk_ids])

    def nearest_exact(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(passage, cosine) of the ``k`` live passages most similar to ``vector``, every one compared."""
        if k <= 0:
            return []
        rows = self.db.conn.execute(
            """SELECT c.id, 1 - (e.vector <=> %s) AS similarity FROM chunks c JOIN embeddings e ON e.hash = c.hash
               WHERE c.state != 'DELETED' ORDER BY similarity DESC, c.id LIMIT %s""",
            [np.asarray(vector, dtype=np.float32), k],
        ).fetchall()
        return [(row[0], float(row[1])) for row in rows]

    def nearest_by_graph(self, vector: np.ndarray, k: int, live: int) -> list[tuple[int, float]]:
        """The same from pgvector's HNSW index, its search list sized as hnswlib's (``search_list_size``).

        The graph holds one entry per distinct text; the passages that use it are joined after, so the
        graph is asked for more than ``k`` and again for more when deleted versions crowded the answer."""
        if k <= 0 or live <= 0:
            return []
        dim = int(len(vector))
        query = np.asarray(vector, dtype=np.float32)
        want = min(k, live)
        depth = 2 * k
        while True:
            ef = min(MAX_EF_SEARCH, max(search_list_size(live, k), depth))
            with self.db.conn.transaction():
                self.db.conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                rows = self.db.conn.execute(
                    f"""SELECT c.id, 1 - near.distance FROM (
                          SELECT hash, vector::vector({dim}) <=> %s AS distance FROM embeddings
                          WHERE vector_dims(vector) = {dim} ORDER BY vector::vector({dim}) <=> %s LIMIT %s) near
                        JOIN chunks c ON c.hash = near.hash
                        WHERE c.state != 'DELETED' ORDER BY near.distance, c.id LIMIT %s""",
                    [query, query, depth, k],
                ).fetchall()
            if len(rows) >= want or depth >= MAX_EF_SEARCH:
                break
            depth *= 4
        if len(rows) < want:
            return self.nearest_exact(vector, k)
        return [(row[0], float(row[1])) for row in rows]

    # -- the vector index ---------------------------------------------------------------------

    @property
    def ann(self) -> PgVectorIndex:
        if self._ann is None or self._ann.generation != self.generation:
            self._ann = PgVectorIndex(self)
        return self._ann

    def load_ann(self) -> PgVectorIndex:
        self._ann_loaded = True
        return self.ann

    def rebuild_ann(self) -> int:
        """The HNSW index anew from the stored vectors (``doctor --repair``); how many passages it serves."""
        name = f"idx_embeddings_hnsw_{self.dim}"
        self.db.conn.execute(f"DROP INDEX IF EXISTS {name}")
        self._vector_indexes.discard(self.dim)
        self.ensure_vector_index(self.dim)
        self._ann_loaded = True
        self._ann = None
        return len(self.ann.live)

    def save_ann(self) -> None:
        self.ann.save(self.generation)

    # -- full-text search ---------------------------------------------------------------------

    def _text_search(self) -> tuple[str, str, str, bool]:
        """(configuration, passage-words column, whole-document column, CJK paired) of the vault's language:
        the English columns, or the analysed ones of ``p006_words_in_every_language``."""
        if analysed(self.lexical_language()):
            return WORDS_CONFIG, "words_body", "words_document", True
        return f"'{TS_CONFIG}'::regconfig", "body", "document", False

    def record_languages(self, languages: list[str]) -> None:
        before = self.lexical_language()
        self.set_meta("languages", " ".join(languages))
        if self.lexical_language() != before:
            self.db.conn.execute(f"UPDATE {FTS_TABLE} SET text = text")  # the trigger analyses every row anew

    def lexical_matches(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(passage id, ts_rank score; higher is better) of the passages holding any of the query's words, best
        first: the passage's own words weigh more than its heading and note title, as in FTS5."""
        config, _, document, paired = self._text_search()
        terms = any_terms(query.terms, paired)
        if terms is None:
            return []
        rows = self.db.conn.execute(
            f"""SELECT f.id, ts_rank('{{0, 0, 0.75, 1.0}}', f.{document}, q) AS score
                FROM {FTS_TABLE} f JOIN chunks c ON c.id = f.id, to_tsquery({config}, %s) q
                WHERE f.{document} @@ q AND c.state != 'DELETED' ORDER BY score DESC, f.id LIMIT %s""",
            [terms, limit],
        ).fetchall()
        return [(row[0], float(row[1])) for row in rows]

    def phrase_holders(self, phrases: Sequence[Phrase], limit: int) -> list[set[int]]:
        """Each phrase as a phrase tsquery (``phraseto_tsquery``) on the passage's own words."""
        config, body, _, paired = self._text_search()
        found = []
        for phrase in phrases:
            words = " ".join(phrase)
            if paired:
                words = " ".join(part for word in words.split() for part in split_cjk(word))
            found.append(
                {
                    row[0]
                    for row in self.db.conn.execute(
                        f"""SELECT f.id FROM {FTS_TABLE} f JOIN chunks c ON c.id = f.id, phraseto_tsquery({config},
                          %s) q
                    WHERE f.{body} @@ q AND c.state != 'DELETED' ORDER BY ts_rank(f.{body}, q) DESC, f.id LIMIT %s""",
                        [words, limit],
                    )
                }
                if words
                else set()
            )
        return found

    def title_matches(self, query: LexicalQuery, limit: int, per_note: int) -> list[int]:
        config, _, _, paired = self._text_search()
        terms = any_terms(query.terms, paired)
        if terms is None:
            return []
        title = f"to_tsvector({config}, {'smartvec_cjk_pairs' if paired else ''}(coalesce(f.title, '')))"
        rows = self.db.conn.execute(
            f"""SELECT f.id, c.note FROM {FTS_TABLE} f JOIN chunks c ON c.id = f.id, to_tsquery({config}, %s) q
                WHERE {title} @@ q AND c.state != 'DELETED' AND c.current = 1
                ORDER BY ts_rank({title}, q) DESC, f.id LIMIT %s""",
            [terms, limit],
        ).fetchall()
        return first_of_each(rows, per_note)

    def term_frequencies(self, terms: list[str], cap: int) -> dict[str, int]:
        config, body, _, paired = self._text_search()
        frequency: dict[str, int] = {}
        for term in terms:
            query = any_terms([term], paired)
            frequency[term] = (
                0
                if query is None
                else one(
                    self.db.conn.execute(
                        f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} "
                        f"WHERE {body} @@ to_tsquery({config}, %s) LIMIT %s) s",
                        [query, cap + 1],
                    )
                )
            )
        return frequency

    def term_holders(self, terms: list[str], ids: list[int]) -> dict[str, set[int]]:
        config, body, _, paired = self._text_search()
        ids = [int(i) for i in ids]
        holders: dict[str, set[int]] = {}
        for term in terms:
            query = any_terms([term], paired)
            holders[term] = (
                set()
                if query is None or not ids
                else {
                    row[0]
                    for row in self.db.conn.execute(
                        f"SELECT id FROM {FTS_TABLE} WHERE {body} @@ to_tsquery({config}, %s) AND id = ANY(%s)",
                        [query, ids],
                    )
                }
            )
        return holders

    def unknown_terms(self, terms: list[str]) -> frozenset[str]:
        config, _, document, paired = self._text_search()
        unknown = set()
        for term in terms:
            query = any_terms([term], paired)
            if (
                query is None
                or not self.db.conn.execute(
                    f"SELECT 1 FROM {FTS_TABLE} WHERE {document} @@ to_tsquery({config}, %s) LIMIT 1", [query]
                ).fetchone()
            ):
                unknown.add(term)
        return frozenset(unknown)

    def body_neighbours(self, chunk: int, query: LexicalQuery, limit: int) -> list[int]:
        config, body, _, paired = self._text_search()
        terms = any_terms(query.terms, paired)
        if terms is None:
            return []
        rows = self.db.conn.execute(
            f"""SELECT f.id FROM {FTS_TABLE} f JOIN chunks c ON c.id = f.id, to_tsquery({config}, %s) q
                WHERE f.{body} @@ q AND c.current = 1 AND c.state IN ('UNCONSOLIDATED', 'ACTIVE', 'DORMANT')
                  AND c.note != (SELECT note FROM chunks WHERE id = %s)
                ORDER BY ts_rank(f.{body}, q) DESC, f.id LIMIT %s""",
            [terms, chunk, limit],
        ).fetchall()
        return [row[0] for row in rows]

    def lexical_index_drift(self) -> tuple[int, int, int]:
        missing = one(self.db.conn.execute(f"SELECT count(*) FROM chunks WHERE id NOT IN (SELECT id FROM {FTS_TABLE})"))
        extra = one(self.db.conn.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE id NOT IN (SELECT id FROM chunks)"))
        stale = one(
            self.db.conn.execute(
                f"""SELECT count(*) FROM {FTS_TABLE} f JOIN chunks c ON c.id = f.id JOIN notes n ON n.id = c.note
                WHERE f.text IS DISTINCT FROM c.text OR f.heading IS DISTINCT FROM c.heading OR f.title IS DISTINCT
                FROM n.title"""
            )
        )
        return missing, extra, stale

    def rebuild_lexical_index(self) -> None:
        with self.write():
            self.db.conn.execute(f"DELETE FROM {FTS_TABLE}")
            self.db.conn.execute(FTS_FILL)
