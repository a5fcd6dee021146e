"""What the ``Vault`` returns, as typed frozen values: a question's hit, answer and batch answer, and the report of
every other command (``status``, ``show``, ``history``, ``related``, ``changes``, ``graph``, ``doctor``,
``forget``, ``index``, ``consolidate``, ``refresh``, ``feedback``).

These are the one definition of their JSON: ``to_dict()`` builds what ``query --json`` prints, what ``query
--batch`` prints a line of and what the daemon's query socket carries, and what each other command prints with
``--json`` (and the MCP tools return), so the Python API, the command line and the daemons cannot drift apart.
Only the standard library is imported, so that a caller (a command's module among them) can name the types
without loading the core.

A question goes in as one value too, ``QueryRequest``: the command line, a batch line, the daemon's socket, the MCP
tools and the Python API all build one, and building it is the one check of its values.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from ..memory.scoring import Weights
    from .filters import NoteFilter

JsonObject = dict[str, Any]
"""A JSON object as ``json.loads`` gives it back."""

BatchId = str | int | float | None
"""A batch line's ``id``: whatever JSON scalar the caller gave, echoed back."""


MODES = ("smart", "cosine", "lexical")
TOP_K_MIN, TOP_K_MAX = 1, 1000
FILTER_FIELDS = ("path", "tag", "where", "since", "until")
_WIRE_KEYS = frozenset({"top_k", "mode", "as_of", "include_archived", "include_dormant", "weights", "record_access"})


@dataclass(frozen=True, kw_only=True)
class QueryRequest:
    """A question's options, the one shape every front end builds (``query``'s flags, a ``--batch`` line, the
    daemon's socket, the MCP tools, ``Vault.query`` and its kin) and ``Vault.ask`` takes; given as keywords only,
    named as ``query``'s flags:

    - ``as_of``: the moment to answer at: a date or time, or words such as "March 2023" or "mid-2022";
      None: a date the question names, else now.
    - ``top_k``: how many hits, 1 to 1000. ``mode``: ``smart``, ``cosine`` (the plain-cosine baseline) or
      ``lexical`` (BM25).
    - ``include_archived``, ``include_dormant``: also return superseded or dormant passages.
    - ``weights``: the signals' weights, a mapping of signal to number or the ``--weights`` text.
    - ``track``: count the retrieval as an access (False for scripts and benchmarks, ``--no-track``).
    - ``explain``: keep each hit's ``explain`` (where each signal came from).
    - ``path``, ``tag``, ``where``, ``since``, ``until``: only the notes they match (``core.filters``).

    Making one checks it: a value the command line would refuse raises ``UsageError`` (exit code 2) with one
    line saying what is wrong, so that whoever answers it need not check it again. The dates (``as_of``,
    ``since``, ``until``) are read in every language a question may use, against the wall clock; the vault reads
    them again in its own languages, at its own moment, when it answers. The field defaults are ``query``'s."""

    as_of: str | dt.date | dt.datetime | None = None
    top_k: int = 5
    mode: str = "smart"
    include_archived: bool = False
    include_dormant: bool = False
    weights: Mapping[str, float] | str | None = None
    track: bool = True
    explain: bool = False
    path: str | Sequence[str] | None = None
    tag: str | Sequence[str] | None = None
    where: Mapping[str, object] | Sequence[str] | None = None
    since: str | dt.date | None = None
    until: str | dt.date | None = None

    def __post_init__(self) -> None:
        from ..errors import UsageError

        if self.mode not in MODES:
            raise UsageError(f"mode must be one of {', '.join(MODES)}")
        top_k = self.top_k
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not TOP_K_MIN <= top_k <= TOP_K_MAX:
            raise UsageError(f"top_k must be a whole number from {TOP_K_MIN} to {TOP_K_MAX}")
        self.checked_weights()
        if self.as_of:
            from ..clock import Clock
            from ..memory.asof import resolve_as_of
            from ..memory.date_languages import DATE_LANGUAGES

            resolve_as_of(self.as_of, Clock().now(), ("en", *DATE_LANGUAGES))
        self.note_filter()

    def checked_weights(self) -> Weights | None:
        """``weights`` read (``memory.scoring.Weights``); None: the vault's own."""
        if self.weights is None:
            return None
        from ..memory.scoring import Weights

        if isinstance(self.weights, str):
            return Weights.parse(self.weights)
        return Weights.from_mapping(self.weights)

    def note_filter(self) -> NoteFilter | None:
        """The notes the hits may come from (``core.filters.NoteFilter``); None: every note."""
        if not any(getattr(self, name) not in (None, "", [], ()) for name in FILTER_FIELDS):
            return None
        from ..memory.date_languages import DATE_LANGUAGES
        from .filters import note_filter

        where = dict(self.where) if isinstance(self.where, Mapping) else self.where
        found = note_filter(self.path, self.tag, where, self.since, self.until, ("en", *DATE_LANGUAGES))
        return found or None

    def to_json(self) -> JsonObject:
        """The request as the daemon's query socket carries it: the command's option names (``track`` as
        ``record_access``), ``weights`` as given, ``filters`` (``NoteFilter.to_json()``) only when there are some,
        so that a daemon of a version without them still answers the questions without. ``explain`` stays with the
        client: the daemon always sends each hit's explanation."""
        as_of = self.as_of
        data: JsonObject = {
            "top_k": self.top_k,
            "mode": self.mode,
            "as_of": as_of.isoformat() if isinstance(as_of, dt.date) else (as_of or None),
            "include_archived": self.include_archived,
            "include_dormant": self.include_dormant,
            "weights": self.weights if self.weights is None or isinstance(self.weights, str) else dict(self.weights),
            "record_access": self.track,
        }
        found = self.note_filter()
        if found:
            data["filters"] = found.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueryRequest:
        """``to_json()`` back, checked like the command line's flags. A key this version does not know raises
        TypeError: the client is of another version."""
        unknown = set(data) - _WIRE_KEYS - {"filters"}
        if unknown:
            raise TypeError(f"unknown search options: {', '.join(sorted(unknown))}")
        filters = data.get("filters") or {}
        if not isinstance(filters, Mapping):
            from ..errors import UsageError

            raise UsageError("'filters' must be an object")
        unknown = set(filters) - set(FILTER_FIELDS)
        if unknown:
            from ..errors import UsageError

            raise UsageError(f"unknown filter fields: {', '.join(sorted(unknown))}")
        default = cls()
        return cls(
            as_of=data.get("as_of") or None,
            top_k=data.get("top_k", default.top_k),
            mode=data.get("mode", default.mode),
            include_archived=bool(data.get("include_archived", default.include_archived)),
            include_dormant=bool(data.get("include_dormant", default.include_dormant)),
            weights=data.get("weights"),
            track=bool(data.get("record_access", default.track)),
            path=filters.get("path"),
            tag=filters.get("tag"),
            where=filters.get("where"),
            since=filters.get("since"),
            until=filters.get("until"),
        )

    def with_filters(self, own: Mapping[str, Any]) -> QueryRequest:
        """This request with each filter field ``own`` gives (a ``--batch`` line's ``path``, ``tag``, ``where``,
        ``since``, ``until``; empty ones left out) in place of its own, checked as a whole."""
        given = {name: own[name] for name in FILTER_FIELDS if own.get(name) not in (None, "", [])}
        if not given:
            return self
        return replace(
            self,
            path=given.get("path", self.path),
            tag=given.get("tag", self.tag),
            where=given.get("where", self.where),
            since=given.get("since", self.since),
            until=given.get("until", self.until),
        )


@dataclass(frozen=True)
class Signals:
    """The four ranking signals of a hit, each from 0 to 1 (``memory.scoring``); a baseline mode (cosine, lexical)
    leaves the ones it does not compute as None. The score is their weighted sum in smart mode."""

    semantic: float | None
    temporal: float | None
    confidence: float | None
    relational: float | None

    @classmethod
    def from_dict(cls, data: Mapping[str, float | None]) -> Signals:
        return cls(data["semantic"], data["temporal"], data["confidence"], data["relational"])

    def to_dict(self) -> dict[str, float | None]:
        return {
            "semantic": self.semantic,
            "temporal": self.temporal,
            "confidence": self.confidence,
            "relational": self.relational,
        }


@dataclass(frozen=True)
class QueryHit:
    """One ranked passage: a hit of ``query --json``, field for field.

    - ``rank``: 1 for the best hit.
    - ``chunk_id``: the passage's id (what ``feedback`` takes); ``note_id``: its note's.
    - ``path``: the note's path inside the vault; ``heading``: the section's heading ("" before the first).
    - ``text``: the passage as written in the note.
    - ``score``: what the hits are ordered by (smart mode: the weighted signals; cosine: the similarity;
      lexical: the BM25 relative to the best hit's).
    - ``confidence``: the calibrated probability that this hit answers the question, never rising down the list;
      None in the baseline modes (cosine, lexical), which have no such probability (their ``score`` is theirs).
    - ``signals``: the four signals (``Signals``).
    - ``state``: ``ACTIVE``, ``UNCONSOLIDATED`` (indexed, not yet consolidated), ``ARCHIVED`` (superseded)
      or ``DORMANT``.
    - ``valid_from``, ``valid_until``: the passage's validity window (ISO times; None: open on that side).
    - ``version``: the passage's version within its note, from 1.
    - ``warnings``: what the reader should know (superseded, contradicted, expired, corrected).
    - ``explain``: where each signal came from (``--explain``); None when not asked for, and then ``to_dict()``
      leaves the key out, as ``query --json`` does.
    - ``url``: opens the note (``obsidian://`` in an Obsidian vault, else ``file://``).
    - ``as_of``: the moment (ISO, UTC) the hit was judged at: the as-of given or a date the question names; None
      for now.

    ``explain`` is a read-only view; the lists and objects inside it are the answer's own copies."""

    rank: int
    chunk_id: str
    note_id: str
    path: str
    heading: str
    text: str
    score: float
    confidence: float | None
    signals: Signals
    state: str
    valid_from: str | None
    valid_until: str | None
    version: int
    warnings: tuple[str, ...]
    explain: Mapping[str, Any] | None
    url: str | None
    as_of: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryHit:
        """A hit of ``query --json`` (or of the daemon's answer, or any mapping with these keys) back as a value."""
        explain = data.get("explain")
        values = {name: data[name] for name in _HIT_FIELDS if name not in ("explain", "as_of")}
        values["as_of"] = data.get("as_of")  # an older daemon's hit has none
        values["signals"] = Signals.from_dict(data["signals"])
        values["warnings"] = tuple(data["warnings"])
        return cls(**values, explain=None if explain is None else MappingProxyType(copy.deepcopy(dict(explain))))

    def to_dict(self) -> JsonObject:
        """The hit as ``query --json`` prints it: the keys in field order, ``explain`` only when present."""
        data: JsonObject = {name: getattr(self, name) for name in _HIT_FIELDS}
        data["signals"] = self.signals.to_dict()
        data["warnings"] = list(self.warnings)
        if self.explain is None:
            del data["explain"]
        else:
            data["explain"] = copy.deepcopy(dict(self.explain))
        return data


_HIT_FIELDS = tuple(field.name for field in fields(QueryHit))
"""A hit's fields in order, which is the order of its keys in ``query --json``."""


def _hits(items: Sequence[Mapping[str, Any]]) -> tuple[QueryHit, ...]:
    return tuple(QueryHit.from_dict(item) for item in items)


@dataclass(frozen=True)
class QueryAnswer:
    """A question's hits with the moment they are about.

    ``as_of`` is the moment (ISO, UTC) of the as-of given or of a date the question names, None for now;
    ``as_of_phrase`` the words that named it, ``as_of_period`` the first and last day they name (either may be
    None: open), ``as_of_rule`` how the moment was chosen from them. ``relevant`` is how many passages passed
    the relevance floor (None in the baseline modes); ``notes_matched`` how many notes the note filter kept
    (None without a filter; 0 means no hits, whatever the question)."""

    hits: tuple[QueryHit, ...]
    as_of: str | None
    as_of_phrase: str | None
    as_of_period: tuple[str | None, str | None] | None
    as_of_rule: str | None
    relevant: int | None
    notes_matched: int | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueryAnswer:
        """An answer as ``to_dict()`` writes it (the daemon's socket carries it so) back as a value."""
        period = data["as_of_period"]
        return cls(
            hits=_hits(data["hits"]),
            as_of=data["as_of"],
            as_of_phrase=data["as_of_phrase"],
            as_of_period=None if period is None else (period[0], period[1]),
            as_of_rule=data["as_of_rule"],
            relevant=data["relevant"],
            notes_matched=data["notes_matched"],
        )

    def to_dict(self) -> JsonObject:
        """``{"hits", "as_of", "as_of_phrase", "as_of_period", "as_of_rule", "relevant", "notes_matched"}``, the
        hits as ``query --json`` prints them."""
        return {
            "hits": [hit.to_dict() for hit in self.hits],
            "as_of": self.as_of,
            "as_of_phrase": self.as_of_phrase,
            "as_of_period": None if self.as_of_period is None else list(self.as_of_period),
            "as_of_rule": self.as_of_rule,
            "relevant": self.relevant,
            "notes_matched": self.notes_matched,
        }


@dataclass(frozen=True)
class BatchAnswer:
    """One question of a batch answered: its ``id`` as given, its hits, and ``relevant`` and ``notes_matched`` as
    in ``QueryAnswer``."""

    id: BatchId
    hits: tuple[QueryHit, ...]
    relevant: int | None
    notes_matched: int | None

    @classmethod
    def of(cls, question_id: BatchId, answer: QueryAnswer) -> BatchAnswer:
        return cls(question_id, answer.hits, answer.relevant, answer.notes_matched)

    def to_dict(self) -> JsonObject:
        """One line of ``query --batch``: ``{"id", "hits", "relevant", "notes_matched"}``."""
        return {
            "id": self.id,
            "hits": [hit.to_dict() for hit in self.hits],
            "relevant": self.relevant,
            "notes_matched": self.notes_matched,
        }


@dataclass(frozen=True)
class IndexReport:
    """What one index run did (``Vault.update``): the notes scanned, new, changed, unchanged, deleted and renamed;
    the passages embedded, reused (their vector already stored), archived (replaced by new text) and recut (the
    rules for cutting notes changed); the notes that could not be read (``{"path", "error"}``); and how long it
    took. ``to_dict()`` is the first part of what ``index --json`` prints."""

    notes_scanned: int
    notes_new: int
    notes_changed: int
    notes_unchanged: int
    notes_deleted: int
    notes_renamed: int
    passages_embedded: int
    passages_reused: int
    passages_archived: int
    passages_recut: int
    errors: tuple[Mapping[str, str], ...]
    seconds: float

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IndexReport:
        values = {name: data[name] for name in _INDEX_FIELDS}
        values["errors"] = tuple(MappingProxyType(dict(error)) for error in data["errors"])
        return cls(**values)

    def to_dict(self) -> JsonObject:
        data: JsonObject = {name: getattr(self, name) for name in _INDEX_FIELDS}
        data["errors"] = [dict(error) for error in self.errors]
        return data


_INDEX_FIELDS = tuple(field.name for field in fields(IndexReport))


DOCTOR_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "index": (
            "database",
            "schema",
            "vectors",
            "orphans",
            "lexical",
            "ann",
            "ann_file",
            "ann_index",
            "ann_sync",
            "vector_index",
        ),
        "model": ("model", "model_files"),
        "vault": ("notes",),
        "index folder": ("leftovers", "access", "locks"),
    }
)
"""What each of ``doctor``'s checks looks at: the groups it prints its findings in."""

SEVERITIES = ("fail", "fixed", "warn", "note", "ok")
"""Worst first. ``fail``: a problem (exit 1 while one remains); ``fixed``: one ``--repair`` put right; ``warn``: the
index is sound but the user should act (notes to fix in the vault, a read-only folder); ``note``: worth knowing,
nothing to do (a lock a killed process left, which the next writer takes over)."""


def check_kind(name: str) -> str:
    """The group (``DOCTOR_KINDS``) a check of this name belongs to."""
    return next((kind for kind, names in DOCTOR_KINDS.items() if name in names), "index")


@dataclass(frozen=True)
class DoctorCheck:
    """One of ``doctor``'s findings: ``name`` (what was checked), ``ok``, ``detail`` (what was found, and what a
    repair did), ``repaired``; ``repairable`` (``--repair`` would put it right) and ``level`` (``warn`` or
    ``note`` for a check that passed with something to say) are not printed, but decide ``severity``."""

    name: str
    ok: bool
    detail: str
    repaired: bool = False
    repairable: bool = False
    level: str = ""

    @property
    def severity(self) -> str:
        """One of ``SEVERITIES``."""
        if self.repaired:
            return "fixed"
        if not self.ok:
            return "fail"
        return self.level or "ok"

    @property
    def kind(self) -> str:
        return check_kind(self.name)

    def to_dict(self) -> JsonObject:
        """``{"name", "ok", "detail", "repaired", "kind", "severity"}``, a check of ``doctor --json``."""
        return {
            "name": self.name,
            "ok": self.ok,
            "detail": self.detail,
            "repaired": self.repaired,
            "kind": self.kind,
            "severity": self.severity,
        }


@dataclass(frozen=True)
class DoctorReport:
    """What ``doctor`` found (``Vault.doctor``): its checks in the order made, and the notes to fix in the vault
    (``{"path", "error", "seen_at"}``: skipped, or read without their metadata)."""

    checks: tuple[DoctorCheck, ...]
    note_problems: tuple[Mapping[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        """No problem remains: every check passed or was repaired."""
        return all(c.ok or c.repaired for c in self.checks)

    @property
    def repairable(self) -> bool:
        """A problem remains that ``--repair`` would put right."""
        return any(not c.ok and not c.repaired and c.repairable for c in self.checks)

    @property
    def problems(self) -> int:
        """How many problems remain."""
        return sum(1 for c in self.checks if not c.ok and not c.repaired)

    def grouped(self) -> list[tuple[str, list[DoctorCheck]]]:
        """The checks by kind (``DOCTOR_KINDS``), the group with the worst finding first, each group worst first."""
        rank = {severity: i for i, severity in enumerate(SEVERITIES)}
        groups: dict[str, list[DoctorCheck]] = {}
        for check in self.checks:
            groups.setdefault(check.kind, []).append(check)
        for checks in groups.values():
            checks.sort(key=lambda c: rank[c.severity])  # stable: checks of one severity keep their order
        order = list(DOCTOR_KINDS)
        return sorted(
            groups.items(),
            key=lambda item: (rank[item[1][0].severity], order.index(item[0]) if item[0] in order else len(order)),
        )

    def to_dict(self) -> JsonObject:
        """``{"ok", "checks", "note_problems"}``: what ``doctor --json`` prints."""
        return {
            "ok": self.ok,
            "checks": [c.to_dict() for c in self.checks],
            "note_problems": [dict(p) for p in self.note_problems],
        }


@dataclass(frozen=True)
class DeletedNote:
    """A note deleted from the vault whose passages the index still keeps (``Vault.deleted_notes``)."""

    path: str
    note_id: str
    deleted_at: str | None

    def to_dict(self) -> JsonObject:
        return {"path": self.path, "note_id": self.note_id, "deleted_at": self.deleted_at}


@dataclass(frozen=True)
class ForgetResult:
    """What ``forget`` erased (``Vault.forget``): the notes' paths, and how many passage versions."""

    forgotten: tuple[str, ...] = ()
    passage_versions: int = 0

    def to_dict(self) -> JsonObject:
        """``{"forgotten", "passage_versions"}``: what ``forget --json`` prints."""
        return {"forgotten": list(self.forgotten), "passage_versions": self.passage_versions}


@dataclass(frozen=True)
class GraphNode:
    """A note of the graph."""

    note_id: str
    path: str
    title: str

    def to_dict(self) -> JsonObject:
        return {"note_id": self.note_id, "path": self.path, "title": self.title}


@dataclass(frozen=True)
class GraphEdge:
    """``count`` typed edges (``link``, ``depends_on``, ``supersedes``, ``contradicts``, ...) from one note to
    another; ``inferred`` says why when smartvec inferred it (a supersession from the notes' names), else None."""

    source: str
    target: str
    type: str
    count: int
    inferred: str | None = None

    def to_dict(self) -> JsonObject:
        """The edge as ``graph --format json`` prints it: ``inferred`` only when there is a reason."""
        data: JsonObject = {"source": self.source, "target": self.target, "type": self.type, "count": self.count}
        if self.inferred is not None:
            data["inferred"] = self.inferred
        return data


@dataclass(frozen=True)
class GraphAttachment:
    """``count`` links of one ``type`` from a note (``source``) to a file of the vault that is not a note."""

    source: str
    path: str
    type: str
    count: int

    def to_dict(self) -> JsonObject:
        return {"source": self.source, "path": self.path, "type": self.type, "count": self.count}


@dataclass(frozen=True)
class NoteGraph:
    """Notes and the typed edges between them (``Vault.graph``), with the files they link to; ``left_out``
    counts the notes a limit kept out. ``to_dict()`` is ``graph --format json``; ``mermaid()`` and ``dot()`` the
    other formats."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    attachments: tuple[GraphAttachment, ...]
    left_out: int

    def to_dict(self) -> JsonObject:
        return {
            "nodes": [node.to_dict() for node in self.nodes],
            "edges": [edge.to_dict() for edge in self.edges],
            "attachments": [link.to_dict() for link in self.attachments],
            "left_out": self.left_out,
        }

    def mermaid(self) -> str:
        """A Mermaid flowchart (to paste into a note): contradictions dotted, supersession bold, files as
        parallelograms."""
        ids = {node.note_id: f"n{i}" for i, node in enumerate(self.nodes)}
        lines = ["graph LR"]
        for node in self.nodes:
            title = node.title.replace('"', "'")
            lines.append(f'  {ids[node.note_id]}["{title}"]')
        arrows = {"contradicts": "-.->", "supersedes": "==>"}
        for edge in self.edges:
            label = f"{edge.type} (inferred)" if edge.inferred else edge.type
            lines.append(f"  {ids[edge.source]} {arrows.get(edge.type, '-->')}|{label}| {ids[edge.target]}")
        files = {path: f"f{i}" for i, path in enumerate(dict.fromkeys(a.path for a in self.attachments))}
        for path, name in files.items():
            lines.append(f'  {name}[/"{path.replace(chr(34), chr(39))}"/]')
        for link in self.attachments:
            lines.append(f"  {ids[link.source]} -.->|{link.type}| {files[link.path]}")
        return "\n".join(lines)

    def dot(self) -> str:
        """Graphviz dot: contradictions dashed red, supersession bold, files as note shapes."""

        def quote(text: str) -> str:
            return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

        lines = ["digraph smartvec {", "  rankdir=LR;"]
        for node in self.nodes:
            lines.append(f"  {quote(node.note_id)} [label={quote(node.title)}];")
        styles = {"contradicts": " style=dashed color=red", "supersedes": " style=bold"}
        for edge in self.edges:
            label = f"{edge.type} (inferred)" if edge.inferred else edge.type
            style = styles.get(edge.type, "")
            lines.append(f"  {quote(edge.source)} -> {quote(edge.target)} [label={quote(label)}{style}];")
        for path in dict.fromkeys(a.path for a in self.attachments):
            lines.append(f"  {quote('file:' + path)} [label={quote(path)} shape=note];")
        for link in self.attachments:
            lines.append(
                f"  {quote(link.source)} -> {quote('file:' + link.path)} [label={quote(link.type)} style=dotted];"
            )
        lines.append("}")
        return "\n".join(lines)


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it: a result by its ``to_dict()``, a tuple as a list, a mapping as a dict (each
    inside too, so that the caller gets its own copy)."""
    if isinstance(value, Report):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _frozen(data: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only view of the caller's own copy of ``data``, for a field whose keys are open-ended (a note's front
    matter, a run's summary)."""
    return MappingProxyType(copy.deepcopy(dict(data or {})))


class Report:
    """A result whose ``to_dict()`` is its fields in order, each as JSON holds it: nested results by their own
    ``to_dict()``, tuples as lists."""

    def to_dict(self) -> JsonObject:
        value: Any = self
        return {field.name: _plain(getattr(self, field.name)) for field in fields(value)}


@dataclass(frozen=True)
class NoteKinds(Report):
    """How many live notes have a declared kind (``source_type``), one a kind rule inferred, or none."""

    declared: int
    inferred: int
    unknown: int


@dataclass(frozen=True)
class AnnStatus(Report):
    """The vector index: its live vectors, its tombstones (deleted, not yet compacted), and whether it holds the
    index's latest generation (False: a reader catches up on its next query)."""

    live: int
    tombstones: int
    in_sync: bool


@dataclass(frozen=True)
class ReviewNote(Report):
    """A live note consolidation flagged for a human: why, and since when."""

    path: str
    reason: str
    since: str | None


@dataclass(frozen=True)
class LastRun(Report):
    """The latest recorded run: the command, when it started and finished (None: it did not), ``status`` (``ok``,
    ``failed``, ``running`` or ``interrupted``: its process gone), its ``summary`` (the command's own ``--json``,
    as far as it got) and ``why`` (what interrupted it; None)."""

    command: str
    started_at: str
    finished_at: str | None
    status: str
    summary: Mapping[str, Any]
    why: str | None


@dataclass(frozen=True)
class EmbedderChoice(Report):
    """The model the vault is embedded with (None: not chosen yet), whether ``config.toml`` or the notes'
    ``languages`` chose it, and those languages, the main one first."""

    model: str | None
    chosen_by: str
    languages: tuple[str, ...]


@dataclass(frozen=True)
class VaultStatus(Report):
    """What the index holds (``Vault.status``); ``to_dict()`` is what ``status --json`` prints.

    - ``vault``, ``index_dir``: the folders; ``model``: the index's model fingerprint (None: nothing indexed).
    - ``notes``, ``notes_deleted``: live and deleted notes; ``passages_of_deleted_notes``: the passage versions
      the deleted ones keep (``forget`` erases them).
    - ``kinds``: the live notes by where their kind came from; ``trust_warning``: said when most notes have
      neither a kind nor a date, else None.
    - ``passages``: the passage versions by state (``UNCONSOLIDATED``, ``ACTIVE``, ``DORMANT``, ``ARCHIVED``,
      ``DELETED``); ``vectors``, ``edges``: how many are stored; ``ann``: the vector index.
    - ``left_out``: the notes the last index run did not index, counted by why; ``needs_review``: the notes
      consolidation flagged; ``notes_with_problems``: notes skipped or read without their metadata.
    - ``last_run``: the latest recorded run (None before the first); ``onnx_export``: where the ONNX model
      queries use lives (None without one); ``embedder``: the model and how it was chosen."""

    vault: str
    index_dir: str
    model: str | None
    notes: int
    notes_deleted: int
    passages_of_deleted_notes: int
    kinds: NoteKinds
    trust_warning: str | None
    passages: Mapping[str, int]
    vectors: int
    edges: int
    ann: AnnStatus
    left_out: Mapping[str, int]
    needs_review: tuple[ReviewNote, ...]
    last_run: LastRun | None
    notes_with_problems: int
    onnx_export: str | None
    embedder: EmbedderChoice


@dataclass(frozen=True)
class FormerName(Report):
    """A path and note id a note had before it moved, and when it stopped having them."""

    path: str
    note_id: str | None
    until: str | None


@dataclass(frozen=True)
class NoteKind(Report):
    """A note's kind (``source_type``; None: none), where it came from (``declared``, ``inferred``), and the kind
    rule that inferred it."""

    type: str | None
    source: str | None
    reason: str | None


@dataclass(frozen=True)
class NoteLink(Report):
    """A link as ``show`` lists it: its ``type``, the ``target`` written, and what it ``resolved`` to (a note's path,
    or an ``attachment``'s; None: nothing). An edge consolidation found between two passages (``contradicts``)
    runs from this note's passage (``target``) to ``path#chunk_id`` of the other, with its ``reason``, which only
    such an edge prints (``between_passages``)."""

    type: str
    target: str | None
    resolved: str | None
    attachment: bool
    reason: str | None = None
    between_passages: bool = False

    def to_dict(self) -> JsonObject:
        data: JsonObject = {
            "type": self.type,
            "target": self.target,
            "resolved": self.resolved,
            "attachment": self.attachment,
        }
        if self.between_passages:
            data["reason"] = self.reason
        return data


@dataclass(frozen=True)
class StoredPassage(Report):
    """One stored version of a note's passage as ``show`` lists it: its state, text and hash, its validity window
    and where each end came from (``declared``, ``inferred``, ...), and how often it was retrieved."""

    chunk_id: str
    version: int
    state: str
    heading: str
    text: str
    hash: str
    valid_from: str | None
    valid_until: str | None
    valid_from_source: str | None
    valid_until_source: str | None
    access_count: int


@dataclass(frozen=True)
class NoteView(Report):
    """One note as the index knows it (``Vault.show``); ``to_dict()`` is what ``show --json`` prints.

    Its ids and path, when it was deleted (None: live), the names it had before, its title, hash and last update,
    its version (the front matter's, else aclarai's), aclarai's id and version, the encoding it was read in, its
    kind and authority, its tags, its front matter as read (``metadata``), its links and every stored version of
    its passages."""

    note_id: str
    path: str
    deleted_at: str | None
    former_names: tuple[FormerName, ...]
    title: str | None
    embedding_hash: str | None
    last_updated: str | None
    version: Any
    aclarai_id: str | None
    aclarai_ver: Any
    encoding: str | None
    kind: NoteKind
    authority: float | None
    tags: tuple[str, ...]
    metadata: Mapping[str, Any]
    links: tuple[NoteLink, ...]
    passages: tuple[StoredPassage, ...]


@dataclass(frozen=True)
class SupersededNote(Report):
    """A note this one supersedes: its path, until when it held, and why smartvec inferred it (None: written)."""

    path: str
    until: str | None
    inferred: str | None


@dataclass(frozen=True)
class LineageVersion(Report):
    """One version of a passage in ``history``: its state, validity window and where each end came from, the
    version that replaced it (``chunk_id@version``; None), and its text."""

    version: int
    state: str
    valid_from: str | None
    valid_until: str | None
    valid_from_source: str | None
    valid_until_source: str | None
    replaced_by: str | None
    text: str


@dataclass(frozen=True)
class PassageLineage(Report):
    """A passage of the note and each of its versions, oldest first."""

    chunk_id: str
    versions: tuple[LineageVersion, ...]


@dataclass(frozen=True)
class NoteEvent(Report):
    """Something that happened to the note (``kind``: ``split``, ``feedback``, ...) at ``at``; ``detail`` holds
    what the event recorded, printed beside ``at`` and ``kind``."""

    at: str
    kind: str
    detail: Mapping[str, Any]

    def to_dict(self) -> JsonObject:
        return {"at": self.at, "kind": self.kind, **_plain(self.detail)}


@dataclass(frozen=True)
class NoteHistory(Report):
    """The lineage of one note (``Vault.history``); ``to_dict()`` is what ``history --json`` prints.

    Its ids and path, when it was deleted, the names it had before, its validity window, the note that superseded
    it (its path, when, and why smartvec inferred it; None), the notes it supersedes, why it needs review (None),
    every version of every passage, and its events."""

    note_id: str
    path: str
    deleted_at: str | None
    former_names: tuple[FormerName, ...]
    valid_from: str | None
    valid_until: str | None
    superseded_by: str | None
    superseded_at: str | None
    superseded_inferred: str | None
    supersedes: tuple[SupersededNote, ...]
    needs_review: str | None
    passages: tuple[PassageLineage, ...]
    events: tuple[NoteEvent, ...]


@dataclass(frozen=True)
class NoteRef(Report):
    """A note named: its path, id and title, and the URL that opens it (``obsidian://`` or ``file://``)."""

    path: str
    note_id: str
    title: str | None
    url: str | None


@dataclass(frozen=True)
class PassageRef(Report):
    """A passage named by its id and heading (``text``: what it says, when given)."""

    chunk_id: str
    heading: str
    text: str


@dataclass(frozen=True)
class PassageHeading(Report):
    """A passage named by its id and heading."""

    chunk_id: str
    heading: str


@dataclass(frozen=True)
class RelatedNote(Report):
    """A note like the one asked about: its ``rank`` (1: the closest), path, id, title, ``score`` (the cosine
    ``related``'s method gives it) and URL; its ``passage`` closest to the note, and the note's own passage that
    one answers best (``because_of``; None when that passage is no longer stored)."""

    rank: int
    path: str
    note_id: str
    title: str | None
    score: float
    url: str | None
    passage: PassageRef
    because_of: PassageHeading | None


@dataclass(frozen=True)
class RelatedNotes(Report):
    """The notes most like one note, its versions left out (``Vault.related``): the note, the ``method`` that
    scored them (``best``, ``average``, ``mean``) and the notes, best first; ``to_dict()`` is what ``related
    --json`` prints."""

    note: NoteRef
    method: str
    related: tuple[RelatedNote, ...]


@dataclass(frozen=True)
class PassageVersionRef(Report):
    """One version of a passage, with its text."""

    chunk_id: str
    version: int
    text: str


@dataclass(frozen=True)
class SupersedingNote(Report):
    """The note that superseded a passage's note."""

    path: str


@dataclass(frozen=True)
class EndedPassage(Report):
    """A passage version whose validity ended ``at`` (``changes``' ``expired``: its note's declared end fell):
    its note's path, id, version, heading and text."""

    at: str
    path: str
    chunk_id: str
    version: int
    heading: str
    text: str


@dataclass(frozen=True)
class ReplacedPassage(EndedPassage):
    """A passage version something replaced ``at``: ``how`` (``edited``, ``superseded``, ``retired``, ``deleted``,
    ``removed``) and ``by`` what (the new version, the superseding note, or None)."""

    how: str
    by: PassageVersionRef | SupersedingNote | None


@dataclass(frozen=True)
class AddedPassage(Report):
    """A passage version first stored ``at``; ``replaces``: the version an edit replaced with it (None: new)."""

    at: str
    path: str
    chunk_id: str
    version: int
    heading: str
    text: str
    replaces: PassageVersionRef | None


@dataclass(frozen=True)
class ContradictingPassage(Report):
    """The passage version (and its note) found to contradict another."""

    path: str
    chunk_id: str
    version: int
    text: str


@dataclass(frozen=True)
class ContradictedPassage(Report):
    """A passage version found ``at`` to be contradicted ``by`` another."""

    at: str
    path: str
    chunk_id: str
    version: int
    text: str
    by: ContradictingPassage


@dataclass(frozen=True)
class ChangesReport(Report):
    """What the vault's passages did in ``[since, until)`` (ISO times; ``Vault.changes``): the versions added,
    replaced, expired and contradicted, each oldest first; ``to_dict()`` is what ``changes --json`` prints."""

    since: str
    until: str
    added: tuple[AddedPassage, ...]
    replaced: tuple[ReplacedPassage, ...]
    expired: tuple[EndedPassage, ...]
    contradicted: tuple[ContradictedPassage, ...]


@dataclass(frozen=True)
class ConsolidateReport(Report):
    """What one ``consolidate`` run did (``Vault.consolidate``); ``to_dict()`` is what ``consolidate --json``
    prints.

    - ``transitions``: how many passage versions moved from one state to another (``"UNCONSOLIDATED->ACTIVE"``).
    - ``edges_added``, ``edges_removed``: the relations it drew and took back; ``contradictions_found``.
    - ``passages_rippled``: passages whose trust moved because a neighbour's did.
    - ``notes_needing_review``: notes it flagged for a human; ``notes_processed``: notes it looked at.
    - ``seconds``: how long it took."""

    transitions: Mapping[str, int]
    edges_added: int
    edges_removed: int
    contradictions_found: int
    passages_rippled: int
    notes_needing_review: int
    notes_processed: int
    seconds: float

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConsolidateReport:
        """``to_dict()`` back (the keys of ``consolidate --json``): how the run's own counts become the value."""
        values = {field.name: data[field.name] for field in fields(cls)}
        values["transitions"] = MappingProxyType(dict(data["transitions"]))
        return cls(**values)


@dataclass(frozen=True)
class RefreshStage(Report):
    """One stage of a ``refresh`` run: its ``name`` (``index``, ``consolidate``, ``compact``, ``concepts``), its
    ``status`` (``ok``, ``partial``, ``failed``, ``interrupted``) and how long it took. A stage that finished
    says whether it ``changed`` the index, a few words for the human summary (``note``) and its own numbers
    (``details``: the stage command's ``--json``); a failed one its ``error``. ``to_dict()`` holds the keys
    its status has."""

    name: str
    status: str
    seconds: float
    changed: bool = False
    note: str = ""
    details: Mapping[str, Any] = dataclasses.field(default_factory=lambda: MappingProxyType({}))
    error: str | None = None

    def to_dict(self) -> JsonObject:
        data: JsonObject = {"name": self.name, "status": self.status, "seconds": self.seconds}
        if self.status == "failed":
            data["error"] = self.error
        elif self.status != "interrupted":
            data.update(changed=self.changed, note=self.note, details=_plain(self.details))
        return data


@dataclass(frozen=True)
class RefreshRecord(Report):
    """What one ``refresh`` run did (``Vault.refresh``); ``to_dict()`` is what ``refresh --json`` prints and what
    the run records.

    - ``command``; ``status``: ``ok``, ``partial`` (notes it could not read that an earlier run had not already
      reported), ``failed`` or ``interrupted``; when it started and finished, and how long it took.
    - ``changed``: whether the index differs afterwards; ``processed``, ``updated``, ``skipped``: notes, summed
      over the stages.
    - ``errors``: the new problems (``{"path", "error"}``); ``known_problems``: notes whose problem an earlier
      run reported already; ``error``: why the run failed (or ``interrupted``), else None.
    - ``stages``: each stage run, in order."""

    command: str
    status: str
    started_at: str
    finished_at: str
    seconds: float
    changed: bool
    processed: int
    updated: int
    skipped: int
    errors: tuple[Mapping[str, str], ...]
    known_problems: int
    error: str | None
    stages: tuple[RefreshStage, ...]


@dataclass(frozen=True)
class FeedbackResult(Report):
    """What ``feedback`` did (``Vault.feedback``): the passage version (``chunk_id``, ``version``), the ``signal``
    given (``up``, ``down``, ``correct``), its trust before and after, and the chunk id of the correction stored
    (None unless ``correct``); ``to_dict()`` is what ``feedback --json`` prints."""

    chunk_id: str
    version: int
    signal: str
    trust_before: float
    trust_after: float
    correction_chunk_id: str | None = None


@dataclass(frozen=True)
class IndexTotals(Report):
    """What the whole index holds after an index run, beside what the run did: the notes that wait for
    ``consolidate``, and every passage version stored (``status`` counts the same; the run's embedded and reused
    do not add up to it)."""

    notes_to_consolidate: int
    passages_stored: int


@dataclass(frozen=True)
class IndexRun(IndexReport):
    """What ``index`` did (``Vault.index``): an ``IndexReport`` and the index's ``IndexTotals`` after it;
    ``to_dict()`` is what ``index --json`` prints."""

    notes_to_consolidate: int
    passages_stored: int

    @classmethod
    def of(cls, report: IndexReport, totals: IndexTotals) -> IndexRun:
        return cls(**vars(report), **vars(totals))

    def to_dict(self) -> JsonObject:
        return {
            **super().to_dict(),
            "notes_to_consolidate": self.notes_to_consolidate,
            "passages_stored": self.passages_stored,
        }


@dataclass(frozen=True)
class GitImportReport(Report):
    """What ``index --from-git`` did (``Vault.index(from_git=True)``); ``to_dict()`` is what it prints with
    ``--json``.

    - ``commits_read``: the commits replayed and those without a note changed (``commits_without_notes``);
      ``commits_left``: those a ``max_commits`` kept for the next import; ``from_commit``, ``to_commit`` and
      ``first_date``, ``last_date``: the range imported (None: nothing was).
    - ``notes_*``: a commit's changes to notes, counted per commit (a note edited in three commits counts three).
    - ``passages_written``: the passage texts written, each either embedded (``passages_embedded``) or reused
      (``passages_reused``: its vector made by an earlier commit); ``passages_archived``: versions replaced.
    - ``errors``: problems of a note as the last commit imported has it (``{"path", "error", "commit"}``);
      ``past_errors``: problems of versions a later commit replaced; ``seconds``: how long it took.
    - ``notes_to_consolidate``, ``passages_stored``: the index after it (``IndexTotals``)."""

    commits_read: int
    commits_replayed: int
    commits_without_notes: int
    commits_left: int
    from_commit: str | None
    to_commit: str | None
    first_date: str | None
    last_date: str | None
    notes_new: int
    notes_changed: int
    notes_deleted: int
    notes_renamed: int
    passages_embedded: int
    passages_reused: int
    passages_archived: int
    passages_written: int
    errors: tuple[Mapping[str, str], ...]
    past_errors: tuple[Mapping[str, str], ...]
    seconds: float
    notes_to_consolidate: int
    passages_stored: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GitImportReport:
        """``to_dict()`` back (the keys of ``index --from-git --json``)."""
        values = {field.name: data[field.name] for field in fields(cls)}
        for name in ("errors", "past_errors"):
            values[name] = tuple(MappingProxyType(dict(error)) for error in data[name])
        return cls(**values)
