"""Structuring templates that differ on CPython 3.8 and 3.9 (loops, the end of a body).

* ``while test:`` is tested at the top only (3.10 added the bottom copy of the test that
  ``branches.py`` recognises loops by): the back edge that ends the body is no ``continue``,
  and ``break`` jumps past an ``else`` body that follows the loop's exit.
* Dead code survives: a body whose last statement is compound (``if``/``for``/``while``/``try``)
  keeps the compiler's ``return None`` after it even when every path returned before.  The
  recompiled source has it only if its last statement is compound too, so when the code ends
  with such an unreachable return, the simple statements after the last compound statement
  belong to that statement's ``else``.
"""

import ast

from .instructions import legacy_layout, raw_instructions
from .statements import Loop


class LegacyLoopMixin(object):

    def top_tested_while(self, test, head, body_start, exit_, stack, out, ctx):
        """``while test: body [else: orelse]`` whose test sits at ``head`` only."""
        break_target = self._break_target(body_start, exit_, exit_)
        if break_target > self.range_end:
            break_target = exit_
        loop = Loop(head, (head,), break_target, exit_ - 1, "while", body_start=body_start)
        body, _ = self.walk(body_start, exit_, list(stack), ctx.but(loop=loop))
        orelse = []
        nxt = exit_
        if break_target > exit_:
            orelse, _ = self.walk(exit_, break_target, list(stack), ctx)
            nxt = break_target
        out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse))
        return nxt


def ends_with_dead_return(code):
    """Whether ``code`` ends with an unreachable ``LOAD_CONST None; RETURN_VALUE`` (3.8/3.9)."""
    raws = raw_instructions(code)
    if len(raws) < 2 or raws[-1].opname != "RETURN_VALUE" or raws[-2].opname != "LOAD_CONST" or \
            raws[-2].argval is not None:
        return False
    return raws[-2].offset not in legacy_layout(raws)[1]


_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def else_for_dead_return(stmts):
    """Move the simple statements after the last compound statement into its ``else`` (see
    the module docstring); ``elif`` chains are followed down."""
    k = len(stmts)
    while k > 0 and not isinstance(stmts[k - 1], (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try,
                                                    ast.With, ast.AsyncWith)):
        k -= 1
    if k == 0 or k == len(stmts) or not isinstance(stmts[-1], ast.Return):
        return stmts  # the implicit return follows a final `raise` too
    last = stmts[k - 1]
    tail = stmts[k:]
    if isinstance(last, ast.If) and _terminal(last.body):
        # the tail only runs when the test is false: the else (or elif chain) holds it
        last.orelse = else_for_dead_return(last.orelse + tail)
        return stmts[:k]
    if isinstance(last, (ast.For, ast.AsyncFor, ast.While)) and not last.orelse and \
            not _breaks(last.body):
        last.orelse = tail
        return stmts[:k]
    if isinstance(last, ast.Try) and last.handlers and not last.orelse and not last.finalbody:
        last.orelse = tail
        return stmts[:k]
    return stmts


def _terminal(body):
    return bool(body) and isinstance(body[-1], _TERMINAL) or (
        bool(body) and isinstance(body[-1], ast.If) and _terminal(body[-1].body) and
        _terminal(body[-1].orelse))


def _breaks(body):
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Break):
                return True
    return False


def compound_ends_before_else(stmts):
    """In every ``if``/``else`` below ``stmts`` whose ``if`` body ends with a ``return``, end
    that body with a compound statement (see else_for_dead_return).

    3.8/3.9's peephole pass deletes the jump over the ``else`` when it directly follows a
    ``return`` in the same basic block (not after a ``raise``); the structurer only sees an
    ``else`` there because the jump survived, which it does only after a compound statement's
    end label.
    """
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                compound_ends_before_else(block)
        for handler in getattr(stmt, "handlers", ()):
            compound_ends_before_else(handler.body)
        if isinstance(stmt, ast.If) and stmt.orelse and stmt.body and \
                isinstance(stmt.body[-1], ast.Return):
            stmt.body[:] = else_for_dead_return(stmt.body)
    return stmts
