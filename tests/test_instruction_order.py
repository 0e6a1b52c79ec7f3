"""instruction_order.apply_order: jumps, jump targets and exception handlers follow the
instructions they name when a pass lays them out in another order."""

from dynalens.decompiler.instruction_order import NewJump, apply_order
from dynalens.decompiler.instructions import ExceptionEntry, Instr


def _listing(*ops):
    """Instructions from (op, target) pairs; offsets 2 apart, line = index + 1."""
    instrs = []
    for index, (op, target) in enumerate(ops):
        ins = Instr(op, None, None, 2 * index, index + 1, index)
        ins.target = target
        instrs.append(ins)
    for ins in instrs:
        if ins.target is not None and ins.target < len(instrs):
            instrs[ins.target].is_target = True
    return instrs


def test_a_block_moved_to_the_end_keeps_its_jumps_and_handlers():
    # 0 NOP; 1 JUMP ->3 (over the handler); 2 RERAISE (handler of 0); 3 RETURN_VALUE
    instrs = _listing(("NOP", None), ("JUMP", 3), ("RERAISE", None), ("RETURN_VALUE", None))
    entries = [ExceptionEntry(0, 1, 2, 0, False)]
    new, new_entries, origin = apply_order(instrs, entries, [0, 3, 2], {1: 3})
    assert origin == [0, 3, 2]
    assert [(i.op, i.target, i.index, i.is_target) for i in new] == [
        ("NOP", None, 0, False), ("RETURN_VALUE", None, 1, False), ("RERAISE", None, 2, False)]
    assert [(e.start, e.end, e.target) for e in new_entries] == [(0, 1, 2)]
    assert instrs[1].target == 3 and instrs[2].index == 2  # (the input is left as it was)


def test_an_added_jump_and_a_retargeted_loop_exit():
    # 0 FOR_ITER ->3; 1 JUMP ->0; 2 RERAISE (handler of 1); 3 RETURN_VALUE. The handler goes
    # in front of 3 with a jump over it that the loop exits to.
    instrs = _listing(("FOR_ITER", 3), ("JUMP", 0), ("RERAISE", None), ("RETURN_VALUE", None))
    entries = [ExceptionEntry(1, 2, 2, 1, True)]
    over = NewJump(3, 1, 1)
    new, new_entries, origin = apply_order(instrs, entries, [0, 1, over, 2, 3],
                                           retarget={0: over})
    assert origin == [0, 1, None, 2, 3]
    assert [(i.op, i.target) for i in new] == [
        ("FOR_ITER", 2), ("JUMP", 0), ("JUMP", 4), ("RERAISE", None), ("RETURN_VALUE", None)]
    assert (new[2].offset, new[2].line) == (instrs[1].offset, instrs[1].line)
    # the added jump has the handler of instruction 1: one entry covers both
    assert [(e.start, e.end, e.target, e.depth, e.lasti) for e in new_entries] == [
        (1, 3, 3, 1, True)]


def _fields(instrs):
    return [(i.op, i.arg, i.argval, i.offset, i.line, i.target, i.original_target, i.index,
             i.is_target) for i in instrs]


def test_reuse_renumbers_the_input_instructions_as_the_copy_would():
    # the same listing, order and fix-ups as above, plus a redirected jump with an original
    # target: reuse gives the same fields, in the input's own objects
    def listing():
        instrs = _listing(("FOR_ITER", 4), ("JUMP", 0), ("RERAISE", None), ("JUMP", 4),
                          ("RETURN_VALUE", None))
        instrs[3].original_target = 2
        return instrs, [ExceptionEntry(1, 2, 2, 1, True)]

    copied_from, entries = listing()
    over = NewJump(4, 1, 1)
    order = [0, 1, over, 2, 4]
    copied = apply_order(copied_from, entries, order, {3: 4}, {0: over})
    instrs, entries = listing()
    reused = apply_order(instrs, entries, order, {3: 4}, {0: over}, reuse=True)
    assert _fields(reused[0]) == _fields(copied[0])
    assert [(e.start, e.end, e.target) for e in reused[1]] == \
        [(e.start, e.end, e.target) for e in copied[1]]
    assert reused[2] == copied[2]
    assert reused[0][0] is instrs[0] and reused[0][3] is instrs[2]  # (not copies)
    assert not any(ins is old for ins in copied[0] for old in copied_from)


def test_where_entries_overlap_the_first_one_names_the_handler():
    # 0-3 NOPs, 4 RERAISE, 5 RERAISE; entry A [0, 3) -> 4 listed before B [2, 4) -> 5
    instrs = _listing(*([("NOP", None)] * 4 + [("RERAISE", None)] * 2))
    entries = [ExceptionEntry(0, 3, 4, 0, False), ExceptionEntry(2, 4, 5, 1, True)]
    new, new_entries, _ = apply_order(instrs, entries, list(range(6)))
    assert [(e.start, e.end, e.target, e.depth, e.lasti) for e in new_entries] == [
        (0, 3, 4, 0, False), (3, 4, 5, 1, True)]
