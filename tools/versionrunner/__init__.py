"""Machinery behind tools/pyversions.py: run the decompiler on every CPython 3.8-3.15.

discover  finds native interpreters; pyodide  pins, installs and runs Pyodide releases;
jobs      runs the construct tests and the stdlib round trip on one interpreter;
report    turns the results into the table and the exit status.
Stdlib only, so the runner itself works on any Python 3.8+.
"""
