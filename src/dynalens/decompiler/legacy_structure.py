"""Structuring templates that differ on CPython 3.8 and 3.9 (loops, the end of a body).

* ``while test:`` is tested at the top only (3.10 added the bottom copy of the test that
  ``branches.py`` recognises loops by): the back edge that ends the body is no ``continue``,
  and ``break`` jumps past an ``else`` body that follows the loop's exit.
* Dead code survives: a body whose last statement is compound (``if``/``for``/``while``/``try``)
  keeps the compiler's ``return None`` after it even when every path returned before.  The
  recompiled source has it only if its last statement is compound too, so when the code ends
  with such an unreachable return, the statements after the last ``if`` (or ``try``) that
  cannot fall through belong to that statement's ``else``.
"""

import ast

from .instructions import legacy_layout, normalize, raw_instructions
from .legacy_blocks import raw_position
from .statements import Loop
from .registry import ENTRY
from .choices import ELSE_FOR_DEAD_RETURN, choose

# The 3.8-3.10 loop forms (a ``while`` tested at its top only) and what 3.8/3.9's dead code
# says about the compound statement a range ended with.


def top_tested_while(walker, test, head, body_start, exit_, stack, out, ctx):
    """``while test: body [else: orelse]`` whose test sits at ``head`` only."""
    break_target = ENTRY.break_target(walker, body_start, exit_, exit_)
    if break_target > walker.range_end:
        break_target = exit_
    loop = Loop(head, (head,), break_target, exit_ - 1, "while", body_start=body_start)
    body, _ = walker.walk(body_start, exit_, list(stack), ctx.but(loop=loop))
    orelse = []
    nxt = exit_
    if break_target > exit_:
        orelse, _ = walker.walk(exit_, break_target, list(stack), ctx)
        nxt = break_target
    out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse))
    return nxt


def handlers_after_back_edge(walker, head, exit_, false):
    """Where the body of the ``while`` at ``head`` ends when its last back edge is at
    ``exit_ - 1`` and its test leaves to ``false``: past the back edge when a ``try`` ends the
    body and its except clauses never fall through (they raise or return; the clause's own
    jump back is dead code, gone). The clauses then lie between the back edge and the
    code after the loop, reached only from the body's SETUP_FINALLY."""
    if false <= exit_ or false > walker.range_end:
        return exit_
    instrs = walker.instrs
    if not any(ins.op == "SETUP_FINALLY" and exit_ <= ins.target < false
               for ins in instrs[head:exit_]):
        return exit_
    for k, ins in enumerate(instrs[:walker.n]):
        if head <= k < false:
            continue
        if ins.target is not None and exit_ <= ins.target < false:
            return exit_  # (code after the loop that something else jumps into)
    return false


def compound_end(walker, out, first, end):
    """``out[first:]``, the statements of a range ending in a ``return``: when dead code
    follows that return inside the range, the range ended with a compound statement.

    The peephole pass deletes what follows a ``return`` up to the end of its basic block;
    something is left only where a label started a new block, the end of a compound
    statement (the jump over an ``else``, a loop's back edge, a ``try`` body's
    ``POP_BLOCK``). So the statements after the last ``if`` that cannot fall through are
    its ``else`` (the function's dead ``return None`` is the same signal,
    :func:`ends_with_dead_return`)."""
    last = min(end, walker.n) - 1
    if last < 0 or walker.instrs[last].op != "RETURN_VALUE":
        return
    stop = walker.instrs[end].offset if end < walker.n else None
    if dead_after(walker.code, walker.instrs[last].offset, stop) is not None and \
            not choose(walker, ELSE_FOR_DEAD_RETURN, walker.instrs[last].offset):
        out[first:] = else_for_dead_return(out[first:])


def dead_after(code, offset, stop=None):
    """The raw instruction after the one at ``offset`` (and before ``stop``) when it is
    unreachable (3.8/3.9 keep dead code), else None."""
    raws = raw_instructions(code)
    k = _raw_index(raws, offset)
    if k is None or k + 1 >= len(raws):
        return None
    after = raws[k + 1]
    if (stop is None or after.offset < stop) and after.offset not in legacy_layout(raws)[1]:
        return after
    return None


def dead_exit_after(code, offset):
    """The index (in the normalized instructions) where the dead exit of a named except
    clause right after the ``raise`` at ``offset`` jumps (3.9: ``POP_BLOCK; POP_EXCEPT;
    e = None; del e``, then the jump to the end of the try), or None."""
    raws = raw_instructions(code)
    k = _raw_index(raws, offset)
    if k is None:
        return None
    live = legacy_layout(raws)[1]
    for raw in raws[k + 1:k + 8]:
        if raw.offset in live:
            return None
        if raw.opname in ("JUMP_FORWARD", "JUMP_ABSOLUTE"):
            return normalize(code)[1].get(raw.argval)
        if raw.opname not in ("POP_BLOCK", "POP_EXCEPT", "LOAD_CONST") and \
                not raw.opname.startswith(("STORE_", "DELETE_")):
            return None
    return None


def _raw_index(raws, offset):
    """The position of the raw instruction at ``offset``; None where none starts there."""
    k = raw_position(raws, offset)
    return k if k < len(raws) and raws[k].offset == offset else None


_RAW_UNWINDING = frozenset(["POP_BLOCK", "POP_EXCEPT", "CALL_FINALLY", "POP_FINALLY",
                            "BEGIN_FINALLY", "POP_TOP", "ROT_TWO", "ROT_THREE", "ROT_FOUR",
                            "WITH_CLEANUP_START", "WITH_CLEANUP_FINISH"])


def unwinding_line(code, offset):
    """The line a run of unwinding instructions right before the one at ``offset`` starts
    (3.8/3.9 give a ``return`` inside ``try``/``except`` its line there, on a ``POP_BLOCK``
    normalization drops), or None."""
    raws = raw_instructions(code)
    k = _raw_index(raws, offset)
    if k is None:
        return None
    k -= 1
    while k >= 0:
        if k >= 2 and raws[k].opname.startswith("DELETE_") and \
                raws[k - 1].opname.startswith("STORE_") and raws[k - 2].opname == "LOAD_CONST" \
                and raws[k - 2].argval is None and raws[k - 2].starts_line is None:
            k -= 3  # an except clause's name unbound (`e = None; del e`, 3.9)
            continue
        if raws[k].opname not in _RAW_UNWINDING:
            break
        if raws[k].starts_line is not None:
            return raws[k].starts_line
        k -= 1
    return None


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
    the module docstring); ``elif`` chains are followed down.

    Only an ``if`` whose body does not fall through and a ``try`` with handlers leave the
    dead return (or the jump over an ``else``) behind them: a loop or ``with`` whose block
    ends in a ``return`` shares that block's end, so nothing follows it; nor does an ``if`` or
    ``try`` that falls through (the return would be live). Such a statement seen from the end
    is inside the ``else`` of an earlier one: the search goes on before it.
    An ``if`` whose body ends in ``raise``, ``continue`` or ``break`` keeps its jump over the
    ``else`` (dead, see :func:`else_jump_after`): without one it had no ``else``.
    """
    if not stmts or not isinstance(stmts[-1], ast.Return):
        return stmts  # the implicit return follows a final `raise` too
    k = len(stmts)
    while k > 0:
        last = stmts[k - 1]
        if isinstance(last, ast.If) and _terminal(last.body) and k < len(stmts) and \
                getattr(last, "else_jump", None) is not False:
            # the tail only runs when the test is false: the else (or elif chain) holds it
            if not last.orelse:
                last.else_from_dead_return = True  # (no jump over it: compound_ends_before_else)
            last.orelse = else_for_dead_return(last.orelse + stmts[k:])
            return stmts[:k]
        if isinstance(last, ast.Try) and last.handlers and not last.orelse and \
                not last.finalbody and k < len(stmts) and \
                all(_terminal(handler.body) for handler in last.handlers):
            # (a clause that falls through goes on to the tail: it is no else)
            last.orelse = stmts[k:]
            return stmts[:k]
        k -= 1
    return stmts


def else_jump_after(code, offset):
    """Whether the instruction after the one at ``offset`` (a ``raise``, ``continue`` or
    ``break`` that ends an ``if`` body) is the dead jump over an ``else`` (3.8/3.9).

    The compiler writes that jump after every ``if`` body followed by an ``else``; the
    peephole pass deletes it only after a ``return`` in the same basic block. So after the
    other exits a dead unconditional jump means the source had an ``else`` there, and its
    absence that it had none; the normalized instructions have lost the dead code, the raw
    ones still show it.
    """
    raws = raw_instructions(code)
    k = _raw_index(raws, offset)
    if k is None or k + 1 >= len(raws):
        return False
    after = raws[k + 1]
    return after.opname in ("JUMP_FORWARD", "JUMP_ABSOLUTE") and \
        after.offset not in legacy_layout(raws)[1]


def _terminal(body):
    return bool(body) and isinstance(body[-1], _TERMINAL) or (
        bool(body) and isinstance(body[-1], ast.If) and _terminal(body[-1].body) and
        _terminal(body[-1].orelse))


def compound_ends_before_else(stmts, walker=None, _seen=None):
    """In every ``if``/``else`` below ``stmts`` whose ``if`` body ends with a ``return``, end
    that body with a compound statement (see else_for_dead_return).

    3.8/3.9's peephole pass deletes the jump over the ``else`` when it directly follows a
    ``return`` in the same basic block (not after a ``raise``); the structurer only sees an
    ``else`` there because the jump survived, which it does only after a compound statement's
    end label. ``walker`` (its decisions, choices.py) may keep a body as it is: the choice
    point of the n-th such ``if`` of the pass has the key ``-n``.
    """
    seen = _seen if _seen is not None else [0]
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                compound_ends_before_else(block, walker, seen)
        for handler in getattr(stmt, "handlers", ()):
            compound_ends_before_else(handler.body, walker, seen)
        if isinstance(stmt, ast.If) and stmt.orelse and stmt.body and \
                isinstance(stmt.body[-1], ast.Return) and \
                not getattr(stmt, "else_from_dead_return", False):
            # (an else that the function's dead return made needs no surviving jump: the
            # return ending the body deleted it)
            seen[0] += 1
            if walker is None or not choose(walker, ELSE_FOR_DEAD_RETURN, -seen[0]):
                stmt.body[:] = else_for_dead_return(stmt.body)
    return stmts
