"""bench/decompiled_suites.py: its smoke subset (one package suite, three CPython test modules
on decompiled sources) and the pieces that read results.

The smoke tests download nothing: they run only when six's sdist is already in the cache
(``python bench/decompiled_suites.py --smoke`` puts it there) or when CPython's own test
modules are installed, and skip saying so otherwise."""

import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
sys.path.insert(0, BENCH)
import decompiled_suites as suites  # noqa: E402

sys.path.remove(BENCH)


def test_read_junit_outcomes(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(
        '<testsuites><testsuite>'
        '<testcase classname="t.A" name="ok"/>'
        '<testcase classname="t.A" name="bad"><failure message="x"/></testcase>'
        '<testcase classname="t.A" name="err"><error message="x"/></testcase>'
        '<testcase classname="t" name="skip"><skipped/></testcase>'
        '</testsuite></testsuites>')
    assert suites.read_junit(str(report)) == {
        "t.A::ok": "passed", "t.A::bad": "failed", "t.A::err": "failed", "t::skip": "skipped"}
    assert suites.read_junit(str(tmp_path / "missing.xml")) == {}


def test_decompile_tree_replaces_modules_and_keeps_tests(tmp_path):
    package = tmp_path / "pkg"
    (package / "tests").mkdir(parents=True)
    (package / "__init__.py").write_text("def twice(x):\n    return 2 * x\n")
    test_source = "from pkg import twice\n\ndef test_twice():\n    assert twice(2) == 4\n"
    (package / "tests" / "test_pkg.py").write_text(test_source)
    summary = suites.decompile_tree(str(tmp_path), ["pkg"])
    assert summary["modules"] == 1 and not summary["failed"]
    namespace = {}
    exec((package / "__init__.py").read_text(), namespace)
    assert namespace["twice"](21) == 42
    assert (package / "tests" / "test_pkg.py").read_text() == test_source


def test_marker_names_the_function():
    lines = ["# dynalens: not exact: in Box.get at instruction #3: expected X, got Y",
             "def get(self):", "    pass"]
    assert suites._marked_statement(lines, 1) == "get"
    assert suites._marked_statement(["@_dynalens_original_code(b'')", "def f():"], 0) == "f"


@pytest.mark.slow
@pytest.mark.parametrize("module", suites.SMOKE_STDLIB)
def test_smoke_cpython_tests_pass_on_decompiled_module(module, tmp_path):
    test = suites.STDLIB_TESTS.get(module, "test_" + module)
    if not suites.cpython_test_exists(test):
        pytest.skip("CPython's test.%s is not installed here" % test)
    result = suites.run_stdlib_module(module, str(tmp_path))
    assert not result.get("skipped"), result.get("skipped")
    assert not result["failed"], result["failed"]
    assert result["passed"], "%s failed on decompiled %s: %s (log %s)" % (
        test, module, result["failing"], open(result["log"]).read()[-3000:])


@pytest.mark.slow
@pytest.mark.parametrize("name", suites.SMOKE_PACKAGES)
def test_smoke_package_suite_loses_no_test(name, tmp_path):
    package = [p for p in suites.PACKAGES if p.name == name][0]
    if suites.find_sdist(package) is None:
        pytest.skip("%s sdist not in %s (run bench/decompiled_suites.py --smoke once)"
                    % (package.pin, suites.CACHE))
    result = suites.run_package(package, sys.executable, str(tmp_path), offline=True)
    assert result["before"] > 0, result["before_tail"]
    assert result["lost"] == [], result["lost"]
    assert not result["failed"], result["failed"]
