"""prepare_debug's contract: clear errors, hooks always removed, lens failures never fatal."""

import logging
import os
import subprocess
import sys
import warnings

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _python(code, **env):
    full = dict(os.environ, PYTHONPATH=SRC, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full, timeout=300)


def test_api_imports_without_torch_and_says_how_to_install():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import dynalens, dynalens.lens.api as api\n"
        "assert 'torch' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
        "for call in (lambda: api.prepare_debug('d').__enter__(), api.install, api.debug):\n"
        "    try:\n"
        "        call()\n"
        "    except ImportError as exc:\n"
        "        print('ERR', exc)\n"
        "print('LAZY', dynalens.prepare_debug is api.prepare_debug)\n"
    )
    res = _python(code)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len([ln for ln in lines if ln.startswith("ERR")]) == 3
    assert all("pip install 'dynalens[torch]'" in ln for ln in lines if ln.startswith("ERR"))
    assert "LAZY True" in lines


torch = pytest.importorskip("torch")

from dynalens.lens import api  # noqa: E402
from dynalens.lens.api import debug as dynalens_debug  # noqa: E402
from dynalens.lens.api import prepare_debug  # noqa: E402

pytestmark = pytest.mark.torch


def _hook_state():
    """Our hooks only: torch itself may add its own (lazy TORCH_TRACE) handler meanwhile."""
    import torch._dynamo.convert_frame as cf

    from dynalens.lens.capture import _TraceHandler

    logger = logging.getLogger("torch.__trace")
    ours = [h for h in logger.handlers if isinstance(h, _TraceHandler)]
    return len(cf._bytecode_hooks), len(ours), logger.level


def _add(x):
    return x + 1


def test_bad_dump_dir_type():
    with pytest.raises(TypeError, match="folder path"):
        prepare_debug(42)


def test_nested_and_reentered_blocks_are_clear_errors(tmp_path):
    before = _hook_state()
    outer = prepare_debug(str(tmp_path / "a"), report=False)
    with outer:
        with pytest.raises(RuntimeError, match="already active"):
            with prepare_debug(str(tmp_path / "b"), report=False):
                pass
        assert _hook_state() != before
    assert _hook_state() == before
    with pytest.raises(RuntimeError, match="already used"):
        with outer:
            pass
    assert _hook_state() == before


def test_hooks_removed_and_exception_passes_through(tmp_path):
    import torch._dynamo

    torch._dynamo.reset()
    before = _hook_state()
    fn = torch.compile(_add, backend="eager")
    with pytest.raises(ZeroDivisionError):
        with prepare_debug(str(tmp_path), report=False) as run:
            fn(torch.ones(2))
            1 / 0
    assert _hook_state() == before
    # what was compiled before the exception is still dumped
    assert [c["function"] for c in run.index["compiles"]] == ["_add"]


def test_decompile_failure_is_one_warning_and_a_disassembly(tmp_path, monkeypatch):
    import torch._dynamo

    from dynalens import DecompilationError
    from dynalens.lens import source

    def broken(code, name):
        raise DecompilationError("simulated failure", code=code, offset=0, opname="RESUME")

    monkeypatch.setattr(source, "_decompile", broken)
    monkeypatch.setattr(source, "FAILED_CODES_DIR", str(tmp_path / "codes"))
    torch._dynamo.reset()
    fn = torch.compile(_add, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with prepare_debug(str(tmp_path / "dump"), report=False) as run:
            out = fn(torch.ones(2))
            out2 = fn(torch.ones(2, dtype=torch.float64))
    assert torch.equal(out, torch.full((2,), 2.0)) and out2.dtype == torch.float64
    lens_warnings = [w for w in caught if "dynalens" in str(w.message)]
    assert len(lens_warnings) == 1 and "simulated failure" in str(lens_warnings[0].message)
    assert len(run.warnings) == 2       # both compiles recorded, warned once
    entry = run.index["compiles"][0]["transformed_code"]
    assert entry["decompiled"] is False and "simulated failure" in entry["error"]
    path = os.path.join(run.dump_dir, entry["file"])
    text = open(path, encoding="utf-8").read()
    compile(text, path, "exec")
    assert "could not decompile" in text and "RESUME" in text
    assert os.listdir(tmp_path / "codes")     # the code object is kept for reproduction
    # under debug(), Dynamo's code runs with the listing's lines: one line per instruction
    assert entry["debug_mode"] == "relabeled"
    seen = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename == path:
            seen.append(frame.f_lineno)
            return trace
        return None

    with dynalens_debug(run, pause=False):
        sys.settrace(trace)
        try:
            again = fn(torch.ones(2))
        finally:
            sys.settrace(None)
    assert torch.equal(again, out)
    listing = text.splitlines()
    assert seen and all(" " in listing[ln - 1] and not listing[ln - 1].startswith("#")
                        for ln in seen)


def test_dump_failure_never_reaches_the_program(tmp_path, monkeypatch):
    import torch._dynamo

    from dynalens.lens import dump

    def explode(self, rec, guard_info):
        raise OSError("disk on fire")

    monkeypatch.setattr(dump.Dumper, "_write_compile", explode)
    torch._dynamo.reset()
    fn = torch.compile(_add, backend="eager")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with prepare_debug(str(tmp_path), report=False) as run:
            out = fn(torch.ones(2))
    assert torch.equal(out, torch.full((2,), 2.0))
    assert any("disk on fire" in w for w in run.warnings)
    assert run.index["compiles"] == []


def test_report_failure_is_a_warning(tmp_path, monkeypatch):
    report_api = pytest.importorskip("dynalens.report.api")

    def bad_report(dump_dir):
        raise ValueError("template missing")

    monkeypatch.setattr(report_api, "write_report", bad_report)
    with pytest.warns(RuntimeWarning, match="template missing"):
        with prepare_debug(str(tmp_path)) as run:
            pass
    assert run.index is not None and run.report_path is None


def test_run_object_for_views(tmp_path):
    with prepare_debug(str(tmp_path), report=False) as run:
        assert run.index is None
    assert run.dump_dir == str(tmp_path)
    assert run.index["format"] == "dynalens-dump"
    assert api.last_run() is run


def test_reset_inside_the_block_keeps_compiles_apart(tmp_path):
    # torch._dynamo.reset() restarts torch's compile ids; the lens must not merge the two
    import torch._dynamo

    torch._dynamo.reset()
    with prepare_debug(str(tmp_path), report=False) as run:
        torch.compile(_add, backend="eager")(torch.ones(2))
        torch._dynamo.reset()
        torch.compile(_add, backend="eager")(torch.ones(2, dtype=torch.float64))
    compiles = run.index["compiles"]
    assert [c["key"] for c in compiles] == ["0/0", "0/0#1"]
    assert [c["compile_id"] for c in compiles] == ["0/0", "0/0"]
    assert compiles[0]["transformed_code"]["file"] != compiles[1]["transformed_code"]["file"]
    live = run.guard_function("0/0#1")
    assert live({"x": torch.ones(2, dtype=torch.float64)}, globals()) is True
    assert live({"x": torch.ones(2)}, globals()) is False
    with pytest.raises(LookupError, match="cache entry"):
        run.guard_function("0/0")           # reset() dropped its cache entry


def test_stack_of_a_compile_called_from_a_script_top_level_names_that_line(tmp_path):
    # torch's own stack for this compile stops at the compiled function
    pytest.importorskip("torch")
    from dynalens.lens.api import prepare_debug

    script = (
        "import torch\n"
        "def double(x):\n"
        "    return x * 2\n"
        "compiled = torch.compile(double, backend='eager')\n"
        "result = compiled(torch.ones(2))\n"
    )
    import torch._dynamo

    torch._dynamo.reset()
    with prepare_debug(str(tmp_path), report=False) as run:
        exec(compile(script, "top_level_script.py", "exec"), {"__name__": "__main__"})
    stack = run.index["compiles"][0]["stack"]
    assert [(f["filename"], f["name"], f["line"]) for f in stack[-2:]] == [
        ("top_level_script.py", "<module>", 5), ("top_level_script.py", "double", 2)]


def test_full_code_of_a_future_annotations_module_compiles(tmp_path):
    # transformers' modules start with `from __future__ import annotations`: each section of
    # full_code_for_* (guards, transformed code, resume function) was pasted with its own
    # copy of that import, which Python only accepts at the top of a file
    import importlib.util

    import torch._dynamo

    module = tmp_path / "future_module.py"
    module.write_text(
        "from __future__ import annotations\n"
        "import torch\n"
        "def halves(x: torch.Tensor) -> torch.Tensor:\n"
        "    y = x * 2\n"
        "    if y.sum() > 0:\n"
        "        return y + 1\n"
        "    return y - 1\n")
    spec = importlib.util.spec_from_file_location("future_module", str(module))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch._dynamo.reset()
    fn = torch.compile(mod.halves, backend="eager")
    with prepare_debug(str(tmp_path / "dump"), report=False) as run:
        fn(torch.ones(3))
    full = [c["full_code"] for c in run.index["compiles"]]
    assert full and all(full)
    for name in full:
        with open(os.path.join(run.dump_dir, name), encoding="utf-8") as fh:
            text = fh.read()
        compile(text, name, "exec")
        assert text.count("from __future__ import annotations") == 1, name


def test_dump_is_written_with_the_programs_objects_set_aside(tmp_path, monkeypatch):
    # full garbage collections over torch's objects were most of the lens's cost at exit
    import gc

    from dynalens.lens import dump

    seen = []
    original = dump.Dumper.write

    def write(self, guard_info):
        seen.append(gc.get_freeze_count())
        return original(self, guard_info)

    monkeypatch.setattr(dump.Dumper, "write", write)
    before = gc.get_freeze_count()
    with prepare_debug(str(tmp_path), report=False):
        pass
    assert seen and seen[0] > before
    assert gc.get_freeze_count() == before


def test_a_freeze_made_by_the_program_is_left_alone(tmp_path, monkeypatch):
    import gc

    calls = []
    gc.freeze()
    try:
        monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
        monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
        with prepare_debug(str(tmp_path), report=False):
            pass
    finally:
        monkeypatch.undo()
        gc.unfreeze()
    assert calls == []
