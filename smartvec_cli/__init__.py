"""smartvec: a self-aware vector memory over a markdown vault (SmartVector, arXiv 2604.20598)."""

__version__ = "0.1.0"
