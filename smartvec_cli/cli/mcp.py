"""``smartvec mcp``: the vault as an agent's memory, over the Model Context Protocol."""

from __future__ import annotations

import signal
from typing import Optional

import typer

from ..errors import UsageError
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
    no_auth: bool = typer.Option(
        False,
        "--no-auth",
        help="With --http on a loopback address: serve without the bearer token (every local user can connect; "
        "refused for a private vault).",
    ),
    feedback: Optional[bool] = typer.Option(
        None,
        "--feedback/--read-only",
        help="Offer the feedback tool (default: over stdio yes, over --http no).",
    ),
) -> None:
    """Run an MCP server (stdio by default) with the tools search, feedback, note, history and status.

    Over --http, clients must send the bearer token kept in <index>/mcp-token (made and printed on the first
    start), and the feedback tool is off unless --feedback is given."""
    from ..daemon.mcp import parse_http_address, serve
    from .watch import log_line

    address = parse_http_address(http) if http is not None else None
    if no_auth and address is None:
        raise UsageError("--no-auth goes with --http only")
    ws = workspace(ctx)
    embedder = ws.embedder(on_notice=log_line)
    signal.signal(signal.SIGTERM, stop)
    serve(ws, embedder, http=address, wait=wait, log=log_line, auth=not no_auth, feedback_tool=feedback)


def stop(signum, frame) -> None:
    """SIGTERM ends the server as Ctrl-C does: the transport unwinds, the socket and the locks are released."""
    raise KeyboardInterrupt
