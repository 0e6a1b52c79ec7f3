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

from .emit import try_finally
from .expressions import CurrentExc, Null, PrevExc, WithEnter, WithExit
from .instructions import raw_instructions
from .legacy_structure import dead_after, dead_exit_after, unwinding_line
from .profile import PROFILE
from .statements import StatementWalker
from . import handlers
from . import branches

_END_OF_HANDLERS = ("RERAISE", "END_FINALLY")


# Handlers for the opcodes only 3.8-3.10 have (never reached on 3.11+).


# -- calls -----------------------------------------------------------------------------
def op_CALL_FUNCTION_EX_NO_NULL(walker, ins, stack, out):
    """``f(*a, **k)`` before 3.11: the callable has no NULL beside it; give it one and
    read the call as on 3.11."""
    depth = 3 if ins.arg & 1 else 2
    if len(stack) < depth:
        walker.fail("stack underflow", ins)
    stack.insert(len(stack) - depth, Null())
    return walker.op_CALL_FUNCTION_EX(ins, stack, out)


def _unpack_build(walker, ins, stack, node_type):
    items = walker._items(stack, ins, ins.argval)
    elts = []
    for item in items:
        if isinstance(item, (ast.Tuple, ast.List)) and not getattr(item, "_temp", False):
            elts.extend(item.elts)
        else:
            elts.append(ast.Starred(value=walker.value(item, ins), ctx=ast.Load()))
    stack.append(node_type(elts=elts, ctx=ast.Load()))


def op_BUILD_TUPLE_UNPACK(walker, ins, stack, out):  # 3.8
    _unpack_build(walker, ins, stack, ast.Tuple)
    # a tuple display, `(a, *b)`: as a call's positional arguments it is one starred
    # argument, `f(*(a, *b))` (`f(a, *b)` builds its tuple WITH_CALL)
    stack[-1]._display = True


def op_BUILD_TUPLE_UNPACK_WITH_CALL(walker, ins, stack, out):  # 3.8
    _unpack_build(walker, ins, stack, ast.Tuple)
    stack[-1]._call_args = True  # (the call's own arguments: expressions._spread_call_args)


def op_BUILD_LIST_UNPACK(walker, ins, stack, out):  # 3.8
    _unpack_build(walker, ins, stack, ast.List)


def op_BUILD_SET_UNPACK(walker, ins, stack, out):  # 3.8
    items = walker._items(stack, ins, ins.argval)
    elts = []
    for item in items:
        if isinstance(item, ast.Set):
            elts.extend(item.elts)
        else:
            elts.append(ast.Starred(value=walker.value(item, ins), ctx=ast.Load()))
    stack.append(ast.Set(elts=elts))


def op_BUILD_MAP_UNPACK(walker, ins, stack, out):  # 3.8
    items = walker._items(stack, ins, ins.argval)
    keys, values = [], []
    for item in items:
        if isinstance(item, ast.Dict):
            keys.extend(item.keys)
            values.extend(item.values)
        else:
            keys.append(None)
            values.append(walker.value(item, ins))
    stack.append(ast.Dict(keys=keys, values=values))

op_BUILD_MAP_UNPACK_WITH_CALL = op_BUILD_MAP_UNPACK


# -- try -------------------------------------------------------------------------------
def op_SETUP_FINALLY(walker, ins, stack, out):
    h = ins.target
    if _legacy_except_at(walker, h):
        return _legacy_try_except(walker, ins, h, stack, out)
    return _legacy_try_finally(walker, ins, h, stack, out)


def _legacy_except_at(walker, h):
    instrs = walker.instrs
    if h >= walker.n:
        return False
    if instrs[h].op == "COPY" and instrs[h].arg == 1:
        k = h + 1
        while k < walker.n and (instrs[k].op.startswith("LOAD_") or
                              instrs[k].op == "BUILD_TUPLE"):
            k += 1
        return k < walker.n and instrs[k].op == "JUMP_IF_NOT_EXC_MATCH"
    return _three_pops(walker, h)


def _three_pops(walker, k):
    return k + 2 < walker.n and all(walker.instrs[k + q].op == "POP_TOP" for q in range(3))


def _forward_jump_before(walker, h):
    """(index of the body's end, target) of the jump that skips the handlers, if any."""
    last = walker.instrs[h - 1] if h > 0 else None
    if last is not None and last.op == "JUMP" and last.target > h and \
            not branches._is_loop_jump(walker, last):
        return h - 1, last.target
    return h, None


def _legacy_try_except(walker, ins, h, stack, out):
    instrs = walker.instrs
    ctx = walker.ctx
    pre, else_start = _forward_jump_before(walker, h)
    if else_start is not None and else_start >= min(walker.range_end, walker.n):
        else_start = None  # the body's exit leaves the enclosing range: no else here
    loop = ctx.loop
    body_to_head = PROFILE.top_tested_while and loop is not None and pre == h and h > 0 and \
        instrs[h - 1].op == "JUMP" and instrs[h - 1].target in loop.continue_targets and \
        not _written_body_continue(walker, instrs[h - 1])
    if body_to_head:
        pre = h - 1  # 3.8/3.9: the jump past the handlers was threaded to the loop head
    inlined_else = _inlined_else(walker, h) if pre == h else None
    if inlined_else is not None:
        pre = inlined_else
    body, _ = walker.walk(ins.index + 1, pre, list(stack), ctx)
    clauses, handlers_end = _legacy_clauses(walker, h, else_start)
    if not clauses:
        walker.fail("except clauses outside the range being structured", instrs[h])
    join = None
    kept_to_head = False
    for clause in clauses:
        for start, end in _clause_ranges(walker, clause):
            for q in range(start, min(end, walker.n)):
                t = instrs[q].target
                if instrs[q].op == "JUMP" and t is not None and t >= handlers_end and \
                        not branches._is_loop_jump(walker, instrs[q]) and (join is None or t < join):
                    join = t
        t = _kept_clause_exit(walker, clause)
        if t is not None and loop is not None and (t in loop.continue_targets or
                                                   t == loop.last):
            # (the try ends the loop body, or a `continue` follows it: its end was threaded
            # to the loop head, or sent back to the back edge by unthread())
            kept_to_head = True
        elif t is not None and loop is not None and t == loop.break_target:
            pass  # (threaded to a break that follows the try)
        elif t is not None and t >= handlers_end and (join is None or t < join):
            join = t
    after_copy = None
    if not PROFILE.top_tested_while:  # 3.10 copies a short returning tail into each clause
        cut = []
        for clause in clauses:
            tail = _clause_tail(walker, clause)
            if tail is not None:
                after_copy = after_copy or tail
                clause = clause[:4] + (tail[0],)
            cut.append(clause)
        clauses = cut
    except_clauses = []
    for clause in clauses:
        exc_type, hname = clause[0], clause[1]
        hstack = list(stack) + [PrevExc()]
        hctx = ctx.but(handler_name=hname)
        hbody = []
        for start, end in _clause_ranges(walker, clause):
            walker.walk(start, end, hstack, hctx, out=hbody)
        except_clauses.append(ast.ExceptHandler(type=exc_type, name=hname,
                                          body=hbody or [ast.Pass()]))
    orelse = []
    nxt = handlers_end
    if inlined_else is not None:
        orelse, _ = walker.walk(inlined_else, h, list(stack), ctx)
    ends_loop_body = PROFILE.top_tested_while and join is None and loop is not None and any(
        body and isinstance(body[-1], ast.Continue) for body in [h.body for h in except_clauses])
    if ends_loop_body and else_start is None and (body_to_head or handlers_end >= loop.last):
        # the try is the last statement of the loop body: its exits were threaded to the
        # loop head, they are no `continue` (unless the clause's own exit is left after
        # them, dead)
        for handler, clause in zip(except_clauses, clauses):
            if handler.body and isinstance(handler.body[-1], ast.Continue) and \
                    not _written_continue(walker, clause):
                handler.body.pop()
                handler.body = handler.body or [ast.Pass()]
    elif else_start is not None and (ends_loop_body or kept_to_head and join is None):
        # 3.8/3.9 (no bottom tests, jumps threaded into loop heads): the handlers jump to
        # the loop head (or the exit a clause that raises keeps does), so the try ends the
        # loop body and what the body skips to is its else, up to the back edge
        end = walker.range_end
        if end - 1 == loop.last and instrs[loop.last].target in loop.continue_targets:
            end -= 1  # (the back edge; not a break that ends the body, its back edge dead)
        orelse, _ = walker.walk(else_start, end, list(stack), ctx)
        nxt = end
        for handler, clause in zip(except_clauses, clauses):
            if handler.body and isinstance(handler.body[-1], ast.Continue) and \
                    not _written_continue(walker, clause):
                handler.body.pop()
                handler.body = handler.body or [ast.Pass()]
    elif else_start is not None and join is None and after_copy is not None:
        # 3.10: the code after the try was copied into a clause (its original is gone, no
        # clause goes on to it), so what the body jumps to is the else, which cannot
        # fall through either
        orelse, _ = walker.walk(else_start, walker.range_end, list(stack), ctx)
        nxt = walker.range_end
    elif else_start is not None:
        nxt = else_start
        if join is not None and join > else_start:
            orelse, _ = walker.walk(else_start, min(join, walker.range_end), list(stack), ctx)
            nxt = join
    elif join is not None:
        nxt = join
    out.append(ast.Try(body=body or [ast.Pass()], handlers=except_clauses, orelse=orelse,
                       finalbody=[]))
    if after_copy is not None:
        walker.walk(after_copy[0], after_copy[1], stack, ctx, out=out)
    return nxt


def _written_body_continue(walker, jump):
    """Whether the jump to the loop head that ends a try body is a written ``continue``
    (3.8/3.9: the body's own exit, ``POP_BLOCK``; jump past the handlers, is left dead
    after it), not that exit threaded to the loop head."""
    if not PROFILE.keeps_dead_code:
        return False
    dead = dead_after(walker.code, jump.offset)
    return dead is not None and dead.opname == "POP_BLOCK"


def _written_continue(walker, clause):
    """Whether the except clause ends with a written ``continue``: 3.8/3.9 leave the
    clause's own exit (``POP_EXCEPT``; jump), dead, after the jump to the loop head; a
    clause that falls off its end has only that exit, threaded to the head."""
    end = min(_clause_ranges(walker, clause)[-1][1], walker.n)
    last = walker.instrs[end - 1] if end > 0 else None
    if not PROFILE.keeps_dead_code or last is None or last.op != "JUMP":
        return False
    dead = dead_after(walker.code, last.offset)
    return dead is not None and dead.opname in ("POP_EXCEPT", "POP_BLOCK")


def _clause_tail(walker, clause):
    """3.10: (start, end) of the code after the try statement that the compiler copied to
    the end of an except clause (after its POP_EXCEPT and name cleanup: a new line, at
    most four instructions, a return or raise), or None."""
    instrs = walker.instrs
    _, hname, cleanup, body_start, clause_end = clause
    end = min(clause_end, walker.n)
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
            instrs[end - 1].op in ("RETURN_VALUE", "RAISE_VARARGS") and \
            all(instrs[k].target is None for k in range(start, end)):
        return start, end
    return None


def _inlined_else(walker, h):
    """3.10: the start of an else body that returns or raises, which the compiler copied
    (a block of at most four instructions) between the try body's end and its handlers in
    place of the jump to it; None if there is none."""
    if PROFILE.top_tested_while:
        return None
    instrs = walker.instrs
    ends = [e.end for e in walker.entries if e.target == h]
    if not ends:
        return None
    start = max(ends)
    if start < h and h - start <= 4 and instrs[start].line is not None and \
            instrs[start].op not in ("RETURN_VALUE", "RAISE_VARARGS") and \
            instrs[h - 1].op in ("RETURN_VALUE", "RAISE_VARARGS") and \
            all(instrs[k].target is None for k in range(start, h)) and \
            not any(start + copy[1] == h - 1 and walker._same_code(copy[0], start, copy[1])
                    for copy in walker.ctx.finally_copies):
        # (not the copy of an enclosing finally body before the try body's own return)
        return start
    return None


def _clause_ranges(walker, clause):
    """The instruction ranges of an except clause's body: 3.8 continues a named clause
    after the name's shared cleanup (``e = None; del e; END_FINALLY``) when the body falls
    into it through BEGIN_FINALLY."""
    instrs = walker.instrs
    _, _, cleanup, body_start, clause_end = clause
    ranges = [(body_start, clause_end)]
    if cleanup is not None and instrs[cleanup + 3].op == "END_FINALLY" and \
            instrs[cleanup - 1].op == "BEGIN_FINALLY":
        rest_end = cleanup + 4
        while rest_end < walker.n and instrs[rest_end].op == "POP_EXCEPT":
            rest_end += 1
        if rest_end < walker.n and instrs[rest_end].op == "JUMP":
            rest_end += 1
        ranges.append((cleanup + 4, rest_end))
    return ranges


def _kept_clause_exit(walker, clause):
    """Where the exit an except clause keeps after its body goes (an index), when its body
    never falls through (it returns or raises), else None. Never run, the jump still goes
    where the try statement ends, past its else (`except E as e: raise X` then `else:`), or
    to the loop head when the try ends a loop body (threaded from the back edge):

    - 3.8 keeps it after the name's cleanup (``e = None; del e; END_FINALLY``, then
      ``POP_EXCEPT``; jump) where nothing falls into that cleanup (no ``BEGIN_FINALLY``,
      which :func:`_clause_ranges` follows);
    - after a ``raise``, ``break`` or ``continue`` that ends the body, 3.8/3.9 leave it dead
      (``POP_EXCEPT``, 3.9's named clause ``POP_BLOCK; POP_EXCEPT; e = None; del e``;
      jump), which normalization dropped: the raw instructions show it."""
    instrs = walker.instrs
    cleanup, clause_end = clause[2], clause[4]
    last = (cleanup if cleanup is not None else min(clause_end, walker.n)) - 1
    if PROFILE.keeps_dead_code and last > clause[3] and (
            instrs[last].op == "RAISE_VARARGS" or
            instrs[last].op == "JUMP" and branches._is_loop_jump(walker, instrs[last])):
        target = dead_exit_after(walker.code, instrs[last].offset)
        if target is not None:
            return target
    if cleanup is None or cleanup + 3 >= walker.n:
        return None
    if instrs[cleanup + 3].op != "END_FINALLY" or instrs[cleanup - 1].op == "BEGIN_FINALLY":
        return None
    k = cleanup + 4
    while k < walker.n and instrs[k].op == "POP_EXCEPT":
        k += 1
    if k == cleanup + 4 or k >= walker.n or instrs[k].op != "JUMP":
        return None
    return instrs[k].target


def _legacy_clauses(walker, h, else_start):
    """[(type, name, cleanup, body start, body end)] of the except clauses at ``h``, and
    where the handler code ends."""
    instrs = walker.instrs
    clauses = []
    k = h
    limit = else_start if else_start is not None else walker.range_end
    while k < limit:
        op = instrs[k].op
        if op in _END_OF_HANDLERS:
            return clauses, k + 1
        if op == "COPY":
            m = k + 1
            while instrs[m].op != "JUMP_IF_NOT_EXC_MATCH":
                m += 1
            type_stack = [CurrentExc()]
            walker.walk(k + 1, m, type_stack, walker.ctx)
            exc_type = walker.value(type_stack[-1], instrs[m])
            next_clause = instrs[m].target
            p = m + 1
        elif _three_pops(walker, k):
            exc_type, next_clause, p = None, None, k
        else:
            walker.fail("unrecognised except clause", instrs[k])
        store = instrs[p + 1]
        hname = store.argval if store.op.startswith("STORE_") else None
        if instrs[p].op != "POP_TOP" or not (hname or store.op == "POP_TOP") or \
                instrs[p + 2].op != "POP_TOP":
            walker.fail("unrecognised except clause", instrs[p])
        body_start = p + 3
        cleanup = None
        if hname is not None:
            setup = instrs[body_start]
            if setup.op != "SETUP_FINALLY":
                walker.fail("except clause without its name cleanup", setup)
            cleanup = setup.target
            body_start += 1
        if next_clause is None:
            end = _bare_clause_end(walker, body_start, limit, clauses)
            clause_end = cleanup if cleanup is not None else end
            clauses.append((exc_type, hname, cleanup, body_start, clause_end))
            return clauses, end
        clause_end = cleanup if cleanup is not None else next_clause
        if cleanup is not None and instrs[cleanup + 3].op == "END_FINALLY":
            clause_end = cleanup - 1 if instrs[cleanup - 1].op == "BEGIN_FINALLY" else cleanup
        clauses.append((exc_type, hname, cleanup, body_start, clause_end))
        k = next_clause
    return clauses, k


def _bare_clause_end(walker, start, limit, clauses):
    """Where a bare ``except:`` (always the last clause) ends: the else body, the join of
    the clauses before it, or after the ``POP_EXCEPT`` that leaves it."""
    if limit < walker.range_end:
        return limit
    instrs = walker.instrs
    join = None
    for clause in clauses:
        for q in range(clause[3], min(clause[4], walker.n)):
            if instrs[q].op == "JUMP" and instrs[q].target > start and \
                    not branches._is_loop_jump(walker, instrs[q]):
                join = instrs[q].target if join is None else min(join, instrs[q].target)
    if join is not None and join <= limit:
        return join
    # (a join past the range: the try ends an if body whose else follows, and the bare
    # clause, which raises, runs to the range's end)
    return _pop_except_end(walker, start, limit)


def _pop_except_end(walker, start, limit):
    """After the POP_EXCEPT that leaves the bare clause starting at ``start`` (and the jump
    or return that follows it), or ``limit`` when it has none (it raises)."""
    instrs = walker.instrs
    nested = {}
    q = start - 1
    while q + 1 < limit:
        q += 1
        if instrs[q].op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH") and \
                q < instrs[q].target < limit:
            nested[instrs[q].target] = instrs[q].op
        if q in nested:
            # a try or with inside the clause: its handlers' POP_EXCEPTs are not this one's
            q = max(q, _nested_handler_end(walker, q, nested[q], limit) - 1)
            continue
        if instrs[q].op == "POP_EXCEPT":
            nxt = instrs[q + 1] if q + 1 < walker.n else None
            if nxt is None:
                return q + 1
            if nxt.op == "JUMP" and not branches._is_loop_jump(walker, nxt):
                return max(nxt.target, q + 2) if nxt.target <= limit else q + 2
            ret = q + 1
            while ret < limit and instrs[ret].op in ("SWAP", "POP_TOP"):
                ret += 1
            if ret > q + 1 and ret < limit and instrs[ret].op == "RETURN_VALUE":
                # `return v` in the clause, the value swapped below the iterators of the
                # loops it leaves, which are popped
                return ret + 1
            if nxt.op not in ("RETURN_VALUE", "JUMP", "LOAD_CONST"):
                return q + 1
    return limit


def _nested_handler_end(walker, h, setup, limit):
    """The end of the handler code at ``h`` (set up by a ``setup`` instruction inside an
    except clause): a with's exit handler, a chain of typed clauses up to its re-raise, a
    bare clause up to its POP_EXCEPT, a finally body (or a name's cleanup) up to its
    re-raise."""
    instrs = walker.instrs
    if setup != "SETUP_FINALLY":
        return min(_legacy_with_handler_end(walker, h), limit)
    k = h
    while k < limit and instrs[k].op == "COPY":
        m = k + 1
        while m < limit and instrs[m].op != "JUMP_IF_NOT_EXC_MATCH":
            m += 1
        if m >= limit:
            return limit
        k = instrs[m].target
    if k < limit and _three_pops(walker, k) and k == h:
        return _pop_except_end(walker, k + 3, limit)
    while k < limit and instrs[k].op not in _END_OF_HANDLERS:
        k += 1
    return min(k + 1, limit)


def _legacy_try_finally(walker, ins, f, stack, out):
    instrs = walker.instrs
    ctx = walker.ctx
    fend = _finally_end(walker, ins.index + 1, f)
    length = fend - f
    ends = dict((k, fend) for k in handlers.finally_reraise_ends_of(walker, f, fend)) \
        if f in walker.returning_copies and instrs[fend].op == "RERAISE" else {}
    saved_ends = walker.finally_reraise_ends
    if ends:
        walker.finally_reraise_ends = dict(saved_ends)
        walker.finally_reraise_ends.update(ends)
    try:
        finalbody, _ = walker.walk(f, fend, list(stack) + [PrevExc(), CurrentExc()], ctx)
    finally:
        walker.finally_reraise_ends = saved_ends
    copies = ctx.finally_copies + ((f, length, f),) if length and \
        instrs[fend].op == "RERAISE" else ctx.finally_copies
    pre, join = _forward_jump_before(walker, f)
    if pre == f and instrs[f - 1].op == "BEGIN_FINALLY":  # 3.8
        pre = f - 1
    loop = ctx.loop
    if pre == f and PROFILE.keeps_dead_code and loop is not None and \
            instrs[f - 1].op == "JUMP" and instrs[f - 1].target in loop.continue_targets and \
            not _written_body_continue(walker, instrs[f - 1]):
        # 3.9: the jump after the normal path's finally copy was threaded to the loop head
        # (the try ends the loop body), no `continue`: a written one leaves the statement's
        # own exit dead after it
        pre = f - 1
    tail = _inlined_tail(walker, ins.index + 1, f, length) if pre == f else None
    if tail is not None:
        pre = tail
    copied_tail = None
    if f in walker.returning_copies:
        (pre, copied_tail), tail = walker.returning_copies[f], None
    body_stack = list(stack)
    body, _ = walker.walk(ins.index + 1, pre, body_stack, ctx.but(finally_copies=copies))
    if copied_tail is _VALUE:
        # `try: ...; return v finally: <branches>`: each exit of the copy returns v
        body.append(ast.Return(value=walker.value(body_stack.pop(), instrs[pre])))
        copied_tail = None
    out.extend(try_finally(body, finalbody))
    if tail is not None:
        walker.walk(tail, f, stack, ctx, out=out)
    after = fend + 1
    if copied_tail is not None and not (
            after + copied_tail[1] <= walker.n and
            walker._same_code(copied_tail[0], after, copied_tail[1])):
        # 3.10: the code after the statement, copied into every exit of the normal path's
        # copy of the finally body (its original is gone): it follows the statement
        walker.walk(copied_tail[0], copied_tail[0] + copied_tail[1], stack, ctx, out=out)
    if join is not None and join > after:
        return min(join, max(walker.range_end, after))
    return after


def _inlined_tail(walker, body_start, f, length):
    """3.10: where the code after a ``try``/``finally`` starts when the compiler copied it
    (a short block that returns) right after the normal path's finally copy, in place of
    the jump to it: that copy's end, or None."""
    if PROFILE.top_tested_while or not length:
        return None
    instrs = walker.instrs
    if instrs[f - 1].op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
        return None
    for start in range(f - length - 1, body_start - 1, -1):
        if walker._same_code(start, f, length):
            tail = start + length
            if tail < f and f - tail <= 4 and instrs[tail].line is not None and \
                    instrs[tail].op != "RETURN_VALUE" and \
                    all(instrs[k].target is None for k in range(tail, f)) and \
                    not any(tail + copy[1] == f - 1 and walker._same_code(copy[0], tail, copy[1])
                            for copy in walker.ctx.finally_copies):
                # (not an enclosing finally body's copy before the body's own return)
                return tail
            return None
    return None


def _returning_copy(walker, f, start, tail):
    """Note (in ``walker.returning_copies``) the returning copy of the finally handler ``f``'s
    normal path."""
    walker.returning_copies = dict(walker.returning_copies)
    walker.returning_copies[f] = (start, tail)


def _splits_try(walker, f, k):
    """Whether a try statement starting in [f, k) has its handler after ``k``."""
    return any(walker.instrs[q].op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
               and walker.instrs[q].target > k for q in range(f, k))


def _finally_end(walker, body_start, f):
    """The RERAISE (3.8: END_FINALLY) that ends the finally handler at ``f``: the first
    whose body has a copy on the normal path (3.9/3.10), else the first at depth 0."""
    instrs = walker.instrs
    candidates = []
    depth = 0
    for k in range(f, walker.n):
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
                walker._same_code(pre - length, f, length):
            return k
    for k in candidates:
        # a try/finally that ends the function, whose finally body has branches or a
        # loop: each way out ends with (a copy of) this RERAISE, and with `return None`
        # in the copy on the normal path (which then ends where the handler starts)
        if instrs[k].op == "RERAISE":
            for start in range(body_start, pre):
                if handlers._returning_copy_end(walker, start, f, k) == pre:
                    _returning_copy(walker, f, start, None)
                    return k
    for k in candidates:
        if instrs[k].op != "RERAISE" or _splits_try(walker, f, k):
            continue
        length = k - f
        if length == 0:
            return k
        for start in range(body_start, f - length + 1):
            if walker._same_code(start, f, length):
                return k
    for k in candidates:
        # 3.10, a finally body with branches whose normal path's copy ends each way out
        # with the code after the statement, copied (a short block that returns), or
        # with the RETURN_VALUE of a value the try body computed before it (`return v`
        # ending the body); with one way out only that reads as a `return` in the body
        if instrs[k].op != "RERAISE" or \
                not handlers.finally_reraise_ends_of(walker, f, k):
            continue
        for start in range(body_start, pre):
            tail = []
            if handlers._returning_copy_end(walker, start, f, k, copied_tail=tail) == pre and tail:
                _returning_copy(walker, f, start, tail[0])
                return k
            if handlers._returning_copy_end(walker, start, f, k, True) == pre and \
                    handlers._returns_value(walker, body_start, start, [], walker.ctx):
                _returning_copy(walker, f, start, _VALUE)
                return k
    if candidates:
        return candidates[0]
    walker.fail("finally handler without its re-raise", instrs[f])


# -- returns -------------------------------------------------------------------------
_UNWINDING = frozenset(["POP_EXCEPT", "POP_TOP", "SWAP", "ROT", "CALL_FINALLY",
                        "POP_FINALLY", "BEGIN_FINALLY", "WITH_CLEANUP_START",
                        "WITH_CLEANUP_FINISH"])


def is_implicit_return(walker, load):
    """3.8/3.9 give a written ``return`` inside ``except``/``with``/``for`` its line at the
    first unwinding instruction (POP_EXCEPT...), not at the value: judge it from there.
    Before 3.10 the compiler's own is only ever the last two instructions."""
    if PROFILE.implicit_return_at_end_only:
        raws = raw_instructions(walker.code)
        if len(raws) < 2 or load.offset != raws[-2].offset:
            return False
    if PROFILE.top_tested_while and load.line is None:
        k = load.index - 1
        while k >= 0 and walker.instrs[k].op in _UNWINDING and walker.instrs[k].line is None:
            k -= 1
        if k >= 0 and walker.instrs[k].op in _UNWINDING:
            return StatementWalker._is_implicit_return(walker, walker.instrs[k])
        line = unwinding_line(walker.code, load.offset)
        if line is not None:
            # the return's line is on a POP_BLOCK (dropped by normalization) before the
            # unwinding: `return` in a try inside a named except clause
            return StatementWalker._is_implicit_return(walker, _LineAt(line, load.index))
    return StatementWalker._is_implicit_return(walker, load)


# -- 3.8 finally plumbing: no statement of their own -------------------------------------
def op_BEGIN_FINALLY(walker, ins, stack, out):
    pass


def op_CALL_FINALLY(walker, ins, stack, out):
    pass


def op_POP_FINALLY(walker, ins, stack, out):
    pass


def op_END_FINALLY(walker, ins, stack, out):
    pass


# -- with ------------------------------------------------------------------------------
def op_SETUP_WITH(walker, ins, stack, out):
    return _legacy_with(walker, ins, stack, out, False)


def op_SETUP_ASYNC_WITH(walker, ins, stack, out):
    return _legacy_with(walker, ins, stack, out, True)


def _legacy_with(walker, ins, stack, out, is_async):
    instrs = walker.instrs
    w = ins.target
    if is_async:
        # BEFORE_ASYNC_WITH; GET_AWAITABLE; SEND_LOOP left the awaited __aenter__() here
        stack.pop()
        manager = walker._async_manager
    else:
        manager = walker.value(walker.pop(stack, ins), ins)
    exit_marker = WithExit(manager, is_async)
    exit_marker.target = None
    body_stack = list(stack) + [exit_marker, WithEnter(exit_marker)]
    pre, join = _forward_jump_before(walker, w)
    if pre == w and instrs[w - 1].op == "BEGIN_FINALLY":  # 3.8
        pre = w - 1
    elif pre == w and _threaded_to_loop_head(walker, instrs[w - 1]) and \
            _legacy_exit_call_start(walker, w - 1) < w - 1:
        # 3.9/3.10: a with ending a loop body leaves through the exit call and a jump straight
        # back to the loop head (threaded); a written `continue` would leave a second exit
        # call (dead code) before the handler
        pre = w - 1
    body_end = _legacy_exit_call_start(walker, pre)
    tail = None
    if body_end == pre and pre == w and not PROFILE.top_tested_while:
        # 3.10: the code after the with (a short return) copied right after its exit call
        for start in range(max(w - 4, ins.index + 1), w):
            if instrs[w - 1].op == "RETURN_VALUE" and instrs[start - 1].op == "POP_TOP" and \
                    instrs[start].op != "RETURN_VALUE" and \
                    _legacy_exit_call_start(walker, start) < start and \
                    all(instrs[k].target is None for k in range(start, w)) and \
                    _tail_after_handler(walker, w, start):
                tail, body_end = start, _legacy_exit_call_start(walker, start)
                break
    if not PROFILE.top_tested_while:
        # 3.10: a branch that ends the with body leaves through its own copy of the exit
        # call, then jumps to where the statement goes on: no statement
        for k in range(ins.index + 1, body_end):
            jump = instrs[k + 5] if k + 5 < body_end else None
            if jump is not None and jump.op == "JUMP" and jump.target is not None and \
                    jump.target >= body_end and _legacy_exit_call_start(walker, k + 5) == k:
                walker.cleanup_starts[k] = k + 5
    body, _ = walker.walk(ins.index + 1, body_end, body_stack, walker.ctx)
    if tail is not None and len(body) > 1 and isinstance(body[-1], ast.Return) and \
            getattr(body[-1], "_implicit", False) and \
            isinstance(body[-2], (ast.While, ast.For, ast.If, ast.Try)):
        # 3.10: the implicit return after the with, copied after each of its exit calls:
        # also after the one the last statement of the body leaves through (a while's
        # bottom test falls into it, its top test jumps to the copy at the end)
        body.pop()
    handler_end = _legacy_with_handler_end(walker, w)
    item = ast.withitem(context_expr=manager, optional_vars=exit_marker.target)
    node_type = ast.AsyncWith if is_async else ast.With
    out.append(node_type(items=[item], body=body or [ast.Pass()], type_comment=None))
    if tail is not None:
        walker.walk(tail, w, list(stack), walker.ctx, out=out)
    if join is None or join < handler_end:
        join = handler_end
    return min(join, walker.range_end) if join > walker.range_end else join


def _tail_after_handler(walker, w, start):
    """Whether the block [start, w) after a with's exit call is the code after the with
    statement (3.10 copies it there): the exit handler at ``w`` falls into it too, unless
    nothing follows the handler. A return written inside the with body, last, is no copy:
    the handler goes on with other code (`with c: ...; return False` then the implicit
    return)."""
    after = _legacy_with_handler_end(walker, w)
    if after >= walker.n:
        return True
    return walker._same_code(start, after, w - start)


def _threaded_to_loop_head(walker, last):
    """Whether ``last`` (the instruction before a with's handler) jumps back to the head of
    the loop being read."""
    loop = walker.ctx.loop
    return last.op == "JUMP" and loop is not None and last.target in loop.continue_targets


def op_BEFORE_ASYNC_WITH_LEGACY(walker, ins, stack, out):
    """3.8-3.10 ``async with``: the manager is kept for SETUP_ASYNC_WITH, which finds the
    awaited ``__aenter__()`` above it."""
    walker._async_manager = walker.value(walker.pop(stack, ins), ins)
    stack.append(ast.Call(func=ast.Attribute(value=walker._async_manager, attr="__aenter__",
                                             ctx=ast.Load()), args=[], keywords=[]))


def _legacy_exit_call_start(walker, pre):
    """Start of ``None; COPY 1; COPY 1; CALL_FUNCTION 3; [await]; POP_TOP`` ending at
    ``pre`` (3.9/3.10), or ``pre`` itself (3.8 exits in the handler)."""
    instrs = walker.instrs
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


def _legacy_with_handler_end(walker, w):
    instrs = walker.instrs
    if instrs[w].op == "WITH_CLEANUP_START":  # 3.8
        k = w
        while k < walker.n and instrs[k].op != "END_FINALLY":
            k += 1
        return k + 1
    k = w
    while k < walker.n and instrs[k].op != "POP_JUMP_IF_TRUE":
        k += 1
    if k >= walker.n:
        return walker.n
    # x: POP_TOP; POP_TOP; POP_TOP; POP_EXCEPT; POP_TOP
    return instrs[k].target + 5


def op_WITH_CLEANUP_START(walker, ins, stack, out):
    """3.8 ``return`` inside ``with``: ROT_TWO; BEGIN_FINALLY; WITH_CLEANUP_START;
    WITH_CLEANUP_FINISH; POP_FINALLY 0 call the exit below the returned value."""
    if stack and isinstance(stack[-1], WithExit):
        exit_marker = stack.pop()
        k = ins.index + 1
        if exit_marker.is_async and k + 1 < walker.n and walker.instrs[k].op == "GET_AWAITABLE" \
                and walker.instrs[k + 1].op == "SEND_LOOP":
            return k + 2  # the awaited __aexit__()
    return None


def op_WITH_CLEANUP_FINISH(walker, ins, stack, out):
    pass


_VALUE = "value"  # (returning_copies: each exit of the copy returns the body's value)


class _LineAt(object):
    """An instruction's line and index, for is_implicit_return's judgement of a line that a
    dropped instruction carried."""

    __slots__ = ("line", "index")

    def __init__(self, line, index):
        self.line, self.index = line, index
