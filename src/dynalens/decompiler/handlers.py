"""``try``/``except``/``finally`` and ``with`` from the 3.11+ exception table.

Templates (3.11; CPython's ``compiler_try_except``, ``compiler_try_finally``, ``compiler_with``)::

    try body            [handler H]       with: BEFORE_WITH; store|POP_TOP
    else body                                   body            [handler W, lasti]
    JUMP join                                   exit(None, None, None); POP_TOP; JUMP join
    H: PUSH_EXC_INFO                            W: PUSH_EXC_INFO; WITH_EXCEPT_START; ...
       except clauses / finally body; RERAISE 0
       cleanup: COPY 3; POP_EXCEPT; RERAISE 1

A ``finally`` body is emitted once in the handler and copied before every normal exit of the
``try`` body; the copies are skipped by matching them against the handler's copy.
"""

import ast

from .cfg import EXITS, NO_FALLTHROUGH
from .emit import try_finally
from .comparison_keys import same_argument
from .errors import DecompilationError
from .expressions import (CurrentExc, LoopItem, Marker, Null, PrevExc, WithEnter, WithExit,
                          name)
from .instructions import POP_JUMPS
from .profile import PROFILE
from .statements import Loop
from . import cold_blocks
from .statements import StatementWalker
from .registry import ENTRY
from .choices import FINALLY_WARM_END, choose

# _returning_copy_end(falls_to=...): the statement goes on wherever the copy's first exit does
_WHERE_THE_FIRST_EXIT_GOES = object()

_ENDS_BLOCK = frozenset(["JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "POP_EXCEPT"])


def _same_reraise(ins, k, instrs):
    """Whether ``ins`` (the last instruction of a finally handler) is a ``RERAISE 0`` that
    the copy at ``k`` has too: before 3.11 the re-raise of an exception no clause of a try
    nested last in the finally body matched, not the body's own exit. (3.9's RERAISE has
    no argument: None reads as 0.)"""
    return ins.op == "RERAISE" and not ins.arg and k < len(instrs) and \
        instrs[k].op == "RERAISE" and not instrs[k].arg


# -- try -------------------------------------------------------------------------------
def do_try(walker, i, entry, stack, out, ctx):
    h = entry.target
    instrs = walker.instrs
    kind = _handler_kind(walker, h)
    body_end = _protected_end(walker, h, except_only=kind == "except")
    cleanup = walker.handler_at[h].target if walker.handler_at[h] is not None else None
    if cleanup is not None and (body_end >= h or body_end > walker.range_end):
        # 3.12+: the range may run on over cold handlers of statements in the body (past
        # the end of the enclosing statement too, when the try ends an if body)
        warm_end = _protected_end(walker, h, warm=True,
                                       start=i if kind == "except" else None)
        if warm_end < body_end and \
                cold_blocks.cold_try_join(walker, h, warm_end, cleanup + 3) is not None:
            body_end = warm_end
    opened = ctx.open | {h}
    if kind == "finally" and cleanup is not None and body_end < h and \
            PROFILE.cold_handlers and _protects_cold_code(walker, i, h) and \
            choose(walker, FINALLY_WARM_END, instrs[i].offset):
        # the finally handler also protects cold code of statements in its body (their
        # handlers' cleanups, an await's throw path), laid out after the warm code: the
        # body may end where the warm code it protects does (a choice: asyncio's
        # Task.__eager_start, BaseEventLoop.shutdown_default_executor read so)
        body_end = _protected_end(walker, h, warm=True, start=i)
    if kind == "finally":
        return _try_finally(walker, i, h, body_end, cleanup, stack, out, ctx, opened)
    # try/except[/else]
    pre_handler = h
    join = None
    if h > 0 and instrs[h - 1].op == "JUMP" and instrs[h - 1].target > h and \
            not ENTRY.is_loop_jump(walker, instrs[h - 1]):
        join = instrs[h - 1].target
        pre_handler = h - 1
    body, body_end = _try_body(walker, i, body_end, pre_handler, stack, ctx.but(open=opened))
    if join is None and cleanup is not None:
        moved = _after_try_in_clause(walker, h, cleanup, ctx)
        resume = None if moved is None else _try_before_moved_code(walker, 
            h, cleanup, body, body_end, moved, stack, out, ctx)
        if resume is not None:
            return resume
        cold_join = cold_blocks.cold_try_join(walker, h, body_end, cleanup + 3)
        if cold_join is not None:  # 3.12+: the handler lies past the code that follows
            exit_end = cold_blocks.cold_try_exit(walker, h, body_end, cold_join)
            if exit_end is not None:  # the body ends with a break/continue/return
                last = body[-1] if body else None
                test = instrs[body_end - 1]
                if isinstance(last, ast.If) and not last.orelse and \
                        len(last.body) == 1 and isinstance(last.body[0], ast.Pass) and \
                        test.op in POP_JUMPS and test.target == exit_end:
                    # `if c: break` last in the body: the test jumps past the exit (3.14:
                    # the break's NOP and the copied return after it are not protected)
                    last.body, _ = walker.walk(body_end, exit_end, list(stack),
                                               ctx.but(open=opened))
                else:
                    body, _ = walker.walk(body_end, exit_end, list(stack),
                                          ctx.but(open=opened), out=body)
                body_end = cold_join = exit_end
            orelse = walker.walk(body_end, cold_join, list(stack), ctx)[0] \
                if cold_join > body_end else []
            cold_blocks.skip_cold(walker, h, cleanup + 3, cold_join)
            handlers = _except_clauses(walker, h, cleanup, stack, ctx, cold_join)[0]
            out.append(ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse,
                               finalbody=[]))
            return cold_join
    orelse = []
    if body_end < pre_handler:
        orelse, _ = walker.walk(body_end, pre_handler, list(stack), ctx)
        if pre_handler == h and instrs[h - 1].op in _EXIT_BLOCK_ENDS:
            after = _exit_copied_into_clauses(walker, h, cleanup, stack, ctx, body_end)
            if after is not None:
                # `try: ... except E: pass` then a small exit block (`raise`, `return
                # v`) the try body falls into, which 3.12+ copied after each clause's
                # POP_EXCEPT: the block is the code after the statement, not an else
                out.append(ast.Try(body=body or [ast.Pass()], handlers=after[0],
                                   orelse=[], finalbody=[]))
                out.extend(orelse)
                return after[1]
    # (a handler put back after its body, block_order.py: a clause may end with a copy of
    # the code at the join the body jumps to over the handler)
    handlers, handlers_end, handler_join = _except_clauses(
        walker, h, cleanup, stack, ctx, join if walker.source_order else None)
    if join is None:
        join = handler_join if handler_join is not None else handlers_end
    out.append(ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse, finalbody=[]))
    return max(join, handlers_end) if join < handlers_end and handler_join is None else join


def _after_try_in_clause(walker, h, cleanup, ctx):
    """3.12+: ``[(start, stop)]`` of the code after a try statement that only its except
    clauses reach, when the compiler laid it out after a clause's ``POP_EXCEPT`` (the
    block is cold like the handler: ``try: return f() / except E: pass / return v``; a
    small one is copied after each clause, and into each branch that ends one); else
    None. The try body and its else must end without falling through, or the code would
    be reached normally and stay in place; a ``return`` written in the clause computes
    its value before ``POP_EXCEPT``, and ``return <constant>`` reads the same both ways."""
    if not PROFILE.cold_handlers:
        return None
    instrs = walker.instrs
    region = range(h, cleanup + 3)
    found = []
    for q in range(h + 1, min(cleanup, walker.n)):
        e = walker.handler_at[q]
        if instrs[q].op != "POP_EXCEPT" or (e is not None and e.target in region):
            continue  # (a nested try's, or one the clause's cleanup protects)
        start = q + 1
        if _unbinds_name(walker, start):
            start += 3
        stop = start
        while stop < cleanup and instrs[stop].target is None and \
                not instrs[stop].is_target and instrs[stop].op not in _ENDS_BLOCK:
            stop += 1
        if stop >= cleanup or stop == start or instrs[stop].op not in EXITS or \
                all(ins.op in ("LOAD_CONST", "POP_TOP") for ins in instrs[start:stop]) or \
                instrs[start].op == "POP_TOP" or \
                any(ins.op == "SWAP" for ins in instrs[start:stop]) or \
                any(walker._same_code(start, fstart, length)
                    for fstart, length, _ in ctx.finally_copies):
            continue  # (a return in the clause unwinds loops and finally bodies first)
        if found and not (stop + 1 - start == found[0][1] - found[0][0] and
                          walker._same_code(start, found[0][0], stop + 1 - start)):
            return None  # two clauses fall into code of their own: not one statement after
        found.append((start, stop + 1))  # (copies: each branch of a clause, each clause)
    if not found:
        return None
    for ins in instrs[h:cleanup + 3]:
        if ins.op == "JUMP" and ins.target is not None and ins.target not in region and \
                not ENTRY.is_loop_jump(walker, ins):
            return None  # a clause goes on to code elsewhere: that is after the try
    return found


def _try_before_moved_code(walker, h, cleanup, body, body_end, moved, stack, out, ctx):
    """``try: body / except ...: / else: <up to the handler>`` then the code after the
    statement, which the compiler moved after a clause (``_after_try_in_clause``)."""
    else_end = min(h, walker.range_end)
    last = walker.instrs[else_end - 1] if else_end > 0 else None
    if last is None or last.op not in EXITS and not (
            last.op == "JUMP" and last.target is not None and last.target < last.index and
            last.target >= min(e.start for e in walker.entries if e.target == h) and
            not ENTRY.is_loop_jump(walker, last)):
        return None  # (a jump back inside the body: it ends with an endless loop)
    for start, stop in moved:
        walker.cleanup_starts[start] = stop  # (a copy ending a branch of a clause)
    moved, starts = moved[0], [start for start, _ in moved]
    length = moved[1] - moved[0]
    copied = else_end - length >= body_end and \
        walker._same_code(moved[0], else_end - length, length)
    if copied:
        # a small exit block copied after the clause and after the body (or its else):
        # the copy that ends the warm code is the statement after the try
        else_end -= length
    orelse = walker.walk(body_end, else_end, list(stack), ctx)[0] if else_end > body_end else []
    cold_blocks.skip_cold(walker, h, cleanup + 3)
    handlers = _except_clauses(walker, h, cleanup, stack, ctx, moved=starts)[0]
    out.append(ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse,
                       finalbody=[]))
    if not copied:
        del walker.cleanup_starts[moved[0]]
        walker.walk(moved[0], moved[1], list(stack), ctx, out=out)
    return else_end


def _protects_cold_code(walker, i, h):
    """Whether handler ``h`` protects code from ``i`` on (the try body is not itself a try
    statement, whose handler would protect it first) and its last range lies in the cold
    code."""
    if walker.handler_at[i] is None or walker.handler_at[i].target != h:
        return False
    end = max(e.end for e in walker.entries if e.target == h)
    return end - 1 in cold_blocks.cold_code(walker)


def _protected_end(walker, h, warm=False, except_only=False, start=None):
    """End of a try body: its last protected instruction, plus the unwinding and
    ``RETURN_VALUE`` of a ``return`` whose value was computed under the handler (the
    compiler leaves those out of the protected range)."""
    instrs = walker.instrs
    end = cold_blocks.warm_protected_end(walker, h, start) if warm else max(
        e.end for e in walker.entries
        if e.target == h and not (except_only and _throw_path(walker, e)))
    k = end
    if end > 0 and instrs[end - 1].op in POP_JUMPS and instrs[end - 1].target > end:
        # the test of an `if` is protected, its body `return <constant>` is not
        while k < h and instrs[k].op == "LOAD_CONST":
            k += 1
    while k < h and instrs[k].op in ("SWAP", "POP_TOP"):
        k += 1
    if k < h and k > end - (0 if instrs[end - 1].op in POP_JUMPS else 1) and \
            instrs[k].op == "RETURN_VALUE" and \
            instrs[end - 1].op not in ("RETURN_VALUE", "JUMP", "RERAISE", "RAISE_VARARGS"):
        return k + 1
    returned = _return_jumped_over(walker, h, end)
    return end if returned is None else returned


def _return_jumped_over(walker, h, end):
    """End of a ``return <constant>`` that follows the protected range ending at ``end``
    when a jump in the range goes just past it: the return ends an ``if`` body that ends
    the try body (``try: if c: f(); return`` / ``except E: ...``). The compiler leaves a
    constant return out of the protected range; read as the try's ``else``, the ``if``
    would jump to the return itself. None otherwise."""
    instrs = walker.instrs
    k = end
    while k < h and instrs[k].op == "LOAD_CONST" and not instrs[k].is_target:
        k += 1
    if k == end or k >= h or instrs[k].op != "RETURN_VALUE" or instrs[k].is_target or \
            instrs[end - 1].op in EXITS or instrs[end - 1].op == "JUMP":
        return None
    start = min(e.start for e in walker.entries if e.target == h)
    for q in range(start, end):
        ins = instrs[q]
        if ins.target == k + 1 and ins.op != "FOR_ITER" and not ENTRY.is_loop_jump(walker, ins):
            return k + 1
    return None


def _throw_path(walker, entry):
    """Whether ``entry`` only protects the throw path of an ``await``/``yield from``
    (``CLEANUP_THROW``, laid out after the code that follows it on 3.12+): it says
    nothing about where the body of a try/except ends (a finally's copies are found
    by matching them). Never every entry of a handler."""
    return entry.start < walker.n and walker.instrs[entry.start].op == "CLEANUP_THROW" and \
        any(e.target == entry.target and e is not entry and
            walker.instrs[e.start].op != "CLEANUP_THROW" for e in walker.entries)


def _try_body(walker, i, body_end, limit, stack, ctx, body_stack=None):
    """Walk a try body; a statement that started inside (``return x`` whose value was
    computed under the handler) may finish after the protected range."""
    if body_stack is None:
        body_stack = list(stack)
    body, k = walker.walk(i, body_end, body_stack, ctx)
    known = set(map(id, stack))
    while k < limit and any(id(v) not in known for v in body_stack):
        body, k = walker.walk(k, k + 1, body_stack, ctx, out=body)
    return body, k


def _handler_kind(walker, h):
    k = h + 1
    instrs = walker.instrs
    while k < walker.n:
        op = instrs[k].op
        if op in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH", "JUMP_IF_NOT_EXC_MATCH"):
            return "except"
        if op == "POP_TOP" and k == h + 1:
            return "except"
        if op.startswith("LOAD_") or op in ("BUILD_TUPLE", "PUSH_NULL"):
            k += 1
            continue
        if k > h + 1 and _computed_clause_type_end(walker, h + 1, k) != k:
            return "except"  # (`except A if c else B:`)
        return "finally"
    return "finally"


def _except_clauses(walker, h, cleanup, stack, ctx, falls_into=None, moved=None,
                    copies=None):
    """The except clauses of handler ``h``; ``falls_into``: where a cold handler's clauses
    go on (3.12+), whose exit block a clause may end with a copy of; ``moved``: where the
    code after the statement starts, laid out after a clause (``_after_try_in_clause``;
    several copies); ``copies``, a list: gets where each clause's copy of the exit block
    at ``falls_into`` starts; the answer is None at the first clause without one."""
    instrs = walker.instrs
    handlers = []
    k = h + 1
    hstack = list(stack)
    hstack.append(None)  # placeholder for PrevExc, replaced below
    hstack[-1] = PrevExc()
    end_of_handlers = (cleanup + 3) if cleanup is not None else walker.n
    join = None
    while k < walker.n:
        ins = instrs[k]
        if ins.op == "RERAISE":
            k += 1
            break
        # typed clause?
        clause_stack = list(hstack)
        exc = CurrentExc()
        clause_stack.append(exc)
        m = k
        while m < walker.n and instrs[m].op not in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH") and \
                (instrs[m].op.startswith("LOAD_") or instrs[m].op in ("BUILD_TUPLE", "PUSH_NULL")):
            m += 1
        if m < walker.n and m > k and instrs[m].op not in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH"):
            m = _computed_clause_type_end(walker, k, m)
        if m < walker.n and instrs[m].op in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH") and m > k:
            type_stack = list(clause_stack)
            walker.walk(k, m, type_stack, ctx)
            exc_type = type_stack[-1]
            jump = instrs[m + 1]
            if jump.op not in POP_JUMPS:
                walker.fail("except clause without its test jump", jump)
            next_clause = jump.target
            body_start = m + 2
        else:
            exc_type = None
            next_clause = cleanup if cleanup is not None else walker.n
            body_start = k
        store = instrs[body_start]
        hname = None
        if store.op == "POP_TOP":
            body_start += 1
        elif store.op.startswith("STORE_"):
            hname = store.argval
            body_start += 1
        body_stack = list(hstack)
        clause_end = min(next_clause, end_of_handlers)
        copied = _clause_exit_copy(walker, body_start, clause_end, falls_into)
        if copies is not None:
            if copied is None:
                # (_exit_copied_into_clauses: a clause without a copy answers for all; the
                # clauses are read again without copies, so none is walked twice)
                return None
            copies.append(copied)  # (where each clause's copy of the exit starts)
        ends = [m for m in moved or () if body_start <= m < clause_end]
        if ends:
            copied = max(ends)
        walk_end = clause_end
        if hname is not None and clause_end - 4 >= body_start and \
                instrs[clause_end - 1].op == "RERAISE" and \
                _unbinds_name(walker, clause_end - 4):
            # `except E as name:` ends with the handler that unbinds the name and
            # re-raises: no statement (unreachable when the clause protects no code)
            walk_end = clause_end - 4
        body, stop = walker.walk(body_start, copied or walk_end, body_stack,
                               ctx.but(handler_name=hname, open=ctx.open | {h}))
        # the last jump of the clause goes to the join point
        for q in range(body_start, clause_end):
            if instrs[q].op == "JUMP" and instrs[q].target >= end_of_handlers:
                if join is None or instrs[q].target < join:
                    join = instrs[q].target
        handlers.append(ast.ExceptHandler(type=exc_type, name=hname, body=body or [ast.Pass()]))
        if exc_type is None:
            k = clause_end
            break
        if next_clause <= k:
            walker.fail("except clause test jumps backwards", ins)
        k = next_clause
    return handlers, max(k, end_of_handlers), join


_EXIT_BLOCK_ENDS = frozenset(["RAISE_VARARGS", "RETURN_VALUE", "RETURN_CONST"])


def _exit_copied_into_clauses(walker, h, cleanup, stack, ctx, exit_start):
    """(clauses, end) when every except clause of handler ``h`` ends with a copy of the
    exit block at ``exit_start`` (see _clause_exit_copy), else None. (Before 3.12 no clause
    has one: nothing is walked.)"""
    if not PROFILE.lined_exit_copies:
        return None
    copies = []
    found = _except_clauses(walker, h, cleanup, stack, ctx, exit_start, copies=copies)
    if found is None or not copies:
        return None
    return found[0], found[1]


def _computed_clause_type_end(walker, k, m):
    """Where the test of a clause whose type is computed with jumps (``except A if c else
    B:``) ends: its CHECK_EXC_MATCH, reached from ``k`` through expression code only;
    ``m`` (no clause test) when there is none."""
    instrs = walker.instrs
    q = m
    while q < walker.n and q - k < 40:
        op = instrs[q].op
        if op in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH"):
            return q if all(k <= ins.target <= q for ins in instrs[k:q]
                            if ins.target is not None) else m
        if op == "POP_TOP" or op.startswith(("STORE_", "DELETE_", "POP_EXCEPT", "RERAISE",
                                             "RETURN_", "RAISE_", "PUSH_EXC_INFO")):
            return m
        q += 1
    return m


def _clause_exit_copy(walker, start, end, join):
    """Where an except clause [start, end) that falls into ``join`` really ends, when 3.12+
    copied the code at ``join`` (a small exit block: straight code ending in RETURN_VALUE,
    as in ``except E: pass`` before a final ``return v``) after the clause's POP_EXCEPT:
    the copy is the code after the try, not a ``return`` in the clause. None otherwise."""
    if join is None or not PROFILE.lined_exit_copies:
        return None
    instrs = walker.instrs
    length = 0
    while join + length < walker.n and length < 10 and \
            instrs[join + length].target is None and \
            instrs[join + length].op not in ("RERAISE", "POP_EXCEPT"):
        length += 1
        if instrs[join + length - 1].op in ("RETURN_VALUE", "RETURN_CONST",
                                            "RAISE_VARARGS"):
            # (a `raise` after the statement: one written in the clause raises before
            # its POP_EXCEPT)
            break
    else:
        return None
    stop = end
    if end - 4 >= start and instrs[end - 1].op == "RERAISE" and _unbinds_name(walker, end - 4):
        stop -= 4  # `except E as name:` ends with the handler that unbinds it, raising
    copy = stop - length
    q = copy - 1
    if q - 3 >= start and _unbinds_name(walker, q - 2):
        q -= 3  # and unbinds it after POP_EXCEPT
    if q >= start and instrs[q].op == "POP_EXCEPT" and walker._same_code(copy, join, length):
        return copy
    return None


def _unbinds_name(walker, k):
    """Whether ``instrs[k:k + 3]`` is ``name = None; del name`` (after ``except E as
    name``)."""
    instrs = walker.instrs
    if k < 0 or k + 2 >= walker.n:
        return False
    load, store, delete = instrs[k], instrs[k + 1], instrs[k + 2]
    return load.op == "LOAD_CONST" and load.argval is None and \
        store.op.startswith("STORE_") and delete.op.startswith("DELETE_") and \
        store.argval == delete.argval


def _try_finally(walker, i, h, body_end, cleanup, stack, out, ctx, opened):
    instrs = walker.instrs
    if cleanup is None or instrs[cleanup - 1].op != "RERAISE":
        walker.fail("finally handler without its re-raise", instrs[h])
    fstart, fend = h + 1, cleanup - 1
    length = fend - fstart
    if stack and walker.kind != "comprehension":
        # generated code: values computed before the try wait on the stack for code in
        # or after it; they must not be evaluated under the handler
        walker.spill(stack, out, len(out))
    # the compiler copies the final RERAISE into each branch that ends the finally body
    # (`finally: if x: ... else: ...`): those copies end the body, they raise nothing
    ends = dict((k, fend) for k in finally_reraise_ends_of(walker, fstart, fend))
    saved_ends = walker.finally_reraise_ends
    if ends:
        walker.finally_reraise_ends = dict(saved_ends)
        walker.finally_reraise_ends.update(ends)
    try:
        finalbody, _ = walker.walk(fstart, fend, [*stack, CurrentExc()],
                                 ctx.but(open=ctx.open | {h}))
    finally:
        walker.finally_reraise_ends = saved_ends
    copies = ctx.finally_copies + ((fstart, length, h),)
    inner = ctx.but(open=opened, finally_copies=copies)
    pre_handler = h
    join = cleanup + 3
    if h > 0 and instrs[h - 1].op == "JUMP" and instrs[h - 1].target > h:
        join = instrs[h - 1].target
        pre_handler = h - 1
    cold = False
    body_stack = list(stack)
    if PROFILE.cold_handlers and body_end < h and body_end - 1 in cold_blocks.cold_code(walker):
        # the handler also protects the cold handler of a try in the body (its cleanup),
        # laid out after the warm code: where the warm code it protects ends is the
        # return whose copy of the finally body follows (importlib.reload)
        warm_end = _protected_end(walker, h, warm=True, start=i)
        if _returning_copy_end(walker, warm_end, fstart, fend, True) == pre_handler:
            body_end = warm_end
    if PROFILE.cold_handlers and body_end >= h:
        body_end = _normal_exit_copy(walker, i, h, fstart, length, body_end)
    elif PROFILE.cold_handlers and not walker._same_code(body_end, fstart, length) and \
            _returning_copy_end(walker, body_end, fstart, fend) is None:
        # (the protected range runs on over a cold except clause of the try body that
        # jumps back to the normal exit's copy, before it)
        body_end = min(body_end, _normal_exit_copy(walker, i, h, fstart, length, body_end))
    # 3.12+: the handler lies past the range walked, which ends at the copy (a `finally:
    # pass` around this try ends its own body there, before the return that follows the
    # copy): the cold path below reads it
    beyond = pre_handler > walker.range_end and PROFILE.cold_handlers and \
        cold_blocks.cold_try_join(walker, h, body_end, cleanup + 3) is not None
    if not beyond and (
            walker._same_code(body_end, fstart, length) and body_end + length == pre_handler
            or _returning_copy_end(walker, body_end, fstart, fend) == pre_handler
            or (not PROFILE.cold_handlers or walker.source_order)
            and _returning_copy_end(walker, body_end, fstart, fend, falls_to=pre_handler,
                                         join=join) == pre_handler):
        # (the second: a try/finally that ends the function, whose finally body has
        # branches or a loop: the normal exit's copy ends each way out with the
        # implicit `return None`; the third: one that does not end it, whose finally
        # body's branches each re-raise where the normal exit's copy goes on after the
        # statement, or jumps there, `finally: if c: f()`; from 3.12 the handler is laid
        # out after the code that follows, and the cold path below reads that)
        body, _ = _try_body(walker, i, body_end, pre_handler, stack, inner, body_stack)
        returned = _returned_after_jump(walker, pre_handler, stack, body_stack, body)
        if returned is not None:
            # `with m: try: return v / finally: f()` (3.12+, handlers put back,
            # block_order.py): the copy jumps to the with's exit, which returns v
            body.append(ast.Return(value=walker.value(body_stack.pop(), instrs[pre_handler])))
            join = returned
    elif not beyond and \
            _returning_copy_end(walker, body_end, fstart, fend, True) in (
                pre_handler, _warm_end_before(walker, pre_handler)) and \
            _returns_value(walker, i, body_end, body_stack, inner):
        # `try: return v finally: <branches>`: v is computed under the handler, and each
        # way out of the normal exit's copy returns it
        body, _ = walker.walk(i, body_end, body_stack, inner)
        body.append(ast.Return(value=walker.value(body_stack.pop(), instrs[body_end])))
    elif cold_blocks.cold_try_join(walker, h, body_end, cleanup + 3) is not None:
        # 3.12+: the handler lies past the code that follows; the normal exit's copy of
        # the finally body (if the body can end) is where the statement ends
        end = min(h, walker.range_end)
        copy_end = None
        if walker._same_code(body_end, fstart, length):
            end = body_end + length
            ret = _past_enclosing_copies(walker, end, ctx)
            if ret < walker.n and walker.instrs[ret].op == "RETURN_VALUE":
                # `return value` computed in the body, after the copy (and the copies of
                # the finally bodies around this statement, which the return runs too)
                end = ret + 1
        else:
            # a finally body with branches: each way out of the normal exit's copy goes
            # on where the first one does (`finally: if c: f()`, then more code)
            copy_end = _returning_copy_end(walker, body_end, fstart, fend,
                                                falls_to=_WHERE_THE_FIRST_EXIT_GOES)
        if copy_end is not None and body_end < copy_end <= end and \
                walker.instrs[copy_end].op not in ("RETURN_VALUE", "RETURN_CONST"):
            end = copy_end
            body, _ = _try_body(walker, i, body_end, end, stack, inner, list(stack))
        else:
            body, _ = walker.walk(i, end, list(stack), inner)
        join = pre_handler = end
        cold_blocks.skip_cold(walker, h, cleanup + 3)
        cold = True
    else:
        body, _ = walker.walk(i, pre_handler, body_stack, inner)
    if not cold:
        _carry_stack(walker, stack, body_stack, body, instrs[h])
    if join > walker.range_end:
        join = walker.range_end
    out.extend(try_finally(body, finalbody, PROFILE.cold_handlers))
    if cold:
        return join
    return max(join, cleanup + 3) if join < cleanup + 3 else join


# what may run between a value computed in a try body and its return: the exits of the
# with statements around it (the value swapped below each exit call) and the pops of the
# iterators of loops around it
_RETURN_UNWINDING = frozenset(["SWAP", "LOAD_CONST", "CALL", "POP_TOP"])


def _returned_after_jump(walker, k, stack, body_stack, body):
    """Where the return ends that the jump at ``k`` reaches, when the try body left one
    value of its own and that code only unwinds (with exits, loop iterators) and returns
    it; None otherwise."""
    instrs = walker.instrs
    if instrs[k].op != "JUMP" or len(body_stack) != len(stack) + 1 or \
            any(a is not b for a, b in zip(stack, body_stack)) or \
            (body and isinstance(body[-1], (ast.Return, ast.Raise))):
        return None
    j = instrs[k].target
    if j >= walker.n or instrs[j].op != "SWAP":
        return None
    q = j
    while q < walker.n and q - j < 24 and instrs[q].op in _RETURN_UNWINDING and \
            (instrs[q].op != "LOAD_CONST" or instrs[q].argval is None) and \
            not instrs[q].is_target or q == j:
        q += 1
    if q < walker.n and instrs[q].op == "RETURN_VALUE" and q + 1 <= walker.range_end:
        return q + 1
    return None


def _warm_end_before(walker, k):
    """3.12+: where the warm code ends that runs up to ``k``, past the cold handlers of
    earlier statements laid out before it (``k`` where there are none)."""
    if not PROFILE.cold_handlers:
        return k
    cold = cold_blocks.cold_code(walker)
    while k > 0 and k - 1 in cold:
        k -= 1
    return k


def _past_enclosing_copies(walker, k, ctx):
    """``k``, past the copies of the enclosing statements' finally bodies that start there
    (innermost first, as a return runs them)."""
    for fstart, length, _ in reversed(ctx.finally_copies):
        if length and walker._same_code(k, fstart, length):
            k += length
    return k


def _normal_exit_copy(walker, i, h, fstart, length, default):
    """3.12+: where the finally body's copy for the normal exit starts, when no warm
    code is protected by the finally handler itself (the try body is a try/except whose
    handlers lie with it in the cold code): the first copy in the warm code after
    ``i`` that a cold clause jumps back to; ``default`` when there is none."""
    cold = cold_blocks.cold_code(walker)
    back = set(ins.target for k, ins in enumerate(walker.instrs)
               if k in cold and ins.op == "JUMP" and ins.target is not None)
    for p in range(i + 1, min(h, walker.range_end)):
        if p in back and p not in cold and (
                walker._same_code(p, fstart, length) or
                # (a finally body with branches: each way out of its copy returns or
                # goes on where the first one does, `finally: if c: f()`)
                _returning_copy_end(walker, p, fstart, fstart + length) is not None or
                _returning_copy_end(walker, p, fstart, fstart + length,
                                    falls_to=_WHERE_THE_FIRST_EXIT_GOES) is not None):
            return p
    # no clause comes back (each raises or returns): the copy right where the warm code
    # the handler protects (through the try/except's handler) ends, `try: r = f() /
    # except E: raise / finally: g()` then `return r`
    for p in range(i + 1, min(h, walker.range_end)):
        if p in cold or not walker._same_code(p, fstart, length) or \
                p + length >= walker.n or walker.instrs[p + length].op == "RETURN_VALUE" or \
                not walker.instrs[p - 1].op.startswith(_STATEMENT_ENDS):
            continue  # (a value returned past the copy, `try: return f()`: the body's)
        if any(ins.target is not None and i <= ins.target <= p < ins.index
               for ins in walker.instrs[p:h]):
            continue  # (inside a loop of the body: the copy of a return or break in it)
        if _handled_by(walker, p - 1, h) and not _handled_by(walker, p, h) and not any(
                q not in cold and _handled_by(walker, q, h)
                for q in range(p + length, min(h, walker.range_end))):
            return p  # (and no protected code after it: not the copy ending one branch)
    return default


# how the last instruction of a statement that leaves nothing on the stack starts
_STATEMENT_ENDS = ("STORE_", "DELETE_", "POP_TOP")


def _handled_by(walker, k, h):
    """Whether an exception at ``k`` reaches the handler at ``h``."""
    return any(e.target == h for e in walker.chain(k))


def op_RERAISE(walker, ins, stack, out):
    end = walker.finally_reraise_ends.get(ins.index)
    if end is not None:
        return end  # a copy of the finally body's own exit: the body ends here
    return StatementWalker.op_RERAISE(walker, ins, stack, out)


def _returns_value(walker, start, end, body_stack, ctx):
    """Whether the try body [start, end) ends by computing one value (``return v``)."""
    trial = list(body_stack)
    try:
        walker.walk(start, end, trial, ctx)
    except DecompilationError:
        return False
    return len(trial) == len(body_stack) + 1


def _returning_copy_end(walker, start, fstart, fend, value=False, falls_to=None, join=None,
                        copied_tail=None):
    """Where the normal exit's copy of the finally body [fstart, fend] starting at
    ``start`` ends, when it is that body with each exit (the final RERAISE and its copies)
    a ``return None`` (``value``: a RETURN_VALUE of a value computed before; ``falls_to``:
    no instruction at all, the copy going on at index ``falls_to`` after the statement,
    or a JUMP to ``join``, where the statement is left; with _WHERE_THE_FIRST_EXIT_GOES,
    both are where the first exit met goes on; ``copied_tail``, a list: the same short
    block that returns at every exit, the code after the statement copied there by 3.10,
    whose (start, length) at the first exit is appended); None when it is not."""
    instrs = walker.instrs
    if copied_tail is not None:
        def return_at(k):
            at, size = k, _short_return_at(walker, k)
            if size is None and k < walker.n and instrs[k].op == "JUMP" and \
                    instrs[k].target > k:
                # (normalization folds a copy back into a jump to a later one)
                at = instrs[k].target
                size = _short_return_at(walker, at)
            if size is None:
                return None
            if not copied_tail:
                copied_tail.append((at, size))
            else:
                first, length = copied_tail[0]
                if size != length or not (at == first or walker._same_code(first, at, size)):
                    return None
            return size if at == k else 1
    elif falls_to is not None:
        goes_on = [None, join] if falls_to is _WHERE_THE_FIRST_EXIT_GOES else \
            [falls_to, join]

        def return_at(k):
            if goes_on[0] is None:  # the first exit says where the statement goes on
                if k < walker.n and instrs[k].op == "JUMP" and instrs[k].target > k:
                    goes_on[:] = [instrs[k].target, instrs[k].target]
                else:
                    goes_on[:] = [k, k]
            if k == goes_on[0]:
                return 0
            if k < walker.n and instrs[k].op == "JUMP" and instrs[k].target == goes_on[1]:
                return 1
            return None
    elif value:
        def return_at(k):
            return 1 if k < walker.n and instrs[k].op == "RETURN_VALUE" else None
    else:
        def return_at(k):
            return _return_none_at(walker, k) or None
    at = {}  # handler index -> copy index
    jumps = []
    exits = finally_reraise_ends_of(walker, fstart, fend)
    k, j = start, fstart
    while j <= fend:
        if j == fend and j > fstart and instrs[j - 1].op in NO_FALLTHROUGH and \
                return_at(k) is None and not _same_reraise(instrs[j], k, instrs) and \
                not (PROFILE.setup_blocks and falls_to is None and not value):
            # (not for handlers_legacy's returning copies of `return None`: there the copy
            # of an exit the code falls into may be the `return None` written after the
            # statement; a copy returning a value computed before cannot be, and 3.9
            # leaves out the copy of an exit nothing reaches: a finally body ending in a
            # try/except)
            break  # only jumps reach the final exit, and each has its copy of the exit
        if k >= walker.n:
            return None
        a, b = instrs[j], instrs[k]
        at[j] = k
        if a.op == "RERAISE" and (j == fend and not a.arg and
                                  not _same_reraise(a, k, instrs) or
                                  j in exits and not (PROFILE.setup_blocks and
                                                      _same_reraise(a, k, instrs))) or \
                a.op == "JUMP" and a.target == fend:
            # (a jump to the final exit is written as a copy of the exit; a finally body
            # that ends with a try/except ends with that statement's own cleanup,
            # RERAISE 1, which is copied as it is, or before 3.11 with its re-raise of
            # an unmatched exception, RERAISE 0, which the copy has too)
            size = return_at(k)
            if size is None:
                return None
            k, j = k + size, j + 1
            continue
        if a.op == "PUSH_EXC_INFO":
            moved = _copied_handler(walker, j, at)
            if moved is not None and moved != k:
                k = moved  # (3.12+: the copy's handler is cold, laid out elsewhere)
                b = instrs[k]
                at[j] = k
        if a.op != b.op or (a.target is None) != (b.target is None):
            return None
        if a.target is not None:
            jumps.append((a.target, b.target))
        elif not same_argument(a, b):
            return None
        k, j = k + 1, j + 1
    for target, copied in jumps:
        if not fstart <= target <= fend:
            return None
        if target == fend and (copied >= walker.n or return_at(copied) is not None):
            continue  # the exit, jumped to: any copy of the return will do (one beyond
            # the code is a detached copy of the function's exit, statements.ExitBlocks)
        if at.get(target) != copied:
            return None
    # copies of the return that only jumps from the copy reach (`while` in the finally
    # body: the test that skips the loop goes to one of its own) belong to it too
    targets = set(copied for _, copied in jumps)
    while k in targets and return_at(k):  # (a copy of no instruction adds none)
        k += return_at(k)
    return k


def _copied_handler(walker, j, at):
    """Where the copy of the handler at ``j`` (a try nested in a finally body) starts: the
    handler of the copy of an instruction that ``j`` protects; None when unknown."""
    for e in walker.entries:
        if e.target != j:
            continue
        for q in range(e.start, e.end):
            copied = at.get(q)
            if copied is not None and walker.handler_at[copied] is not None:
                target = walker.handler_at[copied].target
                if walker.instrs[target].op == "PUSH_EXC_INFO":
                    return target
    return None


def _short_return_at(walker, k):
    """The length of the block at ``k`` when it is straight code of at most four
    instructions ending in a RETURN_VALUE after at least one more (3.10 copies such exit
    blocks into the jumps to them), else None."""
    instrs = walker.instrs
    for size in range(2, 5):
        end = k + size - 1
        if end >= walker.n or instrs[end - 1].target is not None or \
                instrs[end - 1].op in NO_FALLTHROUGH:
            return None
        if instrs[end].op == "RETURN_VALUE":
            return size
    return None


def finally_reraise_ends_of(walker, fstart, fend):
    """The RERAISEs in [fstart, fend) that are copies of the one at ``fend``: same
    handler (a RERAISE of a try nested in the finally body has its own)."""
    final_handlers = _handlers_of(walker, fend)
    return set(k for k in range(fstart, fend) if walker.instrs[k].op == "RERAISE"
               and not walker.instrs[k].arg and _handlers_of(walker, k) == final_handlers)


def _return_none_at(walker, k):
    instrs = walker.instrs
    if k >= walker.n:
        return 0
    if instrs[k].op == "RETURN_CONST" and instrs[k].argval is None:
        return 1
    if k + 1 < walker.n and instrs[k].op == "LOAD_CONST" and instrs[k].argval is None and \
            instrs[k + 1].op == "RETURN_VALUE":
        return 2
    return 0


def _carry_stack(walker, stack, body_stack, body, ins):
    """Generated code (Dynamo) may consume in a try body values pushed before the try and
    leave values computed in it for the code after it: values the body leaves are
    assigned to temporaries at its end, and the walk goes on with the body's stack."""
    if len(stack) == len(body_stack) and all(a is b for a, b in zip(stack, body_stack)):
        return
    if body and isinstance(body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        # the body leaves by a jump: its stack is what that jump unwound to, and the code
        # after the try is not reached from here
        return
    before = set(map(id, stack))
    for k, value in enumerate(body_stack):
        if id(value) in before or isinstance(value, Null):
            continue
        if not isinstance(value, ast.expr):
            walker.fail("a try body leaves an interpreter value on the stack", ins)
        if isinstance(value, ast.Constant) or getattr(value, "_temp", False):
            continue
        temp = walker.new_temp()
        body.append(ast.Assign(targets=[name(temp, ast.Store())], value=value, lineno=0))
        body_stack[k] = name(temp)
        body_stack[k]._temp = True
    stack[:] = body_stack


# -- with ------------------------------------------------------------------------------
def op_BEFORE_WITH(walker, ins, stack, out):
    return _with(walker, ins, stack, out, False)


def op_BEFORE_ASYNC_WITH(walker, ins, stack, out):
    return _with(walker, ins, stack, out, True)


def _with(walker, ins, stack, out, is_async):
    instrs = walker.instrs
    manager = walker.value(walker.pop(stack, ins), ins)
    k = ins.index + 1
    if is_async:
        # GET_AWAITABLE + SEND_LOOP of __aenter__()
        while k < walker.n and instrs[k].op != "SEND_LOOP":
            k += 1
        k += 1
    entry = walker.handler_at[k] if k < walker.n else None
    if entry is None:
        walker.fail("with statement without its exit handler", ins)
    w = entry.target
    exit_marker = WithExit(manager, is_async)
    exit_marker.target = None
    body_stack = list(stack)
    body_stack.append(exit_marker)
    if PROFILE.unbound_exit:
        # 3.14+ keeps __exit__ unbound: the manager sits above it as the call's self
        body_stack.append(Marker())
    body_stack.append(WithEnter(exit_marker))
    # the normal exit: LOAD_CONST None x3; CALL 2; [await]; POP_TOP; [JUMP join]
    pre = w
    join = None
    if instrs[w - 1].op == "JUMP" and instrs[w - 1].target > w:
        join = instrs[w - 1].target
        pre = w - 1
    exit_start = _exit_call_start(walker, pre)
    body_end = exit_start if exit_start is not None else pre
    cold = cold_blocks.cold_with_exit(walker, w) if join is None else None
    if cold is not None:  # 3.12+: the exit handler lies past the code that follows
        body_end, join, stop = cold
        cold_blocks.skip_cold(walker, w, stop)
    ctx = walker.ctx.but(open=walker.ctx.open | {w})
    handler_end = _with_handler_end(walker, w)
    if join is not None and join >= handler_end and w in _handlers_of(walker, join):
        return _split_with(walker, ins, k, pre, join, w, exit_marker, stack, body_stack,
                                out, ctx)
    body, _ = walker.walk(k, body_end, body_stack, ctx)
    if cold is None and (join is None or join < handler_end):
        join = handler_end if join is None else join
    item = ast.withitem(context_expr=manager, optional_vars=exit_marker.target)
    node_type = ast.AsyncWith if is_async else ast.With
    out.append(node_type(items=[item], body=body or [ast.Pass()], type_comment=None))
    return min(join, walker.range_end) if join > walker.range_end else join


def _handlers_of(walker, k):
    return [e.target for e in walker.chain(k)] if k < walker.n else []


def _split_with(walker, ins, k, pre, resume, w, exit_marker, stack, body_stack, out, ctx):
    """Generated code (a Dynamo resume function) enters the ``with``, runs a prologue and
    jumps over the exit handler to where the body goes on, still under that handler::

        BEFORE_WITH; POP_TOP; prologue; JUMP resume
        W: exit handler; code after the with (reached only when __exit__ suppresses)
        resume: rest of the body, ending in a return

    The body is the prologue plus the code from ``resume``; the code between the handler
    and ``resume`` follows the with statement.  Without a return at the end the normal
    exit would go elsewhere than the suppressed one, which has no source form."""
    instrs = walker.instrs
    known = set(map(id, body_stack))
    if instrs[resume - 1].op not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
        walker.fail("with statement split around its exit handler: the code after the "
                  "handler falls into the rest of the body", instrs[resume - 1])
    body, _ = walker.walk(k, pre, body_stack, ctx)
    end = resume
    while end < walker.range_end and w in _handlers_of(walker, end):
        end += 1
    if end >= walker.range_end:
        walker.fail("with statement split around its exit handler runs past the enclosing "
                  "statement", ins)
    body, end = walker.walk(resume, end, body_stack, ctx, out=body)
    # `return value` computed in the body: the exit call and RETURN_VALUE follow
    while end < walker.range_end and any(id(v) not in known for v in body_stack):
        body, end = walker.walk(end, end + 1, body_stack, ctx, out=body)
    if not body or not isinstance(body[-1], (ast.Return, ast.Raise)):
        walker.fail("with statement split around its exit handler whose body can fall "
                  "through: the normal and the suppressed exit go on differently", ins)
    item = ast.withitem(context_expr=exit_marker.manager, optional_vars=exit_marker.target)
    node_type = ast.AsyncWith if exit_marker.is_async else ast.With
    out.append(node_type(items=[item], body=body, type_comment=None))
    after, _ = walker.walk(_with_handler_end(walker, w), resume, list(stack), walker.ctx)
    out.extend(after)
    return end


def _exit_call_start(walker, pre):
    instrs = walker.instrs
    k = pre - 1
    if k >= 0 and instrs[k].op == "POP_TOP":
        k -= 1
        if k >= 0 and instrs[k].op == "SEND_LOOP":
            k -= 1
            if k >= 0 and instrs[k].op == "GET_AWAITABLE":
                k -= 1
        if k >= 0 and instrs[k].op in ("CALL", "CALL_FUNCTION"):
            start = k - 3
            if start >= 0 and all(instrs[start + q].op == "LOAD_CONST" and
                                  instrs[start + q].argval is None for q in range(3)):
                return start
    return None


def _with_handler_end(walker, w):
    instrs = walker.instrs
    k = w
    # PUSH_EXC_INFO WITH_EXCEPT_START [await] POP_JUMP_IF_TRUE x; RERAISE 2; cleanup(3);
    # x: POP_TOP POP_EXCEPT POP_TOP POP_TOP
    while k < walker.n and instrs[k].op not in POP_JUMPS:
        k += 1
    if k >= walker.n:
        return walker.n
    x = instrs[k].target
    # 3.14+ keeps __exit__ and its self below the exception: one more POP_TOP
    return x + (5 if PROFILE.unbound_exit else 4)


# -- async for -------------------------------------------------------------------------
def op_GET_ANEXT(walker, ins, stack, out):
    it = stack[-1]
    entry = walker.handler_at[ins.index]
    if entry is None or walker.instrs[entry.target].op != "END_ASYNC_FOR":
        walker.fail("async for without END_ASYNC_FOR", ins)
    end = entry.target
    k = ins.index + 1
    while k < end and walker.instrs[k].op != "SEND_LOOP":
        k += 1
    loop_last = end - 1
    break_target = ENTRY.break_target(walker, ins.index, end, end + 1)
    loop = Loop(ins.index, (ins.index,), break_target, loop_last, "async for", body_start=k + 1)
    body_stack = list(stack)
    item = LoopItem()
    body_stack.append(item)
    ctx = walker.ctx.but(loop=loop, open=walker.ctx.open | {end})
    body, _ = walker.walk(k + 1, end, body_stack, ctx)
    stack.pop()
    target = getattr(item, "target", None)
    if target is None:
        walker.fail("async for without a target", ins)
    orelse = []
    nxt = end + 1
    if break_target > end + 1:
        orelse, _ = walker.walk(end + 1, break_target, list(stack), walker.ctx)
        nxt = break_target
    out.append(ast.AsyncFor(target=target, iter=it.iterable, body=body or [ast.Pass()],
                            orelse=orelse, type_comment=None))
    return nxt
