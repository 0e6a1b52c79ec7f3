"""Other projects' test suites, and CPython's regression tests, run on decompiled sources.

Round trips (bench/roundtrip.py) compare bytecode; this runs what users run. Two parts:

* packages: pure-Python packages at pinned versions whose sdists ship an offline pytest suite.
  Each sdist is downloaded once (``pip download --no-deps --no-binary :all:``) into a cache
  outside the repository, extracted twice, and its suite is run on the original source (the
  baseline) and on a copy where every module of the package is replaced by
  ``dynalens.decompile(path)`` of it (which compiles the file, decompiles the module and marks
  what does not verify with ``# dynalens: not exact:``). A test that passes on the original and
  not on the decompiled copy is a loss; its name is printed.
* stdlib: chosen pure-Python stdlib modules (or packages) are decompiled into a temporary folder
  put first on ``PYTHONPATH`` and ``python -m test test_<mod>`` is run. Modules the interpreter
  has imported before PYTHONPATH counts (os, re, ...), or that the test runner needs, are left
  out of the list; the script checks that the decompiled copy is the one imported. A module whose
  tests fail is run again on the original source, so a failure of this machine is told apart.

Decompilation happens in this process, so run the script with the interpreter under test. The
package suites need pytest and hypothesis plus each package's pinned test dependencies: give
``--venv DIR`` and the script creates that virtual environment from the running interpreter
(once) and installs them there (same Python version, so the bytecode is the same).

    python bench/decompiled_suites.py --venv /tmp/suites-venv            # everything
    python bench/decompiled_suites.py --venv /tmp/suites-venv --smoke    # < 60 s subset
    python bench/decompiled_suites.py --only packages --package six
    python bench/decompiled_suites.py --only stdlib --module json --module heapq
    python bench/decompiled_suites.py --offline ...   # no download: skip what is not cached

Issue 10's floor: other projects' suites lose no test; CPython's tests pass on at least 38 of
the 40 decompiled modules. The exit status is 1 when a package loses a test or a stdlib module
fails on the decompiled source but passes on the original.
"""

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
if os.path.isdir(SRC) and SRC not in sys.path:
    sys.path.insert(0, SRC)

import dynalens  # noqa: E402

CACHE = os.path.join(os.path.expanduser("~"), ".cache", "dynalens", "suites")
NOT_EXACT = "# dynalens: not exact:"
NOT_DECOMPILED = "# dynalens: could not decompile"
SUITE_TIMEOUT = 600  # a package suite; a decompiled loop that never ends must not stall it
REGRTEST_TIMEOUT = 180  # one CPython test module

# Test runner and its plugin, pinned so that figures compare between runs.
RUNNER_DEPS = ["pytest==9.2.0", "hypothesis==6.170.15"]


class Package(object):
    """One sdist: where its importable code lies, what to decompile, how to run its tests.

    ``path`` is the folder put on PYTHONPATH (relative to the sdist root); ``modules`` are the
    package folders or module files under it to decompile (test folders inside them are kept
    as they are); ``tests`` are pytest's arguments; ``deps`` the pinned test dependencies.
    """

    def __init__(self, name, version, path, modules, tests, deps=(), options=()):
        self.name = name
        self.version = version
        self.path = path
        self.modules = list(modules)
        self.tests = list(tests)
        self.deps = list(deps)
        self.options = list(options)

    @property
    def pin(self):
        return "%s==%s" % (self.name, self.version)


PACKAGES = [
    Package("six", "1.16.0", ".", ["six.py"], ["test_six.py"]),
    Package("idna", "3.6", ".", ["idna"], ["tests"]),
    Package("toolz", "0.12.1", ".", ["toolz", "tlz"], ["toolz/tests"]),
    Package("more-itertools", "10.2.0", ".", ["more_itertools"], ["tests"]),
    # Its setup.cfg turns every warning into an error, and pytest 9 warns about its unknown
    # 'no_cover' mark at collection: the filter is emptied so the suite runs at all.
    # (freezegun 1.4 does not import on 3.13: it reads uuid internals removed there.)
    Package("python-dateutil", "2.9.0", "src", ["dateutil"], ["tests"],
            deps=["six==1.16.0", "freezegun==1.5.1"], options=["-o", "filterwarnings="]),
    Package("attrs", "23.2.0", "src", ["attr", "attrs"], ["tests"]),
    Package("packaging", "24.0", "src", ["packaging"], ["tests"], deps=["pretend==1.0.9"]),
]

# Pure-Python stdlib modules (a name is a module file or a package folder) and their CPython
# test, where its name is not test_<module>. None of them is imported before PYTHONPATH is
# read, and the regression test runner does not depend on them. Left out: tabnanny, whose test
# compares `python -m tabnanny`'s usage line (the original's path) with the imported module's.
STDLIB = [
    "base64", "bisect", "calendar", "cmd", "colorsys", "configparser", "copy", "csv",
    "dataclasses", "difflib", "fileinput", "fnmatch", "fractions", "getopt", "glob", "graphlib",
    "gzip", "heapq", "html", "ipaddress", "json", "keyword", "mimetypes", "netrc", "numbers",
    "optparse", "plistlib", "pprint", "queue", "quopri", "random", "sched", "shlex",
    "reprlib", "statistics", "string", "stringprep", "textwrap", "tomllib", "urllib", "uuid",
    "wave", "zipapp",
]
STDLIB_TESTS = {"numbers": "test_abstract_numbers", "urllib": "test_urlparse"}

SMOKE_PACKAGES = ["six"]
SMOKE_STDLIB = ["bisect", "colorsys", "textwrap"]


# ---------------------------------------------------------------------------------------------
# Decompiling files


def decompile_file(path):
    """Replace the .py file at ``path`` by its decompiled source.

    Returns (functions marked not exact, functions not decompiled, error): the names are the
    statement under each marker; error is the text of an exception when the module as a whole
    did not decompile (the original is then kept).
    """
    try:
        text = dynalens.decompile(path)
    except Exception as error:  # a module that fails as a whole is a finding, not a crash
        return [], [], "%s: %s" % (type(error).__name__, str(error).splitlines()[0][:200])
    not_exact, not_decompiled = [], []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        stripped = line.strip()
        for marker, found in ((NOT_EXACT, not_exact), (NOT_DECOMPILED, not_decompiled)):
            if stripped.startswith(marker):
                named = re.search(r"\bin (\S+?)(?: at |: | \(|\]|$)", stripped)
                found.append(named.group(1) if named else _marked_statement(lines, number + 1))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return not_exact, not_decompiled, None


def _marked_statement(lines, start):
    """The first statement below a marker (skipping further comments), shortened."""
    for line in lines[start:]:
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "@_dynalens_original_code")):
            match = re.match(r"(?:async\s+)?def\s+(\w+)|class\s+(\w+)", stripped)
            if match:
                return match.group(1) or match.group(2)
            return stripped[:60]
    return "?"


def decompile_tree(root, names, skip_dirs=("tests", "test")):
    """Decompile every .py file of the modules/packages ``names`` under ``root``.

    Returns a summary dict: modules, not_exact and not_decompiled ("file: function" names) and
    failed ("file: error" for modules that did not decompile as a whole).
    """
    summary = {"modules": 0, "not_exact": [], "not_decompiled": [], "failed": []}
    files = []
    for name in names:
        path = os.path.join(root, name)
        if os.path.isfile(path):
            files.append(path)
            continue
        for folder, dirs, filenames in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in skip_dirs and d != "__pycache__")
            files.extend(os.path.join(folder, f) for f in sorted(filenames) if f.endswith(".py"))
    for path in files:
        relative = os.path.relpath(path, root)
        not_exact, not_decompiled, error = decompile_file(path)
        summary["modules"] += 1
        summary["not_exact"].extend("%s: %s" % (relative, name) for name in not_exact)
        summary["not_decompiled"].extend("%s: %s" % (relative, name) for name in not_decompiled)
        if error:
            summary["failed"].append("%s: %s" % (relative, error))
    for folder, dirs, _ in os.walk(root):
        if "__pycache__" in dirs:
            shutil.rmtree(os.path.join(folder, "__pycache__"))
    return summary


# ---------------------------------------------------------------------------------------------
# Package suites


def sdist(package, offline):
    """Path of the cached sdist of ``package`` (downloaded unless offline), or None."""
    os.makedirs(CACHE, exist_ok=True)
    path = find_sdist(package)
    if path is None and not offline:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--no-binary", ":all:", "-d", CACHE, package.pin], check=False)
        path = find_sdist(package)
    return path


def find_sdist(package):
    stems = {package.name, package.name.replace("-", "_"), package.name.replace("-", ".")}
    for stem in stems:
        for ext in (".tar.gz", ".zip"):
            path = os.path.join(CACHE, "%s-%s%s" % (stem, package.version, ext))
            if os.path.exists(path):
                return path
    return None


def extract(archive, into):
    """Extract the sdist; returns its top folder."""
    with tarfile.open(archive) as handle:
        top = handle.getnames()[0].split("/")[0]
        if sys.version_info >= (3, 12):
            handle.extractall(into, filter="data")
        else:
            handle.extractall(into)
    return os.path.join(into, top)


def ensure_venv(venv, packages):
    """Create ``venv`` from this interpreter if needed and install the pinned test deps."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    wanted = list(RUNNER_DEPS)
    for package in packages:
        wanted.extend(package.deps)
    subprocess.run([python, "-m", "pip", "install", "-q"] + wanted, check=True)
    return python


def run_pytest(python, root, package, report):
    """Run the package's suite under ``root``; returns ({test: outcome}, seconds, tail)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(root, package.path)
    env.pop("PYTHONSTARTUP", None)
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", report,
               "-o", "junit_family=xunit2"] + package.options
    if has_module(python, "hypothesis"):
        command.append("--hypothesis-seed=0")  # the same examples before and after
    command += package.tests
    started = time.time()
    try:
        done = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=SUITE_TIMEOUT)
        tail = done.stdout.decode("utf-8", "replace").strip().splitlines()[-1:]
    except subprocess.TimeoutExpired:
        tail = ["timed out after %d s" % SUITE_TIMEOUT]
    seconds = time.time() - started
    return read_junit(report), seconds, tail[0] if tail else ""


_HAS_MODULE = {}


def has_module(python, module):
    """Whether ``python`` can import ``module`` (asked once per pair)."""
    if (python, module) not in _HAS_MODULE:
        done = subprocess.run([python, "-c", "import " + module], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        _HAS_MODULE[python, module] = done.returncode == 0
    return _HAS_MODULE[python, module]


def read_junit(report):
    """{test id: 'passed'|'failed'|'skipped'} from a junit XML report (empty if none)."""
    outcomes = {}
    if not os.path.exists(report):
        return outcomes
    for case in ElementTree.parse(report).iter("testcase"):
        name = "%s::%s" % (case.get("classname"), case.get("name"))
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            outcome = "failed"
        elif "skipped" in kinds:
            outcome = "skipped"
        else:
            outcome = "passed"
        if outcomes.get(name) != "failed":  # setup and call can both report
            outcomes[name] = outcome
    return outcomes


def run_package(package, python, work, offline):
    """Baseline and decompiled run of one package; returns a result dict."""
    archive = sdist(package, offline)
    if archive is None:
        return {"name": package.pin, "skipped": "sdist not cached (--offline)"}
    original = extract(archive, os.path.join(work, "original"))
    decompiled = extract(archive, os.path.join(work, "decompiled"))
    started = time.time()
    summary = decompile_tree(os.path.join(decompiled, package.path), package.modules)
    summary["decompile_s"] = time.time() - started
    before, before_s, before_tail = run_pytest(python, original, package,
                                               os.path.join(work, "before.xml"))
    after, after_s, after_tail = run_pytest(python, decompiled, package,
                                            os.path.join(work, "after.xml"))
    passed_before = {name for name, outcome in before.items() if outcome == "passed"}
    passed_after = {name for name, outcome in after.items() if outcome == "passed"}
    summary.update(name=package.pin, before=len(passed_before), after=len(passed_after),
                   lost=sorted(passed_before - passed_after),
                   gained=sorted(passed_after - passed_before), before_s=before_s,
                   after_s=after_s, before_tail=before_tail, after_tail=after_tail)
    return summary


def print_package(result, verbose):
    if "skipped" in result:
        print("%-24s skipped: %s" % (result["name"], result["skipped"]))
        return
    print("%-24s modules %3d  not exact %2d  not decompiled %2d  module failures %d  "
          "tests passed %5d -> %5d  lost %d  (decompile %.1f s, suites %.0f s + %.0f s)"
          % (result["name"], result["modules"], len(result["not_exact"]),
             len(result["not_decompiled"]), len(result["failed"]), result["before"],
             result["after"], len(result["lost"]), result["decompile_s"], result["before_s"],
             result["after_s"]))
    for title, key, limit in (("not exact", "not_exact", None),
                              ("not decompiled", "not_decompiled", None),
                              ("module failed", "failed", None),
                              ("lost", "lost", None if verbose else 20)):
        names = result[key]
        for name in names[:limit]:
            print("    %-15s %s" % (title + ":", name))
        if limit is not None and len(names) > limit:
            print("    %-15s ... %d more (--verbose lists all)" % ("", len(names) - limit))
    if result["lost"]:
        print("    pytest said (decompiled): %s" % result["after_tail"])


# ---------------------------------------------------------------------------------------------
# CPython's regression tests


def stdlib_source(name):
    """(path, is_package) of the stdlib module's source, or (None, False)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None, False
    if spec.submodule_search_locations:
        return os.path.dirname(spec.origin), True
    return spec.origin, False


def cpython_test_exists(test):
    return importlib.util.find_spec("test." + test) is not None


def run_regrtest(test, pythonpath, log):
    """``python -m test <test>``; returns (passed, seconds, first failing tests)."""
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    else:
        env.pop("PYTHONPATH", None)
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="dynalens-regrtest-") as cwd:
        try:
            # -W: the output (tracebacks) of a failing test is shown, a passing one's not
            done = subprocess.run([sys.executable, "-m", "test", "-W", test], cwd=cwd, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=REGRTEST_TIMEOUT)
            output = done.stdout.decode("utf-8", "replace")
            passed = done.returncode == 0
        except subprocess.TimeoutExpired as error:
            output = (error.stdout or b"").decode("utf-8", "replace")
            output += "\ntimed out after %d s" % REGRTEST_TIMEOUT
            passed = False
    with open(log, "w", encoding="utf-8") as handle:
        handle.write(output)
    failing = re.findall(r"^(?:FAIL|ERROR): (\S+ \([^)]*\))", output, re.MULTILINE)
    # a single failure is printed as a bare traceback: name the test method in it
    failing += ["%s (%s)" % (test, where) for where, test in
                re.findall(r'^  File "([^"]*test_[^"]*)", line \d+, in (test\w*)$', output,
                           re.MULTILINE) if not any(test in seen for seen in failing)]
    if not passed and not failing:
        failing = [line for line in output.splitlines() if line.strip()][-2:]
    return passed, time.time() - started, failing


def imported_from(name, pythonpath):
    """Where a fresh interpreter with this PYTHONPATH imports ``name`` from."""
    env = dict(os.environ, PYTHONPATH=pythonpath)
    done = subprocess.run([sys.executable, "-c", "import %s as m; print(m.__file__)" % name],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return done.stdout.decode("utf-8", "replace").strip().splitlines()[-1:]


def run_stdlib_module(name, work):
    """Decompile one stdlib module into a folder of its own and run its CPython tests."""
    test = STDLIB_TESTS.get(name, "test_" + name)
    source, is_package = stdlib_source(name)
    if source is None:
        return {"name": name, "skipped": "no pure-Python source"}
    if not cpython_test_exists(test):
        return {"name": name, "skipped": "%s not installed" % test}
    folder = os.path.join(work, name)
    os.makedirs(folder)
    target = os.path.join(folder, os.path.basename(source))
    if is_package:
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copyfile(source, target)
    started = time.time()
    summary = decompile_tree(folder, [os.path.basename(source)])
    summary["decompile_s"] = time.time() - started
    where = imported_from(name, folder)
    summary.update(name=name, test=test)
    if not where or not where[0].startswith(folder):
        summary["skipped"] = "decompiled copy not imported (%s)" % (where[0] if where else "?")
        return summary
    passed, seconds, failing = run_regrtest(test, folder, os.path.join(work, name + ".log"))
    summary.update(passed=passed, seconds=seconds, failing=failing,
                   log=os.path.join(work, name + ".log"))
    if not passed:
        summary["original_passed"] = run_regrtest(test, None,
                                                  os.path.join(work, name + ".orig.log"))[0]
    return summary


def print_stdlib(result):
    if result.get("skipped"):
        print("%-14s skipped: %s" % (result["name"], result["skipped"]))
        return
    if result["failed"]:
        verdict = "NOT DECOMPILED (original kept)"
    elif result["passed"]:
        verdict = "passed"
    elif result["original_passed"]:
        verdict = "FAILED (original passes)"
    else:
        verdict = "failed (original fails too)"
    print("%-14s %-14s modules %2d  not exact %2d  not decompiled %2d  module failures %d  "
          "%-28s %5.1f s" % (result["name"], result["test"], result["modules"],
                             len(result["not_exact"]), len(result["not_decompiled"]),
                             len(result["failed"]), verdict, result["seconds"]))
    for key in ("not_exact", "not_decompiled", "failed"):
        for name in result[key]:
            print("    %-15s %s" % (key.replace("_", " ") + ":", name))
    if not result["passed"]:
        for name in result["failing"][:5]:
            print("    %-15s %s" % ("first failing:", name))
        print("    %-15s %s" % ("log:", result["log"]))


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["packages", "stdlib"])
    parser.add_argument("--package", action="append", help="run only this package (repeat)")
    parser.add_argument("--module", action="append", help="run only this stdlib module (repeat)")
    parser.add_argument("--smoke", action="store_true",
                        help="%s and stdlib %s only" % (", ".join(SMOKE_PACKAGES),
                                                        ", ".join(SMOKE_STDLIB)))
    parser.add_argument("--venv", help="virtual environment for the package suites (created "
                        "and filled with pinned test deps); default: this interpreter")
    parser.add_argument("--offline", action="store_true",
                        help="download nothing; skip packages whose sdist is not cached")
    parser.add_argument("--work", help="keep work files here (default: a temporary folder)")
    parser.add_argument("--verbose", action="store_true", help="list every lost test")
    args = parser.parse_args(argv)

    packages = [p for p in PACKAGES if not args.package or p.name in args.package]
    modules = [m for m in STDLIB if not args.module or m in args.module]
    if args.module:
        modules += [m for m in args.module if m not in modules]
    if args.smoke:
        packages = [p for p in packages if p.name in SMOKE_PACKAGES]
        modules = [m for m in modules if m in SMOKE_STDLIB]
    if args.only == "packages":
        modules = []
    elif args.only == "stdlib":
        packages = []

    work = args.work or tempfile.mkdtemp(prefix="dynalens-suites-")
    print("Python %s, dynalens from %s, work files in %s"
          % (sys.version.split()[0], os.path.dirname(dynalens.__file__), work))
    bad = 0
    if packages:
        python = ensure_venv(args.venv, packages) if args.venv else sys.executable
        print("\nPackages (pytest on original and on decompiled source):")
        for package in packages:
            folder = os.path.join(work, package.name)
            os.makedirs(folder, exist_ok=True)
            result = run_package(package, python, folder, args.offline)
            print_package(result, args.verbose)
            sys.stdout.flush()
            bad += bool(result.get("lost"))
    if modules:
        print("\nCPython regression tests on decompiled stdlib modules:")
        folder = os.path.join(work, "stdlib")
        os.makedirs(folder, exist_ok=True)
        results = []
        for name in modules:
            result = run_stdlib_module(name, folder)
            print_stdlib(result)
            sys.stdout.flush()
            results.append(result)
        ran = [r for r in results if not r.get("skipped")]
        # a module that did not decompile as a whole ran as the original: not a pass
        passed = sum(r["passed"] and not r["failed"] for r in ran)
        lost = sum((not r["passed"] and r["original_passed"]) or bool(r["failed"]) for r in ran)
        print("stdlib: %d of %d modules pass their CPython tests decompiled (%d fail only "
              "decompiled or do not decompile; %d skipped)" % (passed, len(ran), lost, len(results) - len(ran)))
        bad += lost
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
