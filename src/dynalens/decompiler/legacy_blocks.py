"""The block stack of CPython 3.8-3.10, as exception regions over raw instructions.

Before 3.11 there is no exception table: ``SETUP_FINALLY`` / ``SETUP_WITH`` /
``SETUP_ASYNC_WITH`` push a block naming their handler and ``POP_BLOCK`` pops it, at run time.
Which handler covers an instruction therefore depends on the path that reaches it (a ``return``
inside a ``try`` pops the block on its own path only), so a linear scan is wrong; this module
follows the control flow the way CPython's stack-depth pass does and gives every reachable
instruction the stack of handler offsets active there.  ``instructions.py`` turns the result into
the same :class:`~.instructions.ExceptionEntry` records the 3.11+ table gives, drops
``POP_BLOCK`` (its only job is done here) and drops unreachable instructions (the 3.8/3.9
compiler leaves dead jumps and returns after ``RERAISE`` and ``break``; the recompiled source
leaves them again).
"""

import dis


SETUPS = frozenset(["SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"])
# No fall-through after these.
_UNCONDITIONAL = frozenset(["JUMP_FORWARD", "JUMP_ABSOLUTE", "RETURN_VALUE", "RAISE_VARARGS",
                            "RERAISE"])


_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _is_jump(raw):
    return raw.opcode in _JUMP_OPCODES


def block_stacks(raws, retarget=None):
    """{raw offset: tuple of handler offsets (outermost first)} for every reachable instruction.

    The handler of a SETUP_* is entered with that block already popped; ``POP_BLOCK`` pops the
    innermost block.  3.8's ``CALL_FINALLY`` both enters the finally body and comes back.
    ``retarget`` ({jump offset: target offset}) overrides where jumps go.
    """
    retarget = retarget or {}
    count = len(raws)
    if count and raws[-1].offset == 2 * (count - 1) and raws[0].offset == 0:
        # (wordcode, as always on 3.8-3.10: each instruction at twice its index, no look-up
        # tables to build for the walk)
        return _wordcode_block_stacks(raws, retarget)
    return _indexed_block_stacks(raws, retarget)


def _indexed_block_stacks(raws, retarget):
    """block_stacks() for any offsets: the walk goes by index, through a map of offsets."""
    count = len(raws)
    offsets = [raw.offset for raw in raws]
    at = dict(zip(offsets, range(len(offsets))))
    stacks = {}
    work = [(0, ())] if raws else []
    kind_of = _BLOCK_KIND.get
    while work:
        k, blocks = work.pop()
        while k < count:
            offset = offsets[k]
            if offset in stacks:
                break
            stacks[offset] = blocks
            raw = raws[k]
            kind = kind_of(raw.opname)  # (None: on to the next instruction, the most common)
            if kind is not None:
                if kind == _SETUP:
                    work.append((at[raw.argval], blocks))
                    blocks = blocks + (raw.argval,)
                elif kind == _POP_BLOCK:
                    blocks = blocks[:-1]
                elif kind == _ENDS:
                    break
                else:
                    target = retarget.get(offset, raw.argval)
                    if target in at:
                        work.append((at[target], blocks))
                    if kind == _JUMPS_ONLY:
                        break
            k += 1
    return stacks


def _wordcode_block_stacks(raws, retarget):
    """block_stacks() for instructions each at twice its index (offsets 0, 2, 4, ...: the
    first at 0, the last at twice its index, offsets growing by at least 2)."""
    stacks = {}
    work = [(0, ())]
    end = 2 * len(raws)
    kind_of = _BLOCK_KIND.get
    while work:
        offset, blocks = work.pop()
        while offset < end:
            if offset in stacks:
                break
            stacks[offset] = blocks
            raw = raws[offset >> 1]
            kind = kind_of(raw.opname)  # (None: on to the next instruction, the most common)
            if kind is not None:
                if kind == _SETUP:
                    handler = raw.argval
                    if handler & 1 or not 0 <= handler < end:
                        raise KeyError(handler)  # (as block_stacks' look-up)
                    work.append((handler, blocks))
                    blocks = blocks + (handler,)
                elif kind == _POP_BLOCK:
                    blocks = blocks[:-1]
                elif kind == _ENDS:
                    break
                else:
                    target = retarget.get(offset, raw.argval)
                    if not target & 1 and 0 <= target < end:
                        work.append((target, blocks))
                    if kind == _JUMPS_ONLY:
                        break
            offset += 2
    return stacks


# What an instruction does to block_stacks' walk, by opname: opens a block, pops one, may jump
# (and goes on), only jumps, or ends the path; any other goes on to the next instruction.
_SETUP, _POP_BLOCK, _MAY_JUMP, _JUMPS_ONLY, _ENDS = range(5)
_BLOCK_KIND = {}
for _name, _opcode in dis.opmap.items():
    if _name in SETUPS:
        _BLOCK_KIND[_name] = _SETUP
    elif _name == "POP_BLOCK":
        _BLOCK_KIND[_name] = _POP_BLOCK
    elif _opcode in _JUMP_OPCODES:
        _BLOCK_KIND[_name] = _JUMPS_ONLY if _name in _UNCONDITIONAL else _MAY_JUMP
    elif _name in _UNCONDITIONAL:
        _BLOCK_KIND[_name] = _ENDS


_CONDITIONAL = frozenset(["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"])


def _raw_at(raws, offset):
    for raw in raws:
        if raw.offset == offset:
            return raw
    return None


def unthread(raws):
    """:func:`unthread_with_stacks` without the block stacks."""
    return unthread_with_stacks(raws)[0]


def legacy_reads(raws):
    """The indexes of the instructions of ``raws`` whose opname is in :data:`LEGACY_READS`:
    what the passes of :func:`unthread_with_stacks` and of instructions._LegacyState read,
    found in one pass over the instructions."""
    return [k for k, raw in enumerate(raws) if raw.opname in LEGACY_READS]


def unthread_with_stacks(raws, reads=None):
    """(retarget, stacks): what :func:`unthread` returns, and the ``block_stacks(raws)`` it
    read (with no jump retargeted, that is also what ``block_stacks(raws, retarget)`` gives:
    the caller need not walk the control flow again). ``reads``: :func:`legacy_reads` of
    ``raws`` where the caller has it.

    Undo 3.8/3.9's jump threading where it left a trace: {conditional jump offset: offset
    of the unreachable unconditional jump it was first compiled to}.

    The peephole optimizer sends a conditional jump whose target is an unconditional jump
    straight to that jump's target, and leaves the jump behind, unreachable when the code
    before it returns or jumps (``if x: return`` or ``if x: break`` at the end of a loop body:
    the test then jumps to the loop head; ``if x: ...; continue`` before a ``break``: the test
    jumps to the loop exit).  Sending the test back to the dead jump gives the shape of the
    source (the ``if`` ends where the jump is) and the same behaviour.  The tests retargeted
    are those that go where the dead jump goes, between it and the previous dead jump there.
    """
    stacks = block_stacks(raws)
    retarget = {}
    previous = {}
    # each pass below reads the jumps (and FOR_ITER, and SETUP_FINALLY) alone: their indexes,
    # found once (each pass checks the opnames it reads)
    jumps = reads if reads is not None else legacy_reads(raws)
    absolute = [k for k in jumps if raws[k].opname == "JUMP_ABSOLUTE"]
    conditionals = [k for k in jumps if raws[k].opname in _CONDITIONAL]
    n = len(raws)
    for k in jumps:
        raw = raws[k]
        if raw.opname not in ("JUMP_ABSOLUTE", "JUMP_FORWARD") or raw.offset in stacks or \
                k == 0 or raws[k - 1].opname not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE",
                                                     "JUMP_ABSOLUTE", "JUMP_FORWARD"):
            continue
        if raws[k - 1].offset not in stacks and not (
                k >= 2 and raws[k - 2].offset in stacks and raws[k - 2].opname in _TERMINAL and
                (raws[k - 1].opname == "JUMP_FORWARD" or
                 raw.argval > raw.offset and raws[k - 1].opname == "JUMP_ABSOLUTE")):
            # (an `else: continue` or `else: break` after an if body ending in break,
            # return or raise has the dead jump over it in front (3.9: threaded to the
            # loop head): that jump is kept, so is the continue or break)
            continue
        target = raw.argval
        since = previous.get(target, -1)
        if target > raw.offset and raw.opname == "JUMP_ABSOLUTE":
            # a dead `break`: the tests before it in the loop body went to it, not the loop's
            # own test at its head
            heads = [r.argval for r in raws[k:] if r.opname == "JUMP_ABSOLUTE" and
                     r.argval < raw.offset]
            if not heads:
                continue
            head = max(heads)  # the innermost loop around the break
            loop_test = None  # a while test: an expression right at the head
            for r in raws:
                if r.offset < head:
                    continue
                if r.opname in _CONDITIONAL:
                    loop_test = r if r.argval == target else None
                    break
                if r.opname.startswith(("STORE_", "DELETE_", "POP_TOP", "FOR_ITER", "SETUP_")) \
                        or r.offset >= raw.offset:
                    break
            since = max(since, loop_test.offset if loop_test is not None else head)
        elif target > raw.offset:
            # a forward jump after a return ends an if body that has an else: only tests
            # nested in that body (after the test that jumps to the else) went through it
            else_start = raws[k + 1].offset if k + 1 < len(raws) else None
            tests = [r.offset for r in raws[:k] if r.opname in _CONDITIONAL and
                     r.argval == else_start]
            if not tests:
                continue
            since = max(since, min(tests))
        if target < raw.offset:
            # a jump back to a loop head: tests before the loop fall into it, not through here
            since = max(since, target)
        # a dead `continue` before the end of the loop body (the loop goes back again later)
        inner_continue = target < raw.offset and any(
            r.opname == "JUMP_ABSOLUTE" and r.argval == target for r in raws[k + 1:])
        taken = False
        for q in range(k - 1, -1, -1):
            cond = raws[q]
            if cond.offset <= since:
                break
            if cond.opname in _CONDITIONAL and cond.argval == target and cond.offset in stacks \
                    and cond.offset not in retarget:
                retarget[cond.offset] = raw.offset
                taken = True
            elif inner_continue and taken and (_is_jump(cond) or cond.opname.startswith("STORE_")):
                # an `else: continue` of an if/elif chain: only the tests of the one
                # `if` whose body ends before it went there, the operands of one condition
                # evaluated in a row; a test further up, before other statements, is an
                # enclosing if's, threaded from the loop's back edge
                break
        previous[target] = raw.offset
    # a test at the end of a loop body jumps to the loop head: its `if` ended at the back edge
    # (loops have no test at the bottom before 3.10, so no other test jumps backwards)
    last_back = {}
    revived = set(retarget.values())
    for k in absolute:
        raw = raws[k]
        if raw.argval < raw.offset and (
                raw.offset in stacks or (raw.argval in last_back and k > 0 and
                                         (raws[k - 1].offset in stacks or
                                          raws[k - 1].offset in revived) and
                                         raws[k - 1].opname in _TERMINAL)):
            # (a dead one right after a break or return still ends the loop body)
            last_back[raw.argval] = raw.offset
    # a for loop's back edge is right before its exit (dead code aside): a body that ends
    # in a return has none, and its last jump back is a `continue`
    # (a dead one right after a written `continue` that ends the body: nothing jumps to
    # it, so an if before goes on at that continue)
    before = None
    for k in jumps:
        raw = raws[k]
        if raw.opname != "FOR_ITER" or raw.offset not in last_back:
            continue
        if before is None:  # (the instruction before each)
            before = dict(zip([r.offset for r in raws[1:]], raws))
        end = last_back[raw.offset]
        if any(end < r.offset < raw.argval and r.offset in stacks for r in raws):
            del last_back[raw.offset]  # (live code between it and the exit: no back edge)
        elif end not in stacks and before[end].offset in stacks and \
                before[end].opname == "JUMP_ABSOLUTE" and before[end].argval == raw.offset:
            last_back[raw.offset] = before[end].offset
    # a live jump back to the loop head right before an else body is the if body's jump over
    # that else (threaded from the if's end, the last back edge); tests nested in the if body
    # that go to the head went through it
    first_test = {}
    for k in jumps:
        raw = raws[k]
        if (raw.opname in _CONDITIONAL or raw.opname == "JUMP_IF_NOT_EXC_MATCH") and \
                raw.offset in stacks:
            # (3.9's test of an except clause opens the next clause as 3.8's does)
            first_test.setdefault(retarget.get(raw.offset, raw.argval), raw.offset)
    for k in absolute:
        raw = raws[k]
        if not 1 <= k < n - 1 or raw.offset not in stacks:
            continue
        opener = first_test.get(raws[k + 1].offset)
        if opener is None or \
                opener > raw.offset or raw.argval > raw.offset or \
                last_back.get(raw.argval, -1) <= raw.offset or \
                raws[k + 1].offset not in stacks and raws[k + 1].opname == "JUMP_FORWARD":
            # (a dead jump forward after it is the if body's own jump over the else: the
            # jump back is a written `continue` ending an if nested in that body)
            continue
        # (below: a jump that leaves a try block or an except clause is a written
        # `continue` in an if inside it, whose else is in there too: the end of an if
        # body pops no block; unless it is the clause's own exit, before the next clause)
        if _leaves_block(raws, k) and not _exception_match(raws, opener) or \
                raws[k + 1].offset in stacks and (
                _body_jumps_to(raws, opener, k, stacks, retarget) or
                _else_cut_short(raws, k, opener, last_back[raw.argval], stacks, retarget)):
            continue
        retarget[raw.offset] = last_back[raw.argval]
        for cond in raws:
            if opener < cond.offset < raw.offset and cond.opname in _CONDITIONAL and \
                    cond.argval == raw.argval and cond.offset not in retarget:
                retarget[cond.offset] = raw.offset
    # 3.9: a named except clause's own exit (POP_BLOCK; POP_EXCEPT; e = None; del e; jump)
    # comes before the name's cleanup handler, not before the next clause, which its test
    # opens: threaded to the loop head, it too first went to the try's end, the back edge
    # (as 3.8's before the next clause, above)
    cleanups = None
    for k in absolute:
        raw = raws[k]
        if not 5 <= k < n - 1 or raw.offset not in stacks or \
                raw.offset in retarget or raw.argval > raw.offset or \
                last_back.get(raw.argval, -1) <= raw.offset or raws[k - 5].opname != "POP_BLOCK" \
                or not _leaves_block(raws, k) or raws[k - 1].opname in _UNWINDING:
            continue
        if cleanups is None:
            cleanups = set(raws[q].argval for q in jumps if raws[q].opname == "SETUP_FINALLY")
        if raws[k + 1].offset in cleanups:
            retarget[raw.offset] = last_back[raw.argval]
    for k in conditionals:
        raw = raws[k]
        if raw.offset in stacks and raw.argval < raw.offset and \
                raw.offset not in retarget and last_back.get(raw.argval, -1) > raw.offset:
            retarget[raw.offset] = last_back[raw.argval]
    # a dead jump kept above that goes back to the loop head ended an if body before its else:
    # it first went to the if's end, the loop's last back edge
    # (not after a jump forward: that ends an if body, and the dead jump is its `else:
    # continue`)
    by_offset = dict(zip([r.offset for r in raws], raws)) if retarget else {}
    before = dict(zip([r.offset for r in raws[1:]], raws)) if retarget else {}
    for dead in set(retarget.values()):
        raw = by_offset[dead]
        if raw.offset not in stacks and raw.argval < raw.offset and \
                last_back.get(raw.argval, -1) > raw.offset and \
                before[raw.offset].opname != "JUMP_FORWARD":
            retarget[raw.offset] = last_back[raw.argval]
    # the same jump with no test sent back to it: dead after a continue or return, right
    # before an else body that earlier tests jump to
    tested = None  # (made at the first dead jump back: most code has none)
    for k in absolute:
        raw = raws[k]
        if not 1 <= k < n - 1 or raw.offset in stacks:
            continue
        if tested is None:
            tested = set(raws[q].argval for q in conditionals if raws[q].offset in stacks)
        if raw.offset not in retarget and raws[k - 1].offset in stacks and \
                raws[k - 1].opname in _TERMINAL and raws[k + 1].offset in tested and \
                raw.argval < raw.offset:
            end = last_back.get(raw.argval, -1)
            if end < raw.offset:
                # every way through the loop body leaves it (`if c: ...; break else: ...;
                # break`): the loop's own back edge is dead too, the last jump back
                end = max([r.offset for r in raws[k + 1:] if r.opname == "JUMP_ABSOLUTE" and
                           r.argval == raw.argval and r.offset not in stacks] or [-1])
            if end > raw.offset:
                retarget[raw.offset] = end
    return retarget, stacks


_TERMINAL = frozenset(["RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_ABSOLUTE",
                       "JUMP_FORWARD"])
# what unthread_with_stacks' passes look at
# (and _LegacyState's: the handlers of SETUP_FINALLY)
LEGACY_READS = frozenset(["JUMP_ABSOLUTE", "JUMP_FORWARD", "FOR_ITER", "POP_JUMP_IF_FALSE",
                          "POP_JUMP_IF_TRUE", "JUMP_IF_NOT_EXC_MATCH", "SETUP_FINALLY"])


def _else_cut_short(raws, k, opener, end, stacks, retarget):
    """Whether an else starting at ``raws[k + 1]`` cannot be where the jump back at ``raws[k]``
    jumps over, up to the loop's last back edge at ``end``.

    A test of an enclosing if (between the loop head ``raws[k].argval`` and the ``opener``
    test) that jumps into that stretch, to T, bounds the if that holds the else: it ends by
    T. Its end is where the jump over the else went, and that jump reached the loop head
    only when the code there is an unconditional jump (threaded). The else also reaches at
    least as far as the statements nested in it jump: when no unconditional jump lies
    between there and T, there is no such else (`if a: (if b: continue) (if c: continue)`
    then `d`, where `a`'s test and `c`'s both jump to `d`)."""
    head, else_start = raws[k].argval, raws[k + 1].offset
    for q in range(1, k):
        r = raws[q]
        if r.offset <= head or r.opname not in _CONDITIONAL or r.offset not in stacks:
            continue
        if r.offset >= opener:
            break
        target = retarget.get(r.offset, r.argval)
        if not else_start < target < end or raws[q - 1].argval == "exception match" or \
                any(j.opname == "JUMP_ABSOLUTE" and r.offset < j.offset < target and
                    head < j.argval <= r.offset for j in raws):
            continue  # (a while's test: the jump back inside the loop jumps over it)
        reach = else_start
        for j in raws[k + 1:]:
            if j.offset >= target:
                break
            t = retarget.get(j.offset, j.argval) if _is_jump(j) else None
            if j.offset in stacks and t is not None and j.offset < t <= target:
                reach = max(reach, t)
        if not any(j.offset in stacks and j.opname in ("JUMP_ABSOLUTE", "JUMP_FORWARD") and
                   reach <= j.offset <= target and _lands(raws, j) == head for j in raws[k + 1:]):
            return True
    return False


def _lands(raws, jump):
    """Where the unconditional ``jump`` leads once through the jumps it lands on (the
    peephole pass threads a jump to a jump)."""
    by_offset = None
    target = jump.argval
    for _ in range(4):
        if by_offset is None:
            by_offset = dict((raw.offset, raw) for raw in raws)
        raw = by_offset.get(target)
        if raw is None or raw.opname not in ("JUMP_ABSOLUTE", "JUMP_FORWARD"):
            break
        target = raw.argval
    return target


_UNWINDING = frozenset(["POP_BLOCK", "POP_EXCEPT", "CALL_FINALLY", "POP_FINALLY"])


def _leaves_block(raws, k):
    """Whether the jump at ``raws[k]`` comes right after popping a try block or an except
    clause (3.9 unbinds a clause's name after its POP_EXCEPT: ``e = None; del e``)."""
    if raws[k - 1].opname in _UNWINDING:
        return True
    return k >= 4 and raws[k - 4].opname == "POP_EXCEPT" and raws[k - 3].opname == "LOAD_CONST" \
        and raws[k - 2].opname.startswith("STORE_") and raws[k - 1].opname.startswith("DELETE_")


def raw_position(raws, offset):
    """Where ``offset`` falls in ``raws`` (raw instructions, offsets growing along the list):
    the index of the first instruction at or after it, ``len(raws)`` past the last."""
    lo, hi = 0, len(raws)
    while lo < hi:
        mid = (lo + hi) // 2
        if raws[mid].offset < offset:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _exception_match(raws, offset):
    """Whether the conditional jump at ``offset`` is an except clause's test of the
    exception type (3.8: ``COMPARE_OP exception match`` before it; 3.9:
    ``JUMP_IF_NOT_EXC_MATCH``)."""
    lo = raw_position(raws, offset)
    return 0 < lo < len(raws) and (raws[lo - 1].argval == "exception match" or
                                   raws[lo].opname == "JUMP_IF_NOT_EXC_MATCH")


def _body_jumps_to(raws, opener, k, stacks, retarget):
    """Whether a statement in the if body that the test at offset ``opener`` starts, up to the
    jump back at ``raws[k]``, jumps to ``raws[k + 1]``, where an else would start: then the
    code there follows the if, and the jump back is a written ``continue``.

    With an else, only the if's own test goes there: a statement nested in the body ends at
    the body's end, the jump over the else (`if a: (if b: continue) if c: continue` then `y`:
    the second test jumps to `y`, as does the dead jump 3.8/3.9 leave after a `continue`
    ending an `if` of an if/elif; under `else: y` both would go to the loop's end). A jump
    counts once a statement of the body has ended before it (the test's own operands jump
    there too)."""
    else_start = raws[k + 1].offset
    in_body = False
    for r in raws[:k]:
        if r.offset <= opener:
            continue
        if r.opname in _TERMINAL or r.opname in ("POP_TOP", "POP_BLOCK") or \
                r.opname.startswith(("STORE_", "DELETE_", "SETUP_")):
            in_body = True
        if in_body and _is_jump(r) and retarget.get(r.offset, r.argval) == else_start and \
                (r.offset in stacks or r.opname in ("JUMP_FORWARD", "JUMP_ABSOLUTE")):
            return True
    return False


_COPY_SIZE = 4  # 3.10's compile.c MAX_COPY_SIZE


def inlined_exits(raws, picked=None):
    """3.10's copies of small exit blocks: ({copy start offset: original start offset},
    {offsets of the rest of each copy}). ``picked``: indexes of ``raws`` that include those of
    every ``RETURN_VALUE`` and ``RAISE_VARARGS``, where the caller has them.

    3.10 replaces an unconditional jump to a block of at most four instructions that ends in
    ``RETURN_VALUE`` or ``RAISE_VARARGS`` by a copy of that block, line numbers included (3.11
    copies only blocks without one, which ``statements.ExitBlocks`` handles).  A run that ends
    so and repeats a later run instruction for instruction, line for line, is such a copy: it
    becomes the jump again, to the last run (the block where the source has it).
    """
    if picked is None:
        picked = range(len(raws))
    returns = [k for k in picked if raws[k].opname in ("RETURN_VALUE", "RAISE_VARARGS")]
    starts, rest = {}, set()
    if len(returns) < 2:  # (a copy and its original: most code has no two)
        return starts, rest
    lines = {}  # (the line each instruction compared is on: carried_lines(), as asked)

    def line_of(k):
        line = lines.get(k, lines)
        if line is lines:
            j = k
            while j >= 0 and raws[j].starts_line is None:
                j -= 1
            line = lines[k] = raws[j].starts_line if j >= 0 else None
        return line

    key = lambda k: (raws[k].opname, raws[k].argval if not hasattr(raws[k].argval, "co_code")
                     else id(raws[k].argval), line_of(k))
    for n, r in enumerate(returns):
        best = None
        for r2 in returns[n + 1:]:
            length = 0
            while length < _COPY_SIZE and r - length >= 0 and r2 - length > r and \
                    key(r - length) == key(r2 - length) and (length == 0 or raws[r - length].opname
                                                             not in _BLOCK_ENDS):
                length += 1
                if raws[r2 - length + 1].is_jump_target:
                    break  # the original block starts here
            if length >= 2 and (best is None or length >= best[0]):
                best = (length, r2)
        if best is None:
            continue
        length, r2 = best
        # a copied return block starts a line (line-less ones are ExitBlocks' case); a raise
        # block may be the end of a line (`raise E(a if c else b)`: CALL; RAISE_VARARGS)
        while length >= 2 and raws[r].opname == "RETURN_VALUE" and (
                raws[r - length + 1].starts_line is None or
                raws[r2 - length + 1].starts_line is None):
            length -= 1
        if length < 2:
            continue
        start = r - length + 1
        if any(raws[k].is_jump_target for k in range(start + 1, r + 1)):
            continue
        starts[raws[start].offset] = raws[r2 - length + 1].offset
        rest.update(raws[k].offset for k in range(start + 1, r + 1))
    return starts, rest


_BLOCK_ENDS = frozenset(["RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_ABSOLUTE",
                         "JUMP_FORWARD", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE",
                         "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP", "JUMP_IF_NOT_EXC_MATCH",
                         "FOR_ITER", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"])
