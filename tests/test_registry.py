"""The recogniser registry (decompiler/registry.py, filled by recognisers.py): one opcode
table, each opname served by the walker core or by exactly one family; chains that pass a step
on with DECLINE; the structure points in their written order."""

import pytest

from dynalens.decompiler import (branches, comprehension_bodies, handlers_legacy,
                                 inline_comprehensions, patterns, render)  # noqa: F401
from dynalens.decompiler.registry import (DECLINE, ENTRY, OPCODES, STRUCTURE_POINTS, chain,
                                          register)
from dynalens.decompiler.statements import StatementWalker


def test_family_handlers_replace_the_cores_and_the_core_serves_the_rest():
    assert OPCODES["FOR_ITER"] is inline_comprehensions.op_FOR_ITER  # it refines branches'
    assert OPCODES["POP_JUMP_IF_FALSE"] is branches.conditional
    assert OPCODES["COPY"] is patterns.op_COPY
    assert OPCODES["LOAD_FAST"] is comprehension_bodies.op_LOAD_FAST
    assert OPCODES["SETUP_FINALLY"] is handlers_legacy.op_SETUP_FINALLY
    assert OPCODES["BINARY_OP"] is StatementWalker.op_BINARY_OP
    assert OPCODES["STORE_FAST"] is StatementWalker.op_STORE_FAST


def test_a_second_family_cannot_claim_an_opname():
    before = dict(OPCODES)
    with pytest.raises(ValueError, match="FOR_ITER"):
        register({"FOR_ITER": branches.op_FOR_ITER})
    assert OPCODES == before


def test_a_chain_runs_its_steps_until_one_does_the_work():
    calls = []

    def declines(walker, x):
        calls.append("declines")
        return DECLINE

    def works(walker, x):
        calls.append("works")
        return None  # (None is a result: the step did the work)

    def never(walker, x):
        calls.append("never")
        return x

    assert chain(declines, works, never)("walker", 1) is None
    assert calls == ["declines", "works"]
    assert chain(declines, never)("walker", 7) == 7
    with pytest.raises(AssertionError):
        chain(declines, declines)("walker", 1)
    # steps left out (None: not for the running version); one step left is the chain itself
    assert chain(None, declines, None, never)("walker", 3) == 3
    assert chain(None, works) is works


def test_a_chain_of_four_argument_steps_passes_each_its_arguments():
    # (the store chain's form: its steps are called with the arguments spelled out)
    calls = []

    def declines(walker, target, value, out, ins):
        calls.append(("declines", walker, target, value, out, ins))
        return DECLINE

    def works(walker, target, value, out, ins):
        calls.append(("works", walker, target, value, out, ins))
        return (target, value)

    assert chain(declines, works)("walker", "t", "v", "o", "i") == ("t", "v")
    assert calls == [("declines", "walker", "t", "v", "o", "i"),
                     ("works", "walker", "t", "v", "o", "i")]
    with pytest.raises(AssertionError):
        chain(declines, declines)("walker", 1, 2, 3, 4)

    def takes_a_default(walker, target, value, out, ins=None):
        return ins

    # a step with a default keeps the general form: the default still applies
    assert chain(takes_a_default)("walker", 1, 2, 3) is None


def test_stores_and_structure_points_are_in_the_written_order():
    assert [step.__name__ for step in STRUCTURE_POINTS] == [
        "try_here", "tested_while_here", "while_true_here", "enclosed_tested_while_here"]
    assert ENTRY.do_try.__module__.endswith("exception_groups")  # except* before any try


def test_loop_structure_points_decline_where_no_loop_starts():
    """_structure_at asks only try_here inside a protected range where no loop starts (the
    walk asks at every instruction there): the points it skips must decline everywhere such."""
    from dynalens.decompiler.statements import _LOOP_HEAD_POINTS, Context

    source = ("def f(xs, n):\n"
              "    try:\n"
              "        while n:\n"
              "            n = g(n)\n"
              "            while True:\n"
              "                if n > 3:\n"
              "                    break\n"
              "        for x in xs:\n"
              "            n += x\n"
              "    except ValueError:\n"
              "        pass\n"
              "    return n\n")
    code = compile(source, "<loops>", "exec").co_consts[0]
    walker = render.CodeWalker(code, "function", render.Session())
    assert set(_LOOP_HEAD_POINTS) <= set(STRUCTURE_POINTS)
    heads = set(walker.while_loops) | set(walker.back_jumps)
    assert heads  # (the check below looks at code with loops)
    for i in range(walker.n):
        if i in heads:
            continue
        for point in _LOOP_HEAD_POINTS:
            assert point(walker, i, [], [], Context()) is DECLINE, (point.__name__, i)


def test_the_store_chain_holds_only_the_steps_the_running_version_can_take():
    # before 3.12 no LOAD_FAST_AND_CLEAR saves a local, before 3.14 no __annotate__ function is
    # the compiler's: the chain is the walker core's step alone, called straight
    from dynalens.decompiler.profile import PROFILE
    if not PROFILE.inline_comprehensions and not PROFILE.annotate_functions:
        assert ENTRY.assign is StatementWalker._assign


def test_a_function_written_as_annotate_before_3_14_is_a_plain_function():
    # (the __annotate__ step once ran on every version: this class fell back to a stub)
    from dynalens.decompiler.profile import PROFILE
    if PROFILE.annotate_functions:
        pytest.skip("3.14+: a class's __annotate__ is the compiler's")
    source = "class C:\n\n    def __annotate__(format):\n        return {}\n    x = 1\n"
    text = render.decompile_code(compile(source, "<test>", "exec"))
    assert "could not decompile" not in text and "def __annotate__(format):" in text
