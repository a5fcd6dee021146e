"""Settings that live in the index folder (``config.toml``), with defaults that need no file.

The file is optional; every key has a default. Example::

    store = "postgresql://team@db.example/handbook"  # a shared PostgreSQL + pgvector store (default: SQLite here)
    exclude = ["drafts/**", "*.excalidraw.md"]
    max_note_mb = 10
    max_passages_per_note = 2000

    [embedder]
    model = "auto"          # auto (chosen by the vault's languages at the first index) | minilm | multilingual-e5
    backend = "auto"        # auto | onnx | sentence-transformers | module:factory
    precision = "auto"      # auto (the index's; a new one from 1,000 passages bf16 on AMX, else int8)
                            # | fp32 | int8 | bf16 (a change re-embeds)

    [scoring]
    weights = { semantic = 0.35, temporal = 0.25, confidence = 0.25, relational = 0.15 }
    relevance_floor = 0.02  # a passage less likely than this to answer (the relevance model's probability) is left out
    weak_below = 0.2        # a question less answerable than this gets "weak match" hits only
    relevance_margin = 1.0  # log-odds: the passages this close to the most relevant are "about the question"
    tie_weight = 0.5        # log-odds: the most time, trust and relations add among them (near ties, versions)
    relevance_spread = 3.0  # log-odds: the semantic signal falls from 1 (most relevant) to 0 this far below it

    [confidence]
    half_life_days = 365    # forgetting of undated passages whose source type has no half-life below
    floor = 0.05
    dormant_below = 0.10
    default_authority = 0.5 # notes with no authority, source_type or folder rule

    [confidence.source_types]   # override the source-authority table
    chat = 0.3

    [confidence.half_lives]     # days; 0 = never fades (defaults: chat 30, email 90, wiki 730, policy never)
    meeting_notes = 60

    [confidence.folders]        # source type by vault path glob (before the kind rules below)
    "chat/**" = "chat"

    [kinds]                     # how a note that declares no source_type gets a kind (memory/kinds.py)
    daily_note_names = true     # a top-level note named by its date is a daily note
    chat_line_share = 0.6       # this share of lines like "Ana: ..." makes a chat export; 0 = off
    [kinds.folder_words]        # a word of a folder's name -> kind; a kind named here replaces its default words
    chat = ["slack", "chat", "discord"]
    [kinds.tags]                # a tag -> kind
    meeting_notes = ["meeting", "minutes"]

    [consolidation]
    value_cosine = 0.64         # two differing values contradict when the sentences giving them are this close
    ripple_penalties = [0.15, 0.075]   # per hop; their number is the depth limit
    infer_versions = true       # "X v2" dated after "X" supersedes it as if declared; false turns inference off
    echo_penalty = 0.25         # trust lost by a passage that repeats a superseded value

An index run that finds no ``config.toml`` in the index folder writes one holding the default kind rules, for the
user to read and change; an existing file is never rewritten.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import overload

from .errors import SmartvecError, UsageError
from .memory.confidence import ConfidenceSettings
from .memory.consolidation import ConsolidationSettings
from .memory.kinds import KindRules
from .memory.scoring import Calibration, ScoringSettings, Weights

RETIRED_CALIBRATION_KEYS = frozenset(
    """cosine_weight score_weight margin_weight closeness_weight closeness_squared_weight siblings_weight
    hit_cosine_weight first_closeness_weight length_weight note_size_weight first_note_size_weight""".split()
)
"""``[scoring.calibration]`` keys of earlier confidence fits, whose features the confidence no longer weighs."""

EMBEDDER_BACKENDS = ("auto", "onnx", "sentence-transformers")
EMBEDDER_MODELS = ("auto", "minilm", "multilingual-e5")
EMBEDDER_PRECISIONS = ("auto", "fp32", "int8", "bf16")
LANGUAGE_CODES = re.compile(r"^[a-z]{2,3}$")


@dataclass
class Config:
    store: str | None = None  # a postgresql:// URL; None keeps the embedded SQLite store in the index folder
    exclude: list[str] = field(default_factory=list)
    max_note_mb: float = 10.0
    embedder_backend: str = "auto"
    embedder_precision: str = "auto"  # MiniLM's: fp32, int8 (embed.onnx), bf16 (embed.bf16) or auto (Workspace)
    embedder_model: str = (
        "auto"  # auto: the index's own (its fingerprint), or at the first index the vault's languages'
    )
    languages: list[str] | None = None  # ISO 639-1 codes; None: read from the notes at the first index
    batch_size: int = 32
    chunk_max_chars: int = 900
    max_passages_per_note: int = 2000  # a log or an export pasted into one note would drown every search
    scoring: ScoringSettings = field(default_factory=ScoringSettings)
    confidence: ConfidenceSettings = field(default_factory=ConfidenceSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)

    @property
    def max_note_bytes(self) -> int:
        return int(self.max_note_mb * 1024 * 1024)


RETIRED_SCORING_KEYS = frozenset(
    "specific_weight value_weight lexical_weight phrase_weight dense_share answer_dense_share title_weight".split()
)
"""``[scoring]`` keys of the hand-set relevance rules the fitted relevance model replaced: read and ignored, so an
older config.toml still loads (``smartvec status`` has nothing to say of them)."""


def load_config(path: Path) -> Config:
    """Read the index folder's ``config.toml`` at ``path`` if present.

    Every key is type- and range-checked here, at the boundary: a malformed value is a usage error naming
    the file, the table and the key (``<index>/config.toml: [chunking] max_chars must be an integer, not
    'lots'``), never a traceback from deep inside a run, nor a NaN that would make every score NaN."""
    path = Path(path)
    config = Config()
    if not path.is_file() and not path.is_symlink():
        return config
    try:
        data = tomllib.loads(read_config_text(path))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SmartvecError(f"{path} is a symbolic link: smartvec reads only the config.toml it made") from None
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        top = Table(data, "")
        _load(config, top)
        _refuse_unknown(top)
    except ConfigValueError as exc:
        raise UsageError(f"{path}: {exc}") from None
    except UsageError as exc:  # a value checked by the memory model's own parser (the weights)
        raise UsageError(f"{path}: {exc}") from None
    return config


MAX_CONFIG_BYTES = 1 << 20
"""A settings file is a few hundred bytes; more than this is not one."""


def read_config_text(path: Path) -> str:
    """The file's text, read without following a symbolic link, from a regular file only (a FIFO would hang), at
    most ``MAX_CONFIG_BYTES``."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"{path} is not a regular file")
        data = fh.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise UsageError(f"{path}: over {MAX_CONFIG_BYTES // 1024} KB, not a settings file")
    return data.decode("utf-8")


class ConfigValueError(ValueError):
    """A value of ``config.toml`` of the wrong type or out of range; the message names its table and key."""


class Table:
    """One table of ``config.toml``, read key by key with its type and range checked."""

    def __init__(self, data, name: str, seen: dict[str, set[str]] | None = None):
        if not isinstance(data, dict):
            raise ConfigValueError(f"[{name}] must be a table, not {shown(data)}")
        self.data = data
        self.name = name
        self.seen = {} if seen is None else seen  # table name -> keys read, shared by every table of one file
        self.seen.setdefault(name, set())

    def known(self, *keys: str) -> None:
        """Mark keys as read (those a loader reads from ``data`` itself)."""
        self.seen[self.name].update(keys)

    def unknown(self) -> list[str]:
        """Keys of this table that nothing read: a misspelt or invented setting."""
        return sorted(str(key) for key in self.data if key not in self.seen[self.name])

    def __contains__(self, key: str) -> bool:
        self.known(key)
        return key in self.data

    def where(self, key: str) -> str:
        return f"[{self.name}] {key}" if self.name else key

    def _fail(self, key: str, what: str):
        raise ConfigValueError(f"{self.where(key)} must be {what}, not {shown(self.data[key])}")

    def table(self, key: str) -> "Table":
        self.known(key)
        return Table(self.data.get(key, {}), f"{self.name}.{key}" if self.name else key, self.seen)

    def number(self, key: str, default: float, low: float | None = None, high: float | None = None) -> float:
        """A finite number (an integer is one too) within ``low``..``high``."""
        self.known(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self._fail(key, "a number")
        return float(self._in_range(key, value, low, high))

    def integer(self, key: str, default: int, low: int | None = None) -> int:
        self.known(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self._fail(key, "an integer")
        return int(self._in_range(key, value, low, None))

    def boolean(self, key: str, default: bool) -> bool:
        self.known(key)
        if key not in self.data:
            return default
        if not isinstance(self.data[key], bool):
            self._fail(key, "true or false")
        return self.data[key]

    @overload
    def string(self, key: str, default: str) -> str: ...

    @overload
    def string(self, key: str, default: None) -> str | None: ...

    def string(self, key: str, default: str | None) -> str | None:
        self.known(key)
        if key not in self.data:
            return default
        if not isinstance(self.data[key], str):
            self._fail(key, "a string")
        return self.data[key]

    def _in_range(self, key: str, value, low, high):
        if low is not None and high is not None and not low <= value <= high:
            self._fail(key, f"a number from {low:g} to {high:g}")
        if low is not None and value < low:
            self._fail(key, f"{low:g} or more")
        if high is not None and value > high:
            self._fail(key, f"{high:g} or less")
        return value

    def numbers(self, low: float | None = None, high: float | None = None) -> dict[str, float]:
        """Every key of this table, each a number (``[confidence.source_types]``)."""
        return {str(key): self.number(key, 0.0, low, high) for key in self.data}

    def strings(self) -> dict[str, str]:
        return {str(key): self.string(key, "") for key in self.data}

    def free_form(self) -> None:
        """Every key of this table is the user's to name."""
        self.known(*self.data)


def shown(value) -> str:
    """A value as the file spells it (``true``, ``nan``, ``'lots'``), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return repr(value)


def _refuse_unknown(top: Table) -> None:
    """A key that no setting reads is refused, naming it: a misspelt ``max_char`` would otherwise be ignored in
    silence, and the user left believing it applies."""
    for name in sorted(top.seen):
        table = top if not name else None
        data = top.data
        for part in name.split(".") if name else []:
            data = data.get(part, {}) if isinstance(data, dict) else {}
        if table is None:
            table = Table(data, name, top.seen)
        extra = table.unknown()
        if extra:
            where = f"[{name}] " if name else ""
            raise ConfigValueError(f"unknown key {where}{extra[0]!r}: no setting has that name (misspelt?)")


def _load(config: Config, top: Table) -> None:
    top.known("store", "exclude", "languages")
    store = top.data.get("store")
    if store is not None and not is_store_url(store):
        raise ConfigValueError(f"store must be a postgresql:// URL, not {store!r}")
    config.store = store
    exclude = top.data.get("exclude", [])
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise ConfigValueError(f"exclude must be a list of glob strings, not {top.data['exclude']!r}")
    config.exclude = list(exclude)
    if "scan" in top.data:
        scan = top.table("scan")
        scan.known("exclude")
        more = scan.data.get("exclude", [])
        if isinstance(more, str):
            more = [more]
        if not isinstance(more, list) or not all(isinstance(p, str) for p in more):
            raise ConfigValueError(f"[scan] exclude must be a list of glob strings, not {scan.data['exclude']!r}")
        config.exclude.extend(more)
    config.max_note_mb = top.number("max_note_mb", config.max_note_mb, low=0.0)
    config.max_passages_per_note = top.integer("max_passages_per_note", config.max_passages_per_note, low=1)
    embedder = top.table("embedder")
    backend = embedder.string("backend", config.embedder_backend)
    if backend not in EMBEDDER_BACKENDS and not is_import_spec(backend):
        raise ConfigValueError(
            f"[embedder] backend must be one of {', '.join(EMBEDDER_BACKENDS)}, or 'module:factory', not {backend!r}"
        )
    config.embedder_backend = backend
    config.batch_size = embedder.integer("batch_size", config.batch_size, low=1)
    model = embedder.string("model", config.embedder_model)
    if model not in EMBEDDER_MODELS:
        raise ConfigValueError(f"[embedder] model must be one of {', '.join(EMBEDDER_MODELS)}, not {model!r}")
    config.embedder_model = model
    precision = embedder.string("precision", config.embedder_precision)
    if precision not in EMBEDDER_PRECISIONS:
        raise ConfigValueError(
            f"[embedder] precision must be one of {', '.join(EMBEDDER_PRECISIONS)}, not {precision!r}"
        )
    config.embedder_precision = precision
    languages = top.data.get("languages")
    if languages is not None:
        if isinstance(languages, str):
            languages = [languages]
        if (
            not isinstance(languages, list)
            or not languages
            or not all(isinstance(c, str) and LANGUAGE_CODES.match(c) for c in languages)
        ):
            raise ConfigValueError(
                f'languages must be a list of ISO 639-1 codes such as ["de", "en"], not {top.data["languages"]!r}'
            )
        config.languages = list(dict.fromkeys(languages))
    config.chunk_max_chars = top.table("chunking").integer("max_chars", config.chunk_max_chars, low=1)
    _load_scoring(config.scoring, top.table("scoring"))
    _load_confidence(config.confidence, top.table("confidence"))
    config.confidence.kind_rules = _kind_rules(top.table("kinds"))
    _load_consolidation(config.consolidation, top.table("consolidation"))


def _load_scoring(scoring: ScoringSettings, table: Table) -> None:
    if "weights" in table:
        try:
            scoring.weights = Weights.from_mapping(table.data["weights"])
        except UsageError as exc:
            raise ConfigValueError(f"[scoring] weights: {exc}") from None
    table.known(*RETIRED_SCORING_KEYS)  # read and ignored (``RETIRED_SCORING_KEYS``)
    for key in ("relevance_spread", "relevance_margin", "tie_weight"):  # log-odds
        setattr(scoring, key, table.number(key, getattr(scoring, key), low=0.0))
    for key in ("relevance_floor", "weak_below"):  # probabilities
        setattr(scoring, key, table.number(key, getattr(scoring, key), low=0.0, high=1.0))
    if "calibration" in table:
        calibration = table.table("calibration")
        known = {f.name for f in fields(Calibration)}
        unknown = sorted(set(calibration.data) - known)
        retired = sorted(RETIRED_CALIBRATION_KEYS.intersection(unknown))
        if retired:
            raise ConfigValueError(
                f"[scoring.calibration] {retired[0]} is retired: the confidence now weighs the relevance "
                "model's log-odds, so parameters fitted on the old features would mis-state every confidence; remove "
                "the table to use the shipped fit, or fit new parameters with `smartvec bench calibrate`"
            )
        if unknown:
            raise ConfigValueError(
                f"[scoring.calibration] has no key {unknown[0]!r} (its keys: {', '.join(sorted(known))})"
            )
        scoring.calibration = Calibration(**{k: calibration.number(k, getattr(scoring.calibration, k)) for k in known})
    table.table("weights").known(*(table.data.get("weights") or {}))


def _load_confidence(settings: ConfidenceSettings, table: Table) -> None:
    settings.half_life_days = table.number("half_life_days", settings.half_life_days, low=0.0)
    settings.access_weight = table.number("access_weight", settings.access_weight, low=0.0)
    for key in ("floor", "dormant_below", "default_authority", "learning_rate", "correction_rate"):
        setattr(settings, key, table.number(key, getattr(settings, key), low=0.0, high=1.0))
    settings.source_types = {k.lower(): v for k, v in table.table("source_types").numbers(low=0.0, high=1.0).items()}
    settings.half_lives = {k.lower(): v for k, v in table.table("half_lives").numbers(low=0.0).items()}
    settings.folders = table.table("folders").strings()
    settings.infer_kinds = table.boolean("infer_kinds", settings.infer_kinds)


def _load_consolidation(settings: ConsolidationSettings, table: Table) -> None:
    for key in ("neighbours", "body_neighbours", "echo_neighbours"):
        setattr(settings, key, table.integer(key, getattr(settings, key), low=0))
    for key in ("value_cosine", "restate_cosine", "echo_cosine"):
        setattr(settings, key, table.number(key, getattr(settings, key), low=-1.0, high=1.0))
    for key in ("contradiction_penalty", "echo_penalty", "dormant_after_days"):
        setattr(settings, key, table.number(key, getattr(settings, key), low=0.0))
    settings.infer_versions = table.boolean("infer_versions", settings.infer_versions)
    if "ripple_penalties" in table:
        penalties = table.data["ripple_penalties"]
        if not isinstance(penalties, list) or not all(
            not isinstance(p, bool) and isinstance(p, (int, float)) and math.isfinite(p) and p >= 0 for p in penalties
        ):
            raise ConfigValueError(
                f"[consolidation] ripple_penalties must be a list of numbers, 0 or more, not {penalties!r}"
            )
        settings.ripple_penalties = tuple(float(p) for p in penalties)


def _kind_rules(section: Table) -> KindRules:
    """``[kinds]`` over the defaults: a kind listed under ``folder_words`` or ``tags`` gets exactly the words
    given (an empty list turns that rule off for it); kinds not listed keep theirs."""
    rules = KindRules()
    section.known("folder_words", "tags")
    for key in ("folder_words", "tags"):
        table = section.data.get(key, {})
        if not isinstance(table, dict) or not all(
            isinstance(words, list) and all(isinstance(w, str) for w in words) for words in table.values()
        ):
            raise ConfigValueError(f"kinds.{key} must map each kind to a list of words, not {table!r}")
        merged = dict(getattr(rules, key))
        merged.update({str(kind): tuple(w.lower() for w in words) for kind, words in table.items()})
        setattr(rules, key, {kind: words for kind, words in merged.items() if words})
    rules.daily_note_names = section.boolean("daily_note_names", rules.daily_note_names)
    rules.chat_line_share = section.number("chat_line_share", rules.chat_line_share, low=0.0, high=1.0)
    return rules


CONFIG_HEADER = """# smartvec settings for this index; every key is optional
# (see docs/configuration.md in smartvec's repository).
# The kind rules below are the defaults, written here so you can read and change them.

"""


def write_default_config(path: Path) -> bool:
    """Write ``config.toml`` with the default kind rules when the index folder has none; never touch an existing one.

    Called under the writer lock; written to a temporary name and renamed, so a crash leaves either no file
    or the whole one."""
    path = Path(path)
    if path.exists():
        return False
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(CONFIG_HEADER + KindRules().to_toml(), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # a folder that takes the index but not this file: the defaults apply all the same
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True


STORE_URL_SCHEMES = ("postgresql://", "postgres://")


def is_store_url(value) -> bool:
    """Whether ``value`` names a PostgreSQL store (the only server store there is)."""
    return isinstance(value, str) and value.startswith(STORE_URL_SCHEMES)


def is_import_spec(value) -> bool:
    """``package.module:factory``: an embedder of the user's own (the subprocess tests use a fake one)."""
    if not isinstance(value, str):
        return False
    module, _, attr = value.partition(":")
    return bool(module) and bool(attr) and all(part.isidentifier() for part in module.split(".") + attr.split("."))
