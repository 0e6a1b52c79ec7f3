"""Conditions, ``if``/``else``, conditional expressions, ``and``/``or`` and loops.

A *chunk* is an expression followed by a conditional jump.  CPython compiles a boolean condition
to a run of chunks whose jumps go to one of two labels (true / false) or to the start of a later
chunk; ``and``/``or`` trees are recovered by splitting the run where every jump of the left part
goes to the right part's start or to the label the operator short-circuits to.  The same parse
serves ``if`` statements, ``while`` tests, conditional expressions and value-context ``and``/``or``
(``JUMP_IF_*_OR_POP``, where the short-circuit keeps the value).
"""

import ast
import operator

from .expressions import (ITER_SLOTS, FunctionValue, IterMarker, LoopItem, PrevExc, StackMachine,
                          UnpackBuilder, UnpackSlot, const, name)
from .cfg import NO_FALLTHROUGH
from .chunk_starts import cannot_start
from .instructions import KEEP_JUMPS, NONE_JUMPS, POP_JUMPS
from .nop_lines import break_line_at
from .profile import PROFILE
from .statements import Chunk, ChunkEnd, Loop, NotAChunk, _NoStatements
from .errors import DecompilationError
from . import legacy_structure
from .legacy_structure import else_jump_after
from .registry import ENTRY
from .choices import ELSE_AFTER_EXIT, choose
from . import clause_breaks
from . import cold_blocks
from . import handlers

# body ends after which 3.8/3.9 keep the (dead) jump over an else
_ELSE_JUMP_KEPT = frozenset(["RAISE_VARARGS", "RERAISE", "JUMP"])


_TESTS = frozenset(list(KEEP_JUMPS) + list(POP_JUMPS))
_NO_FALL_THROUGH = frozenset(["RAISE_VARARGS", "RETURN_VALUE", "RERAISE"])


def negate(expr):
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return expr.operand
    if isinstance(expr, ast.BoolOp) and _holds_folding_not(expr):
        # `not (not (a is b) and c)` would fold to `a is not b` inside: De Morgan's form
        # `a is b or not c` is the same jumps without it (`assert a is b or (c and d)`)
        flipped = _negated_without_not(expr)
        if flipped is not None:
            return flipped
    if NONE_JUMPS and isinstance(expr, ast.Compare) and len(expr.ops) == 1 and \
            isinstance(expr.comparators[0], ast.Constant) and expr.comparators[0].value is None:
        # `x is None` tests become POP_JUMP_IF_[NOT_]NONE either way; other comparisons keep
        # their operator (`not (a in b)` and `a not in b` compile differently)
        flip = {ast.Is: ast.IsNot, ast.IsNot: ast.Is}
        op = flip.get(type(expr.ops[0]))
        if op is not None:
            return ast.Compare(left=expr.left, ops=[op()], comparators=expr.comparators)
    return ast.UnaryOp(ast.Not(), expr)  # (positional: cheaper than keywords)


def _holds_folding_not(expr):
    """Whether a ``not`` applied to an ``is``/``in`` comparison sits in the and/or tree
    ``expr`` (the compiler's AST optimizer rewrites it to ``is not``/``not in``)."""
    if isinstance(expr, ast.BoolOp):
        return any(_holds_folding_not(v) for v in expr.values)
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and \
        isinstance(expr.operand, ast.Compare) and len(expr.operand.ops) == 1 and \
        isinstance(expr.operand.ops[0], _FOLDED)


def _negated_without_not(expr):
    """The negation of the test ``expr`` by De Morgan down to its operands, or None where
    that puts a ``not`` on an ``is``/``in`` comparison. Only for tests: as a value,
    ``not (a and b)`` is not ``not a or not b``."""
    if isinstance(expr, ast.BoolOp):
        values = [_negated_without_not(v) for v in expr.values]
        if any(v is None for v in values):
            return None
        return ast.BoolOp(op=ast.Or() if isinstance(expr.op, ast.And) else ast.And(),
                          values=values)
    flipped = negate(expr)
    return None if _holds_folding_not(flipped) else flipped


def _assert_for(failing, msg):
    """``assert`` for ``if failing: raise AssertionError(msg)`` (None: no assert is it);
    ``if a: assert b`` where
    ``failing`` is ``a and not b`` and no written test is both exact and one ``assert``: the
    negation puts a ``not`` on an ``is``/``in`` comparison, which the compiler turns into
    ``is not``/``not in`` (pickletools.dis: ``if markobject in before: assert before[-1] is
    stackslice``)."""
    test = negate(failing)
    if isinstance(failing, ast.BoolOp) and isinstance(failing.op, ast.And) and \
            _holds_folding_not(failing) and isinstance(test, ast.UnaryOp):
        first = failing.values[:-1]
        last = negate(failing.values[-1])
        if not _holds_folding_not(last) and not any(_holds_folding_not(v) for v in first):
            guard = first[0] if len(first) == 1 else ast.BoolOp(op=ast.And(), values=first)
            return ast.If(test=guard, body=[ast.Assert(test=last, msg=msg)], orelse=[])
    if _holds_folding_not(test):
        # `if a not in b: raise AssertionError(m)` (3.8: no LOAD_ASSERTION_ERROR tells it
        # from an assert): `assert not a not in b` would fold to `a in b`; no assert
        # compiles back to it (distutils.command.upload.upload_file)
        return None
    return ast.Assert(test=test, msg=msg)


def _negation_folds(expr):
    """Whether the compiler turns ``not expr`` (or a part of it) into another operator
    (``in`` -> ``not in``, ``is`` -> ``is not``) rather than a negated jump."""
    if isinstance(expr, ast.BoolOp):
        return any(_negation_folds(v) for v in expr.values)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _negation_folds(expr.operand)
    return isinstance(expr, ast.Compare) and len(expr.ops) == 1 and \
        isinstance(expr.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot))


def _plain_and(expr):
    """A test that is one condition, conditions joined by ``and`` only, or any test made on
    one line: what one ``if`` (or nested ``if``s) test, not what separate ``if ...:
    continue`` statements do (their tests, on lines of their own, join into ``or``s)."""
    if not isinstance(expr, ast.BoolOp):
        return True
    if isinstance(expr.op, ast.And) and not any(
            isinstance(value, ast.BoolOp) for value in expr.values):
        return True
    lines = set(getattr(node, "_line", None) for node in ast.walk(expr))
    lines.discard(None)
    return len(lines) == 1


def boolop(op, left, right):
    values = []
    for side in (left, right):
        if isinstance(side, ast.BoolOp) and isinstance(side.op, op) and not getattr(side, "_paren", False):
            values.extend(side.values)
        else:
            values.append(side)
    node = ast.BoolOp(op=op(), values=values)
    return node


_FOLDED = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _unfolded(node):
    """``not a or not b`` as ``not (a and b)`` (and the other way round) when one operand is an
    ``is``/``in`` comparison: in a test both compile to the same jumps, but the compiler's AST
    optimizer rewrites ``not (a is b)`` to ``a is not b``, which tests the other way."""
    values = node.values
    for value in values:
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            break
    else:
        return node  # (no negated operand: nothing below applies; most and/or tests)
    if all(_is_not(v) for v in values) and any(_folds(v) for v in values):
        inner = ast.And if isinstance(node.op, ast.Or) else ast.Or
        return ast.UnaryOp(op=ast.Not(),
                           operand=ast.BoolOp(op=inner(), values=[v.operand for v in values]))
    # a run of negated operands among others (`a and not (b in c or d)`, read as `a and
    # not b in c and not d`): the run is negated as a whole
    out, k = [], 0
    while k < len(values):
        stop = k
        while stop < len(values) and _is_not(values[stop]):
            stop += 1
        if stop - k >= 2 and any(_folds(v) for v in values[k:stop]):
            inner = ast.And if isinstance(node.op, ast.Or) else ast.Or
            out.append(ast.UnaryOp(op=ast.Not(), operand=ast.BoolOp(
                op=inner(), values=[v.operand for v in values[k:stop]])))
            k = stop
        else:
            out.append(values[k])
            k += 1
    if len(out) < len(values):
        return ast.BoolOp(op=type(node.op)(), values=out)
    if any(_is_not(v) and _folds(v) for v in values):
        # one such operand alone: the whole test negated, each operand negated back
        # (`not (a is not None and b in c)`, read as `a is None or not b in c`)
        inner = ast.BoolOp(op=(ast.And if isinstance(node.op, ast.Or) else ast.Or)(),
                           values=[negate(v) for v in values])
        if not _holds_folding_not(inner):
            return ast.UnaryOp(op=ast.Not(), operand=inner)
    return node


def merged_negated_ifs(ifs):
    """A comprehension's ``if`` clauses with no ``not`` of an ``is``/``in`` comparison left
    alone (``if not a is b`` would compile as ``a is not b``): a run of negated clauses is
    one ``not (x or y)``, a lone one takes the next clause (or the one before) in: ``if not
    (a is b or not c)``. Clauses compile to the same jumps as one test of ``and``s."""
    ifs = list(ifs)
    k = 0
    while k < len(ifs):
        if not (_is_not(ifs[k]) and _folds(ifs[k])):
            k += 1
            continue
        start, stop = k, k + 1
        while start > 0 and _is_not(ifs[start - 1]):
            start -= 1
        while stop < len(ifs) and _is_not(ifs[stop]):
            stop += 1
        if stop - start < 2:
            if stop < len(ifs):
                stop += 1
            elif start > 0:
                start -= 1
            else:
                return ifs  # (the only clause: nothing to take in)
        inner = ast.BoolOp(op=ast.Or(), values=[negate(v) for v in ifs[start:stop]])
        if _holds_folding_not(inner):
            k += 1
            continue
        ifs[start:stop] = [ast.UnaryOp(op=ast.Not(), operand=inner)]
        k = start + 1
    return ifs


def _is_not(value):
    return isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)


def _folds(value):
    """Whether ``value`` is ``not`` of a comparison the AST optimizer folds into ``not in``
    / ``is not`` (which tests the other way)."""
    return isinstance(value.operand, ast.Compare) and len(value.operand.ops) == 1 and \
        isinstance(value.operand.ops[0], _FOLDED)


def jump_test(chunk):
    """The expression that is true exactly when the chunk's jump is taken."""
    kind = chunk.jump.op
    expr = chunk.expr
    if kind in ("POP_JUMP_IF_TRUE", "JUMP_IF_TRUE_OR_POP"):
        return expr
    if kind in ("POP_JUMP_IF_FALSE", "JUMP_IF_FALSE_OR_POP"):
        return negate(expr)
    if kind == "POP_JUMP_IF_NONE":
        return ast.Compare(left=expr, ops=[ast.Is()], comparators=[const(None)])
    if kind == "POP_JUMP_IF_NOT_NONE":
        return ast.Compare(left=expr, ops=[ast.IsNot()], comparators=[const(None)])
    raise AssertionError(kind)


class _Jump(object):
    """The jump a conditional expression tested in a condition stands for (_ifexp_test)."""

    __slots__ = ("op", "target", "index")

    def __init__(self, op, target, index):
        self.op, self.target, self.index = op, target, index


# Conditional jumps, conditions and loops: plain functions of the walker (registered in
# recognisers.py).

# -- reading chunks --------------------------------------------------------------------


def read_chunk(walker, k, stack, limit, siblings=(), operand=False):
    """The chunk starting at ``k``, or None if the code there is not one.  ``siblings``
    are the targets of the chunks read so far: a jump to one of them ends this chunk
    (it is the next test of the same condition, not a conditional expression inside).
    ``operand``: the chunk is an operand of a value ``and``/``or`` joining at ``limit``,
    so an ``and``/``or`` that joins before ``limit`` lies inside the operand."""
    if k >= limit or k >= walker.n or cannot_start(walker, k, stack, limit):
        return None  # (cannot_start: a look ahead that spares most failing trials)
    trial = list(stack)
    saved = walker._sibling_targets, walker._operand_end, walker._chunk_depth
    walker._sibling_targets = frozenset(c.jump.target for c in siblings)
    walker._operand_end = limit if operand else -1
    walker._chunk_depth = len(stack) + 1
    state = walker.fork()
    try:
        _, stop = walker.walk(k, limit, trial, walker.ctx, out=_NoStatements(), chunk_mode=True)
    except ChunkEnd as end:
        if len(trial) == len(stack) + 1 and all(map(operator.is_, trial, stack)):
            return Chunk(k, trial[-1], end.ins)
    except (NotAChunk, DecompilationError):
        pass
    finally:
        walker._sibling_targets, walker._operand_end, walker._chunk_depth = saved
    walker.restore(state)
    return None


def read_value(walker, k, limit, stack):
    """Evaluate [k, limit) as one expression pushed on ``stack``; None if it is not one."""
    trial = list(stack)
    state = walker.fork()
    try:
        _, stop = walker.walk(k, limit, trial, walker.ctx, out=_NoStatements())
    except (NotAChunk, ChunkEnd, DecompilationError):
        stop = None
    if stop != limit or len(trial) != len(stack) + 1 or any(a is not b for a, b in zip(trial, stack)):
        walker.restore(state)
        return None
    return trial[-1]

# -- parsing boolean trees -------------------------------------------------------------

def label(walker, index):
    """Jump targets that are copies of one exit block count as one label (the compiler
    duplicates small exit blocks, such as the implicit ``return None``, into each
    predecessor)."""
    return walker.exits.label(index)


def parse_cond(walker, chunks, true, false, fall):
    """Boolean expression for chunks whose jumps go to ``true``/``false`` labels."""
    label = walker.exits.label  # (label(): copies of one exit block are one label)
    true, false, fall = label(true), label(false), label(fall)
    if len(chunks) == 1:
        c = chunks[0]
        t = label(c.jump.target)
        if c.jump.op in KEEP_JUMPS:
            polarity = KEEP_JUMPS[c.jump.op]
            if t == true and polarity is True and fall == false:
                return c.expr
            if t == false and polarity is False and fall == true:
                return c.expr
            return None
        if t == false and fall == true:
            if c.jump.op == "POP_JUMP_IF_FALSE":
                return _negated_twice(c.expr)
            return negate(jump_test(c))
        if t == true and fall == false:
            return jump_test(c)
        return None
    labels = [label(c.jump.target) for c in chunks]  # (asked once, not at every split)
    for s in range(len(chunks) - 1, 0, -1):
        left, right = chunks[:s], chunks[s:]
        ys = right[0].start
        inner = set(c.start for c in left[1:])
        targets = set(labels[:s])
        if targets <= ({ys, false} | inner):
            lhs = parse_cond(walker, left, ys, false, ys)
            if lhs is not None:
                rhs = parse_cond(walker, right, true, false, fall)
                if rhs is not None:
                    return _unfolded(boolop(ast.And, lhs, rhs))
        if targets <= ({true, ys} | inner):
            lhs = parse_cond(walker, left, true, ys, ys)
            if lhs is not None:
                rhs = parse_cond(walker, right, true, false, fall)
                if rhs is not None:
                    return _unfolded(boolop(ast.Or, lhs, rhs))
    return None


def _negated_twice(expr):
    """``negate(negate(expr))``: the test of a chunk that jumps to the false label when
    ``expr`` is false, the commonest (``if x:``). Where the inner negation is ``not expr``
    (anything but a ``not``, an and/or, or a comparison a None test may flip), the outer
    one gives ``expr`` itself back: no node is built."""
    if isinstance(expr, (ast.UnaryOp, ast.BoolOp)) or (NONE_JUMPS and
                                                        isinstance(expr, ast.Compare)):
        return negate(negate(expr))
    return expr


def parse_value(walker, chunks, join):
    """Value-context ``and``/``or``: the last chunk has no jump and falls into ``join``."""
    if len(chunks) == 1:
        return chunks[0].expr if chunks[0].jump is None else None
    for s in range(len(chunks) - 1, 0, -1):
        left, right = chunks[:s], chunks[s:]
        ys = right[0].start
        inner = set(c.start for c in left[1:])
        targets = set(c.jump.target for c in left)
        rhs = None
        if targets <= ({ys, join} | inner) and _keeps(left, join, False):
            lhs = parse_cond(walker, left, ys, join, ys)
            if lhs is not None:
                rhs = parse_value(walker, right, join)
                if rhs is not None:
                    return boolop(ast.And, lhs, rhs)
        if targets <= ({join, ys} | inner) and _keeps(left, join, True):
            lhs = parse_cond(walker, left, join, ys, ys)
            if lhs is not None:
                rhs = rhs or parse_value(walker, right, join)
                if rhs is not None:
                    return boolop(ast.Or, lhs, rhs)
    return None


def _keeps(chunks, join, polarity):
    for c in chunks:
        if c.jump.target == join:
            if c.jump.op not in KEEP_JUMPS or KEEP_JUMPS[c.jump.op] is not polarity:
                return False
    return True


def after(walker, jump):
    """Where a conditional jump falls through to (a chained comparison moves it)."""
    return walker.fallthrough.get(jump.index, jump.index + 1)

# -- chained comparisons ---------------------------------------------------------------
_COMPARES = ("COMPARE_OP", "IS_OP", "CONTAINS_OP")


def op_SWAP(walker, ins, stack, out):
    i = ins.index
    instrs = walker.instrs
    if ins.argval == 2 and i + 3 < walker.n and instrs[i + 1].op == "COPY" and \
            instrs[i + 1].argval == 2 and instrs[i + 2].op in _COMPARES and \
            instrs[i + 3].op in ("JUMP_IF_FALSE_OR_POP", "POP_JUMP_IF_FALSE"):
        return chain_compare(walker, ins, stack, out)
    if ins.argval in (2, 3) and _swap_is_unpack(walker, ins, stack):
        return _tuple_assignment(walker, ins, stack)
    return _generic_swap(walker, ins, stack, out)


def _swap_is_unpack(walker, ins, stack):
    """``a, b = x, y``: the compiler turns BUILD_TUPLE n; UNPACK_SEQUENCE n into SWAP n."""
    n = ins.argval
    if len(stack) < n or any(not isinstance(v, ast.expr) for v in stack[-n:]):
        return False
    k = ins.index + 1
    if k >= walker.n or walker.instrs[k].op in ("STORE_ATTR", "STORE_SUBSCR"):
        return False
    return walker.targets_follow(k, n)


def _tuple_assignment(walker, ins, stack):
    n = ins.argval
    values = stack[-n:]
    del stack[-n:]
    builder = UnpackBuilder(ast.Tuple(elts=values, ctx=ast.Load()), n)
    for k in reversed(range(n)):
        stack.append(UnpackSlot(builder, k))


def _generic_swap(walker, ins, stack, out):
    StackMachine.op_SWAP(walker, ins, stack, out)


def _link_at(walker, k, cleanup):
    instrs = walker.instrs
    return (k + 3 < walker.n and instrs[k].op == "SWAP" and instrs[k].argval == 2 and
            instrs[k + 1].op == "COPY" and instrs[k + 1].argval == 2 and
            instrs[k + 2].op in _COMPARES and
            cleanup in (instrs[k + 3].target, instrs[k + 3].original_target))


def chain_compare(walker, ins, stack, out):
    """``a < b < c``: SWAP 2; COPY 2; COMPARE; JUMP cleanup per link, one final COMPARE."""
    instrs = walker.instrs
    link = instrs[ins.index + 3]
    cleanup = link.target if link.original_target is None else link.original_target
    after_cleanup = None
    if PROFILE.jumps_to_return_inlined and cleanup + 1 < walker.n and \
            instrs[cleanup].op == "SWAP" and instrs[cleanup + 1].op == "POP_TOP" and \
            _inlined_chain_exit(walker, ins.index, cleanup) is not None:
        # 3.8-3.10: the jump past the cleanup went to a small exit block (`return a < b <
        # c`), which the compiler copied in its place: the cleanup falls into the original
        final, value_context = _inlined_chain_exit(walker, ins.index, cleanup), True
        after_cleanup = cleanup + 2
    elif cleanup >= 2 and instrs[cleanup].op == "SWAP" and instrs[cleanup - 1].op == "JUMP":
        final, value_context = cleanup - 2, True
    elif cleanup >= 3 and instrs[cleanup].op == "POP_TOP" and instrs[cleanup - 1].op == "JUMP" \
            and instrs[cleanup - 2].op in POP_JUMPS:
        final, value_context = cleanup - 3, False
    elif cleanup < walker.n and instrs[cleanup].op == "POP_TOP" and \
            _copied_cleanup(walker, ins.index, cleanup) is not None:
        # 3.12+: the cleanup pops and continues with a copy of the code the final test
        # falls into (an assert's raise, say): skip the copy, fall through as usual
        final, length = _copied_cleanup(walker, ins.index, cleanup)
        walker.cleanup_starts[cleanup] = cleanup + 1 + length
        _redirect_to_copy(walker, ins.index, cleanup + 1, final + 1)
        value_context = None
    elif _cleanup_before_false_branch(walker, ins.index, cleanup) is not None:
        # 3.12+: the if body does not fall through (`if a < b < c: return`), so no jump
        # leads over the cleanup, which pops and goes on with the false branch
        final = _cleanup_before_false_branch(walker, ins.index, cleanup)
        walker.cleanup_starts[cleanup] = cleanup + 1
        value_context = None
    elif _copied_value_cleanup(walker, cleanup) is not None:
        # 3.12+: a value chain followed by a small exit block (`return a < b < c`): the
        # block is copied after the final comparison and after the cleanup's SWAP; POP_TOP
        final, length = _copied_value_cleanup(walker, cleanup)
        if cleanup + 2 == walker.range_end:
            # the last operand of an and/or whose join is that exit block (`return a or
            # b < c < d`): the value ends at the join, after the cleanup
            value_context, after_cleanup = True, cleanup + 2
        else:
            walker.cleanup_starts[cleanup] = cleanup + 2 + length
            value_context = None
    else:
        walker.fail("unrecognised chained comparison", ins)
    if instrs[final].op not in _COMPARES:
        walker.fail("unrecognised chained comparison", ins)
    mid = walker.pop(stack, ins)
    left = walker.pop(stack, ins)
    ops, comparators = [], []
    k = ins.index
    while True:
        cmp_stack = [left, mid]
        walker.walk(k + 2, k + 3, cmp_stack, walker.ctx)
        ops.extend(cmp_stack[-1].ops)
        comparators.append(mid)
        start = k + 4
        nxt = start
        while nxt < final and not _link_at(walker, nxt, cleanup):
            nxt += 1
        operand = read_value(walker, start, nxt, stack)
        if operand is None:
            walker.fail("unrecognised chained comparison operand", instrs[start])
        mid = operand
        if nxt >= final:
            break
        k = nxt
    last_stack = [left, mid]
    walker.walk(final, final + 1, last_stack, walker.ctx)
    ops.extend(last_stack[-1].ops)
    comparators.append(mid)
    stack.append(ast.Compare(left=left, ops=ops, comparators=comparators))
    if value_context:
        return after_cleanup if after_cleanup is not None else instrs[cleanup - 1].target
    jump = instrs[final + 1]
    if value_context is False:
        over = instrs[cleanup - 1]
        body = over.target
        if cleanup + 1 < walker.n and instrs[cleanup + 1].op == "JUMP" and \
                instrs[cleanup + 1].target == over.target and body != cleanup + 1:
            # the body is that jump, and the one over the cleanup was threaded through it
            # (`if not a < b < c: continue`, 3.8/3.9: both go to the loop head)
            body = cleanup + 1
        walker.fallthrough[jump.index] = body
    return jump.index


def _redirect_to_copy(walker, start, copy, final_jump):
    """Send the jumps from before the chain at ``start`` that go to ``copy`` (the code the
    cleanup goes on with, a copy of what the chain's final test at ``final_jump`` leads to
    on one side) to that side's code: ``assert a and b < c < d`` jumps from ``a`` to the
    raise after the cleanup, which the walker skips as a copy."""
    instrs = walker.instrs
    jump = instrs[final_jump]
    side = jump.original_target or jump.target
    if not walker._same_code(copy, side, walker.cleanup_starts[copy - 1] - copy):
        side = final_jump + 1
    for other in instrs[:start]:
        if other.target == copy and other.op in POP_JUMPS:
            if other.original_target is None:
                other.original_target = other.target
            other.target = side


def _cleanup_before_false_branch(walker, start, cleanup):
    """The final comparison of a chain tested by a jump whose target is just after the
    cleanup (``POP_TOP`` at ``cleanup``), with nothing that falls into the cleanup from
    before it; None otherwise. In a loop the false branch may be the jump back to the
    loop head that the cleanup goes on with (``for ...: if a < b < c: return``): the final
    test jumps there itself (the compiler threads its jump to that jump)."""
    instrs = walker.instrs
    if cleanup + 1 >= walker.n or instrs[cleanup].op != "POP_TOP" or \
            instrs[cleanup - 1].op not in _NO_FALL_THROUGH:
        return None
    after = instrs[cleanup + 1]
    false_branch = [cleanup + 1]
    if after.op == "JUMP" and after.target < cleanup:
        false_branch.append(after.target)
        if cleanup + 2 < walker.n and instrs[cleanup + 2].op == "JUMP" and \
                instrs[cleanup + 2].target == after.target:
            false_branch.append(cleanup + 2)  # (3.8-3.10: the same jump once more)
    final = None
    for j in range(start + 4, cleanup):
        jump = instrs[j]
        if _link_at(walker, j - 3, cleanup):
            final = None  # a later link: the final comparison comes after it
        elif final is None and jump.op in POP_JUMPS and \
                (jump.target in false_branch or jump.original_target in false_branch) and \
                instrs[j - 1].op in _COMPARES:
            final = j - 1
    return final


def _copied_value_cleanup(walker, cleanup):
    """(final comparison, copy length) of a value chain whose cleanup (``SWAP 2; POP_TOP``
    at ``cleanup``) goes on with a copy of the exit block after the final comparison
    (inlined into both, 3.12+); None otherwise."""
    instrs = walker.instrs
    if cleanup + 2 >= walker.n or instrs[cleanup].op != "SWAP" or \
            instrs[cleanup].argval != 2 or instrs[cleanup + 1].op != "POP_TOP":
        return None
    for length in range(1, 9):
        final = cleanup - length - 1
        if final < 0 or cleanup + 2 + length > walker.n:
            return None
        if instrs[cleanup - 1].op in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE") and \
                instrs[final].op in _COMPARES and \
                walker._same_code(final + 1, cleanup + 2, length):
            return final, length
    return None


def _inlined_chain_exit(walker, start, cleanup):
    """The final comparison of a chain (3.8-3.10) whose code after that comparison, up to the
    cleanup (``SWAP; POP_TOP`` at ``cleanup``), is a copy of the exit block after the
    cleanup; None otherwise."""
    instrs = walker.instrs
    last = instrs[cleanup - 1]
    # the copy ends as the exit does, or (instructions.py read its tail as a copy too,
    # legacy_blocks.inlined_exits) with the jump to the rest of the original
    if last.op not in ("RETURN_VALUE", "RAISE_VARARGS", "JUMP"):
        return None
    for j in range(cleanup - 2, start + 3, -1):
        if instrs[j].op in _COMPARES:
            length = cleanup - j - 1
            if last.op == "JUMP":
                length -= 1
                if last.target != cleanup + 2 + length:
                    return None
            if 0 < length <= 4 and cleanup + 2 + length <= walker.n and \
                    walker._same_code(j + 1, cleanup + 2, length):
                return j
            return None
    return None


def _copied_cleanup(walker, start, cleanup):
    """(final comparison, copy length) of a chain whose cleanup (``POP_TOP`` at
    ``cleanup``) goes on with a copy of the code after the final test, on either of its
    sides; None otherwise."""
    instrs = walker.instrs
    for j in range(cleanup - 1, start + 3, -1):
        if instrs[j].op in POP_JUMPS and instrs[j - 1].op in _COMPARES:
            length = cleanup - j - 1
            if length > 0 and walker._same_code(j + 1, cleanup + 1, length):
                return j - 1, length
            other = instrs[j].original_target or instrs[j].target
            length = 1
            while cleanup + length < walker.n and length < 12 and instrs[
                    cleanup + length].op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
                length += 1
            if other < walker.n and other != cleanup + 1 and \
                    walker._same_code(cleanup + 1, other, length):
                return j - 1, length
            return None
    return None

# -- the conditional-jump handler ------------------------------------------------------

def conditional(walker, ins, stack, out):
    if walker.chunk_mode:
        if ins.op in KEEP_JUMPS and ins.index < ins.target < walker.n and (
                walker.instrs[ins.target].op in _TESTS or len(stack) > walker._chunk_depth or
                ins.target < walker._operand_end and ins.target not in walker._sibling_targets
                or _operation_takes(walker, ins)):
            # a value `and`/`or` whose result another test takes, one that is an operand
            # of an operation still waiting on the stack (`f(a or b)`: a chunk ends with
            # one new value), one inside an operand of a value `and`/`or` (`c or -(a or
            # b)`: it joins before the operand ends, where an operation takes its value),
            # or the left operand of an operation after the join (`(a or b) is c`): part
            # of this chunk
            walker.chunk_mode = False
            try:
                return conditional(walker, ins, stack, out)
            finally:
                walker.chunk_mode = True
        if ins.target not in walker._sibling_targets:
            nxt = try_ifexp(walker, ins, stack)
            if nxt is not None:
                return nxt
        raise ChunkEnd(ins)
    first = walker.pop(stack, ins)
    if isinstance(first, FunctionValue):  # `(lambda: 0) or v`
        first = ENTRY.lambda_expr(walker, first, ins)
    first = Chunk(None, first, ins)
    chunks = [first]
    limit = walker.range_end
    k = after(walker, ins)
    region = _region(walker, ins.index - 1) if ins.index else None
    join = ins.target if ins.op in KEEP_JUMPS else None
    while True:
        if join is not None:
            # value context: the rest up to the join is either more chunks or the last value
            c = read_chunk(walker, k, stack, join, chunks, operand=True)
            if c is not None:
                if c.jump.op in KEEP_JUMPS and c.jump.target != join:
                    break
                chunks.append(c)
                k = after(walker, c.jump)
                continue
            v = read_value(walker, k, join, stack)
            if v is None:
                # the tests read last (plain jumps, no and/or) may begin the last operand
                at = len(chunks)
                while at > 1 and chunks[at - 1].jump.op not in KEEP_JUMPS:
                    at -= 1
                if at < len(chunks):
                    v = _returned_ifexp(walker, chunks[at].start, join, stack)
                    if v is not None:
                        k = chunks[at].start
                        del chunks[at:]
            if v is None:
                break
            # `v or (lambda: 0)`: a function made as the last operand is a lambda there
            chunks.append(Chunk(k, walker.value(v, ins), None))
            expr = parse_value(walker, chunks, join)
            if expr is None:
                walker.fail("unrecognised and/or expression", ins)
            if join < walker.n and walker.instrs[join].op in KEEP_JUMPS:
                # its value is tested by the next value and/or: the left operand written in
                # parentheses, `(a and b) and c` (3.12+ does not thread the jumps of a flat
                # chain through it): not flattened into the outer one (boolop)
                expr._paren = True
            stack.append(expr)
            return join
        if k in walker.while_loops or ((PROFILE.while_tested_at_top_only_again or
                                        PROFILE.top_tested_while) and k in walker.back_jumps):
            # `if a: while b: ...` with nothing after the loop: the while's top test jumps
            # where the if's does, so it reads like `if a and b:`; a loop head starts the
            # body instead (3.8/3.9 and 3.14+: any loop head, a while is tested at the top
            # only)
            break
        if k < walker.n and _region(walker, k) != region:
            break  # a test inside a try that starts here is its body's (3.13: no NOP)
        c = read_chunk(walker, k, stack, limit, chunks)
        if c is None:
            found = _ifexp_test(walker, chunks, k, stack, limit)
            if found is None:
                break
            chunks, k = found
            continue
        if c.jump.op in KEEP_JUMPS:
            # an and/or value only continues this condition if every jump so far stays
            # inside it (`(a or b) and c`); otherwise it starts the body (a jump back
            # to the loop head, `if key:` as the expanded backward jump of 3.12+ folds
            # it, leaves it too)
            if any(ch.jump.target >= c.jump.target or ch.jump.target <= ch.jump.index
                   for ch in chunks):
                break
            join = c.jump.target
        chunks.append(c)
        k = after(walker, c.jump)
    if join is not None:
        walker.fail("unrecognised and/or expression", ins)
    for n in range(len(chunks), 0, -1):
        last = chunks[n - 1].jump
        true, false = after(walker, last), last.target
        expr = parse_cond(walker, chunks[:n], true, false, true)
        if expr is not None:
            return if_statement(walker, expr, true, false, stack, out, ins)
    walker.fail("unrecognised condition", ins)


_TAKES_AT_JOIN = frozenset(["LOAD_ATTR", "LOAD_METHOD", "UNARY_NEGATIVE", "UNARY_INVERT",
                            "UNARY_POSITIVE"])
_ONE_OPERAND = frozenset(["LOAD_FAST", "LOAD_CONST", "LOAD_NAME", "LOAD_DEREF"])
_BINARY = ("BINARY_", "COMPARE_OP", "IS_OP", "CONTAINS_OP")


def _operation_takes(walker, ins):
    """Whether the value an ``and``/``or`` leaves at its join (``ins.target``) is an operand
    of the operation there: ``(a or b).x``, ``-(a or b)``, or the left operand of a binary
    operation whose right operand is one load (``(a or b) is c``). In a test the compiler
    writes ``and``/``or`` with plain jumps, so one that keeps its value is an operand, and
    the chunk goes on past the join. Not when a test read before this chunk jumps up to
    the join (the and/or began before the chunk), nor for a value a later operation takes
    (``f(a or b, c)``)."""
    target = ins.target
    if walker._operand_end != -1 or any(
            ins.index < t <= target for t in walker._sibling_targets):
        return False  # (`(c and c.x or '') + s`: an and/or begun before this chunk)
    at = walker.instrs[target]
    if at.op in _TAKES_AT_JOIN:
        return True
    return at.op in _ONE_OPERAND and target + 1 < walker.n and \
        walker.instrs[target + 1].op.startswith(_BINARY) and \
        not walker.instrs[target + 1].is_target


def _region(walker, k):
    """The handler protecting instruction ``k`` (None outside any): the tests of one
    condition all lie in one."""
    entry = walker.handler_at[k]
    return None if entry is None else entry.target


def _returned_ifexp(walker, k, join, stack):
    """The last operand [k, join) of an and/or that the chunk reader does not take: a
    conditional expression whose test has several parts (``a or (x if c and d else y)``),
    or, returned, one whose first branch returns (``return a or (x if c else y)``: the
    compiler copies the return into it, so it reads as ``if c: return x``, then ``y``,
    up to the RETURN_VALUE at ``join`` that the other operands share). The value, or
    None."""
    if join >= walker.n:
        return None
    state = walker.fork()
    value = _returned_ifexp_value(walker, k, join, stack)
    if value is None:
        walker.restore(state)
    return value


def _returned_ifexp_value(walker, k, join, stack):
    trial = list(stack)
    try:
        stmts, stop = walker.walk(k, join, trial, walker.ctx)
    except DecompilationError:
        return None
    if stop != join or len(trial) != len(stack) + 1 or \
            any(a is not b for a, b in zip(trial, stack)):
        return None
    if stmts and not _returns_at(walker, join, stack):
        return None
    value = walker.value(trial[-1], walker.instrs[join])
    for stmt in reversed(stmts):
        if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and
                isinstance(stmt.body[0], ast.Return) and stmt.body[0].value is not None):
            return None
        value = ast.IfExp(test=stmt.test, body=stmt.body[0].value, orelse=value)
    return value


def _returns_at(walker, k, stack):
    """Whether the code at ``k`` returns the value on top: RETURN_VALUE, after popping
    the iterators of enclosing loops (the only values below it)."""
    if any(isinstance(v, ast.expr) for v in stack):
        return False
    while k < walker.n and walker.instrs[k].op in ("SWAP", "ROT_TWO", "POP_TOP"):
        k += 1
    return k < walker.n and walker.instrs[k].op == "RETURN_VALUE"


def _ifexp_test(walker, chunks, k, stack, limit):
    """A conditional expression tested in a condition (``if (a if b else c) and d:``).

    The compiler branches instead of computing the value: the test's chunks jump to the
    else part when false; the body's chunks and the else part's chunks both jump to one
    label L (the condition is false) or go on at J, and the body ends with ``JUMP J``.
    Returns the chunks with the conditional expression as one chunk (its jump: to L when
    false, falling through at J) and where reading goes on, or None."""
    instrs = walker.instrs
    if k >= walker.n or instrs[k].op != "JUMP" or instrs[k].target <= k + 1:
        return None
    join = instrs[k].target
    if join > limit:
        return None
    label = walker.exits.label  # (label(): copies of one exit block are one label)
    for first in range(len(chunks) - 1):
        if not any(label(c.jump.target) == label(k + 1) for c in chunks[first:]):
            continue
        for split in range(first + 1, len(chunks)):
            body_start = chunks[split].start
            test = parse_cond(walker, chunks[first:split], body_start, k + 1, body_start)
            if test is None:
                continue
            false = chunks[-1].jump.target
            body = parse_cond(walker, chunks[split:], k, false, k)
            if body is None:
                continue
            orelse_chunks = []
            at = k + 1
            while at < join:
                c = read_chunk(walker, at, stack, join, orelse_chunks)
                if c is None:
                    break
                orelse_chunks.append(c)
                at = after(walker, c.jump)
            if at != join or not orelse_chunks:
                return None
            orelse = parse_cond(walker, orelse_chunks, join, false, join)
            if orelse is None:
                return None
            jump = _Jump("POP_JUMP_IF_FALSE", false, join - 1)
            merged = Chunk(chunks[first].start,
                           ast.IfExp(test=test, body=body, orelse=orelse), jump)
            return chunks[:first] + [merged], join
    return None

op_POP_JUMP_IF_FALSE = op_POP_JUMP_IF_TRUE = conditional
op_POP_JUMP_IF_NONE = op_POP_JUMP_IF_NOT_NONE = conditional
op_JUMP_IF_FALSE_OR_POP = op_JUMP_IF_TRUE_OR_POP = conditional


def try_ifexp(walker, ins, stack):
    """In chunk mode: a conditional expression nested inside the chunk being read."""
    false = ins.target
    if false is None or false <= ins.index + 1 or false > walker.n:
        return None
    jump = walker.instrs[false - 1]
    if jump.op != "JUMP" or jump.target <= false:
        return None
    if any(ins.index < t < jump.target for t in walker._sibling_targets):
        # an earlier test of the same condition jumps into the branches: they belong to
        # the whole condition (`1 if a or c else 2`), not to a conditional inside it
        return None
    trial = list(stack)
    test = trial.pop()
    saved = walker.chunk_mode
    try:
        walker.chunk_mode = False
        body = read_value(walker, ins.index + 1, false - 1, trial)
        orelse = read_value(walker, false, jump.target, trial) if body is not None else None
    finally:
        walker.chunk_mode = saved
    if body is None or orelse is None:
        return None
    stack.pop()
    stack.append(ast.IfExp(test=negate(jump_test(Chunk(None, test, ins))), body=body, orelse=orelse))
    return jump.target


def if_statement(walker, test, true, false, stack, out, ins):
    ctx = walker.ctx
    loop = ctx.loop
    end = walker.range_end
    if false < true:
        # a jump back to the loop head: `if not test: continue`
        if loop is not None and false in loop.continue_targets:
            if true - 1 == loop.last and loop.kind in ("while", "while-top"):
                # the back edge itself is conditional: falling through leaves the loop
                # (the last of the test's jumps: `if a or b: break`)
                out.append(ast.If(test=test, body=[ast.Break()], orelse=[]))
                return true
            if PROFILE.expanded_backward_jumps and true < end and \
                    not _holds_folding_not(test) and (
                    (_ends_loop_body(walker) and (
                        _negation_folds(test) or _threaded_back(walker, true - 1) or
                        _plain_and(test))) or
                    _holds_folding_not(negate(test))):
                # 3.12+ threads the end of `if test: rest-of-body` to the loop head;
                # `not (a in b)` would compile as `a not in b`, so keep the if (and where
                # the exception table tells the threaded jump from a `continue`); where
                # `if not test: continue` cannot compile back, the if ends this range too
                # (the last statement of an if body that ends the loop body). The jump
                # back keeps the test's line (normalize folds it into the test only then),
                # where a written `continue` starts a line of its own: keep the if (a test
                # of `or`s may be continues threaded from several ifs:
                # `if not a and b: continue`)
                body, _ = walker.walk(true, end, list(stack), ctx)
                if body and isinstance(body[-1], ast.Continue) and end - 1 == loop.last:
                    body.pop()  # the loop's own back edge
                node = ast.If(test=test, body=body or [ast.Pass()], orelse=[])
                node.ends_at_head = True  # (falling off it goes back to the loop head)
                out.append(node)
                return end
            nxt = walker.instrs[true] if true < walker.n else None
            if PROFILE.expanded_backward_jumps and nxt is not None and nxt.op == "JUMP" and \
                    nxt.target in loop.continue_targets and true + 1 == loop.last:
                # `if test: continue` last in the loop body, whose end was threaded to
                # the loop head too: both ways continue, and the test keeps its sense
                out.append(ast.If(test=test, body=[ast.Continue()], orelse=[]))
                return true + 1
            node = ast.If(test=negate(test), body=[ast.Continue()], orelse=[])
            # (the jump back kept the test's line: loop_exits.py may read `if test: rest`)
            if _plain_and(test) and not _holds_folding_not(test):
                # (see above: `or`s may be several threaded ifs; and `if not (a in b):
                # rest` would be `a not in b`, other instructions)
                node._threaded_test = test
            out.append(node)
            return true
        walker.fail("backward conditional jump outside a loop", ins)
    if loop is not None and false == loop.break_target and false >= end:
        if true < end == loop.last + 1 and (
                PROFILE.while_tested_at_top_only_again and (
                    break_line_at(walker, false) or _break_jump_after_loop(walker, false))
                or _holds_folding_not(negate(test))):
            # 3.14: `if test: rest-of-body else: break`, the break a NOP on its own
            # line where the loop's exit starts, or its own jump there when the code
            # after the loop is not next (a written `if not test: break` puts its
            # break right after the test); any version: `if not (a is b): break`
            # cannot compile back (`a is not b` tests the other way)
            body, _ = walker.walk(true, end, list(stack), ctx)
            if body and isinstance(body[-1], ast.Continue):
                body.pop()  # the loop's own back edge
            out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=[ast.Break()]))
            return end
        out.append(ast.If(test=negate(test), body=[ast.Break()], orelse=[]))
        return true
    if stack and any(isinstance(v, ast.expr) for v in stack):
        tail = _ifexp_with_copied_tail(walker, test, true, false, stack)
        if tail is not None:
            return tail
    if _threaded_if_over_back_edge(walker, test, true, false, ins):
        # `if test: rest-of-body` whose end was threaded to the loop head, over the
        # loop's last back edge: `if not test: continue` would fold `not (a in b)`
        body, _ = walker.walk(false, end, list(stack), ctx)
        if body and isinstance(body[-1], ast.Continue) and end - 1 == loop.last:
            body.pop()  # the loop's own back edge
        node = ast.If(test=negate(test), body=body or [ast.Pass()], orelse=[])
        out.append(_as_assert(node) or node)
        return end
    body_end = min(false, end)
    else_end = None
    if body_end > true:
        last = walker.instrs[body_end - 1]
        if last.op == "JUMP" and last.target > body_end and not _is_loop_jump(walker, last) \
                and body_end < end and _join_copied_into_else(walker, last.target, body_end,
                                                                   end):
            # 3.10: the code after the if (a short block that returns) was copied into
            # every branch that falls through, and the one left is the copy ending a
            # branch of the else (the else's last branch raises): this body ends with
            # its own copy, and the else runs to the end
            body_stack = list(stack)
            body, _ = walker.walk(true, body_end - 1, body_stack, ctx)
            size = handlers._short_return_at(walker, last.target)
            walker.walk(last.target, last.target + size, body_stack, ctx, out=body)
            else_stack = list(stack)
            orelse, _ = walker.walk(body_end, end, else_stack, ctx)
            out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
            return end
        if last.op == "JUMP" and last.target > body_end and not _is_loop_jump(walker, last) \
                and body_end < end:
            else_end = min(last.target, end)
        elif last.op == "JUMP" and last.target in walker.cold_joins and body_end < end and \
                walker.instrs[body_end - 2].op == "POP_EXCEPT":
            # 3.13 copies a clause's exit (POP_EXCEPT; JUMP back to the join after the
            # cold handler) into the body of an if that ends the clause: the rest of
            # the clause is the else
            else_end = end
        elif not PROFILE.expanded_backward_jumps and last.op == "JUMP" and \
                _is_loop_jump(walker, last) \
                and body_end < end and _loop_body_stop(walker, end) is not None \
                and _jumps_to_loop_end(walker, true, body_end - 1, _loop_body_stop(walker, end)) \
                and not _jumps_to(walker, true, body_end - 1, body_end):
            # 3.10/3.11: the body ends in `continue`/`break` and branches inside it jump to
            # the loop's end: they fall off an if/elif chain that ends the loop body, so
            # what follows the body, up to the loop's end, is its else; read as separate
            # ifs, they would fall into the next test
            stop = _loop_body_stop(walker, end)
            body_stack = list(stack)
            body, _ = walker.walk(true, body_end, body_stack, ctx)
            else_stack = list(stack)
            orelse, _ = walker.walk(body_end, stop, else_stack, ctx)
            if len(body_stack) == len(stack) == len(else_stack):
                out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
                return stop
        elif body_end < end and _exits_inside(walker, true, body_end) and \
                not choose(walker, ELSE_AFTER_EXIT, ins.offset):
            # the body's own branches leave through copies of the final exit, so what
            # follows the body is not after the `if` but its `else`
            return _if_else_to_end(walker, test, true, body_end, end, stack, out, ins)
    if else_end is None and true < body_end < end and (
            PROFILE.threaded_jumps_past_else or
            walker.instrs[body_end - 1].op in _NO_FALL_THROUGH):
        # (before 3.12 too when the body ends in raise/return: `if a: (if b: x else:
        # raise) elif c: ...`, whose inner branch jumps past the elif)
        join = _jump_past(walker, true, body_end, end)
        if join is not None:
            # 3.12+ threads the jump over the else into the body's last test
            # (`elif c: x = f(x); if x: continue` jumps straight past the else)
            body_stack = list(stack)
            saved = walker.range_joins
            walker.range_joins = dict(saved)
            walker.range_joins[body_end] = join
            try:
                body, _ = walker.walk(true, body_end, body_stack, ctx)
            finally:
                walker.range_joins = saved
            else_stack = list(stack)
            orelse, _ = walker.walk(body_end, join, else_stack, ctx)
            if len(body_stack) == len(stack) == len(else_stack):
                out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
                return join
    if else_end is not None:
        body_stack = list(stack)
        # (the body's jump over the else goes where a loop that ends the body breaks to:
        # a break threaded past the else, `if c: for y in ys: ...; break` / `else: ...`)
        saved = walker.range_joins
        walker.range_joins = dict(saved)
        walker.range_joins[body_end - 1] = walker.instrs[body_end - 1].target
        try:
            body, _ = walker.walk(true, body_end - 1, body_stack, ctx)
        finally:
            walker.range_joins = saved
        else_stack = list(stack)
        orelse, _ = walker.walk(body_end, else_end, else_stack, ctx)
        if not body and not orelse and len(body_stack) == len(stack) + 1 == len(else_stack):
            stack.append(ast.IfExp(test=test, body=walker.value(body_stack[-1], ins),
                                   orelse=walker.value(else_stack[-1], ins)))
            return else_end
        if _merge_stacks(walker, stack, out, ins, [(body, body_stack), (orelse, else_stack)]):
            return if_statement(walker, test, true, false, stack, out, ins)
        out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
        return else_end
    if else_end is None and true < body_end < end and _cannot_fall_through(walker, body_end) \
            and choose(walker, ELSE_AFTER_EXIT, ins.offset):
        # (choices.py) the other reading: what follows the body is its else
        return _if_else_to_end(walker, test, true, body_end, end, stack, out, ins)
    body_stack = list(stack)
    body, stop = walker.walk(true, body_end, body_stack, ctx)
    orelse = []
    else_stack = list(stack)
    if stop > body_end and body_end < end:
        # the body fell through past the false target: what lies between is the else
        orelse, _ = walker.walk(body_end, min(stop, end), else_stack, ctx)
        body_end = stop
    elif body_end < end and _left_handler(stack, body_stack) and \
            not (body and isinstance(body[-1], _TERMINAL_STATEMENTS)):
        # the body ends its except clause (POP_EXCEPT, then a copy of the code after the
        # try, skipped): the rest of the clause is the else
        orelse, _ = walker.walk(body_end, end, else_stack, ctx)
        body_end = end
    elif body_end < end and body and getattr(body[-1], "ends_at_head", False):
        # the body ends with an if whose end was threaded to the loop head (3.12+), so
        # this if falls off there too: what follows, up to the end of the range, is its
        # else (`elif c: if d is not e: break` then `else: ...`)
        orelse, _ = walker.walk(body_end, end, else_stack, ctx)
        if orelse and isinstance(orelse[-1], ast.Continue) and end - 1 == ctx.loop.last:
            orelse.pop()  # the loop's own back edge
        body_end = end
    if _merge_stacks(walker, stack, out, ins, [(body, body_stack), (orelse, else_stack)]):
        return if_statement(walker, test, true, false, stack, out, ins)
    node = ast.If(test, body or [ast.Pass()], orelse)
    if PROFILE.keeps_dead_code and not orelse and true < body_end and \
            walker.instrs[body_end - 1].op in _ELSE_JUMP_KEPT:
        # (read by legacy_structure.else_for_dead_return: an else was flattened after it)
        node.else_jump = else_jump_after(walker.code, walker.instrs[body_end - 1].offset)
    assertion = _as_assert(node)
    out.append(assertion or node)
    return body_end


def _cannot_fall_through(walker, body_end):
    """Whether an if body ending at ``body_end`` ends in a return, a raise or a loop jump."""
    last = walker.instrs[body_end - 1]
    return last.op in _NO_FALL_THROUGH or (last.op == "JUMP" and _is_loop_jump(walker, last))


def _join_copied_into_else(walker, join, body_end, end):
    """Whether ``join``, where an if body jumps over its else, is a short block that
    returns, laid out inside the else (a test before it in [body_end, join) jumps past
    it), with the else's code running to the end of the range without falling out of it
    (3.10, inlined_exit_copies_310: the code after the if statement was copied into the
    branches, its original dropped)."""
    if not PROFILE.inlined_exit_copies_310 or join >= end or \
            walker.instrs[end - 1].op not in _NO_FALL_THROUGH:
        return False
    size = handlers._short_return_at(walker, join)
    if size is None or join + size >= end or walker.instrs[join].line is None:
        return False
    return any(walker.instrs[k].target is not None and walker.instrs[k].target >= join + size
               and walker.instrs[k].op != "JUMP" for k in range(body_end, join))


def _break_jump_after_loop(walker, k):
    """Whether instruction ``k``, right after a loop's back edge, is a ``break`` on a line
    of its own: a forward jump whose line is not the back edge's (3.14 lays out an
    ``else: break`` that way when the loop ends an if body with an else)."""
    ins = walker.instrs[k] if k < walker.n else None
    return ins is not None and ins.op == "JUMP" and ins.target > k and \
        ins.line is not None and ins.line != walker.instrs[k - 1].line


def _threaded_back(walker, k):
    """Whether the (conditional) jump back at ``k`` is the compiler's (the threaded end of
    an if body), not a written ``continue``: inside a handler's range (a generator's body,
    a try) the compiler's jump has no location and is left out, a statement's is not."""
    handler = walker.handler_at[k]
    if handler is None:
        return k > 0 and walker.handler_at[k - 1] is not None
    # 3.12+ folded back (instructions._expanded_backward_jump): the test is protected,
    # the JUMP after it was not, which split the range right after the folded jump
    return handler.end == k + 1 and \
        any(e.start == k + 1 and e.target == handler.target for e in walker.entries)


def _ifexp_with_copied_tail(walker, test, true, false, stack):
    """A conditional expression inside a returned expression (``return n + (4 if c else
    0)``, or a raised one): the compiler copies the rest of the statement into both
    branches, so each branch is the value, then the same tail ending in RETURN_VALUE
    (RAISE_VARARGS). Pushes the
    conditional expression and returns where the first copy of the tail starts (the
    second is skipped); None when the branches are not that."""
    instrs = walker.instrs
    if false >= walker.n or instrs[false - 1].op not in ("RETURN_VALUE", "RAISE_VARARGS"):
        return None
    exit_op = instrs[false - 1].op  # (`raise E(a if c else b)` is copied the same way)
    for length in range(min(8, false - true - 1), 0, -1):
        tail = false - length
        if any(ins.target is not None or ins.is_target for ins in instrs[tail:false]):
            continue
        stop = false + 1
        while stop <= min(walker.n, walker.range_end) and stop - false < 40 and \
                not (instrs[stop - 1].op == exit_op and stop - length > false and
                     walker._same_code(tail, stop - length, length)):
            stop += 1
        if stop > min(walker.n, walker.range_end) or stop - false >= 40:
            continue
        body = read_value(walker, true, tail, stack)
        orelse = read_value(walker, false, stop - length, stack) if body is not None else None
        if orelse is None:
            continue
        stack.append(ast.IfExp(test=test, body=walker.value(body, instrs[true]),
                               orelse=walker.value(orelse, instrs[false])))
        walker.cleanup_starts[false] = stop
        return tail
    return None


def _ends_loop_body(walker):
    """Whether the range being walked runs to the end of the loop body: the body itself,
    or an if body that ends it (falling off its end goes back to the loop head)."""
    loop = walker.ctx.loop
    return walker.range_start == loop.body_start or \
        (loop.body_end is not None and walker.range_end == loop.body_end)


def _threaded_if_over_back_edge(walker, test, true, false, ins):
    """Whether the conditional ``ins`` only jumps over a jump to the loop head, the 3.12+
    expansion of a threaded backward jump that stays unfolded (a for loop's last back edge
    stays a ``JUMP``): ``if c: rest`` where ``rest`` runs to the end of the loop body.
    Read as ``if not c: continue`` it is the same bytecode, unless the compiler folds the
    ``not`` into the test (``not (a in b)`` is ``a not in b``). A written ``continue``
    starts a line of its own; the compiler's jump keeps the test's, and inside a
    handler's range (a generator's body, a try) it is left out of the range."""
    loop = walker.ctx.loop
    if not PROFILE.expanded_backward_jumps or loop is None or true + 1 != false or \
            not _ends_loop_body(walker) or false >= walker.range_end:
        return False
    jump = walker.instrs[true]
    # (`if not (a in b or c): rest` the other way round: the test that jumps to the head is
    # `a in b`, whose negation folds too; read as `if a in b: continue` it is exact)
    return jump.op == "JUMP" and jump.target in loop.continue_targets and \
        (jump.line is None or jump.line == ins.line) and \
        ((_negation_folds(test) and not _holds_folding_not(negate(test))) or
         (walker.handler_at[true] is None and walker.handler_at[false] is not None))


def _jump_past(walker, start, stop, end):
    """The one place past ``stop`` (up to ``end``) that jumps in [start, stop) go to,
    loop jumps aside: where an if body whose end jumps over an else continues."""
    loop = walker.ctx.loop
    found = set()
    for k in range(start, stop):
        ins = walker.instrs[k]
        t = ins.target
        if t is None or t <= stop or t > end or ins.op == "FOR_ITER":
            continue
        if loop is not None and (t in loop.continue_targets or t == loop.break_target):
            continue
        found.add(t)
    tries = set(e.target for e in walker.entries if start <= e.start < stop) \
        if PROFILE.cold_handlers else ()
    if tries and not any(start <= ins.target < k for k, ins in
                         enumerate(walker.instrs[start:stop], start)
                         if ins.target is not None):
        # 3.12+: the clauses of a try in [start, stop) lie in the cold code at the end;
        # their jumps back say where the try goes on too (`if a: try: return f() /
        # except E: ...` then `elif b: ...`: the clause jumps past the elif). Not with a
        # loop in the body: a clause's `break` may be threaded past the if as well
        cold = cold_blocks.cold_code(walker)
        for h in tries:
            cleanup = walker.handler_at[h].target if h < walker.n and \
                walker.handler_at[h] is not None else None
            if h < stop or h not in cold or cleanup is None or \
                    walker.instrs[h].op != "PUSH_EXC_INFO" or \
                    any(e.target == h and e.start not in cold and
                        not (start <= e.start and e.end <= stop) for e in walker.entries):
                continue  # (a try around the if, whose table the body splits: 3.14)
            for k in range(h + 1, min(cleanup + 3, walker.n)):
                ins = walker.instrs[k]
                t = ins.target
                if ins.op != "JUMP" or t is None or t <= stop or t > end or t in cold or \
                        not _after_pop_except(walker, k):
                    continue
                if loop is not None and (t in loop.continue_targets or t == loop.break_target):
                    continue
                found.add(t)
    return found.pop() if len(found) == 1 else None


def _after_pop_except(walker, k):
    """Whether instruction ``k`` follows a clause's POP_EXCEPT (and the unbinding of
    ``except E as name``): the jump by which an except clause falls off its try."""
    instrs = walker.instrs
    if k >= 4 and instrs[k - 4].op == "POP_EXCEPT" and instrs[k - 3].op == "LOAD_CONST" and \
            instrs[k - 2].op.startswith("STORE_") and instrs[k - 1].op.startswith("DELETE_"):
        return True
    return k >= 1 and instrs[k - 1].op == "POP_EXCEPT"


def _loop_body_stop(walker, end):
    """Where the enclosing loop's body ends if the range ending at ``end`` runs to it: its
    back edge (an unconditional jump to the head, left to the loop) or, for a loop tested
    at the bottom, ``end`` itself; else None."""
    loop = walker.ctx.loop
    if loop is None:
        return None
    last = walker.instrs[loop.last]
    if last.op == "JUMP" and last.target in loop.continue_targets:
        return loop.last if end in (loop.last, loop.last + 1) else None
    return end if end == loop.last + 1 else None


def _jumps_to_loop_end(walker, start, stop, loop_stop):
    """Whether a jump in [start, stop) goes to the loop's head or to its end."""
    ends = set(walker.ctx.loop.continue_targets)
    ends.add(loop_stop)
    return any(walker.instrs[k].target in ends and walker.instrs[k].op != "FOR_ITER"
               for k in range(start, stop))


def _jumps_to(walker, start, stop, target):
    """Whether a jump in [start, stop) goes to ``target``. Inside an if body, a jump to the
    body's own false target says the if has no else there: an else starts where only the
    test jumps (`if a: (if b: continue) elif c: x; continue` then `y`: the elif's test jumps
    to `y`, where with `else: y` it would jump to the loop's end)."""
    return any(walker.instrs[k].target == target and walker.instrs[k].op != "FOR_ITER"
               for k in range(start, stop))


def _exits_inside(walker, start, stop):
    """Whether a jump in [start, stop) leaves through a detached copy of an exit block (its
    target a label past the code, statements.ExitBlocks): none without such a copy."""
    if not walker.exits.virtual:
        return False
    n = walker.n
    for k in range(start, stop):
        t = walker.instrs[k].target
        if t is not None and t > n and walker.instrs[k].op != "FOR_ITER":
            return True
    return False


def _if_else_to_end(walker, test, true, false, end, stack, out, ins):
    ctx = walker.ctx
    body, _ = walker.walk(true, false, list(stack), ctx)
    orelse, stop = walker.walk(false, end, list(stack), ctx)
    out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
    return max(stop, end)


def _as_assert(node):
    """``if not test: raise AssertionError(msg)`` whose name came from
    LOAD_ASSERTION_ERROR is an ``assert``."""
    if node.orelse or len(node.body) != 1:
        return None
    only = node.body[0]
    if isinstance(only, ast.Assert) and isinstance(only.test, ast.Constant) and \
            only.test.value is False:
        found = _assert_for(node.test, only.msg)
        if found is None:  # (no assert: the if raises, as written)
            exc = ast.Name(id="AssertionError", ctx=ast.Load())
            if only.msg is not None:
                exc = ast.Call(func=exc, args=[only.msg], keywords=[])
            node.body = [ast.Raise(exc=exc, cause=None)]
        return found
    if not isinstance(only, ast.Raise):
        return None
    exc = node.body[0].exc
    msg = None
    if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords:
        exc, msg = exc.func, exc.args[0]
    if not getattr(exc, "_assertion", False) or node.body[0].cause is not None:
        return None
    return _assert_for(node.test, msg)

_TERMINAL_STATEMENTS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _merge_stacks(walker, stack, out, ins, branches):
    """Make the branches of an ``if`` agree on the stack they leave.

    People's code never leaves a value on the stack across an ``if`` statement; generated
    code does (a value pushed before the test, changed in one branch).  Then every stack
    value goes into a temporary before the ``if`` (returns True: walk the branches again)
    and each branch assigns the temporaries it changes at its end.
    """
    depth = len(stack)
    for _, bs in branches:
        if len(bs) != depth or (depth and not all(map(operator.is_, bs, stack))):
            break
    else:
        return False  # (every branch leaves the stack it was given: nearly every if; most
        # often an empty one, which needs no comparison)
    live = [(stmts, bs) for stmts, bs in branches
            if not (stmts and isinstance(stmts[-1], _TERMINAL_STATEMENTS)) and
            not _left_handler(stack, bs)]
    if not live:
        return False
    depth = len(live[0][1])
    if any(len(bs) != depth for _, bs in live) or depth < len(stack):
        walker.fail("branches leave different stacks", ins)
    changed = [k for k in range(depth)
               if k >= len(stack) or any(bs[k] is not stack[k] for _, bs in live)]
    if not changed:
        return False
    if any(not isinstance(stack[k], ast.expr) for k in changed if k < len(stack)) or \
            any(not isinstance(bs[k], ast.expr) for _, bs in live for k in changed):
        walker.fail("branches change the interpreter's own stack values", ins)
    unspilled = [k for k in changed if k < len(stack) and not getattr(stack[k], "_temp", False)]
    if unspilled:
        for k in unspilled:
            temp = walker.new_temp()
            out.append(ast.Assign(targets=[name(temp, ast.Store())], value=stack[k], lineno=0))
            ref = name(temp)
            ref._temp = True
            stack[k] = ref
        return True  # walk the branches again on the temporaries
    for k in range(len(stack), depth):
        ref = name(walker.new_temp())
        ref._temp = True
        stack.append(ref)
    for stmts, bs in live:
        for k in changed:
            if bs[k] is not stack[k]:
                stmts.append(ast.Assign(targets=[name(stack[k].id, ast.Store())],
                                        value=walker.value(bs[k], ins), lineno=0))
    return False


def _left_handler(stack, branch_stack):
    """Whether a branch popped the exception its except clause handles (POP_EXCEPT, then
    a jump to the code after the try): it left the clause, its stack goes no further.
    3.13 copies that exit into each branch of an if that ends a clause."""
    return len(branch_stack) < len(stack) and \
        any(isinstance(v, PrevExc) for v in stack[len(branch_stack):])


def _check_balanced(walker, before, after, ins):
    if len(after) > len(before):
        walker.fail("branch leaves values on the stack", ins)


def _shares_line(walker, k):
    """Whether instruction ``k``'s line holds other instructions too: a statement that
    is one instruction (``continue``) written on a line of its own does not."""
    counts = walker._line_counts
    if counts is None:
        counts = walker._line_counts = {}
        for line in walker.lines:
            counts[line] = counts.get(line, 0) + 1
    return counts.get(walker.lines[k], 0) > 1


def _is_loop_jump(walker, ins):
    loop = walker.ctx.loop
    if loop is None:
        return False
    return ins.target in loop.continue_targets or ins.target == loop.break_target

# -- unconditional jumps ---------------------------------------------------------------

def op_JUMP(walker, ins, stack, out):
    loop = walker.ctx.loop
    t = ins.target
    if loop is not None:
        if t in loop.continue_targets:
            # the back edge that ends the body is no statement; any other jump to the
            # head (also one at the end of a nested block) is a `continue` (3.12/3.13:
            # also the back edge of a while with no bottom test, a body that never ends;
            # 3.14 has no bottom tests)
            if (ins.index != loop.last or walker.range_start != loop.body_start or
                    (loop.kind == "while-top" and not PROFILE.while_tested_at_top_only_again)) \
                    and not _falls_to_back_edge(walker, ins, loop):
                node = ast.Continue()
                if _shares_line(walker, ins.index):
                    # no line of its own: the compiler's jump (the end of an if body or
                    # its test's, threaded to the loop head), not a written `continue`
                    # (loop_exits.py)
                    node._threaded = True
                elif ins.index == loop.last and _line_goes_back(walker, ins.index):
                    # the loop's own back edge (it keeps the loop's line), walked as the
                    # end of a statement that ends the body: no written `continue`
                    # (loop_exits.py)
                    node._back_edge = True
                out.append(node)
            return None
        if t == loop.break_target:
            out.append(ast.Break())
            return None
    if t == ins.index + 1 or t == walker.cleanup_starts.get(ins.index + 1):
        # (3.12+ may leave an inline comprehension's cleanup in place, jumped over)
        return None
    if t >= walker.range_end or t in walker.cold_joins:
        return None  # the end of the construct, or of a 3.12+ cold handler's clause
    walker.fail("unstructured jump", ins)


def _line_goes_back(walker, k):
    """Whether instruction ``k`` has a line before that of the instruction laid out before
    it: a statement written there would come after it in the source."""
    line, before = walker.lines[k], walker.lines[k - 1] if k > 0 else None
    return line is not None and before is not None and line < before


def _falls_to_back_edge(walker, ins, loop):
    """Whether the jump to the loop head ``ins`` is a copy of the back edge right after
    it, where the code before it ends: the end of a try body last in the loop body (its
    if's other way round is the back edge, 3.13). A ``continue`` starts a line."""
    k = ins.index
    return k + 1 == loop.last == walker.range_end - 1 and k > 0 and \
        walker.instrs[k + 1].op == "JUMP" and walker.instrs[k + 1].target == ins.target and \
        ins.line in (None, walker.instrs[k - 1].line)

# -- loops -----------------------------------------------------------------------------

def _break_target(walker, start, end, default):
    """Where ``break`` goes: the nearest forward jump out of [start, end), if any."""
    best = None
    for ins in walker.instrs[start:end]:
        if ins.op == "JUMP" and ins.target >= end and (best is None or ins.target < best):
            best = ins.target
    for ins in _cold_handler_jumps(walker, start, end):
        if best is None or ins.target < best:
            best = ins.target
    return best if best is not None else default


def _cold_handler_jumps(walker, start, end):
    """3.12+: the jumps out of the cold except handlers of try statements in [start, end)
    (laid out after everything) that go past ``end``: a ``break`` in an except clause."""
    if not PROFILE.cold_handlers:
        return
    instrs = walker.instrs
    for e in walker.entries:
        if not start <= e.start < end or e.target < end or e.target >= walker.n or \
                instrs[e.target].op != "PUSH_EXC_INFO" or \
                handlers._handler_kind(walker, e.target) != "except":
            continue  # (only except clauses: not an async for's END_ASYNC_FOR, a with exit)
        cleanup = walker.handler_at[e.target]
        if cleanup is None:
            continue
        stop = min(cleanup.target + 3, walker.n)
        for k in range(e.target, stop):
            ins = instrs[k]
            if ins.op == "JUMP" and ins.target is not None and ins.target >= end and \
                    not e.target <= ins.target < stop:
                yield ins


def _loop_body_end(walker, head, last, exit_):
    """Where a for body ends: at its back edge, unless blocks after the back edge are
    reached from inside the loop (an ``else: break`` the compiler moved to the end)."""
    for ins in walker.instrs[head + 1:last + 1]:
        t = ins.target
        if t is not None and last < t < exit_:
            return exit_
    return last + 1


def op_FOR_ITER(walker, ins, stack, out):
    it = stack[-ITER_SLOTS] if len(stack) >= ITER_SLOTS else None
    if not isinstance(it, IterMarker):
        walker.fail("FOR_ITER without an iterator", ins)
    if isinstance(out, _NoStatements):
        # a trial parse of an expression (read_chunk, read_value) met a for statement: every
        # way on below ends in appending it to ``out``, which refuses it, or in a failure;
        # refused before walking the whole loop (an if body that starts with a loop)
        raise NotAChunk()
    head = ins.index
    exit_ = ins.target
    if exit_ < walker.n and walker.instrs[exit_].op == "END_FOR":
        exit_ += 1
    last = exit_ - 1
    while last > head and walker.instrs[last].op != "JUMP":
        last -= 1
    if last == head:
        last = exit_ - 1  # no back edge in the body (3.12+: only a cold handler's)
    break_target = _break_target(walker, head + 1, exit_, exit_)
    # a for/else ending an if body: its break goes where the if's body goes on, past the
    # else (3.12+, plistlib.load); the loop's else runs to the end of the body
    joined = break_target > walker.range_end and \
        walker.range_joins.get(walker.range_end) == break_target
    if break_target > walker.range_end and break_target != exit_ and not joined:
        break_target = exit_
    if break_target == exit_ and _breaks_copy_clause_exit(walker, head, exit_):
        # a for/else ending an except clause whose breaks are copies of the clause's
        # exit (3.13+): the else runs to the end of the clause
        break_target = walker.range_end
    loop = Loop(head, (head,), break_target, last, "for", iterator=it, exit=exit_,
                body_start=head + 1)
    outer = walker.ctx.loop
    threaded = break_target == exit_ and exit_ <= walker.range_end and \
        _breaks_threaded_to(walker, outer, head, exit_)
    if threaded:
        loop.threaded_breaks = outer.continue_targets
    body_stack = list(stack)
    item = LoopItem()
    body_stack.append(item)
    ctx = walker.ctx.but(loop=loop)
    # the body ends at the back edge; blocks between it and the exit belong to enclosing
    # constructs (returns the compiler duplicated into them)
    loop.body_end = _loop_body_end(walker, head, last, exit_)
    body, _ = walker.walk(head + 1, loop.body_end, body_stack, ctx)
    target = getattr(item, "target", None)
    if target is None:
        walker.fail("for loop without a target", ins)
    del stack[-ITER_SLOTS:]
    orelse = []
    nxt = exit_
    after = []
    if loop.inlined_after is not None and break_target == exit_:
        break_target, after = _after_inlined_break(walker, loop, exit_, stack)
        if after:
            nxt = break_target
    if break_target > exit_ and break_target <= walker.range_end:
        orelse, _ = walker.walk(exit_, break_target, list(stack), walker.ctx)
        nxt = break_target
    elif joined:
        orelse, _ = walker.walk(exit_, walker.range_end, list(stack), walker.ctx)
        nxt = walker.range_end
    elif threaded and not _ends_loop_body(walker):
        pass  # (the jump back after the loop is what the breaks were threaded through)
    elif threaded:
        # the breaks go to the enclosing loop's head: what follows up to the end of its
        # body is this loop's else
        orelse, _ = walker.walk(exit_, walker.range_end, list(stack), walker.ctx)
        if orelse and isinstance(orelse[-1], ast.Continue) and walker.range_end - 1 == outer.last:
            orelse.pop()  # the enclosing loop's own back edge
        nxt = walker.range_end
    if after and not (orelse and isinstance(orelse[-1], _TERMINAL_STATEMENTS)):
        walker.fail("loop exit falls into code only a break reaches", ins)
    out.append(ast.For(target=target, iter=it.iterable, body=body or [ast.Pass()], orelse=orelse,
                       type_comment=None))
    out.extend(after)
    return nxt


def clause_exit_break(walker, k):
    """Where the copy ends (0: no copy) when ``POP_EXCEPT`` at ``k`` (and the unbinding of
    an ``except E as name``), then a jump to where a cold except clause goes on, follows the
    pops of a for loop's iterator: 3.13+ copies the clause's exit into a ``break`` out of a
    loop that ends the clause (statements.op_POP_TOP)."""
    instrs = walker.instrs
    if not PROFILE.cold_handlers or k <= ITER_SLOTS or k + 1 >= walker.n or \
            instrs[k].op != "POP_EXCEPT" or \
            not all(instrs[k - j].op == "POP_TOP" for j in range(1, ITER_SLOTS + 1)):
        return 0
    jump = k + 4 if handlers._unbinds_name(walker, k + 1) else k + 1
    if jump < walker.n and instrs[jump].op == "JUMP" and \
            isinstance(walker.cold_joins, set) and instrs[jump].target in walker.cold_joins:
        return jump + 1
    return 0


def _breaks_copy_clause_exit(walker, head, exit_):
    """Whether the for loop [head, exit_) ends an except clause (its range ends with the
    clause's own exit, past the loop's) and a break in it is a copy of that exit (3.13+:
    before cold handlers clause_exit_break finds none)."""
    if not PROFILE.cold_handlers:
        return False
    end = walker.range_end
    if exit_ + 2 > end:
        return False
    if not (walker.instrs[end - 2].op == "POP_EXCEPT" and walker.instrs[end - 1].op == "JUMP"
            or walker.instrs[end - 1].op in _NO_FALL_THROUGH):
        return False  # (the clause goes on, or its last statement, the else, leaves)
    return any(clause_exit_break(walker, k) for k in range(head + 2, exit_))


def _breaks_threaded_to(walker, outer, head, exit_):
    """Whether the for loop [head, exit_) ends the body of the loop ``outer`` and a
    ``break`` in it (the iterator popped, then a jump) goes straight to ``outer``'s head:
    3.12+ threads the jump to the end of the enclosing body there."""
    if outer is None or not PROFILE.expanded_backward_jumps:
        return False
    instrs = walker.instrs
    if not _ends_loop_body(walker) and not (
            exit_ + 1 == walker.range_end and instrs[exit_].op == "JUMP" and
            instrs[exit_].target in outer.continue_targets):
        return False  # (an if body whose end, after the loop, jumps back to the head)
    if any(instrs[k].op == "JUMP" and instrs[k].target in outer.continue_targets and
           instrs[k - 1].op == "POP_TOP" for k in range(head + 2, exit_)):
        return True
    if not PROFILE.cold_handlers:
        return False
    # a break in an except clause of a try in the loop: the clause is laid out after
    # everything, `POP_EXCEPT; POP_TOP (the iterator); JUMP outer head`
    cold = cold_blocks.cold_code(walker)
    for k in range(exit_ + 1, walker.n):
        ins = instrs[k]
        if ins.op == "JUMP" and ins.target in outer.continue_targets and k in cold and \
                all(instrs[k - j].op == "POP_TOP" for j in range(1, ITER_SLOTS + 1)) and \
                instrs[k - ITER_SLOTS - 1].op == "POP_EXCEPT":
            entry = k - ITER_SLOTS - 1
            while entry > exit_ and instrs[entry].op != "PUSH_EXC_INFO":
                entry -= 1
            if any(e.target == entry and head < e.start < exit_ for e in walker.entries):
                return True
    return False


def _after_inlined_break(walker, loop, exit_, stack):
    """(break target, statements after the loop) for a loop whose breaks are copies of
    the returning block after it (statements.op_POP_TOP): a later copy of that block is
    the break target (the else ends there); without one the compiler dropped the
    original, so the else runs to the end of the range and the copy is what follows."""
    start, length = loop.inlined_after
    # (a copy right at the end of the range: the code after the statement the loop ends,
    # the else of a try whose clauses got copies of it too, handlers._try_before_moved_code)
    for p in range(exit_, min(walker.range_end, walker.n - length) + 1):
        if walker._same_code(p, start, length):
            return p, []
    after, _ = walker.walk(start, start + length, list(stack), walker.ctx)
    return walker.range_end, after


def do_while(walker, head, info, stack, out, ctx):
    body_start, bottom_jump, exit_, length = info
    bottom_start = bottom_jump - length + 1
    # the test, read as chunks over [head, body_start)
    chunks = read_chunks(walker, head, body_start, stack)
    if chunks is None:
        return None
    test = parse_cond(walker, chunks, body_start, exit_, body_start)
    if test is None and chunks and chunks[-1].jump.target != exit_ and \
            walker._same_exit(chunks[-1].jump.target, exit_):
        # 3.12+ threads the top test's exit to where the jump after the loop goes, or
        # leaves through a copy of the re-raise after the loop (in a finally body)
        test = parse_cond(walker, chunks, body_start, chunks[-1].jump.target, body_start)
    if test is None:
        return None
    break_target = _break_target(walker, body_start, exit_, exit_)
    loop = Loop(head, (head,), break_target, bottom_start - 1, "while", body_start=body_start)
    body, _ = walker.walk(body_start, bottom_start, list(stack), ctx.but(loop=loop))
    orelse = []
    nxt = _past_bottom_chain_cleanup(walker, bottom_start, bottom_jump, exit_)
    if break_target > exit_ and break_target <= walker.range_end:
        orelse, _ = walker.walk(exit_, break_target, list(stack), ctx)
        nxt = break_target
    out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse))
    return nxt


def _past_bottom_chain_cleanup(walker, bottom_start, bottom_jump, exit_):
    """Where the code after a tested ``while`` goes on when its bottom test ends with a
    chained comparison (`while a == b == c:`), whose cleanup (POP_TOP) the loop's exit
    passes over: 3.10/3.11 jump over it (the jump at ``exit_``, then the cleanup falling
    into the code after the loop); 3.12+ copy the code after the loop before the cleanup
    and after it (the second copy is skipped like a chain's copied cleanup). ``exit_``
    otherwise."""
    instrs = walker.instrs
    cleanups = [instrs[k].target for k in range(bottom_start, bottom_jump)
                if instrs[k].op in POP_JUMPS and instrs[k].target is not None and
                instrs[k].target > bottom_jump and instrs[k].target < walker.n and
                instrs[instrs[k].target].op == "POP_TOP"]
    if not cleanups:
        return exit_
    cleanup = min(cleanups)
    leave = instrs[exit_] if exit_ < walker.n else None
    if cleanup == exit_ + 1 and leave.op == "JUMP" and leave.target == cleanup + 1 and \
            cleanup + 1 <= walker.range_end:
        return cleanup + 1
    length = cleanup - exit_
    if 0 < length <= 8 and instrs[cleanup - 1].op in _NO_FALL_THROUGH and \
            walker._same_code(exit_, cleanup + 1, length) and \
            cleanup + 1 + length <= walker.range_end:
        walker.cleanup_starts[cleanup] = cleanup + 1 + length
    return exit_


def _while_without_bottom_test(walker, head, exit_, stack, out, ctx):
    """``while test:`` whose body never reaches the end (it returns, raises or continues):
    the test is only at the top and every back edge is a ``continue``."""
    chunks = gather_chunks(walker, head, exit_, stack)
    if PROFILE.while_tested_at_top_only_again and chunks:
        found = _while_leaving_by_jump(walker, chunks, head, exit_, stack, out, ctx)
        if found is not None:
            return found
    for n in range(len(chunks), 0, -1):
        last = chunks[n - 1].jump
        body_start, false = after(walker, last), last.target
        if false < exit_ and not (PROFILE.while_tested_at_top_only_again and false < head):
            # (3.14+: a test that jumps back leaves for an enclosing loop's head)
            continue
        test = parse_cond(walker, chunks[:n], body_start, false, body_start)
        if test is None:
            continue
        if PROFILE.top_tested_while:
            exit_ = legacy_structure.handlers_after_back_edge(walker, head, exit_, false)
            return legacy_structure.top_tested_while(walker, test, head, body_start, exit_,
                                                     stack, out, ctx)
        # no bottom test: the compiler adds one after a body that can end, so the
        # back edge must stay an explicit `continue`
        body_end = exit_
        # (the test may leave to a detached copy of the exit, a label past the code:
        # statements.ExitBlocks)
        limit = min(false, walker.n, walker.range_end)
        if any(exit_ <= (walker.instrs[k].target or -1) < limit
               for k in range(body_start, exit_)):
            body_end = limit  # blocks after the last `continue` that the body jumps to
        break_target, else_end, nxt = false, None, body_end
        tail = walker.instrs[exit_ - 1]
        tested_last = tail.op in POP_JUMPS and tail.target == head
        exit_copy = None
        if PROFILE.while_tested_at_top_only_again and false <= walker.range_end:
            exit_copy = _break_into_exit_copy(walker, exit_, false, tested_last)
        if exit_copy is not None:
            # 3.14: statements, then `break`, end the body after its back edges: the
            # break falls into a copy of the small exit the loop's test leaves to
            loop = Loop(head, (head,), false, exit_ - 1, "while-top", body_start=body_start)
            body, _ = walker.walk(body_start, exit_copy, list(stack), ctx.but(loop=loop))
            if not _break_where_it_falls(body, tested_last):
                return None
            out.append(ast.While(test=test, body=body, orelse=[]))
            return false
        if tail.op in POP_JUMPS and tail.target == head and body_end == exit_ < false:
            # 3.14: the body ends with `if c: break` (a conditional back edge); the break
            # falls to `exit_`: a jump over the loop's else, or the code after the loop
            # copied there (a short return)
            exit_jump = walker.instrs[exit_]
            if exit_ + 1 == false and exit_jump.op == "JUMP" and exit_jump.target > false:
                break_target = exit_jump.target
                else_end = nxt = min(exit_jump.target, walker.range_end)
            else:
                copy = _copied_after_loop(walker, exit_, false)
                if copy is not None:
                    else_end = nxt = copy
        loop = Loop(head, (head,), break_target, exit_ - 1, "while-top", body_start=body_start)
        body, _ = walker.walk(body_start, body_end, list(stack), ctx.but(loop=loop))
        orelse = walker.walk(false, else_end, list(stack), ctx)[0] if else_end else []
        out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse))
        return nxt
    return None


def _while_leaving_by_jump(walker, chunks, head, exit_, stack, out, ctx):
    """3.14+ ``while test:`` whose exit is a jump elsewhere (last in an enclosing loop's
    body: its head): the test jumps into the body when true and falls into that jump,
    ``test; POP_JUMP_IF_TRUE body; JUMP exit``. Where the walk goes on, or None."""
    k = after(walker, chunks[-1].jump)
    if k + 1 >= exit_ or walker.instrs[k].op != "JUMP":
        return None
    leave = walker.instrs[k].target
    if head <= leave <= exit_:
        return None
    test = parse_cond(walker, chunks, k + 1, k, k)
    if test is None:
        return None
    loop = Loop(head, (head,), leave, exit_ - 1, "while-top", body_start=k + 1)
    tail = walker.instrs[exit_ - 1]
    if exit_ < leave <= walker.range_end and tail.op in POP_JUMPS and tail.target == head:
        # the body ends with `if c: statements` laid out after the back edge (as in
        # _while_without_bottom_test), up to where the test leaves to
        stop = _break_into_exit_copy(walker, exit_, leave, True)
        if stop is not None:
            state = walker.fork()
            body, _ = walker.walk(k + 1, stop, list(stack), ctx.but(loop=loop))
            if _break_where_it_falls(body, True):
                out.append(ast.While(test=test, body=body, orelse=[]))
                return leave
            walker.restore(state)
    body, _ = walker.walk(k + 1, exit_, list(stack), ctx.but(loop=loop))
    out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=[]))
    return exit_


def _break_into_exit_copy(walker, start, stop, tested_last=False):
    """Where the loop body's last statements, laid out after its back edges [start, ...),
    fall into the loop's exit ``stop`` (a ``break``: 3.14 lays the body of the last
    ``if`` there): ``stop`` itself when they fall into it, or the start of a copy of the
    small returning block at ``stop`` that ends [start, stop). Where the last back edge
    is conditional (``tested_last``: the body ends with ``if c: statements``), statements
    that leave by themselves (a raise, a return) are that if's whole body: ``stop`` too.
    None when [start, stop) is not such statements."""
    if stop <= start or any(
            ins.target is not None and start < ins.target < stop and
            not start <= ins.index < stop for ins in walker.instrs):
        return None  # (statements reached from elsewhere: not only the body's end)
    last = walker.instrs[stop - 1]
    if last.op not in NO_FALLTHROUGH and last.target is None:
        return stop
    limit = min(stop + 6, walker.n)
    end = stop
    while end < limit and walker.instrs[end].op != "RETURN_VALUE":
        end += 1
    length = end + 1 - stop
    begin = stop - length
    if end >= limit or begin <= start or any(
            walker.instrs[k].target is not None for k in range(stop, end + 1)) or any(
            walker.instrs[k].is_target for k in range(begin + 1, stop)) or \
            not walker._same_code(begin, stop, length):
        # no copy: statements that leave by themselves (`if c: x; raise E`) are that
        # if's whole body, no break
        return stop if tested_last and last.op in _LEAVING else None
    return begin


def _copied_after_loop(walker, start, stop):
    """Where the returning block [start, stop) (the code after a loop, copied into the
    break that ends the body) appears again from ``stop`` on: the end of the loop's else;
    None when [start, stop) is no such block or has no later copy."""
    length = stop - start
    if length > 6 or walker.instrs[stop - 1].op != "RETURN_VALUE" or any(
            walker.instrs[k].target is not None or walker.instrs[k].is_target
            for k in range(start + 1, stop)):
        return None
    for p in range(stop, walker.range_end - length + 1):
        if walker._same_code(p, start, length):
            return p
    return None


def gather_chunks(walker, start, limit, stack):
    """The chunks read one after another from ``start`` until one does not read as a
    chunk (or ``limit`` is reached)."""
    chunks = []
    k = start
    while k < limit:
        c = read_chunk(walker, k, stack, limit, chunks)
        if c is None:
            break
        chunks.append(c)
        k = after(walker, c.jump)
    return chunks


def read_chunks(walker, start, stop, stack):
    """Chunks that fill [start, stop) exactly, or None. A conditional expression tested
    among them (``while (a if b else c) and d:``) is one chunk (see _ifexp_test)."""
    chunks = gather_chunks(walker, start, stop, stack)
    while chunks and after(walker, chunks[-1].jump) < stop:
        found = _ifexp_test(walker, chunks, after(walker, chunks[-1].jump), stack, stop)
        if found is None:
            return None
        chunks, k = found
        chunks += gather_chunks(walker, k, stop, stack)
    if not chunks or after(walker, chunks[-1].jump) != stop:
        return None
    return chunks


def do_while_true(walker, head, last_back, stack, out, ctx):
    exit_ = last_back + 1
    tested = _while_without_bottom_test(walker, head, exit_, stack, out, ctx)
    if tested is not None:
        return tested
    break_target = _break_target(walker, head, exit_, exit_)
    loop = Loop(head, (head,), break_target, last_back, "while", body_start=head)
    if break_target == exit_:
        loop.inlined_after = clause_breaks.copied_exit(walker, head, exit_)
    body_end = _tail_after_back_edge(walker, head, last_back, break_target)
    body = None
    if body_end != exit_:
        # the last test reads as `if c: break`, its statements after it: they are its own
        state = walker.fork()
        body, _ = walker.walk(head, body_end, list(stack), ctx.but(loop=loop))
        if not _break_where_it_falls(body, True):
            walker.restore(state)
            body = None
    if body is None:
        body, _ = walker.walk(head, exit_, list(stack), ctx.but(loop=loop))
    out.append(ast.While(test=const(True), body=body or [ast.Pass()], orelse=[]))
    if loop.inlined_after is not None and _breaks_out(body):
        # the code after the loop, left only in the copies its breaks were read from
        start, length = loop.inlined_after
        walker.walk(start, start + length, list(stack), ctx, out=out)
    if break_target > exit_ and break_target <= walker.range_end:
        return break_target
    return exit_


def _tail_after_back_edge(walker, head, last_back, break_target):
    """Where the body of the endless loop [head, last_back] ends: past its last back edge
    when that is conditional (the body ends with ``if c: statements``, the test jumping back
    when false) and the statements, which leave (a raise, a return), fall out of it, up to
    where the breaks go (3.14 lays the body of the last if there); the back edge's end
    otherwise."""
    instrs = walker.instrs
    exit_ = last_back + 1
    if instrs[last_back].op not in POP_JUMPS or break_target <= exit_ or \
            break_target > walker.range_end or instrs[break_target - 1].op not in _LEAVING:
        return exit_
    if any(ins.target is not None and exit_ <= ins.target < break_target and
           not head <= ins.index < break_target for ins in instrs):
        return exit_  # (reached from elsewhere: not the loop's own)
    return break_target


def _breaks_out(body):
    """Whether a ``break`` of the loop whose body is ``body`` is in it (not one of a nested
    loop, nor one in a nested scope)."""
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break):
            return True
        if not isinstance(node, _NESTED_LOOPS_AND_SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return False


_NESTED_LOOPS_AND_SCOPES = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                            ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LEAVING = frozenset(["RETURN_VALUE", "RAISE_VARARGS", "RERAISE"])
_LEAVING_STATEMENTS = (ast.Return, ast.Raise)


def _break_where_it_falls(body, tested_last):
    """End a loop body read up to a copy of the loop's exit with the ``break`` that falls into
    it. When the body's last test jumped back (``tested_last``), the statements before the
    copy are that ``if``'s own; otherwise they end the body. False when the shape is not
    one of those two."""
    if tested_last:
        last = body[-1] if body else None
        if isinstance(last, ast.If) and not last.orelse and last.body and \
                not isinstance(last.body[-1], ast.Break):
            if not isinstance(last.body[-1], _LEAVING_STATEMENTS):
                last.body.append(ast.Break())  # `if test: statements` (test of several jumps)
            return True
        # or the walk read the test that jumps back as `if test: break`, and the statements
        # after it as the body's: they are that if's, before its break
        for k in range(len(body) - 1, -1, -1):
            stmt = body[k]
            if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and \
                    isinstance(stmt.body[0], ast.Break):
                if k + 1 == len(body):
                    return False
                stmt.body[:0] = body[k + 1:]
                del body[k + 1:]
                if isinstance(stmt.body[-2], _LEAVING_STATEMENTS):
                    stmt.body.pop()  # (`if test: x; raise E`: no break after it)
                return True
        return False
    if not body or isinstance(body[-1], (ast.Break, ast.Continue, ast.Return, ast.Raise)):
        return False
    body.append(ast.Break())
    return True
