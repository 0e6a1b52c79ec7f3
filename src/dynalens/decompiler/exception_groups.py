"""``try``/``except*`` (PEP 654) from the 3.11+ exception table.

CPython's ``compiler_try_star_except`` emits, unlike a plain ``try``/``except``, the ``else``
body *after* the handlers, and collects what each clause does not handle in a list that
``PREP_RERAISE_STAR`` turns into the group to re-raise::

    try body                         [handler H]
    JUMP orelse
    H: PUSH_EXC_INFO; COPY 1; BUILD_LIST 0; SWAP 2
       per clause:  <type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE no_match
                    STORE name | POP_TOP
                    <body>                        [handler E: exceptions raised in the body]
                    [name = None; del name]; JUMP next
                 E: [name = None; del name]; LIST_APPEND 3; POP_TOP; JUMP next
          no_match: POP_TOP
             next:
       LIST_APPEND 1; PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE reraise
       POP_TOP; POP_EXCEPT; JUMP end
       reraise: SWAP 2; POP_EXCEPT; RERAISE 0
       cleanup: COPY 3; POP_EXCEPT; RERAISE 1
    orelse: <else body>
    end:

``JUMP end`` (and ``JUMP orelse`` when there is no ``else``) become copies of the final
``return None`` when the statement ends the code.  The clause bodies cannot ``return``,
``break`` or ``continue`` (the compiler forbids it), so no unwinding shows up inside them.
"""

import ast

from .emit import strip_trailing_return
from .expressions import CurrentExc, Marker, PrevExc
from .profile import PROFILE
from . import patterns
from . import cold_blocks
from . import handlers
from . import branches


def _is_list_append_1(ins):
    return ins.op == "LIST_APPEND" and ins.argval == 1


def _real_target(jump):
    return jump.target if jump.original_target is None else jump.original_target


def _prep_reraise_star(ins):
    """PREP_RERAISE_STAR (3.11), CALL_INTRINSIC_2 INTRINSIC_PREP_RERAISE_STAR (3.12+)."""
    return ins.op == "PREP_RERAISE_STAR" or (
        ins.op == "CALL_INTRINSIC_2" and ins.arg == 1)  # the only intrinsic-2 that 3.12 has


def _merge_finally(node):
    """``try: <try/except*> finally: ...`` is how the compiler sees ``try/except*/finally``:
    one statement again."""
    if isinstance(node, ast.Try) and not node.handlers and not node.orelse and \
            node.finalbody and len(node.body) == 1 and isinstance(node.body[0], ast.TryStar) \
            and not node.body[0].finalbody:
        inner = node.body[0]
        inner.finalbody = node.finalbody
        return inner
    return node


class _Unhandled(Marker):
    """The list of exceptions the clauses re-raise (``BUILD_LIST 0`` of the template)."""


def do_try(walker, i, entry, stack, out, ctx):
    """The try statement whose body starts at ``i`` (``entry``: its exception entry):
    ``except*`` clauses read here, any other try by the plain reader (handlers.py), whose
    ``try: <try/except*> finally:`` becomes one statement again."""
    if _is_except_star(walker, entry.target):
        return _try_star(walker, i, entry.target, stack, out, ctx)
    at = len(out)
    nxt = handlers.do_try(walker, i, entry, stack, out, ctx)
    if len(out) == at + 1:
        out[at] = _merge_finally(out[at])
    return nxt


def _star_prologue(walker, h):
    """Length of the handler prologue that makes ``h`` an ``except*`` handler (0: not
    one).  3.11: PUSH_EXC_INFO; COPY 1; BUILD_LIST 0; SWAP 2 -- 3.12+: PUSH_EXC_INFO;
    BUILD_LIST 0; COPY 2 (the same stack)."""
    instrs = walker.instrs
    if h + 4 >= walker.n or instrs[h].op != "PUSH_EXC_INFO":
        return 0
    ops = [(instrs[h + q].op, instrs[h + q].argval) for q in (1, 2, 3)]
    if ops == [("COPY", 1), ("BUILD_LIST", 0), ("SWAP", 2)]:
        return 4
    if ops[:2] == [("BUILD_LIST", 0), ("COPY", 2)]:
        return 3
    return 0


def _is_except_star(walker, h):
    return bool(_star_prologue(walker, h))


def _try_star(walker, i, h, stack, out, ctx):
    instrs = walker.instrs
    cleanup_entry = walker.handler_at[h]
    if cleanup_entry is None:
        walker.fail("except* handler without its cleanup", instrs[h])
    cleanup = cleanup_entry.target
    pre_handler = h
    orelse_start = None
    before = instrs[h - 1] if h > 0 else None
    if before is not None and before.op == "JUMP" and not branches._is_loop_jump(walker, before):
        target = before.target if before.original_target is None else before.original_target
        if target > h:
            orelse_start = target
            pre_handler = h - 1
    body, body_end = handlers._try_body(walker, i, handlers._protected_end(walker, h),
                                        pre_handler, stack, ctx.but(open=ctx.open | {h}))
    _skip_copied_appends(walker, h, cleanup)
    star_clauses, k = _star_clauses(walker, h + _star_prologue(walker, h), h, stack, ctx)
    end = _star_tail(walker, k, cleanup)
    after_cleanup = cleanup + 3
    if orelse_start is None and body_end < h and PROFILE.cold_handlers:
        return _cold_try_star(walker, body, star_clauses, body_end, h, end, after_cleanup,
                                   k + 6, stack, out, ctx)
    orelse = []
    if end is None or end < h:
        # the handlers end in a copy of the final return (or go back to a loop head):
        # what follows the cleanup is the else body when the try body jumps there
        end = walker.range_end if orelse_start == after_cleanup else after_cleanup
    if orelse_start is not None and orelse_start < end:
        orelse, _ = walker.walk(orelse_start, min(end, walker.range_end), list(stack), ctx)
        strip_trailing_return(orelse)
    node = ast.TryStar(body=body or [ast.Pass()], handlers=star_clauses, orelse=orelse,
                       finalbody=[])
    out.append(node)
    return max(min(end, walker.range_end), after_cleanup)


def _cold_try_star(walker, body, star_clauses, body_end, h, end, after_cleanup, copy_start,
                   stack, out, ctx):
    """3.12+ moved the handlers past the code after the statement: the try body falls
    into the else body, and the handlers jump back to the join after it -- or, when
    what follows the statement is a short exit, end in a copy of it (``copy_start``):
    then the join is where the code before the handlers ends with that same exit."""
    join = body_end
    loop = ctx.loop
    if end is not None and body_end <= end <= h:
        join = end
    elif end is not None and loop is not None and end in loop.continue_targets:
        # the handlers go straight back to the loop head (3.14 tests a `while` there):
        # past the else the body falls into, which runs to the end of the loop body
        # (except* clauses cannot `continue`)
        join = max(body_end, min(patterns._region_end(walker), h))
        end = None
    elif end is None:
        stop = copy_start
        while stop < walker.n and walker.instrs[stop].op not in (
                "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"):
            stop += 1
        length = stop + 1 - copy_start
        limit = min(h, walker.range_end)
        if limit - length >= body_end and walker._same_code(limit - length, copy_start,
                                                          length):
            join = limit - length
    orelse = []
    if join > body_end:
        orelse, _ = walker.walk(body_end, join, list(stack), ctx)
    cold_blocks.skip_cold(walker, h, after_cleanup, join if end is not None else None)
    out.append(ast.TryStar(body=body or [ast.Pass()], handlers=star_clauses, orelse=orelse,
                           finalbody=[]))
    return join


def _skip_copied_appends(walker, h, cleanup):
    """3.13 copies the ``LIST_APPEND 1`` before PREP_RERAISE_STAR onto every exit of a
    clause (a with exit inside one, say): ``LIST_APPEND 1; JUMP prep`` is no statement."""
    instrs = walker.instrs
    prep = next((q for q in range(h, min(cleanup, walker.n)) if _prep_reraise_star(instrs[q])),
                None)
    if prep is None:
        return
    for q in range(h, prep - 1):
        if _is_list_append_1(instrs[q]) and instrs[q + 1].op == "JUMP" and \
                _real_target(instrs[q + 1]) == prep:
            walker.cleanup_starts[q] = q + 2


def _star_clauses(walker, k, h, stack, ctx):
    """The ``except*`` clauses from ``k`` up to the ``LIST_APPEND 1`` that ends them."""
    instrs = walker.instrs
    star_clauses = []
    while True:
        if k + 1 >= walker.n:
            walker.fail("except* without its re-raise", instrs[h])
        if instrs[k].op == "LIST_APPEND" and _prep_reraise_star(instrs[k + 1]):
            return star_clauses, k
        m = k
        while m < walker.n and instrs[m].op != "CHECK_EG_MATCH":
            m += 1
        if m + 3 >= walker.n or m == k:
            walker.fail("except* clause without its type", instrs[k])
        exc_type = branches.read_value(walker, k, m, stack)
        if exc_type is None:
            walker.fail("unrecognised except* clause", instrs[m])
        hname = None
        if instrs[m + 1].op == "POP_JUMP_IF_NONE":
            # 3.12+ without a name: the copy and the pop of the match are folded away
            jump = instrs[m + 1]
            no_match = _real_target(jump)
            next_clause = no_match
            body_start = m + 2
        else:
            copy, jump, store = instrs[m + 1], instrs[m + 2], instrs[m + 3]
            if copy.op != "COPY" or jump.op != "POP_JUMP_IF_NONE":
                walker.fail("unrecognised except* clause", instrs[m])
            no_match = _real_target(jump)
            if no_match >= walker.n or instrs[no_match].op != "POP_TOP":
                walker.fail("except* clause without its no-match exit", jump)
            next_clause = no_match + 1
            if store.op.startswith("STORE_"):
                hname = store.argval
            elif store.op != "POP_TOP":
                walker.fail("unrecognised except* target", store)
            body_start = m + 4
        body_end = _star_body_end(walker, body_start, no_match, hname)
        body_stack = list(stack) + [PrevExc(), CurrentExc(), _Unhandled(), CurrentExc()]
        body, _ = walker.walk(body_start, body_end, body_stack,
                            ctx.but(handler_name=hname, open=ctx.open | {h}))
        star_clauses.append(ast.ExceptHandler(type=exc_type, name=hname,
                                          body=body or [ast.Pass()]))
        k = next_clause


def _star_body_end(walker, start, no_match, hname):
    """Where a clause body ends: at the block that files an exception raised inside it
    (``[name = None; del name]; LIST_APPEND 3; POP_TOP; JUMP next``)."""
    instrs = walker.instrs
    for p in range(no_match - 3, start - 1, -1):
        if instrs[p].op == "LIST_APPEND" and instrs[p].argval == 3 and \
                instrs[p + 1].op == "POP_TOP" and (instrs[p + 2].op == "JUMP" or (
                    _is_list_append_1(instrs[p + 2]) and instrs[p + 3].op == "JUMP")):
            if hname is not None and p - 3 >= start and \
                    instrs[p - 3].op == "LOAD_CONST" and instrs[p - 1].op.startswith("DELETE_"):
                p -= 3
            if p - 2 >= start and _is_list_append_1(instrs[p - 2]) and \
                    instrs[p - 1].op == "JUMP":
                p -= 2  # 3.13 copies the LIST_APPEND 1 of the end into each exit
            return p
    return no_match


def _star_tail(walker, k, cleanup):
    """Where the handlers go when nothing is re-raised (None: a copied return)."""
    instrs = walker.instrs
    ops = [instrs[q].op for q in range(k + 2, min(k + 7, walker.n))]
    if ops[:4] != ["COPY", "POP_JUMP_IF_NOT_NONE", "POP_TOP", "POP_EXCEPT"]:
        walker.fail("unrecognised end of except* handlers", instrs[k])
    if len(ops) > 4 and ops[4] == "JUMP":
        jump = instrs[k + 6]
        target = _real_target(jump)
        if target < k:
            # 3.12+: the jump back to the join after the statement is no loop
            backs = walker.back_jumps.get(target)
            if backs and jump.index in backs:
                backs.remove(jump.index)
                if not backs:
                    del walker.back_jumps[target]
        return target
    return None
