"""The store the core works with: every statement and file of the index, whichever database holds them.

``Store`` is abstract. Its statements are grouped by who needs them (``notes``, ``graph``, ``passages``,
``reports``, ``problems``), mixed in here and written once, their dialect's pieces taken from ``dialect``;
what the two databases do in different ways (transactions, vectors and their ANN index, full-text search,
migrations) is left to ``sqlite.SqliteStore`` and ``postgres.store.PgStore``. The parts of it the core asks for by
themselves (reading passages, full-text search, vector search, transactions, the access log, the notes' relations)
are the protocols of ``protocols``, which every ``Store`` satisfies.
"""

from __future__ import annotations

import json
import os
from abc import abstractmethod
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Protocol, Sequence

import numpy as np

from ..errors import ModelMismatchError, SmartvecError
from .ann import VectorIndex
from .base import Database
from .graph import GraphQueries
from .health import Findings
from .inlist import in_lists
from .layout import IndexLayout, open_regular, temp_path
from .lexical import LexicalQuery, Phrase
from .notes import NoteQueries
from .passages import PassageQueries
from .problems import ProblemQueries
from .reports import ReportQueries

REEMBEDDING = "reembedding"
RUNNING = "running"
"""The status of a run's record while it runs (``start_run``); a process killed mid-run leaves it so."""
FIRST_INDEX_AT = "first_index_at"
LEFT_OUT = "left_out"
"""(meta) The notes the last full scan of the vault left out, by why (``vault.scan.LEFT_OUT_REASONS``), as JSON:
``status`` says them."""
"""When the vault was first indexed to the end (for ``index --from-git``, its first commit with notes): what its
notes held then has an unknown past; whatever a later run finds for the first time was not there before that run."""
LANGUAGES = "languages"
"""The vault's languages as the first index read them (``vault.language``), space-separated, the main one first."""
DEFAULT_DIM = 384
"""Vector size of an index that has not recorded its own (``meta.dim``): that of the packaged MiniLM model."""

VECTORS_OF_CHUNKS = "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.hash = c.hash"
"""(passage row, its stored vector): what ``vectors_for_chunks`` reads, narrowed by each database its own way."""
DANGLING_EDGES = """FROM edges WHERE src_note NOT IN (SELECT id FROM notes)
            OR (dst_note IS NOT NULL AND dst_note NOT IN (SELECT id FROM notes))
            OR (src_chunk IS NOT NULL AND src_chunk NOT IN (SELECT id FROM chunks))
            OR (dst_chunk IS NOT NULL AND dst_chunk NOT IN (SELECT id FROM chunks))"""


class Migrations(Protocol):
    """A database's schema module: its migrations in order, and what applies and reads them."""

    @property
    def MIGRATIONS(self) -> Sequence[Callable[[Any], None]]: ...
    def migrate(self, db: Any) -> None: ...
    def pending_migrations(self, db: Any) -> list[str]: ...
    def unknown_migrations(self, db: Any) -> list[str]: ...


class Store(NoteQueries, GraphQueries, PassageQueries, ReportQueries, ProblemQueries):
    """Owns every SQL statement and every file of the index; ``open`` of an implementation gives one."""

    DATABASE_ERRORS: ClassVar[tuple[type[Exception], ...]]
    """What a damaged database raises."""
    migrations: ClassVar[Migrations]
    """The database's schema module (``db``, ``postgres.database``)."""
    damage_advice: ClassVar[str]
    """What to do about a database that fails to answer, for ``doctor``'s findings."""
    vector_index_check: ClassVar[str]
    """The name ``doctor`` reports ``check_vector_index`` under when the database fails it half way."""

    def __init__(self, index_dir: Path, db: Database):
        self.index_dir = Path(index_dir)
        self.db = db
        self._ann_loaded = False
        self.notices: list[str] = []  # things the user should hear about, e.g. a rebuilt cache
        self.read_only = False  # opened from a folder this user cannot write: nothing is recorded
        self.ann_damage: str | None = None  # what was wrong with the saved vector index this run found damaged
        self._kept = {}

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata -----------------------------------------------------------------------------

    @property
    def dim(self) -> int:
        return int(self.get_meta("dim") or DEFAULT_DIM)

    @property
    def fingerprint(self) -> str | None:
        return self.get_meta("fingerprint")

    @property
    def known_since(self) -> str | None:
        """The start (UTC) of the day the index first saw the vault (``FIRST_INDEX_AT``); None before any index
        run. Nothing the vault said before that day was seen, except what its notes declare about their own
        windows. A day, not the moment of the first run: a question about that day (``--as-of`` a date is its
        noon, ``--now`` a date its midnight) is about a day the index knew, and the warning names the day."""
        first = self.get_meta(FIRST_INDEX_AT)
        return f"{first[:10]}T00:00:00Z" if first else None

    @property
    def reembedding(self) -> str | None:
        """The model an ``index --full`` was moving the index to, while (or if interrupted while) it runs."""
        return self.get_meta(REEMBEDDING)

    def check_fingerprint(self, fingerprint: str) -> None:
        """Refuse to mix vectors of different weights in one index."""
        stored = self.fingerprint
        if self.reembedding:
            raise ModelMismatchError(
                f"an 'index --full' that re-embeds the index with {self.reembedding} did not finish, so it holds "
                "vectors of two models; run 'smartvec index --full' again"
            )
        if stored and stored.startswith(fingerprint + "+"):  # a variant of these weights (``+int8``) that cannot load
            raise ModelMismatchError(
                f"this index's vectors were made by {stored}, which is not available now (no verified ONNX export "
                "of it here, or [embedder] precision asks for another): 'smartvec index' makes it again, "
                "'smartvec index --full' re-embeds everything with the configured model"
            )
        if stored and stored != fingerprint:
            raise ModelMismatchError(
                f"index was built with {stored} but the current model is {fingerprint}; "
                "run 'smartvec index --full' to re-embed everything with the current model"
            )

    @property
    def generation(self) -> int:
        return int(self.get_meta("ann_generation") or 0)

    def bump_generation(self) -> int:
        """Call inside the write transaction whose changes the ANN index must follow."""
        generation = self.generation + 1
        self.set_meta("ann_generation", generation)
        return generation

    # -- vectors ------------------------------------------------------------------------------

    def known_hashes(self, hashes: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for part, marks in in_lists(list(set(hashes)), 500):
            found.update(r[0] for r in self.db.execute(f"SELECT hash FROM embeddings WHERE hash IN ({marks})", part))
        return found

    def store_vectors(self, vectors: dict[str, tuple[str, np.ndarray]], created_at: str) -> None:
        """Upsert (embedded text, vector) by passage hash; call inside the transaction that uses them."""
        self.db.table("embeddings").upsert_all(
            [
                {"hash": h, "text": t, "vector": self.vector_value(v), "created_at": created_at}
                for h, (t, v) in vectors.items()
            ],
            pk="hash",
        )

    def upsert_vector(self, hash_: str, text: str, vector: np.ndarray, created_at: str) -> None:
        self.store_vectors({hash_: (text, vector)}, created_at)

    @abstractmethod
    def vector_value(self, vector: np.ndarray) -> object:
        """A vector as the database's ``embeddings.vector`` column takes it."""

    @abstractmethod
    def vectors_for_chunks(self, chunk_ids: list[int]) -> np.ndarray:
        """Stored vectors of these chunk rows, in the order given (one row each)."""

    def ann_expected_labels(self) -> set[int]:
        """The passages the ANN index must hold: every stored version that is not deleted and has a vector."""
        return {
            r[0]
            for r in self.db.execute(
                "SELECT c.id FROM chunks c WHERE c.state != 'DELETED' "
                "AND EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = c.hash)"
            )
        }

    def chunks_without_vectors(self) -> list[int]:
        """Passages whose vector is gone (damage from outside): search cannot see them until re-embedded."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT c.id FROM chunks c WHERE c.state != 'DELETED' "
                "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.hash = c.hash)"
            )
        ]

    # -- the vector index ---------------------------------------------------------------------

    @property
    @abstractmethod
    def ann(self) -> VectorIndex:
        """The vector index object, not necessarily loaded (see ``load_ann``)."""

    @property
    def ann_loaded(self) -> bool:
        """Whether this run touched the ANN index (a run that changed nothing never loads it)."""
        return self._ann_loaded

    @abstractmethod
    def load_ann(self) -> VectorIndex:
        """The vector index, in line with the database."""

    @abstractmethod
    def rebuild_ann(self) -> int:
        """A fresh vector index from the stored vectors (no re-embedding); how many passages it holds."""

    def mend_ann(self, damage: str) -> int:
        """Rebuild a damaged vector index from the stored vectors; ``save_ann`` keeps a copy of a damaged file."""
        self.ann_damage = damage
        return self.rebuild_ann()

    @abstractmethod
    def save_ann(self) -> None:
        """Keep the vector index as the database now stands."""

    def check_saved_ann(self) -> None:
        """Before a writer builds on the saved vector index: its full check (a writer can afford it, a query
        cannot), and a damaged one rebuilt from the stored vectors. Nothing to check where the database keeps
        the index itself (PostgreSQL)."""

    def erase_freed(self) -> None:
        """Rewrite what still holds rows just deleted (``forget``): free pages, full-text segments, the log. A
        PostgreSQL server keeps dead rows until its own vacuum; see docs/reliability.md."""

    # -- runs and events ----------------------------------------------------------------------

    def start_run(self, command: str, started_at: str, summary: dict[str, Any]) -> int:
        """A run's record while it runs (status ``running``): a run killed before it could record itself leaves
        this row, so ``status`` never shows the previous run as the last word."""
        return self.record_run(command, started_at, None, RUNNING, summary)

    def end_run(self, run_id: int, finished_at: str | None, status: str | None, summary: dict[str, Any] | None) -> None:
        """Close the ``running`` record: with the outcome, or (``status`` None) drop it, the run having recorded
        itself."""
        with self.write():
            if status is None:
                self.db.execute("DELETE FROM runs WHERE id = ?", [run_id])
            else:
                self.db.execute(
                    "UPDATE runs SET finished_at = ?, status = ?, summary = ? WHERE id = ?",
                    [finished_at, status, json.dumps(summary), run_id],
                )

    def record_run(
        self, command: str, started_at: str, finished_at: str | None, status: str, summary: dict[str, Any]
    ) -> int:
        with self.write():
            row = {
                "command": command,
                "started_at": started_at,
                "finished_at": finished_at,
                "status": status,
                "summary": json.dumps(summary),
            }
            return int(self.db.table("runs").insert(row).last_pk)

    def latest_index_run(self) -> str | None:
        """When the latest index run started (by its clock): nothing may be observed before it. A ``running``
        record is the caller's own run (or a killed one, whose work is in the runs it recorded). A git import
        that did not finish is left out: its record bears the wall clock's time, but each commit it replayed
        recorded its own run at the commit's date, and a retry must not put the commits after the failure."""
        return self.db.execute(
            "SELECT max(started_at) FROM runs WHERE command LIKE 'index%' AND status != ? "
            "AND NOT (command = 'index --from-git' AND status IN ('failed', 'interrupted'))",
            [RUNNING],
        ).fetchone()[0]

    def remember_untracked_query(self, last_query: dict) -> None:
        """The hits of a ``--no-track`` query, kept for ``feedback --rank N`` in a file of the index folder (not in
        the database: a question that counts nothing must not make every reader's cache stale). Written whole
        (a temporary file renamed), readable by the owner only; a folder that cannot take it leaves the previous
        hits forgotten, so that ``--rank`` never acts on a query older than the one the user saw."""
        path = IndexLayout(self.index_dir).untracked_query
        try:
            tmp = temp_path(path)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
            handle = os.open(tmp, flags, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(json.dumps(last_query, ensure_ascii=False))
            os.replace(tmp, path)
        except OSError:
            self.forget_untracked_query()

    def last_untracked_query(self) -> dict | None:
        """The last ``--no-track`` query's hits, when it came after the last tracked one (``record_retrieval``
        removes them); None otherwise."""
        try:
            with os.fdopen(open_regular(IndexLayout(self.index_dir).untracked_query), "rb") as fh:
                data = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError, SmartvecError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("hits"), list) else None

    def forget_untracked_query(self) -> None:
        """A tracked query came after it: ``feedback --rank`` names the tracked query's hits again."""
        try:
            IndexLayout(self.index_dir).untracked_query.unlink(missing_ok=True)
        except OSError:
            pass

    def append_refresh_log(self, record: dict[str, Any]) -> None:
        """One JSON line per unattended run in ``refresh.log``, for whoever reads cron's output later."""
        path = IndexLayout(self.index_dir).refresh_log
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise SmartvecError(f"cannot append to {path}: {exc.strerror or exc}") from None

    # -- notes --------------------------------------------------------------------------------

    def live_note_hashes(self) -> list[tuple[str, str, str | None]]:
        """(note_id, path, aclarai embedding_hash) of every note not deleted."""
        return self.db.execute("SELECT note_id, path, embedding_hash FROM notes WHERE deleted_at IS NULL").fetchall()

    # -- full-text search ---------------------------------------------------------------------
    # Asked in words (``lexical.LexicalQuery``, ``lexical.Phrase``, plain terms); each store writes its own syntax.

    @abstractmethod
    def record_languages(self, languages: list[str]) -> None:
        """Record the vault's languages (the main one first); when the main one changes, the analysed words
        are made anew in it (no re-embedding). Inside the caller's write transaction."""

    @abstractmethod
    def lexical_matches(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(passage id, score; higher is better) of the passages holding any of the query's words, best first."""

    @abstractmethod
    def phrase_holders(self, phrases: Sequence[Phrase], limit: int) -> list[set[int]]:
        """For each phrase, the stored passages (up to ``limit``, best first) whose own text holds its words in
        order."""

    @abstractmethod
    def title_matches(self, query: LexicalQuery, limit: int, per_note: int) -> list[int]:
        """The passages whose note title best matches any of the query's words, best first, ``per_note`` of each
        note."""

    @abstractmethod
    def term_frequencies(self, terms: list[str], cap: int) -> dict[str, int]:
        """For each term, in how many stored passages' own words it occurs, counted up to ``cap + 1``."""

    @abstractmethod
    def term_holders(self, terms: list[str], ids: list[int]) -> dict[str, set[int]]:
        """For each term, which of the passages ``ids`` hold it in their own words."""

    @abstractmethod
    def unknown_terms(self, terms: list[str]) -> frozenset[str]:
        """The terms that no stored passage's text, heading or note title contains."""

    @abstractmethod
    def body_neighbours(self, chunk: int, query: LexicalQuery, limit: int) -> list[int]:
        """Current live passages of other notes whose own words best match any of the query's words, best first: the
        lexical side of the pairs that consolidation compares."""

    @abstractmethod
    def lexical_index_drift(self) -> tuple[int, int, int]:
        """(passages with no full-text entry, entries with no passage, entries whose text differs)."""

    @abstractmethod
    def rebuild_lexical_index(self) -> None:
        """The full-text index anew from the stored passages (no re-embedding; one transaction)."""

    # -- health (doctor) ----------------------------------------------------------------------

    @abstractmethod
    def integrity_problems(self) -> list[str]:
        """The database's own check, ``["ok"]`` when whole."""

    @abstractmethod
    def check_database(self, findings: Findings) -> bool:
        """``doctor``'s ``database`` finding: is the database whole (and the server ready for it)? Whether the other
        checks can go on."""

    @abstractmethod
    def check_vector_index(self, findings: Findings, repair: bool) -> None:
        """``doctor``'s findings on the vector index: is it whole, and in step with the stored vectors? ``repair``
        builds it again from them (no re-embedding)."""

    def passage_names(self, ids: Sequence[int]) -> list[str]:
        """``chunk_id@version`` of these passage rows, as findings name them."""
        return [f"{chunk_id}@{version}" for chunk_id, version in self.passage_versions(ids)]

    def newer_migrations(self) -> list[str]:
        """Migrations recorded by a newer smartvec than this one."""
        return self.migrations.unknown_migrations(self.db)

    def known_migration_count(self) -> int:
        """How many migrations this smartvec knows: all of them are applied once none is pending."""
        return len(self.migrations.MIGRATIONS)

    def pending_migrations(self) -> list[str]:
        """The migrations this smartvec knows that the database has not had yet."""
        return self.migrations.pending_migrations(self.db)

    def apply_migrations(self) -> None:
        """Apply the pending migrations."""
        self.migrations.migrate(self.db)

    def passages_without_note(self) -> list[int]:
        """Live passage rows whose note row is gone (damage from outside)."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM chunks WHERE state != 'DELETED' AND note NOT IN (SELECT id FROM notes)"
            )
        ]

    def dangling_edge_count(self) -> int:
        """Edges from or to a note or passage row that does not exist."""
        return self.db.execute(f"SELECT COUNT(*) {DANGLING_EDGES}").fetchone()[0]

    def repair_orphans(self, homeless: list[int]) -> None:
        """Drop the dangling edges (derived data) and mark the ``homeless`` passages DELETED rather
        than erasing them, so that history still shows them."""
        with self.write():
            self.db.execute(f"DELETE {DANGLING_EDGES}")
            for part, marks in in_lists(homeless):
                self.db.execute(f"UPDATE chunks SET state = 'DELETED' WHERE id IN ({marks})", part)
