"""Long-running and scheduled work: the writer lock, the nightly refresh pipeline, the watch daemon
and its query socket. Knows nothing of Typer or rich."""
