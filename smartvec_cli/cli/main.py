"""The console script. A question that a running daemon answers is printed before the command-line
framework is even imported (``warm.answer_warm``): importing Typer and the commands would cost several
times what the daemon's answer does. Everything else runs the Typer app (``app.run``)."""

from __future__ import annotations

import sys


def run() -> None:
    from .warm import answer_warm

    code = answer_warm(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from .app import run as run_app

    run_app()


if __name__ == "__main__":
    run()
