"""The lens on every workload: results unchanged, dump complete, decompiled code exact.

Each workload runs twice in this process, plain and under prepare_debug (Dynamo reset before
each, so both compile afresh); the runs are shared by all assertions (module-scoped fixture).
"""

import json
import os
import re

import pytest

torch = pytest.importorskip("torch")

from dynalens.examples.workloads import WORKLOADS, outputs_equal, run_workload  # noqa: E402
from dynalens.lens.api import prepare_debug  # noqa: E402

pytestmark = pytest.mark.torch

NAMES = sorted(WORKLOADS)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = {}
    for name in NAMES:
        plain = run_workload(name)
        folder = tmp_path_factory.mktemp("dump_" + name)
        with _quiet():
            with prepare_debug(str(folder), report=False) as run:
                lensed = run_workload(name)
        results[name] = (plain, lensed, run)
    return results


class _quiet:
    """Lens warnings are asserted on through run.warnings, not printed by pytest."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_at_least_fifteen_workloads():
    assert len(WORKLOADS) >= 15


@pytest.mark.parametrize("name", NAMES)
def test_outputs_identical_with_and_without_lens(runs, name):
    plain, lensed, _ = runs[name]
    assert outputs_equal(plain, lensed)


@pytest.mark.parametrize("name", NAMES)
def test_every_dumped_file_compiles_and_is_indexed(runs, name):
    run = runs[name][2]
    folder = run.dump_dir
    on_disk = {f for f in os.listdir(folder) if f.endswith(".py")}
    indexed = {f["path"] for f in run.index["files"]}
    assert on_disk == indexed
    for f in sorted(on_disk):
        with open(os.path.join(folder, f), encoding="utf-8") as fh:
            compile(fh.read(), f, "exec")
    keys = {c["key"] for c in run.index["compiles"]}
    assert all(f["compile"] in keys for f in run.index["files"])
    with open(os.path.join(folder, "index.json"), encoding="utf-8") as fh:
        assert json.load(fh) == run.index


@pytest.mark.parametrize("name", NAMES)
def test_dynamo_code_objects_decompile_and_verify(runs, name):
    # every transformed code object and resume function, on whichever torch runs the tests
    # (2.13 and 2.15: their profiler bookkeeping forms are both taken out); many verify by
    # dataflow (torch leaves values on the stack between statements, which no source compiles
    # to); every transformed code object is swapped by debug()
    run = runs[name][2]
    problems, count = [], 0
    for c in run.index["compiles"]:
        entries = [("", c["transformed_code"])] if c["transformed_code"] is not None else []
        entries += [("resume %s" % r["name"], r) for r in c["resume_functions"]]
        for label, entry in entries:
            count += 1
            if not (entry["decompiled"] and entry["verified"]):
                problems.append("%s %s %s: %s" % (c["compile_id"], c["function"], label,
                                                  entry.get("error") or entry.get("difference")))
            else:
                assert entry["verified_by"] in ("bytecode", "dataflow")
                # a verified file says nothing else: no decompiler marker (a local function's
                # renamed transformed code was once marked 'not exact' by its qualified name)
                with open(os.path.join(run.dump_dir, entry["file"]), encoding="utf-8") as fh:
                    if "# dynalens: not exact" in fh.read():
                        problems.append("%s %s %s: verified, yet marked not exact"
                                        % (c["compile_id"], c["function"], label))
                if not label and not entry["swappable"]:   # debug() runs the file's code
                    problems.append("%s %s: verified but not swapped" % (c["compile_id"],
                                                                          c["function"]))
    assert count and not problems, "\n".join(problems)


def test_every_torch_surface_recognised(runs):
    # on the torch versions the lens knows (2.13, 2.15) nothing is "unrecognised"
    unknown = [(name, w) for name in NAMES for w in runs[name][2].index["warnings"]
               if "unrecognised torch surface" in w]
    assert not unknown, unknown


def _compile(run, function, n=0):
    found = [c for c in run.index["compiles"] if c["function"] == function]
    assert len(found) > n, [c["function"] for c in run.index["compiles"]]
    return found[n]


def _stages(entry):
    return {s["stage"] for g in entry["graphs"] for s in g["stages"]}


def test_readme_graph_break_recompile_and_resume(runs):
    run = runs["readme"][2]
    first, second = _compile(run, "toy_example", 0), _compile(run, "toy_example", 1)
    gb = first["graph_breaks"][0]
    assert gb["reason"] == "Data-dependent branching"
    assert gb["source_line"] == "if b.sum() < 0:"
    assert gb["filename"].endswith("workloads.py")
    assert second["recompile_reasons"] == [
        "0/0: tensor 'a' dtype mismatch. expected Float, actual Double"]
    assert "tensor 'a' dtype mismatch. expected Float, actual Double" in \
        first["guards"]["failures"]
    resumes = [c for c in run.index["compiles"] if c["is_resume"]]
    assert resumes and all(c["resume_of"] == "toy_example" for c in resumes)
    assert first["resume_functions"][0]["name"].startswith("torch_dynamo_resume_in_toy_example")
    # each resume function names the globals the transformed code calls it by
    transformed = open(os.path.join(run.dump_dir, first["transformed_code"]["file"]),
                       encoding="utf-8").read()
    assert "__nested_resume_fns, __nested_frame_values, *live_values" in transformed
    for resume in first["resume_functions"]:
        assert resume["global_names"] and resume["global_name"] == resume["global_names"][0]
        assert all(re.search(r"\b%s\b" % g, transformed) for g in resume["global_names"])
    # the user stack that triggered the compile ends in the compiled function
    assert first["stack"][-1]["name"] == "toy_example"
    assert any(f["filename"].endswith("seed.py") for f in first["stack"])
    # inductor: graph stages and kernels, linked by the graph's name
    graph = first["graphs"][0]
    assert re.fullmatch(r"__compiled_fn_\d+", graph["name"])
    assert {"Captured_Graph", "Inference_graph", "post_grad_graph"} <= _stages(first)
    assert graph["kernels"] and all(k.startswith(graph["name"] + ".kernel_")
                                    for k in graph["kernels"])
    assert graph["global_name"] in open(os.path.join(
        run.dump_dir, first["transformed_code"]["file"]), encoding="utf-8").read()


def test_training_step_has_joint_forward_backward_graphs(runs):
    run = runs["mlp_training"][2]
    stages = set()
    for c in run.index["compiles"]:
        stages |= _stages(c)
    assert {"Captured_Graph", "Joint_graph", "Forward_graph", "Backward_graph"} <= stages


def test_inference_graph_for_no_grad_model(runs):
    run = runs["mlp_inference"][2]
    assert "Inference_graph" in _stages(run.index["compiles"][0])


def test_backends_all_three(runs):
    run = runs["backends"][2]
    kinds = [_stages(c) for c in run.index["compiles"]]
    assert len(kinds) == 3
    assert kinds[0] == {"Captured_Graph"}                       # eager
    assert "Inference_graph" in kinds[1]                        # aot_eager
    assert "post_grad_graph" in kinds[2]                        # inductor
    assert run.index["compiles"][2]["graphs"][0]["kernels"]


def test_dtype_and_dynamic_recompile_reasons(runs):
    reasons = [r for c in runs["dtype_recompile"][2].index["compiles"]
               for r in c["recompile_reasons"]]
    assert any("dtype mismatch" in r for r in reasons)
    reasons = [r for c in runs["dynamic_growing"][2].index["compiles"]
               for r in c["recompile_reasons"]]
    assert any("size mismatch" in r for r in reasons), reasons


def test_graph_break_reasons_name_user_lines(runs):
    expected = {"graph_break_print": "print(", "graph_break_item": ".item()",
                "data_dependent_branch": "if z.mean() > 0:"}
    for name, text in expected.items():
        breaks = [gb for c in runs[name][2].index["compiles"] for gb in c["graph_breaks"]]
        assert breaks, name
        assert any(text in (gb["source_line"] or "") for gb in breaks), (name, breaks)


def test_loop_frame_skipped_and_body_compiled(runs):
    run = runs["loop_graph_break"][2]
    loop = _compile(run, "fn")
    assert loop["transformed_code"] is None
    assert any("loop" in gb["detail"] for gb in loop["graph_breaks"])
    body = _compile(run, "body")
    assert body["transformed_code"] is not None and body["resume_functions"]


def test_fullgraph_single_graph_no_breaks(runs):
    compiles = runs["fullgraph"][2].index["compiles"]
    assert len(compiles) == 1 and not compiles[0]["graph_breaks"]
    assert len(compiles[0]["graphs"]) == 1


def test_profiler_bookkeeping_left_out_and_said_so(runs):
    run = runs["readme"][2]
    entry = _compile(run, "toy_example")
    assert entry["transformed_code"]["profiler_bookkeeping_removed"] == 2
    with open(os.path.join(run.dump_dir, entry["transformed_code"]["file"]),
              encoding="utf-8") as fh:
        text = fh.read()
    assert "profiler bookkeeping" in text.split("\ndef ", 1)[0]
    code = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    assert not [ln for ln in code if "record_pregraph_bytecode" in ln]


@pytest.mark.parametrize("name", NAMES)
def test_every_transformed_code_is_debuggable(runs, name):
    # exact (the file's own code runs under debug()) or relabeled (Dynamo's runs, with the
    # file's name and lines): either way a breakpoint in the file is hit
    run = runs[name][2]
    modes = [c["transformed_code"]["debug_mode"] for c in run.index["compiles"]
             if c["transformed_code"] is not None and c["transformed_code"]["decompiled"]]
    assert all(m in ("exact", "relabeled") for m in modes), modes
