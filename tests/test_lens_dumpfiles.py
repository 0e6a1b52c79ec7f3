"""The dump's files as a user meets them: prepare_debug's depyf-style options, graph files that
run on their own, full_code files that dispatch like torch."""

import glob
import json
import marshal
import os
import subprocess
import sys
import types

import pytest

torch = pytest.importorskip("torch")

from dynalens.lens.api import prepare_debug  # noqa: E402

pytestmark = pytest.mark.torch

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _toy(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def _double(x):
    return torch.sin(x) * 2


# -- prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False) ----------------

def test_positional_arguments_have_depyfs_meanings(tmp_path):
    run = prepare_debug(str(tmp_path), False)
    assert run.clean_wild_fx_code is False and run.log_bytecode is False and run.report is True
    run = prepare_debug(str(tmp_path), True, True, report=False)
    assert run.clean_wild_fx_code and run.log_bytecode and run.report is False
    run = prepare_debug(dump_src_dir=str(tmp_path), clean_wild_fx_code=True, log_bytecode=False)
    assert run.report is True
    with pytest.raises(TypeError):
        prepare_debug(str(tmp_path), True, False, False)   # report is keyword-only


def test_log_bytecode_saves_each_code_object_beside_its_source(tmp_path):
    torch._dynamo.reset()
    fn = torch.compile(_toy, backend="eager")
    with prepare_debug(str(tmp_path), log_bytecode=True, report=False) as run:
        fn(torch.ones(4), torch.ones(4))
    entry = run.index["compiles"][0]
    tfile = entry["transformed_code"]["file"]
    code_file = entry["transformed_code"]["bytecode"]
    assert code_file == tfile[:-len(".py")] + ".code"
    with open(os.path.join(run.dump_dir, code_file), "rb") as fh:
        code = marshal.load(fh)
    assert isinstance(code, types.CodeType) and code is not None
    assert code.co_code == run.compiles[0].record.transformed_code.co_code
    with open(os.path.join(run.dump_dir, entry["original_bytecode"]), "rb") as fh:
        assert marshal.load(fh).co_code == _toy.__code__.co_code
    resumes = [r for c in run.index["compiles"] for r in c["resume_functions"]]
    assert resumes and all(os.path.exists(os.path.join(run.dump_dir, r["bytecode"]))
                           for r in resumes)
    kinds = {f["path"]: f["kind"] for f in run.index["files"]}
    assert kinds[code_file] == "bytecode"


def test_without_log_bytecode_no_code_files(tmp_path):
    torch._dynamo.reset()
    fn = torch.compile(_double, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(torch.ones(3))
    assert not glob.glob(os.path.join(run.dump_dir, "*.code"))
    assert "bytecode" not in run.index["compiles"][0]["transformed_code"]


def _failing_backend(gm, example_inputs):
    raise RuntimeError("this backend always fails")


@pytest.mark.parametrize("clean", [True, False])
def test_clean_wild_fx_code_leaves_out_graphs_no_compiled_function_calls(tmp_path, clean):
    # the backend fails after Dynamo traced the graph: torch runs the frame as it was, so the
    # graph it logged belongs to no compiled function ("wild")
    torch._dynamo.reset()
    fn = torch.compile(_double, backend=_failing_backend)
    with torch._dynamo.config.patch(suppress_errors=True):
        with prepare_debug(str(tmp_path), clean, report=False) as run:
            out = fn(torch.ones(3))
    assert torch.equal(out, _double(torch.ones(3)))
    graph_files = glob.glob(os.path.join(run.dump_dir, "*graph*.py")) + \
        glob.glob(os.path.join(run.dump_dir, "*Graph*.py"))
    entry = run.index["compiles"][0]
    if clean:
        assert graph_files == []
        assert entry["wild_graphs_left_out"] == ["Captured_Graph"]
    else:
        assert len(graph_files) == 1 and "wild_graphs_left_out" not in entry


# -- graph files run on their own --------------------------------------------------------------

_RUN_FILES = r"""
import json, runpy, sys, io, contextlib
out = {}
for path in sys.argv[1:]:
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            ns = runpy.run_path(path, run_name="__main__")
        out[path] = ["ok", buf.getvalue(), sorted(k for k, v in ns.items() if isinstance(v, type))]
    except BaseException as exc:
        out[path] = ["error", "%s: %s" % (type(exc).__name__, exc), []]
print(json.dumps(out))
"""


def _run_files(paths):
    """Run each file as `python FILE` would (in one fresh interpreter, for time)."""
    res = subprocess.run([sys.executable, "-c", _RUN_FILES] + list(paths), capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, PYTHONPATH=SRC),
                         cwd="/")
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _small(x, y):
    return (torch.relu(x) + y).sum(), x * 2


def test_every_stage_file_is_code_that_runs_alone(tmp_path):
    # inductor: Captured_Graph, pre_grad (2.15), Inference_graph and post_grad_graph stages
    torch._dynamo.reset()
    fn = torch.compile(_small, backend="inductor")
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(torch.randn(3, 4), torch.randn(3, 4))
    stages = {s["stage"]: s["file"] for g in run.index["compiles"][0]["graphs"]
              for s in g["stages"]}
    assert {"Captured_Graph", "Inference_graph", "post_grad_graph"} <= set(stages)
    results = _run_files(os.path.join(run.dump_dir, f) for f in stages.values())
    for stage, rel in stages.items():
        status, printed, classes = results[os.path.join(run.dump_dir, rel)]
        assert status == "ok", (stage, printed)
        assert classes == ["GraphModule"], (stage, classes)     # code, not comments
        # the example call ran: a 0-dim float sum and a 3x4 tensor
        assert printed.strip() == "(tensor() float32, tensor(3, 4) float32)", (stage, printed)


def _dyn(x):
    return torch.cat([x, x]).cumsum(0)


def test_a_graph_that_cannot_run_alone_still_defines_itself_and_says_why(tmp_path):
    torch._dynamo.reset()
    fn = torch.compile(_dyn, backend="eager", dynamic=True)
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(torch.ones(3))
    rel = run.index["compiles"][0]["graphs"][0]["stages"][0]["file"]
    path = os.path.join(run.dump_dir, rel)
    status, printed, classes = _run_files([path])[path]
    assert status == "ok" and printed == "" and classes == ["GraphModule"]
    text = open(path, encoding="utf-8").read()
    assert "defines the class but does not call it" in text and "symbolic" in text


def test_graph_text_gets_the_imports_it_uses():
    from dynalens.lens.graphfile import graph_file

    payload = (
        "class <lambda>(torch.nn.Module):\n"
        "    def forward(self, arg0_1: \"f32[2][1]cpu\"):\n"
        "        full = torch.ops.aten.full.default([2], inf, device=device(type='cpu'))\n"
        "        mystery = some_helper_of_the_program(arg0_1)\n"
        "        return (full,)\n")
    result = graph_file(payload, ["header"], "g.py")
    ns = {}
    exec(compile(result.text, "g.py", "exec"), ns)            # defines itself
    assert "GraphModule" in ns and ns["device"] is torch.device and ns["inf"] == float("inf")
    assert result.runnable is False and "some_helper_of_the_program" in result.reason
    ok = graph_file(payload.replace("some_helper_of_the_program", "torch.neg"), [], "g.py")
    assert ok.runnable and "__main__" in ok.text


# -- full_code_for_<fn>_<n>.py: every cached version and torch's dispatch ---------------------

def _scaled(x, y):
    z = torch.sin(x) * 2
    torch._dynamo.graph_break()
    return z + y


def _load_full_code(path):
    """The dispatcher's module namespace (the live one: run_path returns a copy)."""
    import runpy

    ns = runpy.run_path(path)
    return ns["transformed__scaled"].__globals__


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_full_code_holds_every_cached_version_and_dispatches_like_torch(tmp_path, backend):
    torch._dynamo.reset()
    fn = torch.compile(_scaled, backend=backend)
    f32, f64 = torch.randn(5), torch.randn(5, dtype=torch.float64)
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(f32, f32)
        fn(f64, f64)      # dtype guard fails: a second version
    files = sorted(c["full_code"] for c in run.index["compiles"] if c["function"] == "_scaled")
    assert files == ["full_code_for__scaled_0.py", "full_code_for__scaled_1.py"]
    first = open(os.path.join(run.dump_dir, files[0]), encoding="utf-8").read()
    second = open(os.path.join(run.dump_dir, files[1]), encoding="utf-8").read()
    # file n shows the cache as it stood after the n-th compile: newest version first
    assert "def __transformed_code_0_for__scaled(" in first
    assert "__transformed_code_1_for__scaled" not in first
    assert second.index("def __guard_1_for__scaled(") < second.index(
        "def __transformed_code_1_for__scaled(") < second.index(
        "def __guard_0_for__scaled(") < second.index("def __transformed_code_0_for__scaled(")
    assert second.index("if __guard_1_for__scaled(") < second.index("if __guard_0_for__scaled(")

    assert "def __guard_0_for__scaled(" in second
    assert "torch's guard tree: in __guards_0_for__scaled.py" in second

    # the report shows the file's dispatcher only (the versions are its other blocks): a
    # function recompiled N times would otherwise put N squared versions on the page
    from dynalens.report.load import load_dump

    blocks = [c.full_code for c in load_dump(run.dump_dir).compiles
              if c.full_code is not None and c.full_code.path == files[1]]
    assert len(blocks) == 1 and "def transformed__scaled(" in blocks[0].text
    assert "def __guard_0_for__scaled(" not in blocks[0].text

    g = _load_full_code(os.path.join(run.dump_dir, files[1]))   # in the compiling process
    calls = []
    for name in ("__transformed_code_1_for__scaled", "__transformed_code_0_for__scaled",
                 "_scaled"):
        def record(*args, __f=g[name], __name=name):
            calls.append(__name)
            return __f(*args)
        g[name] = record
    for x, expected in ((f64, "__transformed_code_1_for__scaled"),
                        (f32, "__transformed_code_0_for__scaled"),
                        (torch.ones(2, 3), "_scaled")):   # 2-d: no guard passes
        out = g["transformed__scaled"](x, x)
        assert calls[-1] == expected
        assert torch.allclose(out, _scaled(x, x))


def test_full_code_runs_alone_in_a_fresh_process(tmp_path):
    torch._dynamo.reset()
    fn = torch.compile(_scaled, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(torch.randn(3), torch.randn(3))
    paths = [os.path.join(run.dump_dir, c["full_code"]) for c in run.index["compiles"]]
    results = _run_files(paths)
    for path in paths:
        assert results[path][0] == "ok", results[path]


# -- generated code: lambdas in the lens, decompile() of what Dynamo made ------------------------

def test_a_compiled_lambda_is_decompiled(tmp_path):
    torch._dynamo.reset()
    fn = torch.compile(lambda x: x * 2, backend="eager")
    with prepare_debug(str(tmp_path), report=False) as run:
        out = fn(torch.ones(3))
    assert torch.equal(out, torch.full((3,), 2.0))
    assert run.warnings == []
    tc = run.index["compiles"][0]["transformed_code"]
    assert tc["decompiled"], tc       # was: a disassembly ("lambda body is not one expression")
    text = open(os.path.join(run.dump_dir, tc["file"]), encoding="utf-8").read()
    assert "def __transformed_code_0_for__lambda_(x):" in text
    compile(text, tc["file"], "exec")


def _branchy(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def test_decompile_of_dynamo_generated_code_takes_the_lens_path(tmp_path):
    import dynalens
    from dynalens.lens.generated import generated_view

    torch._dynamo.reset()
    fn = torch.compile(_branchy, backend="eager")
    fn(torch.randn(4), torch.randn(4))
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    transformed = _debug_get_cache_entry_list(_branchy.__code__)[0].code
    resumes = [v for k, v in globals().items() if k.startswith("__resume_at_")
               and "_branchy" in getattr(getattr(v, "__code__", None), "co_name", "")]
    assert resumes
    for resume in resumes:
        text = dynalens.decompile(resume)            # was: "unstructured jump"
        assert "def torch_dynamo_resume_in__branchy_at_" in text
        assert text.startswith("# Dynamo-generated code")
        compile(text, "<resume>", "exec")
        # the same source the lens writes: the lens's view of the code, decompiled
        clean, notes, _ = generated_view(resume.__code__)
        assert text.endswith(dynalens.decompile(clean, generated=True))
    text = dynalens.decompile(transformed)
    assert "def _branchy(a, b):" in text
    clean, notes, _ = generated_view(transformed)
    assert text.endswith(dynalens.decompile(clean, generated=True))
    assert all("  - %s" % n in text for n in notes)
    # user code is untouched by that path, also with torch loaded
    assert not dynalens.decompile(_branchy).startswith("#")
    assert generated_view(_branchy.__code__) == (_branchy.__code__, [], None)


def test_decompile_of_a_lambdas_transformed_code_is_a_def():
    import dynalens

    torch._dynamo.reset()
    lam = lambda x: x + 1  # noqa: E731
    fn = torch.compile(lam, backend="eager")
    fn(torch.ones(2))
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    transformed = _debug_get_cache_entry_list(lam.__code__)[0].code
    text = dynalens.decompile(transformed)           # was: "lambda body is not one expression"
    assert "def transformed_lambda(x):" in text
    assert dynalens.decompile(transformed, name="mine").count("def mine(x):") == 1


def test_full_code_of_local_functions_and_closures_runs_alone(tmp_path):
    import runpy

    scale = torch.tensor(3.0)

    def local(x):               # defined in a function: the decompiler may write it nested
        y = x + 1
        torch._dynamo.graph_break()
        return y * 2

    def closure(x):             # reads `scale` from this frame: its def sits in a wrapper
        y = x * scale
        torch._dynamo.graph_break()
        return y + scale

    torch._dynamo.reset()
    x = torch.ones(3)
    with prepare_debug(str(tmp_path), report=False) as run:
        torch.compile(local, backend="eager")(x)
        torch.compile(closure, backend="eager")(x)
    paths = [os.path.join(run.dump_dir, c["full_code"]) for c in run.index["compiles"]]
    results = _run_files(paths)
    assert all(results[p][0] == "ok" for p in paths), results
    def dispatcher(name):
        path = os.path.join(run.dump_dir, "full_code_for_%s_0.py" % name)
        return runpy.run_path(path)["transformed_%s" % name]

    try:
        out = dispatcher("local")(x)
    except RuntimeError as exc:         # where its def is nested: said so, never a NameError
        assert "nested" in str(exc), exc
    else:
        assert torch.allclose(out, local(x))
    with pytest.raises(RuntimeError, match="closure"):
        dispatcher("closure")(x)


def test_full_code_dispatch_takes_each_branchs_own_resume_function(tmp_path):
    # both branches of the `if` resume in functions of one name (named after the `if`'s
    # line): the file keeps each under its own alias, so either path computes as torch's
    import runpy

    torch._dynamo.reset()
    fn = torch.compile(_branchy, backend="eager")
    neg, pos = -torch.ones(4), torch.ones(4)
    a = torch.randn(4)
    with prepare_debug(str(tmp_path), report=False) as run:
        fn(a, neg)
        fn(a, pos)
    path = os.path.join(run.dump_dir, "full_code_for__branchy_0.py")
    text = open(path, encoding="utf-8").read()
    assert text.count("def torch_dynamo_resume_in__branchy_at_") >= 2
    dispatcher = runpy.run_path(path)["transformed__branchy"]
    for b in (neg, pos):
        assert torch.allclose(dispatcher(a, b), _branchy(a, b))
