"""Code that 3.12+ reaches only through the exception table, laid out after everything else.

3.12's compiler moves every block that normal control flow never reaches ("cold" blocks: except
and finally handlers, ``with`` exits, the throw path of ``yield from``/``await``, the cleanup of
an inline comprehension) to the end of the code object.  Structuring consumes handlers where
their ``try``/``with`` starts, so the walk must step over them when it meets them again at the
end; the blocks with no statement form at all are listed here once per code object.
"""

from .inline_comprehensions import comprehension_cleanups
from .instructions import PY


def exception_only_blocks(instrs, entries):
    """{start: stop} of blocks the walk skips: ``CLEANUP_THROW; JUMP`` (the throw path of a
    ``yield from``/``await`` loop, 3.12+) and inline-comprehension cleanups."""
    blocks = comprehension_cleanups(instrs, entries)
    for k in range(len(instrs) - 1):
        if instrs[k].op == "CLEANUP_THROW" and instrs[k + 1].op == "JUMP":
            blocks[k] = k + 2
    return blocks


class ColdHandlerMixin(object):
    """``try`` and ``with`` whose handlers 3.12+ moved past the code that follows them.

    3.11 lays a handler out right after its body (``body; JUMP join; handler; join:``); 3.12+
    continues with the code after the statement and puts the handler at the end, where its
    clauses jump *back* to the join.  The statement then ends at the join (or, when no clause
    falls through, at the end of the body), and the handler region is skipped when the walk
    reaches it.
    """

    cold_joins = frozenset()  # jump targets that end a cold handler's clause: no statement

    def cold_try_join(self, h, body_end, region_end):
        """Where the try statement whose handler region [h, region_end) is cold ends, or None
        when the handler follows its body as on 3.11."""
        if PY < (3, 12) or h <= body_end:
            return None
        instrs = self.instrs
        if instrs[h - 1].op == "JUMP" and instrs[h - 1].target > h:
            return None
        loop = self.ctx.loop
        targets = []
        for ins in instrs[h:region_end]:
            t = ins.target
            if ins.op != "JUMP" or t is None or h <= t < region_end or t > self.n:
                continue
            if loop is not None and (t in loop.continue_targets or t == loop.break_target):
                continue
            targets.append(t)
        if any(t >= region_end for t in targets):
            return None
        inside = [t for t in targets if body_end <= t <= min(h, self.range_end)]
        return min(inside) if inside else body_end

    def skip_cold(self, start, stop, join=None):
        """Remember that [start, stop) was consumed, and that jumps to ``join`` end clauses."""
        self.cleanup_starts[start] = stop
        if join is not None:
            if not isinstance(self.cold_joins, set):
                self.cold_joins = set()
            self.cold_joins.add(join)

    def cold_with_exit(self, w):
        """(body end, join, handler end) of a ``with`` whose exit handler ``w`` is cold: the protected body
        is followed by the normal exit call ``__exit__(None, None, None)``; None otherwise."""
        if PY < (3, 12):
            return None
        instrs = self.instrs
        end = max(e.end for e in self.entries if e.target == w)
        if instrs[w - 1].op == "JUMP" and instrs[w - 1].target > w:
            return None
        for length in (5, 7):  # LOAD_CONST None x3; CALL; [GET_AWAITABLE; SEND_LOOP]; POP_TOP
            stop = end + length
            if stop < w and self._exit_call_start(stop) == end:
                skip = self._with_handler_end(w)
                if skip < self.n and instrs[skip].op == "JUMP":
                    skip += 1  # the jump back to the join
                return end, stop, skip
        return None
