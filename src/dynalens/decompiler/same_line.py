"""Statements the original wrote as one: ``with a, b:`` rather than two nested ``with``.

Why: the compiler nests ``with a, b:`` as ``with a: with b:``, so the walker reads the nested
form; both are the same code, so ``verify()`` calls either exact, but the nested one writes the
second manager on a line of its own, and from 3.11 that line keeps instructions (a line-number
NOP, the exception table split there) of its own: only the form that was written is exact under
``verify(strict=True)`` (issue 12's strict figure).

How we know: the walker stamps each value with the line of the instruction that made it
(``_line``; line_breaks.py). A ``with`` whose body is one ``with`` whose manager was made on the
line of the outer one's managers was one statement. (From 3.12 the walk reads the function's
implicit ``return None`` inside the outer body, after the inner statement: it goes after the
merged one, as with ``try``; emit.try_finally.)
"""

import ast
import dis

from .emit import statement_blocks
from .line_breaks import first_line

_WITHS = (ast.With, ast.AsyncWith)
# the statement classes that hold no block this pass reads (statement_blocks: none of the
# fields, or a nested scope's): every statement is asked, most are one of these
_PLAIN = frozenset(
    cls for cls in ast.stmt.__subclasses__()
    if issubclass(cls, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or
    not set(cls._fields) & {"body", "orelse", "finalbody", "handlers", "cases"})


# the opcodes that begin a ``with`` or ``async with`` on this version (in ``co_code``; 3.12+'s
# SETUP_WITH is a pseudo-instruction), and all others
_WITH_OPCODES = bytes(sorted(
    dis.opmap[name] for name in ("SETUP_WITH", "SETUP_ASYNC_WITH", "BEFORE_WITH",
                                 "BEFORE_ASYNC_WITH", "LOAD_SPECIAL")
    if dis.opmap.get(name, 256) < 256))
_OTHER_OPCODES = bytes(opcode for opcode in range(256) if opcode not in _WITH_OPCODES)


def _with_count(code):
    """How many of ``code``'s instructions are ``_WITH_OPCODES`` (every code unit is two
    bytes, the opcode first)."""
    return len(code.co_code[::2].translate(None, _OTHER_OPCODES))


_PROBE = compile("with a, b:\n    pass\n", "<probe>", "exec")
# whether a ``with`` counts here (on a version this was not written for, a ``with a, b:``
# may hold fewer than two: then may_merge says yes to every code object)
_COUNTED = _with_count(_PROBE) >= 2
# 3.11+: a ``with`` has a handler (its ``__exit__`` on an exception) in the exception table
_IN_TABLE = bool(getattr(_PROBE, "co_exceptiontable", b""))


def may_merge(code):
    """Whether ``code``'s body can hold a ``with`` nested in another, which is what
    merge_with_items looks for: each ``with`` begins with one of ``_WITH_OPCODES`` in its own
    code object (a nested function's are in its own, and statement_blocks does not look into
    one), so code with fewer than two has nothing to merge, and most code has none: asking
    costs an attribute (3.11+: no exception table, no ``with``) or a scan of the bytecode in
    C instead of a walk over every statement."""
    if not _COUNTED:
        return True
    if _IN_TABLE and not code.co_exceptiontable:
        return False
    return _with_count(code) >= 2


def merge_with_items(stmts, implicit_return_after=False):
    """Merge, in place, nested ``with`` statements written on one line (see the module
    docstring) in ``stmts`` and the blocks inside it; ``implicit_return_after``:
    ``PROFILE.cold_handlers``."""
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        if stmt.__class__ in _PLAIN:
            k += 1  # (most statements: no block, not a with)
            continue
        for block in statement_blocks(stmt):
            merge_with_items(block, implicit_return_after)
        if isinstance(stmt, _WITHS):
            tail = _merge(stmt, implicit_return_after)
            if tail:
                stmts[k + 1:k + 1] = tail
        k += 1


def _merge(outer, implicit_return_after):
    """Fold the nested ``with`` into ``outer`` while it was written on its line; returns the
    statements that go after ``outer`` (an implicit return taken out of its body)."""
    tail = []
    while True:
        body = outer.body
        if implicit_return_after and len(body) == 2 and isinstance(body[1], ast.Return) and \
                getattr(body[1], "_implicit", False):
            inner, rest = body[0], body[1:]
        elif len(body) == 1:
            inner, rest = body[0], []
        else:
            return tail
        if type(inner) is not type(outer):
            return tail
        line = first_line(outer.items[-1].context_expr)
        if line is None or first_line(inner.items[0].context_expr) != line:
            return tail
        outer.items.extend(inner.items)
        outer.body = inner.body
        tail = rest + tail

