"""Pyodide releases as interpreters: which release is which CPython, installing, running.

Why Pyodide: it is CPython compiled to WebAssembly and published on the npm registry, so one
``npm ci`` gives any machine with Node.js a real CPython 3.10 to 3.15 (3.14 and 3.15 exist
nowhere else for us). Each release is pinned with a committed package-lock.json under
``tools/pyodide/locks/<release>/`` so ``npm ci`` checks every tarball's integrity hash and
installs exactly what was tested. Releases go into a cache folder (``.pyodide/<release>/``,
git-ignored) and are reused.

Only the npm package itself is used: its ``python_stdlib.zip`` (or, in 0.22, the bundled file
system image) holds the standard library, and nothing is fetched from Pyodide's package CDN,
which is why code run inside it must not need pytest or any other third-party package.
"""

import json
import os
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
LOCKS = os.path.join(TOOLS, "pyodide", "locks")
RUN_MJS = os.path.join(TOOLS, "pyodide", "run.mjs")

# Python minor version -> (Pyodide release, the CPython it embeds). The newest release of each
# line; every one was installed and run here (sys.version checked). Older lines on npm
# (0.18-0.20, Python 3.9/3.10) ship without their WebAssembly files, so 3.8 and 3.9 are native
# only.
RELEASES = {
    "3.10": ("0.22.1", "3.10.2"),
    "3.11": ("0.25.1", "3.11.3"),
    "3.12": ("0.27.7", "3.12.7"),
    "3.13": ("0.29.5", "3.13.2"),
    "3.14": ("314.0.7", "3.14.2"),
    "3.15": ("315.0.0-alpha.2", "3.15.0rc1"),
}

MIN_NODE = (18, 0)


class PyodideUnavailable(Exception):
    """Why a Pyodide interpreter cannot be used here (shown as the SKIPPED reason)."""


def release_for(version):
    entry = RELEASES.get(version)
    return entry[0] if entry else None


def cache_dir(cache_root, release):
    return os.path.join(cache_root, release)


def dist_dir(cache_root, release):
    """The folder holding pyodide.mjs for an installed release."""
    return os.path.join(cache_dir(cache_root, release), "node_modules", "pyodide")


def installed_version(cache_root, release):
    """The version recorded in the installed package.json, or None when not installed."""
    dist = dist_dir(cache_root, release)
    try:
        with open(os.path.join(dist, "package.json")) as handle:
            meta = json.load(handle)
    except (OSError, ValueError):
        return None
    if not os.path.exists(os.path.join(dist, "pyodide.mjs")):
        return None
    return meta.get("version")


def stdlib_zip(dist):
    """python_stdlib.zip of a release, or None (0.22 keeps the stdlib in its FS image)."""
    path = os.path.join(dist, "python_stdlib.zip")
    return path if os.path.exists(path) else None


def find_node(which=shutil.which, run=subprocess.run):
    """Path of a Node.js new enough for Pyodide, else PyodideUnavailable with the reason."""
    node = which("node")
    if not node:
        raise PyodideUnavailable("Node.js not found (needed for Pyodide; install nodejs >= 18)")
    try:
        out = run([node, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  universal_newlines=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PyodideUnavailable("Node.js at %s does not run: %s" % (node, exc))
    match = re.match(r"v(\d+)\.(\d+)", out.stdout.strip())
    if not match or (int(match.group(1)), int(match.group(2))) < MIN_NODE:
        raise PyodideUnavailable("Node.js %s is too old for Pyodide (needs >= %d.%d)"
                                 % (out.stdout.strip() or "?", MIN_NODE[0], MIN_NODE[1]))
    return node


def install(release, cache_root, which=shutil.which, run=subprocess.run, timeout=600):
    """Install a pinned release into the cache with ``npm ci``; returns its dist folder.

    Idempotent: an installed release of the right version is left alone. Raises
    PyodideUnavailable with npm's own last words when the install fails (no npm, no network).
    """
    if installed_version(cache_root, release) == release:
        return dist_dir(cache_root, release)
    lock = os.path.join(LOCKS, release)
    if not os.path.exists(os.path.join(lock, "package-lock.json")):
        raise PyodideUnavailable("no pinned lock file for pyodide %s in %s" % (release, LOCKS))
    npm = which("npm")
    if not npm:
        raise PyodideUnavailable("npm not found (needed to install pyodide %s)" % release)
    target = cache_dir(cache_root, release)
    if os.path.isdir(target):
        shutil.rmtree(target)
    os.makedirs(target)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(os.path.join(lock, name), os.path.join(target, name))
    command = [npm, "ci", "--prefix", target, "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        out = run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                  universal_newlines=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PyodideUnavailable("npm ci for pyodide %s failed: %s" % (release, exc))
    if out.returncode != 0 or installed_version(cache_root, release) != release:
        lines = [line for line in (out.stdout or "").splitlines() if line.strip()]
        tail = "; ".join(lines[-2:]) or "exit status %d" % out.returncode
        raise PyodideUnavailable("npm ci for pyodide %s failed: %s" % (release, tail))
    return dist_dir(cache_root, release)


def command(node, dist, script, args, mounts, paths=(), cwd=None):
    """The argv that runs ``script args`` inside the release at ``dist``.

    ``mounts`` are (host folder, guest folder) pairs; ``script`` and ``paths`` are guest paths.
    """
    argv = [node, RUN_MJS, "--pyodide", dist]
    for host, guest in mounts:
        argv += ["--mount", "%s:%s" % (os.path.abspath(host), guest)]
    for path in paths:
        argv += ["--path", path]
    if cwd:
        argv += ["--cwd", cwd]
    return argv + ["--", script] + list(args)
