"""What the lens captures and indexes: every resume function, every recompile reason, one run.

Each test names the defect it guards against (issue 14): resume functions kept by name (the
`b = b * -1` branch lost), resume files written by two compiles, recompile reasons of a
restarted compile lost, resume functions counted as recompilations, two guard counts, a second
run appended to the first, graph-break headlines that name torch's generic step instead of the
cause, structured-trace events dropped silently.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest

torch = pytest.importorskip("torch")

from dynalens.lens.api import prepare_debug  # noqa: E402

pytestmark = pytest.mark.torch

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
ENV = dict(os.environ, PYTHONPATH=SRC, OMP_NUM_THREADS="1")


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def two_breaks(x, flag):
    x = x + 1
    if flag:
        print("first", file=_SINK)
    x = x * 2
    print("second", file=_SINK)
    return x - 1


class _Sink:
    def write(self, text):
        pass


_SINK = _Sink()


def _lensed(folder, body, quiet=True):
    torch._dynamo.reset()
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore", RuntimeWarning)
        with prepare_debug(str(folder), report=False) as run:
            body()
    return run


def _readme_inputs():
    gen = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(10, generator=gen), torch.randn(10, generator=gen)) for _ in range(3)]
    inputs.append((torch.randn(10, generator=gen, dtype=torch.float64),
                   torch.randn(10, generator=gen, dtype=torch.float64)))
    return inputs


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory):
    fn = torch.compile(toy_example, backend="eager")
    inputs = _readme_inputs()
    negative = [b.sum() < 0 for _, b in inputs]
    assert any(negative) and not all(negative)  # both branches of the `if` run
    return _lensed(tmp_path_factory.mktemp("readme"), lambda: [fn(a, b) for a, b in inputs])


def _read(run, rel):
    with open(os.path.join(run.dump_dir, rel), encoding="utf-8") as fh:
        return fh.read()


def test_every_resume_function_called_has_its_own_entry_and_file(readme_run):
    # both branches of the `if` resume in a function named ..._at_<line of the if>: two code
    # objects with one name, which the lens used to keep as one (the `b = b * -1` one lost)
    first = readme_run.index["compiles"][0]
    assert first["function"] == "toy_example"
    called = set(re.findall(r"__resume_at_\d+_\d+", _read(readme_run,
                                                           first["transformed_code"]["file"])))
    resumes = first["resume_functions"]
    assert len(called) == 2
    assert sorted(g for r in resumes for g in r["global_names"]) == sorted(called)
    assert len(resumes) == 2 and len({r["file"] for r in resumes}) == 2
    texts = [_read(readme_run, r["file"]) for r in resumes]
    assert sum("b = b * -1" in t for t in texts) == 1
    assert all("return x * b" in t for t in texts)
    # each entry says where it resumes and which compiles of this dump are its own
    lines = sorted(r["resumes_at_line"] for r in resumes)
    assert lines[1] == lines[0] + 1
    by_key = {c["key"]: c for c in readme_run.index["compiles"]}
    for r in resumes:
        assert r["compiles"], r
        for key in r["compiles"]:
            assert by_key[key]["is_resume"]
            assert by_key[key]["resumes_at_line"] == r["resumes_at_line"]


def test_resume_files_never_collide(tmp_path):
    # flag=False first: two_breaks (compile number 0) calls the resume function of the second
    # print; then flag=True: the resume function of the first print (its compile number 0
    # too) calls that same-named resume function: both used to write one file
    fn = torch.compile(two_breaks, backend="eager")
    run = _lensed(tmp_path / "d", lambda: [fn(torch.ones(3), False), fn(torch.ones(3), True)])
    entries = [(c, r) for c in run.index["compiles"] for r in c["resume_functions"]]
    names = [r["name"] for _, r in entries]
    assert len(names) > len(set(names)), "the program no longer reproduces the collision"
    files = [r["file"] for _, r in entries]
    assert len(files) == len(set(files))
    paths = [f["path"] for f in run.index["files"]]
    assert len(paths) == len(set(paths))
    for c, r in entries:
        head = _read(run, r["file"]).splitlines()[0]
        assert "compile id %s of %s " % (c["compile_id"], c["function"]) in head, (r, head)


RECOMPILES_SCRIPT = textwrap.dedent('''
    import sys, warnings
    import torch
    from dynalens.lens.api import prepare_debug

    def f(a, n):
        y = a * 2
        if a.sum().item() > 0:      # graph break that restarts the analysis (attempt 1)
            y = y + 1
        for i in range(n):
            y = y + i
        return y

    warnings.simplefilter("ignore")
    cf = torch.compile(f, backend="eager")
    with prepare_debug(sys.argv[1], report=False):
        for a in [torch.ones(4), torch.ones(5), torch.ones(4, dtype=torch.float64)]:
            for n in (1, 2):
                cf(a, n)
''')


def test_recompile_reasons_survive_restarted_compiles(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(RECOMPILES_SCRIPT)
    folder = tmp_path / "dump"
    res = subprocess.run([sys.executable, str(script), str(folder)], capture_output=True,
                         text=True, env=dict(ENV, TORCH_LOGS="recompiles"), timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    logged = re.findall(r"\[(\d+/\d+(?:_\d+)?)\] \[__recompiles\] Recompiling function",
                        res.stderr)
    with open(folder / "index.json", encoding="utf-8") as fh:
        index = json.load(fh)
    with_reasons = [c for c in index["compiles"] if c["recompile_reasons"]]
    assert any(c["attempt"] for c in with_reasons), "no restarted recompile to check"
    assert len(logged) >= 3
    assert len(with_reasons) == len(logged)
    assert sorted(c["compile_id"].split("_")[0] for c in with_reasons) == \
        sorted(cid.split("_")[0] for cid in logged)


def test_graph_break_headline_names_cause_and_user_line(tmp_path):
    def item_break(x):
        s = x.sum().item()
        return x * s

    def print_break(x):
        x = x + 1
        print("halfway", file=_SINK)
        return x * 2

    fi = torch.compile(item_break, backend="eager")
    fp = torch.compile(print_break, backend="eager")
    run = _lensed(tmp_path / "d", lambda: (fi(torch.ones(3)), fp(torch.ones(3))))
    breaks = {c["function"]: c["graph_breaks"] for c in run.index["compiles"]
              if c["graph_breaks"]}
    item = breaks["item_break"][0]
    assert "Tensor.item()" in item["reason"]
    assert not item["reason"].startswith("Encountered graph break")
    assert item["context"].startswith("Encountered graph break when attempting to trace")
    assert item["user_frame"]["filename"] == __file__
    assert item["user_frame"]["source_line"] == "s = x.sum().item()"
    printed = breaks["print_break"][0]
    assert "`print`" in printed["reason"]
    assert printed["user_frame"]["source_line"] == 'print("halfway", file=_SINK)'


def test_graph_break_inside_torch_names_the_users_line(tmp_path):
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
        return loss

    fn = torch.compile(step, backend="eager")
    run = _lensed(tmp_path / "d", lambda: fn(torch.ones(4, 3)))
    inside = [gb for c in run.index["compiles"] for gb in c["graph_breaks"]
              if gb["filename"] and os.sep + "torch" + os.sep in gb["filename"]]
    assert inside, "no graph break inside torch to check"
    for gb in inside:
        assert gb["user_frame"]["filename"] == __file__, gb
        assert gb["user_frame"]["source_line"].startswith("opt."), gb


def test_unknown_structured_trace_event_is_a_named_warning(tmp_path):
    from torch._logging import trace_structured

    def add_one(x):
        return x + 1

    def body():
        fn = torch.compile(add_one, backend="eager")
        fn(torch.ones(2))
        # an event (and an artifact) inside a compile that no torch version sends
        from torch._guards import CompileContext, CompileId, compile_context

        with compile_context(CompileContext(CompileId(frame_id=0, frame_compile_id=0))):
            trace_structured("dynalens_test_new_event", lambda: {"x": 1})
            trace_structured("artifact", lambda: {"name": "dynalens_test_new_artifact",
                                                  "encoding": "string"},
                             payload_fn=lambda: "text")

        trace_structured("dynalens_test_outside_a_compile", lambda: {"x": 1})

    run = _lensed(tmp_path / "d", body)
    text = "\n".join(run.index["warnings"])
    for name in ("dynalens_test_new_event", "dynalens_test_new_artifact",
                 "dynalens_test_outside_a_compile"):
        assert "%r" % name in text
    # the events torch itself sent in this run are all known: nothing else is reported
    trace = [w for w in run.index["warnings"] if "structured-trace" in w]
    assert len(trace) == 3, run.index["warnings"]
    from dynalens.report.load import load_dump

    assert any("dynalens_test_new_event" in w for w in load_dump(run.dump_dir).warnings)


def test_second_run_replaces_the_first_and_says_so(tmp_path, capfd):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    (folder / "my_script.py").write_text("print('mine')\n")
    fn = torch.compile(toy_example, backend="eager")
    inputs = _readme_inputs()
    first = _lensed(folder, lambda: [fn(a, b) for a, b in inputs])
    capfd.readouterr()
    first_files = {f["path"] for f in first.index["files"]}
    assert "__compiled_fn_" not in " ".join(f["path"] for f in first.index["files"]
                                             if f["kind"] != "graph")
    second = _lensed(folder, lambda: [fn(a, b) for a, b in inputs])
    err = capfd.readouterr().err
    assert "held the dump of an earlier run" in err and str(folder) in err
    ids = [c["compile_id"] for c in second.index["compiles"]]
    assert ids == [c["compile_id"] for c in first.index["compiles"]]
    assert len(ids) == len(set(ids))
    assert len(second.index["processes"]) == 1
    on_disk = {f for f in os.listdir(folder) if f.endswith(".py")}
    assert on_disk == {f["path"] for f in second.index["files"]} | {"my_script.py"}
    # numbers start afresh (graph names follow torch's own counter, which goes on)
    assert {f["path"] for f in second.index["files"] if f["kind"] != "graph"} == \
        {p for p in first_files if not p.startswith("__compiled_fn_")}
    assert (folder / "notes.txt").read_text() == "mine"


def test_a_block_joins_a_run_still_open_in_another_process(tmp_path):
    # a second process opening a block while the first's is open adds to its dump
    from dynalens.lens import runfolder

    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "index.json").write_text(json.dumps({
        "format": "dynalens-dump", "compiles": [], "subdumps": [], "processes": [],
        "files": [{"path": "full_code_for_f_0.py", "kind": "full_code", "compile": "0/0"}]}))
    (folder / "full_code_for_f_0.py").write_text("# theirs\n")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (folder / runfolder.STATE_NAME).write_text(json.dumps({
            "run": "r1", "open": [{"pid": sleeper.pid, "host": __import__("socket")
                                   .gethostname(), "started": 0}]}))
        slot = runfolder.open_block(str(folder))
        assert slot.replaced is None and slot.run_id == "r1"
        assert (folder / "full_code_for_f_0.py").exists()
        runfolder.close_block(slot)
    finally:
        sleeper.kill()
        sleeper.wait()
    # that process is gone now: the next block starts a new run and replaces the dump
    slot = runfolder.open_block(str(folder))
    runfolder.close_block(slot)
    assert slot.replaced is not None and slot.run_id != "r1"
    assert not (folder / "full_code_for_f_0.py").exists()
    assert not (folder / "index.json").exists()


def test_report_counts_resume_functions_apart_from_recompilations(readme_run):
    from dynalens.report.load import load_dump

    dump = load_dump(readme_run.dump_dir)
    index = readme_run.index
    # one Function per code object: the two same-named resume functions are two rows
    frames = {(c["frame_id"]) for c in index["compiles"]}
    assert len(dump.functions) == len(frames)
    resume_fns = [fn for fn in dump.functions if fn.resume_of == "toy_example"]
    assert len(resume_fns) == 2 and len({fn.name for fn in resume_fns}) == 1
    assert sorted(fn.resumes_at_line for fn in resume_fns) == sorted(
        r["resumes_at_line"] for r in index["compiles"][0]["resume_functions"])
    # every recompilation counted in the table is a compile with a recompile reason
    assert sum(fn.recompilations for fn in dump.functions) == len(dump.recompilations)
    # each resume block links to its own function's section
    first = dump.functions[0].compiles[0]
    links = {block.anchor: block.see_also[0][1] for block in first.resume}
    assert sorted(links.values()) == sorted(fn.anchor for fn in resume_fns)


def test_one_guard_count_explained(readme_run):
    from dynalens.report.render import render
    from dynalens.report.load import load_dump

    first = readme_run.index["compiles"][0]
    checks, theirs = first["guards"]["count"], first["guards"]["torch_guard_count"]
    assert checks != theirs  # torch's metric counts guards before they become checks
    page = render(load_dump(readme_run.dump_dir))
    assert ">%d guard checks<" % checks in page
    assert "%d guards" % theirs not in page
    assert "guard_count metric says %d" % theirs in page
    header = _read(readme_run, first["guards"]["file"]).splitlines()[:3]
    assert any("Guards: %d checks" % checks in h for h in header)
    assert any("guard_count metric says %d" % theirs in h for h in header)


def test_report_headline_is_the_cause_at_the_users_line(tmp_path):
    from dynalens.report.render import render
    from dynalens.report.load import load_dump

    def item_break(x):
        s = x.sum().item()
        return x * s

    fn = torch.compile(item_break, backend="eager")
    run = _lensed(tmp_path / "d", lambda: fn(torch.ones(3)))
    dump = load_dump(run.dump_dir)
    (brk,) = dump.graph_breaks
    assert brk.reason.startswith("Unsupported Tensor.item()")
    assert brk.frame.filename == __file__ and brk.frame.line == "s = x.sum().item()"
    page = render(dump)
    line = brk.frame.lineno
    assert re.search(r'<pre class="reason"[^>]*>Unsupported Tensor.item\(\) call[^<]*'
                     r'<span class="at">at test_lens_capture.py:%d</span>' % line, page)


def test_report_keeps_each_process_cache_apart(tmp_path):
    # two processes compiled the same function twice each: two recompilations, not three
    from dynalens.report.load import load_dump

    def compile_entry(key, pid, n):
        return {"key": key, "pid": pid, "compile_id": "0/%d" % n, "frame_id": 0,
                "frame_compile_id": n, "attempt": 0, "function": "f", "filename": "/x/f.py",
                "firstlineno": 1, "is_resume": False, "resume_of": None, "stack": [],
                "recompile_reasons": ["0/0: tensor 'x' size mismatch"] if n else [],
                "guards": None, "transformed_code": None, "full_code": None,
                "resume_functions": [], "graphs": [], "graph_breaks": [], "metrics": {}}

    index = {"format": "dynalens-dump", "format_version": 1, "subdumps": [], "files": [],
             "warnings": [], "processes": [{"pid": 11}, {"pid": 12}],
             "compiles": [compile_entry("0/0", 11, 0), compile_entry("0/1", 11, 1),
                          compile_entry("0/0@12", 12, 0), compile_entry("0/1@12", 12, 1)]}
    (tmp_path / "index.json").write_text(json.dumps(index))
    dump = load_dump(str(tmp_path))
    assert [fn.recompilations for fn in dump.functions] == [1, 1]
    assert sorted(fn.name for fn in dump.functions) == ["f (pid 11)", "f (pid 12)"]


def test_every_event_the_installed_torch_can_send_is_known():
    # the event names in torch's own trace_structured(...) calls: each is read or knowingly
    # left out (a new torch that adds one fails here, in its CI matrix cell, before a user
    # sees the warning)
    from dynalens.lens.capture import IGNORED_EVENTS, READ_EVENTS

    root = os.path.dirname(torch.__file__)
    call = re.compile(r'\btrace_structured\(\s*"([A-Za-z_]\w*)"')
    found = set()
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                if "trace_structured(" in text:
                    found.update(call.findall(text))
    assert {"dynamo_start", "dynamo_output_graph", "artifact"} <= found
    assert found - READ_EVENTS - IGNORED_EVENTS == set()
