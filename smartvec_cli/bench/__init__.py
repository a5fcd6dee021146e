"""Benchmarks: a generated versioned-policy vault with known answers, its metrics, speed, and reports.

Everything here is library code: it drives smartvec through the Python API
(``bench/driver.py``), the same calls the command line makes, and never imports Typer.
"""
