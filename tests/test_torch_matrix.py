"""The torch matrix runner (tools/torch_matrix.py, versionrunner/torchcells.py) and its locks.

Nothing here installs torch: cell selection, lock hashing, the reuse/build/skip decisions and the
verdicts run against fakes; the pip bypass, one venv build (from a wheel made here, offline) and
the pytest step run for real in subprocesses. The locks themselves are checked for what the
matrix promises: every package pinned exactly, torch never loose.
"""

import ast
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

import torch_matrix as tm  # noqa: E402
from versionrunner import discover  # noqa: E402
from versionrunner import torchcells as tc  # noqa: E402

RUNNING = "%d.%d" % sys.version_info[:2]
RUNNING_FULL = "%d.%d.%d" % sys.version_info[:3]


# ---------------------------------------------------------------------------------------------
# Cells and the lock files in the repository


def test_cell_names_carry_torch_and_python():
    assert tc.parse_cell_name("torch-2.15.0-py3.13") == ("2.15.0", "3.13")
    assert tc.parse_cell_name("torch-2.14.1-py3.11") == ("2.14.1", "3.11")
    for bad in ("torch-2.15-py3.13", "torch-2.15.0-py313", "2.15.0-py3.13", "torch-2.15.0"):
        with pytest.raises(ValueError, match="torch-<X.Y.Z>-py<3.N>"):
            tc.parse_cell_name(bad)


def test_the_repository_cells():
    names = [c.name for c in tc.known_cells()]
    assert names[0] == tc.MAIN_CELL == "torch-2.13.0-py3.11"
    assert "torch-2.15.0-py3.13" in names and "torch-2.15.0-py3.11" in names
    main = tc.known_cells()[0]
    assert main.lock is None
    # The README cell is the torch that constraints.txt pins.
    with open(os.path.join(ROOT, "constraints.txt")) as handle:
        assert "torch==%s\n" % main.torch in handle.read()


def _requirement_lines(path):
    with open(path) as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("cell", [c for c in tc.known_cells() if c.lock],
                         ids=lambda c: c.name)
def test_every_lock_pins_every_package_exactly(cell):
    lines = _requirement_lines(cell.lock)
    options = [line for line in lines if line.startswith("-")]
    assert set(o.split()[0].split("=")[0] for o in options) <= {"--only-binary", "--find-links"}
    assert "--only-binary=:all:" in options          # nothing is built from source
    pins = [line for line in lines if not line.startswith("-")]
    assert all(tc.PIN.match(line) and line == tc.PIN.match(line).group(0) for line in pins), \
        [line for line in pins if not tc.PIN.match(line)]
    locked = tc.read_pins(cell.lock)
    assert len(locked) == len(pins)                  # no package twice
    assert locked["torch"] == cell.torch
    for name, version in [("transformers", "5.23.0"), ("debugpy", "1.8.22")]:
        assert locked[name] == version
    for name in ("numpy", "jinja2", "pygments", "tqdm", "pytest", "hypothesis"):
        assert name in locked
    # The .in file's direct pins are what the lock holds, options included.
    source = cell.lock[:-4] + ".in"
    direct = tc.read_pins(source)
    assert direct["torch"] == cell.torch
    assert all(locked[name] == version for name, version in direct.items())
    assert [o for o in _requirement_lines(source) if o.startswith("-")] == options


def test_a_lock_whose_name_and_torch_pin_disagree_is_refused(tmp_path):
    (tmp_path / "torch-2.15.0-py3.13.txt").write_text("torch==2.14.1\n")
    with pytest.raises(ValueError, match="pins torch==2.14.1 but its name says 2.15.0"):
        tc.known_cells(str(tmp_path))
    (tmp_path / "torch-2.15.0-py3.13.txt").write_text("numpy==2.5.5\n")
    with pytest.raises(ValueError, match="pins torch==None"):
        tc.known_cells(str(tmp_path))


def _cells(tmp_path):
    for name in ("torch-2.15.0-py3.13", "torch-2.15.0-py3.11", "torch-2.14.1-py3.11"):
        (tmp_path / (name + ".txt")).write_text("torch==%s\n" % tc.parse_cell_name(name)[0])
    return tc.known_cells(str(tmp_path))


def test_cells_sort_by_torch_then_python(tmp_path):
    assert [c.name for c in _cells(tmp_path)] == [
        "torch-2.13.0-py3.11", "torch-2.14.1-py3.11", "torch-2.15.0-py3.11",
        "torch-2.15.0-py3.13"]


@pytest.mark.parametrize("spec, expected", [
    ("", ["torch-2.13.0-py3.11", "torch-2.14.1-py3.11", "torch-2.15.0-py3.11",
          "torch-2.15.0-py3.13"]),
    ("torch-2.15.0-py3.13", ["torch-2.15.0-py3.13"]),
    ("2.15/3.13", ["torch-2.15.0-py3.13"]),
    ("2.15.0/*", ["torch-2.15.0-py3.11", "torch-2.15.0-py3.13"]),
    ("*/3.11", ["torch-2.13.0-py3.11", "torch-2.14.1-py3.11", "torch-2.15.0-py3.11"]),
    ("2.15/3.13, 2.15/3.11,2.15/3.13", ["torch-2.15.0-py3.13", "torch-2.15.0-py3.11"]),
])
def test_cell_selection(tmp_path, spec, expected):
    assert [c.name for c in tc.select_cells(_cells(tmp_path), spec)] == expected


def test_unknown_cell_names_the_known_ones(tmp_path):
    with pytest.raises(ValueError, match="no cell matches '2.1/3.13'.*torch-2.15.0-py3.13"):
        tc.select_cells(_cells(tmp_path), "2.1/3.13")      # 2.1 is no prefix of 2.15
    with pytest.raises(ValueError, match="no cell matches 'torch-2.16.0-py3.13'"):
        tc.select_cells(_cells(tmp_path), "torch-2.16.0-py3.13")


def test_bad_cells_on_the_command_line_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as caught:
        tm.parse_args(["--cells", "9.9/3.11"])
    assert caught.value.code == 2 and "no cell matches" in capsys.readouterr().err
    args = tm.parse_args(["--cells", "2.15/3.13", "--", "-k", "guards", "-x"])
    assert [c.name for c in args.cells] == ["torch-2.15.0-py3.13"]
    assert args.pytest_args == ["-k", "guards", "-x"]


# ---------------------------------------------------------------------------------------------
# Venv keys and the pip bypass


def test_venv_key_follows_the_lock_and_the_interpreter(tmp_path):
    lock = tmp_path / "lock.txt"
    lock.write_text("torch==2.15.0\n")
    key = tc.venv_key(str(lock), "3.13.0")
    assert len(key) == 12 and int(key, 16) >= 0
    assert tc.venv_key(str(lock), "3.13.0") == key           # stable: reused
    assert tc.venv_key(str(lock), "3.13.1") != key           # a new interpreter release
    lock.write_text("torch==2.15.0\nnumpy==2.5.5\n")
    assert tc.venv_key(str(lock), "3.13.0") != key           # a relock
    cell = tc.Cell("torch-2.15.0-py3.13", "2.15.0", "3.13", str(lock))
    assert tc.venv_dir("/cache", cell, key) == "/cache/torch-2.15.0-py3.13-" + key


def test_venv_root_defaults_to_the_user_cache():
    assert tc.venv_root({"HOME": "/home/u"}) == "/home/u/.cache/dynalens/venvs"
    assert tc.venv_root({"HOME": "/home/u", "XDG_CACHE_HOME": "/c"}) == "/c/dynalens/venvs"
    assert tc.venv_root({"HOME": "/home/u", "DYNALENS_VENV_ROOT": "/v"}) == "/v"


def test_pip_env_bypasses_the_machine_configuration():
    env = tc.pip_env({"PATH": "/bin", "PIP_CONSTRAINT": "/etc/cap.txt", "PYTHONPATH": "/x",
                      "PIP_INDEX_URL": "https://mirror/simple"})
    assert env["PIP_CONFIG_FILE"] == os.devnull
    assert "PIP_CONSTRAINT" not in env and "PYTHONPATH" not in env
    assert env["PIP_INDEX_URL"] == "https://mirror/simple"   # a mirror is no cap: kept


def test_pip_itself_drops_a_global_constraint_under_the_bypass(tmp_path):
    # A site-wide pip.conf like this machine's (/etc/xdg/pip/pip.conf) caps torch; the
    # environment the matrix installs with must leave pip without it.
    (tmp_path / "pip").mkdir()
    (tmp_path / "pip" / "pip.conf").write_text("[global]\nconstraint = /tmp/cap.txt\n")
    base = dict(os.environ, XDG_CONFIG_DIRS=str(tmp_path))
    base.pop("PIP_CONFIG_FILE", None)
    command = [sys.executable, "-m", "pip", "config", "list"]
    capped = subprocess.run(command, env=base, capture_output=True, text=True, timeout=120)
    if capped.returncode != 0 or "constraint" not in capped.stdout:
        pytest.skip("this pip does not read XDG_CONFIG_DIRS: %s" % capped.stderr[-200:])
    bypassed = subprocess.run(command, env=tc.pip_env(base), capture_output=True, text=True,
                              timeout=120)
    assert bypassed.returncode == 0 and "constraint" not in bypassed.stdout


def test_lock_mismatches():
    pins = {"torch": "2.15.0", "typing-extensions": "4.16.0", "pyyaml": "6.0.3"}
    ok = {"torch": "2.15.0", "typing_extensions": "4.16.0", "PyYAML": "6.0.3", "pip": "25.0"}
    assert tc.lock_mismatches(pins, ok) == []
    wrong = {"torch": "2.14.1", "PyYAML": "6.0.3", "sympy": "1.14.0"}
    assert tc.lock_mismatches(pins, wrong) == [
        "torch is 2.14.1, the lock says 2.15.0",
        "typing-extensions==4.16.0 is not installed",
        "sympy==1.14.0 is installed but not in the lock (relock)"]


# ---------------------------------------------------------------------------------------------
# Preparing cells: skip, reuse, build (fakes)


class Args(object):
    def __init__(self, tmp_path, **extra):
        self.venv_root = str(tmp_path / "venvs")
        self.main_venv = str(tmp_path / "dotvenv")
        self.work = str(tmp_path / "work")
        self.pytest_args = []
        self.timeout = 60
        self.build_timeout = 60
        self.strict = False
        self.__dict__.update(extra)


def _locked_cell(tmp_path, name="torch-2.15.0-py3.13"):
    lock = tmp_path / (name + ".txt")
    lock.write_text("torch==%s\n" % tc.parse_cell_name(name)[0])
    torch, python = tc.parse_cell_name(name)
    return tc.Cell(name, torch, python, str(lock))


def _interpreter(version="3.13", full="3.13.0"):
    return discover.Interpreter(version, "native", path="/usr/bin/python" + version,
                                full_version=full)


class Recorder(object):
    """Stand-ins for the interpreter search, the build, the probe and the test step."""

    def __init__(self, torch="2.15.0", interpreter=True, build_error=None):
        self.torch, self.interpreter, self.build_error = torch, interpreter, build_error
        self.builds, self.tests = [], []

    def find_native(self, version):
        return _interpreter(version, version + ".0") if self.interpreter else None

    def build(self, interpreter, lock, target, log_path, timeout):
        self.builds.append(target)
        if self.build_error:
            raise RuntimeError(self.build_error)
        shutil.rmtree(target, ignore_errors=True)        # as build_venv does
        os.makedirs(os.path.join(target, "bin"))
        open(os.path.join(target, tc.MARKER), "w").close()
        return self.probe(os.path.join(target, "bin", "python"))

    def probe(self, python):
        return {"python": "3.13.0", "packages": {"torch": self.torch}}

    def test(self, result, python, work, pytest_args, timeout):
        self.tests.append(python)
        result.returncode = 0
        result.counts = {"passed": 3, "failed": 0, "errors": 0, "skipped": 1}

    def runner(self, args, lines):
        return tm.Runner(args, log=lines.append, find_native=self.find_native,
                         build=self.build, probe=self.probe, test=self.test)


def test_a_missing_python_is_skipped_with_the_reason(tmp_path):
    fake, lines = Recorder(interpreter=False), []
    result = fake.runner(Args(tmp_path), lines).run_cell(_locked_cell(tmp_path))
    assert result.skipped == "no CPython 3.13 found (PATH, pyenv, uv)"
    assert result.verdict().startswith("SKIPPED (no CPython 3.13")
    assert not result.failed and fake.builds == [] and fake.tests == []
    assert any("SKIPPED" in line for line in lines)
    assert tm.exit_status([result]) == 0 and tm.exit_status([result], strict=True) == 1


@pytest.mark.parametrize("strict", [True, False])
def test_the_command_line_shows_a_missing_python_as_skipped(tmp_path, strict):
    # No pyenv or uv under this HOME, nothing on PATH: only the running interpreter is found,
    # so a cell of another Python has none.
    other = "3.13" if RUNNING != "3.13" else "3.11"
    env = dict(os.environ, HOME=str(tmp_path), PATH=str(tmp_path / "nothing"))
    for name in ("PYENV_ROOT", "UV_PYTHON_INSTALL_DIR", "DYNALENS_VENV_ROOT", "XDG_CACHE_HOME"):
        env.pop(name, None)
    command = [sys.executable, os.path.join(TOOLS, "torch_matrix.py"), "--cells",
               "2.15/" + other, "--work", str(tmp_path / "work")] + (["--strict"] if strict else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    reason = "SKIPPED (no CPython %s found (PATH, pyenv, uv))" % other
    assert reason in done.stdout and "1 cells, 0 failed, 1 skipped" in done.stdout, done.stderr
    assert done.returncode == (1 if strict else 0)
    assert ("--strict: a skipped cell fails the run" in done.stdout) == strict
    assert not (tmp_path / ".cache").exists()            # nothing was built


def test_a_venv_is_built_once_then_reused(tmp_path):
    fake, lines = Recorder(), []
    args = Args(tmp_path)
    cell = _locked_cell(tmp_path)
    first = fake.runner(args, lines).run_cell(cell)
    assert first.venv_state.startswith("built in") and first.verdict() == "ok"
    expected = tc.venv_dir(args.venv_root, cell, tc.venv_key(cell.lock, "3.13.0"))
    assert fake.builds == [expected] and first.venv == expected
    second = fake.runner(args, lines).run_cell(cell)
    assert second.venv_state == "reused" and len(fake.builds) == 1
    assert fake.tests == [os.path.join(expected, "bin", "python")] * 2


def test_a_build_cut_short_is_redone_and_a_relock_replaces_the_old_venv(tmp_path):
    fake, lines = Recorder(), []
    args = Args(tmp_path)
    cell = _locked_cell(tmp_path)
    half = tc.venv_dir(args.venv_root, cell, tc.venv_key(cell.lock, "3.13.0"))
    os.makedirs(os.path.join(half, "bin"))               # no marker: an interrupted build
    other_cell = os.path.join(args.venv_root, "torch-2.15.0-py3.11-" + "0" * 12)
    os.makedirs(other_cell)
    result = fake.runner(args, lines).run_cell(cell)
    assert result.venv_state.startswith("built") and fake.builds == [half]
    # A new lock: a new venv; the stale one of this cell is removed, other cells' are kept.
    with open(cell.lock, "a") as handle:
        handle.write("numpy==2.5.5\n")
    result = fake.runner(args, lines).run_cell(cell)
    assert result.venv_state.startswith("built") and result.venv != half
    assert not os.path.exists(half) and os.path.isdir(other_cell)
    assert any("removed the stale venv" in line for line in lines)


def test_a_failed_build_fails_the_cell(tmp_path):
    fake, lines = Recorder(build_error="pip install -r x failed (exit 1)"), []
    result = fake.runner(Args(tmp_path), lines).run_cell(_locked_cell(tmp_path))
    assert result.failed and result.verdict() == "FAILED (pip install -r x failed (exit 1))"
    assert fake.tests == [] and tm.exit_status([result]) == 1


def test_a_venv_with_another_torch_fails_the_cell(tmp_path):
    fake, lines = Recorder(torch="2.14.1"), []
    result = fake.runner(Args(tmp_path), lines).run_cell(_locked_cell(tmp_path))
    assert result.failed and "holds torch 2.14.1, not 2.15.0" in result.error
    assert fake.tests == []


def test_the_readme_cell_uses_dot_venv_or_is_skipped(tmp_path):
    main = tc.Cell(tc.MAIN_CELL, "2.13.0", "3.11")
    fake, lines = Recorder(torch="2.13.0+cpu"), []
    args = Args(tmp_path)
    result = fake.runner(args, lines).run_cell(main)
    assert result.skipped and "README command (b)" in result.skipped
    os.makedirs(os.path.join(args.main_venv, "bin"))
    open(os.path.join(args.main_venv, "bin", "python"), "w").close()
    result = fake.runner(args, lines).run_cell(main)
    assert result.verdict() == "ok" and result.venv_state == "README .venv"
    assert fake.builds == []                             # never built or changed here


def test_failing_or_empty_test_runs_fail_the_cell():
    result = tm.CellResult(tc.Cell("torch-2.15.0-py3.13", "2.15.0", "3.13", "x"))
    result.returncode, result.counts = 1, {"passed": 5, "failed": 1, "errors": 0, "skipped": 0}
    assert result.failed
    result.returncode, result.counts = 5, {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    assert result.failed                                 # nothing collected is no pass
    result.returncode, result.counts = 0, {"passed": 0, "failed": 0, "errors": 0, "skipped": 9}
    assert not result.failed


def test_table_and_summary(tmp_path):
    ok = tm.CellResult(tc.Cell("torch-2.15.0-py3.13", "2.15.0", "3.13", "x"))
    ok.interpreter, ok.venv_state, ok.returncode, ok.seconds = "3.13.0", "reused", 0, 61.4
    ok.counts = {"passed": 50, "failed": 0, "errors": 0, "skipped": 2}
    skipped = tm.CellResult(tc.Cell("torch-2.15.0-py3.11", "2.15.0", "3.11", "y"),
                            skipped="no CPython 3.11 found (PATH, pyenv, uv)")
    lines = tm.table([ok, skipped]).splitlines()
    assert lines[0].split() == ["cell", "python", "venv", "passed", "failed", "errors",
                                "skipped", "seconds", "result"]
    assert lines[1].split() == ["torch-2.15.0-py3.13", "3.13.0", "reused", "50", "0", "0", "2",
                                "61", "ok"]
    assert lines[2].startswith("torch-2.15.0-py3.11") and \
        lines[2].endswith("SKIPPED (no CPython 3.11 found (PATH, pyenv, uv))")


# ---------------------------------------------------------------------------------------------
# The real steps: a venv from a lock (offline), pytest's report


def _wheel(folder, name, version, requires=()):
    """A minimal pure-Python wheel, so a real install needs no network."""
    dist = "%s-%s.dist-info" % (name, version)
    files = {
        "%s.py" % name: "VALUE = %r\n" % version,
        dist + "/METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s" % (
            name, version, "".join("Requires-Dist: %s\n" % r for r in requires)),
        dist + "/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append("%s,sha256=%s,%d" % (path, digest.decode(), len(text.encode())))
    record.append(dist + "/RECORD,,")
    path = os.path.join(str(folder), "%s-%s-py3-none-any.whl" % (name, version))
    with zipfile.ZipFile(path, "w") as archive:
        for name_in, text in files.items():
            archive.writestr(name_in, text)
        archive.writestr(dist + "/RECORD", "\n".join(record) + "\n")
    return path


@pytest.mark.slow
def test_build_venv_installs_exactly_the_lock(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "torch", "2.15.0")                   # a stand-in named like the real one
    lock = tmp_path / ("torch-2.15.0-py%s.txt" % RUNNING)
    lock.write_text("--no-index\n--only-binary=:all:\n--find-links %s\n--find-links %s\n"
                    "torch==2.15.0\n" % (wheels, tmp_path / "absent"))
    interpreter = _interpreter(RUNNING, RUNNING_FULL)
    interpreter.path = getattr(sys, "_base_executable", sys.executable)
    target = str(tmp_path / "venvs" / "cell-0123456789ab")
    log_path = str(tmp_path / "build.log")
    info = tc.build_venv(interpreter, str(lock), target, log_path, timeout=300)
    assert info["packages"].get("torch") == "2.15.0" and info["python"] == RUNNING_FULL
    assert os.path.exists(os.path.join(target, tc.MARKER))
    # A lock the venv cannot satisfy leaves no marker behind.
    lock.write_text("--no-index\n--find-links %s\ntorch==2.15.1\n" % wheels)
    with pytest.raises(RuntimeError, match="pip install -r .* failed"):
        tc.build_venv(interpreter, str(lock), target, log_path, timeout=300)
    assert not os.path.exists(os.path.join(target, tc.MARKER))


@pytest.mark.slow
def test_relock_pins_what_the_direct_pins_pull_in(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "torch", "2.15.0", requires=["torchdep>=1"])
    _wheel(wheels, "torchdep", "1.2.0")
    _wheel(wheels, "torchdep", "1.3.0")
    locks = tmp_path / "locks"
    locks.mkdir()
    cell = "torch-2.15.0-py%s" % RUNNING
    (locks / (cell + ".in")).write_text(
        "# direct pins\n--no-index\n--only-binary=:all:\n--find-links %s\ntorch==2.15.0\n" % wheels)
    interpreter = _interpreter(RUNNING, RUNNING_FULL)
    interpreter.path = getattr(sys, "_base_executable", sys.executable)
    target = tc.relock(cell, interpreter, log=print, timeout=300, locks_dir=str(locks))
    lines = _requirement_lines(target)
    assert lines[:3] == ["--no-index", "--only-binary=:all:", "--find-links %s" % wheels]
    pins = tc.read_pins(target)
    assert pins["torch"] == "2.15.0" and pins["torchdep"] == "1.3.0"    # the newest, pinned
    assert "pip" not in pins
    with open(target) as handle:
        assert handle.readline().startswith("# Generated by `python tools/torch_matrix.py "
                                            "--relock %s`" % cell)
    assert [c.name for c in tc.known_cells(str(locks))][1:] == [cell]


def test_pytest_ids_come_back_in_the_form_pytest_takes(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    root = str(tmp_path)
    assert tm.pytest_id("tests.test_x", "test_a[b.c]", root) == "tests/test_x.py::test_a[b.c]"
    assert tm.pytest_id("tests.test_x.TestY", "test_z", root) == "tests/test_x.py::TestY::test_z"
    assert tm.pytest_id("elsewhere.test_q", "test_r", root) == "elsewhere.test_q::test_r"


def test_run_tests_counts_what_pytest_reports(tmp_path):
    tests = tmp_path / "test_cell.py"
    tests.write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.torch
        def test_passes():
            pass

        @pytest.mark.torch
        def test_fails():
            assert 1 == 2, "one is not two"

        @pytest.mark.torch
        def test_skips():
            pytest.skip("no torch here")

        def test_not_a_lens_test():
            raise AssertionError("deselected by -m torch")
    """))
    result = tm.CellResult(tc.Cell("torch-2.15.0-py3.13", "2.15.0", "3.13", "x"))
    tm.run_tests(result, sys.executable, str(tmp_path / "work"),
                 [str(tests), "-p", "no:randomly", "-W", "ignore::pytest.PytestUnknownMarkWarning"],
                 timeout=300)
    assert result.counts == {"passed": 1, "failed": 1, "errors": 0, "skipped": 1}
    assert result.returncode == 1 and result.failed
    assert len(result.failures) == 1
    test_id, message = result.failures[0]
    assert test_id.endswith("::test_fails") and "one is not two" in message


def test_junit_report_missing_is_no_result(tmp_path):
    assert tm.junit_counts(str(tmp_path / "absent.xml")) == (None, [])


# ---------------------------------------------------------------------------------------------
# The matrix selects the lens tests by marker: every test that needs torch must carry it.


def _calls_importorskip_torch(node):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and getattr(sub.func, "attr", None) == "importorskip" \
                and sub.args and isinstance(sub.args[0], ast.Constant) \
                and sub.args[0].value == "torch":
            return True
    return False


def _has_torch_mark(expr):
    return any(isinstance(sub, ast.Attribute) and sub.attr == "torch"
               and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark"
               for sub in ast.walk(expr))


def test_every_test_that_needs_torch_is_marked_torch():
    unmarked = []
    folder = os.path.join(ROOT, "tests")
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("test_") and name.endswith(".py")):
            continue
        with open(os.path.join(folder, name)) as handle:
            tree = ast.parse(handle.read())
        module_marked = any(isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "pytestmark" for t in node.targets)
            and _has_torch_mark(node.value) for node in tree.body)
        module_needs = any(not isinstance(node, (ast.FunctionDef, ast.ClassDef))
                           and _calls_importorskip_torch(node) for node in tree.body)
        if module_needs and not module_marked:
            unmarked.append(name)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") \
                    and _calls_importorskip_torch(node) and not module_marked \
                    and not any(_has_torch_mark(d) for d in node.decorator_list):
                unmarked.append("%s::%s" % (name, node.name))
    assert unmarked == []
