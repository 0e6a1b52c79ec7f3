"""The decompiler's output of Dynamo's code, as the readable pass and its list collapse see it.

Both ``readable.py`` and ``resume_lists.py`` (which ``readable`` runs first) find the ``def``
in a decompiled file and tell its ``__temp_N`` temporaries from real names, and both try
rewrites on copies of its tree (:func:`copied`); these live here, below both, so neither module
imports the other back.
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


def copied(node):
    """A copy of the ``ast`` tree ``node`` (every node and list new, leaf values shared), for a
    rewrite to try on.

    ``copy.deepcopy`` gives the same tree about five times slower (it goes through each
    node's reduce protocol and keeps a memo), and an unparse and parse twice as slow; the
    readable pass copies a function's tree for every rewrite it tries, inside the user's
    program. A node found twice in ``node`` is copied twice: no rewrite relies on sharing."""
    if isinstance(node, list):
        return [copied(item) for item in node]
    if not isinstance(node, ast.AST):
        return node
    kind = type(node)
    new = kind.__new__(kind)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        if isinstance(value, list):
            fields[key] = [copied(item) for item in value]
        elif isinstance(value, ast.AST):
            fields[key] = copied(value)
        else:
            fields[key] = value
    return new
