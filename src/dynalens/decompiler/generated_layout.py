"""Generated code only: a handler laid out in the middle of the code, jumped over, goes to the end.

From 3.12 CPython lays every block that only the exception table reaches ("cold" code) after
everything else, and the structurers expect that layout (see cold_blocks.py). Generated code
need not follow it. Dynamo's resume function for a graph break inside a ``with`` block (torch
2.15 on 3.13) re-enters the context manager, jumps *over* the ``with``'s exception handler to
where the original code goes on, and continues the block there:

    BEFORE_WITH; POP_TOP; ...; JUMP L_resume
    L_handler: PUSH_EXC_INFO; WITH_EXCEPT_START; ... RAISE/RERAISE     (reached by exceptions only)
    L_resume:  ... the rest of the with block, its exit, return

No source compiles to that, and the walker meets a jump it cannot place ("unstructured jump").
The same code with the handler moved to the end (and the jump, now to the next instruction,
dropped) runs exactly the same: control never falls into or out of the moved block, and every
jump and exception-table entry follows the instructions it names. This module does that move
on the normalized instructions, before structuring. It is a fallback (render.decompile_body
uses it when the walk of the code as laid out fails): other generated code with a handler
after its body, 3.11-style, is read fine where it is, and compiled code never has the shape.
"""

from .cold_blocks import exception_only_code
from .instruction_order import apply_order
from .profile import PROFILE

_ENDS = frozenset(["JUMP", "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"])


def move_jumped_over_handlers(instrs, entries):
    """(instrs, entries) with each handler block that a forward jump skips moved to the end.

    Only from 3.12 (where handlers belong at the end); only for a jump that stays in normal
    control flow, or in a handler's (a handler's jump back to its join in normal flow is the
    compiler's own layout); only when the skipped instructions are reached by exceptions alone
    and the last of them never falls through. In a moved handler the same may repeat: a
    clause jumping over the handler's cleanup to code after the `with` that only the handler
    reaches (the with block itself always returns)."""
    if not PROFILE.cold_handlers or _skipped_block(instrs, in_handlers=False) is None:
        return instrs, entries
    while True:
        found = _skipped_block(instrs, in_handlers=True)
        if found is None:
            return instrs, entries
        instrs, entries = _move(instrs, entries, *found)


def _skipped_block(instrs, in_handlers):
    """(jump, target) of the first jump over handler-only code, or None. `in_handlers`: also
    a jump from handler code to handler code (which compiled code has too: it counts only
    once the generated shape was found in normal control flow)."""
    cold = None
    for k, ins in enumerate(instrs):
        t = ins.target
        if ins.op != "JUMP" or t is None or t <= k + 1 or t >= len(instrs):
            continue
        if cold is None:
            cold = exception_only_code(instrs)
        same = (k in cold) == (t in cold) if in_handlers else (k not in cold and t not in cold)
        if same and all(j in cold for j in range(k + 1, t)) and instrs[t - 1].op in _ENDS:
            return k, t
    return None


def _move(instrs, entries, jump, target):
    """Order: [0, jump) + [target, n) + (jump, target); the jump itself goes (what jumped to
    it goes where it went)."""
    n = len(instrs)
    order = list(range(jump)) + list(range(target, n)) + list(range(jump + 1, target))
    return apply_order(instrs, entries, order, {jump: target})[:2]
