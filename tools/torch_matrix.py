"""Run the lens tests (``pytest -m torch``) on each torch x Python cell of the support matrix.

    python tools/torch_matrix.py [--cells CELL,...] [--strict] [--list] [--venv-root DIR]
                                 [--relock CELL] [-- PYTEST ARGS]

For each cell (``torch-2.15.0-py3.13``...; see versionrunner/torchcells.py) it finds the
interpreter (PATH, pyenv, uv, as tools/pyversions.py does), builds the cell's locked venv under
``~/.cache/dynalens/venvs`` or reuses it, runs ``pytest -m torch`` there with this clone's
``src`` on PYTHONPATH (dynalens is not installed into the shared venv), and prints one table of
passed/failed/skipped and seconds per cell, then the failing tests. ``torch-2.13.0-py3.11`` is
the README's own ``.venv``, used as it is. A cell whose Python is not found is shown as SKIPPED
with the reason, never as passed; ``--strict`` makes that fail the run. Exit status 1 when a cell
failed (a test failed, nothing ran, the venv could not be built or holds another torch), 2 for
bad arguments.
"""

import argparse
import os
import sys
import time
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from versionrunner import discover  # noqa: E402
from versionrunner import torchcells as cells  # noqa: E402
from versionrunner.torchcells import MAIN_CELL, MARKER  # noqa: E402


class CellResult(object):
    """What happened to one cell: skipped (reason), or built/reused and tested."""

    def __init__(self, cell, skipped=None):
        self.cell = cell
        self.skipped = skipped
        self.error = None            # the venv could not be made or is wrong
        self.interpreter = None      # full Python version the venv runs
        self.venv = None
        self.venv_state = None       # "reused", "built in 312s", "README .venv"
        self.counts = None           # {"passed", "failed", "errors", "skipped"}
        self.failures = []           # [(test id, first line of the message)]
        self.returncode = None
        self.seconds = 0.0           # the test run alone
        self.log = None

    @property
    def failed(self):
        if self.skipped:
            return False
        if self.error or self.counts is None:
            return True
        # pytest exits 5 when nothing was collected: no lens test ran, that is no pass.
        return bool(self.counts["failed"] or self.counts["errors"] or self.returncode != 0)

    def verdict(self):
        if self.skipped:
            return "SKIPPED (%s)" % self.skipped
        if self.error:
            return "FAILED (%s)" % self.error
        return "FAILED" if self.failed else "ok"


# ---------------------------------------------------------------------------------------------
# Running a cell


def pytest_id(classname, name, root=ROOT):
    """JUnit's ``tests.test_x.TestY`` + ``test_z`` -> ``tests/test_x.py::TestY::test_z``, the id
    pytest takes back (after ``--``); the dotted form where no such file exists."""
    parts = classname.split(".") if classname else []
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if os.path.isfile(os.path.join(root, path)):
            return "::".join([path] + parts[cut:] + [name])
    return "%s::%s" % (classname, name)


def junit_counts(path):
    """({"passed", "failed", "errors", "skipped"}, [(test id, message line)]) from pytest's
    JUnit XML, or (None, []) when pytest wrote none (it crashed before the session ended)."""
    try:
        tree = ElementTree.parse(path)
    except (OSError, ElementTree.ParseError):
        return None, []
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    failures = []
    for case in tree.iter("testcase"):
        test_id = pytest_id(case.get("classname", ""), case.get("name", ""))
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "errors"
                message = (child.get("message") or child.text or "").strip()
                failures.append((test_id, message.splitlines()[0] if message else child.tag))
                break
            if child.tag == "skipped":
                outcome = "skipped"
        counts[outcome] += 1
    return counts, failures


def cell_env(venv_python):
    """The tests' environment: the venv first on PATH, this clone's src on PYTHONPATH."""
    env = dict(os.environ)
    for name in ("PYTHONHOME", "VIRTUAL_ENV", "__PYVENV_LAUNCHER__"):
        env.pop(name, None)
    env["PYTHONPATH"] = os.path.join(ROOT, "src")   # this clone's dynalens, never an install
    env["PATH"] = os.path.dirname(venv_python) + os.pathsep + env.get("PATH", "")
    return env


def run_tests(result, python, work, pytest_args, timeout):
    """``pytest -m torch`` with the venv's python; fills ``result`` from the JUnit report (a
    run cut off by ``timeout`` or crashed before the report is an error, not a count)."""
    folder = os.path.join(work, result.cell.name)
    if not os.path.isdir(folder):
        os.makedirs(folder)
    junit = os.path.join(folder, "junit.xml")
    if os.path.exists(junit):
        os.remove(junit)
    result.log = os.path.join(folder, "pytest.log")
    command = [python, "-m", "pytest", "-m", "torch", "-q", "-p", "no:cacheprovider",
               "--junitxml", junit] + list(pytest_args)
    with open(result.log, "w"):
        pass
    result.returncode = cells.run_logged(command, result.log, cell_env(python), timeout)
    result.counts, result.failures = junit_counts(junit)
    if result.counts is None:
        result.error = "pytest ended without a report (exit %d), see %s" % (result.returncode,
                                                                           result.log)


class Runner(object):
    """Resolves, builds or reuses, and tests each cell; the seams are for the tests."""

    def __init__(self, args, log=None, find_native=discover.find_native, build=cells.build_venv,
                 probe=cells.probe_venv, test=run_tests):
        self.args = args
        self.log = log or (lambda text: print(text, flush=True))
        self._find_native = find_native
        self._build = build
        self._probe = probe
        self._test = test

    def prepare(self, cell):
        """(CellResult, venv python or None): the venv ready, or the reason it is not."""
        result = CellResult(cell)
        if cell.lock is None:
            venv = self.args.main_venv
            python = os.path.join(venv, "bin", "python")
            info = self._probe(python) if os.path.exists(python) else None
            if info is None:
                result.skipped = ("no README venv at %s (README command (b) builds it)"
                                  % _short(venv))
                return result, None
            result.venv, result.venv_state = venv, "README .venv"
        else:
            interpreter = self._find_native(cell.python)
            if interpreter is None:
                result.skipped = "no CPython %s found (PATH, pyenv, uv)" % cell.python
                return result, None
            key = cells.venv_key(cell.lock, interpreter.full_version)
            venv = cells.venv_dir(self.args.venv_root, cell, key)
            python = os.path.join(venv, "bin", "python")
            result.venv = venv
            info = self._probe(python) if os.path.exists(os.path.join(venv, MARKER)) else None
            if info is not None:
                result.venv_state = "reused"
            else:
                self.log("%s building %s from %s (python %s) ..."
                         % (cell.name, _short(venv), os.path.relpath(cell.lock, ROOT),
                            interpreter.full_version))
                log_path = os.path.join(self.args.work, cell.name, "build.log")
                if not os.path.isdir(os.path.dirname(log_path)):
                    os.makedirs(os.path.dirname(log_path))
                with open(log_path, "w"):
                    pass
                started = time.perf_counter()
                try:
                    info = self._build(interpreter, cell.lock, venv, log_path,
                                       self.args.build_timeout)
                except RuntimeError as exc:
                    result.error = str(exc)
                    return result, None
                result.venv_state = "built in %.0fs" % (time.perf_counter() - started)
                for path in cells.prune_stale(self.args.venv_root, cell, venv):
                    self.log("%s removed the stale venv %s" % (cell.name, _short(path)))
        result.interpreter = info["python"]
        torch = {cells.normalize(k): v for k, v in info["packages"].items()}.get("torch", "")
        if torch.split("+")[0] != cell.torch:
            result.error = "%s holds torch %s, not %s" % (_short(venv), torch or "(none)",
                                                          cell.torch)
            return result, None
        return result, python

    def run_cell(self, cell):
        """Prepare and test one cell; ``seconds`` counts the tests alone (a build is in
        ``venv_state``)."""
        result, python = self.prepare(cell)
        if python is not None:
            self.log("%s testing with %s (%s)" % (cell.name, _short(python), result.venv_state))
            started = time.perf_counter()
            self._test(result, python, self.args.work, self.args.pytest_args,
                       self.args.timeout)
            result.seconds = time.perf_counter() - started
        self.log("%s %s in %.0fs" % (cell.name, result.verdict(), result.seconds))
        return result


# ---------------------------------------------------------------------------------------------
# Report and command line


def _short(path, home=None):
    home = os.path.expanduser("~") if home is None else home
    if path and home and home != "/" and path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path


def table(results):
    rows = [("cell", "python", "venv", "passed", "failed", "errors", "skipped", "seconds",
             "result")]
    for r in results:
        c = r.counts or {}
        rows.append((r.cell.name, r.interpreter or "-", r.venv_state or "-",
                     str(c.get("passed", "-")), str(c.get("failed", "-")),
                     str(c.get("errors", "-")), str(c.get("skipped", "-")),
                     "%.0f" % r.seconds, r.verdict()))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]
                     for row in rows)


def exit_status(results, strict=False):
    if any(r.failed for r in results):
        return 1
    if strict and any(r.skipped for r in results):
        return 1
    return 0


def parse_args(argv):
    if argv is None:
        argv = sys.argv[1:]
    pytest_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, pytest_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(
        prog="torch_matrix.py",
        description="The lens tests (pytest -m torch) on each torch x Python cell, each in its "
                    "own locked venv. Arguments after -- go to pytest.")
    parser.add_argument("--cells", default="", metavar="CELL,...",
                        help="cell names or TORCH/PY such as 2.15/3.13 (default: all)")
    parser.add_argument("--list", action="store_true",
                        help="show each cell's interpreter and venv; build and run nothing")
    parser.add_argument("--strict", action="store_true",
                        help="a cell skipped for want of an interpreter fails the run")
    parser.add_argument("--venv-root", default=cells.venv_root(), metavar="DIR",
                        help="where the locked venvs live (default %(default)s)")
    parser.add_argument("--main-venv", default=os.path.join(ROOT, ".venv"), metavar="DIR",
                        help="the README venv, cell %s (default .venv)" % MAIN_CELL)
    parser.add_argument("--work", default=os.path.join(ROOT, "tmp", "torch_matrix"),
                        metavar="DIR",
                        help="logs and JUnit XML per cell (default tmp/torch_matrix)")
    parser.add_argument("--timeout", type=int, default=1500, metavar="S",
                        help="seconds for one cell's tests (default %(default)s)")
    parser.add_argument("--build-timeout", type=int, default=3600, metavar="S",
                        help="seconds for one venv's install (default %(default)s)")
    parser.add_argument("--relock", metavar="CELL",
                        help="regenerate locks/CELL.txt from locks/CELL.in, then stop")
    args = parser.parse_args(argv)
    args.pytest_args = pytest_args
    try:
        args.cells = cells.select_cells(cells.known_cells(), args.cells)
    except ValueError as exc:
        parser.error(str(exc))
    if args.relock:
        try:
            cells.parse_cell_name(args.relock)
        except ValueError as exc:
            parser.error(str(exc))
        if not os.path.exists(os.path.join(cells.LOCKS, args.relock + ".in")):
            parser.error("no %s.in in %s" % (args.relock, cells.LOCKS))
    return args


def list_cells(args, find_native=discover.find_native):
    lines = []
    for cell in args.cells:
        if cell.lock is None:
            where = args.main_venv
            state = "present" if os.path.exists(os.path.join(where, "bin", "python")) \
                else "absent (README command (b) builds it)"
            lines.append("%-22s README venv %s: %s" % (cell.name, _short(where), state))
            continue
        interpreter = find_native(cell.python)
        if interpreter is None:
            lines.append("%-22s SKIPPED (no CPython %s found (PATH, pyenv, uv))"
                         % (cell.name, cell.python))
            continue
        key = cells.venv_key(cell.lock, interpreter.full_version)
        venv = cells.venv_dir(args.venv_root, cell, key)
        state = "built" if os.path.exists(os.path.join(venv, MARKER)) else "to build"
        lines.append("%-22s %s -> %s (%s)" % (cell.name, interpreter.label(), _short(venv),
                                              state))
    return lines


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        print("\n".join(list_cells(args)))
        return 0
    if args.relock:
        python = cells.parse_cell_name(args.relock)[1]
        interpreter = discover.find_native(python)
        if interpreter is None:
            print("no CPython %s found (PATH, pyenv, uv)" % python, file=sys.stderr)
            return 1
        print("relocking %s: installing %s.in into a scratch venv of %s ..."
              % (args.relock, args.relock, interpreter.label()), flush=True)
        try:
            target = cells.relock(args.relock, interpreter, print, args.build_timeout)
        except RuntimeError as exc:
            print("relock failed: %s" % exc, file=sys.stderr)
            return 1
        print("wrote %s" % os.path.relpath(target, ROOT))
        return 0
    started = time.perf_counter()
    runner = Runner(args)
    results = [runner.run_cell(cell) for cell in args.cells]
    print()
    print(table(results))
    for result in results:
        if result.failures:
            print("\n%s: %d failing tests (log %s)" % (result.cell.name, len(result.failures),
                                                       os.path.relpath(result.log, ROOT)))
            for test_id, message in result.failures:
                print("  %s: %s" % (test_id, message[:160]))
    status = exit_status(results, args.strict)
    if args.strict and any(r.skipped for r in results):
        print("\n--strict: a skipped cell fails the run")
    print("\ntorch matrix: %d cells, %d failed, %d skipped; %.0fs in all"
          % (len(results), sum(r.failed for r in results),
             sum(bool(r.skipped) for r in results), time.perf_counter() - started))
    return status


if __name__ == "__main__":
    sys.exit(main())
