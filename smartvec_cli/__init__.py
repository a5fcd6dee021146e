"""smartvec: a self-aware vector memory over a markdown vault (SmartVector, arXiv 2604.20598).

The Python API is ``smartvec_cli.open_vault(vault, index_dir=None, now=None)`` (see
``smartvec_cli.core.api``); it is imported on first use so that ``smartvec --help`` stays fast.
"""

__all__ = ["open_vault", "Vault", "__version__"]


def __getattr__(name: str):
    if name == "__version__":
        return _installed_version()
    if name in ("open_vault", "Vault"):
        from .core import api

        return getattr(api, name)
    raise AttributeError(f"module 'smartvec_cli' has no attribute {name!r}")


def _installed_version() -> str:
    """The version from the package metadata, written once in ``pyproject.toml``; read on demand, since
    ``importlib.metadata`` costs milliseconds that ``smartvec --help`` need not spend."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("smartvec")
    except PackageNotFoundError:
        return "0+unknown"
