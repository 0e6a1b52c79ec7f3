"""``try``/``except``/``finally`` and ``with`` on CPython 3.8-3.10 (SETUP_* blocks).

Before 3.11 a ``try`` starts with an instruction, so the templates start there (``op_SETUP_*``)
instead of at an exception-table region.  ``instructions.py`` has already dropped ``POP_BLOCK``
and dead code, turned 3.8's ``COMPARE_OP exception match; POP_JUMP_IF_FALSE`` into
``JUMP_IF_NOT_EXC_MATCH`` and ``DUP_TOP`` into ``COPY 1``.  Templates (3.9/3.10; CPython's
``compiler_try_except``, ``compiler_try_finally``, ``compiler_with``)::

    SETUP_FINALLY H                      SETUP_FINALLY F           SETUP_WITH W
    body                                 body                      STORE b | POP_TOP
    JUMP else|end                        finally copy              body
    H: COPY 1; <type>; JUMP_IF_NOT_EXC_MATCH next                  None; COPY 1; COPY 1;
       POP_TOP; STORE e | POP_TOP; POP_TOP                         CALL_FUNCTION 3; POP_TOP
       [SETUP_FINALLY C] body POP_EXCEPT [e = None; del e]         [JUMP end]
       JUMP end                          [JUMP end]                W: WITH_EXCEPT_START ...
       [C: e = None; del e; RERAISE]     F: finally body; RERAISE
    next: ... RERAISE (3.8: END_FINALLY)
    else: else body

3.8 differs where the finally body is shared instead of copied: ``BEGIN_FINALLY`` falls into
it, ``CALL_FINALLY`` calls it before a ``return``, ``END_FINALLY`` ends it; ``with`` exits through
``WITH_CLEANUP_START; WITH_CLEANUP_FINISH; END_FINALLY``.  The previous exception, three stack
slots before 3.11, is one ``PrevExc`` value here as on 3.11.
"""

import ast

from .expressions import CurrentExc, Null, PrevExc, WithEnter, WithExit
from .legacy_structure import dead_after, unwinding_line
from .profile import PROFILE

_END_OF_HANDLERS = ("RERAISE", "END_FINALLY")


class LegacyHandlerMixin(object):
    """Handlers for the opcodes only 3.8-3.10 have (never reached on 3.11+)."""

    # -- calls -----------------------------------------------------------------------------
    def op_CALL_FUNCTION_EX_NO_NULL(self, ins, stack, out):
        """``f(*a, **k)`` before 3.11: the callable has no NULL beside it; give it one and
        read the call as on 3.11."""
        depth = 3 if ins.arg & 1 else 2
        if len(stack) < depth:
            self.fail("stack underflow", ins)
        stack.insert(len(stack) - depth, Null())
        return self.op_CALL_FUNCTION_EX(ins, stack, out)

    def _unpack_build(self, ins, stack, node_type):
        items = self._items(stack, ins, ins.argval)
        elts = []
        for item in items:
            if isinstance(item, (ast.Tuple, ast.List)) and not getattr(item, "_temp", False):
                elts.extend(item.elts)
            else:
                elts.append(ast.Starred(value=self.value(item, ins), ctx=ast.Load()))
        stack.append(node_type(elts=elts, ctx=ast.Load()))

    def op_BUILD_TUPLE_UNPACK(self, ins, stack, out):  # 3.8
        self._unpack_build(ins, stack, ast.Tuple)

    op_BUILD_TUPLE_UNPACK_WITH_CALL = op_BUILD_TUPLE_UNPACK

    def op_BUILD_LIST_UNPACK(self, ins, stack, out):  # 3.8
        self._unpack_build(ins, stack, ast.List)

    def op_BUILD_SET_UNPACK(self, ins, stack, out):  # 3.8
        items = self._items(stack, ins, ins.argval)
        elts = []
        for item in items:
            if isinstance(item, ast.Set):
                elts.extend(item.elts)
            else:
                elts.append(ast.Starred(value=self.value(item, ins), ctx=ast.Load()))
        stack.append(ast.Set(elts=elts))

    def op_BUILD_MAP_UNPACK(self, ins, stack, out):  # 3.8
        items = self._items(stack, ins, ins.argval)
        keys, values = [], []
        for item in items:
            if isinstance(item, ast.Dict):
                keys.extend(item.keys)
                values.extend(item.values)
            else:
                keys.append(None)
                values.append(self.value(item, ins))
        stack.append(ast.Dict(keys=keys, values=values))

    op_BUILD_MAP_UNPACK_WITH_CALL = op_BUILD_MAP_UNPACK

    # -- try -------------------------------------------------------------------------------
    def op_SETUP_FINALLY(self, ins, stack, out):
        h = ins.target
        if self._legacy_except_at(h):
            return self._legacy_try_except(ins, h, stack, out)
        return self._legacy_try_finally(ins, h, stack, out)

    def _legacy_except_at(self, h):
        instrs = self.instrs
        if h >= self.n:
            return False
        if instrs[h].op == "COPY" and instrs[h].arg == 1:
            k = h + 1
            while k < self.n and (instrs[k].op.startswith("LOAD_") or
                                  instrs[k].op == "BUILD_TUPLE"):
                k += 1
            return k < self.n and instrs[k].op == "JUMP_IF_NOT_EXC_MATCH"
        return self._three_pops(h)

    def _three_pops(self, k):
        return k + 2 < self.n and all(self.instrs[k + q].op == "POP_TOP" for q in range(3))

    def _forward_jump_before(self, h):
        """(index of the body's end, target) of the jump that skips the handlers, if any."""
        last = self.instrs[h - 1] if h > 0 else None
        if last is not None and last.op == "JUMP" and last.target > h and \
                not self._is_loop_jump(last):
            return h - 1, last.target
        return h, None

    def _legacy_try_except(self, ins, h, stack, out):
        instrs = self.instrs
        ctx = self.ctx
        pre, else_start = self._forward_jump_before(h)
        if else_start is not None and else_start >= min(self.range_end, self.n):
            else_start = None  # the body's exit leaves the enclosing range: no else here
        loop = ctx.loop
        body_to_head = PROFILE.top_tested_while and loop is not None and pre == h and h > 0 and \
            instrs[h - 1].op == "JUMP" and instrs[h - 1].target in loop.continue_targets
        if body_to_head:
            pre = h - 1  # 3.8/3.9: the jump past the handlers was threaded to the loop head
        inlined_else = self._inlined_else(h) if pre == h else None
        if inlined_else is not None:
            pre = inlined_else
        body, _ = self.walk(ins.index + 1, pre, list(stack), ctx)
        clauses, handlers_end = self._legacy_clauses(h, else_start)
        if not clauses:
            self.fail("except clauses outside the range being structured", instrs[h])
        join = None
        for clause in clauses:
            for start, end in self._clause_ranges(clause):
                for q in range(start, min(end, self.n)):
                    t = instrs[q].target
                    if instrs[q].op == "JUMP" and t is not None and t >= handlers_end and \
                            not self._is_loop_jump(instrs[q]) and (join is None or t < join):
                        join = t
        after_copy = None
        if not PROFILE.top_tested_while:  # 3.10 copies a short returning tail into each clause
            cut = []
            for clause in clauses:
                tail = self._clause_tail(clause)
                if tail is not None:
                    after_copy = after_copy or tail
                    clause = clause[:4] + (tail[0],)
                cut.append(clause)
            clauses = cut
        handlers = []
        for clause in clauses:
            exc_type, hname = clause[0], clause[1]
            hstack = list(stack) + [PrevExc()]
            hctx = ctx.but(handler_name=hname)
            hbody = []
            for start, end in self._clause_ranges(clause):
                self.walk(start, end, hstack, hctx, out=hbody)
            handlers.append(ast.ExceptHandler(type=exc_type, name=hname,
                                              body=hbody or [ast.Pass()]))
        orelse = []
        nxt = handlers_end
        if inlined_else is not None:
            orelse, _ = self.walk(inlined_else, h, list(stack), ctx)
        ends_loop_body = PROFILE.top_tested_while and join is None and loop is not None and any(
            body and isinstance(body[-1], ast.Continue) for body in [h.body for h in handlers])
        if ends_loop_body and else_start is None and (body_to_head or handlers_end >= loop.last):
            # the try is the last statement of the loop body: its exits were threaded to the
            # loop head, they are no `continue` (unless the clause's own exit is left after
            # them, dead)
            for handler, clause in zip(handlers, clauses):
                if handler.body and isinstance(handler.body[-1], ast.Continue) and \
                        not self._written_continue(clause):
                    handler.body.pop()
                    handler.body = handler.body or [ast.Pass()]
        elif else_start is not None and ends_loop_body:
            # 3.8/3.9 (no bottom tests, jumps threaded into loop heads): the handlers jump to
            # the loop head, so the try ends the loop body and what the body skips to is its
            # else, up to the back edge
            end = self.range_end - 1 if self.range_end - 1 == loop.last else self.range_end
            orelse, _ = self.walk(else_start, end, list(stack), ctx)
            nxt = end
            for handler, clause in zip(handlers, clauses):
                if handler.body and isinstance(handler.body[-1], ast.Continue) and \
                        not self._written_continue(clause):
                    handler.body.pop()
                    handler.body = handler.body or [ast.Pass()]
        elif else_start is not None and join is None and after_copy is not None:
            # 3.10: the code after the try was copied into a clause (its original is gone, no
            # clause goes on to it), so what the body jumps to is the else, which cannot
            # fall through either
            orelse, _ = self.walk(else_start, self.range_end, list(stack), ctx)
            nxt = self.range_end
        elif else_start is not None:
            nxt = else_start
            if join is not None and join > else_start:
                orelse, _ = self.walk(else_start, min(join, self.range_end), list(stack), ctx)
                nxt = join
        elif join is not None:
            nxt = join
        out.append(ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse,
                           finalbody=[]))
        if after_copy is not None:
            self.walk(after_copy[0], after_copy[1], stack, ctx, out=out)
        return nxt

    def _written_continue(self, clause):
        """Whether the except clause ends with a written ``continue``: 3.8/3.9 leave the
        clause's own exit (``POP_EXCEPT``; jump), dead, after the jump to the loop head; a
        clause that falls off its end has only that exit, threaded to the head."""
        end = min(self._clause_ranges(clause)[-1][1], self.n)
        last = self.instrs[end - 1] if end > 0 else None
        if not PROFILE.keeps_dead_code or last is None or last.op != "JUMP":
            return False
        dead = dead_after(self.code, last.offset)
        return dead is not None and dead.opname in ("POP_EXCEPT", "POP_BLOCK")

    def _clause_tail(self, clause):
        """3.10: (start, end) of the code after the try statement that the compiler copied to
        the end of an except clause (after its POP_EXCEPT and name cleanup: a new line, at
        most four instructions, a return), or None."""
        instrs = self.instrs
        _, hname, cleanup, body_start, clause_end = clause
        end = min(clause_end, self.n)
        for q in range(end - 1, body_start - 1, -1):
            if instrs[q].op == "POP_EXCEPT":
                break
        else:
            return None
        start = q + 1
        if hname is not None and start + 2 < end and instrs[start].op == "LOAD_CONST" and \
                instrs[start + 1].op.startswith("STORE_") and \
                instrs[start + 2].op.startswith("DELETE_"):
            start += 3
        if start < end and end - start <= 4 and instrs[start].line is not None and \
                instrs[end - 1].op == "RETURN_VALUE" and \
                all(instrs[k].target is None for k in range(start, end)):
            return start, end
        return None

    def _inlined_else(self, h):
        """3.10: the start of an else body that returns or raises, which the compiler copied
        (a block of at most four instructions) between the try body's end and its handlers in
        place of the jump to it; None if there is none."""
        if PROFILE.top_tested_while:
            return None
        instrs = self.instrs
        ends = [e.end for e in self.entries if e.target == h]
        if not ends:
            return None
        start = max(ends)
        if start < h and h - start <= 4 and instrs[start].line is not None and \
                instrs[start].op not in ("RETURN_VALUE", "RAISE_VARARGS") and \
                instrs[h - 1].op in ("RETURN_VALUE", "RAISE_VARARGS") and \
                all(instrs[k].target is None for k in range(start, h)):
            return start
        return None

    def _clause_ranges(self, clause):
        """The instruction ranges of an except clause's body: 3.8 continues a named clause
        after the name's shared cleanup (``e = None; del e; END_FINALLY``) when the body falls
        into it through BEGIN_FINALLY."""
        instrs = self.instrs
        _, _, cleanup, body_start, clause_end = clause
        ranges = [(body_start, clause_end)]
        if cleanup is not None and instrs[cleanup + 3].op == "END_FINALLY" and \
                instrs[cleanup - 1].op == "BEGIN_FINALLY":
            rest_end = cleanup + 4
            while rest_end < self.n and instrs[rest_end].op == "POP_EXCEPT":
                rest_end += 1
            if rest_end < self.n and instrs[rest_end].op == "JUMP":
                rest_end += 1
            ranges.append((cleanup + 4, rest_end))
        return ranges

    def _legacy_clauses(self, h, else_start):
        """[(type, name, cleanup, body start, body end)] of the except clauses at ``h``, and
        where the handler code ends."""
        instrs = self.instrs
        clauses = []
        k = h
        limit = else_start if else_start is not None else self.range_end
        while k < limit:
            op = instrs[k].op
            if op in _END_OF_HANDLERS:
                return clauses, k + 1
            if op == "COPY":
                m = k + 1
                while instrs[m].op != "JUMP_IF_NOT_EXC_MATCH":
                    m += 1
                type_stack = [CurrentExc()]
                self.walk(k + 1, m, type_stack, self.ctx)
                exc_type = self.value(type_stack[-1], instrs[m])
                next_clause = instrs[m].target
                p = m + 1
            elif self._three_pops(k):
                exc_type, next_clause, p = None, None, k
            else:
                self.fail("unrecognised except clause", instrs[k])
            store = instrs[p + 1]
            hname = store.argval if store.op.startswith("STORE_") else None
            if instrs[p].op != "POP_TOP" or not (hname or store.op == "POP_TOP") or \
                    instrs[p + 2].op != "POP_TOP":
                self.fail("unrecognised except clause", instrs[p])
            body_start = p + 3
            cleanup = None
            if hname is not None:
                setup = instrs[body_start]
                if setup.op != "SETUP_FINALLY":
                    self.fail("except clause without its name cleanup", setup)
                cleanup = setup.target
                body_start += 1
            if next_clause is None:
                end = self._bare_clause_end(body_start, limit, clauses)
                clause_end = cleanup if cleanup is not None else end
                clauses.append((exc_type, hname, cleanup, body_start, clause_end))
                return clauses, end
            clause_end = cleanup if cleanup is not None else next_clause
            if cleanup is not None and instrs[cleanup + 3].op == "END_FINALLY":
                clause_end = cleanup - 1 if instrs[cleanup - 1].op == "BEGIN_FINALLY" else cleanup
            clauses.append((exc_type, hname, cleanup, body_start, clause_end))
            k = next_clause
        return clauses, k

    def _bare_clause_end(self, start, limit, clauses):
        """Where a bare ``except:`` (always the last clause) ends: the else body, the join of
        the clauses before it, or after the ``POP_EXCEPT`` that leaves it."""
        if limit < self.range_end:
            return limit
        instrs = self.instrs
        join = None
        for clause in clauses:
            for q in range(clause[3], min(clause[4], self.n)):
                if instrs[q].op == "JUMP" and instrs[q].target > start and \
                        not self._is_loop_jump(instrs[q]):
                    join = instrs[q].target if join is None else min(join, instrs[q].target)
        if join is not None:
            return join
        for q in range(start, limit):
            if instrs[q].op == "POP_EXCEPT":
                nxt = instrs[q + 1] if q + 1 < self.n else None
                if nxt is None:
                    return q + 1
                if nxt.op == "JUMP" and not self._is_loop_jump(nxt):
                    return max(nxt.target, q + 2) if nxt.target <= limit else q + 2
                if nxt.op not in ("RETURN_VALUE", "JUMP", "LOAD_CONST"):
                    return q + 1
        return limit

    def _legacy_try_finally(self, ins, f, stack, out):
        instrs = self.instrs
        ctx = self.ctx
        fend = self._finally_end(ins.index + 1, f)
        length = fend - f
        ends = dict((k, fend) for k in self.finally_reraise_ends_of(f, fend)) \
            if f in self.returning_copies and instrs[fend].op == "RERAISE" else {}
        saved_ends = self.finally_reraise_ends
        if ends:
            self.finally_reraise_ends = dict(saved_ends)
            self.finally_reraise_ends.update(ends)
        try:
            finalbody, _ = self.walk(f, fend, list(stack) + [PrevExc(), CurrentExc()], ctx)
        finally:
            self.finally_reraise_ends = saved_ends
        copies = ctx.finally_copies + ((f, length, f),) if length and \
            instrs[fend].op == "RERAISE" else ctx.finally_copies
        pre, join = self._forward_jump_before(f)
        if pre == f and instrs[f - 1].op == "BEGIN_FINALLY":  # 3.8
            pre = f - 1
        tail = self._inlined_tail(ins.index + 1, f, length) if pre == f else None
        if tail is not None:
            pre = tail
        copied_tail = None
        if f in self.returning_copies:
            (pre, copied_tail), tail = self.returning_copies[f], None
        body_stack = list(stack)
        body, _ = self.walk(ins.index + 1, pre, body_stack, ctx.but(finally_copies=copies))
        if copied_tail is _VALUE:
            # `try: ...; return v finally: <branches>`: each exit of the copy returns v
            body.append(ast.Return(value=self.value(body_stack.pop(), instrs[pre])))
            copied_tail = None
        if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody:
            body[0].finalbody = finalbody or [ast.Pass()]
            out.append(body[0])
        else:
            out.append(ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[],
                               finalbody=finalbody or [ast.Pass()]))
        if tail is not None:
            self.walk(tail, f, stack, ctx, out=out)
        after = fend + 1
        if copied_tail is not None and not (
                after + copied_tail[1] <= self.n and
                self._same_code(copied_tail[0], after, copied_tail[1])):
            # 3.10: the code after the statement, copied into every exit of the normal path's
            # copy of the finally body (its original is gone): it follows the statement
            self.walk(copied_tail[0], copied_tail[0] + copied_tail[1], stack, ctx, out=out)
        if join is not None and join > after:
            return min(join, max(self.range_end, after))
        return after

    def _inlined_tail(self, body_start, f, length):
        """3.10: where the code after a ``try``/``finally`` starts when the compiler copied it
        (a short block that returns) right after the normal path's finally copy, in place of
        the jump to it: that copy's end, or None."""
        if PROFILE.top_tested_while or not length:
            return None
        instrs = self.instrs
        if instrs[f - 1].op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
            return None
        for start in range(f - length - 1, body_start - 1, -1):
            if self._same_code(start, f, length):
                tail = start + length
                if tail < f and f - tail <= 4 and instrs[tail].line is not None and \
                        instrs[tail].op != "RETURN_VALUE" and \
                        all(instrs[k].target is None for k in range(tail, f)):
                    return tail
                return None
        return None

    # finally handler -> (start of its normal path's returning copy, None or (start, length)
    # of the code after the statement that the copy has at each exit instead of `return None`)
    returning_copies = {}

    def _returning_copy(self, f, start, tail):
        self.returning_copies = dict(self.returning_copies)
        self.returning_copies[f] = (start, tail)

    def _splits_try(self, f, k):
        """Whether a try statement starting in [f, k) has its handler after ``k``."""
        return any(self.instrs[q].op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
                   and self.instrs[q].target > k for q in range(f, k))

    def _finally_end(self, body_start, f):
        """The RERAISE (3.8: END_FINALLY) that ends the finally handler at ``f``: the first
        whose body has a copy on the normal path (3.9/3.10), else the first at depth 0."""
        instrs = self.instrs
        candidates = []
        depth = 0
        for k in range(f, self.n):
            op = instrs[k].op
            if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
                depth += 1
            if op in _END_OF_HANDLERS:
                candidates.append(k)
                if op == "END_FINALLY":
                    if depth == 0:
                        return k
                    depth -= 1
        pre = f - 1 if f > 0 and instrs[f - 1].op == "JUMP" else f
        for k in candidates:  # the normal path's copy ends where the handler starts
            length = k - f
            if instrs[k].op == "RERAISE" and length <= pre and \
                    self._same_code(pre - length, f, length):
                return k
        for k in candidates:
            # a try/finally that ends the function, whose finally body has branches or a
            # loop: each way out ends with (a copy of) this RERAISE, and with `return None`
            # in the copy on the normal path (which then ends where the handler starts)
            if instrs[k].op == "RERAISE":
                for start in range(body_start, pre):
                    if self._returning_copy_end(start, f, k) == pre:
                        self._returning_copy(f, start, None)
                        return k
        for k in candidates:
            if instrs[k].op != "RERAISE" or self._splits_try(f, k):
                continue
            length = k - f
            if length == 0:
                return k
            for start in range(body_start, f - length + 1):
                if self._same_code(start, f, length):
                    return k
        for k in candidates:
            # 3.10, a finally body with branches whose normal path's copy ends each way out
            # with the code after the statement, copied (a short block that returns), or
            # with the RETURN_VALUE of a value the try body computed before it (`return v`
            # ending the body); with one way out only that reads as a `return` in the body
            if instrs[k].op != "RERAISE" or PROFILE.top_tested_while or \
                    not self.finally_reraise_ends_of(f, k):
                continue
            for start in range(body_start, pre):
                tail = []
                if self._returning_copy_end(start, f, k, copied_tail=tail) == pre and tail:
                    self._returning_copy(f, start, tail[0])
                    return k
                if self._returning_copy_end(start, f, k, True) == pre and \
                        self._returns_value(body_start, start, [], self.ctx):
                    self._returning_copy(f, start, _VALUE)
                    return k
        if candidates:
            return candidates[0]
        self.fail("finally handler without its re-raise", instrs[f])

    # -- returns -------------------------------------------------------------------------
    _UNWINDING = frozenset(["POP_EXCEPT", "POP_TOP", "SWAP", "ROT", "CALL_FINALLY",
                            "POP_FINALLY", "BEGIN_FINALLY", "WITH_CLEANUP_START",
                            "WITH_CLEANUP_FINISH"])

    def _is_implicit_return(self, load):
        """3.8/3.9 give a written ``return`` inside ``except``/``with``/``for`` its line at the
        first unwinding instruction (POP_EXCEPT...), not at the value: judge it from there."""
        if PROFILE.top_tested_while and load.line is None:
            k = load.index - 1
            while k >= 0 and self.instrs[k].op in self._UNWINDING and self.instrs[k].line is None:
                k -= 1
            if k >= 0 and self.instrs[k].op in self._UNWINDING:
                return super(LegacyHandlerMixin, self)._is_implicit_return(self.instrs[k])
            line = unwinding_line(self.code, load.offset)
            if line is not None:
                # the return's line is on a POP_BLOCK (dropped by normalization) before the
                # unwinding: `return` in a try inside a named except clause
                return super(LegacyHandlerMixin, self)._is_implicit_return(
                    _LineAt(line, load.index))
        return super(LegacyHandlerMixin, self)._is_implicit_return(load)

    # -- 3.8 finally plumbing: no statement of their own -------------------------------------
    def op_BEGIN_FINALLY(self, ins, stack, out):
        pass

    def op_CALL_FINALLY(self, ins, stack, out):
        pass

    def op_POP_FINALLY(self, ins, stack, out):
        pass

    def op_END_FINALLY(self, ins, stack, out):
        pass

    # -- with ------------------------------------------------------------------------------
    def op_SETUP_WITH(self, ins, stack, out):
        return self._legacy_with(ins, stack, out, False)

    def op_SETUP_ASYNC_WITH(self, ins, stack, out):
        return self._legacy_with(ins, stack, out, True)

    def _legacy_with(self, ins, stack, out, is_async):
        instrs = self.instrs
        w = ins.target
        if is_async:
            # BEFORE_ASYNC_WITH; GET_AWAITABLE; SEND_LOOP left the awaited __aenter__() here
            stack.pop()
            manager = self._async_manager
        else:
            manager = self.value(self.pop(stack, ins), ins)
        exit_marker = WithExit(manager, is_async)
        exit_marker.target = None
        body_stack = list(stack) + [exit_marker, WithEnter(exit_marker)]
        pre, join = self._forward_jump_before(w)
        if pre == w and instrs[w - 1].op == "BEGIN_FINALLY":  # 3.8
            pre = w - 1
        body_end = self._legacy_exit_call_start(pre)
        tail = None
        if body_end == pre and pre == w and not PROFILE.top_tested_while:
            # 3.10: the code after the with (a short return) copied right after its exit call
            for start in range(max(w - 4, ins.index + 1), w):
                if instrs[w - 1].op == "RETURN_VALUE" and instrs[start - 1].op == "POP_TOP" and \
                        instrs[start].op != "RETURN_VALUE" and \
                        self._legacy_exit_call_start(start) < start and \
                        all(instrs[k].target is None for k in range(start, w)):
                    tail, body_end = start, self._legacy_exit_call_start(start)
                    break
        body, _ = self.walk(ins.index + 1, body_end, body_stack, self.ctx)
        handler_end = self._legacy_with_handler_end(w)
        item = ast.withitem(context_expr=manager, optional_vars=exit_marker.target)
        node_type = ast.AsyncWith if is_async else ast.With
        out.append(node_type(items=[item], body=body or [ast.Pass()], type_comment=None))
        if tail is not None:
            self.walk(tail, w, list(stack), self.ctx, out=out)
        if join is None or join < handler_end:
            join = handler_end
        return min(join, self.range_end) if join > self.range_end else join

    def op_BEFORE_ASYNC_WITH_LEGACY(self, ins, stack, out):
        """3.8-3.10 ``async with``: the manager is kept for SETUP_ASYNC_WITH, which finds the
        awaited ``__aenter__()`` above it."""
        self._async_manager = self.value(self.pop(stack, ins), ins)
        stack.append(ast.Call(func=ast.Attribute(value=self._async_manager, attr="__aenter__",
                                                 ctx=ast.Load()), args=[], keywords=[]))

    def _legacy_exit_call_start(self, pre):
        """Start of ``None; COPY 1; COPY 1; CALL_FUNCTION 3; [await]; POP_TOP`` ending at
        ``pre`` (3.9/3.10), or ``pre`` itself (3.8 exits in the handler)."""
        instrs = self.instrs
        k = pre - 1
        if k >= 0 and instrs[k].op == "POP_TOP":
            k -= 1
            if k >= 0 and instrs[k].op == "SEND_LOOP":
                k -= 1
                if k >= 0 and instrs[k].op == "GET_AWAITABLE":
                    k -= 1
            if k >= 3 and instrs[k].op == "CALL_FUNCTION" and instrs[k].arg == 3 and \
                    instrs[k - 3].op == "LOAD_CONST" and instrs[k - 3].argval is None and \
                    instrs[k - 2].op == "COPY" and instrs[k - 1].op == "COPY":
                return k - 3
        return pre

    def _legacy_with_handler_end(self, w):
        instrs = self.instrs
        if instrs[w].op == "WITH_CLEANUP_START":  # 3.8
            k = w
            while k < self.n and instrs[k].op != "END_FINALLY":
                k += 1
            return k + 1
        k = w
        while k < self.n and instrs[k].op != "POP_JUMP_IF_TRUE":
            k += 1
        if k >= self.n:
            return self.n
        # x: POP_TOP; POP_TOP; POP_TOP; POP_EXCEPT; POP_TOP
        return instrs[k].target + 5

    def op_WITH_CLEANUP_START(self, ins, stack, out):
        """3.8 ``return`` inside ``with``: ROT_TWO; BEGIN_FINALLY; WITH_CLEANUP_START;
        WITH_CLEANUP_FINISH; POP_FINALLY 0 call the exit below the returned value."""
        if stack and isinstance(stack[-1], WithExit):
            exit_marker = stack.pop()
            k = ins.index + 1
            if exit_marker.is_async and k + 1 < self.n and self.instrs[k].op == "GET_AWAITABLE" \
                    and self.instrs[k + 1].op == "SEND_LOOP":
                return k + 2  # the awaited __aexit__()
        return None

    def op_WITH_CLEANUP_FINISH(self, ins, stack, out):
        pass


_VALUE = "value"  # (returning_copies: each exit of the copy returns the body's value)


class _LineAt(object):
    """An instruction's line and index, for _is_implicit_return's judgement of a line that a
    dropped instruction carried."""

    __slots__ = ("line", "index")

    def __init__(self, line, index):
        self.line, self.index = line, index
