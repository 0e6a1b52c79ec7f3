"""`python -m dynalens decompile` as a user runs it: a .py file with --verify, module:qualname,
a .pyc, and the exit status of each kind of failure."""

import os
import py_compile
import subprocess
import sys
import textwrap

import pytest

from dynalens import cli

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

SOURCE = textwrap.dedent('''
    def greet(name, punctuation="!"):
        if not name:
            return "nobody" + punctuation
        return "hello " + name + punctuation

    class Counter:
        def __init__(self):
            self.count = 0

        def bump(self, by=1):
            self.count += by
            return self.count
''')


def run_cli(*args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "dynalens", "decompile"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env, cwd=cwd, timeout=120)


@pytest.fixture
def sample_py(tmp_path):
    path = tmp_path / "cli_sample.py"
    path.write_text(SOURCE)
    return path


def test_py_file_with_verify(sample_py):
    result = run_cli(str(sample_py), "--verify")
    assert result.returncode == 0, result.stderr
    compile(result.stdout, "<output>", "exec")  # stdout is only the source
    assert "def greet" in result.stdout and "class Counter" in result.stdout
    assert "exact      <module>" in result.stderr
    assert "exact      Counter.bump" in result.stderr or "exact      bump" in result.stderr
    assert "5 of 5 code objects exact" in result.stderr


def test_module_qualname_target(sample_py):
    result = run_cli("cli_sample:Counter.bump", "--verify", "--indent", "2",
                     cwd=str(sample_py.parent))
    assert result.returncode == 0, result.stderr
    assert "def bump" in result.stdout
    assert "\n  " in result.stdout  # two-space indentation
    assert "1 of 1 code objects exact" in result.stderr


def test_pyc_target(sample_py, tmp_path):
    pyc = tmp_path / "compiled.pyc"
    py_compile.compile(str(sample_py), cfile=str(pyc), doraise=True)
    result = run_cli(str(pyc))
    assert result.returncode == 0, result.stderr
    assert "def greet" in result.stdout and result.stderr == ""


def test_pyc_of_another_version_exits_1_naming_both(sample_py, tmp_path):
    pyc = tmp_path / "old.pyc"
    py_compile.compile(str(sample_py), cfile=str(pyc), doraise=True)
    data = pyc.read_bytes()
    other, version = (3413, "3.8") if sys.version_info[:2] != (3, 8) else (3495, "3.11")
    pyc.write_bytes(other.to_bytes(2, "little") + data[2:])
    result = run_cli(str(pyc))
    assert result.returncode == 1
    assert "Python %s" % version in result.stderr
    assert "this is Python %d.%d" % sys.version_info[:2] in result.stderr


@pytest.mark.parametrize("target, message", [
    ("no_such_module_xyz:f", "cannot import module"),
    ("json:no_such_attribute", "has no attribute"),
    ("missing_file.py", "no such file"),
    ("just-a-word", "TARGET must be"),
    ("json.decoder:JSONDecoder.<locals>.f", "enclosing function"),
    ("sys:version", "accepted"),
])
def test_bad_targets_exit_2_with_one_clear_line(target, message, capsys):
    # In-process: the same main() the script runs, without a subprocess per case.
    status = cli.main(["decompile", target])
    captured = capsys.readouterr()
    assert status == 2
    assert message in captured.err
    assert captured.err.startswith("dynalens decompile: error:")
    assert captured.out == ""


def test_verify_failure_exits_1(capsys, monkeypatch):
    # A core that returns valid but wrong source: --verify must notice and fail the run.
    import types
    fake = types.ModuleType("dynalens.decompiler.render")
    fake.decompile_code = lambda code, indent="    ", temp_prefix="__temp_", name=None, **_: (
        "def %s():\n%sreturn 'wrong'\n" % (name or code.co_name, indent))
    monkeypatch.setitem(sys.modules, "dynalens.decompiler.render", fake)
    status = cli.main(["decompile", "json:dumps", "--verify"])
    captured = capsys.readouterr()
    assert status == 1
    assert "DIFFERENT  dumps: first difference" in captured.err
    assert "0 of 1 code objects exact" in captured.err


def test_subcommand_is_required_and_help_lists_decompile(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "decompile" in capsys.readouterr().out


def test_marked_output_is_reported_and_strict_fails(capsys, monkeypatch, tmp_path):
    # A core whose output for one function does not verify: the output carries the marker
    # and stderr says so (exit 0); --strict prints nothing and exits 1.
    from dynalens.decompiler import render
    path = tmp_path / "marked.py"
    path.write_text("def f(a):\n    return a + 1\n\ndef g():\n    return 2\n")
    original = render.unparse

    def wrong_unparse(stmts):
        return original(stmts).replace("a + 1", "a - 1")

    monkeypatch.setattr(render, "unparse", wrong_unparse)
    assert cli.main(["decompile", str(path)]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    at = lines.index("def f(a):")
    assert lines[at - 1].startswith("# dynalens: not exact: in f at instruction")
    assert "dynalens: 1 not exact, 0 could not be decompiled" in captured.err
    assert cli.main(["decompile", str(path), "--strict"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "exactly (--strict)" in captured.err


def test_directory_target_decompiles_each_pyc_in_it(tmp_path, capsys):
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    for rel, body in (("a.py", "def first(x):\n    return x + 1\n"),
                      ("sub/b.py", "def second(y):\n    return [y] * 2\n")):
        src = folder / rel
        src.write_text(body)
        py_compile.compile(str(src), cfile=str(src) + "c", doraise=True)
    status = cli.main(["decompile", str(folder), "--verify"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.out.index("# ==== %s" % (folder / "a.pyc")) < captured.out.index(
        "def first(x):") < captured.out.index("# ==== %s" % (folder / "sub" / "b.pyc")) \
        < captured.out.index("def second(y):")
    assert "no such file" not in captured.err
    assert captured.err.count("exact      first") == 1


def test_directory_target_without_python_files_says_what_is_accepted(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    status = cli.main(["decompile", str(tmp_path)])
    captured = capsys.readouterr()
    assert status == 2
    assert "is a directory with no .pyc or .py files" in captured.err
    assert "no such file" not in captured.err


def test_directory_target_reports_a_bad_file_and_goes_on(tmp_path, capsys):
    (tmp_path / "a_broken.pyc").write_bytes(b"not bytecode at all")
    good = tmp_path / "b_good.py"
    good.write_text("def fine():\n    return 1\n")
    py_compile.compile(str(good), cfile=str(tmp_path / "b_good.pyc"), doraise=True)
    status = cli.main(["decompile", str(tmp_path)])
    captured = capsys.readouterr()
    assert status == 1
    assert "cannot decompile %s" % (tmp_path / "a_broken.pyc") in captured.err
    assert "def fine():" in captured.out
