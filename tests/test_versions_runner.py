"""The multi-version runner (tools/pyversions.py and friends) and the version guard.

Discovery, Pyodide installation and the verdict rules are tested with fakes (no network, no
other interpreters needed); the construct-test script runs for real in a subprocess against a
stand-in decompiler whose behaviour we choose, so its pass/fail/skip accounting is checked
without depending on how far the real decompiler has come. Where other real interpreters or an
installed Pyodide release exist on the machine, a few tests also use them.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

import corpus_check  # noqa: E402
import pyversions  # noqa: E402
from versionrunner import discover, jobs, pyodide, report  # noqa: E402

from dynalens import _version_guard as guard  # noqa: E402
from dynalens.decompiler.errors import DecompilationError  # noqa: E402

RUNNING = "%d.%d" % sys.version_info[:2]


# ---------------------------------------------------------------------------------------------
# Version guard


def test_running_python_is_accepted():
    guard.check_running_python()


@pytest.mark.parametrize("info, shown", [
    ((3, 7, 16, "final", 0), "3.7.16"),
    ((3, 16, 0, "alpha", 1), "3.16.0a1"),
    ((2, 7, 18, "final", 0), "2.7.18"),
])
def test_unsupported_python_is_refused_with_both_versions_named(info, shown):
    with pytest.raises(RuntimeError) as caught:
        guard.check_running_python(info, "cpython")
    message = str(caught.value)
    assert shown in message and "3.8 to 3.15" in message


def test_other_implementations_are_refused():
    with pytest.raises(RuntimeError, match="pypy 3.10.14"):
        guard.check_running_python((3, 10, 14, "final", 0), "pypy")


def test_edges_of_the_range_are_accepted():
    guard.check_running_python((3, 8, 0, "final", 0), "cpython")
    guard.check_running_python((3, 15, 0, "candidate", 1), "cpython")


def test_running_magic_maps_to_running_version():
    assert guard.python_version_for_magic(importlib.util.MAGIC_NUMBER) == RUNNING


@pytest.mark.parametrize("header, version", [
    (b"3\r\r\n", "3.6"), (b"B\r\r\n", "3.7"), (b"U\r\r\n", "3.8"), (b"a\r\r\n", "3.9"),
    (b"o\r\r\n", "3.10"), (b"\xa7\r\r\n", "3.11"), (b"\xcb\r\r\n", "3.12"),
    (b"\xf3\r\r\n", "3.13"), (b"+\x0e\r\n", "3.14"), (b"R\x0e\r\n", "3.15"),
])
def test_magic_numbers_read_off_real_interpreters(header, version):
    # The MAGIC_NUMBER bytes of CPython 3.6.15 ... 3.13.0 and Pyodide's 3.14.2 / 3.15.0rc1.
    assert guard.python_version_for_magic(header) == version
    assert guard.magic_number(header) == guard.FINAL_MAGIC[version]


def test_pre_release_magic_numbers_belong_to_their_release():
    assert guard.python_version_for_magic((3450).to_bytes(2, "little") + b"\r\n") == "3.11"
    assert guard.python_version_for_magic((3609).to_bytes(2, "little") + b"\r\n") == "3.14"
    assert guard.python_version_for_magic((3656).to_bytes(2, "little") + b"\r\n") == "3.15"


def test_unknown_or_malformed_magic_gives_none():
    assert guard.python_version_for_magic((3700).to_bytes(2, "little") + b"\r\n") is None
    assert guard.python_version_for_magic((3440).to_bytes(2, "little") + b"\r\n") is None
    assert guard.python_version_for_magic(b"\xcb\rXY") is None  # not \r\n: not a .pyc
    assert guard.python_version_for_magic(b"\xcb\r") == "3.12"  # 2 bytes: number only


def test_magic_argument_errors_are_clear():
    with pytest.raises(TypeError, match="needs bytes"):
        guard.python_version_for_magic("abcd")
    with pytest.raises(ValueError, match="4-byte magic"):
        guard.python_version_for_magic(b"\x01")


def test_pyc_of_another_version_names_both_versions():
    header_312 = b"\xcb\r\r\n" + bytes(12)
    with pytest.raises(guard.PycVersionError) as caught:
        guard.check_pyc_magic(header_312, path="m.pyc", running_magic=b"\xf3\r\r\n")
    error = caught.value
    assert isinstance(error, DecompilationError) and isinstance(error, ValueError)
    assert "m.pyc" in str(error) and "Python 3.12" in str(error) and "Python 3.13" in str(error)
    guard.check_pyc_magic(b"\xf3\r\r\n" + bytes(12), running_magic=b"\xf3\r\r\n")


def test_pyc_with_unknown_or_pre_release_magic():
    with pytest.raises(guard.PycVersionError, match="not a CPython 3.6-3.15 .pyc"):
        guard.check_pyc_magic(b"\x00\x00\r\n" + bytes(12), running_magic=b"\xf3\r\r\n")
    with pytest.raises(guard.PycVersionError, match="pre-release of Python 3.13"):
        guard.check_pyc_magic((3560).to_bytes(2, "little") + b"\r\n" + bytes(12),
                              running_magic=b"\xf3\r\r\n")
    with pytest.raises(guard.PycVersionError, match=r"Python 3.6 bytecode is not supported"):
        guard.check_pyc_magic((3379).to_bytes(2, "little") + b"\r\n" + bytes(12),
                              running_magic=b"\xf3\r\r\n")
    with pytest.raises(guard.PycVersionError, match="too short"):
        guard.check_pyc_magic(b"\xf3", running_magic=b"\xf3\r\r\n")


# ---------------------------------------------------------------------------------------------
# corpus_check.py against a stand-in decompiler


def _fake_dynalens(root, api_body=None):
    """A dynalens package with the real errors.py/verify.py and an api.py we write."""
    package = os.path.join(str(root), "dynalens")
    decompiler = os.path.join(package, "decompiler")
    os.makedirs(decompiler)
    open(os.path.join(package, "__init__.py"), "w").close()
    open(os.path.join(decompiler, "__init__.py"), "w").close()
    real = os.path.join(ROOT, "src", "dynalens", "decompiler")
    for name in ("errors.py", "comparison_keys.py", "verify.py"):
        shutil.copyfile(os.path.join(real, name), os.path.join(decompiler, name))
    if api_body is not None:
        with open(os.path.join(decompiler, "api.py"), "w") as handle:
            handle.write(textwrap.dedent(api_body))
    return str(root)


# The stand-in "decompiles" by handing back the file's true source, except for a few names.
_STAND_IN = """
    from .errors import DecompilationError

    def decompile(code):
        if code.co_name == "broken":
            raise DecompilationError("no template", code=code, offset=4, opname="SEND")
        if code.co_name == "crashy":
            raise KeyError("oops")
        with open(code.co_filename) as handle:
            return handle.read()
"""

_CORPUS = {
    "good.py": """
        def f(a, *b, c=1, **d):
            return [x for x in b if x] or a

        class C:
            def m(self):
                return lambda y: y + 1
    """,
    "bad.py": """
        def fine():
            return 1

        def broken():
            return 2

        def crashy():
            return 3
    """,
    "future.py": """
        # A construct from a Python that does not exist yet.
        # min-python: 3.99
        x = 1
    """,
}


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in _CORPUS.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return str(folder)


def _run_corpus_check(python, src, corpus_dir, json_path, *extra):
    return subprocess.run(
        [python, os.path.join(TOOLS, "corpus_check.py"), "--src", src, "--corpus", corpus_dir,
         "--json", json_path] + list(extra),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)


def test_corpus_check_counts_pass_fail_skip(tmp_path, corpus):
    src = _fake_dynalens(tmp_path / "fake", _STAND_IN)
    out = _run_corpus_check(sys.executable, src, corpus, str(tmp_path / "r.json"))
    assert out.returncode == 1, out.stdout
    lines = out.stdout.splitlines()
    assert lines[-1] == "corpus: 1 passed, 1 failed, 1 skipped"
    assert "PASS good.py (6 code objects)" in lines  # module, f, listcomp-or-not, C, m, lambda
    assert "SKIP future.py (needs Python 3.99+)" in lines
    assert any(line.startswith("FAIL bad.py (2 of 4 code objects not exact)") for line in lines)
    data = json.loads((tmp_path / "r.json").read_text())
    assert (data["passed"], data["failed"], data["skipped"]) == (1, 1, 1)
    assert data["causes"] == {"DecompilationError at SEND": 1, "KeyError": 1}
    bad = [f for f in data["files"] if f["name"] == "bad.py"][0]
    assert sorted(f["qualname"] for f in bad["failures"]) == ["broken", "crashy"]


def test_corpus_check_good_count_matches_code_objects(tmp_path, corpus):
    # The PASS line counts the module and every nested code object of the running version.
    src = _fake_dynalens(tmp_path / "fake", _STAND_IN)
    out = _run_corpus_check(sys.executable, src, corpus, str(tmp_path / "r.json"), "good.py")
    module = compile(textwrap.dedent(_CORPUS["good.py"]).lstrip(), "good.py", "exec")
    expected = 1 + len(list(corpus_check.nested_code_objects(module)))
    assert out.returncode == 0, out.stdout
    assert "PASS good.py (%d code objects)" % expected in out.stdout
    assert out.stdout.splitlines()[-1] == "corpus: 1 passed, 0 failed, 0 skipped"


def test_corpus_check_reports_a_decompiler_that_cannot_be_imported(tmp_path, corpus):
    src = _fake_dynalens(tmp_path / "fake", api_body=None)  # no api.py at all
    out = _run_corpus_check(sys.executable, src, corpus, str(tmp_path / "r.json"))
    assert out.returncode == 2
    assert "cannot import the decompiler on Python %s" % sys.version.split()[0] in out.stdout
    assert not (tmp_path / "r.json").exists()


def test_corpus_check_flags_corpus_files_that_do_not_compile(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "oops.py").write_text("def f(:\n    pass\n")
    src = _fake_dynalens(tmp_path / "fake", _STAND_IN)
    out = _run_corpus_check(sys.executable, src, str(folder), str(tmp_path / "r.json"))
    assert out.returncode == 1
    assert "add a '# min-python:' line" in out.stdout


def test_version_headers():
    assert corpus_check.version_bounds("# min-python: 3.10\nx = 1\n") == ((3, 10), None)
    assert corpus_check.version_bounds("#!x\n\n# max-python: 3.11\n# min-python: 3.9\n") == \
        ((3, 9), (3, 11))
    assert corpus_check.version_bounds("x = 1\n# min-python: 3.12\n") == (None, None)
    assert corpus_check.skip_reason("# min-python: 3.10\n", (3, 9)) == "needs Python 3.10+"
    assert corpus_check.skip_reason("# min-python: 3.10\n", (3, 10)) is None
    assert corpus_check.skip_reason("# max-python: 3.11\n", (3, 12)) == \
        "needs Python 3.11 or older"


@pytest.mark.parametrize("kind, detail, cause", [
    ("not_exact", "first difference: in f at instruction #3: expected LOAD_FAST 'a', got "
                  "LOAD_GLOBAL 'a'", "expected LOAD_FAST, got LOAD_GLOBAL"),
    ("not_exact", "source does not compile: SyntaxError: invalid syntax (line 3)",
     "output does not compile"),
    ("not_exact", "first difference: in f: expected co_varnames ('a',), got ('b',)",
     "co_varnames"),
    ("decompile_error", "no template [in f (x.py:1), at offset 4, opcode SEND]",
     "DecompilationError at SEND"),
    ("exception", "KeyError: 'x'", "KeyError"),
    ("decompile_error", "internal error: AttributeError: module 'ast' has no attribute 'unparse' "
                        "[in f (x.py:1)]",
     "DecompilationError: internal error: AttributeError: module 'ast' has no attribute 'unparse"),
])
def test_failure_causes_group_without_names(kind, detail, cause):
    assert corpus_check.cause_of(kind, detail) == cause


def _other_native_version():
    for version in ("3.8", "3.9", "3.10", "3.12", "3.13"):
        if version != RUNNING:
            found = discover.find_native(version)
            if found is not None:
                return found
    return None


def test_corpus_check_runs_on_another_real_interpreter(tmp_path, corpus):
    # The script must stay 3.8-compatible: run it on the oldest other native CPython here.
    other = _other_native_version()
    if other is None:
        pytest.skip("no second native CPython on this machine")
    src = _fake_dynalens(tmp_path / "fake", _STAND_IN)
    out = _run_corpus_check(other.path, src, corpus, str(tmp_path / "r.json"))
    assert out.stdout.splitlines()[-1] == "corpus: 1 passed, 1 failed, 1 skipped", out.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["python"].startswith(other.version + ".")


# ---------------------------------------------------------------------------------------------
# Discovery


def test_parse_versions():
    assert discover.parse_versions("3.14,3.8") == ["3.8", "3.14"]
    assert discover.parse_versions("3.10-3.12") == ["3.10", "3.11", "3.12"]
    assert discover.parse_versions(",".join(discover.VERSIONS)) == discover.VERSIONS
    with pytest.raises(ValueError, match="unsupported version '3.7'"):
        discover.parse_versions("3.7")
    with pytest.raises(ValueError, match="no supported version"):
        discover.parse_versions("3.1-3.5")


def _fake_install(root, name, binary):
    path = os.path.join(str(root), name, "bin", binary)
    os.makedirs(os.path.dirname(path))
    open(path, "w").close()
    return path


def test_candidates_come_from_path_pyenv_and_uv_newest_first(tmp_path):
    pyenv = tmp_path / "pyenv"
    old = _fake_install(pyenv / "versions", "3.12.1", "python3.12")
    new = _fake_install(pyenv / "versions", "3.12.10", "python3.12")
    rc = _fake_install(pyenv / "versions", "3.12.0rc1", "python3.12")
    _fake_install(pyenv / "versions", "3.13.0t", "python3.13")  # free-threaded: not ours
    _fake_install(pyenv / "versions", "3.13.1", "python3.13")
    uv = _fake_install(tmp_path / "uv", "cpython-3.12.4-linux-x86_64-gnu", "python3.12")
    path_dir = tmp_path / "bin"
    path_dir.mkdir()
    on_path = path_dir / "python3.12"
    on_path.write_text("")
    on_path.chmod(0o755)
    env = {"PYENV_ROOT": str(pyenv), "UV_PYTHON_INSTALL_DIR": str(tmp_path / "uv"),
           "HOME": str(tmp_path), "PATH": str(path_dir)}
    found = discover.candidate_paths("3.12", env=env, own_executable="/own/python")
    assert found == [str(on_path), new, old, rc, uv, "/own/python"]
    found_13 = discover.candidate_paths("3.13", env=env, own_executable="")
    assert [os.path.basename(os.path.dirname(os.path.dirname(p))) for p in found_13] == ["3.13.1"]


def test_find_native_probes_until_a_real_cpython_of_that_version():
    answers = {
        "/shim/python3.12": None,  # a pyenv shim for a version that is not selected
        "/pypy/python3.12": ("pypy", "3.12.0", "final", "0", "/pypy/python3.12"),
        "/wrong/python3.12": ("cpython", "3.11.7", "final", "0", "/wrong/python3.12"),
        "/good/python3.12": ("cpython", "3.12.1", "final", "0", "/real/bin/python3.12"),
    }
    env = {"PATH": "", "HOME": "/nonexistent"}
    order = list(answers)

    def candidates(version, **kw):
        return order

    original = discover.candidate_paths
    discover.candidate_paths = candidates
    try:
        found = discover.find_native("3.12", env=env, prober=answers.get)
    finally:
        discover.candidate_paths = original
    assert found.path == "/real/bin/python3.12" and found.full_version == "3.12.1"
    assert found.label() == "/real/bin/python3.12"


def test_explicit_interpreter_is_the_only_candidate():
    prober = {"/mine": ("cpython", "3.11.2", "final", "0", "/mine")}.get
    assert discover.find_native("3.12", explicit="/mine", prober=prober) is None
    assert discover.find_native("3.11", explicit="/mine", prober=prober).path == "/mine"


def test_release_candidate_version_text():
    prober = {"/rc": ("cpython", "3.15.0rc1", "candidate", "1", "/rc")}.get
    assert discover.find_native("3.15", explicit="/rc", prober=prober).full_version == "3.15.0rc1"


def test_real_discovery_finds_the_running_version():
    found = discover.find_native(RUNNING)
    assert found is not None and found.full_version.startswith(RUNNING + ".")
    info = discover.probe(found.path)
    assert info[0] == "cpython"


def test_labels_shorten_home():
    native = discover.Interpreter("3.12", "native", path="/home/u/.pyenv/bin/python3.12")
    assert native.label(home="/home/u") == "~/.pyenv/bin/python3.12"
    wasm = discover.Interpreter("3.14", "pyodide", path="/x", full_version="3.14.2",
                                release="314.0.7")
    assert wasm.label() == "pyodide 314.0.7 (3.14.2)"


# ---------------------------------------------------------------------------------------------
# Pyodide pins and installation


def test_every_pyodide_release_is_pinned_by_a_lock_file():
    assert sorted(pyodide.RELEASES, key=discover.version_key) == discover.VERSIONS[2:]
    for version, (release, python) in pyodide.RELEASES.items():
        assert python.startswith(version + ".")
        folder = os.path.join(pyodide.LOCKS, release)
        with open(os.path.join(folder, "package.json")) as handle:
            assert json.load(handle)["dependencies"] == {"pyodide": release}
        with open(os.path.join(folder, "package-lock.json")) as handle:
            lock = json.load(handle)
        entry = lock["packages"]["node_modules/pyodide"]
        assert entry["version"] == release and entry["integrity"].startswith("sha512-")


class _Completed(object):
    def __init__(self, returncode=0, stdout=""):
        self.returncode = returncode
        self.stdout = stdout


def test_install_runs_npm_ci_on_the_pinned_lock(tmp_path):
    calls = []

    def fake_run(argv, **kw):
        calls.append(argv)
        target = argv[argv.index("--prefix") + 1]
        dist = os.path.join(target, "node_modules", "pyodide")
        os.makedirs(dist)
        with open(os.path.join(dist, "package.json"), "w") as handle:
            json.dump({"version": "314.0.7"}, handle)
        open(os.path.join(dist, "pyodide.mjs"), "w").close()
        return _Completed(0, "")

    dist = pyodide.install("314.0.7", str(tmp_path), which=lambda name: "/usr/bin/npm",
                           run=fake_run)
    assert dist == pyodide.dist_dir(str(tmp_path), "314.0.7")
    assert calls[0][:2] == ["/usr/bin/npm", "ci"]
    with open(os.path.join(str(tmp_path), "314.0.7", "package-lock.json")) as handle:
        assert json.load(handle)["packages"]["node_modules/pyodide"]["version"] == "314.0.7"
    # Installed: a second call does nothing.
    assert pyodide.install("314.0.7", str(tmp_path), which=lambda n: None, run=None) == dist


def test_install_failures_say_why(tmp_path):
    with pytest.raises(pyodide.PyodideUnavailable, match="npm not found"):
        pyodide.install("314.0.7", str(tmp_path), which=lambda name: None)
    failing = lambda argv, **kw: _Completed(1, "npm error code E404\nnpm error 404 Not Found\n")
    with pytest.raises(pyodide.PyodideUnavailable, match="404 Not Found"):
        pyodide.install("314.0.7", str(tmp_path), which=lambda n: "/npm", run=failing)
    with pytest.raises(pyodide.PyodideUnavailable, match="no pinned lock file"):
        pyodide.install("9.9.9", str(tmp_path), which=lambda n: "/npm")


def test_find_node_requires_a_recent_node():
    with pytest.raises(pyodide.PyodideUnavailable, match="Node.js not found"):
        pyodide.find_node(which=lambda name: None)
    old = lambda argv, **kw: _Completed(0, "v16.20.0\n")
    with pytest.raises(pyodide.PyodideUnavailable, match="too old"):
        pyodide.find_node(which=lambda name: "/node", run=old)
    new = lambda argv, **kw: _Completed(0, "v20.20.2\n")
    assert pyodide.find_node(which=lambda name: "/node", run=new) == "/node"


def test_pyodide_step_commands_mount_the_project(tmp_path):
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "python_stdlib.zip").write_bytes(b"")
    interp = discover.Interpreter("3.14", "pyodide", path=str(dist), release="314.0.7")
    commands = jobs.step_commands(interp, ROOT, str(tmp_path / "out"), 7, node="/node")
    corpus_argv, corpus_json = commands["corpus"]
    assert corpus_argv[:4] == ["/node", pyodide.RUN_MJS, "--pyodide", str(dist)]
    assert "%s:/project/src" % os.path.join(ROOT, "src") in corpus_argv
    assert "%s:/out" % os.path.abspath(str(tmp_path / "out")) in corpus_argv
    assert corpus_argv[corpus_argv.index("--") + 1] == "/project/tools/corpus_check.py"
    assert corpus_json == os.path.join(str(tmp_path / "out"), "corpus.json")
    roundtrip_argv = commands["roundtrip"][0]
    tail = roundtrip_argv[roundtrip_argv.index("--") + 1:]
    assert tail[:3] == ["/project/bench/roundtrip.py", "--sample", "7"]
    assert "--source-zip" in tail and "/pyodide-dist/python_stdlib.zip" in tail


def test_a_corpus_folder_of_snippets_reaches_both_kinds(tmp_path):
    snippets = str(tmp_path / "snippets")
    native = discover.Interpreter("3.12", "native", path="/py")
    argv = jobs.step_commands(native, ROOT, str(tmp_path), 5, corpus_dir=snippets)["corpus"][0]
    assert argv[argv.index("--corpus") + 1] == snippets
    wasm = discover.Interpreter("3.14", "pyodide", path=str(tmp_path), release="314.0.7")
    argv = jobs.step_commands(wasm, ROOT, str(tmp_path), 5, node="/node",
                              corpus_dir=snippets)["corpus"][0]
    assert "%s:/corpus" % snippets in argv
    assert argv[argv.index("--corpus") + 1] == "/corpus"


def test_native_step_commands(tmp_path):
    interp = discover.Interpreter("3.12", "native", path="/py/python3.12")
    commands = jobs.step_commands(interp, ROOT, str(tmp_path), 5, roundtrip_args=["--baseline"])
    assert commands["corpus"][0][:2] == ["/py/python3.12",
                                         os.path.join(ROOT, "tools", "corpus_check.py")]
    roundtrip = commands["roundtrip"][0]
    assert roundtrip[1] == os.path.join(ROOT, "bench", "roundtrip.py")
    assert roundtrip[2:4] == ["--sample", "5"] and "--baseline" in roundtrip
    assert roundtrip[roundtrip.index("--failures") + 1] == os.path.join(str(tmp_path),
                                                                        jobs.FAILURES)
    env = jobs.native_env(ROOT)
    assert env["PYTHONPATH"].split(os.pathsep)[0] == os.path.join(ROOT, "src")


def _installed_pyodide():
    """An installed Pyodide release; installs 3.15's (the runner's cache, ~15 MB) if none is."""
    cache = os.path.join(ROOT, ".pyodide")
    for version in ("3.15", "3.14", "3.13", "3.12", "3.11", "3.10"):
        release = pyodide.release_for(version)
        if pyodide.installed_version(cache, release) == release:
            return version, pyodide.dist_dir(cache, release)
    try:
        return "3.15", pyodide.install(pyodide.release_for("3.15"), cache, timeout=300)
    except pyodide.PyodideUnavailable:
        return None, None


def test_run_mjs_runs_a_script_in_real_pyodide(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("Node.js not installed")
    version, dist = _installed_pyodide()
    if dist is None:
        pytest.skip("no Pyodide release installed and npm could not install one")
    (tmp_path / "script.py").write_text(textwrap.dedent("""
        import os, sys
        print("argv", sys.argv[1:], "cwd", os.getcwd())
        print("python", "%d.%d" % sys.version_info[:2], sys.platform)
        with open("/host/written.txt", "w") as handle:
            handle.write("from pyodide")
        sys.exit(3)
    """))
    argv = pyodide.command(shutil.which("node"), dist, "/host/script.py", ["a b", "--x"],
                           [(str(tmp_path), "/host")], cwd="/host")
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=120)
    assert out.returncode == 3, out.stdout
    assert "argv ['a b', '--x'] cwd /host" in out.stdout
    assert "python %s emscripten" % version in out.stdout
    assert (tmp_path / "written.txt").read_text() == "from pyodide"


# ---------------------------------------------------------------------------------------------
# Steps, verdicts and the table


def test_run_step_reads_json_and_reports_crashes(tmp_path):
    json_path = str(tmp_path / "r.json")
    log = str(tmp_path / "r.log")

    def writes_json(argv, **kw):
        with open(json_path, "w") as handle:
            json.dump({"passed": 2}, handle)
        return _Completed(1, "FAIL x\n")

    ok = jobs.run_step("corpus", ["py"], json_path, log, 10, runner=writes_json)
    assert ok.error is None and ok.data == {"passed": 2} and ok.returncode == 1

    def no_json(argv, **kw):
        return _Completed(2, "Traceback\nImportError: no module named ast\n")

    crashed = jobs.run_step("corpus", ["py"], json_path, log, 10, runner=no_json)
    assert crashed.data is None and "ImportError: no module named ast" in crashed.error

    def hangs(argv, **kw):
        raise subprocess.TimeoutExpired(argv, 10, output=b"half")

    late = jobs.run_step("corpus", ["py"], json_path, log, 10, runner=hangs)
    assert "timed out after 10s" in late.error
    with open(log) as handle:
        assert "half" in handle.read()


def _result(version, corpus=None, roundtrip=None, skipped=None, error=None):
    interp = None if skipped else discover.Interpreter(version, "native", path="/py")
    result = jobs.VersionResult(version, interp, skipped=skipped)
    if not skipped:
        result.corpus = jobs.StepResult("corpus", 0, 1.0, corpus, error)
        result.roundtrip = jobs.StepResult("roundtrip", 0, 1.0, roundtrip)
    return result


_GOOD_CORPUS = {"passed": 10, "failed": 2, "skipped": 1, "causes": {"KeyError": 2}}
_ROUNDTRIP = {"functions": 400, "functions_exact_pct": 96.5,
              "files_every_code_object_exact_pct": 80.0, "functions_per_second": 1234.5,
              "failures_by_cause": [["SWAP instead of COPY", 9]]}


def test_verdicts():
    ok = _result("3.12", _GOOD_CORPUS, _ROUNDTRIP)
    assert report.status(ok) == ("ok", "")
    assert report.status(ok, min_exact=97)[0] == "failed"
    assert report.status(ok, strict=True) == ("failed", "2 construct test(s) failed")
    skipped = _result("3.9", skipped="no native CPython 3.9 found")
    assert report.status(skipped) == ("skipped", "no native CPython 3.9 found")
    crashed = _result("3.8", error="exit 2, no results: ImportError")
    assert report.status(crashed)[0] == "crashed"
    results = [ok, skipped, crashed]
    assert report.exit_status([ok, skipped]) == 0
    assert report.exit_status(results) == 1
    assert report.summary_line(results) == "versions: 1 passed, 1 failed, 1 skipped"


def test_skipped_version_is_never_shown_as_passed():
    text = report.table([_result("3.9", skipped="no native CPython 3.9 found")])
    row = text.splitlines()[-1]
    assert row.startswith("3.9") and row.endswith("SKIPPED (no native CPython 3.9 found)")
    assert "ok" not in row.split()


def test_table_rows_show_figures():
    text = report.table([_result("3.12", _GOOD_CORPUS, _ROUNDTRIP)])
    header, rule, row = text.splitlines()
    assert header.split()[:2] == ["version", "interpreter"]
    assert set(rule) == {"-"}
    cells = row.split()
    assert cells[:2] == ["3.12", "/py"]
    assert "10 passed, 2 failed, 1 skipped" in row
    assert cells[-5:] == ["400", "96.5", "80.0", "1234", "ran"]  # 2 construct tests failed
    clean = dict(_GOOD_CORPUS, failed=0)
    assert report.table([_result("3.12", clean, _ROUNDTRIP)]).split()[-1] == "ok"


def test_markdown_table():
    native = _result("3.12", _GOOD_CORPUS, _ROUNDTRIP)
    native.interpreter.full_version = "3.12.1"
    lines = report.markdown([native, _result("3.9", skipped="no native CPython 3.9 found")])
    lines = lines.splitlines()
    assert lines[0].startswith("| version | interpreter | construct tests |")
    assert lines[1] == "|" + " --- |" * 8
    assert lines[2] == ("| 3.12 | native 3.12.1 | 10 passed, 2 failed, 1 skipped | 400 | 96.5 "
                        "| 80.0 | 1234 | ran |")
    assert lines[3].endswith("| SKIPPED (no native CPython 3.9 found) |")


def test_matrix_shows_each_construct_on_each_version():
    corpus_312 = {"passed": 1, "failed": 1, "files": [
        {"name": "a.py", "status": "pass", "failures": []},
        {"name": "b.py", "status": "fail", "failures": [
            {"cause": "DecompilationError at SWAP"}]}]}
    corpus_38 = {"passed": 0, "failed": 0, "skipped": 2, "files": [
        {"name": "a.py", "status": "skip", "failures": []},
        {"name": "b.py", "status": "skip", "failures": []}]}
    text = report.matrix([_result("3.8", corpus_38, None), _result("3.12", corpus_312, None),
                          _result("3.9", skipped="none")])
    assert [line.split() for line in text.splitlines()] == [
        ["construct", "test", "3.8", "3.12"], ["a.py", "skip", "ok"], ["b.py", "skip", "SWAP"]]


def test_legend_says_what_was_not_enforced():
    results = [_result("3.12", _GOOD_CORPUS, _ROUNDTRIP), _result("3.9", skipped="none")]
    lines = report.legend(results, min_exact=5).splitlines()
    assert lines[0] == ("construct tests over all versions: 10 passed, 2 failed (not enforced; "
                        "--strict fails a version on them)")
    assert lines[1].startswith("ran = ran and met the floor (--min-exact 5%)")
    assert report.legend(results, strict=True).splitlines() == [
        "construct tests over all versions: 10 passed, 2 failed"]


def test_causes_merge_corpus_and_roundtrip():
    text = report.causes_text([_result("3.12", _GOOD_CORPUS, _ROUNDTRIP)])
    assert text.splitlines() == ["3.12 (/py):", "       9  SWAP instead of COPY",
                                 "       2  KeyError"]


def test_first_example_of_each_cause_from_a_failures_file(tmp_path):
    rule = "=" * 78
    (tmp_path / "f.txt").write_text("\n".join([
        rule, "function Foo.bar  (/usr/lib/python3.12/json/decoder.py)",
        "cause: SWAP instead of COPY", "first difference: ...",
        "--- decompiled source ---", "def bar(self):", "    pass",
        rule, "function other  (/usr/lib/python3.12/json/decoder.py)",
        "cause: SWAP instead of COPY", "first difference: ...",
        rule, "module <module>  (/dist/python_stdlib.zip!_pyrepl/reader.py)",
        "cause: DecompilationError at LOAD_LOCALS", "unsupported opcode",
        rule, "class Reader  (/dist/python_stdlib.zip!_pyrepl/reader.py)",
        "cause: DecompilationError at LOAD_LOCALS", "unsupported opcode",
        rule, "class Later  (/dist/python_stdlib.zip!_pyrepl/reader.py)",
        "cause: DecompilationError at LOAD_LOCALS", "unsupported opcode",
        rule, "function Reader.m  (/dist/python_stdlib.zip!_pyrepl/reader.py)",
        "cause: DecompilationError at LOAD_LOCALS", "unsupported opcode",
        rule, "function Later.m  (/dist/python_stdlib.zip!_pyrepl/reader.py)",
        "cause: DecompilationError at LOAD_LOCALS", "unsupported opcode", ""]))
    assert jobs.first_examples(str(tmp_path / "f.txt")) == {
        "SWAP instead of COPY": "Foo.bar (json/decoder.py)",
        "DecompilationError at LOAD_LOCALS": "Reader.m (_pyrepl/reader.py)"}
    assert jobs.first_examples(str(tmp_path / "missing.txt")) == {}
    text = report.causes_text([_result("3.12", _GOOD_CORPUS, _ROUNDTRIP)],
                              examples=lambda r: jobs.first_examples(str(tmp_path / "f.txt")))
    assert text.splitlines()[1:3] == ["       9  SWAP instead of COPY",
                                      "          e.g. Foo.bar (json/decoder.py)"]


def test_json_report_round_trips():
    data = json.loads(report.to_json([_result("3.12", _GOOD_CORPUS, _ROUNDTRIP),
                                      _result("3.9", skipped="none")]))
    assert data[0]["status"] == "ok" and data[0]["roundtrip"]["exact_pct"] == 96.5
    assert data[0]["corpus"]["failed"] == 2
    assert data[1] == {"version": "3.9", "status": "skipped", "reason": "none", "seconds": 0.0}


# ---------------------------------------------------------------------------------------------
# The command line


def _args(tmp_path, *argv):
    return pyversions.parse_args(["--work", str(tmp_path / "work"), "--cache",
                                  str(tmp_path / "cache")] + list(argv))


def _resolver(args, natives, node="/node", installed=(), install_error=None):
    installs = []

    def find_native(version, explicit=None):
        if explicit:  # a named interpreter counts only if it really is that version
            path = explicit if natives.get(version) == explicit else None
        else:
            path = natives.get(version)
        return discover.Interpreter(version, "native", path=path) if path else None

    def find_node():
        if node is None:
            raise pyodide.PyodideUnavailable("Node.js not found")
        return node

    def install(release, cache):
        if install_error:
            raise pyodide.PyodideUnavailable(install_error)
        installs.append(release)

    def installed_version(cache, release):
        return release if release in installed or release in installs else None

    resolver = pyversions.Resolver(args, log=lambda text: None, find_native=find_native,
                                   find_node=find_node, install=install,
                                   installed_version=installed_version)
    return resolver, installs


def test_resolver_prefers_native_then_pyodide(tmp_path):
    args = _args(tmp_path, "--install")
    resolver, installs = _resolver(args, {"3.12": "/py312"})
    assert resolver.resolve("3.12")[0].path == "/py312"
    wasm, reason = resolver.resolve("3.14")
    assert reason is None and wasm.kind == "pyodide" and wasm.release == "314.0.7"
    assert installs == ["314.0.7"]
    assert resolver.resolve("3.8") == (
        None, "no native CPython 3.8 found (PATH, pyenv, uv); no Pyodide release embeds 3.8")


def test_resolver_skip_reasons(tmp_path):
    resolver, _ = _resolver(_args(tmp_path), {})
    assert resolver.resolve("3.14") == (None, "pyodide 314.0.7 not installed (run with --install)")
    resolver, _ = _resolver(_args(tmp_path, "--no-pyodide"), {})
    assert resolver.resolve("3.14")[1].endswith("Pyodide disabled (--no-pyodide)")
    resolver, _ = _resolver(_args(tmp_path, "--install"), {}, node=None)
    assert resolver.resolve("3.13") == (None, "Node.js not found")
    resolver, _ = _resolver(_args(tmp_path, "--install"), {}, install_error="npm ci failed: E404")
    assert resolver.resolve("3.13") == (None, "npm ci failed: E404")
    resolver, _ = _resolver(_args(tmp_path, "--python", "3.12=/nope"), {})
    assert resolver.resolve("3.12") == (None, "/nope is not a working CPython 3.12")


def test_list_shows_choice_or_reason(tmp_path):
    args = _args(tmp_path, "--list", "--versions", "3.8,3.12,3.14")
    resolver, installs = _resolver(args, {"3.12": "/py312"})
    assert pyversions.list_interpreters(args, resolver) == [
        "3.8   SKIPPED (no native CPython 3.8 found (PATH, pyenv, uv); no Pyodide release "
        "embeds 3.8)",
        "3.12  /py312",
        "3.14  SKIPPED (pyodide 314.0.7 not installed (run with --install))"]
    assert installs == []


def test_prefer_pyodide(tmp_path):
    args = _args(tmp_path, "--prefer-pyodide")
    resolver, _ = _resolver(args, {"3.13": "/py313", "3.9": "/py39"}, installed=["0.29.5"])
    assert resolver.resolve("3.13")[0].kind == "pyodide"
    assert resolver.resolve("3.9")[0].path == "/py39"  # no Pyodide 3.9: native it is


def test_bad_arguments_exit_2(tmp_path, capsys):
    for argv in (["--versions", "3.7"], ["--python", "3.12"], ["--sample", "0"]):
        with pytest.raises(SystemExit) as caught:
            _args(tmp_path, *argv)
        assert caught.value.code == 2


def test_run_reports_every_version_in_order(tmp_path):
    args = _args(tmp_path, "--versions", "3.8,3.12,3.14", "--jobs", "2")
    resolver, _ = _resolver(args, {"3.12": "/py312", "3.8": "/py38"})
    seen = []

    def fake_run_version(interp, root, work, sample, timeout, node=None, roundtrip=True,
                         roundtrip_args=(), corpus_dir=None):
        seen.append((interp.version, sample, tuple(roundtrip_args)))
        if interp.version == "3.8":
            return _result("3.8", error="exit 2, no results: no ast.unparse")
        return _result(interp.version, _GOOD_CORPUS, _ROUNDTRIP)

    results = pyversions.run(args, log=lambda text: None, resolver=resolver,
                             run_version=fake_run_version)
    assert [r.version for r in results] == ["3.8", "3.12", "3.14"]
    assert sorted(seen) == [("3.12", 30, ()), ("3.8", 30, ())]
    assert results[2].skipped == "pyodide 314.0.7 not installed (run with --install)"
    assert report.summary_line(results) == "versions: 1 passed, 1 failed, 1 skipped"
    assert report.exit_status(results) == 1


def test_a_ratchet_regression_fails_its_version_and_names_the_key():
    regressed = dict(_ROUNDTRIP, ratchet={
        "status": "regressed", "regressions": 2,
        "regressed": ["a.py::f:1 (crash)", "b.py::g:3 (POP_TOP instead of COPY)"]})
    state, reason = report.status(_result("3.12", _GOOD_CORPUS, regressed))
    assert state == "failed" and "2 regression(s)" in reason and "a.py::f:1" in reason
    skipped = dict(_ROUNDTRIP, ratchet={"status": "skipped", "reason": "no baseline"})
    assert report.status(_result("3.14", _GOOD_CORPUS, skipped)) == ("ok", "")
    assert report.ratchet_state(skipped) == "skipped (no baseline)"
    assert report.ratchet_state(_ROUNDTRIP) is None


def test_ratchet_option_reaches_the_round_trip(tmp_path):
    args = _args(tmp_path, "--versions", "3.12", "--ratchet")
    resolver, _ = _resolver(args, {"3.12": "/py312"})
    seen = []

    def fake_run_version(interp, root, work, sample, timeout, node=None, roundtrip=True,
                         roundtrip_args=(), corpus_dir=None):
        seen.append(tuple(roundtrip_args))
        return _result(interp.version, _GOOD_CORPUS, _ROUNDTRIP)

    pyversions.run(args, log=lambda text: None, resolver=resolver, run_version=fake_run_version)
    assert seen == [("--ratchet",)]
    commands = jobs.step_commands(discover.Interpreter("3.12", "native", path="/py"), ROOT,
                                  str(tmp_path), 5)
    argv = commands["roundtrip"][0]
    assert argv[argv.index("--verdicts") + 1] == os.path.join(str(tmp_path), jobs.VERDICTS)
