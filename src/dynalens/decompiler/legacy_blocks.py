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


def _is_jump(raw):
    return raw.opcode in dis.hasjrel or raw.opcode in dis.hasjabs


def block_stacks(raws):
    """{raw offset: tuple of handler offsets (outermost first)} for every reachable instruction.

    The handler of a SETUP_* is entered with that block already popped; ``POP_BLOCK`` pops the
    innermost block.  3.8's ``CALL_FINALLY`` both enters the finally body and comes back.
    """
    at = {raw.offset: k for k, raw in enumerate(raws)}
    stacks = {}
    work = [(0, ())] if raws else []
    while work:
        k, blocks = work.pop()
        while k < len(raws):
            raw = raws[k]
            if raw.offset in stacks:
                break
            stacks[raw.offset] = blocks
            name = raw.opname
            after = blocks
            if name in SETUPS:
                work.append((at[raw.argval], blocks))
                after = blocks + (raw.argval,)
            elif name == "POP_BLOCK":
                after = blocks[:-1]
            elif _is_jump(raw) and raw.argval in at:
                work.append((at[raw.argval], blocks))
            if name in _UNCONDITIONAL:
                break
            blocks = after
            k += 1
    return stacks
