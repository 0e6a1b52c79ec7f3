"""A module name a function declares global is stored with STORE_GLOBAL at module level too:
the module's ``global`` line goes after ``from __future__`` imports (_pyrepl/readline.py)."""
from __future__ import annotations
import os


def setup():
    global reader
    reader = os.getcwd


reader: int | None = None
