"""Conditions, ``if``/``else``, conditional expressions, ``and``/``or`` and loops.

A *chunk* is an expression followed by a conditional jump.  CPython compiles a boolean condition
to a run of chunks whose jumps go to one of two labels (true / false) or to the start of a later
chunk; ``and``/``or`` trees are recovered by splitting the run where every jump of the left part
goes to the right part's start or to the label the operator short-circuits to.  The same parse
serves ``if`` statements, ``while`` tests, conditional expressions and value-context ``and``/``or``
(``JUMP_IF_*_OR_POP``, where the short-circuit keeps the value).
"""

import ast

from .expressions import (ITER_SLOTS, FunctionValue, IterMarker, LoopItem, PrevExc, StackMachine,
                          UnpackBuilder, UnpackSlot, const, name)
from .cfg import NO_FALLTHROUGH
from .instructions import KEEP_JUMPS, NONE_JUMPS, POP_JUMPS, raw_instructions, raw_lines
from .profile import PROFILE
from .statements import Chunk, ChunkEnd, Loop, NotAChunk, _NoStatements
from .errors import DecompilationError
from . import legacy_structure
from .legacy_structure import else_jump_after
from .registry import ENTRY

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
    return ast.UnaryOp(op=ast.Not(), operand=expr)


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
    if all(isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not) for v in values) and any(
            isinstance(v.operand, ast.Compare) and len(v.operand.ops) == 1 and
            isinstance(v.operand.ops[0], _FOLDED) for v in values):
        inner = ast.And if isinstance(node.op, ast.Or) else ast.Or
        return ast.UnaryOp(op=ast.Not(),
                           operand=ast.BoolOp(op=inner(), values=[v.operand for v in values]))
    return node


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


class BranchMixin(object):
    """Handlers for conditional jumps and loops (mixed into the walker)."""

    # -- reading chunks --------------------------------------------------------------------
    _sibling_targets = frozenset()
    _operand_end = -1  # reading an operand of a value and/or that joins here (see below)
    _chunk_depth = 1 << 30  # the stack's depth when the chunk being read ends

    def read_chunk(self, k, stack, limit, siblings=(), operand=False):
        """The chunk starting at ``k``, or None if the code there is not one.  ``siblings``
        are the targets of the chunks read so far: a jump to one of them ends this chunk
        (it is the next test of the same condition, not a conditional expression inside).
        ``operand``: the chunk is an operand of a value ``and``/``or`` joining at ``limit``,
        so an ``and``/``or`` that joins before ``limit`` lies inside the operand."""
        if k >= limit or k >= self.n:
            return None
        trial = list(stack)
        saved = self._sibling_targets, self._operand_end, self._chunk_depth
        self._sibling_targets = frozenset(c.jump.target for c in siblings)
        self._operand_end = limit if operand else -1
        self._chunk_depth = len(stack) + 1
        state = self.fork()
        try:
            _, stop = self.walk(k, limit, trial, self.ctx, out=_NoStatements(), chunk_mode=True)
        except ChunkEnd as end:
            if len(trial) == len(stack) + 1 and all(a is b for a, b in zip(trial, stack)):
                return Chunk(k, trial[-1], end.ins)
        except (NotAChunk, DecompilationError):
            pass
        finally:
            self._sibling_targets, self._operand_end, self._chunk_depth = saved
        self.restore(state)
        return None

    def read_value(self, k, limit, stack):
        """Evaluate [k, limit) as one expression pushed on ``stack``; None if it is not one."""
        trial = list(stack)
        state = self.fork()
        try:
            _, stop = self.walk(k, limit, trial, self.ctx, out=_NoStatements())
        except (NotAChunk, ChunkEnd, DecompilationError):
            stop = None
        if stop != limit or len(trial) != len(stack) + 1 or any(a is not b for a, b in zip(trial, stack)):
            self.restore(state)
            return None
        return trial[-1]

    # -- parsing boolean trees -------------------------------------------------------------
    def label(self, index):
        """Jump targets that are copies of one exit block count as one label (the compiler
        duplicates small exit blocks, such as the implicit ``return None``, into each
        predecessor)."""
        return self.exits.label(index)


    def parse_cond(self, chunks, true, false, fall):
        """Boolean expression for chunks whose jumps go to ``true``/``false`` labels."""
        label = self.label
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
                return negate(jump_test(c))
            if t == true and fall == false:
                return jump_test(c)
            return None
        for s in range(len(chunks) - 1, 0, -1):
            left, right = chunks[:s], chunks[s:]
            ys = right[0].start
            inner = set(c.start for c in left[1:])
            targets = set(label(c.jump.target) for c in left)
            if targets <= ({ys, false} | inner):
                lhs = self.parse_cond(left, ys, false, ys)
                if lhs is not None:
                    rhs = self.parse_cond(right, true, false, fall)
                    if rhs is not None:
                        return _unfolded(boolop(ast.And, lhs, rhs))
            if targets <= ({true, ys} | inner):
                lhs = self.parse_cond(left, true, ys, ys)
                if lhs is not None:
                    rhs = self.parse_cond(right, true, false, fall)
                    if rhs is not None:
                        return _unfolded(boolop(ast.Or, lhs, rhs))
        return None

    def parse_value(self, chunks, join):
        """Value-context ``and``/``or``: the last chunk has no jump and falls into ``join``."""
        if len(chunks) == 1:
            return chunks[0].expr if chunks[0].jump is None else None
        for s in range(len(chunks) - 1, 0, -1):
            left, right = chunks[:s], chunks[s:]
            ys = right[0].start
            inner = set(c.start for c in left[1:])
            targets = set(c.jump.target for c in left)
            rhs = None
            if targets <= ({ys, join} | inner) and self._keeps(left, join, False):
                lhs = self.parse_cond(left, ys, join, ys)
                if lhs is not None:
                    rhs = self.parse_value(right, join)
                    if rhs is not None:
                        return boolop(ast.And, lhs, rhs)
            if targets <= ({join, ys} | inner) and self._keeps(left, join, True):
                lhs = self.parse_cond(left, join, ys, ys)
                if lhs is not None:
                    rhs = rhs or self.parse_value(right, join)
                    if rhs is not None:
                        return boolop(ast.Or, lhs, rhs)
        return None

    @staticmethod
    def _keeps(chunks, join, polarity):
        for c in chunks:
            if c.jump.target == join:
                if c.jump.op not in KEEP_JUMPS or KEEP_JUMPS[c.jump.op] is not polarity:
                    return False
        return True

    def after(self, jump):
        """Where a conditional jump falls through to (a chained comparison moves it)."""
        return self.fallthrough.get(jump.index, jump.index + 1)

    # -- chained comparisons ---------------------------------------------------------------
    _COMPARES = ("COMPARE_OP", "IS_OP", "CONTAINS_OP")

    def op_SWAP(self, ins, stack, out):
        i = ins.index
        instrs = self.instrs
        if ins.argval == 2 and i + 3 < self.n and instrs[i + 1].op == "COPY" and \
                instrs[i + 1].argval == 2 and instrs[i + 2].op in self._COMPARES and \
                instrs[i + 3].op in ("JUMP_IF_FALSE_OR_POP", "POP_JUMP_IF_FALSE"):
            return self.chain_compare(ins, stack, out)
        if ins.argval in (2, 3) and self._swap_is_unpack(ins, stack):
            return self._tuple_assignment(ins, stack)
        return BranchMixin._generic_swap(self, ins, stack, out)

    def _swap_is_unpack(self, ins, stack):
        """``a, b = x, y``: the compiler turns BUILD_TUPLE n; UNPACK_SEQUENCE n into SWAP n."""
        n = ins.argval
        if len(stack) < n or any(not isinstance(v, ast.expr) for v in stack[-n:]):
            return False
        k = ins.index + 1
        if k >= self.n or self.instrs[k].op in ("STORE_ATTR", "STORE_SUBSCR"):
            return False
        return self.targets_follow(k, n)

    def _tuple_assignment(self, ins, stack):
        n = ins.argval
        values = stack[-n:]
        del stack[-n:]
        builder = UnpackBuilder(ast.Tuple(elts=values, ctx=ast.Load()), n)
        for k in reversed(range(n)):
            stack.append(UnpackSlot(builder, k))

    def _generic_swap(self, ins, stack, out):
        StackMachine.op_SWAP(self, ins, stack, out)

    def _link_at(self, k, cleanup):
        instrs = self.instrs
        return (k + 3 < self.n and instrs[k].op == "SWAP" and instrs[k].argval == 2 and
                instrs[k + 1].op == "COPY" and instrs[k + 1].argval == 2 and
                instrs[k + 2].op in self._COMPARES and
                cleanup in (instrs[k + 3].target, instrs[k + 3].original_target))

    def chain_compare(self, ins, stack, out):
        """``a < b < c``: SWAP 2; COPY 2; COMPARE; JUMP cleanup per link, one final COMPARE."""
        instrs = self.instrs
        link = instrs[ins.index + 3]
        cleanup = link.target if link.original_target is None else link.original_target
        after_cleanup = None
        if PROFILE.jumps_to_return_inlined and cleanup + 1 < self.n and \
                instrs[cleanup].op == "SWAP" and instrs[cleanup + 1].op == "POP_TOP" and \
                self._inlined_chain_exit(ins.index, cleanup) is not None:
            # 3.8-3.10: the jump past the cleanup went to a small exit block (`return a < b <
            # c`), which the compiler copied in its place: the cleanup falls into the original
            final, value_context = self._inlined_chain_exit(ins.index, cleanup), True
            after_cleanup = cleanup + 2
        elif cleanup >= 2 and instrs[cleanup].op == "SWAP" and instrs[cleanup - 1].op == "JUMP":
            final, value_context = cleanup - 2, True
        elif cleanup >= 3 and instrs[cleanup].op == "POP_TOP" and instrs[cleanup - 1].op == "JUMP" \
                and instrs[cleanup - 2].op in POP_JUMPS:
            final, value_context = cleanup - 3, False
        elif cleanup < self.n and instrs[cleanup].op == "POP_TOP" and \
                self._copied_cleanup(ins.index, cleanup) is not None:
            # 3.12+: the cleanup pops and continues with a copy of the code the final test
            # falls into (an assert's raise, say): skip the copy, fall through as usual
            final, length = self._copied_cleanup(ins.index, cleanup)
            self.cleanup_starts[cleanup] = cleanup + 1 + length
            value_context = None
        elif self._cleanup_before_false_branch(ins.index, cleanup) is not None:
            # 3.12+: the if body does not fall through (`if a < b < c: return`), so no jump
            # leads over the cleanup, which pops and goes on with the false branch
            final = self._cleanup_before_false_branch(ins.index, cleanup)
            self.cleanup_starts[cleanup] = cleanup + 1
            value_context = None
        elif self._copied_value_cleanup(cleanup) is not None:
            # 3.12+: a value chain followed by a small exit block (`return a < b < c`): the
            # block is copied after the final comparison and after the cleanup's SWAP; POP_TOP
            final, length = self._copied_value_cleanup(cleanup)
            if cleanup + 2 == self.range_end:
                # the last operand of an and/or whose join is that exit block (`return a or
                # b < c < d`): the value ends at the join, after the cleanup
                value_context, after_cleanup = True, cleanup + 2
            else:
                self.cleanup_starts[cleanup] = cleanup + 2 + length
                value_context = None
        else:
            self.fail("unrecognised chained comparison", ins)
        if instrs[final].op not in self._COMPARES:
            self.fail("unrecognised chained comparison", ins)
        mid = self.pop(stack, ins)
        left = self.pop(stack, ins)
        ops, comparators = [], []
        k = ins.index
        while True:
            cmp_stack = [left, mid]
            self.walk(k + 2, k + 3, cmp_stack, self.ctx)
            ops.extend(cmp_stack[-1].ops)
            comparators.append(mid)
            start = k + 4
            nxt = start
            while nxt < final and not self._link_at(nxt, cleanup):
                nxt += 1
            operand = self.read_value(start, nxt, stack)
            if operand is None:
                self.fail("unrecognised chained comparison operand", instrs[start])
            mid = operand
            if nxt >= final:
                break
            k = nxt
        last_stack = [left, mid]
        self.walk(final, final + 1, last_stack, self.ctx)
        ops.extend(last_stack[-1].ops)
        comparators.append(mid)
        stack.append(ast.Compare(left=left, ops=ops, comparators=comparators))
        if value_context:
            return after_cleanup if after_cleanup is not None else instrs[cleanup - 1].target
        jump = instrs[final + 1]
        if value_context is False:
            self.fallthrough[jump.index] = instrs[cleanup - 1].target
        return jump.index

    def _cleanup_before_false_branch(self, start, cleanup):
        """The final comparison of a chain tested by a jump whose target is just after the
        cleanup (``POP_TOP`` at ``cleanup``), with nothing that falls into the cleanup from
        before it; None otherwise. In a loop the false branch may be the jump back to the
        loop head that the cleanup goes on with (``for ...: if a < b < c: return``): the final
        test jumps there itself (the compiler threads its jump to that jump)."""
        instrs = self.instrs
        if cleanup + 1 >= self.n or instrs[cleanup].op != "POP_TOP" or \
                instrs[cleanup - 1].op not in _NO_FALL_THROUGH:
            return None
        after = instrs[cleanup + 1]
        false_branch = [cleanup + 1]
        if after.op == "JUMP" and after.target < cleanup:
            false_branch.append(after.target)
            if cleanup + 2 < self.n and instrs[cleanup + 2].op == "JUMP" and \
                    instrs[cleanup + 2].target == after.target:
                false_branch.append(cleanup + 2)  # (3.8-3.10: the same jump once more)
        final = None
        for j in range(start + 4, cleanup):
            jump = instrs[j]
            if self._link_at(j - 3, cleanup):
                final = None  # a later link: the final comparison comes after it
            elif final is None and jump.op in POP_JUMPS and \
                    (jump.target in false_branch or jump.original_target in false_branch) and \
                    instrs[j - 1].op in self._COMPARES:
                final = j - 1
        return final

    def _copied_value_cleanup(self, cleanup):
        """(final comparison, copy length) of a value chain whose cleanup (``SWAP 2; POP_TOP``
        at ``cleanup``) goes on with a copy of the exit block after the final comparison
        (inlined into both, 3.12+); None otherwise."""
        instrs = self.instrs
        if cleanup + 2 >= self.n or instrs[cleanup].op != "SWAP" or \
                instrs[cleanup].argval != 2 or instrs[cleanup + 1].op != "POP_TOP":
            return None
        for length in range(1, 9):
            final = cleanup - length - 1
            if final < 0 or cleanup + 2 + length > self.n:
                return None
            if instrs[cleanup - 1].op in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE") and \
                    instrs[final].op in self._COMPARES and \
                    self._same_code(final + 1, cleanup + 2, length):
                return final, length
        return None

    def _inlined_chain_exit(self, start, cleanup):
        """The final comparison of a chain (3.8-3.10) whose code after that comparison, up to the
        cleanup (``SWAP; POP_TOP`` at ``cleanup``), is a copy of the exit block after the
        cleanup; None otherwise."""
        instrs = self.instrs
        last = instrs[cleanup - 1]
        # the copy ends as the exit does, or (instructions.py read its tail as a copy too,
        # legacy_blocks.inlined_exits) with the jump to the rest of the original
        if last.op not in ("RETURN_VALUE", "RAISE_VARARGS", "JUMP"):
            return None
        for j in range(cleanup - 2, start + 3, -1):
            if instrs[j].op in self._COMPARES:
                length = cleanup - j - 1
                if last.op == "JUMP":
                    length -= 1
                    if last.target != cleanup + 2 + length:
                        return None
                if 0 < length <= 4 and cleanup + 2 + length <= self.n and \
                        self._same_code(j + 1, cleanup + 2, length):
                    return j
                return None
        return None

    def _copied_cleanup(self, start, cleanup):
        """(final comparison, copy length) of a chain whose cleanup (``POP_TOP`` at
        ``cleanup``) goes on with a copy of the code after the final test, on either of its
        sides; None otherwise."""
        instrs = self.instrs
        for j in range(cleanup - 1, start + 3, -1):
            if instrs[j].op in POP_JUMPS and instrs[j - 1].op in self._COMPARES:
                length = cleanup - j - 1
                if length > 0 and self._same_code(j + 1, cleanup + 1, length):
                    return j - 1, length
                other = instrs[j].original_target or instrs[j].target
                length = 1
                while cleanup + length < self.n and length < 12 and instrs[
                        cleanup + length].op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
                    length += 1
                if other < self.n and other != cleanup + 1 and \
                        self._same_code(cleanup + 1, other, length):
                    return j - 1, length
                return None
        return None

    # -- the conditional-jump handler ------------------------------------------------------
    def conditional(self, ins, stack, out):
        if self.chunk_mode:
            if ins.op in KEEP_JUMPS and ins.index < ins.target < self.n and (
                    self.instrs[ins.target].op in _TESTS or len(stack) > self._chunk_depth or
                    ins.target < self._operand_end and ins.target not in self._sibling_targets):
                # a value `and`/`or` whose result another test takes, one that is an operand
                # of an operation still waiting on the stack (`f(a or b)`: a chunk ends with
                # one new value), or one inside an operand of a value `and`/`or` (`c or -(a or
                # b)`: it joins before the operand ends, where an operation takes its value):
                # part of this chunk
                self.chunk_mode = False
                try:
                    return self.conditional(ins, stack, out)
                finally:
                    self.chunk_mode = True
            if ins.target not in self._sibling_targets:
                nxt = self.try_ifexp(ins, stack)
                if nxt is not None:
                    return nxt
            raise ChunkEnd(ins)
        first = self.pop(stack, ins)
        if isinstance(first, FunctionValue):  # `(lambda: 0) or v`
            first = ENTRY.lambda_expr(self, first, ins)
        first = Chunk(None, first, ins)
        chunks = [first]
        limit = self.range_end
        k = self.after(ins)
        region = self._region(ins.index - 1) if ins.index else None
        join = ins.target if ins.op in KEEP_JUMPS else None
        while True:
            if join is not None:
                # value context: the rest up to the join is either more chunks or the last value
                c = self.read_chunk(k, stack, join, chunks, operand=True)
                if c is not None:
                    if c.jump.op in KEEP_JUMPS and c.jump.target != join:
                        break
                    chunks.append(c)
                    k = self.after(c.jump)
                    continue
                v = self.read_value(k, join, stack)
                if v is None:
                    # the tests read last (plain jumps, no and/or) may begin the last operand
                    at = len(chunks)
                    while at > 1 and chunks[at - 1].jump.op not in KEEP_JUMPS:
                        at -= 1
                    if at < len(chunks):
                        v = self._returned_ifexp(chunks[at].start, join, stack)
                        if v is not None:
                            k = chunks[at].start
                            del chunks[at:]
                if v is None:
                    break
                # `v or (lambda: 0)`: a function made as the last operand is a lambda there
                chunks.append(Chunk(k, self.value(v, ins), None))
                expr = self.parse_value(chunks, join)
                if expr is None:
                    self.fail("unrecognised and/or expression", ins)
                stack.append(expr)
                return join
            if k in self.while_loops or (PROFILE.while_tested_at_top_only_again and
                                         k in self.back_jumps):
                # `if a: while b: ...` with nothing after the loop: the while's top test jumps
                # where the if's does, so it reads like `if a and b:`; a loop head starts the
                # body instead (3.14+: any loop head, a while is tested at the top only)
                break
            if k < self.n and self._region(k) != region:
                break  # a test inside a try that starts here is its body's (3.13: no NOP)
            c = self.read_chunk(k, stack, limit, chunks)
            if c is None:
                found = self._ifexp_test(chunks, k, stack, limit)
                if found is None:
                    break
                chunks, k = found
                continue
            if c.jump.op in KEEP_JUMPS:
                # an and/or value only continues this condition if every jump so far stays
                # inside it (`(a or b) and c`); otherwise it starts the body (also after a
                # test that jumps back to the loop head: 3.12+ `if a: x = (b and c) | d`
                # ending a loop body)
                if any(ch.jump.target >= c.jump.target or ch.jump.target < ins.index
                       for ch in chunks):
                    break
                join = c.jump.target
            chunks.append(c)
            k = self.after(c.jump)
        if join is not None:
            self.fail("unrecognised and/or expression", ins)
        for n in range(len(chunks), 0, -1):
            last = chunks[n - 1].jump
            true, false = self.after(last), last.target
            expr = self.parse_cond(chunks[:n], true, false, true)
            if expr is not None:
                return self.if_statement(expr, true, false, stack, out, ins)
        self.fail("unrecognised condition", ins)

    def _region(self, k):
        """The handler protecting instruction ``k`` (None outside any): the tests of one
        condition all lie in one."""
        entry = self.handler_at[k]
        return None if entry is None else entry.target

    def _returned_ifexp(self, k, join, stack):
        """The last operand [k, join) of an and/or that the chunk reader does not take: a
        conditional expression whose test has several parts (``a or (x if c and d else y)``),
        or, returned, one whose first branch returns (``return a or (x if c else y)``: the
        compiler copies the return into it, so it reads as ``if c: return x``, then ``y``,
        up to the RETURN_VALUE at ``join`` that the other operands share). The value, or
        None."""
        if join >= self.n:
            return None
        state = self.fork()
        value = self._returned_ifexp_value(k, join, stack)
        if value is None:
            self.restore(state)
        return value

    def _returned_ifexp_value(self, k, join, stack):
        trial = list(stack)
        try:
            stmts, stop = self.walk(k, join, trial, self.ctx)
        except DecompilationError:
            return None
        if stop != join or len(trial) != len(stack) + 1 or \
                any(a is not b for a, b in zip(trial, stack)):
            return None
        if stmts and not self._returns_at(join, stack):
            return None
        value = self.value(trial[-1], self.instrs[join])
        for stmt in reversed(stmts):
            if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and
                    isinstance(stmt.body[0], ast.Return) and stmt.body[0].value is not None):
                return None
            value = ast.IfExp(test=stmt.test, body=stmt.body[0].value, orelse=value)
        return value

    def _returns_at(self, k, stack):
        """Whether the code at ``k`` returns the value on top: RETURN_VALUE, after popping
        the iterators of enclosing loops (the only values below it)."""
        if any(isinstance(v, ast.expr) for v in stack):
            return False
        while k < self.n and self.instrs[k].op in ("SWAP", "ROT_TWO", "POP_TOP"):
            k += 1
        return k < self.n and self.instrs[k].op == "RETURN_VALUE"

    def _ifexp_test(self, chunks, k, stack, limit):
        """A conditional expression tested in a condition (``if (a if b else c) and d:``).

        The compiler branches instead of computing the value: the test's chunks jump to the
        else part when false; the body's chunks and the else part's chunks both jump to one
        label L (the condition is false) or go on at J, and the body ends with ``JUMP J``.
        Returns the chunks with the conditional expression as one chunk (its jump: to L when
        false, falling through at J) and where reading goes on, or None."""
        instrs = self.instrs
        if k >= self.n or instrs[k].op != "JUMP" or instrs[k].target <= k + 1:
            return None
        join = instrs[k].target
        if join > limit:
            return None
        label = self.label
        for first in range(len(chunks) - 1):
            if not any(label(c.jump.target) == label(k + 1) for c in chunks[first:]):
                continue
            for split in range(first + 1, len(chunks)):
                body_start = chunks[split].start
                test = self.parse_cond(chunks[first:split], body_start, k + 1, body_start)
                if test is None:
                    continue
                false = chunks[-1].jump.target
                body = self.parse_cond(chunks[split:], k, false, k)
                if body is None:
                    continue
                orelse_chunks = []
                at = k + 1
                while at < join:
                    c = self.read_chunk(at, stack, join, orelse_chunks)
                    if c is None:
                        break
                    orelse_chunks.append(c)
                    at = self.after(c.jump)
                if at != join or not orelse_chunks:
                    return None
                orelse = self.parse_cond(orelse_chunks, join, false, join)
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

    def try_ifexp(self, ins, stack):
        """In chunk mode: a conditional expression nested inside the chunk being read."""
        false = ins.target
        if false is None or false <= ins.index + 1 or false > self.n:
            return None
        jump = self.instrs[false - 1]
        if jump.op != "JUMP" or jump.target <= false:
            return None
        if any(ins.index < t < jump.target for t in self._sibling_targets):
            # an earlier test of the same condition jumps into the branches: they belong to
            # the whole condition (`1 if a or c else 2`), not to a conditional inside it
            return None
        trial = list(stack)
        test = trial.pop()
        saved = self.chunk_mode
        try:
            self.chunk_mode = False
            body = self.read_value(ins.index + 1, false - 1, trial)
            orelse = self.read_value(false, jump.target, trial) if body is not None else None
        finally:
            self.chunk_mode = saved
        if body is None or orelse is None:
            return None
        stack.pop()
        stack.append(ast.IfExp(test=negate(jump_test(Chunk(None, test, ins))), body=body, orelse=orelse))
        return jump.target

    def if_statement(self, test, true, false, stack, out, ins):
        ctx = self.ctx
        loop = ctx.loop
        end = self.range_end
        if false < true:
            # a jump back to the loop head: `if not test: continue`
            if loop is not None and false in loop.continue_targets:
                if true - 1 == loop.last and loop.kind in ("while", "while-top"):
                    # the back edge itself is conditional: falling through leaves the loop
                    # (the last of the test's jumps: `if a or b: break`)
                    out.append(ast.If(test=test, body=[ast.Break()], orelse=[]))
                    return true
                if PROFILE.expanded_backward_jumps and true < end and (
                        (self._ends_loop_body() and (
                            _negation_folds(test) or self._threaded_back(true - 1) or
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
                    body, _ = self.walk(true, end, list(stack), ctx)
                    if body and isinstance(body[-1], ast.Continue) and end - 1 == loop.last:
                        body.pop()  # the loop's own back edge
                    node = ast.If(test=test, body=body or [ast.Pass()], orelse=[])
                    node.ends_at_head = True  # (falling off it goes back to the loop head)
                    out.append(node)
                    return end
                nxt = self.instrs[true] if true < self.n else None
                if PROFILE.expanded_backward_jumps and nxt is not None and nxt.op == "JUMP" and \
                        nxt.target in loop.continue_targets and true + 1 == loop.last:
                    # `if test: continue` last in the loop body, whose end was threaded to
                    # the loop head too: both ways continue, and the test keeps its sense
                    out.append(ast.If(test=test, body=[ast.Continue()], orelse=[]))
                    return true + 1
                node = ast.If(test=negate(test), body=[ast.Continue()], orelse=[])
                # (the jump back kept the test's line: loop_exits.py may read `if test: rest`)
                if _plain_and(test):  # (see above: `or`s may be several threaded ifs)
                    node._threaded_test = test
                out.append(node)
                return true
            self.fail("backward conditional jump outside a loop", ins)
        if loop is not None and false == loop.break_target and false >= end:
            if PROFILE.while_tested_at_top_only_again and true < end == loop.last + 1 and \
                    self._break_line_at(false):
                # 3.14: `if test: rest-of-body else: break`, the break a NOP on its own
                # line where the loop's exit starts (a written `if not test: break` puts
                # its break right after the test)
                body, _ = self.walk(true, end, list(stack), ctx)
                if body and isinstance(body[-1], ast.Continue):
                    body.pop()  # the loop's own back edge
                out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=[ast.Break()]))
                return end
            out.append(ast.If(test=negate(test), body=[ast.Break()], orelse=[]))
            return true
        if any(isinstance(v, ast.expr) for v in stack):
            tail = self._ifexp_with_copied_tail(test, true, false, stack)
            if tail is not None:
                return tail
        if self._threaded_if_over_back_edge(test, true, false, ins):
            # `if test: rest-of-body` whose end was threaded to the loop head, over the
            # loop's last back edge: `if not test: continue` would fold `not (a in b)`
            body, _ = self.walk(false, end, list(stack), ctx)
            if body and isinstance(body[-1], ast.Continue) and end - 1 == loop.last:
                body.pop()  # the loop's own back edge
            node = ast.If(test=negate(test), body=body or [ast.Pass()], orelse=[])
            out.append(self._as_assert(node) or node)
            return end
        body_end = min(false, end)
        else_end = None
        if body_end > true:
            last = self.instrs[body_end - 1]
            if last.op == "JUMP" and last.target > body_end and not self._is_loop_jump(last) \
                    and body_end < end and self._join_copied_into_else(last.target, body_end,
                                                                       end):
                # 3.10: the code after the if (a short block that returns) was copied into
                # every branch that falls through, and the one left is the copy ending a
                # branch of the else (the else's last branch raises): this body ends with
                # its own copy, and the else runs to the end
                body_stack = list(stack)
                body, _ = self.walk(true, body_end - 1, body_stack, ctx)
                size = self._short_return_at(last.target)
                self.walk(last.target, last.target + size, body_stack, ctx, out=body)
                else_stack = list(stack)
                orelse, _ = self.walk(body_end, end, else_stack, ctx)
                out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
                return end
            if last.op == "JUMP" and last.target > body_end and not self._is_loop_jump(last) \
                    and body_end < end:
                else_end = min(last.target, end)
            elif last.op == "JUMP" and last.target in self.cold_joins and body_end < end and \
                    self.instrs[body_end - 2].op == "POP_EXCEPT":
                # 3.13 copies a clause's exit (POP_EXCEPT; JUMP back to the join after the
                # cold handler) into the body of an if that ends the clause: the rest of
                # the clause is the else
                else_end = end
            elif not PROFILE.expanded_backward_jumps and last.op == "JUMP" and \
                    self._is_loop_jump(last) \
                    and body_end < end and self._loop_body_stop(end) is not None \
                    and self._jumps_to_loop_end(true, body_end - 1, self._loop_body_stop(end)):
                # 3.10/3.11: the body ends in `continue`/`break` and branches inside it jump to
                # the loop's end: they fall off an if/elif chain that ends the loop body, so
                # what follows the body, up to the loop's end, is its else; read as separate
                # ifs, they would fall into the next test
                stop = self._loop_body_stop(end)
                body_stack = list(stack)
                body, _ = self.walk(true, body_end, body_stack, ctx)
                else_stack = list(stack)
                orelse, _ = self.walk(body_end, stop, else_stack, ctx)
                if len(body_stack) == len(stack) == len(else_stack):
                    out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
                    return stop
            elif body_end < end and self._exits_inside(true, body_end):
                # the body's own branches leave through copies of the final exit, so what
                # follows the body is not after the `if` but its `else`
                return self._if_else_to_end(test, true, body_end, end, stack, out, ins)
        if else_end is None and true < body_end < end and (
                PROFILE.threaded_jumps_past_else or
                self.instrs[body_end - 1].op in _NO_FALL_THROUGH):
            # (before 3.12 too when the body ends in raise/return: `if a: (if b: x else:
            # raise) elif c: ...`, whose inner branch jumps past the elif)
            join = self._jump_past(true, body_end, end)
            if join is not None:
                # 3.12+ threads the jump over the else into the body's last test
                # (`elif c: x = f(x); if x: continue` jumps straight past the else)
                body_stack = list(stack)
                saved = self.range_joins
                self.range_joins = dict(saved)
                self.range_joins[body_end] = join
                try:
                    body, _ = self.walk(true, body_end, body_stack, ctx)
                finally:
                    self.range_joins = saved
                else_stack = list(stack)
                orelse, _ = self.walk(body_end, join, else_stack, ctx)
                if len(body_stack) == len(stack) == len(else_stack):
                    out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
                    return join
        if else_end is not None:
            body_stack = list(stack)
            body, _ = self.walk(true, body_end - 1, body_stack, ctx)
            else_stack = list(stack)
            orelse, _ = self.walk(body_end, else_end, else_stack, ctx)
            if not body and not orelse and len(body_stack) == len(stack) + 1 == len(else_stack):
                stack.append(ast.IfExp(test=test, body=self.value(body_stack[-1], ins),
                                       orelse=self.value(else_stack[-1], ins)))
                return else_end
            if self._merge_stacks(stack, out, ins, [(body, body_stack), (orelse, else_stack)]):
                return self.if_statement(test, true, false, stack, out, ins)
            out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
            return else_end
        body_stack = list(stack)
        body, stop = self.walk(true, body_end, body_stack, ctx)
        orelse = []
        else_stack = list(stack)
        if stop > body_end and body_end < end:
            # the body fell through past the false target: what lies between is the else
            orelse, _ = self.walk(body_end, min(stop, end), else_stack, ctx)
            body_end = stop
        elif body_end < end and self._left_handler(stack, body_stack) and \
                not (body and isinstance(body[-1], self._TERMINAL_STATEMENTS)):
            # the body ends its except clause (POP_EXCEPT, then a copy of the code after the
            # try, skipped): the rest of the clause is the else
            orelse, _ = self.walk(body_end, end, else_stack, ctx)
            body_end = end
        elif body_end < end and body and getattr(body[-1], "ends_at_head", False):
            # the body ends with an if whose end was threaded to the loop head (3.12+), so
            # this if falls off there too: what follows, up to the end of the range, is its
            # else (`elif c: if d is not e: break` then `else: ...`)
            orelse, _ = self.walk(body_end, end, else_stack, ctx)
            if orelse and isinstance(orelse[-1], ast.Continue) and end - 1 == ctx.loop.last:
                orelse.pop()  # the loop's own back edge
            body_end = end
        if self._merge_stacks(stack, out, ins, [(body, body_stack), (orelse, else_stack)]):
            return self.if_statement(test, true, false, stack, out, ins)
        node = ast.If(test=test, body=body or [ast.Pass()], orelse=orelse)
        if PROFILE.keeps_dead_code and not orelse and true < body_end and \
                self.instrs[body_end - 1].op in _ELSE_JUMP_KEPT:
            # (read by legacy_structure.else_for_dead_return: an else was flattened after it)
            node.else_jump = else_jump_after(self.code, self.instrs[body_end - 1].offset)
        assertion = self._as_assert(node)
        out.append(assertion or node)
        return body_end

    def _join_copied_into_else(self, join, body_end, end):
        """Whether ``join``, where an if body jumps over its else, is a short block that
        returns, laid out inside the else (a test before it in [body_end, join) jumps past
        it), with the else's code running to the end of the range without falling out of it
        (3.10, inlined_exit_copies_310: the code after the if statement was copied into the
        branches, its original dropped)."""
        if not PROFILE.inlined_exit_copies_310 or join >= end or \
                self.instrs[end - 1].op not in _NO_FALL_THROUGH:
            return False
        size = self._short_return_at(join)
        if size is None or join + size >= end or self.instrs[join].line is None:
            return False
        return any(self.instrs[k].target is not None and self.instrs[k].target >= join + size
                   and self.instrs[k].op != "JUMP" for k in range(body_end, join))

    # end of a range -> where the code goes on after it, when that is not the range's
    # end: an if body whose way over the else is a jump from inside it (see op_FOR_ITER)
    range_joins = {}

    def _threaded_back(self, k):
        """Whether the (conditional) jump back at ``k`` is the compiler's (the threaded end of
        an if body), not a written ``continue``: inside a handler's range (a generator's body,
        a try) the compiler's jump has no location and is left out, a statement's is not."""
        handler = self.handler_at[k]
        if handler is None:
            return k > 0 and self.handler_at[k - 1] is not None
        # 3.12+ folded back (instructions._expanded_backward_jump): the test is protected,
        # the JUMP after it was not, which split the range right after the folded jump
        return handler.end == k + 1 and \
            any(e.start == k + 1 and e.target == handler.target for e in self.entries)

    def _ifexp_with_copied_tail(self, test, true, false, stack):
        """A conditional expression inside a returned expression (``return n + (4 if c else
        0)``, or a raised one): the compiler copies the rest of the statement into both
        branches, so each branch is the value, then the same tail ending in RETURN_VALUE
        (RAISE_VARARGS). Pushes the
        conditional expression and returns where the first copy of the tail starts (the
        second is skipped); None when the branches are not that."""
        instrs = self.instrs
        if false >= self.n or instrs[false - 1].op not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None
        exit_op = instrs[false - 1].op  # (`raise E(a if c else b)` is copied the same way)
        for length in range(min(8, false - true - 1), 0, -1):
            tail = false - length
            if any(ins.target is not None or ins.is_target for ins in instrs[tail:false]):
                continue
            stop = false + 1
            while stop <= min(self.n, self.range_end) and stop - false < 40 and \
                    not (instrs[stop - 1].op == exit_op and stop - length > false and
                         self._same_code(tail, stop - length, length)):
                stop += 1
            if stop > min(self.n, self.range_end) or stop - false >= 40:
                continue
            body = self.read_value(true, tail, stack)
            orelse = self.read_value(false, stop - length, stack) if body is not None else None
            if orelse is None:
                continue
            stack.append(ast.IfExp(test=test, body=self.value(body, instrs[true]),
                                   orelse=self.value(orelse, instrs[false])))
            self.cleanup_starts[false] = stop
            return tail
        return None

    def _ends_loop_body(self):
        """Whether the range being walked runs to the end of the loop body: the body itself,
        or an if body that ends it (falling off its end goes back to the loop head)."""
        loop = self.ctx.loop
        return self.range_start == loop.body_start or \
            (loop.body_end is not None and self.range_end == loop.body_end)

    def _threaded_if_over_back_edge(self, test, true, false, ins):
        """Whether the conditional ``ins`` only jumps over a jump to the loop head, the 3.12+
        expansion of a threaded backward jump that stays unfolded (a for loop's last back edge
        stays a ``JUMP``): ``if c: rest`` where ``rest`` runs to the end of the loop body.
        Read as ``if not c: continue`` it is the same bytecode, unless the compiler folds the
        ``not`` into the test (``not (a in b)`` is ``a not in b``). A written ``continue``
        starts a line of its own; the compiler's jump keeps the test's, and inside a
        handler's range (a generator's body, a try) it is left out of the range."""
        loop = self.ctx.loop
        if not PROFILE.expanded_backward_jumps or loop is None or true + 1 != false or \
                not self._ends_loop_body() or false >= self.range_end:
            return False
        jump = self.instrs[true]
        return jump.op == "JUMP" and jump.target in loop.continue_targets and \
            (jump.line is None or jump.line == ins.line) and \
            (_negation_folds(test) or
             (self.handler_at[true] is None and self.handler_at[false] is not None))

    def _jump_past(self, start, stop, end):
        """The one place past ``stop`` (up to ``end``) that jumps in [start, stop) go to,
        loop jumps aside: where an if body whose end jumps over an else continues."""
        loop = self.ctx.loop
        found = set()
        for k in range(start, stop):
            ins = self.instrs[k]
            t = ins.target
            if t is None or t <= stop or t > end or ins.op == "FOR_ITER":
                continue
            if loop is not None and (t in loop.continue_targets or t == loop.break_target):
                continue
            found.add(t)
        return found.pop() if len(found) == 1 else None

    def _loop_body_stop(self, end):
        """Where the enclosing loop's body ends if the range ending at ``end`` runs to it: its
        back edge (an unconditional jump to the head, left to the loop) or, for a loop tested
        at the bottom, ``end`` itself; else None."""
        loop = self.ctx.loop
        if loop is None:
            return None
        last = self.instrs[loop.last]
        if last.op == "JUMP" and last.target in loop.continue_targets:
            return loop.last if end in (loop.last, loop.last + 1) else None
        return end if end == loop.last + 1 else None

    def _jumps_to_loop_end(self, start, stop, loop_stop):
        """Whether a jump in [start, stop) goes to the loop's head or to its end."""
        ends = set(self.ctx.loop.continue_targets)
        ends.add(loop_stop)
        return any(self.instrs[k].target in ends and self.instrs[k].op != "FOR_ITER"
                   for k in range(start, stop))

    def _exits_inside(self, start, stop):
        n = self.n
        for k in range(start, stop):
            t = self.instrs[k].target
            if t is not None and t > n and self.instrs[k].op != "FOR_ITER":
                return True
        return False

    def _if_else_to_end(self, test, true, false, end, stack, out, ins):
        ctx = self.ctx
        body, _ = self.walk(true, false, list(stack), ctx)
        orelse, stop = self.walk(false, end, list(stack), ctx)
        out.append(ast.If(test=test, body=body or [ast.Pass()], orelse=orelse))
        return max(stop, end)

    @staticmethod
    def _as_assert(node):
        """``if not test: raise AssertionError(msg)`` whose name came from
        LOAD_ASSERTION_ERROR is an ``assert``."""
        if node.orelse or len(node.body) != 1:
            return None
        only = node.body[0]
        if isinstance(only, ast.Assert) and isinstance(only.test, ast.Constant) and \
                only.test.value is False:
            return ast.Assert(test=negate(node.test), msg=only.msg)
        if not isinstance(only, ast.Raise):
            return None
        exc = node.body[0].exc
        msg = None
        if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords:
            exc, msg = exc.func, exc.args[0]
        if not getattr(exc, "_assertion", False) or node.body[0].cause is not None:
            return None
        return ast.Assert(test=negate(node.test), msg=msg)

    _TERMINAL_STATEMENTS = (ast.Return, ast.Raise, ast.Break, ast.Continue)

    def _merge_stacks(self, stack, out, ins, branches):
        """Make the branches of an ``if`` agree on the stack they leave.

        People's code never leaves a value on the stack across an ``if`` statement; generated
        code does (a value pushed before the test, changed in one branch).  Then every stack
        value goes into a temporary before the ``if`` (returns True: walk the branches again)
        and each branch assigns the temporaries it changes at its end.
        """
        live = [(stmts, bs) for stmts, bs in branches
                if not (stmts and isinstance(stmts[-1], self._TERMINAL_STATEMENTS)) and
                not self._left_handler(stack, bs)]
        if not live:
            return False
        depth = len(live[0][1])
        if any(len(bs) != depth for _, bs in live) or depth < len(stack):
            self.fail("branches leave different stacks", ins)
        changed = [k for k in range(depth)
                   if k >= len(stack) or any(bs[k] is not stack[k] for _, bs in live)]
        if not changed:
            return False
        if any(not isinstance(stack[k], ast.expr) for k in changed if k < len(stack)) or \
                any(not isinstance(bs[k], ast.expr) for _, bs in live for k in changed):
            self.fail("branches change the interpreter's own stack values", ins)
        unspilled = [k for k in changed if k < len(stack) and not getattr(stack[k], "_temp", False)]
        if unspilled:
            for k in unspilled:
                temp = self.new_temp()
                out.append(ast.Assign(targets=[name(temp, ast.Store())], value=stack[k], lineno=0))
                ref = name(temp)
                ref._temp = True
                stack[k] = ref
            return True  # walk the branches again on the temporaries
        for k in range(len(stack), depth):
            ref = name(self.new_temp())
            ref._temp = True
            stack.append(ref)
        for stmts, bs in live:
            for k in changed:
                if bs[k] is not stack[k]:
                    stmts.append(ast.Assign(targets=[name(stack[k].id, ast.Store())],
                                            value=self.value(bs[k], ins), lineno=0))
        return False

    @staticmethod
    def _left_handler(stack, branch_stack):
        """Whether a branch popped the exception its except clause handles (POP_EXCEPT, then
        a jump to the code after the try): it left the clause, its stack goes no further.
        3.13 copies that exit into each branch of an if that ends a clause."""
        return len(branch_stack) < len(stack) and \
            any(isinstance(v, PrevExc) for v in stack[len(branch_stack):])

    def _check_balanced(self, before, after, ins):
        if len(after) > len(before):
            self.fail("branch leaves values on the stack", ins)

    _line_counts = None  # line -> how many instructions are on it (_shares_line)

    def _shares_line(self, k):
        """Whether instruction ``k``'s line holds other instructions too: a statement that
        is one instruction (``continue``) written on a line of its own does not."""
        counts = self._line_counts
        if counts is None:
            counts = self._line_counts = {}
            for line in self.lines:
                counts[line] = counts.get(line, 0) + 1
        return counts.get(self.lines[k], 0) > 1

    def _is_loop_jump(self, ins):
        loop = self.ctx.loop
        if loop is None:
            return False
        return ins.target in loop.continue_targets or ins.target == loop.break_target

    # -- unconditional jumps ---------------------------------------------------------------
    def op_JUMP(self, ins, stack, out):
        loop = self.ctx.loop
        t = ins.target
        if loop is not None:
            if t in loop.continue_targets:
                # the back edge that ends the body is no statement; any other jump to the
                # head (also one at the end of a nested block) is a `continue` (3.12/3.13:
                # also the back edge of a while with no bottom test, a body that never ends;
                # 3.14 has no bottom tests)
                if (ins.index != loop.last or self.range_start != loop.body_start or
                        (loop.kind == "while-top" and not PROFILE.while_tested_at_top_only_again)) \
                        and not self._falls_to_back_edge(ins, loop):
                    node = ast.Continue()
                    if self._shares_line(ins.index):
                        # no line of its own: the compiler's jump (the end of an if body or
                        # its test's, threaded to the loop head), not a written `continue`
                        # (loop_exits.py)
                        node._threaded = True
                    out.append(node)
                return None
            if t == loop.break_target:
                out.append(ast.Break())
                return None
        if t == ins.index + 1 or t == self.cleanup_starts.get(ins.index + 1):
            # (3.12+ may leave an inline comprehension's cleanup in place, jumped over)
            return None
        if t >= self.range_end or t in self.cold_joins:
            return None  # the end of the construct, or of a 3.12+ cold handler's clause
        self.fail("unstructured jump", ins)

    _lone_nops = None  # offsets of the raw instructions right after a NOP alone on its line

    def _break_line_at(self, k):
        """Whether a ``break`` that falls into the code after its loop comes right before
        instruction ``k``: a line-number NOP alone on its line (normalization drops it)."""
        if k >= self.n:
            return False
        found = self._lone_nops
        if found is None:
            found = self._lone_nops = set()
            raws = raw_instructions(self.code)
            lines = raw_lines(raws)
            for j in range(1, len(raws) - 1):
                if raws[j].opname == "NOP" and lines[j] is not None and \
                        lines[j - 1] != lines[j] != lines[j + 1]:
                    found.add(raws[j + 1].offset)
        return self.instrs[k].offset in found

    def _falls_to_back_edge(self, ins, loop):
        """Whether the jump to the loop head ``ins`` is a copy of the back edge right after
        it, where the code before it ends: the end of a try body last in the loop body (its
        if's other way round is the back edge, 3.13). A ``continue`` starts a line."""
        k = ins.index
        return k + 1 == loop.last == self.range_end - 1 and k > 0 and \
            self.instrs[k + 1].op == "JUMP" and self.instrs[k + 1].target == ins.target and \
            ins.line in (None, self.instrs[k - 1].line)

    # -- loops -----------------------------------------------------------------------------
    def _break_target(self, start, end, default):
        """Where ``break`` goes: the nearest forward jump out of [start, end), if any."""
        best = None
        for k in range(start, end):
            ins = self.instrs[k]
            if ins.op == "JUMP" and ins.target >= end and (best is None or ins.target < best):
                best = ins.target
        for ins in self._cold_handler_jumps(start, end):
            if best is None or ins.target < best:
                best = ins.target
        return best if best is not None else default

    def _cold_handler_jumps(self, start, end):
        """3.12+: the jumps out of the cold except handlers of try statements in [start, end)
        (laid out after everything) that go past ``end``: a ``break`` in an except clause."""
        if not PROFILE.cold_handlers:
            return
        instrs = self.instrs
        for e in self.entries:
            if not start <= e.start < end or e.target < end or e.target >= self.n or \
                    instrs[e.target].op != "PUSH_EXC_INFO" or \
                    self._handler_kind(e.target) != "except":
                continue  # (only except clauses: not an async for's END_ASYNC_FOR, a with exit)
            cleanup = self.handler_at[e.target]
            if cleanup is None:
                continue
            stop = min(cleanup.target + 3, self.n)
            for k in range(e.target, stop):
                ins = instrs[k]
                if ins.op == "JUMP" and ins.target is not None and ins.target >= end and \
                        not e.target <= ins.target < stop:
                    yield ins

    def _loop_body_end(self, head, last, exit_):
        """Where a for body ends: at its back edge, unless blocks after the back edge are
        reached from inside the loop (an ``else: break`` the compiler moved to the end)."""
        for k in range(head + 1, last + 1):
            t = self.instrs[k].target
            if t is not None and last < t < exit_:
                return exit_
        return last + 1

    def op_FOR_ITER(self, ins, stack, out):
        it = stack[-ITER_SLOTS] if len(stack) >= ITER_SLOTS else None
        if not isinstance(it, IterMarker):
            self.fail("FOR_ITER without an iterator", ins)
        head = ins.index
        exit_ = ins.target
        if exit_ < self.n and self.instrs[exit_].op == "END_FOR":
            exit_ += 1
        last = exit_ - 1
        while last > head and self.instrs[last].op != "JUMP":
            last -= 1
        if last == head:
            last = exit_ - 1  # no back edge in the body (3.12+: only a cold handler's)
        break_target = self._break_target(head + 1, exit_, exit_)
        # a for/else ending an if body: its break goes where the if's body goes on, past the
        # else (3.12+, plistlib.load); the loop's else runs to the end of the body
        joined = break_target > self.range_end and \
            self.range_joins.get(self.range_end) == break_target
        if break_target > self.range_end and break_target != exit_ and not joined:
            break_target = exit_
        loop = Loop(head, (head,), break_target, last, "for", iterator=it, exit=exit_,
                    body_start=head + 1)
        outer = self.ctx.loop
        threaded = break_target == exit_ and exit_ <= self.range_end and \
            self._breaks_threaded_to(outer, head, exit_)
        if threaded:
            loop.threaded_breaks = outer.continue_targets
        body_stack = list(stack)
        item = LoopItem()
        body_stack.append(item)
        ctx = self.ctx.but(loop=loop)
        # the body ends at the back edge; blocks between it and the exit belong to enclosing
        # constructs (returns the compiler duplicated into them)
        loop.body_end = self._loop_body_end(head, last, exit_)
        body, _ = self.walk(head + 1, loop.body_end, body_stack, ctx)
        target = getattr(item, "target", None)
        if target is None:
            self.fail("for loop without a target", ins)
        del stack[-ITER_SLOTS:]
        orelse = []
        nxt = exit_
        after = []
        if loop.inlined_after is not None and break_target == exit_:
            break_target, after = self._after_inlined_break(loop, exit_, stack)
            if after:
                nxt = break_target
        if break_target > exit_ and break_target <= self.range_end:
            orelse, _ = self.walk(exit_, break_target, list(stack), self.ctx)
            nxt = break_target
        elif joined:
            orelse, _ = self.walk(exit_, self.range_end, list(stack), self.ctx)
            nxt = self.range_end
        elif threaded and not self._ends_loop_body():
            pass  # (the jump back after the loop is what the breaks were threaded through)
        elif threaded:
            # the breaks go to the enclosing loop's head: what follows up to the end of its
            # body is this loop's else
            orelse, _ = self.walk(exit_, self.range_end, list(stack), self.ctx)
            if orelse and isinstance(orelse[-1], ast.Continue) and self.range_end - 1 == outer.last:
                orelse.pop()  # the enclosing loop's own back edge
            nxt = self.range_end
        if after and not (orelse and isinstance(orelse[-1], self._TERMINAL_STATEMENTS)):
            self.fail("loop exit falls into code only a break reaches", ins)
        out.append(ast.For(target=target, iter=it.iterable, body=body or [ast.Pass()], orelse=orelse,
                           type_comment=None))
        out.extend(after)
        return nxt

    def _breaks_threaded_to(self, outer, head, exit_):
        """Whether the for loop [head, exit_) ends the body of the loop ``outer`` and a
        ``break`` in it (the iterator popped, then a jump) goes straight to ``outer``'s head:
        3.12+ threads the jump to the end of the enclosing body there."""
        if outer is None or not PROFILE.expanded_backward_jumps:
            return False
        instrs = self.instrs
        if not self._ends_loop_body() and not (
                exit_ + 1 == self.range_end and instrs[exit_].op == "JUMP" and
                instrs[exit_].target in outer.continue_targets):
            return False  # (an if body whose end, after the loop, jumps back to the head)
        if any(instrs[k].op == "JUMP" and instrs[k].target in outer.continue_targets and
               instrs[k - 1].op == "POP_TOP" for k in range(head + 2, exit_)):
            return True
        if not PROFILE.cold_handlers:
            return False
        # a break in an except clause of a try in the loop: the clause is laid out after
        # everything, `POP_EXCEPT; POP_TOP (the iterator); JUMP outer head`
        cold = self.cold_code()
        for k in range(exit_ + 1, self.n):
            ins = instrs[k]
            if ins.op == "JUMP" and ins.target in outer.continue_targets and k in cold and \
                    all(instrs[k - j].op == "POP_TOP" for j in range(1, ITER_SLOTS + 1)) and \
                    instrs[k - ITER_SLOTS - 1].op == "POP_EXCEPT":
                entry = k - ITER_SLOTS - 1
                while entry > exit_ and instrs[entry].op != "PUSH_EXC_INFO":
                    entry -= 1
                if any(e.target == entry and head < e.start < exit_ for e in self.entries):
                    return True
        return False

    def _after_inlined_break(self, loop, exit_, stack):
        """(break target, statements after the loop) for a loop whose breaks are copies of
        the returning block after it (statements.op_POP_TOP): a later copy of that block is
        the break target (the else ends there); without one the compiler dropped the
        original, so the else runs to the end of the range and the copy is what follows."""
        start, length = loop.inlined_after
        for p in range(exit_, self.range_end - length + 1):
            if self._same_code(p, start, length):
                return p, []
        after, _ = self.walk(start, start + length, list(stack), self.ctx)
        return self.range_end, after

    def do_while(self, head, info, stack, out, ctx):
        body_start, bottom_jump, exit_, length = info
        bottom_start = bottom_jump - length + 1
        # the test, read as chunks over [head, body_start)
        chunks = self.read_chunks(head, body_start, stack)
        if chunks is None:
            return None
        test = self.parse_cond(chunks, body_start, exit_, body_start)
        if test is None and chunks and chunks[-1].jump.target != exit_ and \
                self._same_exit(chunks[-1].jump.target, exit_):
            # 3.12+ threads the top test's exit to where the jump after the loop goes, or
            # leaves through a copy of the re-raise after the loop (in a finally body)
            test = self.parse_cond(chunks, body_start, chunks[-1].jump.target, body_start)
        if test is None:
            return None
        break_target = self._break_target(body_start, exit_, exit_)
        loop = Loop(head, (head,), break_target, bottom_start - 1, "while", body_start=body_start)
        body, _ = self.walk(body_start, bottom_start, list(stack), ctx.but(loop=loop))
        orelse = []
        nxt = exit_
        if break_target > exit_ and break_target <= self.range_end:
            orelse, _ = self.walk(exit_, break_target, list(stack), ctx)
            nxt = break_target
        out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse))
        return nxt

    def _while_without_bottom_test(self, head, exit_, stack, out, ctx):
        """``while test:`` whose body never reaches the end (it returns, raises or continues):
        the test is only at the top and every back edge is a ``continue``."""
        chunks = self.gather_chunks(head, exit_, stack)
        if PROFILE.while_tested_at_top_only_again and chunks:
            found = self._while_leaving_by_jump(chunks, head, exit_, stack, out, ctx)
            if found is not None:
                return found
        for n in range(len(chunks), 0, -1):
            last = chunks[n - 1].jump
            body_start, false = self.after(last), last.target
            if false < exit_ and not (PROFILE.while_tested_at_top_only_again and false < head):
                # (3.14+: a test that jumps back leaves for an enclosing loop's head)
                continue
            test = self.parse_cond(chunks[:n], body_start, false, body_start)
            if test is None:
                continue
            if PROFILE.top_tested_while:
                return legacy_structure.top_tested_while(self, test, head, body_start, exit_,
                                                         stack, out, ctx)
            # no bottom test: the compiler adds one after a body that can end, so the
            # back edge must stay an explicit `continue`
            body_end = exit_
            if false <= self.n and any(
                    exit_ <= (self.instrs[k].target or -1) < false for k in range(body_start, exit_)):
                body_end = false  # blocks after the last `continue` that the body jumps to
            break_target, else_end, nxt = false, None, body_end
            tail = self.instrs[exit_ - 1]
            exit_copy = None
            tested_last = tail.op in POP_JUMPS and tail.target == head
            if PROFILE.while_tested_at_top_only_again and false <= self.range_end:
                exit_copy = self._break_into_exit_copy(exit_, false, tested_last)
            if exit_copy is not None:
                # 3.14: statements, then `break`, end the body after its back edges: the
                # break falls into a copy of the small exit the loop's test leaves to
                loop = Loop(head, (head,), false, exit_ - 1, "while-top", body_start=body_start)
                body, _ = self.walk(body_start, exit_copy, list(stack), ctx.but(loop=loop))
                if not _break_where_it_falls(body, tested_last):
                    return None
                out.append(ast.While(test=test, body=body, orelse=[]))
                return false
            if tail.op in POP_JUMPS and tail.target == head and body_end == exit_ < false:
                # 3.14: the body ends with `if c: break` (a conditional back edge); the break
                # falls to `exit_`: a jump over the loop's else, or the code after the loop
                # copied there (a short return)
                after = self.instrs[exit_]
                if exit_ + 1 == false and after.op == "JUMP" and after.target > false:
                    break_target = after.target
                    else_end = nxt = min(after.target, self.range_end)
                else:
                    copy = self._copied_after_loop(exit_, false)
                    if copy is not None:
                        else_end = nxt = copy
            loop = Loop(head, (head,), break_target, exit_ - 1, "while-top", body_start=body_start)
            body, _ = self.walk(body_start, body_end, list(stack), ctx.but(loop=loop))
            orelse = self.walk(false, else_end, list(stack), ctx)[0] if else_end else []
            out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse))
            return nxt
        return None

    def _while_leaving_by_jump(self, chunks, head, exit_, stack, out, ctx):
        """3.14+ ``while test:`` whose exit is a jump elsewhere (last in an enclosing loop's
        body: its head): the test jumps into the body when true and falls into that jump,
        ``test; POP_JUMP_IF_TRUE body; JUMP exit``. Where the walk goes on, or None."""
        k = self.after(chunks[-1].jump)
        if k + 1 >= exit_ or self.instrs[k].op != "JUMP":
            return None
        leave = self.instrs[k].target
        if head <= leave <= exit_:
            return None
        test = self.parse_cond(chunks, k + 1, k, k)
        if test is None:
            return None
        loop = Loop(head, (head,), leave, exit_ - 1, "while-top", body_start=k + 1)
        tail = self.instrs[exit_ - 1]
        if exit_ < leave <= self.range_end and tail.op in POP_JUMPS and tail.target == head:
            # the body ends with `if c: statements` laid out after the back edge (as in
            # _while_without_bottom_test), up to where the test leaves to
            stop = self._break_into_exit_copy(exit_, leave, True)
            if stop is not None:
                state = self.fork()
                body, _ = self.walk(k + 1, stop, list(stack), ctx.but(loop=loop))
                if _break_where_it_falls(body, True):
                    out.append(ast.While(test=test, body=body, orelse=[]))
                    return leave
                self.restore(state)
        body, _ = self.walk(k + 1, exit_, list(stack), ctx.but(loop=loop))
        out.append(ast.While(test=test, body=body or [ast.Pass()], orelse=[]))
        return exit_

    def _break_into_exit_copy(self, start, stop, tested_last=False):
        """Where the loop body's last statements, laid out after its back edges [start, ...),
        fall into the loop's exit ``stop`` (a ``break``: 3.14 lays the body of the last
        ``if`` there): ``stop`` itself when they fall into it, or the start of a copy of the
        small returning block at ``stop`` that ends [start, stop). Where the last back edge
        is conditional (``tested_last``: the body ends with ``if c: statements``), statements
        that leave by themselves (a raise, a return) are that if's whole body: ``stop`` too.
        None when [start, stop) is not such statements."""
        if stop <= start or any(
                ins.target is not None and start < ins.target < stop and
                not start <= ins.index < stop for ins in self.instrs):
            return None  # (statements reached from elsewhere: not only the body's end)
        last = self.instrs[stop - 1]
        if last.op not in NO_FALLTHROUGH and last.target is None:
            return stop
        limit = min(stop + 6, self.n)
        end = stop
        while end < limit and self.instrs[end].op != "RETURN_VALUE":
            end += 1
        length = end + 1 - stop
        begin = stop - length
        if end >= limit or begin <= start or any(
                self.instrs[k].target is not None for k in range(stop, end + 1)) or any(
                self.instrs[k].is_target for k in range(begin + 1, stop)) or \
                not self._same_code(begin, stop, length):
            # no copy: statements that leave by themselves (`if c: x; raise E`) are that
            # if's whole body, no break
            return stop if tested_last and last.op in _LEAVING else None
        return begin

    def _copied_after_loop(self, start, stop):
        """Where the returning block [start, stop) (the code after a loop, copied into the
        break that ends the body) appears again from ``stop`` on: the end of the loop's else;
        None when [start, stop) is no such block or has no later copy."""
        length = stop - start
        if length > 6 or self.instrs[stop - 1].op != "RETURN_VALUE" or any(
                self.instrs[k].target is not None or self.instrs[k].is_target
                for k in range(start + 1, stop)):
            return None
        for p in range(stop, self.range_end - length + 1):
            if self._same_code(p, start, length):
                return p
        return None

    def gather_chunks(self, start, limit, stack):
        """The chunks read one after another from ``start`` until one does not read as a
        chunk (or ``limit`` is reached)."""
        chunks = []
        k = start
        while k < limit:
            c = self.read_chunk(k, stack, limit, chunks)
            if c is None:
                break
            chunks.append(c)
            k = self.after(c.jump)
        return chunks

    def read_chunks(self, start, stop, stack):
        """Chunks that fill [start, stop) exactly, or None. A conditional expression tested
        among them (``while (a if b else c) and d:``) is one chunk (see _ifexp_test)."""
        chunks = self.gather_chunks(start, stop, stack)
        while chunks and self.after(chunks[-1].jump) < stop:
            found = self._ifexp_test(chunks, self.after(chunks[-1].jump), stack, stop)
            if found is None:
                return None
            chunks, k = found
            chunks += self.gather_chunks(k, stop, stack)
        if not chunks or self.after(chunks[-1].jump) != stop:
            return None
        return chunks

    def do_while_true(self, head, last_back, stack, out, ctx):
        exit_ = last_back + 1
        tested = self._while_without_bottom_test(head, exit_, stack, out, ctx)
        if tested is not None:
            return tested
        break_target = self._break_target(head, exit_, exit_)
        loop = Loop(head, (head,), break_target, last_back, "while", body_start=head)
        body, _ = self.walk(head, exit_, list(stack), ctx.but(loop=loop))
        out.append(ast.While(test=const(True), body=body or [ast.Pass()], orelse=[]))
        if break_target > exit_ and break_target <= self.range_end:
            return break_target
        return exit_


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
