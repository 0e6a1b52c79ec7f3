"""In which order Python evaluates the parts of simple statements, and where that order differs
from the order the bytecode made the values in.

The stack machine stamps each value with ``_made`` (a counter) when it first lands on the
stack. Compiled source makes values in exactly the order Python evaluates the expression
tree, so the stamps of people's code never disagree with it. Generated code (Dynamo's) makes
values, reorders them with SWAP and only then combines them: ``f(b, a)`` where ``a`` was made
first. Written as source, that evaluates ``b`` first: the calls run in another order. Such a
part is *out of order*; the statement walker assigns it to a temporary ahead of the statement
(temporaries go in stamp order), which is how the bytecode's order is kept.

Only parts Python always evaluates are considered: the arms of ``x if c else y``, the later
operands of ``and``/``or`` and of chained comparisons, lambdas and comprehensions are units
(evaluating them early would change what runs).
"""

import ast

__all__ = ["first_out_of_order", "made"]

_OPAQUE = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _parts(node):
    """The child expressions of ``node`` that are always evaluated, in evaluation order."""
    if isinstance(node, ast.Assign):
        return [node.value] + list(node.targets)
    if isinstance(node, ast.AugAssign):
        return [node.target, node.value]
    if isinstance(node, (ast.Expr, ast.Return)):
        return [node.value] if node.value is not None else []
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if isinstance(node, ast.Raise):
        return [part for part in (node.exc, node.cause) if part is not None]
    if isinstance(node, ast.stmt) or isinstance(node, _OPAQUE):
        return []
    if isinstance(node, ast.IfExp):
        return [node.test]
    if isinstance(node, ast.BoolOp):
        return node.values[:1]
    if isinstance(node, ast.Compare):
        return [node.left] + node.comparators[:1]
    if isinstance(node, ast.Dict):
        parts = []
        for key, value in zip(node.keys, node.values):
            if key is not None:
                parts.append(key)
            parts.append(value)
        return parts
    if isinstance(node, ast.Call):
        return [node.func] + list(node.args) + [k.value for k in node.keywords]
    if isinstance(node, ast.Name):
        return []
    return [child for child in ast.iter_child_nodes(node)
            if isinstance(child, ast.expr) and not isinstance(child, ast.expr_context)]


# Syntax that is part of its parent, not a value of its own: ``*args`` in a call or display,
# ``a:b`` in a subscript, ``{x}`` in an f-string. Its parts are evaluated (and may be taken out
# ahead), never the node itself: ``__temp_1 = *args`` is no Python.
_NOT_A_VALUE = tuple(getattr(ast, n) for n in ("Starred", "Slice", "FormattedValue",
                                               "Interpolation") if hasattr(ast, n))


def _observable(node):
    """Does evaluating ``node`` at another time change anything? Loading a constant or a fast
    local does not; a global or a cell can be rebound by any call in between."""
    if isinstance(node, ast.Name):
        return getattr(node, "_global", False) or getattr(node, "_cell", False)
    return isinstance(node, ast.expr) and not isinstance(node, (ast.Constant,) + _NOT_A_VALUE)


def made(node):
    """When ``node``'s value was complete: its own stamp, or later if a part of it was made
    after it (a list built empty and then extended in place), None if never stamped."""
    return _evaluated(node, (), [])


def _evaluated(node, hoisted, out):
    """Append to ``out`` (node, time) for the stamped nodes under ``node`` in the order Python
    evaluates them (children before their parent); a hoisted node is only a name by then.
    Returns the node's completion time (see made())."""
    if id(node) in hoisted:
        return None
    latest = getattr(node, "_made", None)
    for part in _parts(node):
        stamp = _evaluated(part, hoisted, out)
        if stamp is not None and (latest is None or stamp > latest):
            latest = stamp
    if latest is not None and _observable(node):
        out.append((node, latest))
    return latest


def first_out_of_order(hoisted, statements):
    """The first node that would run later than a value made after it, or None.

    ``hoisted``: nodes already bound to temporaries, which run first, in order of made(),
    ahead of ``statements``.
    """
    hoisted_ids = set(id(node) for node in hoisted)
    order = []
    for node in sorted(hoisted, key=lambda n: made(n) or 0):
        for part in _parts(node):
            _evaluated(part, hoisted_ids, order)
        stamp = made(node)
        if stamp is not None and _observable(node):
            order.append((node, stamp))
    for statement in statements:
        _evaluated(statement, hoisted_ids, order)
    latest = None
    for node, stamp in order:
        if latest is not None and stamp < latest and id(node) not in hoisted_ids:
            return node
        if latest is None or stamp > latest:
            latest = stamp
    return None
