"""The command reference in ``docs/commands.md``, written from the commands themselves.

``python -m smartvec_cli.cli.reference`` rewrites what lies between the two marker comments of the page: for every
command, its usage line, what it does and its options with their defaults, read from the Typer app exactly as
``--help`` reads them. ``--check`` rewrites nothing and exits 1 when the page is not what the commands say (``make
lint`` runs it, and so does a test), so a new option or a changed default cannot leave the reference behind. The
prose around the markers is written by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator

from typer import _click as click
from typer.core import TyperGroup

BEGIN = "<!-- reference:begin (written by `python -m smartvec_cli.cli.reference`; edit the commands, not this) -->"
END = "<!-- reference:end -->"
PAGE = Path(__file__).resolve().parents[2] / "docs" / "commands.md"
"""The page in a checkout (an installed package has no docs: pass ``--page``)."""


def commands() -> Iterator[tuple[str, click.Command, click.Context]]:
    """(full name, command, its context) of the program and every command below it, in the order ``--help`` lists
    them, groups before their commands."""
    import typer.main

    from .app import app, register_commands

    register_commands()
    root = typer.main.get_command(app)

    def walk(command: click.Command, name: str, parent: click.Context | None) -> Iterator:
        context = click.Context(command, info_name=name.rsplit(" ", 1)[-1], parent=parent)
        yield name, command, context
        if isinstance(command, TyperGroup):
            for child in command.list_commands(context):
                found = command.get_command(context, child)
                if found is not None and not found.hidden:
                    yield from walk(found, f"{name} {child}", context)

    yield from walk(root, "smartvec", None)


def escaped(text: str) -> str:
    """Text of a help string as Markdown shows it literally: no table cell split at ``|``, no ``<notes>`` taken for an
    HTML tag, no ``*`` for emphasis."""
    for char in ("\\", "|", "<", "*"):
        text = text.replace(char, "\\" + char)
    return text


def section(name: str, command: click.Command, context: click.Context) -> list[str]:
    """One command's part: its heading, what it does (the help's paragraphs), its usage line, a table of its
    arguments and options (``--help`` left out: every command has it), and a group's table of its commands."""
    usage = " ".join([context.command_path, *command.collect_usage_pieces(context)])
    lines = [f"### {name}", ""]
    for paragraph in (command.help or "").strip().split("\n\n"):
        if paragraph.strip():
            lines += [escaped(" ".join(paragraph.split())), ""]
    lines += [f"    {usage}", ""]
    options = []
    for param in command.get_params(context):
        record = param.get_help_record(context)
        if record is None or "--help" in param.opts:
            continue
        names, meaning = record
        options.append(f"| `{names}` | {escaped(' '.join(meaning.split()))} |")
    if options:
        lines += ["| argument or option | meaning |", "|---|---|", *options, ""]
    if isinstance(command, TyperGroup):
        children = [(child, command.get_command(context, child)) for child in command.list_commands(context)]
        rows = [
            f"| `{child}` | {escaped(found.get_short_help_str(limit=200))} |"
            for child, found in children
            if found is not None and not found.hidden
        ]
        lines += ["| command | what it does |", "|---|---|", *rows, ""]
    return lines


def reference() -> str:
    """The generated part of the page, markers included."""
    lines = [BEGIN, ""]
    for name, command, context in commands():
        lines += section(name, command, context)
    return "\n".join([*lines, END])


def updated(page: str) -> str:
    """``page`` with its reference written anew between the markers."""
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise ValueError(f"the page needs one {BEGIN!r} and, after it, one {END!r}")
    head, rest = page.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    return head + reference() + tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smartvec_cli.cli.reference", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1, writing nothing, when the page is out of date")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page to write (default: docs/commands.md)")
    args = parser.parse_args(argv)
    page = args.page.read_text(encoding="utf-8")
    new = updated(page)
    if new == page:
        return 0
    if args.check:
        print(f"{args.page}: the command reference is out of date; run 'python -m smartvec_cli.cli.reference'")
        return 1
    args.page.write_text(new, encoding="utf-8")
    print(f"{args.page}: command reference written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
