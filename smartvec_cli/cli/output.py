"""The one ``--json`` option every command shares, and the printing helpers (``printing``) the commands use."""

from __future__ import annotations

from typing import Annotated

import typer

from .printing import message, plain, print_json, progress_bar, show_notices, stdout_console  # noqa: F401

JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON on stdout, the same data the Python API returns.")
]
"""The one ``--json`` option every command shares: ``as_json: JsonOutput = False``."""
