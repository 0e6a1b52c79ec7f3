"""The walk's shortcuts (statements.StatementWalker.walk): tables worked out once per walker
that spare calls at instructions where nothing can start, and must answer as the calls would."""

import ast

from dynalens.decompiler import registry, render
from dynalens.decompiler.statements import StatementWalker
from real_code import code_objects, decompiled


def _nested_trys(a, b):
    try:
        a.append(b)
        b.extend(a)
        try:
            a.pop(b[0] + b[1])
            with a:
                b.clear()
        except KeyError as error:
            a.log(error)
            a.insert(b, 3)
        finally:
            b.close()
    except ValueError:
        return 1
    return a


def _codes():
    import textwrap
    import contextlib
    return code_objects((textwrap, contextlib), [_nested_trys.__code__])


def test_try_starts_names_the_handlers_try_here_reads_as_a_try():
    # per instruction: the handlers of its chain that try_here would read (PUSH_EXC_INFO,
    # no lasti), worked out from the instruction's innermost entry alone
    checked = 0
    for code in _codes():
        walker = render.CodeWalker(code, render.code_kind(code), render.Session())
        table = walker.try_starts()
        for i in range(walker.n):
            entry = walker.handler_at[i]
            if entry is None:
                continue
            expected = frozenset(e.target for e in walker.chain(i) if not e.lasti and
                                 walker.instrs[e.target].op == "PUSH_EXC_INFO")
            assert table[entry] == expected, (code.co_name, i)
            checked += 1
    assert checked > 100


def test_the_walk_asks_try_here_only_where_a_try_may_start():
    # inside a try body (its handler open) try_here declines: the walk does not ask it there,
    # and reads the same statements as when it asks at every protected instruction
    asked, declined_inside = [], []
    real = StatementWalker.try_here

    def try_here(walker, i, stack, out, ctx):
        asked.append(i)
        result = real(walker, i, stack, out, ctx)
        if result is registry.DECLINE and walker.try_starts()[walker.handler_at[i]] <= ctx.open:
            declined_inside.append(i)
        return result

    at = registry.STRUCTURE_POINTS.index(StatementWalker.try_here)
    registry.STRUCTURE_POINTS[at] = try_here
    try:
        text = render.decompile_code(_nested_trys.__code__, strict=True)
    finally:
        registry.STRUCTURE_POINTS[at] = real
    assert "dynalens" not in text
    tree = ast.parse(text)
    assert sum(isinstance(node, ast.Try) for node in ast.walk(tree)) == 2 or \
        sum(isinstance(node, getattr(ast, "TryStar", ast.Try)) for node in ast.walk(tree)) >= 2
    assert asked  # the trys were read through it
    assert declined_inside == []


def test_handler_at_is_the_innermost_entry_around_each_instruction():
    checked = 0
    for code in _codes():
        walker = render.CodeWalker(code, render.code_kind(code), render.Session())
        for k in range(walker.n):
            around = [e for e in walker.entries if e.start <= k < e.end]
            if not around:
                assert walker.handler_at[k] is None
                continue
            smallest = min(e.end - e.start for e in around)
            assert walker.handler_at[k] in [e for e in around if e.end - e.start == smallest]
            checked += 1
    assert checked > 100


def test_exception_only_blocks_finds_each_throw_path_cleanup():
    from dynalens.decompiler.cold_blocks import exception_only_blocks
    from dynalens.decompiler.instructions import Instr

    def instrs(*ops):
        return [Instr(op, None, None, 2 * k, index=k) for k, op in enumerate(ops)]

    found = exception_only_blocks(instrs("CLEANUP_THROW", "JUMP", "NOP", "CLEANUP_THROW",
                                         "POP_TOP", "CLEANUP_THROW", "JUMP", "CLEANUP_THROW"), [])
    assert found == {0: 2, 5: 7}
    assert exception_only_blocks(instrs("CLEANUP_THROW"), []) == {}
    assert exception_only_blocks([], []) == {}


def test_the_greatest_line_before_each_instruction():
    # _is_implicit_return compares a return's line with the greatest line before it
    for code in _codes():
        walker = render.CodeWalker(code, render.code_kind(code), render.Session())
        lined = [ins for ins in walker.instrs if ins.line is not None]
        if not lined:
            continue
        walker._is_implicit_return(lined[-1])  # (a load without a line needs no table)
        best, expected = -1, []
        for ins in walker.instrs:
            expected.append(best)
            if ins.line is not None:
                best = max(best, ins.line)
        assert walker._max_line == expected, code.co_name


def test_every_backward_jump_is_a_loop_found_before_walking():
    from dynalens.decompiler.instructions import POP_JUMPS
    found = 0
    for code in _codes():
        walker = render.CodeWalker(code, render.code_kind(code), render.Session())
        cold = walker._cold_code or ()
        for ins in walker.instrs:
            if ins.target is None or ins.target > ins.index or ins.index in cold:
                continue
            if ins.op == "JUMP":
                assert ins.index in walker.back_jumps[ins.target], (code.co_name, ins)
                found += 1
            elif ins.op in POP_JUMPS and ins.target in walker.while_loops:
                found += 1
    assert found >= 5


def test_an_opcode_no_handler_reads_fails_as_unsupported(monkeypatch):
    from dynalens.decompiler.errors import DecompilationError

    def f(a):
        return a + 1

    walker = render.CodeWalker(f.__code__, "function", render.Session())
    op = next(ins.op for ins in walker.instrs if ins.op.startswith("BINARY"))
    monkeypatch.delitem(registry.OPCODES, op)
    try:
        walker.walk(0, walker.n, [], render.Context())
    except DecompilationError as error:
        assert "unsupported opcode" in str(error) and op in str(error)
    else:
        raise AssertionError("walked an opcode without a handler")


def test_exception_only_code_is_what_normal_control_flow_never_reaches():
    from dynalens.decompiler.block_order import warm_code
    from dynalens.decompiler.cold_blocks import exception_only_code
    for code in _codes():
        walker = render.CodeWalker(code, render.code_kind(code), render.Session())
        warm = warm_code(walker.instrs)
        assert exception_only_code(walker.instrs) == set(
            k for k in range(walker.n) if not warm[k])


def _reached(instrs):
    """Indexes reached from 0 through fall-through and jumps, one instruction at a time."""
    from dynalens.decompiler.block_order import _NO_FALLTHROUGH
    n, reached, todo = len(instrs), set(), [0]
    while todo:
        k = todo.pop()
        if k >= n or k in reached:
            continue
        reached.add(k)
        if instrs[k].target is not None:
            todo.append(instrs[k].target)
        if instrs[k].op not in _NO_FALLTHROUGH:
            todo.append(k + 1)
    return reached


def test_warm_code_marks_what_jumps_and_fall_through_reach():
    from dynalens.decompiler.block_order import warm_code
    from dynalens.decompiler.instructions import Instr, normalize
    for code in _codes():
        instrs = normalize(code)[0]
        warm = warm_code(instrs)
        assert set(k for k in range(len(instrs)) if warm[k]) == _reached(instrs), code.co_name
    # runs that end at a return, a jump back into a run read already, a jump past the code
    ops = [("NOP", None), ("POP_JUMP_IF_TRUE", 5), ("JUMP", 9), ("NOP", None),
           ("RETURN_VALUE", None), ("NOP", None), ("JUMP", 1), ("NOP", None)]
    instrs = []
    for k, (op, target) in enumerate(ops):
        instrs.append(Instr(op, None, None, 2 * k, index=k))
        instrs[-1].target = target
    assert list(warm_code(instrs)) == [1, 1, 1, 0, 0, 1, 1, 0]
    assert warm_code([]) == bytearray()


def _loops(items, pairs):
    total = 0
    for item in items:
        for key, value in pairs:
            if key == item:
                continue
            total += value
    while items:
        item = items.pop()
        if not item:
            break
        total -= item
    for left, right in zip(items, pairs):
        for other in right:
            total += left * other
    return total


def test_structure_heads_leave_out_only_for_heads_where_every_loop_point_declines(
        monkeypatch):
    # a for loop's FOR_ITER is a back jump's target, but _loop_heads finds no back edges there
    # and the loop points decline: the walk does not ask _structure_at at such a head. Reading
    # the same code with every loop head asked gives the same text
    left_out = 0
    codes = _codes() + [_loops.__code__]
    for code in codes:
        walker = render.CodeWalker(code, render.code_kind(code), render.Session())
        every = frozenset(walker.while_loops).union(walker.back_jumps, walker.empty_tries)
        heads = walker.structure_heads()
        assert heads <= every
        for k in every - heads:
            assert walker.instrs[k].op in ("FOR_ITER", "GET_ANEXT"), (code.co_name, k)
            loop, backs, outer_first, inside = walker._loop_heads(k, render.Context())
            assert loop is None and not backs and not outer_first, (code.co_name, k)
            left_out += 1
    assert left_out >= 5
    texts = [render.decompile_code(code) for code in codes]

    def every_head(walker):
        walker._heads = frozenset(walker.while_loops).union(walker.back_jumps,
                                                            walker.empty_tries)
        return walker._heads

    monkeypatch.setattr(StatementWalker, "structure_heads", every_head)
    assert [render.decompile_code(code) for code in codes] == texts


def _empty_try_codes(functions_only=False):
    """The code objects of the empty try corpus and of stdlib modules with many handlers."""
    import importlib
    import os
    sources = [os.path.join(os.path.dirname(__file__), "corpus", "issue12_empty_try_body.py")]
    sources += [importlib.import_module(name)
                for name in ("asyncio.base_events", "tarfile", "zipfile", "argparse")]
    return code_objects(sources, functions_only=functions_only)


def test_empty_tries_are_looked_for_wherever_find_finds_one():
    # (StatementWalker asks empty_tries.find only where a PUSH_EXC_INFO may be no entry's
    # target: everywhere else find must find nothing; and it must be asked where it finds)
    from dynalens.decompiler import empty_tries, statements
    from dynalens.decompiler.instructions import (exception_entries, instruction_lines,
                                                  normalize)
    if statements.PROFILE.setup_blocks:
        return  # (3.8-3.10: the SETUP_* blocks give every handler its region: no find)
    asked = found = 0
    for code in _empty_try_codes():
        instrs, offset_to_index = normalize(code)
        entries = exception_entries(code, offset_to_index)
        if not entries:
            continue
        every = empty_tries.find(code, instrs, entries, instruction_lines(code, instrs))
        if statements._handler_left_untargeted(code, instrs, entries):
            asked += 1
            found += bool(every)
        else:
            assert every == {}, code
    assert found and asked < 20, (found, asked)


def test_empty_tries_asked_everywhere_change_no_output(monkeypatch):
    # (the same in every layout the walker reads: compared on the outputs)
    from dynalens.decompiler import statements

    def outputs():
        return [decompiled(code) for code in _empty_try_codes(functions_only=True)]

    guarded = outputs()
    monkeypatch.setattr(statements, "_handler_left_untargeted", lambda *args: True)
    assert outputs() == guarded
