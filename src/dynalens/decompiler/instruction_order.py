"""Lay normalized instructions out in another order: one place for the renumbering.

Why: two passes move blocks of instructions before structuring (block_order.py puts 3.12+
cold handlers back at the end of their statements; generated_layout.py moves a handler that
generated code jumps over to the end). Both must leave the same program: every jump goes to
the instruction it went to, every instruction keeps its exception handler, ``is_target``
marks exactly the instructions something jumps to. ``apply_order`` does that renumbering
from a plain list of old indexes, plus the jumps a pass adds and the ones it drops.
"""

from .instructions import ExceptionEntry, Instr


class NewJump(object):
    """An unconditional jump a pass adds: to old instruction ``target``, with the offset and
    line of old instruction ``like`` and the exception handler of old instruction
    ``handler_of`` (None: no handler)."""

    __slots__ = ("target", "like", "handler_of")

    def __init__(self, target, like, handler_of):
        self.target, self.like, self.handler_of = target, like, handler_of


def apply_order(instrs, entries, order, redirect=None, retarget=None, reuse=False):
    """(instrs, entries, origin) laid out in ``order``: items are old indexes (that
    instruction, copied) or :class:`NewJump`. ``redirect``: {old index left out: old index
    or NewJump} that jumps to it go to instead (a dropped jump: where it went).
    ``retarget``: {old index: NewJump} whose instruction jumps to that added jump instead of
    its own target. ``origin[k]`` is the old index of new instruction ``k`` (None for an
    added jump). The input is left as it was, unless ``reuse``: then each old instruction
    (named at most once in ``order``) is itself renumbered and placed, not copied, which
    spares a copy of every instruction to a caller that drops the old list (the walker)."""
    n = len(instrs)
    handler = [None] * n
    for e in reversed(entries):  # (entries do not overlap; the first one wins: written last)
        start, end = max(e.start, 0), min(e.end, n)
        if start < end:
            handler[start:end] = [(e.target, e.depth, e.lasti)] * (end - start)
    count = len(order)
    # old index -> new position (one left out of ``order`` keeps its own index as before)
    position_of = list(range(n))
    added = {}        # id(NewJump) -> new position
    for position, item in enumerate(order):
        if item.__class__ is NewJump:
            added[id(item)] = position
        else:
            position_of[item] = position
    redirect = redirect or {}

    def new_index(old):
        while old in redirect:
            old = redirect[old]
            if isinstance(old, NewJump):
                return added[id(old)]
        if 0 <= old < n:
            return position_of[old]
        return count if old >= n else old

    new_jump = NewJump
    handlers = [handler[item] if item.__class__ is not new_jump else
                None if item.handler_of is None else handler[item.handler_of]
                for item in order]
    origin = [item if item.__class__ is not new_jump else None for item in order]
    result = []
    append = result.append
    for position, item in enumerate(order):
        if item.__class__ is new_jump:
            like = instrs[item.like]
            ins = Instr("JUMP", None, None, like.offset, like.line)
            ins.target = new_index(item.target)
        else:
            old = instrs[item]
            target, original_target = old.target, old.original_target
            if reuse:
                # (the old jump fields are replaced below where they were set, and stay
                # None where they were None)
                ins = old
                ins.is_target = False
            else:
                ins = Instr(old.op, old.arg, old.argval, old.offset, old.line)
            if retarget and item in retarget:
                ins.target = added[id(retarget[item])]
            elif target is not None:
                ins.target = position_of[target] if 0 <= target < n and \
                    target not in redirect else new_index(target)
            if original_target is not None:
                ins.original_target = new_index(original_target)
        ins.index = position
        append(ins)
    for ins in result:
        target = ins.target
        if target is not None and target < count:
            result[target].is_target = True
    new_entries = []
    previous = None  # the handler of the position before: the last entry ends there
    for position, where in enumerate(handlers):
        if where is previous:
            # (one old entry's positions share one tuple: the entry made for the position
            # before goes on; None, no handler, goes on without one)
            if where is not None:
                new_entries[-1].end = position + 1
            continue
        previous = where
        if where is None:
            continue
        target = new_index(where[0])
        last = new_entries[-1] if new_entries else None
        if last is not None and last.end == position and \
                (last.target, last.depth, last.lasti) == (target, where[1], where[2]):
            last.end = position + 1
        else:
            new_entries.append(ExceptionEntry(position, position + 1, target, where[1],
                                              where[2]))
    return result, new_entries, origin
