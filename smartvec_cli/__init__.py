"""smartvec: a self-aware vector memory over a markdown vault (SmartVector, arXiv 2604.20598).

The Python API is ``smartvec_cli.open_vault(vault, index_dir=None, now=None)`` (see
``smartvec_cli.core.api``); it is imported on first use so that ``smartvec --help`` stays fast.
"""

__version__ = "0.1.0"
__all__ = ["open_vault", "Vault", "__version__"]


def __getattr__(name: str):
    if name in ("open_vault", "Vault"):
        from .core import api

        return getattr(api, name)
    raise AttributeError(f"module 'smartvec_cli' has no attribute {name!r}")
