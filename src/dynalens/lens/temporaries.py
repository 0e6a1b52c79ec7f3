"""The decompiler's output of Dynamo's code, as the readable pass and its list collapse see it.

Both ``readable.py`` and ``resume_lists.py`` (which ``readable`` runs first) find the ``def``
in a decompiled file and tell its ``__temp_N`` temporaries from real names; the two facts live
here, below both, so neither module imports the other back.
"""

import ast
import re

TEMP_RE = re.compile(r"^__temp_\d+$")


def function_named(tree, name):
    """The ``def name`` in ``tree``; the decompiler nests a function that was defined inside
    another in a ``def`` of its outer function, so it may be at any depth."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None
