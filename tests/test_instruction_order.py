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
