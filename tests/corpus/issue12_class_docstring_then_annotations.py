"""Bare annotations after a class docstring (found on 3.14, zipfile._path.glob.Translator and
pyodide's classes): 3.14 builds the annotations in an ``__annotate__`` function and the
decompiler put them back at the start of the body, before the docstring, so the string was
no docstring any more."""

import os


class Translator:
    """A docstring first."""

    seps: str

    def __init__(self, seps: str = os.sep):
        self.seps = seps


class Status(Exception):
    """A docstring, an annotation without a value, then assignments."""
    status: int
    code = 1
    reason: str = ""
