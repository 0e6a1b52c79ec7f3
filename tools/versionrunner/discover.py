"""Find a native CPython for each minor version, the way nox and tox do: by asking the machine.

Why probe instead of trusting names: a ``python3.12`` on PATH may be a pyenv shim that only
prints "command not found" when that version is not selected, a pyenv folder may hold a
free-threaded or PyPy build, and a symlink may point elsewhere. Each candidate is therefore run
once and must report itself as CPython of the wanted minor version before it is used.

Places searched, in order: ``--python X.Y=PATH`` given by the user, ``python3.Y`` on PATH, the
pyenv versions folder (``$PYENV_ROOT`` or ``~/.pyenv``), uv's managed interpreters
(``$UV_PYTHON_INSTALL_DIR`` or ``~/.local/share/uv/python``), and the interpreter running this
script.
"""

import os
import re
import shutil
import subprocess
import sys

VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]

_PROBE = ("import sys; print(sys.implementation.name, '%d.%d.%d' % sys.version_info[:3], "
          "sys.version_info.releaselevel, sys.version_info.serial, sys.executable)")
# "3.12.1", "3.15.0rc1"; not "3.13.0t" (free-threaded), "pypy3.10-7.3.15" or "3.12-dev".
_RELEASE_DIR = re.compile(r"^3\.(\d+)\.(\d+)(?:(a|b|rc)(\d+))?$")
_UV_DIR = re.compile(r"^cpython-3\.(\d+)\.(\d+)(?:(a|b|rc)(\d+))?-[^+]*$")
_LEVEL_ORDER = {"a": 0, "b": 1, "rc": 2, None: 3}


class Interpreter(object):
    """One usable interpreter for one minor version."""

    __slots__ = ("version", "kind", "path", "full_version", "release")

    def __init__(self, version, kind, path=None, full_version=None, release=None):
        self.version = version          # "3.12"
        self.kind = kind                # "native" or "pyodide"
        self.path = path                # executable (native) or Pyodide dist folder
        self.full_version = full_version  # "3.12.1" / "3.15.0rc1"
        self.release = release          # Pyodide release ("314.0.7"); None for native

    def label(self, home=None):
        """How the table names it: a path (home shortened to ~) or ``pyodide X (3.Y.Z)``."""
        if self.kind == "pyodide":
            text = "pyodide %s" % self.release
            return text + (" (%s)" % self.full_version if self.full_version else "")
        home = os.path.expanduser("~") if home is None else home
        path = self.path or "?"
        if home and home != "/" and path.startswith(home + os.sep):
            path = "~" + path[len(home):]
        return path

    def __repr__(self):
        return "Interpreter(%r, %r, %r)" % (self.version, self.kind, self.path)


def version_key(version):
    """"3.10" -> (3, 10), so versions sort numerically."""
    major, minor = version.split(".")
    return int(major), int(minor)


def parse_versions(text):
    """``"3.8,3.14"`` or ``"3.10-3.12"`` -> sorted list of known minor versions."""
    wanted = set()
    for part in [p.strip() for p in (text or "").split(",") if p.strip()]:
        if "-" in part:
            low, high = [version_key(v.strip()) for v in part.split("-", 1)]
            chosen = [v for v in VERSIONS if low <= version_key(v) <= high]
            if not chosen:
                raise ValueError("no supported version in the range %r (supported: %s)"
                                 % (part, ", ".join(VERSIONS)))
            wanted.update(chosen)
        elif part in VERSIONS:
            wanted.add(part)
        else:
            raise ValueError("unsupported version %r: choose from %s" % (part, ", ".join(VERSIONS)))
    return sorted(wanted, key=version_key)


def probe(path, timeout=30):
    """(implementation, "3.12.1", level, serial, executable) of ``path``, or None if unusable."""
    try:
        out = subprocess.run([path, "-c", _PROBE], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=timeout,
                             universal_newlines=True, env=_clean_env())
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    fields = out.stdout.strip().split(" ", 4)
    if len(fields) != 5:
        return None
    impl, full, level, serial, executable = fields
    short = {"alpha": "a", "beta": "b", "candidate": "rc"}.get(level)
    if short:
        full += "%s%s" % (short, serial)
    return impl, full, level, serial, executable


def _clean_env():
    """The probe must see the interpreter as a user would, not this runner's virtualenv."""
    env = dict(os.environ)
    for name in ("PYTHONHOME", "PYTHONPATH", "VIRTUAL_ENV", "__PYVENV_LAUNCHER__"):
        env.pop(name, None)
    return env


def _release_sort_key(match):
    minor, micro, level, serial = match.groups()
    return int(micro), _LEVEL_ORDER[level], int(serial or 0)


def _managed_candidates(root, pattern, minor, binary):
    """Executables in a folder of per-version installs (pyenv, uv), newest release first."""
    if not root or not os.path.isdir(root):
        return []
    found = []
    for name in os.listdir(root):
        match = pattern.match(name)
        if match and int(match.group(1)) == minor:
            found.append((_release_sort_key(match), os.path.join(root, name, "bin", binary)))
    found.sort(reverse=True)
    return [path for _, path in found if os.path.exists(path)]


def candidate_paths(version, env=None, path_dirs=None, own_executable=None):
    """Every place that may hold CPython ``version``, in the order they are tried."""
    env = os.environ if env is None else env
    minor = version_key(version)[1]
    binary = "python%s" % version
    found = []
    search = os.pathsep.join(path_dirs) if path_dirs is not None else env.get("PATH", "")
    on_path = shutil.which(binary, path=search)
    if on_path:
        found.append(on_path)
    home = env.get("HOME") or os.path.expanduser("~")
    pyenv_root = env.get("PYENV_ROOT") or os.path.join(home, ".pyenv")
    found.extend(_managed_candidates(os.path.join(pyenv_root, "versions"), _RELEASE_DIR,
                                     minor, binary))
    uv_root = env.get("UV_PYTHON_INSTALL_DIR") or os.path.join(home, ".local", "share", "uv",
                                                               "python")
    found.extend(_managed_candidates(uv_root, _UV_DIR, minor, binary))
    own = sys.executable if own_executable is None else own_executable
    if own:
        found.append(own)
    unique = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def find_native(version, explicit=None, env=None, path_dirs=None, prober=probe,
                own_executable=None):
    """The first candidate that really is CPython ``version``, as an Interpreter, or None.

    ``explicit`` (a path from ``--python``) is the only candidate when given: a user who names
    an interpreter wants that one or an error, not a silent substitute.
    """
    if explicit:
        paths = [explicit]
    else:
        paths = candidate_paths(version, env=env, path_dirs=path_dirs,
                                own_executable=own_executable)
    for path in paths:
        info = prober(path)
        if info is None:
            continue
        impl, full, _level, _serial, executable = info
        if impl != "cpython" or ".".join(full.split(".")[:2]) != version:
            continue
        # Run what the interpreter says it is (sys.executable): a pyenv shim resolves to the
        # real binary, so the table names the interpreter rather than a launcher, and a later
        # change of pyenv's global version cannot swap it mid-run. A venv keeps its own path.
        return Interpreter(version, "native", path=executable or path, full_version=full)
    return None
