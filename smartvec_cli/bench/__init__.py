"""Benchmarks: a generated versioned-policy vault with known answers, its metrics, speed, and reports.

Everything here is library code: it drives the command line through a ``CliCall`` (a
subprocess, or an in-process runner that ``cli/bench.py`` supplies) and never imports
Typer itself.
"""
