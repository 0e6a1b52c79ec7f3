"""A source-like block order: 3.12+'s cold handlers put back after their protected region.

Why: structuring reads a construct as a contiguous range of instructions in source order.
From 3.12 CPython's ``push_cold_blocks_to_end`` (``Python/flowgraph.c``) breaks that for
``try`` and ``with``: every block that normal control flow never reaches (what only an
exception-table entry leads to, and what only such blocks lead to) is moved, streak by streak
and in compile order, after all other code; a cold block that fell through into a warm one
gets an explicit jump, and the jumps that then lead to the next block are dropped. Before
3.12 the same handler sits where the compiler made it, right after its ``try``/``with``
statement's body (and ``else``), just before the code the statement goes on with (its join).

This module undoes the move on the normalized instructions: each cold *segment* (from one
handler of warm code up to the next) goes back to the end of its statement. Where its jumps
back into warm code name a join after the region it protects: past the warm code the
region's normal exits lead to (its ``else``), at most up to the join. Where it has none
(every clause leaves, a ``finally``, a ``with`` exit with a copy of the code after it):
after the region, the ``with``'s exit call or the ``finally``'s warm copy, and the
``return`` the body ends with, or further where a clause's copy of the code after the
statement says (by its lines) that the warm code between is the ``else``. A statement that
ends the warm code has its handler in place. The result means the same program
(``tools/block_order_check.py``, ``tests/test_block_order.py``): the warm instruction before
the segment gets an explicit jump over it when it fell through (and ``for`` loops of the
statement that exited to its place exit to that jump, as before 3.12), a segment's own last
jump to the instruction now next is dropped, and every instruction keeps its exception
handler (``instruction_order.apply_order``). The walker (``render.CodeWalker``) reads this
order first where every handler goes back (``source_order``), the compiled layout otherwise,
where ``cold_blocks.py`` compensates; each is the other's fallback (docs/decompiler.md says
what keeps cold_blocks.py).

Only where the profile says the compiler pushes cold blocks to the end
(``PROFILE.cold_handlers``), and only when the code has that layout (every cold instruction
after every warm one): generated code is left as it is.
"""

from .instruction_order import NewJump, apply_order
from .profile import PROFILE

# Instructions after which control never reaches the next one.
_NO_FALLTHROUGH = frozenset(["JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"])


def restore_handler_order(instrs, entries, profile=PROFILE):
    """(instrs, entries) with each cold handler segment that can go back moved back to the
    end of its statement; the very same lists when nothing moves."""
    return source_order(instrs, entries, profile)[:2]


def source_order(instrs, entries, profile=PROFILE, take=None):
    """(instrs, entries, every): restore_handler_order's, and whether every handler of a
    statement went back (none is left at the end beside restored ones).

    ``take(every)``, asked only where something moves, says whether the caller reads the
    restored order at all: when it does not, the input comes back as it is (nothing is
    copied); when it does, the restored order is built out of the input's own instructions
    (renumbered in place: the caller hands over ``instrs`` and must not read them again)."""
    if not profile.cold_handlers or not entries:
        return instrs, entries, False
    moves, handlers = _plan(instrs, entries)
    if not moves:
        return instrs, entries, False
    every = len(moves) == handlers
    if take is not None and not take(every):
        return instrs, entries, every
    return reorder(instrs, entries, moves, reuse=take is not None)[:2] + (every,)


def warm_code(instrs):
    """bytearray: 1 at the indexes normal control flow (jumps and fall-through, no exception
    edges) reaches from the start."""
    n = len(instrs)
    seen = bytearray(n)
    todo = [0] if n else []
    pop, push, no_fallthrough = todo.pop, todo.append, _NO_FALLTHROUGH
    while todo:
        k = pop()
        while k < n and not seen[k]:
            seen[k] = 1
            ins = instrs[k]
            target = ins.target
            if target is not None and target < n:
                push(target)
            if ins.op in no_fallthrough:
                break
            k += 1
    return seen


def plan(instrs, entries):
    """[(segment start, segment stop, where, protected region start)]: the cold segments to
    move in front of warm instruction ``where``, in layout order; [] when the code is not
    laid out with its cold code last."""
    return _plan(instrs, entries)[0]


def _plan(instrs, entries):
    """(plan's moves, the number of statement handler segments in the cold code)."""
    n = len(instrs)
    warm = warm_code(instrs)
    first_cold = n
    while first_cold > 0 and not warm[first_cold - 1]:
        first_cold -= 1
    if first_cold == n or 0 in warm[:first_cold]:
        return [], 0  # no cold code, or cold code laid out mid-code (not a compiled layout)
    protected_warm_end = {}  # handler -> end of the warm code it protects
    protected_start = {}     # handler -> start of that code
    for e in entries:
        if first_cold <= e.target < n and e.start < first_cold:
            end = min(e.end, first_cold)
            if end > protected_warm_end.get(e.target, -1):
                protected_warm_end[e.target] = end
            if e.start < protected_start.get(e.target, n):
                protected_start[e.target] = e.start
    if not protected_warm_end or min(protected_warm_end) != first_cold:
        return [], 0
    starts = sorted(set(protected_warm_end).union(_enclosing_handlers(
        instrs, entries, protected_warm_end)))
    moves = []
    segments = {}
    in_place = set()  # handlers of statements that end the warm code: where they are
    last_join = 0
    for number, start in enumerate(starts):
        stop = starts[number + 1] if number + 1 < len(starts) else n
        if instrs[start].op == "PUSH_EXC_INFO":
            segments[start] = stop  # (a statement's handler)
        if instrs[stop - 1].op not in _NO_FALLTHROUGH:
            return [], 0  # (a segment falling into the next handler: not a compiled layout)
        if start not in protected_warm_end or instrs[start].op != "PUSH_EXC_INFO":
            continue  # the throw path of an await, a comprehension's cleanup: no statement
        join = _join(instrs, start, stop, protected_start[start], protected_warm_end[start],
                     first_cold)
        if join is None:
            at = _leaving_statement_end(instrs, start, stop, protected_start[start],
                                        protected_warm_end[start], first_cold)
        else:
            at = _statement_end(instrs, protected_start[start], protected_warm_end[start],
                                join)
        if at >= first_cold:
            in_place.add(start)  # (the statement ends the warm code: so do the ones
            last_join = at       # compiled after it)
            continue
        if at <= last_join:
            continue  # (one segment per place: what falls into it stays simple)
        moves.append((start, stop, at, protected_start[start]))
        last_join = at
    while True:
        # a handler of a statement that ends the warm code is in place when the handlers
        # compiled before it go back to their statements
        moves = _enclosed_in_moved(moves, segments, entries, in_place)
        placed = in_place.union(move[0] for move in moves)
        kept = set(s for s in in_place if all(t in placed for t in segments if t < s))
        if kept == in_place:
            return moves, len(segments) - len(in_place)
        in_place = kept


def _enclosing_handlers(instrs, entries, handlers):
    """Cold handlers that protect the cleanup of one of ``handlers`` (``COPY 3; POP_EXCEPT;
    RERAISE 1``, the block every handler of a try statement unwinds through): the handler
    of a statement around that try (a ``finally`` around ``try``/``except``), laid out after
    it but not part of its segment. A try inside an except clause protects only code of
    the clause."""
    cleanup_of = {}
    for e in entries:
        if e.start in handlers and instrs[e.start].op == "PUSH_EXC_INFO" and \
                e.target < len(instrs) and instrs[e.target].op == "COPY":
            cleanup_of[e.start] = e.target
    found = set()
    for cleanup in cleanup_of.values():
        for e in entries:
            if e.start <= cleanup < e.end and e.target > cleanup:
                found.add(e.target)
    return found


def _enclosed_in_moved(moves, segments, entries, in_place=()):
    """The moves whose segment is protected only by handlers that move too, and whose
    handler protects only segments that move too: a handler inside (or around) a ``try``
    whose own handler stays at the end would leave the two in two layouts."""
    while True:
        where = set(move[0] for move in moves).union(in_place)
        kept = []
        for move in moves:
            start, stop = move[:2]
            if _all_related_move(start, stop, entries, segments, where):
                kept.append(move)
        if len(kept) == len(moves):
            return kept
        moves = kept


def _all_related_move(start, stop, entries, segments, where):
    """Whether every handler segment related to the segment [start, stop) is in ``where``:
    the handlers that protect it, and the segments its own handler protects (the first one
    that is not ends the search)."""
    for e in entries:
        target = e.target
        if e.start < stop and e.end > start and not start <= target < stop and \
                target in segments and target not in where:
            return False  # (protects this segment)
        if target == start:
            for s, t in segments.items():
                if e.start < t and e.end > s and s != start and s not in where:
                    return False
    return True


def _statement_end(instrs, region, warm_end, join):
    """Where the statement whose protected region is [region, warm_end) ends, at or before
    its ``join``: past the warm code its body's normal exits lead to (its ``else``), not
    past code reached only from before it (``if c: try: return f() except E: ...`` then
    ``elif``: the clauses jump past the elif to the join, the handler sits before it)."""
    reached = set()
    todo = []
    for ins in instrs[region:warm_end]:
        if ins.target is not None and warm_end <= ins.target < join:
            todo.append(ins.target)
    if instrs[warm_end - 1].op not in _NO_FALLTHROUGH:
        todo.append(warm_end)
    while todo:
        k = todo.pop()
        while warm_end <= k < join and k not in reached:
            reached.add(k)
            ins = instrs[k]
            if ins.target is not None and warm_end <= ins.target < join:
                todo.append(ins.target)
            if ins.op in _NO_FALLTHROUGH:
                break
            k += 1
    end = warm_end
    while end < join and end in reached:
        end += 1
    return end


def _leaving_statement_end(instrs, start, stop, region, warm_end, first_cold):
    """Where the statement whose handler segment [start, stop) never comes back to warm
    code ends (every clause returns, raises or leaves the loop, a ``finally`` re-raises, a
    ``with`` exit got a copy of the code after the statement): after the protected region,
    the ``with``'s exit call or the warm copy of the ``finally`` body, and the ``return``
    the body ends with (its value computed in the region, the exits on the way out)."""
    k = warm_end
    ops = [ins.op for ins in instrs[start:stop]]
    if "WITH_EXCEPT_START" in ops:
        returned = _returning_exit_length(instrs, k, first_cold)
        if returned:
            return k + returned
        k += _exit_call_length(instrs, k, first_cold)
    elif "CHECK_EXC_MATCH" not in ops and "CHECK_EG_MATCH" not in ops:
        k += _finally_copy_length(instrs, start, stop, k, first_cold)
    q = k
    while q < first_cold and _exit_call_length(instrs, q, first_cold):
        q += _exit_call_length(instrs, q, first_cold)
    if q < first_cold and instrs[q].op == "RETURN_VALUE":
        return q + 1
    after = _clause_tail_line(instrs, start, stop)
    if after is not None and k == warm_end:
        # a clause falls off into a copy of the code after the statement: the warm code
        # after the body written before that code (by its lines) is the try's else
        bound = k
        while bound < first_cold and (instrs[bound].line is None or
                                      instrs[bound].line < after):
            bound += 1
        return _statement_end(instrs, region, warm_end, bound)
    return k


def _returning_exit_length(instrs, k, first_cold):
    """The length of the exit calls at ``k`` of ``with`` statements a ``return`` leaves,
    each after the ``SWAP`` that puts the value under ``__exit__`` (3.14+: under it and its
    self), up to and including the ``RETURN_VALUE``; 0 when the code there is not that."""
    q = k
    while True:
        p = q
        while p < first_cold and p - q < 2 and instrs[p].op == "SWAP":
            p += 1
        length = _exit_call_length(instrs, p, first_cold) if p > q else 0
        if not length:
            break
        q = p + length
    if q > k and q < first_cold and instrs[q].op == "RETURN_VALUE":
        return q + 1 - k
    return 0


def _clause_tail_line(instrs, start, stop):
    """The first line of code an except clause of segment [start, stop) runs after its
    ``POP_EXCEPT`` other than a ``return`` or ``raise`` of its own: the clause falls off
    the end of the statement into a copy of what follows it, or jumps to the code after
    the statement laid out after the handler (infinite for ``return None``, taken for a
    copy of the implicit one: the statement ends the function); None when there is
    none."""
    lines = []
    effective = {}  # index -> its line (the last one set, in layout order: 3.12 sets
    current = None  # the line where it starts only)
    for p in range(start, stop):
        if instrs[p].line is not None:
            current = instrs[p].line
        effective[p] = current
    for p in range(start, stop - 1):
        if instrs[p].op != "POP_EXCEPT":
            continue
        q = p + 1
        if instrs[q].op == "JUMP" and q < instrs[q].target < stop:
            # to the code after the statement, laid out after the handler (only the
            # clauses reach it)
            target = instrs[instrs[q].target].line
            lines.append(float("inf") if target is None else target)
            continue
        if instrs[q].op in _NO_FALLTHROUGH:
            continue
        if q + 3 < stop and instrs[q].op == "LOAD_CONST" and instrs[q].argval is None and \
                instrs[q + 1].op.startswith("STORE_") and instrs[q + 2].op.startswith("DELETE_"):
            q += 3  # (`except E as name:` unbinds the name)
        line = instrs[q].line
        if q + 1 < stop and instrs[q].op == "LOAD_CONST" and instrs[q].argval is None and \
                instrs[q + 1].op == "RETURN_VALUE" and line in (None, effective[p]):
            # `return None` on the line of the clause's end: a copy of the implicit one
            # (or a written one, which the compiled layout reads as well): the statement
            # ends the function, the code after its body is its else
            lines.append(float("inf"))
        elif line is not None and effective[p] is not None and line > effective[p]:
            lines.append(line)
    return min(lines) if lines else None


def _exit_call_length(instrs, k, first_cold):
    """The length of a ``with``'s normal exit call at ``k`` (``__exit__(None, None, None)``:
    three ``None``, the call, an await, the result popped), 0 when there is none."""
    q = k + 3
    if q >= first_cold or not all(ins.op == "LOAD_CONST" and ins.argval is None
                                  for ins in instrs[k:q]) or instrs[q].op != "CALL":
        return 0
    q += 1
    if q + 1 < first_cold and instrs[q].op == "GET_AWAITABLE" and \
            instrs[q + 1].op == "SEND_LOOP":
        q += 2
    return q + 1 - k if q < first_cold and instrs[q].op == "POP_TOP" else 0


def _finally_copy_length(instrs, start, stop, k, first_cold):
    """The length of the warm copy at ``k`` of the ``finally`` body in handler segment
    [start, stop) (``PUSH_EXC_INFO; body; RERAISE 0``), 0 when the code there is not it."""
    end = start + 1
    while end < stop and not (instrs[end].op == "RERAISE" and instrs[end].argval == 0):
        end += 1
    length = end - start - 1
    if end == stop or not length or k + length > first_cold:
        return 0
    for a, b in zip(instrs[start + 1:end], instrs[k:k + length]):
        if a.op != b.op or (a.argval != b.argval and a.target is None):
            return 0
    return length


def _join(instrs, start, stop, region, warm_end, first_cold):
    """Where the code after the statement whose handler segment is [start, stop) begins: the
    one warm instruction at or after the protected region's end that the segment jumps to,
    when the warm code up to it does not leave a loop the region is in (a clause's
    ``break`` goes past the loop's back edge: not the join)."""
    targets = set()
    for ins in instrs[start:stop]:
        t = ins.target
        if t is not None and t < first_cold and t >= warm_end:
            targets.add(t)
    if len(targets) != 1:
        return None
    join = targets.pop()
    for ins in instrs[warm_end:join]:
        if ins.target is not None and ins.target <= region:
            return None
    return join


def reorder(instrs, entries, moves, reuse=False):
    """(instrs, entries, origin): copies of the instructions with each segment [start, stop)
    of ``moves`` (plan's) in front of its place; ``origin[k]`` is the old index of new
    instruction ``k`` (None for a jump added over a moved segment). The input is left as it
    was, unless ``reuse`` (instruction_order.apply_order's: the input's instructions are
    renumbered in place instead of copied)."""
    moved = set()
    at_join = {}
    loop_exits = {}  # old index of a FOR_ITER -> the join it leaves to
    dropped = {}     # a segment's last jump, to the instruction now next -> that instruction
    for start, stop, join, region in moves:
        moved.update(range(start, stop))
        at_join.setdefault(join, []).append((start, stop))
        for k in range(region, join):
            if instrs[k].op == "FOR_ITER" and instrs[k].target == join and k not in moved:
                loop_exits[k] = join
        if instrs[stop - 1].op == "JUMP" and instrs[stop - 1].target == join:
            dropped[stop - 1] = join
    landing = {}  # join -> the jump to it added in front of its segment
    order = []
    n = len(instrs)
    done = 0  # the instructions before it are in order, those not moved in their place
    for k in sorted(at_join):
        if not 0 <= k < n or k in moved:
            continue  # (no place to go back to)
        order.extend([j for j in range(done, k) if j not in moved])
        done = k
        for start, stop in at_join[k]:
            if order and not isinstance(order[-1], NewJump) and (
                    instrs[order[-1]].op not in _NO_FALLTHROUGH or k in loop_exits.values()):
                # (a loop in the statement exits to the jump over its handler, as before
                # 3.12, not past the handler)
                landing[k] = NewJump(k, order[-1], k)
                order.append(landing[k])
            order.extend(j for j in range(start, stop) if j not in dropped)
    order.extend([j for j in range(done, n) if j not in moved])
    retarget = dict((k, landing[join]) for k, join in loop_exits.items() if join in landing)
    return apply_order(instrs, entries, order, dropped, retarget, reuse)
