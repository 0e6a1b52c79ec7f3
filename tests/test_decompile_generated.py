"""Code objects built by tools (Dynamo) rather than by the compiler: the decompiled source must
run like the bytecode does, using temporaries where no plain statement form exists.

Each case runs the hand-assembled code object and the decompiled source on the same inputs
with the same recording callables, and compares results and the order of calls.
"""

import pytest

from dynalens import DecompilationError
from dynalens.decompiler.render import decompile_code

from bytecode_builder import SUPPORTED, Label, assemble

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="the test assembler encodes CPython 3.11 only")

RESUME = ("RESUME", 0)


def run_both(code, args):
    """(result, calls) of the code object and of its decompiled source."""
    outcomes = []
    source = decompile_code(code)
    namespace = {}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    decompiled = namespace[code.co_name]
    for function in (_function(code), decompiled):
        calls = []

        def record(value, calls=calls):
            calls.append(value)
            return value

        function.__globals__["record"] = record
        outcomes.append((function(*args), calls))
    return outcomes, source


def _function(code):
    import types
    return types.FunctionType(code, {})


def test_value_computed_before_a_statement_keeps_its_order():
    # record(a) is evaluated, then b = record(b) runs while the first result waits on the
    # stack, then the two are added: no statement form, so a temporary must hold record(a).
    code = assemble([
        RESUME,
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
        ("STORE_FAST", 1),
        ("LOAD_FAST", 1), ("BINARY_OP", 0), ("RETURN_VALUE", 0),
    ], argnames=("a", "b"), names=("record",))
    (original, decompiled), source = run_both(code, (10, 1))
    assert original == (11, [10, 1])
    assert decompiled == original, source
    assert "__temp_" in source


def test_swap_and_copy_games():
    # b - a through a SWAP, and a value COPY'd and used twice evaluated once
    code = assemble([
        RESUME,
        ("LOAD_FAST", 0), ("LOAD_FAST", 1), ("SWAP", 2), ("BINARY_OP", 10),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1),
        ("COPY", 1), ("BINARY_OP", 5),
        ("BINARY_OP", 0), ("RETURN_VALUE", 0),
    ], argnames=("a", "b"), names=("record",))
    (original, decompiled), source = run_both(code, (3, 10))
    assert original == (7 + 9, [3])
    assert decompiled == original, source


def test_explicit_null_push_before_a_callable():
    code = assemble([
        RESUME,
        ("PUSH_NULL", 0), ("LOAD_GLOBAL", (0, False)), ("LOAD_FAST", 0), ("PRECALL", 1),
        ("CALL", 1), ("RETURN_VALUE", 0),
    ], argnames=("a",), names=("record",))
    (original, decompiled), source = run_both(code, (5,))
    assert decompiled == original == (5, [5]), source
    assert "record(a)" in source


def test_value_left_on_the_stack_across_a_branch():
    # push a; if b: replace it with a + 1; return it -- the branch changes a stack value
    code = assemble(_labelled([
        RESUME,
        ("LOAD_FAST", 0), ("LOAD_FAST", 1), ("POP_JUMP_FORWARD_IF_FALSE", "end"),
        ("LOAD_CONST", 1), ("BINARY_OP", 0),
        "end",
        ("RETURN_VALUE", 0),
    ]), argnames=("a", "b"), consts=(None, 1))
    for args in [(4, True), (4, False)]:
        (original, decompiled), source = run_both(code, args)
        assert decompiled == original, source


def test_shared_tail_reached_from_two_branches():
    # both branches jump into one tail that returns the value they stored
    program = [
        RESUME,
        ("LOAD_FAST", 0), ("POP_JUMP_FORWARD_IF_FALSE", "other"),
        ("LOAD_CONST", 1), ("STORE_FAST", 1), ("JUMP_FORWARD", "tail"),
        "other",
        ("LOAD_CONST", 2), ("STORE_FAST", 1),
        "tail",
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
        ("RETURN_VALUE", 0),
    ]
    code = assemble(_labelled(program), argnames=("a",), varnames=("x",),
                    consts=(None, "yes", "no"), names=("record",))
    for arg in (True, False):
        (original, decompiled), source = run_both(code, (arg,))
        assert decompiled == original, source


def test_unsupported_bytecode_raises_decompilation_error_with_location():
    code = assemble([RESUME, ("LOAD_FAST", 0), ("POP_TOP", 0), ("POP_TOP", 0),
                     ("LOAD_CONST", 0), ("RETURN_VALUE", 0)], argnames=("a",))
    with pytest.raises(DecompilationError) as info:
        decompile_code(code)
    assert info.value.code is code
    assert info.value.opname == "POP_TOP"
    assert info.value.offset == 6


def _labelled(program):
    """Turn string labels in a program into Label objects (shared by name)."""
    labels = {}
    out = []
    for item in program:
        if isinstance(item, str):
            out.append(labels.setdefault(item, Label(item)))
        elif isinstance(item[1], str):
            out.append((item[0], labels.setdefault(item[1], Label(item[1]))))
        else:
            out.append(item)
    return out
