"""Printing shared by the commands: data on stdout, messages on stderr.

Free of the command-line framework, so that a question answered by a daemon
(``query_line``) prints without importing it.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")
    sys.stdout.flush()


def message(text: str) -> None:
    """A note for the human at the terminal; goes to stderr so stdout stays data."""
    sys.stderr.write(text + "\n")


def show_notices(store) -> None:
    for notice in store.notices:
        message(f"warning: {notice}")


def plain(value):
    """A table cell shown as it is: note text and names may hold ``[...]`` that rich would read as markup."""
    from rich.text import Text

    return Text(str(value))


def stdout_console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)
