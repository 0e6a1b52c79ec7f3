"""Code that 3.12+ reaches only through the exception table, laid out after everything else.

3.12's compiler moves every block that normal control flow never reaches ("cold" blocks: except
and finally handlers, ``with`` exits, the throw path of ``yield from``/``await``, the cleanup of
an inline comprehension) to the end of the code object.  Structuring consumes handlers where
their ``try``/``with`` starts, so the walk must step over them when it meets them again at the
end; the blocks with no statement form at all are listed here once per code object.
"""

from .inline_comprehensions import comprehension_cleanups


def exception_only_blocks(instrs, entries):
    """{start: stop} of blocks the walk skips: ``CLEANUP_THROW; JUMP`` (the throw path of a
    ``yield from``/``await`` loop, 3.12+) and inline-comprehension cleanups."""
    blocks = comprehension_cleanups(instrs, entries)
    for k in range(len(instrs) - 1):
        if instrs[k].op == "CLEANUP_THROW" and instrs[k + 1].op == "JUMP":
            blocks[k] = k + 2
    return blocks
