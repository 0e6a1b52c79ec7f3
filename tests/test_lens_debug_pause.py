"""debug()'s pause on entry: when it stops, where, and that a run nobody watches never blocks.

The debuggers themselves are driven in test_lens_debug_pdb.py (pdb through stdin) and
test_lens_debug_dap.py (debugpy over DAP); here: the decision (`debugger_present`), the
`PYTHONBREAKPOINT` hook called in dynalens's frame, `pause=False`, and a real program with
stdin an open pipe and no debugger, which must run to its end.
"""

import bdb
import io
import os
import subprocess
import sys
import types

import pytest

torch = pytest.importorskip("torch")

from debug_program import program_env, write_program  # noqa: E402
from dynalens.lens import pause as pause_mod  # noqa: E402
from dynalens.lens.api import debug, prepare_debug  # noqa: E402

pytestmark = pytest.mark.torch


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def unwatched(monkeypatch):
    """A process nobody watches: no PYTHONBREAKPOINT, the default hook, no tracer, stdin a
    pipe (and no debugger module on the stack, as under plain pytest)."""
    monkeypatch.delenv("PYTHONBREAKPOINT", raising=False)
    monkeypatch.setattr(sys, "breakpointhook", sys.__breakpointhook__)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr(sys, "gettrace", lambda: None)
    return monkeypatch


def test_nobody_watching_means_no_pause(unwatched):
    assert pause_mod.debugger_present() == (
        False, "no debugger is attached and stdin is not a terminal")


def test_each_sign_of_a_debugger_means_pause(unwatched):
    unwatched.setattr(sys, "stdin", _Terminal())
    assert pause_mod.debugger_present() == (True, "stdin is a terminal")
    unwatched.setattr(sys, "stdin", io.StringIO(""))

    tracer = bdb.Bdb()
    unwatched.setattr(sys, "gettrace", lambda: tracer.trace_dispatch)
    assert pause_mod.debugger_present() == (True, "Bdb traces this thread")

    class CoverageLikeTracer:          # coverage and profilers trace too: nobody answers
        def __call__(self, frame, event, arg):
            return self
    unwatched.setattr(sys, "gettrace", lambda: CoverageLikeTracer())
    assert pause_mod.debugger_present()[0] is False

    def ide_hook(*args, **kwargs):
        pass
    unwatched.setattr(sys, "breakpointhook", ide_hook)
    assert pause_mod.debugger_present()[0] is True
    unwatched.setattr(sys, "breakpointhook", sys.__breakpointhook__)

    unwatched.setenv("PYTHONBREAKPOINT", "0")
    assert pause_mod.debugger_present() == (False, "PYTHONBREAKPOINT=0 turns breakpoint() off")
    unwatched.setenv("PYTHONBREAKPOINT", "ipdb.set_trace")
    assert pause_mod.debugger_present() == (True, "PYTHONBREAKPOINT=ipdb.set_trace")


def test_debugger_driver_on_the_stack_means_pause(unwatched):
    # `python -m pdb prog.py` runs the program from bdb.Bdb.run, with no trace function left
    # once the user typed `c` with no breakpoint set
    namespace = {"__name__": "bdb", "check": pause_mod.debugger_present}
    exec("def run():\n    return check()\n", namespace)
    assert namespace["run"]() == (True, "running under pdb")


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    import torch._dynamo

    def double(x):
        return torch.abs(x) * 2

    torch._dynamo.reset()
    fn = torch.compile(double, backend="eager")
    with prepare_debug(str(tmp_path_factory.mktemp("pause")), report=False) as run:
        fn(torch.ones(2))
    return run, fn


def test_pythonbreakpoint_hook_is_called_in_dynalens_frame(unwatched, small_run, capsys):
    run, fn = small_run
    seen = []

    def hook():
        frame = sys._getframe(1)
        seen.append((frame.f_code.co_filename, frame.f_locals["dump_dir"],
                     list(frame.f_locals["files"])))

    unwatched.setitem(sys.modules, "dynalens_test_hook", types.SimpleNamespace(stop=hook))
    unwatched.setenv("PYTHONBREAKPOINT", "dynalens_test_hook.stop")
    with debug(run) as session:
        assert torch.equal(fn(torch.ones(2)), torch.full((2,), 2.0))
    assert len(seen) == 1
    filename, dump_dir, files = seen[0]
    assert os.path.basename(filename) == "dynalens_debug_pause.py" and dump_dir == run.dump_dir
    transformed = [p for _, p in session.swapped + session.relabeled]
    assert [p for k, _, p in files if k == "transformed code"] == transformed
    assert [p for k, _, p in files if k == "graph"] == [p for _, p in session.graphs_swapped]
    err = capsys.readouterr().err
    assert "paused before the block runs (PYTHONBREAKPOINT=dynalens_test_hook.stop)" in err
    assert all(p in err for _, _, p in files)


def test_pause_false_neither_stops_nor_prints(unwatched, small_run, capsys):
    run, fn = small_run
    calls = []
    unwatched.setitem(sys.modules, "dynalens_test_hook",
                      types.SimpleNamespace(stop=lambda: calls.append(1)))
    unwatched.setenv("PYTHONBREAKPOINT", "dynalens_test_hook.stop")
    with debug(run, pause=False):
        fn(torch.ones(2))
    assert calls == [] and "dynalens" not in capsys.readouterr().err


def test_unwatched_pause_says_how_to_get_it(unwatched, small_run, capsys):
    run, fn = small_run
    calls = []
    unwatched.setattr("builtins.breakpoint", lambda *a, **k: calls.append(1))
    with debug(run):
        fn(torch.ones(2))
    err = capsys.readouterr().err
    assert calls == []
    assert "not pausing (no debugger is attached and stdin is not a terminal)" in err
    assert "python -m pdb" in err and "PYTHONBREAKPOINT=pdb.set_trace" in err


def test_program_with_no_debugger_and_an_open_stdin_pipe_runs_to_the_end(tmp_path):
    # the pipe stays open and empty: a pdb prompt would wait on it forever (the deadline below
    # turns that into a failure)
    prog = write_program(tmp_path)
    proc = subprocess.Popen([sys.executable, prog, str(tmp_path / "dump")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=program_env(), cwd=str(tmp_path))
    try:
        out = proc.communicate(timeout=300)[0].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0].decode("utf-8", "replace")
        pytest.fail("the program waited at debug()'s pause with nobody to answer:\n" + out)
    finally:
        if proc.stdin:
            proc.stdin.close()
    assert proc.returncode == 0, out[-4000:]
    assert "not pausing (no debugger is attached and stdin is not a terminal)" in out, out
    assert "SAME True" in out
    assert os.path.join(str(tmp_path), "dump") in out
