"""Run the lens tests (``pytest -m torch``) on each torch x Python cell of the support matrix.

    python tools/torch_matrix.py [--cells CELL,...] [--strict] [--list] [--venv-root DIR]
                                 [--relock CELL] [-- PYTEST ARGS]

A cell is one torch release on one CPython minor version, named ``torch-<torch>-py<X.Y>``.
``torch-2.13.0-py3.11`` is the README's own ``.venv`` (README command (b), constraints.txt):
it is used as it is, never built here. Every other cell is a lock file,
``tools/torch_matrix/locks/<cell>.txt``: exact pins of every package of its virtualenv, made by
``--relock`` from the direct pins in ``<cell>.in``.

Why locked venvs outside the clone: a torch from the package registry is the CUDA build, about
5 GB with its nvidia-* packages, and takes minutes to install. Each venv lives in
``~/.cache/dynalens/venvs/<cell>-<key>`` (``--venv-root``, ``$DYNALENS_VENV_ROOT``), where
``<key>`` hashes the lock file and the interpreter's version, so every clone and every run reuses
it until the lock changes; a fresh machine builds it once. A build that did not finish leaves no
marker and is redone. dynalens itself is not installed into it: the tests import this clone's
``src`` through PYTHONPATH, so one venv serves any clone.

Why the machine's pip configuration is bypassed: a machine may cap torch in its pip config (a
global ``constraint`` file) to keep installs at the build on its disk. A matrix venv is installed
with ``PIP_CONFIG_FILE=/dev/null`` and without ``PIP_CONSTRAINT``, so only the lock decides the
versions; a lock may list local wheel folders (``--find-links``), which pip ignores where absent.
torch is never installed unpinned.

A cell whose Python has no interpreter here (PATH, pyenv, uv; see versionrunner/discover.py) is
shown as SKIPPED with the reason, never as passed; ``--strict`` makes a skipped cell fail the run.
Exit status 1 when a cell failed (a test failed, the venv could not be built, the venv holds
another torch than the cell's), 2 for bad arguments.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LOCKS = os.path.join(HERE, "torch_matrix", "locks")
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from versionrunner import discover  # noqa: E402

MAIN_CELL = "torch-2.13.0-py3.11"     # README command (b): .venv with constraints.txt
MARKER = "dynalens-matrix.json"       # written into a venv once its install is complete
_CELL_NAME = re.compile(r"^torch-(?P<torch>\d+\.\d+\.\d+)-py(?P<python>3\.\d+)$")
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;#]+)")
_PROBE = ("import importlib.metadata as m, json, sys; print(json.dumps({'python': "
          "'%d.%d.%d' % sys.version_info[:3], 'packages': {d.metadata['Name']: d.version "
          "for d in m.distributions() if d.metadata['Name']}}))")
# What ``python -m venv`` installs by itself (setuptools up to 3.11): never an error when the
# lock does not name it; the lock pins setuptools where torch requires it, and pip is not locked.
_BOOTSTRAP = {"pip", "setuptools"}


class Cell(object):
    """One torch release on one Python minor version; ``lock`` is None for the README venv."""

    __slots__ = ("name", "torch", "python", "lock")

    def __init__(self, name, torch, python, lock=None):
        self.name, self.torch, self.python, self.lock = name, torch, python, lock

    def __repr__(self):
        return "Cell(%r)" % self.name


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
# Cells and lock files


def normalize(name):
    """PEP 503 name: ``PyYAML`` and ``pyyaml``, ``typing_extensions`` and ``typing-extensions``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_cell_name(name):
    """``torch-2.15.0-py3.13`` -> ("2.15.0", "3.13"); ValueError for anything else."""
    match = _CELL_NAME.match(name)
    if not match:
        raise ValueError("a cell is named torch-<X.Y.Z>-py<3.N>, got %r" % name)
    return match.group("torch"), match.group("python")


def read_pins(path):
    """{normalized name: version} of a requirements file's ``name==version`` lines."""
    pins = {}
    with open(path) as handle:
        for line in handle:
            match = _PIN.match(line.strip())
            if match:
                pins[normalize(match.group("name"))] = match.group("version")
    return pins


def known_cells(locks_dir=LOCKS):
    """The README cell, then one cell per lock file, in (torch, python) order."""
    torch, python = parse_cell_name(MAIN_CELL)
    cells = [Cell(MAIN_CELL, torch, python)]
    names = sorted(f[:-4] for f in os.listdir(locks_dir) if f.endswith(".txt")) \
        if os.path.isdir(locks_dir) else []
    for name in names:
        torch, python = parse_cell_name(name)
        lock = os.path.join(locks_dir, name + ".txt")
        pinned = read_pins(lock).get("torch")
        if pinned != torch:
            raise ValueError("%s pins torch==%s but its name says %s" % (lock, pinned, torch))
        cells.append(Cell(name, torch, python, lock))
    cells.sort(key=lambda c: (tuple(int(p) for p in c.torch.split(".")),
                              discover.version_key(c.python)))
    return cells


def select_cells(cells, spec):
    """Cells named in ``spec`` (comma-separated names, or ``TORCH/PY`` such as ``2.15/3.13``,
    either half may be ``*``); all cells for an empty spec. ValueError names the known cells."""
    if not spec:
        return list(cells)
    chosen = []
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        if "/" in part:
            torch, _, python = part.partition("/")
            hits = [c for c in cells
                    if (torch == "*" or c.torch == torch or c.torch.startswith(torch + "."))
                    and (python == "*" or c.python == python)]
        else:
            hits = [c for c in cells if c.name == part]
        if not hits:
            raise ValueError("no cell matches %r (cells: %s)"
                             % (part, ", ".join(c.name for c in cells)))
        chosen.extend(c for c in hits if c not in chosen)
    return chosen


def venv_root(env=None):
    env = os.environ if env is None else env
    if env.get("DYNALENS_VENV_ROOT"):
        return env["DYNALENS_VENV_ROOT"]
    cache = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or
                                                      os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "dynalens", "venvs")


def venv_key(lock_path, python_version):
    """12 hex digits over the lock's bytes and the interpreter's full version ("3.13.0"): a
    changed lock or a new interpreter release gets a new venv, anything else reuses it."""
    digest = hashlib.sha256()
    with open(lock_path, "rb") as handle:
        digest.update(handle.read())
    digest.update(b"\0python " + python_version.encode("ascii"))
    return digest.hexdigest()[:12]


def venv_dir(root, cell, key):
    return os.path.join(root, "%s-%s" % (cell.name, key))


def pip_env(env=None):
    """The environment of a matrix install: no machine pip config, no constraint from it."""
    env = dict(os.environ if env is None else env)
    env["PIP_CONFIG_FILE"] = os.devnull
    for name in ("PIP_CONSTRAINT", "PIP_REQUIRE_VIRTUALENV", "PYTHONPATH", "PYTHONHOME"):
        env.pop(name, None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def lock_mismatches(pins, installed):
    """Lines saying where the venv's packages differ from the lock (empty when they agree)."""
    have = {normalize(name): version for name, version in installed.items()}
    lines = []
    for name, version in sorted(pins.items()):
        if name not in have:
            lines.append("%s==%s is not installed" % (name, version))
        elif have[name] != version:
            lines.append("%s is %s, the lock says %s" % (name, have[name], version))
    for name in sorted(set(have) - set(pins) - _BOOTSTRAP):
        lines.append("%s==%s is installed but not in the lock (relock)" % (name, have[name]))
    return lines


# ---------------------------------------------------------------------------------------------
# Venvs


def probe_venv(python):
    """{"python": "3.13.0", "packages": {name: version}} of a venv's interpreter, or None."""
    try:
        out = subprocess.run([python, "-c", _PROBE], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True, timeout=120,
                             env=discover._clean_env())
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    try:
        return json.loads(out.stdout)
    except ValueError:
        return None


def _run_logged(command, log_path, env, timeout):
    """Run ``command`` with its output appended to ``log_path``; returns the exit status."""
    with open(log_path, "a") as log:
        log.write("$ %s\n" % " ".join(command))
        log.flush()
        try:
            return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            log.write("\n(timed out after %ss)\n" % timeout)
            return 124


def build_venv(interpreter, lock, target, log_path, timeout):
    """Make ``target`` a venv of ``interpreter`` holding exactly ``lock``; raise RuntimeError.

    The marker is written last, so a build cut short is seen as absent and made again.
    """
    if os.path.exists(target):
        shutil.rmtree(target)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        os.makedirs(parent)
    env = pip_env()
    if _run_logged([interpreter.path, "-m", "venv", target], log_path, env, 300) != 0:
        raise RuntimeError("python -m venv failed, see %s" % log_path)
    python = os.path.join(target, "bin", "python")
    status = _run_logged([python, "-m", "pip", "install", "--no-cache-dir", "--require-virtualenv",
                          "-r", lock], log_path, env, timeout)
    if status != 0:
        raise RuntimeError("pip install -r %s failed (exit %d), see %s"
                           % (os.path.relpath(lock, ROOT), status, log_path))
    info = probe_venv(python)
    if info is None:
        raise RuntimeError("the new venv's python does not run, see %s" % log_path)
    wrong = lock_mismatches(read_pins(lock), info["packages"])
    if wrong:
        raise RuntimeError("the venv does not match its lock: " + "; ".join(wrong[:3]))
    with open(os.path.join(target, MARKER), "w") as handle:
        json.dump({"lock": os.path.basename(lock), "python": info["python"]}, handle)
    return info


def prune_stale(root, cell, keep):
    """Other venvs of this cell (an older lock or interpreter): each is gigabytes."""
    removed = []
    if not os.path.isdir(root):
        return removed
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if path != keep and name.startswith(cell.name + "-") and \
                re.match(r"^[0-9a-f]{12}$", name[len(cell.name) + 1:]):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


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
    result.returncode = _run_logged(command, result.log, cell_env(python), timeout)
    result.counts, result.failures = junit_counts(junit)
    if result.counts is None:
        result.error = "pytest ended without a report (exit %d), see %s" % (result.returncode,
                                                                           result.log)


class Runner(object):
    """Resolves, builds or reuses, and tests each cell; the seams are for the tests."""

    def __init__(self, args, log=None, find_native=discover.find_native, build=build_venv,
                 probe=probe_venv, test=run_tests):
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
            key = venv_key(cell.lock, interpreter.full_version)
            venv = venv_dir(self.args.venv_root, cell, key)
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
                for path in prune_stale(self.args.venv_root, cell, venv):
                    self.log("%s removed the stale venv %s" % (cell.name, _short(path)))
        result.interpreter = info["python"]
        torch = {normalize(k): v for k, v in info["packages"].items()}.get("torch", "")
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
# Relocking


def relock(cell, interpreter, log, timeout, locks_dir=LOCKS):
    """Install ``<cell>.in`` into a throwaway venv and write every installed version to
    ``<cell>.txt``, keeping the .in file's pip options (``--find-links``...). Returns the path."""
    source = os.path.join(locks_dir, cell + ".in")
    target = os.path.join(locks_dir, cell + ".txt")
    options = []
    with open(source) as handle:
        for line in handle:
            if line.startswith("-"):
                options.append(line.strip())
    scratch = tempfile.mkdtemp(prefix="dynalens-relock-")
    try:
        venv = os.path.join(scratch, "venv")
        log_path = os.path.join(scratch, "relock.log")
        env = pip_env()
        python = os.path.join(venv, "bin", "python")
        if _run_logged([interpreter.path, "-m", "venv", venv], log_path, env, 300) != 0 or \
                _run_logged([python, "-m", "pip", "install", "--no-cache-dir", "-r", source],
                            log_path, env, timeout) != 0:
            with open(log_path) as handle:
                log(handle.read()[-4000:])
            raise RuntimeError("installing %s failed" % source)
        info = probe_venv(python)
        if info is None:
            raise RuntimeError("the relock venv's python does not run")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    write_lock(target, cell, info["python"], options, info["packages"])
    return target


def write_lock(target, cell, python_version, options, packages):
    """The lock file: a header, the .in file's pip options, then ``name==version`` sorted."""
    pinned = sorted((name, version) for name, version in packages.items()
                    if normalize(name) != "pip")
    with open(target, "w") as handle:
        handle.write("# Generated by `python tools/torch_matrix.py --relock %s` from %s.in on\n"
                     "# CPython %s: every package of the cell's venv, pinned. Edit the .in file,"
                     " then relock.\n" % (cell, cell, python_version))
        for option in options:
            handle.write(option + "\n")
        for name, version in pinned:
            handle.write("%s==%s\n" % (name, version))


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
    parser.add_argument("--venv-root", default=venv_root(), metavar="DIR",
                        help="where the locked venvs live (default %(default)s)")
    parser.add_argument("--main-venv", default=os.path.join(ROOT, ".venv"), metavar="DIR",
                        help="the README venv, cell %s (default .venv)" % MAIN_CELL)
    parser.add_argument("--work", default=os.path.join(ROOT, "tmp", "torch_matrix"),
                        metavar="DIR", help="logs and JUnit XML per cell (default tmp/torch_matrix)")
    parser.add_argument("--timeout", type=int, default=1500, metavar="S",
                        help="seconds for one cell's tests (default %(default)s)")
    parser.add_argument("--build-timeout", type=int, default=3600, metavar="S",
                        help="seconds for one venv's install (default %(default)s)")
    parser.add_argument("--relock", metavar="CELL",
                        help="regenerate locks/CELL.txt from locks/CELL.in, then stop")
    args = parser.parse_args(argv)
    args.pytest_args = pytest_args
    try:
        args.cells = select_cells(known_cells(), args.cells)
    except ValueError as exc:
        parser.error(str(exc))
    if args.relock:
        try:
            parse_cell_name(args.relock)
        except ValueError as exc:
            parser.error(str(exc))
        if not os.path.exists(os.path.join(LOCKS, args.relock + ".in")):
            parser.error("no %s.in in %s" % (args.relock, LOCKS))
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
        venv = venv_dir(args.venv_root, cell, venv_key(cell.lock, interpreter.full_version))
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
        python = parse_cell_name(args.relock)[1]
        interpreter = discover.find_native(python)
        if interpreter is None:
            print("no CPython %s found (PATH, pyenv, uv)" % python, file=sys.stderr)
            return 1
        print("wrote %s" % relock(args.relock, interpreter, print, args.build_timeout))
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
    print("\ntorch matrix: %d cells, %d failed, %d skipped; %.0fs in all"
          % (len(results), sum(r.failed for r in results),
             sum(bool(r.skipped) for r in results), time.perf_counter() - started))
    return status


if __name__ == "__main__":
    sys.exit(main())
