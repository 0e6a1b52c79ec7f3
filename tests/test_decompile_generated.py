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


def _outcome(function, args):
    """(result or exception, calls) of one run; record("boom") raises."""
    calls = []

    def record(value):
        calls.append(value)
        if value == "boom":
            raise ValueError(value)
        return value

    function.__globals__["record"] = record
    try:
        result = function(*args)
    except Exception as exc:
        result = repr(exc)
    return result, calls


def _run_both_raising(code, args):
    source = decompile_code(code)
    namespace = {}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    return _outcome(_function(code), args), _outcome(namespace[code.co_name], args), source


def test_copied_value_left_on_the_stack_is_evaluated_once():
    # r = record(a) is COPY'd twice: one copy is popped (an expression statement) while
    # another and r[0] wait on the stack; every use must read one temporary
    code = assemble([
        RESUME,
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1),
        ("COPY", 1), ("COPY", 1), ("LOAD_CONST", 1), ("BINARY_SUBSCR", 0), ("SWAP", 2),
        ("POP_TOP", 0),
        ("BUILD_TUPLE", 2), ("RETURN_VALUE", 0),
    ], argnames=("a",), consts=(None, 0), names=("record",))
    original, decompiled, source = _run_both_raising(code, ("xy",))
    assert original == (("xy", "x"), ["xy"])
    assert decompiled == original, source


def test_values_swapped_on_the_stack_are_spilled_in_the_order_they_were_made():
    # record("a"), record("b"), SWAP: the stack order is b, a when record("c") runs
    code = assemble([
        RESUME,
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 1), ("PRECALL", 1), ("CALL", 1),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 2), ("PRECALL", 1), ("CALL", 1),
        ("SWAP", 2),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 3), ("PRECALL", 1), ("CALL", 1),
        ("POP_TOP", 0),
        ("BUILD_TUPLE", 2), ("RETURN_VALUE", 0),
    ], consts=(None, "a", "b", "c"), names=("record",))
    original, decompiled, source = _run_both_raising(code, ())
    assert original == (("b", "a"), ["a", "b", "c"])
    assert decompiled == original, source


@pytest.mark.parametrize("enter", [True, False])
def test_try_finally_consumes_values_pushed_before_it_and_leaves_its_result(enter):
    # Dynamo's shape for `with nullcontext(): out = func(*args)` (Optimizer.step's wrapper):
    # record("pre"), then NULL, the callable and its arguments are pushed; a statement may
    # run; the try body is only CALL_FUNCTION_EX, and its result stays on the stack after
    # the try/finally, where it is returned with record("pre")'s value
    statement = [("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 2), ("PRECALL", 1), ("CALL", 1),
                 ("POP_TOP", 0)] if enter else []
    program = _labelled([
        RESUME,
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 1), ("PRECALL", 1), ("CALL", 1),
        ("PUSH_NULL", 0), ("LOAD_GLOBAL", (0, False)), ("LOAD_FAST", 0), ("BUILD_MAP", 0),
    ] + statement + [
        "try", ("NOP", 0), ("CALL_FUNCTION_EX", 1), ("NOP", 0),
        "body_end",
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 3), ("PRECALL", 1), ("CALL", 1),
        ("POP_TOP", 0),
        ("LOAD_CONST", 0), ("JUMP_FORWARD", "join"),
        "handler", ("PUSH_EXC_INFO", 0),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 3), ("PRECALL", 1), ("CALL", 1),
        ("POP_TOP", 0), ("RERAISE", 0),
        "cleanup", ("COPY", 3), ("POP_EXCEPT", 0), ("RERAISE", 1),
        "join", ("NOP", 0), ("POP_TOP", 0), ("BUILD_TUPLE", 2), ("RETURN_VALUE", 0),
    ])
    labels = {item.name: item for item in program if isinstance(item, Label)}
    code = assemble(program, argnames=("args",), consts=(None, "pre", "enter", "exit"),
                    names=("record",), exceptions=[
                        (labels["try"], labels["body_end"], labels["handler"], 0, False),
                        (labels["handler"], labels["cleanup"], labels["cleanup"], 1, True)])
    entered = ["enter"] if enter else []
    original, decompiled, source = _run_both_raising(code, (("x",),))
    assert original == (("pre", "x"), ["pre"] + entered + ["x", "exit"])
    assert decompiled == original, source
    original, decompiled, source = _run_both_raising(code, (("boom",),))
    assert original == ("ValueError('boom')", ["pre"] + entered + ["boom", "exit"])
    assert decompiled == original, source


def test_none_pushed_after_a_try_finally_and_popped_at_its_join_writes_no_statement():
    # Dynamo's try/finally (torch.optim's Optimizer.step wrapper on 3.11): after the normal
    # exit's copy of the finally body it pushes None, jumps over the handler and pops it at
    # the join; a popped constant has no source form, so it must not become a `None` line
    program = _labelled([
        RESUME,
        "try", ("NOP", 0), ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1),
        ("CALL", 1), ("STORE_FAST", 1),
        "body_end",
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 1), ("PRECALL", 1), ("CALL", 1),
        ("POP_TOP", 0),
        ("LOAD_CONST", 0), ("JUMP_FORWARD", "join"),
        "handler", ("PUSH_EXC_INFO", 0),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_CONST", 1), ("PRECALL", 1), ("CALL", 1),
        ("POP_TOP", 0), ("RERAISE", 0),
        "cleanup", ("COPY", 3), ("POP_EXCEPT", 0), ("RERAISE", 1),
        "join", ("NOP", 0), ("POP_TOP", 0), ("LOAD_FAST", 1), ("RETURN_VALUE", 0),
    ])
    labels = {item.name: item for item in program if isinstance(item, Label)}
    code = assemble(program, argnames=("value",), varnames=("out",), consts=(None, "exit"),
                    names=("record",), exceptions=[
                        (labels["try"], labels["body_end"], labels["handler"], 0, False),
                        (labels["handler"], labels["cleanup"], labels["cleanup"], 1, True)])
    for value, expected in [("x", ("x", ["x", "exit"])),
                            ("boom", ("ValueError('boom')", ["boom", "exit"]))]:
        original, decompiled, source = _run_both_raising(code, (value,))
        assert original == expected
        assert decompiled == original, source
    assert [line.strip() for line in source.splitlines()][-3:] == [
        "finally:", "record('exit')", "return out"], source
    assert _exact_by_dataflow(code, source)


class _Manager(object):
    def __init__(self, suppress):
        self.suppress = suppress
        self.log = []

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, kind, value, traceback):
        self.log.append(kind)
        return self.suppress


def test_with_body_split_around_its_exit_handler():
    # a Dynamo resume function: the with body starts with a prologue that keeps a value on
    # the stack, then jumps over the exit handler to the rest of the body (still under that
    # handler), which returns; the code after the handler runs only when __exit__ suppresses
    program = _labelled([
        RESUME,
        ("LOAD_FAST", 0), ("BEFORE_WITH", 0),
        "body", ("POP_TOP", 0), ("LOAD_FAST", 1), ("LOAD_CONST", 1), ("STORE_FAST", 2),
        ("JUMP_FORWARD", "resume"),
        "handler", ("PUSH_EXC_INFO", 0), ("WITH_EXCEPT_START", 0),
        ("POP_JUMP_FORWARD_IF_TRUE", "suppressed"), ("RERAISE", 2),
        "cleanup", ("COPY", 3), ("POP_EXCEPT", 0), ("RERAISE", 1),
        "suppressed", ("POP_TOP", 0),
        "suppressed_end", ("POP_EXCEPT", 0), ("POP_TOP", 0), ("POP_TOP", 0),
        ("LOAD_CONST", 2), ("RETURN_VALUE", 0),
        "resume", ("STORE_FAST", 3),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 3), ("PRECALL", 1), ("CALL", 1),
        ("POP_TOP", 0), ("LOAD_FAST", 3),
        "resume_end", ("SWAP", 2), ("LOAD_CONST", 0), ("LOAD_CONST", 0), ("LOAD_CONST", 0),
        ("PRECALL", 2), ("CALL", 2), ("POP_TOP", 0), ("RETURN_VALUE", 0),
    ])
    labels = {item.name: item for item in program if isinstance(item, Label)}
    code = assemble(program, argnames=("manager", "value"), varnames=("flag", "out"),
                    consts=(None, False, "suppressed"), names=("record",), exceptions=[
                        (labels["body"], labels["handler"], labels["handler"], 1, True),
                        (labels["handler"], labels["cleanup"], labels["cleanup"], 3, True),
                        (labels["suppressed"], labels["suppressed_end"], labels["cleanup"], 3,
                         True),
                        (labels["resume"], labels["resume_end"], labels["handler"], 1, True)])
    for value, suppress in [("x", False), ("boom", False), ("boom", True)]:
        outcomes = []
        for function in (_function(code), None):
            if function is None:
                namespace = {}
                source = decompile_code(code)
                exec(compile(source, "<decompiled>", "exec"), namespace)
                function = namespace[code.co_name]
            manager = _Manager(suppress)
            outcomes.append((_outcome(function, (manager, value)), manager.log))
        assert outcomes[0] == outcomes[1], source
    assert outcomes[0] == (("suppressed", ["boom"]), ["enter", ValueError])


def _exact_by_dataflow(code, source):
    from dynalens.decompiler.verify import verify

    return verify(code, source, temporaries=True)


def test_part_of_a_statement_made_before_a_waiting_value_runs_first():
    # record(a) is made, then record(b); SWAP puts record(a) on top and it is stored while
    # record(b) waits: as source, the store's value must still be computed first
    code = assemble([
        RESUME,
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
        ("SWAP", 2), ("STORE_FAST", 2), ("RETURN_VALUE", 0),
    ], argnames=("a", "b"), varnames=("x",), names=("record",))
    (original, decompiled), source = run_both(code, (1, 2))
    assert original == (2, [1, 2])
    assert decompiled == original, source
    assert _exact_by_dataflow(code, source), source


def test_callee_loaded_after_its_argument_is_loaded_after_it():
    # Dynamo's resume calls: the argument is computed, then the global callee is loaded and
    # SWAPped under it; `g(record(a))` would look g up first
    code = assemble([
        RESUME,
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1),
        ("LOAD_GLOBAL", (1, False)), ("SWAP", 2), ("PUSH_NULL", 0), ("SWAP", 3),
        ("SWAP", 2), ("PRECALL", 1), ("CALL", 1), ("RETURN_VALUE", 0),
    ], argnames=("a",), names=("record", "g"))
    source = decompile_code(code)
    assert _exact_by_dataflow(code, source), source
    namespace = {"g": lambda v: ("g", v)}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    calls = []
    namespace["record"] = lambda v: calls.append(v) or v
    assert namespace["generated"](7) == ("g", 7) and calls == [7]


def test_lists_made_in_one_order_are_made_in_that_order():
    # two lists; the second is filled and kept, the first dropped: source builds them in
    # the bytecode's order (a list's identity is observable)
    code = assemble([
        RESUME,
        ("BUILD_LIST", 0), ("BUILD_LIST", 0), ("SWAP", 2), ("LOAD_FAST", 0), ("BUILD_LIST", 1),
        ("LIST_EXTEND", 2), ("POP_TOP", 0), ("RETURN_VALUE", 0),
    ], argnames=("a",))
    (original, decompiled), source = run_both(code, (5,))
    assert original[0] == [5] and decompiled[0] == [5]
    assert _exact_by_dataflow(code, source), source


def test_star_args_of_a_call_made_after_a_spill_stay_starred():
    # Transformers' `func(self, *args, **kwargs)` after Dynamo (GPT-2 training step): the
    # callee and the args tuple are spilled to temporaries by `b = record(b)`, a value made
    # later is SWAPped under them, and CALL_FUNCTION_EX unpacks the tuple. The `*` belongs to
    # the call: it was taken out on its own as `__temp_3 = *__temp_2` (a SyntaxError)
    code = assemble([
        RESUME,
        ("PUSH_NULL", 0), ("LOAD_GLOBAL", (1, False)), ("LOAD_FAST", 0), ("BUILD_TUPLE", 1),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
        ("STORE_FAST", 1),
        ("LOAD_FAST", 2),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
        ("SWAP", 5), ("SWAP", 4), ("SWAP", 3), ("SWAP", 2),
        ("CALL_FUNCTION_EX", 1), ("BINARY_OP", 0), ("RETURN_VALUE", 0),
    ], argnames=("a", "b", "kw"), names=("record", "f"))
    source = decompile_code(code)
    compile(source, "<decompiled>", "exec")
    assert "(*__temp_" in source, source
    assert _exact_by_dataflow(code, source), source
    results = []
    for function in (_function(code), None):
        namespace = {"f": lambda *a, **k: sum(a) + k["c"]}
        if function is None:
            exec(compile(source, "<decompiled>", "exec"), namespace)
            function = namespace["generated"]
        calls = []
        function.__globals__.update(namespace, record=lambda v: calls.append(v) or v)
        results.append((function(3, 4, {"c": 100}), calls))
    assert results[0] == results[1] == (4 + 3 + 100, [4, 4])


@pytest.mark.parametrize("parts", [
    [("LOAD_CONST", 0), ("LOAD_CONST", 0)],                                      # x[:]
    [("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
     ("LOAD_CONST", 0)],                                                         # x[f(a):]
], ids=["constant", "computed"])
def test_slice_waiting_on_the_stack_across_a_statement(parts):
    # Mixtral under Dynamo: `x[:]`'s slice is built, a statement runs, then the subscript.
    # The slice was taken out as `__temp_2 = :` (a SyntaxError); its parts may be, it stays
    code = assemble([RESUME, ("LOAD_FAST", 0)] + parts + [
        ("BUILD_SLICE", 2),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 1), ("PRECALL", 1), ("CALL", 1),
        ("STORE_FAST", 1), ("BINARY_SUBSCR", 0), ("RETURN_VALUE", 0),
    ], argnames=("x", "a"), names=("record",))
    (original, decompiled), source = run_both(code, ([5, 6, 7, 8], 1))
    assert decompiled == original, source
    if len(parts) == 2:
        assert original == ([5, 6, 7, 8], [1])
        assert _exact_by_dataflow(code, source), source
    else:
        assert original == ([6, 7, 8], [1, 1])


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
