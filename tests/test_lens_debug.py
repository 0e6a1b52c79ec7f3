"""debug(): what runs inside the block (swaps, replays, their undoing), in-process.

The debuggers themselves (pdb through stdin, VS Code's debugpy over DAP) are driven in
test_lens_debug_pdb.py and test_lens_debug_dap.py; the pause on entry in test_lens_debug_pause.py.
"""

import os
import sys

import pytest

torch = pytest.importorskip("torch")

from dynalens.lens.api import debug, prepare_debug  # noqa: E402

pytestmark = pytest.mark.torch

def test_swaps_are_undone_after_the_block(tmp_path):
    import torch._dynamo
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._C._dynamo.eval_frame import _debug_get_precompile_entries

    def double(x):
        return x * 2

    torch._dynamo.reset()
    fn = torch.compile(double, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(torch.ones(2))
    g = double.__globals__
    graph_names = [n for n in run.compiles[0].graph_files if n]
    before = {n: g[n] for n in graph_names}
    with debug(run, pause=False) as session:
        inside = len(_debug_get_precompile_entries(double.__code__))
        swapped_graphs = {n: g[n] for n in graph_names}
        assert torch.equal(fn(torch.ones(2)), torch.full((2,), 2.0))
    assert inside == len(session.swapped) + len(session.relabeled) == 1
    assert all(swapped_graphs[n] is not before[n] for n in graph_names)
    assert _debug_get_precompile_entries(double.__code__) == []
    assert all(g[n] is before[n] for n in graph_names)
    assert len(_debug_get_cache_entry_list(double.__code__)) == 1


def test_debug_without_a_run_is_a_clear_error(monkeypatch):
    from dynalens.lens import api

    monkeypatch.setitem(api._state, "last", None)
    with pytest.raises(RuntimeError, match="prepare_debug"):
        debug()
    with pytest.raises(TypeError, match="prepare_debug yielded"):
        debug(object())


def _dynamo_code(fn, *args):
    import torch._dynamo
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    expected = compiled(*args)
    entry = _debug_get_cache_entry_list(fn.__code__)[0]
    return compiled, entry, expected


def _branchy(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def test_profiler_bookkeeping_removal_keeps_results():
    from torch._C._dynamo.eval_frame import (_load_precompile_entry,
                                             _reset_precompile_entries)

    from dynalens.lens.noise import strip_profiler_bookkeeping

    a, b = torch.randn(5), torch.randn(5)
    compiled, entry, expected = _dynamo_code(_branchy, a, b)
    clean, removed = strip_profiler_bookkeeping(entry.code)
    assert removed == 2
    assert "record_pregraph_bytecode_enter" not in [
        i.argval for i in __import__("dis").get_instructions(clean)]
    _load_precompile_entry(_branchy.__code__, entry.guard_manager, clean)
    try:
        got = compiled(a, b)
    finally:
        _reset_precompile_entries(_branchy.__code__)
    assert torch.equal(got, expected)


def test_relabeled_code_is_dynamos_bytecode_with_the_files_lines(tmp_path):
    from dynalens.lens.relabel import relabel

    a, b = torch.randn(5), torch.randn(5)
    _, entry, _ = _dynamo_code(_branchy, a, b)
    source = "def f(a, b):\n    y = g(a, b)\n    return y\n"
    compiled = compile(source, str(tmp_path / "f.py"), "exec").co_consts[0]
    new = relabel(entry.code, compiled, str(tmp_path / "f.py"), 2)
    assert new is not None
    assert new.co_code == entry.code.co_code and new.co_consts == entry.code.co_consts
    assert new.co_filename == str(tmp_path / "f.py")
    lines = {ln for _, _, ln in new.co_lines() if ln is not None}
    assert lines <= {1, 2, 3}


def _mul_sum(x, y):
    return (x * y).sum()


def test_exact_source_is_swapped_in(tmp_path):
    # What is tested: the code compiled from the dumped file is what runs under debug(), and
    # only inside the block.
    import torch._dynamo

    torch._dynamo.reset()
    fn = torch.compile(_mul_sum, backend="eager")
    x, y = torch.randn(4), torch.randn(4)
    with prepare_debug(str(tmp_path), report=False) as run:
        expected = fn(x, y)
    entry = run.index["compiles"][0]["transformed_code"]
    assert entry["verified"] and entry["debug_mode"] == "exact"
    path = os.path.join(run.dump_dir, entry["file"])
    seen = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename == path:
            seen.append((frame.f_code.co_name, frame.f_lineno))
            return trace
        return None

    with debug(run, pause=False) as session:
        sys.settrace(trace)
        try:
            got = fn(x, y)
        finally:
            sys.settrace(None)
    assert [cid for cid, _ in session.swapped] == ["0/0"] and not session.relabeled
    assert torch.equal(got, expected)
    lines = open(path, encoding="utf-8").read().splitlines()
    assert seen and {lines[ln - 1].strip().split(" ")[0] for _, ln in seen} == {
        "def", "graph_out_0", "return"}           # the call event reports the def line
    assert {name for name, _ in seen} == {entry["function"]}
    seen.clear()
    sys.settrace(trace)
    try:
        fn(x, y)                       # after the block: torch's own code again
    finally:
        sys.settrace(None)
    assert seen == []


def test_eager_graphs_runs_other_backends_graphs_from_their_files(tmp_path):
    import torch._dynamo

    torch._dynamo.reset()
    fn = torch.compile(_mul_sum, backend="aot_eager")
    x, y = torch.randn(4), torch.randn(4)
    with prepare_debug(str(tmp_path), report=False) as run:
        expected = fn(x, y)
    graph = run.index["compiles"][0]["graphs"][0]
    path = os.path.join(run.dump_dir, graph["stages"][0]["file"])
    assert graph["stages"][0]["stage"] == "Captured_Graph"
    seen = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename == path:
            seen.append(frame.f_lineno)
            return trace
        return None

    for eager_graphs in (False, True):
        with debug(run, eager_graphs=eager_graphs, pause=False) as session:
            sys.settrace(trace)
            try:
                got = fn(x, y)
            finally:
                sys.settrace(None)
        assert torch.equal(got, expected)
        assert bool(seen) == eager_graphs == bool(session.graphs_swapped)


def _item_break(x, y):
    s = x.sum().item()
    return (x * s + y).tanh()


@pytest.mark.parametrize("fn, make_args", [
    (_branchy, lambda: {"b": torch.randn(5), "x": torch.randn(5)}),
    (_item_break, lambda: {"___stack0": 1.5, "x": torch.randn(5), "y": torch.randn(5)}),
])
def test_simplified_resume_functions_compute_the_same(tmp_path, fn, make_args):
    import types

    import torch._dynamo

    from dynalens.lens.dump import Dumper
    from dynalens.lens.noise import simplify

    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        compiled(torch.randn(5), torch.randn(5))
    resumes = []
    for dc in run.compiles:
        resumes += Dumper._resume_functions(None, dc.record)
    assert resumes
    for resume in resumes:
        code = resume["code"]
        simple, notes, _ = simplify(code)
        assert notes and len(list(simple.co_code)) < len(list(code.co_code))
        values = make_args()
        args = [[] if a.startswith("__nested") else values[a]
                for a in code.co_varnames[:code.co_argcount]]
        run_orig = torch._dynamo.disable(types.FunctionType(code, fn.__globals__))
        run_simple = torch._dynamo.disable(types.FunctionType(simple, fn.__globals__))
        assert torch.equal(run_orig(*args), run_simple(*args))


def _where_norm(x, y):
    return torch.where(x > y, x - y, y - x).norm()


def _containers(xs, table, *, weight=1.0):
    return sum(xs) * weight, table["a"] - table["b"], len(xs)


def _make_counter():
    count = 0

    def counter(x):
        nonlocal count
        count += 1
        return x * count

    return counter


class _Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.lin = torch.nn.Linear(3, 3)

    def score(self, x, bias=0.0):
        return self.lin(x).tanh().sum(-1) + bias


def _same(a, b):
    from dynalens.examples.workloads import outputs_equal

    return outputs_equal(a, b)


REPLAYS = {
    "where_norm": (lambda: _where_norm, lambda g: ((torch.randn(5, generator=g),
                                                   torch.randn(5, generator=g)), {})),
    "branchy": (lambda: _branchy, lambda g: ((torch.randn(5, generator=g),
                                             torch.randn(5, generator=g)), {})),
    "item_break": (lambda: _item_break, lambda g: ((torch.randn(5, generator=g),
                                                   torch.randn(5, generator=g)), {})),
    "containers": (lambda: _containers, lambda g: (
        ([torch.randn(3, generator=g) for _ in range(3)],
         {"a": torch.randn(3, generator=g), "b": torch.randn(3, generator=g)}),
        {"weight": 2.0})),
    "closure": (_make_counter, lambda g: ((torch.randn(4, generator=g),), {})),
    "module_method": (lambda: _Lin().score, lambda g: ((torch.randn(2, 3, generator=g),),
                                                       {"bias": 0.5})),
}


@pytest.fixture(scope="module")
def replay_modes():
    return {}


@pytest.mark.parametrize("name", sorted(REPLAYS))
def test_debug_replays_every_compile_identically(tmp_path, name, replay_modes):
    # under debug() the swapped code (exact: compiled from the dumped file; else Dynamo's own,
    # relabeled) must compute what the plain compiled code computed, call for call
    import torch._dynamo

    make_fn, make_inputs = REPLAYS[name]
    torch._dynamo.reset()
    fn = torch.compile(make_fn(), backend="eager")
    gen = torch.Generator().manual_seed(0)
    inputs = [make_inputs(gen) for _ in range(3)]
    with prepare_debug(str(tmp_path), report=False) as run:
        expected = [fn(*a, **k) for a, k in inputs]
    with debug(run, pause=False) as session:
        got = [fn(*a, **k) for a, k in inputs]
    if name != "closure":               # the closure counts its calls: results differ by design
        assert _same(expected, got)
    assert not session.not_swapped, session.not_swapped
    replay_modes[name] = (len(session.swapped), len(session.relabeled))


def test_some_replays_ran_decompiled_code(replay_modes):
    # at least part of the replays above ran code compiled from the decompiled files
    if len(replay_modes) < len(REPLAYS):
        pytest.skip("replay tests were deselected")
    assert sum(exact for exact, _ in replay_modes.values()) > 0, replay_modes


def _graph_break_then_branch(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def test_code_verified_by_dataflow_is_swapped_in_and_computes_the_same(tmp_path):
    # torch 2.13 leaves the nested-graph-break frame lists on the stack across statements: no
    # source compiles to that bytecode, the dumped file names those values, and the dataflow
    # check is what lets debug() run the file's code in place of Dynamo's.
    import torch._dynamo

    torch._dynamo.reset()
    fn = torch.compile(_graph_break_then_branch, backend="eager")
    a, b = torch.randn(6), torch.randn(6).abs()
    with prepare_debug(str(tmp_path), report=False) as run:
        expected = fn(a, b)
    entry = run.index["compiles"][0]["transformed_code"]
    assert entry["verified_by"] == "dataflow" and entry["debug_mode"] == "exact", entry
    path = os.path.join(run.dump_dir, entry["file"])
    text = open(path, encoding="utf-8").read()
    assert "# Verified: the same operations" in text
    lines = text.splitlines()
    seen = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename == path:
            seen.append(lines[frame.f_lineno - 1].strip())
            return trace
        return None

    with debug(run, pause=False) as session:
        sys.settrace(trace)
        try:
            got = fn(a, b)
            negative = fn(a, -b)    # the other branch: its resume function
        finally:
            sys.settrace(None)
    assert "0/0" in [cid for cid, _ in session.swapped]
    assert torch.equal(got, expected)
    assert torch.equal(negative, _graph_break_then_branch(a, -b))
    # the lines run are the file's own: values Dynamo kept on the stack, by their names there
    # (the readable pass's, or __temp_N where a rewrite did not verify), and the resume call
    # its lists amount to
    assert any(line.startswith(("__temp_", "x = graph_out_0[1]", "live_values"))
               for line in seen), seen
    assert any(line.startswith("return __resume_at_") for line in seen), seen


@pytest.mark.parametrize("name", ["mlp_training", "backends"])
def test_rerunning_the_program_under_debug_computes_the_same(tmp_path, name):
    # The usual flow: the program runs under prepare_debug, then again under debug(). The
    # second run builds new modules and optimizers; entries whose guarded objects are gone
    # must not be paired with the new ones (torch invalidated them), and a function compiled
    # by several backends must not run one backend's code for another's call.
    from dynalens.examples.workloads import WORKLOADS, outputs_equal, run_workload

    plain = run_workload(name)
    with prepare_debug(str(tmp_path), report=False) as run:
        run_workload(name)
    with debug(run, pause=False) as session:
        again = WORKLOADS[name](None)
    assert outputs_equal(plain, again)
    reasons = " ".join(why for _, why in session.not_swapped)
    expected = {"mlp_training": "invalidated", "backends": "several backends"}[name]
    assert expected in reasons, session.not_swapped


def _sgd_problem(lr):
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.fill_(0.5)
        model.bias.fill_(0.0)
    model(torch.ones(3)).sum().backward()
    return model, torch.optim.SGD(model.parameters(), lr=lr)


def test_entry_dropped_when_an_identity_guarded_object_dies_inside_the_block(tmp_path):
    # An optimizer's step is guarded on the optimizer by identity (L['self']). Freed inside
    # the block, a new optimizer may take its address and pass that check: the swapped code
    # must go then, as torch's own entry does.
    import gc

    import torch._dynamo

    torch._dynamo.reset()
    model, opt = _sgd_problem(0.1)
    step = torch.compile(torch.optim.SGD.step, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        step(opt)
    guards = " ".join(part for dc in run.compiles if dc.guard_entry
                      for part in dc.guard_entry["code_parts"])
    assert "___check_obj_id(L['self']" in guards
    with debug(run, pause=False) as session:
        assert session.swapped
        del model, opt
        gc.collect()
        assert session.dropped and {cid for cid, _ in session.dropped} <= {
            cid for cid, _ in session.swapped}
        model, opt = _sgd_problem(1.0)
        step(opt)
    assert torch.allclose(model.weight, torch.full((2, 3), -0.5))
