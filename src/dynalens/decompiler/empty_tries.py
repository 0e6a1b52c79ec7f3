"""Try statements whose body compiled to nothing (3.11+): ``try: pass``.

From 3.11 the exception table protects instructions, and a try body of ``pass`` (or anything
else that leaves no instruction) protects none: its ``NOP`` is dropped, so no entry leads to
the handler, which the compiler still emits. The walker, which finds a try by the range an
entry protects, would run into that handler as if it were code (``stack underflow at
PUSH_EXC_INFO``). A ``finally`` around it (``try: try: pass / finally: g() / finally: ...``)
is the same shape one level down.

``find`` locates each such dead handler -- a ``PUSH_EXC_INFO`` that no exception entry
targets, that no jump reaches and that the instruction before it does not fall into -- and
where its statement starts, and returns an *empty* entry for it (``start == end``): the try
recognisers read it like any other, with an empty body followed by the ``else`` body, or the
normal exit's copy of the ``finally`` body, and then the handler.

Where the statement starts: the code between the try and its dead handler is the else body
or the finally body's copy (then, from 3.12 where the handler is cold, the code after the
statement); all of it was written after the handler's first line (the ``except`` line, or
the finally body's), everything before the try was written before the ``try`` line. So the
start is the first of the instructions that run up to the handler with lines at or after
that one; the exit right before the handler (a jump over it, a copied ``return None``) has
the line of whatever it was copied from and is stepped over first. Before 3.11 the SETUP_*
blocks give the handler its region, empty or not: nothing to find.
"""

import bisect

from .instructions import ExceptionEntry, raw_instructions, raw_lines

# what the instruction before a dead handler may be: it must not fall into it
_NO_FALLTHROUGH = frozenset(["JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"])


def find(code, instrs, entries, lines):
    """{start index: [empty ExceptionEntry]} for the try statements with an empty body."""
    if not entries:
        return {}
    targets = set(e.target for e in entries)
    found = {}
    nops = None
    for h, ins in enumerate(instrs):
        if ins.op != "PUSH_EXC_INFO" or h in targets or ins.is_target or h == 0 or \
                instrs[h - 1].op not in _NO_FALLTHROUGH:
            continue
        cleanup = _covering(entries, h)
        if cleanup is None or not cleanup.lasti:
            continue  # (not the handler template: PUSH_EXC_INFO under its cleanup)
        if nops is None:
            nops = _nop_lines(code, instrs)
        start = _statement_start(instrs, h, cleanup.target, lines, nops)
        if start is None:
            continue
        found.setdefault(start, []).append(
            ExceptionEntry(start, start, h, max(cleanup.depth - 1, 0), False))
    return found


def _covering(entries, k):
    """The innermost (shortest) entry whose range holds ``k``."""
    best = None
    for e in entries:
        if e.start <= k < e.end and (best is None or e.end - e.start < best.end - best.start):
            best = e
    return best


def _nop_lines(code, instrs):
    """{index: lines of the NOPs dropped right before the normalized instruction there}."""
    raws = raw_instructions(code)
    offsets = [ins.offset for ins in instrs]
    result = {}
    for raw, line in zip(raws, raw_lines(raws)):
        if raw.opname == "NOP" and line is not None:
            k = bisect.bisect_right(offsets, raw.offset)
            result.setdefault(k, []).append(line)
    return result


def _statement_start(instrs, h, cleanup, lines, nops):
    """Where the try statement of the dead handler at ``h`` starts, or None where it cannot
    be told."""
    first_line = next((line for line in lines[h + 1:h + 8] if line is not None), None)
    exit_start = h
    if instrs[h - 1].op == "JUMP":
        exit_start = h - 1  # the jump over the handler to the code after the statement
    elif instrs[h - 1].op == "RETURN_VALUE" and h >= 2 and instrs[h - 2].op == "LOAD_CONST":
        exit_start = h - 2  # a copied return the statement falls into (with the copy's line)
    if first_line is None:
        return exit_start
    # the try's NOP (and the body's): lines before the handler's, right before an
    # instruction written after it or the jump or return that ends the statement
    starts = [k for k, nop in nops.items()
              if k <= h and min(nop) < first_line and (
                  k >= exit_start or (lines[k] is not None and lines[k] >= first_line) or
                  instrs[k].op in _NO_FALLTHROUGH)]
    if starts:
        return max(starts)
    if instrs[h - 1].op == "RERAISE":
        return None  # (3.12+: laid out after another cold handler, far from its statement)
    k = exit_start
    while k > 0 and (lines[k - 1] is None or lines[k - 1] >= first_line) and \
            instrs[k - 1].op != "PUSH_EXC_INFO":
        k -= 1
    return k
