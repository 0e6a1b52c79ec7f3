"""noise.py: torch's profiler bookkeeping, in each form a torch version emits, taken out.

The code objects are built here with Dynamo's own instruction helpers, in the exact shape the
torch version emits (checked against `dis` of Dynamo's output), so each form is tested on every
torch and Python the suite runs on, not only on the torch that emits it.
"""

import sys

import pytest

pytest.importorskip("torch")

from dynalens.decompiler.api import decompile  # noqa: E402
from dynalens.decompiler.verify import verify  # noqa: E402
from dynalens.lens.noise import simplify, strip_profiler_bookkeeping  # noqa: E402

pytestmark = pytest.mark.torch

PROFILER = "__import_torch_dot_autograd_dot_profiler"
UTILS = "__import_torch_dot__dynamo_dot_utils"


def _ins(name, **kw):
    from torch._dynamo.bytecode_transformation import create_instruction

    return create_instruction(name, **kw)


def _jump(when):
    """The forward conditional jump's name on this Python (3.11 spells the direction)."""
    if sys.version_info[:2] == (3, 11):
        return "POP_JUMP_FORWARD_IF_" + when
    return "POP_JUMP_IF_" + when


def _call_attr(owner, attr, args):
    """owner.attr(*args) as Dynamo writes it on this Python: NULL below the callable before
    3.13, above it from 3.13."""
    from torch._dynamo.bytecode_transformation import create_call_function

    load = [_ins("LOAD_FAST", argval=owner), _ins("LOAD_ATTR", argval=attr)]
    null = [_ins("PUSH_NULL")]
    seq = load + null if sys.version_info >= (3, 13) else null + load
    return seq + [_ins("LOAD_FAST", argval=a) for a in args] + create_call_function(
        len(args), False)


def _gated_enter(flag="tmp_3", mod="tmp_2", cm="tmp_1", function="record_pregraph_bytecode_enter"):
    """torch 2.15's `_pregraph_marker_enter_template`, as it lands in the transformed code."""
    skip, join = _ins("LOAD_CONST", argval=None), _ins("NOP")
    test = [_ins("LOAD_FAST", argval=flag)]
    if sys.version_info >= (3, 13):
        test.append(_ins("TO_BOOL"))
    return [
        _ins("LOAD_GLOBAL", argval=PROFILER), _ins("LOAD_ATTR", argval="_is_profiler_enabled"),
        _ins("STORE_FAST", argval=flag),
        _ins("LOAD_GLOBAL", argval=UTILS), _ins("STORE_FAST", argval=mod),
        _ins("LOAD_CONST", argval=None), _ins("STORE_FAST", argval=cm),
    ] + test + [_ins(_jump("FALSE"), target=skip)] + _call_attr(mod, function, []) + [
        _ins("STORE_FAST", argval=cm),
        _ins("LOAD_CONST", argval=None), _ins("JUMP_FORWARD", target=join),
        skip, join, _ins("POP_TOP"),
    ]


def _gated_exit(mod="tmp_2", cm="tmp_1", function="record_pregraph_bytecode_exit"):
    """torch 2.15's `_pregraph_marker_exit_template`."""
    skip, join = _ins("LOAD_CONST", argval=None), _ins("NOP")
    return [
        _ins("LOAD_FAST", argval=cm), _ins("LOAD_CONST", argval=None), _ins("IS_OP", arg=0),
        _ins(_jump("TRUE"), target=skip),
    ] + _call_attr(mod, function, [cm]) + [
        _ins("POP_TOP"), _ins("LOAD_CONST", argval=None), _ins("JUMP_FORWARD", target=join),
        skip, join, _ins("POP_TOP"),
    ]


def _graph_call(enter, exit_, middle=None):
    """def f(a, b): return g(a, b), with the bookkeeping between pushing g and calling it,
    the arguments on the stack across the exit block (as Dynamo does)."""
    from torch._dynamo.bytecode_transformation import create_call_function, \
        transform_code_object

    def f(a, b):
        tmp_1 = tmp_2 = tmp_3 = None  # noqa: F841 (the locals Dynamo adds)
        return g(a, b)  # noqa: F821

    def build(instructions, code_options):
        head = [i for i in instructions if i.opname in ("RESUME", "COPY_FREE_VARS")]
        callee = [_ins("LOAD_GLOBAL", arg=1, argval="g")]  # with its NULL, as Dynamo does
        args = [_ins("LOAD_FAST", argval="a"), _ins("LOAD_FAST", argval="b")]
        instructions[:] = head + callee + enter + (middle or []) + args + exit_ + \
            create_call_function(2, False) + [_ins("RETURN_VALUE")]
        for name in (PROFILER, UTILS, "_is_profiler_enabled", "record_pregraph_bytecode_enter",
                     "record_pregraph_bytecode_exit", "g", "record_function"):
            if name not in code_options["co_names"]:
                code_options["co_names"] += (name,)

    code, _ = transform_code_object(f.__code__, build)
    return code


def _names(code):
    import dis

    return {i.argval for i in dis.get_instructions(code) if isinstance(i.argval, str)}


def test_gated_form_taken_out_and_the_rest_is_source():
    code = _graph_call(_gated_enter(), _gated_exit())
    clean, removed = strip_profiler_bookkeeping(code)
    assert removed == 2
    assert not _names(clean) & {"record_pregraph_bytecode_enter", "record_pregraph_bytecode_exit",
                                "_is_profiler_enabled", PROFILER, UTILS}
    simple, notes, n = simplify(code, warn=pytest.fail)
    assert n == 2 and "only while a profiler is active" in notes[0]
    source = decompile(simple)
    assert "record_pregraph" not in source and "return g(a, b)" in source
    result = verify(simple, source)
    assert result, result.difference


def test_gated_form_with_unknown_call_is_kept_and_named():
    # the exit block calls something else: not the known form, nothing is removed, a warning
    # names the surface
    code = _graph_call(_gated_enter(), _gated_exit(function="record_function"))
    clean, removed = strip_profiler_bookkeeping(code)
    assert removed == 0 and clean is code
    warnings = []
    simple, notes, n = simplify(code, warn=warnings.append)
    assert n == 0
    assert len(warnings) == 1 and "unrecognised torch surface 'profiler bookkeeping'" \
        in warnings[0] and "gated (torch 2.15)" in warnings[0]


def test_gated_form_that_touches_the_graph_arguments_is_kept():
    # an enter block that pops a value it did not push (here: g, pushed before it) is not
    # bookkeeping: removing it would change the call
    enter = _gated_enter()
    enter.insert(3, _ins("POP_TOP"))   # right after the flag is stored
    code = _graph_call(enter, _gated_exit())
    assert strip_profiler_bookkeeping(code) == (code, 0)


def test_gated_temporary_read_elsewhere_is_kept():
    # the profiler context is read outside the bookkeeping: it is not only bookkeeping
    middle = [_ins("LOAD_FAST", argval="tmp_1"), _ins("POP_TOP")]
    code = _graph_call(_gated_enter(), _gated_exit(), middle=middle)
    assert strip_profiler_bookkeeping(code) == (code, 0)


def test_code_without_bookkeeping_is_left_alone():
    def f(a):
        return a + 1

    warnings = []
    simple, notes, n = simplify(f.__code__, warn=warnings.append)
    assert n == 0 and not warnings


def test_unknown_resume_calling_convention_is_named():
    from dynalens.lens.dump import _nested_convention_note

    def torch_dynamo_resume_in_f_at_3(___stack0, x):
        return x

    def known(__nested_resume_fns, __nested_frame_values, x):
        return x

    warnings = []
    assert _nested_convention_note([torch_dynamo_resume_in_f_at_3.__code__],
                                   warn=warnings.append) == []
    assert len(warnings) == 1 and "'resume calling convention'" in warnings[0]
    assert _nested_convention_note([known.__code__], warn=pytest.fail)
    assert _nested_convention_note([], warn=pytest.fail) == []


def test_unknown_form_in_a_real_run_is_a_warning_in_the_index(tmp_path, monkeypatch):
    # a torch whose bookkeeping no known form matches (simulated: no forms known): the dump
    # keeps the calls, index.json names the surface, the program's results are unchanged
    import json
    import warnings

    import torch

    from dynalens.lens import noise
    from dynalens.lens.api import prepare_debug

    monkeypatch.setattr(noise, "PROFILER_FORMS", ())

    def fn(x):
        return torch.sin(x) + 1

    x = torch.arange(4.0)
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with prepare_debug(str(tmp_path), report=False) as run:
            got = torch.compile(fn, backend="eager")(x)
    torch._dynamo.reset()
    assert torch.equal(got, fn(x))
    with open(tmp_path / "index.json", encoding="utf-8") as fh:
        index = json.load(fh)
    named = [w for w in index["warnings"]
             if "unrecognised torch surface 'profiler bookkeeping'" in w]
    assert named and "fn" in named[0], index["warnings"]
    entry = index["compiles"][0]["transformed_code"]
    assert entry["profiler_bookkeeping_removed"] == 0
    # kept, the calls still verify: the dataflow check holds the stack values in temporaries
    from dynalens.decompiler.dataflow import SUPPORTED
    if SUPPORTED:
        assert entry["verified"] and entry["verified_by"] == "dataflow", entry["difference"]
    with open(tmp_path / entry["file"], encoding="utf-8") as fh:
        assert "record_pregraph_bytecode" in fh.read()


def test_within_one_dump_each_code_object_is_simplified_once(monkeypatch):
    from dynalens.lens import noise

    code = _graph_call(_gated_enter(), _gated_exit())
    runs = []
    real = noise._simplify
    monkeypatch.setattr(noise, "_simplify", lambda c: runs.append(c) or real(c))
    with noise.simplified_once():
        clean, notes, n = simplify(code, warn=pytest.fail)
        again = simplify(code)
        assert again == (clean, notes, n) and n == 2 and clean is not code
        assert simplify(clean) == (clean, [], 0)   # the lens's view is its own view
        notes.append("changed by the caller")
        assert simplify(code)[1] == again[1]        # callers get their own list
        assert runs == [code]
        with noise.simplified_once():               # nested: the same table
            simplify(code)
        assert runs == [code]
    simplify(code)
    assert runs == [code, code]                     # outside: worked out afresh
