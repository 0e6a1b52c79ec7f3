"""3.12/3.13: ``return a if c else b`` whose constant branch cannot be an ``if`` statement
(and 3.8/3.9: one whose first branch's jump to the return the peephole pass copied).

The compiler copies a small return into each branch of a conditional expression, so
``return 0 if c else f()`` becomes ``c; POP_JUMP_IF_FALSE; LOAD_CONST 0; RETURN_VALUE; ...``.
Read as statements that is ``if c: return 0``, but 3.12 and 3.13 compile a written
``return 0`` to ``RETURN_CONST``: a ``LOAD_CONST; RETURN_VALUE`` pair can only come from an
expression.  Such returns are marked by the walker (``_split``) and folded back here, from the
end of each block: ``if c: return a`` followed by ``return b`` is ``return a if c else b``,
unless either return is a ``RETURN_CONST`` (``_written``): ``if c: return 0`` followed by a
folded ``return None if d else x`` stays two statements.
"""

import ast

_BLOCKS = ("body", "orelse", "finalbody")
# statement classes by whether they have a field that may hold statements (worked out once
# per class: the pass looks at every statement of every body)
_WITHOUT_BLOCKS, _WITH_BLOCKS = set(), set()


def _is_return(stmt):
    return isinstance(stmt, ast.Return) and stmt.value is not None


def _branch_above(stmts, k):
    """Whether ``stmts[k - 1]`` is ``if c: return v`` with ``v`` an expression's branch:
    then the code after it is that expression's other branch, one return (``return x if
    (a or b) else (y if c else z)``, whose inner branches carry no mark of their own), or
    the last of a chain of them that begins so."""
    while k >= 1:
        above = stmts[k - 1]
        if not (isinstance(above, ast.If) and not above.orelse and len(above.body) == 1 and
                _is_return(above.body[0])) or getattr(above.body[0], "_written", False):
            return False
        if getattr(above.body[0], "_split", False):
            return True
        k -= 1  # (a chain: `a if c else b if d else e`, each branch but one unmarked)
    return False


def _fold_end(stmts, propagate):
    while len(stmts) >= 1:
        last = stmts[-1]
        if isinstance(last, ast.If) and len(last.body) == 1 and len(last.orelse) == 1 and \
                _is_return(last.body[0]) and _is_return(last.orelse[0]):
            yes, no, drop = last.body[0], last.orelse[0], 1
        elif len(stmts) >= 2 and _is_return(last) and isinstance(stmts[-2], ast.If) and \
                not stmts[-2].orelse and len(stmts[-2].body) == 1 and \
                _is_return(stmts[-2].body[0]):
            yes, no, drop = stmts[-2].body[0], last, 2
            last = stmts[-2]
        else:
            return
        if getattr(yes, "_written", False) or getattr(no, "_written", False):
            return
        if not (getattr(yes, "_split", False) or getattr(no, "_split", False) or
                _branch_above(stmts, len(stmts) - drop)):
            return
        node = ast.Return(value=ast.IfExp(test=last.test, body=yes.value, orelse=no.value))
        node._split = propagate
        stmts[len(stmts) - drop:] = [node]


def fold_conditional_returns(stmts, propagate=True):
    """Fold marked returns in ``stmts`` and every nested block, in place. ``propagate``: a
    folded return counts as marked (3.12/3.13: an enclosing conditional expression's branch
    has no other mark; 3.8/3.9 mark the first branch of each one themselves)."""
    for stmt in stmts:
        cls = stmt.__class__
        if cls in _WITHOUT_BLOCKS:
            continue  # (most statements: an assignment, a call, a return)
        if cls not in _WITH_BLOCKS:
            fields = getattr(cls, "_fields", ())
            if not any(field in fields for field in _BLOCKS + ("handlers", "cases")):
                _WITHOUT_BLOCKS.add(cls)
                continue
            _WITH_BLOCKS.add(cls)
        for field in _BLOCKS:
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                fold_conditional_returns(block, propagate)
        for handler in getattr(stmt, "handlers", ()) or ():
            fold_conditional_returns(handler.body, propagate)
        for case in getattr(stmt, "cases", ()) or ():
            fold_conditional_returns(case.body, propagate)
    _fold_end(stmts, propagate)
    return stmts
