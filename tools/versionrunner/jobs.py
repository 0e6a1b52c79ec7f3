"""Run the construct tests and the stdlib round trip on one interpreter and read their results.

Both steps are separate processes that write JSON (``tools/corpus_check.py --json``,
``bench/roundtrip.py --json``): the runner never imports the decompiler itself, so a decompiler
that crashes, hangs or cannot even be imported on one version shows up as that version's result
instead of taking the runner down. Every step's output is kept in a log file beside the JSON.

For Pyodide the project's folders are mounted into its file system at ``/project`` and the
step's output folder at ``/out`` (tools/pyodide/run.mjs), so the same scripts run unchanged.
"""

import json
import os
import subprocess
import time

from . import pyodide as pyodide_mod

GUEST_ROOT = "/project"
GUEST_OUT = "/out"
GUEST_DIST = "/pyodide-dist"
GUEST_CORPUS = "/corpus"
FAILURES = "roundtrip-failures.txt"  # bench/roundtrip.py --failures: one block per failure
VERDICTS = "roundtrip-verdicts.json"  # bench/roundtrip.py --verdicts: for bench/ratchet.py
PROJECT_DIRS = ("src", "tools", "bench", "tests")


class StepResult(object):
    """What one step (corpus or roundtrip) left behind."""

    __slots__ = ("name", "returncode", "seconds", "data", "error", "log_path")

    def __init__(self, name, returncode=None, seconds=0.0, data=None, error=None, log_path=None):
        self.name = name
        self.returncode = returncode
        self.seconds = seconds
        self.data = data          # parsed JSON, None when the step produced none
        self.error = error        # why the step did not produce a usable result
        self.log_path = log_path


class VersionResult(object):
    """Everything the table shows for one Python version."""

    def __init__(self, version, interpreter=None, skipped=None):
        self.version = version
        self.interpreter = interpreter
        self.skipped = skipped        # reason text when no interpreter could be had
        self.corpus = None            # StepResult
        self.roundtrip = None         # StepResult
        self.seconds = 0.0


def _tail(text, lines=3):
    kept = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return " | ".join(kept[-lines:])[-300:]


def run_step(name, argv, json_path, log_path, timeout, env=None, cwd=None, runner=subprocess.run):
    """Run one step; a usable result needs the JSON file, whatever the exit status says."""
    if os.path.exists(json_path):
        os.remove(json_path)
    started = time.perf_counter()
    try:
        out = runner(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     universal_newlines=True, timeout=timeout, env=env, cwd=cwd)
        returncode, output = out.returncode, out.stdout or ""
        timed_out = False
    except subprocess.TimeoutExpired as exc:
        returncode, timed_out = None, True
        output = exc.output or ""
        if isinstance(output, bytes):
            output = output.decode("utf-8", "replace")
    except OSError as exc:
        return StepResult(name, None, time.perf_counter() - started, None,
                          "could not start %s: %s" % (argv[0], exc), log_path)
    seconds = time.perf_counter() - started
    with open(log_path, "w") as handle:
        handle.write("$ %s\n%s" % (" ".join(argv), output))
    if timed_out:
        return StepResult(name, None, seconds, None,
                          "timed out after %ds (log: %s)" % (timeout, log_path), log_path)
    data = None
    try:
        with open(json_path) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        pass
    if data is None:
        why = _tail(output) or "no output"
        return StepResult(name, returncode, seconds, None,
                          "exit %s, no results: %s" % (returncode, why), log_path)
    return StepResult(name, returncode, seconds, data, None, log_path)


def native_env(root):
    """The step sees the project's src/ first and writes no stray bytecode into the tree."""
    env = dict(os.environ)
    for name in ("PYTHONHOME", "VIRTUAL_ENV", "__PYVENV_LAUNCHER__"):
        env.pop(name, None)
    src = os.path.join(root, "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def step_commands(interpreter, root, out_dir, sample, node=None, roundtrip_args=(),
                  corpus_dir=None):
    """{step name: (argv, json path on the host)} for the two steps on ``interpreter``.

    ``roundtrip_args`` are passed on to bench/roundtrip.py (``--baseline``, for instance);
    ``corpus_dir`` replaces tests/corpus (a folder of snippets to try on every version).
    """
    extra = ["--quiet"] + list(roundtrip_args)
    corpus_args = ["--quiet"]
    corpus_json = os.path.join(out_dir, "corpus.json")
    roundtrip_json = os.path.join(out_dir, "roundtrip.json")
    if interpreter.kind == "native":
        python = interpreter.path
        return {
            "corpus": ([python, os.path.join(root, "tools", "corpus_check.py")] + corpus_args
                       + (["--corpus", os.path.abspath(corpus_dir)] if corpus_dir else [])
                       + ["--json", corpus_json], corpus_json),
            "roundtrip": ([python, os.path.join(root, "bench", "roundtrip.py"), "--sample",
                           str(sample), "--json", roundtrip_json, "--failures",
                           os.path.join(out_dir, FAILURES), "--verdicts",
                           os.path.join(out_dir, VERDICTS)] + extra, roundtrip_json),
        }
    dist = interpreter.path
    mounts = [(os.path.join(root, d), "%s/%s" % (GUEST_ROOT, d)) for d in PROJECT_DIRS
              if os.path.isdir(os.path.join(root, d))]
    mounts.append((out_dir, GUEST_OUT))
    paths = ["%s/src" % GUEST_ROOT]
    corpus_mounts = list(mounts)
    if corpus_dir:
        corpus_mounts.append((corpus_dir, GUEST_CORPUS))
        corpus_args += ["--corpus", GUEST_CORPUS]
    corpus = pyodide_mod.command(
        node, dist, "%s/tools/corpus_check.py" % GUEST_ROOT,
        corpus_args + ["--json", GUEST_OUT + "/corpus.json"], corpus_mounts, paths, GUEST_ROOT)
    args = ["--sample", str(sample), "--json", GUEST_OUT + "/roundtrip.json",
            "--failures", "%s/%s" % (GUEST_OUT, FAILURES),
            "--verdicts", "%s/%s" % (GUEST_OUT, VERDICTS)] + extra
    if pyodide_mod.stdlib_zip(dist):
        mounts = mounts + [(dist, GUEST_DIST)]
        args += ["--source-zip", GUEST_DIST + "/python_stdlib.zip"]
    roundtrip = pyodide_mod.command(node, dist, "%s/bench/roundtrip.py" % GUEST_ROOT, args,
                                    mounts, paths, GUEST_ROOT)
    return {"corpus": (corpus, corpus_json), "roundtrip": (roundtrip, roundtrip_json)}


def run_version(interpreter, root, work_dir, sample, timeout, node=None, roundtrip=True,
                roundtrip_args=(), corpus_dir=None, runner=subprocess.run):
    """Both steps on one interpreter -> VersionResult (never raises for a failing step)."""
    result = VersionResult(interpreter.version, interpreter)
    out_dir = os.path.join(work_dir, interpreter.version)
    if not os.path.isdir(out_dir):
        os.makedirs(out_dir)
    started = time.perf_counter()
    commands = step_commands(interpreter, root, out_dir, sample, node=node,
                             roundtrip_args=roundtrip_args, corpus_dir=corpus_dir)
    env = native_env(root) if interpreter.kind == "native" else None
    argv, json_path = commands["corpus"]
    result.corpus = run_step("corpus", argv, json_path, os.path.join(out_dir, "corpus.log"),
                             timeout, env=env, cwd=root, runner=runner)
    if roundtrip:
        script = os.path.join(root, "bench", "roundtrip.py")
        if not os.path.exists(script):
            result.roundtrip = StepResult("roundtrip", error="bench/roundtrip.py not found")
        else:
            argv, json_path = commands["roundtrip"]
            result.roundtrip = run_step("roundtrip", argv, json_path,
                                        os.path.join(out_dir, "roundtrip.log"), timeout,
                                        env=env, cwd=root, runner=runner)
    result.seconds = time.perf_counter() - started
    return result


_RULE = "=" * 78
_KIND_RANK = {"function": 0, "class": 1, "module": 2}


def first_examples(path):
    """{cause: "qualname (file)"} for the first failure of each cause in a --failures file.

    The file lists every failing code object as a block that starts with a rule line, then
    "<kind> <qualname>  (<path>)" and "cause: <cause>". Paths are shortened to what follows the
    stdlib folder (or Pyodide's python_stdlib.zip!).
    """
    examples = {}
    ranks = {}
    try:
        with open(path) as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return examples
    for number, line in enumerate(lines[:-2]):
        if line != _RULE or not lines[number + 2].startswith("cause: "):
            continue
        cause = lines[number + 2][len("cause: "):]
        head = lines[number + 1]
        kind_qualname, _, where = head.partition("  (")
        kind, _, qualname = kind_qualname.partition(" ")
        # A module or class body fails whenever something in it does: prefer the innermost.
        rank = _KIND_RANK.get(kind, 0)
        if cause in examples and rank >= ranks[cause]:
            continue
        where = where.rstrip(")")
        for marker in ("python_stdlib.zip!", "/lib/python"):
            at = where.find(marker)
            if at >= 0:
                where = where[at + len(marker):]
                if marker == "/lib/python":
                    where = where.split("/", 1)[-1]
                break
        examples[cause] = "%s (%s)" % (qualname, where)
        ranks[cause] = rank
    return examples

