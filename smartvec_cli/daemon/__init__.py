"""Transport for long-running work: the watch loop, its query socket and the MCP server. The work they
run (indexing, the nightly pipeline in ``core.refresh``) lives in ``core``. Knows nothing of Typer or rich."""
