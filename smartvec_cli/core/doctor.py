"""``doctor``: is the index folder whole, and what can be put right without the model?

SQLite is the source of truth and the ANN file a cache of its vectors, so most damage
is repairable: a lost, truncated or corrupt vector index, one that lags the database
or holds labels of passages that no longer exist, is rebuilt from the stored vectors
(no re-embedding); pending migrations are applied; dangling edges (derived data) are
dropped; temporary files a killed writer left are removed; a lock left by a dead
writer is cleared. What needs the model (lost vectors, another model's vectors) is
reported with the command that fixes it, ``index --full``. A damaged SQLite file is
reported, never "repaired" by guessing; an emptied or cut one is named before SQLite can
take it for a new database, and nothing is rebuilt from it. A repair that replaces the
vector file keeps a copy in ``backup/``. A read-only folder is no damage (queries work);
an index folder readable by those its private vault keeps out is, and is narrowed.

What differs between the databases is asked of the store (``Store.check_database``, ``Store.check_vector_index``:
SQLite's integrity check and hnswlib file, PostgreSQL's pgvector and HNSW index) and of its backend
(``StoreBackend.open_failure``: what to say of an index that cannot be opened).

Checking changes nothing. Repairing is done under the writer lock, which the caller
takes after :meth:`Doctor.inspect_locks` has looked at it.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass

from ..errors import SmartvecError
from ..store.health import EXAMPLES
from ..store.layout import IndexLayout, too_wide
from ..store.lock import FileLock, Holder
from ..store.store import Store
from .results import DoctorCheck, DoctorReport
from .workspace import Workspace

FULL = "run 'smartvec index --full' to embed them again"
SAMPLE = 32  # stored vectors the model embeds again to see that it still gives them


@dataclass
class Check:
    """A finding while the doctor makes it: a repair marks it ``repaired`` and adds what it did to ``detail``. The
    report holds each as a ``results.DoctorCheck``."""

    name: str
    ok: bool
    detail: str
    repaired: bool = False
    repairable: bool = False  # would ``--repair`` fix it (not part of the JSON report)
    level: str = ""  # "warn" or "note" for a check that passed but has something to say (``results.SEVERITIES``)

    def result(self) -> DoctorCheck:
        return DoctorCheck(self.name, self.ok, self.detail, self.repaired, self.repairable, self.level)


class Doctor:
    def __init__(self, workspace: Workspace, repair: bool = False):
        self.ws = workspace
        self.index_dir = workspace.index_dir
        self.layout = IndexLayout(workspace.index_dir)
        self.repair = repair
        self.checks: list[Check] = []
        self.note_problems: list[dict] = []  # {path, error, seen_at}: notes to fix in the vault
        self._lock_checks: list[Check] = []
        self._running: set[str] = set()  # "writer lock", "watch lock": held by live processes

    def add(self, name: str, ok: bool, detail: str, repairable: bool = False) -> Check:
        check = Check(name, ok, detail, repairable=repairable)
        self.checks.append(check)
        return check

    # -- locks (looked at before the caller takes the writer lock) ------------------------------

    def _locks(self, command: str) -> tuple:
        """The writer lock (a lock file, or the PostgreSQL store's advisory lock) and this machine's watch lock."""
        return self.ws.writer_lock(command), FileLock.watch(self.index_dir, command)

    def inspect_locks(self) -> None:
        problems, states = [], []
        for lock in self._locks(""):
            held, holder = lock.probe()
            if held:
                states.append(f"{lock.purpose} held by {holder.describe() if holder else 'another process'}")
                self._running.add(lock.purpose)
            elif holder is not None:
                problems.append(f"{lock.purpose} left by {holder.describe()}, {_fate(holder)}")
        if problems:
            detail = "; ".join(problems) + " (harmless: the next writer takes it over)"
            self._lock_checks.append(Check("locks", True, detail, repairable=True, level="note"))
        else:
            self._lock_checks.append(Check("locks", True, "; ".join(states) or "free"))

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> DoctorReport:
        backend = self.ws.backend
        backend.require_index()
        if not self._lock_checks:
            self.inspect_locks()
        try:
            store = self.ws.open_store_unmigrated()
        except SmartvecError as exc:  # an emptied or cut SQLite file is named before it could become a new database
            self.add("database", False, backend.open_failure(exc))
            self._finish(None)
            return self._report()
        try:
            if store.check_database(self) and self._schema(store):
                steps = (
                    ("model", self._model),
                    ("model_files", self._model_files),
                    ("vectors", self._vectors),
                    ("orphans", self._orphans),
                    ("lexical", self._lexical),
                    (store.vector_index_check, self._vector_index),
                    ("leftovers", self._leftovers),
                    ("notes", self._notes),
                )
                for name, step in steps:
                    try:
                        step(store)
                    except store.DATABASE_ERRORS as exc:
                        self.add(name, False, f"cannot check: {exc}; {store.damage_advice}")
            self._finish(store)
        finally:
            store.close()
        return self._report()

    def _report(self) -> DoctorReport:
        return DoctorReport(tuple(c.result() for c in self.checks), tuple(self.note_problems))

    def _finish(self, store: Store | None) -> None:
        """The checks made whatever the database's state: who may read and write the index folder, and the locks."""
        self._access(store)
        self._finish_locks()

    def _finish_locks(self) -> None:
        for check in self._lock_checks:
            if self.repair and check.repairable:
                self._clear_stale_locks()
                check.repaired = True
                check.detail += "; cleared"
        self.checks.extend(self._lock_checks)

    def _clear_stale_locks(self) -> None:
        """Taking and releasing a free lock empties the holder info a dead process left in it."""
        command = "smartvec doctor --repair"
        for lock in self._locks(command):
            held, holder = lock.probe()
            if holder is not None and not held:
                try:
                    lock.acquire(0)
                except SmartvecError:
                    continue
                lock.release()

    # -- the database -------------------------------------------------------------------------

    def _schema(self, store: Store) -> bool:
        newer = store.newer_migrations()
        if newer:
            self.add("schema", False, f"written by a newer smartvec (migrations {', '.join(newer)}); upgrade smartvec")
            return False
        pending = store.pending_migrations()
        if not pending:
            self.add("schema", True, f"all {store.known_migration_count()} migrations applied")
            return True
        check = self.add(
            "schema",
            False,
            f"migrations not applied yet: {', '.join(pending)} (any writing command applies them)",
            repairable=True,
        )
        if not self.repair:
            check.detail += "; the other checks need them"
            return False
        store.apply_migrations()
        check.repaired = True
        check.detail += "; applied"
        return True

    # -- the model and the vectors ------------------------------------------------------------

    def _model(self, store: Store) -> None:
        vectors = store.vector_count()
        stored = store.fingerprint
        if store.reembedding:
            self.add(
                "model",
                False,
                f"an 'index --full' re-embedding everything with {store.reembedding} did not finish; {FULL}",
            )
            return
        if vectors and not stored:
            self.add("model", False, f"{vectors} vectors but no model fingerprint; {FULL}")
            return
        bad = store.wrong_size_vector_count(store.dim)
        if bad:
            self.add("model", False, f"{bad} stored vectors do not have {store.dim} dimensions; {FULL}")
            return
        if not stored:
            self.add("model", True, "no vectors yet")
            return
        try:
            current = self.ws.embedder().fingerprint
        except (SmartvecError, OSError, ImportError) as exc:
            self.add("model", False, f"index built with {stored}, but the configured model cannot be loaded: {exc}")
            return
        if current != stored:
            self.add(
                "model",
                False,
                f"index built with {stored}, the configured model is {current}; run 'smartvec index --full'",
            )
            return
        self.add("model", True, f"{stored}, {vectors} vectors")

    def _model_files(self, store: Store) -> None:
        """The ONNX model cache is what was verified (every file hashed, no stamp trusted), and the stored
        vectors are what the model gives now: a sample of them is embedded again, and the export that made
        them is the one in use (``model_exports`` in the index; an export made again after damage is
        another). ``--repair`` makes a damaged cache again and then re-embeds every stored passage, notes,
        history and feedback kept: vectors a damaged model made give wrong answers, silently."""
        from ..embed import EXPORTS_META, disagreement, made_by, packaged
        from ..embed.select import model_cache_check
        from .indexer import Indexer

        problems: list[str] = []
        heard: list[str] = []
        cache = model_cache_check(self.ws.config, self.layout.onnx_dir, self.ws.embedder_model() or "minilm")
        if cache is not None and not cache.sound:
            problems.append(cache.describe())
        if not store.fingerprint or store.reembedding:
            self.add("model_files", not problems, "; ".join(problems) or "no vectors to compare")
            return
        embedder = (
            self.ws.writer_embedder(on_notice=heard.append) if self.repair else self.ws.embedder(on_notice=heard.append)
        )
        if embedder.fingerprint != store.fingerprint:
            self.add("model_files", not problems, "; ".join(problems) or "vectors of other weights: see 'model'")
            return
        current = made_by(embedder)
        replaced = [
            m
            for m in (store.get_meta(EXPORTS_META) or "").split()
            if m.startswith("onnx:") and current.startswith("onnx:") and m != current
        ]
        if replaced:
            problems.append(f"vectors made by ONNX export {', '.join(replaced)}, since replaced by {current}")
        ids = (
            sorted(store.ann_expected_labels()) if packaged(embedder) else []
        )  # a model of the user's own is theirs to check
        texts = store.embedded_texts_of(ids[:: max(1, len(ids) // SAMPLE)][:SAMPLE])
        off, lowest = disagreement(embedder, list(texts.values()), store.vectors_for_chunks(list(texts)))
        if off:
            problems.append(
                f"{off} of {len(texts)} sampled stored vectors differ from what the model gives"
                f" (cosine down to {lowest:.3f})"
            )
        if not problems:
            sampled = f"{len(texts)} sampled vectors agree with {current}" if texts else f"vectors made by {current}"
            self.add(
                "model_files", True, f"{'ONNX cache ' + str(cache.folder) + ' intact; ' if cache else ''}{sampled}"
            )
            return
        check = self.add(
            "model_files",
            False,
            "; ".join(problems) + "; 'doctor --repair' makes the model again "
            "and re-embeds every passage (history and feedback kept)",
            repairable=True,
        )
        if self.repair:
            count = Indexer(self.ws, store, lambda: embedder).reembed()
            store.save_ann()
            check.repaired = True
            check.detail += f"; re-embedded {count} passages with {current}" + "".join(f" ({h})" for h in heard)

    def _vector_index(self, store: Store) -> None:
        """The store's own: an hnswlib file beside SQLite, pgvector's index inside PostgreSQL."""
        store.check_vector_index(self, self.repair)

    def _vectors(self, store: Store) -> None:
        missing = store.chunks_without_vectors()
        if not missing:
            self.add("vectors", True, "every passage has its stored vector")
            return
        names = store.passage_names(missing[:EXAMPLES])
        self.add("vectors", False, f"{len(missing)} passages have no stored vector (e.g. {', '.join(names)}); {FULL}")

    # -- orphans ------------------------------------------------------------------------------

    def _orphans(self, store: Store) -> None:
        homeless = store.passages_without_note()
        dangling = store.dangling_edge_count()
        if not homeless and not dangling:
            self.add("orphans", True, "no passages without a note, no edges to nowhere")
            return
        parts = []
        if homeless:
            parts.append(f"{len(homeless)} passages belong to no note")
        if dangling:
            parts.append(f"{dangling} edges point to notes or passages that do not exist")
        check = self.add("orphans", False, "; ".join(parts), repairable=True)
        if self.repair:
            store.repair_orphans(homeless)  # the vector index check that follows drops their labels
            check.repaired = True
            check.detail += "; edges dropped, passages marked DELETED (kept in history)"

    def _lexical(self, store: Store) -> None:
        """The full-text index holds exactly one entry per stored passage, with the passage's own text."""
        missing, extra, stale = store.lexical_index_drift()
        if not (missing or extra or stale):
            self.add("lexical", True, "the full-text index matches every stored passage")
            return
        parts = [
            f"{n} {what}"
            for n, what in (
                (missing, "passages missing"),
                (extra, "entries for no passage"),
                (stale, "entries with old text"),
            )
            if n
        ]
        check = self.add("lexical", False, f"full-text index out of step: {', '.join(parts)}", repairable=True)
        if self.repair:
            store.rebuild_lexical_index()
            check.repaired = True
            check.detail += "; rebuilt from the stored text"

    # -- files --------------------------------------------------------------------------------

    def _leftovers(self, store: Store) -> None:
        if "writer lock" in self._running and not self.repair:
            self.add("leftovers", True, "not checked while a writer is running")
            return
        named = store.ann.saved_file_name()
        found = self.layout.leftover_temp_files()
        if named:  # without a readable sidecar no index file can be called a leftover
            found += [p for p in self.layout.saved_ann_files() if p.name != named]
        sock = self.layout.socket
        if sock.exists() and "watch lock" not in self._running:
            found.append(sock)
        if not found:
            self.add("leftovers", True, "no temporary files or stale sockets")
            return
        names = ", ".join(sorted(p.name for p in found)[:EXAMPLES])
        check = self.add(
            "leftovers", False, f"{len(found)} files left by an interrupted writer or daemon ({names})", repairable=True
        )
        if self.repair:
            for path in found:
                path.unlink(missing_ok=True)
            check.repaired = True
            check.detail += "; removed"

    # -- who may read and write the index folder ------------------------------------------------

    def _access(self, store: Store | None) -> None:
        """A read-only index folder is no damage (queries work); one readable by those the vault keeps out is."""
        mask = self.ws.private_bits
        wide = too_wide(self.index_dir, mask)
        if wide:
            names = ", ".join(f"{p.relative_to(self.index_dir.parent)} {m:04o}" for p, m in wide[:EXAMPLES])
            vault_mode = stat.S_IMODE(self.ws.vault.stat().st_mode)
            check = self.add(
                "access",
                False,
                f"the vault folder is {vault_mode:04o} but {len(wide)} index files or folders "
                f"let others in ({names}); the next writer narrows them",
                repairable=True,
            )
            if self.repair:
                self.ws.narrow_index_modes()
                check.repaired = True
                check.detail += "; narrowed"
            return
        read_only = store.read_only if store is not None else self.ws.backend.read_only()
        if read_only:
            check = self.add(
                "access",
                True,
                "read-only: queries work, writers (index, consolidate, feedback, doctor --repair) "
                "need write access to the index folder and its files",
            )
            check.level = "warn"
            return
        self.add("access", True, "readable and writable, no wider than the vault" if mask else "readable and writable")

    # -- the vault ----------------------------------------------------------------------------

    def _notes(self, store: Store) -> None:
        """Notes the last runs skipped or read without their metadata: not damage to the index (``--repair``
        cannot help, and the exit code ignores them), but each is named until it is read without a problem."""
        self.note_problems = store.note_problems()
        count = len(self.note_problems)
        if not count:
            self.add("notes", True, "every note was read whole")
            return
        check = self.add(
            "notes",
            True,
            f"{count} note{'s' if count != 1 else ''} skipped or read without metadata; "
            "fix them in the vault and run 'smartvec index'",
        )
        check.level = "warn"


def _fate(holder: Holder) -> str:
    return "which is no longer running" if not holder.alive else "which exited without releasing it"
