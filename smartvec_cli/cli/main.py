"""The console script. A plain ``query`` line is answered before the command-line framework is even
imported (``query_line``): with a daemon running, importing Typer and the commands would cost several
times what the daemon's answer does. Everything else runs the Typer app (``app.run``)."""

from __future__ import annotations

import sys


def run() -> None:
    from .query_line import answer_query_line

    code = answer_query_line(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from .app import run as run_app

    run_app()


if __name__ == "__main__":
    run()
