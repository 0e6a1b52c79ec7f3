"""The code after an endless ``while`` that the compiler copied into a ``break`` in an except
clause, and nowhere else (3.12+).

Why: ``while True: try: ... except E: break`` then ``return v`` compiles, from 3.12, to a
clause that unwinds (``POP_EXCEPT``) and then holds a copy of ``return v``: flowgraph.c
replaces a jump to a small exit block by a copy of it (``PROFILE.lined_exit_copies``), and
the original, reached only by such jumps, is dropped. The loop has no code after it any
more, so the walker read the copy as a ``return`` written in the clause, which compiles
differently: a written ``return v`` computes ``v`` *before* it unwinds (``v; SWAP 2;
POP_EXCEPT; RETURN_VALUE``) and a written ``raise`` raises inside the handler. So straight
code that computes its value after the clause's ``POP_EXCEPT`` and leaves is code after the
try statement; in a loop whose try goes back to the head, that is the code after the loop.

A constant return reads the same both ways (the compiler unwinds before ``return 5`` too);
there only the line tells: the written one unwinds on its own line, a copy keeps the line
of the exit after the loop, past every line of the loop. (unittest.util.sorted_list_difference,
tomllib.loads, _pyio.FileIO.readall.)

``copied_exit`` finds the copy for the loop recogniser (branches.do_while_true), which hands
it to the walk as the loop's ``inlined_after``: a copy of it inside the loop reads as
``break`` (statements._copied_break) and the loop is followed by the code itself.
"""

from .cfg import EXITS
from .profile import PROFILE
from . import handlers

# flowgraph.c copies exit blocks of at most MAX_COPY_SIZE (4) instructions; normalized
# instructions may count a few more (a call's NULL push, a constant return split in two)
_MOST = 6
_LEAVES = frozenset(["RETURN_VALUE", "RAISE_VARARGS"])


def copied_exit(walker, head, exit_):
    """``(start, length)`` of the first copy of the exit of the endless loop [head, exit_)
    after an except clause's ``POP_EXCEPT`` (see the module docstring), when every such copy
    in the loop's cold handlers is the same code; None otherwise."""
    if not PROFILE.lined_exit_copies or not PROFILE.cold_handlers:
        return None
    instrs = walker.instrs
    loop_lines = [ins.line for ins in instrs[head:exit_] if ins.line is not None]
    found = None
    seen = set()
    for entry in walker.entries:
        h = entry.target
        if not head <= entry.start < exit_ or h < exit_ or h >= walker.n or h in seen or \
                instrs[h].op != "PUSH_EXC_INFO" or walker.handler_at[h] is None or \
                handlers._handler_kind(walker, h) != "except":
            continue
        seen.add(h)
        if any(e.target == h and (e.start < head or e.start < exit_ <= e.end)
               for e in walker.entries):
            continue  # (a try around the loop, back edge included: its clauses are after it)
        cleanup = walker.handler_at[h].target
        for q in range(h + 1, min(cleanup, walker.n)):
            copy = _after_unwind(walker, q, h, cleanup, loop_lines)
            if copy is None:
                continue
            if found is not None and not (copy[1] == found[1] and
                                          walker._same_code(copy[0], found[0], found[1])):
                return None  # (two exits: the code after the loop is not one block)
            if found is None:
                found = copy
    return found


def _after_unwind(walker, q, h, cleanup, loop_lines):
    """``(start, length)`` when ``instrs[q]`` is the ``POP_EXCEPT`` of a clause of handler
    ``h`` followed by a copy of a small exit block, else None."""
    instrs = walker.instrs
    protected = walker.handler_at[q]
    if instrs[q].op != "POP_EXCEPT" or (protected is not None and h <= protected.target
                                        <= cleanup + 2):
        return None  # (a nested try's, or one the clause's cleanup protects)
    start = q + 1
    if handlers._unbinds_name(walker, start):
        start += 3  # (`except E as name:` unbinds the name after POP_EXCEPT)
    stop = start
    while stop < cleanup and stop - start < _MOST and instrs[stop].target is None and \
            not instrs[stop].is_target and instrs[stop].op not in EXITS and \
            instrs[stop].op not in ("SWAP", "POP_EXCEPT", "POP_TOP", "JUMP"):
        stop += 1
    if stop >= cleanup or instrs[stop].op not in _LEAVES or instrs[stop].is_target:
        return None
    first = instrs[start]
    if first.op.startswith("STORE_") or instrs[stop].op == "RAISE_VARARGS" and stop == start:
        return None
    if all(ins.op == "LOAD_CONST" for ins in instrs[start:stop]):
        # `return <constant>`: unwound first when written too; a copy has the exit's line
        if first.line is None or first.line == instrs[q].line or \
                not loop_lines or first.line <= max(loop_lines):
            return None
    return start, stop + 1 - start
