"""``python -m smartvec_cli`` runs the CLI (handy for subprocess tests and worktrees)."""

from .cli.main import run

run()
