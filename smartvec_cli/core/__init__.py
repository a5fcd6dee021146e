"""The library core: indexing, search and reporting. Knows nothing of Typer or rich."""
