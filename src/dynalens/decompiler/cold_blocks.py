"""Code that 3.12+ reaches only through the exception table, laid out after everything else.

3.12's compiler moves every block that normal control flow never reaches ("cold" blocks: except
and finally handlers, ``with`` exits, the throw path of ``yield from``/``await``, the cleanup of
an inline comprehension) to the end of the code object.  Structuring consumes handlers where
their ``try``/``with`` starts, so the walk must step over them when it meets them again at the
end; the blocks with no statement form at all are listed here once per code object.
"""

import itertools

from .block_order import _NO_FALLTHROUGH, warm_code
from .instructions import POP_JUMPS
from .nop_lines import break_line_at
from .profile import PROFILE
from .registry import ENTRY


def comprehension_cleanups(instrs, entries):
    """{start: stop} of the handlers that restore an inline comprehension's names and re-raise:
    only reached through the exception table, they have no statement form."""
    blocks = {}
    n = len(instrs)
    for e in entries:
        k = e.target
        if k in blocks or k + 2 >= n:
            continue
        if not (instrs[k].op == "SWAP" and instrs[k].argval == 2 and instrs[k + 1].op == "POP_TOP"
                and instrs[k + 2].op == "SWAP"):
            continue
        q = k + 3
        while q < n and instrs[q].op == "STORE_FAST":
            q += 1
        if q < n and q > k + 3 and instrs[q].op == "RERAISE":
            blocks[k] = q + 1
    return blocks


def exception_only_blocks(instrs, entries):
    """{start: stop} of blocks the walk skips: ``CLEANUP_THROW; JUMP`` (the throw path of a
    ``yield from``/``await`` loop, 3.12+) and inline-comprehension cleanups."""
    blocks = comprehension_cleanups(instrs, entries)
    for k in range(len(instrs) - 1):
        if instrs[k].op == "CLEANUP_THROW" and instrs[k + 1].op == "JUMP":
            blocks[k] = k + 2
    return blocks


def exception_only_code(instrs):
    """Indexes that normal control flow (jumps and fall-through, no exception edges) never
    reaches from the start: the handlers and cleanups of the exception table (the
    complement of block_order.warm_code)."""
    seen = warm_code(instrs)
    return set(itertools.compress(range(len(seen)), seen.translate(_NOT)))  # (in C)


# warm_code's bytes turned over: 1 where it has 0 (the cold indexes), 0 where it has 1
_NOT = bytes([1, 0]) + bytes(254)


# ``try`` and ``with`` whose handlers 3.12+ moved past the code that follows them.
#
# 3.11 lays a handler out right after its body (``body; JUMP join; handler; join:``); 3.12+
# continues with the code after the statement and puts the handler at the end, where its
# clauses jump *back* to the join.  The statement then ends at the join (or, when no clause
# falls through, at the end of the body), and the handler region is skipped when the walk
# reaches it.


def cold_try_join(walker, h, body_end, region_end):
    """Where the try statement whose handler region [h, region_end) is cold ends, or None
    when the handler follows its body as on 3.11."""
    if not PROFILE.cold_handlers or h <= body_end:
        return None
    instrs = walker.instrs
    if instrs[h - 1].op == "JUMP" and instrs[h - 1].target > h:
        return None
    loop = walker.ctx.loop
    targets = []
    for ins in instrs[h:region_end]:
        t = ins.target
        if ins.op != "JUMP" or t is None or h <= t < region_end or t > walker.n:
            continue
        if loop is not None and (t in loop.continue_targets or t == loop.break_target):
            continue
        targets.append(t)
    if any(t >= region_end for t in targets):
        return None
    inside = [t for t in targets if body_end <= t <= min(h, walker.range_end)]
    join = min(inside) if inside else body_end
    end = walker.range_end
    if not inside and targets and body_end < end <= h and \
            all(t == targets[0] > end for t in targets) and \
            any(instrs[k].op == "JUMP" and instrs[k].target == targets[0] for k in (end - 1, end)):
        # the clauses go where the enclosing block goes (past an enclosing else), and so
        # does the end of that block (its last jump, or the jump over the else that follows
        # it): the code after the body is the try's else (`elif c: try: ... except E: pass
        # else: ...` then an else)
        join = end
    if not targets:
        cold = cold_code(walker)
        stop = body_end
        while stop < min(h, walker.range_end) and stop not in cold:
            stop += 1
        if stop > body_end and (_clause_falls_off(walker, h, region_end) or
                                _handled_before(walker, body_end, stop, h)):
            # no clause comes back, and one ends with the function's implicit return
            # (the try ends the function), or code after the body has its handler laid
            # out before this one (it was compiled first): up to the cold code, the
            # code after the body is its else
            return stop
    if join in cold_code(walker):
        return None  # the body ends where only handlers follow: laid out as on 3.11
    for t in targets:  # clauses that leave the enclosing block too end there
        skip_cold(walker, h, region_end, t)
    return join


def warm_protected_end(walker, h, start=None):
    """End of the protected range of handler ``h`` in the code laid out before the cold
    blocks (3.12+ also protects the cold handlers of statements inside the try body, which
    lie past its end). ``start``: where the try statement starts, when known (a try body
    that is itself a try is protected by the inner handler only; the outer one's own
    entries then all lie in cold code)."""
    ranges = [e for e in walker.entries if e.target == h]
    end = max(e.end for e in ranges)
    if not PROFILE.cold_handlers:
        return end
    if start is None:
        start = min(e.start for e in ranges)
    warm_end = _last_warm_protected(walker, h, start)
    instrs = walker.instrs
    while warm_end < h and instrs[warm_end].op in POP_JUMPS and \
            start <= instrs[warm_end].target < warm_end:
        # a loop's conditional back edge that ends the body is left out of the table when
        # it follows the last instruction that can raise (3.14: `while True:` ending with
        # `if c: break`, the jump back being the test)
        warm_end += 1
    return warm_end if warm_end > start else end


def _last_warm_protected(walker, h, start):
    """One past the last instruction in [start, h) outside the cold code that ``h``
    protects (``start`` when none), worked out once per walker and (h, start): the walk
    asks again at every loop and try around it, and the exception table and the cold code
    are fixed once the walker is made."""
    memo = walker._warm_protected
    if memo is None:
        memo = walker._warm_protected = {}
    found = memo.get((h, start))
    if found is None:
        cold = cold_code(walker)
        found = start
        chain = walker.chain
        for k in range(min(h, walker.n) - 1, start - 1, -1):  # (the last one: from the end)
            if k not in cold:
                for e in chain(k):
                    if e.target == h:
                        found = k + 1
                        break
                else:
                    continue
                break
        memo[(h, start)] = found
    return found


def cold_code(walker):
    """The indexes only exceptions reach (exception_only_code), worked out once per walker."""
    if walker._cold_code is None:
        walker._cold_code = exception_only_code(walker.instrs)
    return walker._cold_code


def _handled_before(walker, start, stop, h):
    """Whether code in [start, stop) is protected by a cold handler laid out before
    ``h``: cold blocks keep the order they were compiled in, and the code after a try
    statement is compiled after its handler."""
    cold = cold_code(walker)
    return any(start <= e.start < stop and e.start not in cold and e.target < h and
               e.target in cold for e in walker.entries)


def _clause_falls_off(walker, h, region_end):
    """Whether an except clause in [h, region_end) ends with a copy of the implicit
    ``return None`` (``POP_EXCEPT``, the unbinding of ``as name``, ``RETURN None``) that
    takes its line from the code before it: the clause falls off the end of a try
    statement that ends the function (3.12+ copies the line-less return into it). A
    written ``return`` starts a line of its own."""
    instrs = walker.instrs
    sources = None
    for p in range(h, min(region_end, walker.n)):
        if instrs[p].op != "POP_EXCEPT":
            continue
        q = p + 1
        if q + 2 < walker.n and instrs[q].op == "LOAD_CONST" and instrs[q].argval is None \
                and instrs[q + 1].op.startswith("STORE_") and \
                instrs[q + 2].op.startswith("DELETE_"):
            q += 3
        if q + 1 >= walker.n or instrs[q].op != "LOAD_CONST" or instrs[q].argval is not None \
                or instrs[q + 1].op != "RETURN_VALUE":
            continue
        line = instrs[p].line
        if line is None:
            return True
        before = []
        if instrs[p - 1].op not in _NO_FALLTHROUGH:
            before.append(instrs[p - 1].line)
        if instrs[p].is_target:
            if sources is None:
                sources = {}
                for ins in instrs:
                    if ins.target is not None:
                        sources.setdefault(ins.target, []).append(ins.line)
            before.extend(sources.get(p, ()))
        if line in before:
            return True
    return False


def cold_try_exit(walker, h, body_end, join):
    """A try body that leaves by ``break``/``continue``/``return`` right after its
    protected range (the jump is not protected): where that exit ends, if the handler's
    clauses do not come back to ``body_end`` (so it is not the join)."""
    instrs = walker.instrs
    if join != body_end or any(ins.target == body_end for ins in instrs[h:walker.n]):
        return None
    if body_end > 0 and instrs[body_end - 1].op in _NO_FALLTHROUGH:
        return None  # the body ended (`return v()`): what follows is not its exit
    k = body_end
    while k < h and k - body_end < 3 and instrs[k].op == "POP_TOP":
        k += 1
    if k < h and instrs[k].op == "JUMP" and k == body_end and \
            instrs[k].line in (None, instrs[k - 1].line) and \
            walker.ctx.loop is not None and instrs[k].target in walker.ctx.loop.continue_targets:
        return None  # the body's own way back to the loop head (a `continue` has a line)
    if k < h and (instrs[k].op == "JUMP" or (instrs[k].op == "RETURN_VALUE" and k > body_end)):
        return k + 1
    if k > body_end or break_line_at(walker, k):
        # a break whose exit the compiler copied: `return <name>` (after a for loop's
        # iterator pops, or, 3.14, the break's own line-number NOP where the body's last
        # test jumps past it: `if c: break`, not a try's `else: break`)
        q = k
        while q < h and q - k < 3 and instrs[q].op in ("LOAD_FAST", "LOAD_CONST",
                                                        "LOAD_GLOBAL", "LOAD_DEREF"):
            q += 1
        if q < h and q > k and instrs[q].op == "RETURN_VALUE" and (
                k > body_end or (body_end > 0 and instrs[body_end - 1].op in POP_JUMPS and
                                 instrs[body_end - 1].target == q + 1)):
            return q + 1
    return None


def skip_cold(walker, start, stop, join=None):
    """Remember that [start, stop) was consumed, and that jumps to ``join`` end clauses."""
    walker.cleanup_starts[start] = stop
    if join is not None:
        if not isinstance(walker.cold_joins, set):
            walker.cold_joins = set()
        walker.cold_joins.add(join)


def cold_with_exit(walker, w):
    """(body end, join, handler end) of a ``with`` whose exit handler ``w`` is cold: the protected body
    is followed by the normal exit call ``__exit__(None, None, None)``; None otherwise."""
    if not PROFILE.cold_handlers:
        return None
    instrs = walker.instrs
    end = warm_protected_end(walker, w)
    if instrs[w - 1].op == "JUMP" and instrs[w - 1].target > w:
        return None
    start = min(e.start for e in walker.entries if e.target == w)
    for target in sorted(set(ins.target for ins in instrs[start:end]
                             if ins.target is not None and end < ins.target < w)):
        # the body ends with `if c: ...; <leave>` (a return, a break: the exit call is
        # copied into that branch, unprotected): the test jumps to the normal exit call
        for length in (5, 7):
            stop = target + length
            if stop < w and ENTRY.exit_call_start(walker, stop) == target:
                return target, stop, _cold_with_handler_end(walker, w)
    for length in (5, 7):  # LOAD_CONST None x3; CALL; [GET_AWAITABLE; SEND_LOOP]; POP_TOP
        stop = end + length
        if stop < w and ENTRY.exit_call_start(walker, stop) == end:
            returned = _return_after_exits(walker, stop, w)
            if returned is not None:
                return returned, returned, _cold_with_handler_end(walker, w)
            return end, stop, _cold_with_handler_end(walker, w)
    returned = _with_return_end(walker, end, w)
    if returned is not None:
        return returned, returned, _cold_with_handler_end(walker, w)
    return None


def _return_after_exits(walker, stop, w):
    """The end of a return of the with body that comes after its exit call at ``stop``
    (``return <constant other than None>`` in nested with bodies: the exit calls of the enclosing withs,
    then the constant and RETURN_VALUE), or None when that code is what follows the with
    statement: the with's handler, when ``__exit__`` suppresses the exception, goes on to
    the code after the statement, so that code is the same as the return only if the
    return follows the with."""
    instrs = walker.instrs
    q = stop
    while True:
        for length in (5, 7):
            if q + length < w and ENTRY.exit_call_start(walker, q + length) == q:
                q += length
                break
        else:
            break
    if not (q + 1 < w and instrs[q].op == "LOAD_CONST" and instrs[q].argval is not None
            and instrs[q + 1].op == "RETURN_VALUE"):
        # (a `return None` there is as often the implicit return at the end of an if
        # branch that the with ends, reached by a suppressed exit through other code)
        return None
    q += 1
    after = ENTRY.with_handler_end(walker, w)
    if after < walker.n and instrs[after].op == "JUMP":
        after = instrs[after].target
    if after == stop or walker._same_code(after, stop, q + 1 - stop):
        return None
    return q + 1


def _with_return_end(walker, end, w):
    """The end of a ``return`` that ends a with body at ``end`` (the protected range holds
    its value; the exit call and RETURN_VALUE follow), when the code after the with lies
    between it and the cold exit handler ``w``; None otherwise."""
    instrs = walker.instrs
    if w not in cold_code(walker):
        return None
    k = end
    while k < w and k - end < 2 and instrs[k].op == "SWAP":
        k += 1  # the value goes under __exit__ (3.14+: under __exit__ and its self)
    for length in (5, 7):
        q = k + length
        if q < w and ENTRY.exit_call_start(walker, q) == k:
            if instrs[q].op == "LOAD_CONST":
                q += 1  # return <constant>
            if q + 1 < w and instrs[q].op == "RETURN_VALUE" and \
                    q + 1 not in cold_code(walker):  # (not a handler inside the body)
                return q + 1
    return None


def _cold_with_handler_end(walker, w):
    instrs = walker.instrs
    skip = ENTRY.with_handler_end(walker, w)
    if skip < walker.n and instrs[skip].op == "JUMP":
        skip += 1  # the jump back to the join
    cold = cold_code(walker)
    while skip < walker.n and skip in cold and instrs[skip].op != "PUSH_EXC_INFO":
        skip += 1  # or a copy of the code after the join
    return skip
