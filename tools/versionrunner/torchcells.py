"""The cells of the torch matrix and their locked venvs: what tools/torch_matrix.py runs in.

A cell is one torch release on one CPython minor version, named ``torch-<torch>-py<X.Y>``. The
README's ``.venv`` (constraints.txt) is the cell ``torch-2.13.0-py3.11``; every other cell is a
lock file ``tools/torch_matrix/locks/<cell>.txt`` that pins every package of its venv, made by
``relock`` from the direct pins in ``<cell>.in``.

Why venvs outside the clone, keyed by a hash: a registry torch is the CUDA build (about 5.6 GB
with its nvidia-* packages, minutes to install), so each venv is built once per machine into
``<root>/<cell>-<key>`` and reused by every run and every clone until its lock or interpreter
changes. Why the machine's pip configuration is ignored: a machine may cap torch there (a global
``constraint``); with ``PIP_CONFIG_FILE=/dev/null`` only the lock decides, and a lock may name
local wheel folders (``--find-links``) that pip skips where absent. The venv is then checked
against the lock, and a marker written last tells a finished build from one cut short.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile

from versionrunner import discover

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
LOCKS = os.path.join(TOOLS, "torch_matrix", "locks")

MAIN_CELL = "torch-2.13.0-py3.11"     # README command (b): .venv with constraints.txt
MARKER = "dynalens-matrix.json"       # written into a venv once its install is complete
_CELL_NAME = re.compile(r"^torch-(?P<torch>\d+\.\d+\.\d+)-py(?P<python>3\.\d+)$")
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;#]+)")
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
            match = PIN.match(line.strip())
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
    """Where the locked venvs live: $DYNALENS_VENV_ROOT, else the user's cache folder."""
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


def run_logged(command, log_path, env, timeout):
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
    if run_logged([interpreter.path, "-m", "venv", target], log_path, env, 300) != 0:
        raise RuntimeError("python -m venv failed, see %s" % log_path)
    python = os.path.join(target, "bin", "python")
    status = run_logged([python, "-m", "pip", "install", "--no-cache-dir", "--require-virtualenv",
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
        if run_logged([interpreter.path, "-m", "venv", venv], log_path, env, 300) != 0 or \
                run_logged([python, "-m", "pip", "install", "--no-cache-dir", "-r", source],
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
