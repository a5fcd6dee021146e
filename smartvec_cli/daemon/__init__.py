"""Long-running and scheduled work: the nightly refresh pipeline, the watch daemon and its query
socket. Knows nothing of Typer or rich."""
