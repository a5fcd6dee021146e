"""The watch daemon: index the vault as it changes, and answer queries with the model kept loaded.

Events only decide *when* to index, never *what*: each batch is an ordinary indexer run
(a scan that reads only notes whose size or mtime changed, and embeds only passages whose
text is new), so a missed or coalesced event can never leave the index wrong, and the
first batch catches up with whatever changed while the daemon was not running. Events
on files the scan would skip (hidden folders, the index folder, editors' temporary
files, excluded globs, non-notes) are dropped, so the daemon's own writes never wake it.

Bursts are debounced: a batch starts once the vault has been quiet for ``debounce``
seconds, or at the latest ``MAX_DELAY_FACTOR`` times that after the first event. Each
batch holds the writer lock only while it runs, so ``refresh`` and ``index`` can run
beside the daemon. A batch that fails is logged and retried with a growing delay; the
daemon keeps running. ``request_stop`` (safe to call from a signal handler) ends the
loop after the batch in flight.
"""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path
from typing import AbstractSet, Callable

from watchdog.events import FileSystemEventHandler

from ..core.api import Vault
from ..core.results import IndexReport
from ..errors import SmartvecError
from ..store.lock import DEFAULT_WAIT, FileLock, Holder, LockBusyError
from ..vault.scan import VaultRules, is_ignored, printable_path
from .query_socket import QueryServer, QueryService, SharedEmbedder, socket_path

COMMAND = "smartvec watch"
"""How the daemon's batches name themselves to other writers waiting for the lock."""
POLL_SECONDS = 0.2
MAX_DELAY_FACTOR = 5
RETRY_FIRST_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0
EVENT_TYPES = frozenset({"created", "modified", "moved", "deleted"})

Log = Callable[[str], None]


def vault_path_of(
    path: str, vault: Path, index_dir: Path, exclude: list[str], is_directory: bool, rules: VaultRules | None = None
) -> str | None:
    """The vault-relative path an event is about, or None when the scan would ignore that path (``rules``: what
    the vault's own files leave out, as ``vault.scan.VaultRules``).

    ``vault`` and ``index_dir`` are resolved paths, like the ones the events carry.
    """
    try:
        rel = Path(path).relative_to(vault)
    except ValueError:
        return None
    if Path(path) == index_dir or index_dir in Path(path).parents:
        return None
    rel_posix = rel.as_posix()
    if rel_posix in ("", ".") or is_ignored(rel_posix, exclude, rules):
        return None
    if not is_directory and not rel.name.lower().endswith(".md"):
        return None
    return rel_posix


class Debouncer:
    """Turns a stream of events into batches: due after ``quiet`` seconds without events, or
    ``max_delay`` after the first event of a burst, or at a retry time set after a failure."""

    def __init__(self, quiet: float, max_delay: float):
        self.quiet = quiet
        self.max_delay = max(max_delay, quiet)
        self.paths: set[str] = set()
        self._first: float | None = None
        self._last: float | None = None
        self._retry: float | None = None

    def add(self, path: str, now: float) -> None:
        self.paths.add(path)
        if self._first is None:
            self._first = now
        self._last = now

    def retry_at(self, when: float, paths: set[str]) -> None:
        """Run again at ``when`` even if no event comes (a failed batch's paths stay pending)."""
        self.paths |= paths
        self._retry = when

    def due_in(self, now: float) -> float | None:
        """Seconds until the next batch is due (<= 0: now), None when nothing is pending."""
        waits = []
        if self._last is not None and self._first is not None:  # set together, by the first event of a batch
            waits.append(min(self._last + self.quiet, self._first + self.max_delay) - now)
        if self._retry is not None:
            waits.append(self._retry - now)
        return min(waits) if waits else None

    def take(self) -> set[str]:
        paths, self.paths = self.paths, set()
        self._first = self._last = self._retry = None
        return paths


class Watcher:
    """The daemon over one vault: its batches are ``Vault.update`` calls on a vault of its own, whose store the
    ``QueryService`` then answers from (``Vault.adopt_reader``)."""

    def __init__(
        self, workspace, embedder, debounce: float = 2.0, lock_wait: float = DEFAULT_WAIT, log: Log | None = None
    ):
        self.ws = workspace
        self.embedder = SharedEmbedder(embedder)
        self.debounce = debounce
        self.lock_wait = lock_wait
        self.log = log or (lambda text: None)
        self.vault = Vault(workspace, self.embedder, wait=lock_wait, on_wait=self._waiting)
        self.queries = QueryService(workspace, self.embedder, self.log)
        self.batches = 0
        self._events: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._debouncer = Debouncer(debounce, debounce * MAX_DELAY_FACTOR)
        self._stop_requested = False
        self._failures = 0
        self._reported: dict[str, str] = {}
        self._ready = False

    @property
    def ready(self) -> bool:
        """True once the first (catch-up) batch has run and events are being handled."""
        return self._ready

    def request_stop(self) -> None:
        """Stop after the batch in flight. Only sets a flag, so it is safe in a signal handler."""
        self._stop_requested = True

    def run(self) -> None:
        """Serve until ``request_stop``; one daemon per index folder."""
        index_dir = self.ws.index_dir
        lock = FileLock.watch(index_dir, "smartvec watch")
        try:
            lock.acquire(0)
        except LockBusyError as exc:
            who = exc.holder.describe() if exc.holder else "another process"
            raise SmartvecError(f"a watch daemon already serves {index_dir}: {who}") from None
        try:
            self._prepare()
            self._serve()
        finally:
            lock.release()

    def _prepare(self) -> None:
        """Create the index if there is none (so that queries never race its creation), refuse at once
        rather than at every batch an index built with other weights, and load the model."""
        started = time.monotonic()
        try:
            self.vault.ensure_index(COMMAND)
        finally:
            self._log_notices()
        self.embedder.embed(["warm up"])
        self.log(f"model {self.embedder.name} ready in {time.monotonic() - started:.1f}s")

    def _serve(self) -> None:
        from watchdog.observers import Observer

        server = QueryServer(socket_path(self.ws.index_dir), self.queries.answer, self.log)
        listening = server.start()
        observer = Observer()
        observer.schedule(_Handler(self), str(self.ws.vault), recursive=True)
        try:
            try:
                observer.start()
            except OSError as exc:
                raise SmartvecError(
                    f"cannot watch {self.ws.vault}: {exc.strerror or exc} (on Linux, raise fs.inotify.max_user_watches)"
                ) from None
            where = f"; answering queries on {server.path}" if listening else ""
            self.log(f"watching {self.ws.vault} (debounce {self.debounce:g}s){where}")
            if not self._stop_requested:
                self._batch("catch-up")
            self._ready = True
            while self._wait_for_batch():
                self._batch("changes")
            self.log("stopped")
        finally:
            if observer.is_alive():
                observer.stop()
                observer.join(timeout=5)
            server.close()
            self.queries.close()
            self.vault.close()

    def _event(self, path: str) -> None:
        self._events.put(path)

    def _wait_for_batch(self) -> bool:
        """Collect events until a batch is due (True) or a stop is requested (False)."""
        while not self._stop_requested:
            due_in = self._debouncer.due_in(time.monotonic())
            if due_in is not None and due_in <= 0:
                return True
            timeout = POLL_SECONDS if due_in is None else min(POLL_SECONDS, due_in)
            try:
                path = self._events.get(timeout=timeout)
            except queue.Empty:
                continue
            self._debouncer.add(path, time.monotonic())
        return False

    def _batch(self, reason: str) -> None:
        paths = self._debouncer.take()
        started = time.monotonic()
        try:
            try:
                summary = self.vault.update(COMMAND)
            finally:
                self._log_notices()
            self.queries.adopt(self.vault)
        except Exception as exc:
            self._failures += 1
            delay = min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** (self._failures - 1))
            self.log(f"error: {reason} batch failed: {exc}; retrying in {delay:g}s")
            self._debouncer.retry_at(time.monotonic() + delay, paths)
            return
        self._failures = 0
        self.batches += 1
        self._report(reason, summary, time.monotonic() - started, paths)

    def _waiting(self, holder: Holder | None) -> None:
        who = holder.describe() if holder else "another process"
        self.log(f"waiting up to {self.lock_wait:g}s for {who} to release the writer lock")

    def _log_notices(self) -> None:
        """What the writer's vault has to tell (a lock taken over from a dead writer, a rebuilt vector file)."""
        for notice in self.vault.take_notices():
            self.log(f"warning: {notice}")

    def _report(self, reason: str, s: IndexReport, seconds: float, paths: AbstractSet[str] = frozenset()) -> None:
        """One line per batch that changed something, naming the changed files; a failing file is reported
        once, not every batch."""
        current = {e["path"]: e["error"] for e in s.errors}
        for path, error in current.items():
            if self._reported.get(path) != error:
                self.log(f"warning: {path}: {error}")
        self._reported = current
        touched = s.notes_new + s.notes_changed + s.notes_deleted + s.notes_renamed
        if touched or s.passages_embedded or s.passages_archived or reason == "catch-up":
            self.log(
                f"{reason}{named(paths)}: {s.notes_new} new, {s.notes_changed} changed, {s.notes_renamed} renamed, "
                f"{s.notes_deleted} deleted; "
                f"{s.passages_embedded} passages embedded, {s.passages_reused} passages reused ({seconds:.2f}s)"
            )


LOGGED_PATHS = 5


def named(paths: AbstractSet[str]) -> str:
    """`` (a.md, b.md and 3 more)``: the files a batch was about, for its log line."""
    if not paths:
        return ""
    shown = [printable_path(path) for path in sorted(paths)[:LOGGED_PATHS]]
    more = f" and {len(paths) - len(shown)} more" if len(paths) > len(shown) else ""
    return f" ({', '.join(shown)}{more})"


class _Handler(FileSystemEventHandler):
    """Forwards the events that matter to the watcher's queue (runs in watchdog's thread)."""

    def __init__(self, watcher: Watcher):
        super().__init__()
        self.watcher = watcher
        self.vault = Path(watcher.ws.vault)
        self.index_dir = Path(os.path.realpath(watcher.ws.index_dir))
        self.exclude = list(watcher.ws.config.exclude)
        self.rules = VaultRules.of(self.vault, self.exclude)

    def on_any_event(self, event) -> None:
        if event.event_type not in EVENT_TYPES or (event.is_directory and event.event_type == "modified"):
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            if not path:
                continue
            path = os.fsdecode(path)
            rel = vault_path_of(path, self.vault, self.index_dir, self.exclude, event.is_directory, self.rules)
            if rel is not None:
                self.watcher._event(rel)
