"""``smartvec mcp``: the vault as an agent's memory, over the Model Context Protocol."""

from __future__ import annotations

import signal
from typing import Optional

import typer

from .app import app, workspace


@app.command("mcp")
def mcp_command(
    ctx: typer.Context,
    http: Optional[str] = typer.Option(
        None,
        "--http",
        metavar="HOST:PORT",
        help="Serve streamable HTTP at this address instead of stdio (HOST defaults to 127.0.0.1).",
    ),
    wait: float = typer.Option(
        2.0,
        "--wait",
        min=0,
        metavar="SECONDS",
        help="How long feedback waits for another writer before the tool call fails.",
    ),
) -> None:
    """Run an MCP server (stdio by default) with the tools search, feedback, note, history and status."""
    from ..daemon.mcp import parse_http_address, serve
    from .watch import log_line

    address = parse_http_address(http) if http is not None else None
    ws = workspace(ctx)
    embedder = ws.embedder(on_notice=log_line)
    signal.signal(signal.SIGTERM, stop)
    serve(ws, embedder, http=address, wait=wait, log=log_line)


def stop(signum, frame) -> None:
    """SIGTERM ends the server as Ctrl-C does: the transport unwinds, the socket and the locks are released."""
    raise KeyboardInterrupt
