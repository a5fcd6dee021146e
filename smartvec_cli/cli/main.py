"""The console script. A plain ``query`` line is answered before the command-line framework is even
imported (``query_line``): with a daemon running, importing Typer and the commands would cost several
times what the daemon's answer does. Everything else runs the Typer app (``app.run``)."""

from __future__ import annotations

import sys


def run() -> None:
    hide_store_password()
    escape_unencodable_output()
    refuse_undecodable_input()
    from .query_line import answer_query_line

    code = answer_query_line(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from .app import run as run_app

    run_app()


def escape_unencodable_output() -> None:
    """Write what the output's encoding cannot hold as escapes (``\\u203a``), never fail on it: with
    ``PYTHONIOENCODING=ascii`` or a C locale, a note's accented title must not end a run with an exception."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream already written to in another mode, or closed
                pass


def refuse_undecodable_input() -> None:
    """An argument or a SMARTVEC_* variable that is not UTF-8 (Python holds its bytes as lone surrogates) is a
    usage error in one line (exit 2): it cannot be stored, compared with what the index holds, nor printed."""
    import os

    words = [(f"argument {i}", arg) for i, arg in enumerate(sys.argv[1:], start=1)]
    words += [(name, value) for name, value in os.environ.items() if name.startswith("SMARTVEC_")]
    for where, value in words:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            sys.stderr.write(f"error: {where} is not valid UTF-8: {shown}\n")
            raise SystemExit(2) from None


def hide_store_password(argv: list[str] | None = None) -> None:
    """Start again with a ``--store`` URL that holds a password moved from the command line into
    SMARTVEC_STORE, so that ``ps`` does not show the password for the life of the process (a ``watch``
    runs for days). Linux offers no portable way to rewrite a running process's arguments; ``exec``
    replaces them (same process id, same terminal and signals). The option would have won over the
    variable, so the URL used is the same. Done before anything is imported."""
    argv = sys.argv if argv is None else argv
    found = store_with_password(argv[1:])
    if found is None:
        return
    url, kept = found
    original = list(getattr(sys, "orig_argv", []))
    given = argv[1:]
    if not original or not given or original[-len(given) :] != given:
        return  # started some other way (embedded, tests): leave it as it is
    import os

    prefix = original[: len(original) - len(given)]
    os.execve(sys.executable, [*prefix, *kept], {**os.environ, "SMARTVEC_STORE": url})


def store_with_password(args: list[str]) -> tuple[str, list[str]] | None:
    """(URL, the arguments without it) when a global ``--store URL`` / ``--store=URL`` holds a password."""
    for i, token in enumerate(args):
        if token == "--store" and i + 1 < len(args):
            url, rest = args[i + 1], [*args[:i], *args[i + 2 :]]
        elif token.startswith("--store="):
            url, rest = token.partition("=")[2], [*args[:i], *args[i + 1 :]]
        elif token.startswith("-"):
            continue
        else:
            # the first word that is not an option is the command, or a global option's value
            if i > 0 and args[i - 1] in ("--vault", "--index-dir", "--now"):
                continue
            return None
        from ..store.postgres.secrets import split_password

        return (url, rest) if split_password(url)[1] is not None else None
    return None


if __name__ == "__main__":
    run()
