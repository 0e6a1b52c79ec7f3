"""`dynalens run / report / demo`: a program runs as if started directly, and gets its report."""

import contextlib
import html
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("jinja2")

from dynalens import cli, runner
from dynalens.report.synthetic import make_dump

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

PROBE = '''
import json, os, sys
import __main__
record = {
    "argv": sys.argv,
    "name": __name__,
    "main_is_me": getattr(__main__, "MARKER", None) == "here",
    "path0": sys.path[0],
    "file": __file__,
}
MARKER = "here"
record["main_is_me"] = getattr(sys.modules["__main__"], "MARKER", None) == "here"
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump(record, f)
'''


@pytest.fixture
def fake_lens(monkeypatch):
    """prepare_debug stand-in: records its folder, writes a small dump on exit (no torch)."""
    entered = []

    @contextlib.contextmanager
    def prepare_debug(dump_dir, report=True):
        entered.append(dump_dir)
        try:
            yield
        finally:
            make_dump(dump_dir, functions=1, compiles_per_function=2)
            if report:
                from dynalens.report.api import write_report

                write_report(dump_dir)

    monkeypatch.setattr(runner, "_prepare_debug", lambda: prepare_debug)
    return entered


def _script(tmp_path, body, name="prog.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_script_sees_argv_main_and_path_and_exit_code_is_kept(tmp_path, monkeypatch, fake_lens,
                                                              capsys):
    out = tmp_path / "probe.json"
    monkeypatch.setenv("PROBE_OUT", str(out))
    script = _script(tmp_path, PROBE + "\nsys.exit(3)\n")
    argv_before = sys.argv[:]
    main_before = sys.modules["__main__"]
    dump = tmp_path / "dump"
    status = cli.main(["run", "--dump", str(dump), str(script), "-x", "--flag=1", "pos"])
    assert status == 3
    seen = json.loads(out.read_text())
    assert seen["argv"] == [str(script), "-x", "--flag=1", "pos"]
    assert seen["name"] == "__main__" and seen["main_is_me"]
    assert seen["path0"] == str(tmp_path)
    assert seen["file"] == str(script)
    assert fake_lens == [str(dump)]
    err = capsys.readouterr().err
    assert "dynalens: report %s" % (dump / "report.html") in err
    assert (dump / "report.html").exists()
    # The caller's interpreter state is restored.
    assert sys.argv == argv_before and sys.modules["__main__"] is main_before


def test_module_mode_runs_like_python_dash_m(tmp_path, monkeypatch, fake_lens):
    out = tmp_path / "probe.json"
    monkeypatch.setenv("PROBE_OUT", str(out))
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tool.py").write_text(PROBE)
    monkeypatch.chdir(tmp_path)
    status = cli.main(["run", "--dump", "d", "-m", "mypkg.tool", "a", "b"])
    assert status == 0
    seen = json.loads(out.read_text())
    assert seen["argv"] == [str(pkg / "tool.py"), "a", "b"]
    assert seen["name"] == "__main__" and seen["main_is_me"]
    assert (tmp_path / "d" / "report.html").exists()


def test_failing_program_prints_its_traceback_and_still_gets_a_report(tmp_path, fake_lens, capsys):
    script = _script(tmp_path, """
        def inner():
            raise ValueError("boom in user code")
        inner()
    """)
    status = cli.main(["run", "--dump", str(tmp_path / "dump"), str(script)])
    assert status == 1
    err = capsys.readouterr().err
    assert "ValueError: boom in user code" in err
    assert 'File "%s", line 4' % script in err
    assert "runner.py" not in err and "runpy" not in err  # as `python prog.py` would show it
    assert (tmp_path / "dump" / "report.html").exists()


def test_sys_exit_with_a_message(tmp_path, fake_lens, capsys):
    script = _script(tmp_path, "import sys\nsys.exit('bad input file')\n")
    assert cli.main(["run", "--dump", str(tmp_path / "dump"), str(script)]) == 1
    assert "bad input file" in capsys.readouterr().err


def test_no_report_flag(tmp_path, fake_lens, capsys):
    script = _script(tmp_path, "pass\n")
    assert cli.main(["run", "--no-report", "--dump", str(tmp_path / "d"), str(script)]) == 0
    assert not (tmp_path / "d" / "report.html").exists()
    assert "dump folder" in capsys.readouterr().err


def test_bad_targets_are_usage_errors(tmp_path, fake_lens, capsys):
    assert cli.main(["run", str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert cli.main(["run", "-m", "no_such_module_dynalens_test"]) == 2
    assert "no module named" in capsys.readouterr().err
    assert fake_lens == []  # nothing was started


@pytest.mark.parametrize("argv", [["run"], ["run", "-m"], ["run", "--dump", "out"]])
def test_run_without_a_program_says_how_to_name_one(argv, fake_lens, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "name the program to run" in err and "script.py" in err and "-m module" in err
    assert "required" not in err and "args" not in err.replace("[args ...]", "")
    assert fake_lens == []


def test_report_command(tmp_path, capsys):
    make_dump(str(tmp_path / "dump"))
    assert cli.main(["report", str(tmp_path / "dump")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "dump" / "report.html")
    out = tmp_path / "elsewhere" / "page.html"
    assert cli.main(["report", str(tmp_path / "dump"), "-o", str(out)]) == 0
    assert out.exists()
    (tmp_path / "empty").mkdir()
    assert cli.main(["report", str(tmp_path / "empty")]) == 2
    assert "not a dynalens dump folder" in capsys.readouterr().err


def test_missing_torch_on_entering_the_lens_is_a_usage_error(tmp_path, monkeypatch, capsys):
    class NoTorch:
        def __init__(self, dump_dir, report=True):
            pass

        def __enter__(self):
            raise ImportError("dynalens.prepare_debug needs torch: pip install 'dynalens[torch]'")

        def __exit__(self, *exc):
            raise AssertionError("never entered, never exited")

    monkeypatch.setattr(runner, "_prepare_debug", lambda: NoTorch)
    script = _script(tmp_path, "raise SystemExit('must not run')\n")
    assert cli.main(["run", "--dump", str(tmp_path / "d"), str(script)]) == 2
    err = capsys.readouterr().err
    assert "needs torch" in err and "must not run" not in err


def test_missing_lens_is_explained(tmp_path, monkeypatch, capsys):
    def unavailable():
        raise runner.RunError("the torch.compile lens is not available (no torch); install it "
                              "with `pip install dynalens[torch]`")

    monkeypatch.setattr(runner, "_prepare_debug", unavailable)
    script = _script(tmp_path, "pass\n")
    assert cli.main(["run", str(script)]) == 2
    assert "pip install dynalens[torch]" in capsys.readouterr().err


REAL_PROGRAM = '''
import sys
import torch


@torch.compile(backend="eager")
def step(x):
    y = torch.sin(x) * 2
    if y.sum() > 0:  # user line of the graph break
        y = y + 1
    return torch.relu(y)


step(torch.ones(4))
step(torch.ones(4, dtype=torch.float64))  # user line of the recompilation
print("args", sys.argv[1:])
sys.exit(int(sys.argv[1]))
'''


def _section(text, anchor):
    start = text.index('id="%s"' % anchor)
    end = text.find('<details class="compile"', start + 1)
    return text[start:end if end > 0 else len(text)]


@pytest.mark.torch
@pytest.mark.slow
def test_real_run_shows_graph_break_and_recompilation_with_user_lines(tmp_path):
    pytest.importorskip("torch")
    script = _script(tmp_path, REAL_PROGRAM, name="train.py")
    dump = tmp_path / "dump"
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "dynalens", "run", "--dump", str(dump),
                           str(script), "7", "--lr=0.1"],
                          capture_output=True, text=True, env=env, timeout=600, cwd=str(tmp_path))
    assert proc.returncode == 7, proc.stderr[-3000:]
    assert "args ['7', '--lr=0.1']" in proc.stdout
    report = dump / "report.html"
    assert "dynalens: report %s" % report in proc.stderr
    text = report.read_text()
    unescaped = html.unescape(re.sub(r"<[^>]+>", "", text))

    # The graph break: its reason and the user's line, in the landing list.
    breaks = html.unescape(re.sub(r"<[^>]+>", "", text[text.index('id="breaks"'):
                                                      text.index('id="recompiles"')]))
    assert "Data-dependent branching" in breaks
    assert "train.py:9" in breaks
    assert "if y.sum() > 0:  # user line of the graph break" in breaks

    # The recompilation: the failed guard, and the user's call that triggered it. (torch's
    # stack for a compile drops the compiled frame's immediate caller, so the call line shows
    # in the recompiled resume function's section, the frame below `step`.)
    recompiles = html.unescape(re.sub(r"<[^>]+>", "", text[text.index('id="recompiles"'):]))
    assert re.search(r"tensor 'x' dtype mismatch\. expected Float, actual Double", recompiles)
    anchors = re.findall(r'<li class="recompile"><a class="cid" href="#([^"]+)"', text)
    assert len(anchors) == 2  # step and its resume function, each for the float64 call
    sections = [html.unescape(re.sub(r"<[^>]+>", "", _section(text, a))) for a in anchors]
    assert all("Why it recompiled" in s and "dtype mismatch" in s for s in sections)
    assert any("train.py:15" in s and "step(torch.ones(4, dtype=torch.float64))  # user line "
               "of the recompilation" in s for s in sections)
    assert "dynalens/runner.py" not in unescaped  # our own frames are not the user's stack


def test_runner_writes_the_report_when_the_lens_did_not(tmp_path, monkeypatch, capsys):
    @contextlib.contextmanager
    def prepare_debug(dump_dir, report=True):
        yield
        make_dump(dump_dir, functions=1, compiles_per_function=1)  # ...but no report.html

    monkeypatch.setattr(runner, "_prepare_debug", lambda: prepare_debug)
    script = _script(tmp_path, "pass\n")
    assert cli.main(["run", "--dump", str(tmp_path / "d"), str(script)]) == 0
    assert (tmp_path / "d" / "report.html").exists()
    assert "dynalens: report %s" % (tmp_path / "d" / "report.html") in capsys.readouterr().err
