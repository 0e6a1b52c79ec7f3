"""debug() under pdb, driven through stdin the way a person types at the prompt.

`python -m pdb prog.py DUMP`: `c` runs the program until `with debug():` pauses in dynalens's
frame (printing the files to open); then `b FILE:LINE` in every listed file, `c`, and at each
stop `p` of the frame's live tensors; from the first stop in transformed code, `s` must land in
the graph file that line calls. Every wait has a deadline (tests/debug_program.py), so a
debugger that never prompts fails the test instead of hanging it.
"""

import ast
import os
import re
import sys

import pytest

torch = pytest.importorskip("torch")

from debug_program import (Console, call_line, graph_of, listed_files,  # noqa: E402
                           not_exact_is_why, op_line, program_env, write_program)

pytestmark = pytest.mark.torch

PROMPT = "(Pdb) "
# the frame's live tensors as (name, values) pairs; the iterable is evaluated in the frame
LIVE = ("p ('LIVE', sorted((k, v.tolist()) for k, v in locals().items() "
        "if type(v).__name__ in ('Tensor', 'Parameter')))")
_WHERE = re.compile(r"^> (.+?)\((\d+)\)\S*\(\)\s*$", re.M)


def _prompt(text):
    return text.endswith(PROMPT)


def _where(text):
    found = _WHERE.findall(text)
    assert found, text
    return found[-1][0], int(found[-1][1])


def _live(text):
    line = next(ln for ln in text.splitlines() if "('LIVE'" in ln)
    return dict(ast.literal_eval(line[line.index("('LIVE'"):])[1])


@pytest.fixture(scope="module")
def pdb_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pdb")
    prog = write_program(folder)
    con = Console([sys.executable, "-m", "pdb", prog, str(folder / "dump")], program_env(),
                  cwd=str(folder))
    try:
        con.wait_for(_prompt, 120, "pdb's first prompt")
        con.send("c")
        pause = con.wait_for(_prompt, 600, "the pause on entering debug()")
        files = listed_files(pause)
        kinds = {}
        for kind, label, path in files:
            line = op_line(path) if kind == "graph" else call_line(path)
            con.send("b %s:%d" % (path, line))
            con.wait_for(_prompt, 60, "pdb's answer to `b`")
            kinds[(path, line)] = kind
        stops, stepped = [], None
        con.send("c")
        while True:
            out = con.wait_for(_prompt, 300, "the next stop")
            if "The program finished" in out:
                break
            where = _where(out)
            con.send(LIVE)
            stops.append((where, _live(con.wait_for(_prompt, 60, "`p` of the live tensors"))))
            if stepped is None and kinds.get(where) == "transformed code":
                con.send("s")
                stepped = (where, _where(con.wait_for(_prompt, 60, "the stop after `s`")))
            con.send("c")
        con.send("q")
        rc = con.finish(120)
        return {"pause": pause, "files": files, "stops": stops, "stepped": stepped,
                "kinds": kinds, "rc": rc, "out": con.text}
    finally:
        con.kill()


def _stops_in(run, kind, name_part):
    paths = {p for k, _, p in run["files"] if k == kind and name_part in os.path.basename(p)}
    if not paths and kind != "graph":
        not_exact_is_why(run["pause"], name_part.split("_for_")[-1])
    assert paths, "no %s file for %s listed at the pause:\n%s" % (kind, name_part, run["pause"])
    return [live for (path, _), live in run["stops"] if path in paths]


def test_debug_pauses_in_its_own_frame_and_lists_the_files(pdb_run):
    pause = pdb_run["pause"]
    assert "dynalens.debug(): paused before the block runs" in pause, pause
    # the stop is in a file of its own that repeats the message (see dynalens.lens.pause)
    where = _where(pause)[0]
    assert os.path.basename(where) == "dynalens_debug_pause.py", pause
    with open(where, encoding="utf-8") as fh:
        text = fh.read()
    assert all("file://" + path in text for _, _, path in pdb_run["files"]), text
    assert {k for k, _, _ in pdb_run["files"]} == {
        "transformed code", "resume function", "graph"}, pause


def test_program_completes_with_the_same_results(pdb_run):
    assert "SAME True" in pdb_run["out"], pdb_run["out"][-4000:]
    assert pdb_run["rc"] == 0


def test_breakpoint_in_transformed_code_sees_live_tensors(pdb_run):
    hits = _stops_in(pdb_run, "transformed code", "_for_toy_example")
    assert {"a": [1.0, 1.0, 1.0], "b": [-1.0, -1.0, -1.0]} in [
        {k: v for k, v in live.items() if k in ("a", "b")} for live in hits], pdb_run["stops"]


def test_step_from_the_graph_call_lands_in_the_graph_file(pdb_run):
    assert pdb_run["stepped"] is not None, pdb_run["stops"]
    (tpath, _), (landed, _) = pdb_run["stepped"]
    assert landed in graph_of(tpath, pdb_run["files"]), pdb_run["out"][-4000:]


def test_breakpoint_in_resume_function_sees_live_tensors(pdb_run):
    hits = _stops_in(pdb_run, "resume function", "_for_torch_dynamo_resume_in_toy_example")
    assert any(live.get("x") == [0.5, 0.5, 0.5] for live in hits), pdb_run["stops"]


def test_breakpoint_in_graph_files_of_the_eager_backend(pdb_run):
    hits = _stops_in(pdb_run, "graph", "__compiled_fn_")
    toy_graph = [live for live in hits if live.get("L_a_") == [1.0, 1.0, 1.0]]
    resume_graph = [live for live in hits if live.get("L_x_") == [0.5, 0.5, 0.5]]
    assert toy_graph and resume_graph, pdb_run["stops"]


def test_breakpoints_in_a_module_forward_and_its_aot_eager_graph(pdb_run):
    # the MLP's graph runs from its file only because the block asked for eager_graphs=True
    forward = _stops_in(pdb_run, "transformed code", "_for_forward")
    assert any(live.get("h") == [[1.0, 1.0, 1.0]] for live in forward), pdb_run["stops"]
    graphs = [live for (path, _), live in pdb_run["stops"] if pdb_run["kinds"].get(
        (path, _)) == "graph" and live.get("L_h_") == [[1.0, 1.0, 1.0]]]
    assert graphs, pdb_run["stops"]
