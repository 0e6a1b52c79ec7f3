"""Constants with no literal form in Dynamo's code (torch.float32, torch.device('cpu')):
written as reserved globals, verified by identity, bound by debug() when it swaps."""

import dis
import sys

import pytest

from dynalens.decompiler import dataflow


def _with_const(source, old, new):
    module = compile(source, "<test>", "exec")
    code = next(c for c in module.co_consts if hasattr(c, "co_code"))
    return code.replace(co_consts=tuple(new if type(c) is type(old) and c == old else c
                                        for c in code.co_consts))


@pytest.mark.skipif(not dataflow.SUPPORTED, reason="dataflow check: CPython 3.11 to 3.13")
def test_dataflow_takes_a_reserved_global_as_that_very_constant():
    opaque = object()
    expected = _with_const("def f():\n    return g(1.5)\n", 1.5, opaque)
    got = _with_const("def f():\n    return g(__dynalens_const_0)\n", 1.5, 1.5)
    assert dataflow.dataflow_difference(expected, got,
                                        reserved={"__dynalens_const_0": opaque}) is None
    # nothing else is relaxed: another object, or no mapping, is a difference
    assert dataflow.dataflow_difference(expected, got,
                                        reserved={"__dynalens_const_0": object()}) is not None
    assert dataflow.dataflow_difference(expected, got) is not None


@pytest.mark.torch
def test_dtype_and_device_constants_verify_and_swap(tmp_path):
    torch = pytest.importorskip("torch")
    import torch._dynamo

    from dynalens.lens.api import debug, prepare_debug

    def f(x):
        y = x.to(torch.float64)
        torch._dynamo.graph_break()
        return y.sum(dtype=torch.float32), torch.device("cpu")

    torch._dynamo.reset()
    fn = torch.compile(f, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        expected = fn(torch.ones(2))
    resume = [dc for dc in run.compiles if dc.record.original_code.co_name != "f"]
    assert resume
    dc = resume[0]
    # the case at hand: Dynamo's code loads the device as a constant
    loaded = [ins.argval for ins in dis.get_instructions(dc.record.transformed_code)
              if ins.opname == "LOAD_CONST"]
    assert any(isinstance(v, torch.device) for v in loaded)
    res = dc.transformed
    assert res.verified, res.difference
    assert "torch.device('cpu')" in res.text and "device(type=" not in res.text.split(
        "def ", 1)[1]
    (name, obj), = res.reserved.items()
    assert obj == torch.device("cpu") and name.startswith("__dynalens_const_")
    with debug(run, pause=False) as session:
        got = fn(torch.ones(2))
        bound = f.__globals__.get(name)
    assert [cid for cid, _ in session.swapped] == [c.key for c in run.compiles]
    assert bound is obj and name not in f.__globals__
    assert torch.equal(got[0], expected[0]) and got[1] == expected[1]


def test_definitions_go_after_future_imports():
    # a function nested in a closure decompiles to a module that starts with the module's
    # `from __future__` import (transformers' wrappers): the definitions must follow it
    from dynalens.lens.source import _after_future

    body = "from __future__ import annotations\ndef outer():\n    def f():\n        pass\n"
    text = _after_future(body, "__dynalens_const_0 = 1\n")
    compile(text, "<test>", "exec")
    assert text.index("__future__") < text.index("__dynalens_const_0")
    assert _after_future("def f():\n    pass\n", "X = 1\n").startswith("X = 1\n")
