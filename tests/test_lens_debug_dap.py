"""debug() under VS Code's Python debugger: debugpy, driven over the Debug Adapter Protocol.

The program starts as `python -m debugpy --listen 127.0.0.1:PORT --wait-for-client prog.py`
and the test attaches as VS Code does (tests/dap_client.py, with VS Code's default
`justMyCode`, dynalens counted as library code as when it is installed in site-packages);
`with debug():` pauses; the test sets breakpoints in every
file the pause lists, continues, and at each stop evaluates the frame's live tensors; from the
first stop in transformed code, "step into" must land in the graph file that line calls. Every
wait has a deadline.
"""

import ast
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("debugpy")

from dap_client import DAPClient  # noqa: E402
from debug_program import (call_line, free_port, graph_of, listed_files,  # noqa: E402
                           not_exact_is_why, op_line, program_env, write_program)

pytestmark = pytest.mark.torch

# the frame's live tensors as one string "name=values;..." (the adapter abbreviates nested
# containers in an evaluate result, not a string's text); the iterable runs in the frame
LIVE = ("';'.join('%s=%s' % (k, v.tolist()) for k, v in sorted(locals().items()) "
        "if type(v).__name__ in ('Tensor', 'Parameter'))")


def _live(result):
    text = ast.literal_eval(result)
    return {k: ast.literal_eval(v) for k, _, v in (p.partition("=") for p in text.split(";") if p)}


@pytest.fixture(scope="module")
def dap_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dap")
    prog = write_program(folder)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-Xfrozen_modules=off", "-m", "debugpy", "--listen",
         "127.0.0.1:%d" % port, "--wait-for-client", prog, str(folder / "dump")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=program_env(), cwd=str(folder))
    client = None
    try:
        client = DAPClient("127.0.0.1", port, connect_timeout=120, timeout=300)
        # dynalens as library code, as when pip installed it in site-packages: VS Code's
        # default justMyCode then ignores breakpoint() calls made in its frames
        client.attach(justMyCode=True, rules=[{"module": "dynalens", "include": False}])
        thread, frame, stopped = client.wait_stopped(timeout=600)
        pause = {"path": frame["source"].get("path"), "reason": stopped.get("reason"),
                 "text": client.output("stderr")}
        files = listed_files(pause["text"])
        kinds = {}
        for kind, label, path in files:
            line = op_line(path) if kind == "graph" else call_line(path)
            answer = client.set_breakpoints(path, [line])
            assert answer and answer[0].get("verified"), answer
            kinds[(path, line)] = kind
        stops, stepped = [], None
        client.continue_(thread)
        while True:
            event, body = client.wait_any(("stopped", "terminated", "exited"), timeout=300)
            if event != "stopped":
                break
            thread, frame = client.top_frame(body)
            where = (frame["source"].get("path"), frame["line"])
            live = _live(client.evaluate(LIVE, frame["id"]))
            direct = {name: client.evaluate(name, frame["id"]) for name in ("a", "x", "h")
                      if name in live}
            stops.append((where, live, direct))
            if stepped is None and kinds.get(where) == "transformed code":
                client.step_in(thread)
                thread, landed, _ = client.wait_stopped(timeout=120)
                stepped = (where, (landed["source"].get("path"), landed["line"]))
            client.continue_(thread)
        return {"pause": pause, "files": files, "stops": stops, "stepped": stepped,
                "kinds": kinds, "stdout": client.output("stdout")}
    finally:
        if client is not None:
            client.close()
        try:
            out = proc.communicate(timeout=120)[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate()[0]
        if proc.returncode:
            print(out.decode("utf-8", "replace")[-4000:])


def _stops_in(run, kind, name_part):
    paths = {p for k, _, p in run["files"] if k == kind and name_part in os.path.basename(p)}
    if not paths and kind != "graph":
        not_exact_is_why(run["pause"]["text"], name_part.split("_for_")[-1])
    assert paths, "no %s file for %s listed at the pause:\n%s" % (kind, name_part,
                                                                  run["pause"]["text"])
    return [(live, direct) for (path, _), live, direct in run["stops"] if path in paths]


def test_debug_pauses_in_its_own_frame_and_lists_the_files(dap_run):
    pause = dap_run["pause"]
    assert os.path.basename(pause["path"]) == "dynalens_debug_pause.py", pause
    assert "dynalens.debug(): paused before the block runs" in pause["text"], pause
    assert {k for k, _, _ in dap_run["files"]} == {
        "transformed code", "resume function", "graph"}, pause["text"]


def test_program_runs_to_the_end_with_the_same_results(dap_run):
    assert "SAME True" in dap_run["stdout"], dap_run["stdout"][-3000:]


def test_breakpoint_in_transformed_code_evaluates_a_live_tensor(dap_run):
    hits = _stops_in(dap_run, "transformed code", "_for_toy_example")
    assert "tensor([1., 1., 1.])" in [direct.get("a") for _, direct in hits], dap_run["stops"]


def test_step_into_from_the_graph_call_lands_in_the_graph_file(dap_run):
    assert dap_run["stepped"] is not None, dap_run["stops"]
    (tpath, _), (landed, _) = dap_run["stepped"]
    assert landed in graph_of(tpath, dap_run["files"]), dap_run["stepped"]


def test_breakpoint_in_resume_function_evaluates_a_live_tensor(dap_run):
    hits = _stops_in(dap_run, "resume function", "_for_torch_dynamo_resume_in_toy_example")
    assert "tensor([0.5000, 0.5000, 0.5000])" in [direct.get("x") for _, direct in hits], \
        dap_run["stops"]


def test_breakpoint_in_graph_files_of_the_eager_backend(dap_run):
    hits = [live for live, _ in _stops_in(dap_run, "graph", "__compiled_fn_")]
    assert [1.0, 1.0, 1.0] in [live.get("L_a_") for live in hits], dap_run["stops"]
    assert [0.5, 0.5, 0.5] in [live.get("L_x_") for live in hits], dap_run["stops"]


def test_breakpoints_in_a_module_forward_and_its_aot_eager_graph(dap_run):
    forward = _stops_in(dap_run, "transformed code", "_for_forward")
    assert "tensor([[1., 1., 1.]])" in [direct.get("h") for _, direct in forward], \
        dap_run["stops"]
    graphs = [live for live, _ in _stops_in(dap_run, "graph", "__compiled_fn_")]
    assert [[1.0, 1.0, 1.0]] in [live.get("L_h_") for live in graphs], dap_run["stops"]
