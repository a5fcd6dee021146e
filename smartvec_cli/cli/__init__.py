"""The command line: thin Typer commands over the library core, one module per command."""
