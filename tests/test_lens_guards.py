"""Guards as Python: the dumped guard function agrees with torch about which version runs."""

import os

import pytest

torch = pytest.importorskip("torch")

from dynalens.lens.api import prepare_debug  # noqa: E402
from dynalens.lens.guards import load_guard_function, translate_part  # noqa: E402

pytestmark = pytest.mark.torch


def scaled(x, y):
    return (x * 2 + y).sum()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    import torch._dynamo

    torch._dynamo.reset()
    folder = tmp_path_factory.mktemp("guards")
    fn = torch.compile(scaled, backend="eager")
    with prepare_debug(str(folder), report=False) as r:
        fn(torch.ones(4), torch.ones(4))                              # 0/0
        fn(torch.ones(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64))  # 0/1
        fn(torch.ones(4, 3), torch.ones(4, 3))                        # 0/2: new shape
    return r


def _locals(x, y):
    return {"x": x, "y": y}


def test_three_versions_with_reasons(run):
    ids = [c["compile_id"] for c in run.index["compiles"]]
    assert ids == ["0/0", "0/1", "0/2"]
    reasons = run.index["compiles"][1]["recompile_reasons"]
    assert reasons == ["0/0: tensor 'x' dtype mismatch. expected Float, actual Double"]


def test_guard_true_for_its_inputs_false_for_recompiling_ones(run):
    g = globals()
    f32 = _locals(torch.randn(4), torch.randn(4))
    f64 = _locals(torch.randn(4, dtype=torch.float64), torch.randn(4, dtype=torch.float64))
    two_d = _locals(torch.randn(4, 3), torch.randn(4, 3))
    guard0 = run.guard_function("0/0")
    guard1 = run.guard_function("0/1")
    assert guard0(f32, g) is True
    assert guard0(f64, g) is False     # forced recompilation 0/1
    assert guard0(two_d, g) is False
    assert guard1(f64, g) is True
    assert guard1(f32, g) is False


def test_guard_agrees_with_torch_on_many_inputs(run):
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    entries = {str(e.compile_id): e for e in _debug_get_cache_entry_list(scaled.__code__)}
    cases = [
        (torch.randn(4), torch.randn(4)),
        (torch.randn(5), torch.randn(5)),
        (torch.randn(4, requires_grad=True), torch.randn(4)),
        (torch.randn(4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)),
        (torch.randn(4, 3), torch.randn(4, 3)),
        (torch.randn(4), torch.randn(4, dtype=torch.float64)),
        (torch.randn(8)[::2], torch.randn(4)),
    ]
    for cid, entry in entries.items():
        ours = run.guard_function(cid)
        for x, y in cases:
            assert ours(_locals(x, y), globals()) == entry.guard_manager.check(
                {"x": x, "y": y}), (cid, x.shape, x.dtype)


def test_guard_file_runs_standalone_without_live_objects(run):
    # Loaded from the file alone (no closure of the compiling guard), the helpers reproduce
    # torch's checks: this is what a user gets when opening the dump elsewhere.
    dc = run.compile("0/0")
    standalone = load_guard_function(dc.guard_path, dc.guard_name)
    assert standalone(_locals(torch.randn(4), torch.randn(4)), globals()) is True
    assert standalone(_locals(torch.randn(4).double(), torch.randn(4).double()),
                      globals()) is False


def test_guard_file_is_python_with_no_torch_pseudo_syntax(run):
    dc = run.compile("0/0")
    with open(dc.guard_path, encoding="utf-8") as fh:
        text = fh.read()
    compile(text, dc.guard_path, "exec")
    code_lines = [ln for ln in text.splitlines() if ln.strip() and not
                  ln.lstrip().startswith("#")]
    joined = "\n".join(code_lines)
    assert " against {" not in joined
    assert "ids == None" not in joined
    assert ", type=<class" not in joined
    assert "def %s(L, G, **___kwargs_ignored):" % dc.guard_name in text
    entry = run.index["compiles"][0]["guards"]
    assert entry["untranslated"] == 0
    assert entry["file"] == os.path.basename(dc.guard_path)
    assert entry["tree"].lstrip().startswith("TREE_GUARD_MANAGER")


@pytest.mark.parametrize("part, expected", [
    ("torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None",
     "___saved_tensors_hooks_ids() == None"),
    ("___check_obj_id(G['torch'], 1234), type=<class 'module'>",
     "___check_obj_id(G['torch'], 1234)"),
    ("___check_global_state() against {\"grad_mode\":true}",
     "___check_global_state_against('{\"grad_mode\":true}')"),
    ("check_tensor(L['x'], Tensor, DispatchKeySet(CPU, AutogradCPU), torch.float32, "
     "device=None, requires_grad=False, size=[None, 3], stride=[3, 1])",
     "___check_tensor(L['x'], 'Tensor', ('CPU', 'AutogradCPU'), torch.float32, "
     "device=None, requires_grad=False, size=[None, 3], stride=[3, 1])"),
    ("2 <= L['x'].size()[0]", "2 <= L['x'].size()[0]"),
    ("___check_type_id(L['args'], 1404), type=<class 'tuple'> (HINT: type tuple)",
     "___check_type_id(L['args'], 1404)"),
])
def test_translate_part(part, expected):
    gp = translate_part(part)
    assert gp.expr == expected and gp.translated
    compile(gp.expr, "<guard>", "eval")


def test_every_workload_guard_is_translated(tmp_path):
    # module workloads guard on hooks dicts, args/kwargs tuples, ... : all must be Python
    from dynalens.examples.workloads import run_workload

    for name in ("mlp_inference", "transformer_encoder_layer", "dynamic_true"):
        with prepare_debug(str(tmp_path / name), report=False) as r:
            run_workload(name)
        for c in r.index["compiles"]:
            assert c["guards"]["untranslated"] == 0, (name, c["key"])
            fn = r.guard_function(c["key"])
            assert callable(fn)


def test_untranslatable_part_falls_back_to_torch_check():
    gp = translate_part("SOMETHING torch prints that is not Python {")
    assert not gp.translated and gp.expr == "___lens_torch_check(L)"
