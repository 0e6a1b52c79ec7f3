"""PEP 709 (CPython 3.12+): list, set and dict comprehensions compiled inline.

Before 3.12 a comprehension was a nested code object called with the outermost iterator; since
3.12 its loop sits in the enclosing code between a save and a restore of the names it binds::

    <iterable>; GET_ITER
    LOAD_FAST_AND_CLEAR x ...        save (and clear) every name the comprehension binds
    SWAP n+1                         the iterator back on top
    BUILD_LIST 0 | BUILD_SET 0 | BUILD_MAP 0
    SWAP 2
    FOR_ITER ... LIST_APPEND 2 ... JUMP back; END_FOR
    SWAP n+1; STORE_FAST x ...        restore (the SWAP may be optimised into the stores)

plus a cleanup handler at the end of the code (``SWAP 2; POP_TOP; SWAP n+1; STORE_FAST x...;
RERAISE 0``) that restores the names when the loop raises (the walk skips it:
``cold_blocks.comprehension_cleanups``).  The saved values are markers
(:class:`SavedLocal`) whose restoring stores make no statement; the loop is walked as a
comprehension body (appends become :class:`~.statements.AppendStmt`) and rebuilt with the same
code that rebuilds a pre-3.12 comprehension's code object.  Generator expressions are still
nested code objects and never come here.
"""

import ast

from .definitions import comprehension_from_statements
from .expressions import ITER_SLOTS, IterMarker, Marker
from .line_breaks import mark_comprehension
from .registry import DECLINE
from . import handlers
from . import branches

_KINDS = {"BUILD_LIST": ("<listcomp>", ast.List), "BUILD_SET": ("<setcomp>", ast.Set),
          "BUILD_MAP": ("<dictcomp>", ast.Dict)}


class SavedLocal(Marker):
    """The value ``LOAD_FAST_AND_CLEAR`` saves; storing it back restores the name."""

    def __init__(self, name):
        self.name = name


# Handlers for the save/restore around an inline comprehension and for its loop (the list/set/
# dict being built while one is read is ``walker.comprehension_result``).


def op_LOAD_FAST_AND_CLEAR(walker, ins, stack, out):
    stack.append(SavedLocal(ins.argval))


def assign_saved_local(walker, target, value, out, ins):
    """A step of the store chain (recognisers.py): storing what LOAD_FAST_AND_CLEAR saved
    gives the comprehension's names their old values back, no statement."""
    if isinstance(value, SavedLocal):
        return None
    return DECLINE


def _inline_comprehension_kind(walker, ins, stack, slots=ITER_SLOTS):
    head = ins.index
    if head < 2 or len(stack) < 1 + slots or \
            not isinstance(stack[-slots], IterMarker):
        return None
    if walker.instrs[head - 1].op in ("GET_ITER", "GET_AITER") and head >= 3:
        head -= 1  # 3.15 makes the iterator after the save, right before the loop
    build, swap = walker.instrs[head - 2], walker.instrs[head - 1]
    kind = _KINDS.get(build.op)
    if kind is None or build.argval != 0 or swap.op != "SWAP" or swap.argval != 2:
        return None
    if not isinstance(stack[-1 - slots], kind[1]):
        return None
    return kind[0]


def op_FOR_ITER(walker, ins, stack, out):
    kind = _inline_comprehension_kind(walker, ins, stack)
    if kind is None:
        return branches.op_FOR_ITER(walker, ins, stack, out)
    return _inline_loop(walker, kind, branches.op_FOR_ITER, ins, stack, ITER_SLOTS)


def op_GET_ANEXT(walker, ins, stack, out):
    # an asynchronous comprehension in an async function (``async for``, GET_AITER's one
    # slot): inline as well
    kind = _inline_comprehension_kind(walker, ins, stack, 1)
    if kind is None:
        return handlers.op_GET_ANEXT(walker, ins, stack, out)
    return _inline_loop(walker, kind, handlers.op_GET_ANEXT, ins, stack, 1)


def _inline_loop(walker, kind, walk_loop, ins, stack, slots):
    """Walk the comprehension's loop (``walk_loop``: the for/async for handler) as a
    comprehension body and leave the comprehension where its list/set/dict was."""
    iterator = stack[-slots]
    loop_stack = list(stack)
    body = []
    saved = walker.kind, walker.comprehension_result
    walker.kind = "comprehension"  # appends are the element, nothing is spilled
    walker.comprehension_result = stack[-1 - slots]
    try:
        nxt = walk_loop(walker, ins, loop_stack, body)
    finally:
        walker.kind, walker.comprehension_result = saved
    if body and isinstance(body[-1], ast.AsyncFor) and body[-1].body and \
            isinstance(body[-1].body[-1], ast.Continue):
        # (the throw path of the awaited __anext__ lies between the back edge and the
        # loop's end: the back edge reads as `continue`)
        body[-1].body.pop()
    node = comprehension_from_statements(kind, body, iterator.iterable)
    if node is None:
        walker.fail("unrecognised inline comprehension", ins)
    mark_comprehension(node, getattr(walker, "session", None))
    del stack[-slots:]
    stack[-1] = node
    return nxt
