"""Settings that live in the index folder (``config.toml``), with defaults that need no file.

The file is optional; every key has a default. Example::

    store = "postgresql://team@db.example/handbook"  # a shared PostgreSQL + pgvector store (default: SQLite here)
    exclude = ["drafts/**", "*.excalidraw.md"]
    max_note_mb = 10
    max_passages_per_note = 2000

    [embedder]
    backend = "auto"        # auto | onnx | sentence-transformers | module:factory

    [scoring]
    weights = { semantic = 0.35, temporal = 0.25, confidence = 0.25, relational = 0.15 }
    relevance_spread = 0.15 # semantic falls from 1 (best match) to 0 this far below it
    relevance_margin = 0.15 # only candidates this close to the most relevant are ranked by all four signals
    relevance_floor = 0.25  # below this a passage is no answer at all
    weak_below = 0.30       # a hit below this is returned with a "weak match" warning
    specific_weight = 0.5   # identifiers, numbers and names found in a passage add this to its cosine
    value_weight = 0.30     # a passage stating an answer of the kind asked for ("16 weeks", "Marta Rossi") leads its note
    lexical_weight = 0.0    # the share of all the question's words (measured: it lets echoes win)

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

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UsageError
from .memory.confidence import ConfidenceSettings
from .memory.consolidation import ConsolidationSettings
from .memory.kinds import KindRules
from .memory.scoring import Calibration, ScoringSettings, Weights

EMBEDDER_BACKENDS = ("auto", "onnx", "sentence-transformers")


@dataclass
class Config:
    store: str | None = None  # a postgresql:// URL; None keeps the embedded SQLite store in the index folder
    exclude: list[str] = field(default_factory=list)
    max_note_mb: float = 10.0
    embedder_backend: str = "auto"
    batch_size: int = 32
    chunk_max_chars: int = 900
    max_passages_per_note: int = 2000  # a log or an export pasted into one note would drown every search
    scoring: ScoringSettings = field(default_factory=ScoringSettings)
    confidence: ConfidenceSettings = field(default_factory=ConfidenceSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)

    @property
    def max_note_bytes(self) -> int:
        return int(self.max_note_mb * 1024 * 1024)


def load_config(path: Path) -> Config:
    """Read the index folder's ``config.toml`` at ``path`` if present; a malformed file is a usage error, not a traceback."""
    path = Path(path)
    config = Config()
    if not path.is_file():
        return config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    store = data.get("store")
    if store is not None and not is_store_url(store):
        raise UsageError(f"{path}: 'store' must be a postgresql:// URL")
    config.store = store
    exclude = data.get("exclude", [])
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise UsageError(f"{path}: 'exclude' must be a list of glob strings")
    config.exclude = list(exclude)
    if "max_note_mb" in data:
        config.max_note_mb = float(data["max_note_mb"])
    if "max_passages_per_note" in data:
        config.max_passages_per_note = int(data["max_passages_per_note"])
    embedder = data.get("embedder", {})
    backend = embedder.get("backend", config.embedder_backend)
    if backend not in EMBEDDER_BACKENDS and not is_import_spec(backend):
        raise UsageError(f"{path}: embedder.backend must be one of {', '.join(EMBEDDER_BACKENDS)}, or 'module:factory'")
    config.embedder_backend = backend
    config.batch_size = int(embedder.get("batch_size", config.batch_size))
    chunking = data.get("chunking", {})
    config.chunk_max_chars = int(chunking.get("max_chars", config.chunk_max_chars))
    try:
        _load_memory_settings(config, data)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    return config


def _load_memory_settings(config: Config, data: dict) -> None:
    scoring = data.get("scoring", {})
    if "weights" in scoring:
        config.scoring.weights = Weights.from_mapping(scoring["weights"])
    for key in ("relevance_spread", "specific_weight", "lexical_weight", "value_weight", "relevance_margin", "relevance_floor", "weak_below"):
        if key in scoring:
            setattr(config.scoring, key, float(scoring[key]))
    if "calibration" in scoring:
        config.scoring.calibration = Calibration(**{k: float(v) for k, v in scoring["calibration"].items()})
    confidence = data.get("confidence", {})
    settings = config.confidence
    for key in ("half_life_days", "floor", "dormant_below", "default_authority", "learning_rate", "correction_rate", "access_weight"):
        if key in confidence:
            setattr(settings, key, float(confidence[key]))
    settings.source_types = {str(k).lower(): float(v) for k, v in confidence.get("source_types", {}).items()}
    settings.half_lives = {str(k).lower(): float(v) for k, v in confidence.get("half_lives", {}).items()}
    settings.folders = {str(k): str(v) for k, v in confidence.get("folders", {}).items()}
    if "infer_kinds" in confidence:
        settings.infer_kinds = bool(confidence["infer_kinds"])
    settings.kind_rules = _kind_rules(data.get("kinds", {}))
    consolidation = data.get("consolidation", {})
    for key in (
        "neighbours", "body_neighbours", "value_cosine", "restate_cosine", "contradiction_penalty", "dormant_after_days",
        "infer_versions", "echo_neighbours", "echo_cosine", "echo_penalty",
    ):
        if key in consolidation:
            kind = type(getattr(config.consolidation, key))
            setattr(config.consolidation, key, kind(consolidation[key]))
    if "ripple_penalties" in consolidation:
        config.consolidation.ripple_penalties = tuple(float(p) for p in consolidation["ripple_penalties"])


def _kind_rules(section: dict) -> KindRules:
    """``[kinds]`` over the defaults: a kind listed under ``folder_words`` or ``tags`` gets exactly the words
    given (an empty list turns that rule off for it); kinds not listed keep theirs."""
    rules = KindRules()
    for key in ("folder_words", "tags"):
        table = section.get(key, {})
        if not isinstance(table, dict) or not all(
            isinstance(words, list) and all(isinstance(w, str) for w in words) for words in table.values()
        ):
            raise ValueError(f"kinds.{key} must map each kind to a list of words")
        merged = dict(getattr(rules, key))
        merged.update({str(kind): tuple(w.lower() for w in words) for kind, words in table.items()})
        setattr(rules, key, {kind: words for kind, words in merged.items() if words})
    if "daily_note_names" in section:
        rules.daily_note_names = bool(section["daily_note_names"])
    if "chat_line_share" in section:
        rules.chat_line_share = float(section["chat_line_share"])
    return rules


CONFIG_HEADER = """# smartvec settings for this index; every key is optional (see the README, "Configuration").
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
