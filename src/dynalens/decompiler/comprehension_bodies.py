"""The body of a comprehension, read as such: its own code object (``<listcomp>`` ... before
3.12) or, from 3.12, an inline comprehension being read (inline_comprehensions.py sets
``walker.kind`` to ``"comprehension"`` meanwhile).

There the implicit iterator argument ``.0`` is the comprehension's iterable, and an append to
the list/set/dict being built (LIST_APPEND / SET_ADD / MAP_ADD) is the element: an
``AppendStmt`` that definitions.comprehension_from_statements folds into the comprehension.
Anywhere else these opcodes are what the walker core makes of them.
"""

from ast import Name

from .expressions import LOAD, IterMarker, name
from .statements import AppendStmt, StatementWalker


def op_LOAD_FAST(walker, ins, stack, out):
    identifier = ins.argval
    if identifier[:1] != ".":
        stack.append(Name(identifier, LOAD))  # (name(), written out: the commonest load)
    elif identifier == ".0" and walker.kind == "comprehension":
        stack.append(IterMarker(name(".0")))
    else:
        stack.append(name(identifier))


def _element(walker, ins, stack, out, key=False):
    """Append the comprehension's element (True), or leave the add to the core (False)."""
    if walker.kind != "comprehension":
        return False
    depth = ins.argval + (2 if key else 1)
    result = walker.comprehension_result
    if result is None and stack:
        result = stack[0]  # a comprehension's own code object builds it first
    if isinstance(ins.argval, int) and len(stack) >= depth and stack[-depth] is not result:
        # it adds to a display built inside the body (`k not in (*names, "a")`), not to
        # the comprehension's result
        return False
    value = walker.value(walker.pop(stack, ins), ins)  # (a lambda element: a function)
    k = walker.value(walker.pop(stack, ins), ins) if key else None
    out.append(AppendStmt(value=value, key=k))
    return True


def op_LIST_APPEND(walker, ins, stack, out):
    if not _element(walker, ins, stack, out):
        StatementWalker.op_LIST_APPEND(walker, ins, stack, out)


def op_SET_ADD(walker, ins, stack, out):
    if not _element(walker, ins, stack, out):
        StatementWalker.op_SET_ADD(walker, ins, stack, out)


def op_MAP_ADD(walker, ins, stack, out):
    if not _element(walker, ins, stack, out, key=True):
        StatementWalker.op_MAP_ADD(walker, ins, stack, out)
