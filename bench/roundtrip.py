"""Stdlib round trip: decompile every code object of the standard library and verify it.

For each .py file of the running interpreter's stdlib (tests excluded), or of --source-root /
--source-zip, this compiles the file, then decompiles the module code and every nested code
object ALONE (functions, methods, lambdas, comprehensions, class bodies), recompiles each output
and compares normalized bytecode with dynalens' verify(). It prints how much comes back exact,
what fails and why, and how fast decompilation is: the time of decompile_code (which verifies
and marks its own output, so verification is included; this script's second verify() is not
counted) and its ratio to the CPU time of compile() of the same files, measured in the same run.

Only the standard library is used, so the same script runs on CPython 3.8-3.15 and under Pyodide
(where the stdlib is python_stdlib.zip: use --source-zip, and -j is ignored).

    python bench/roundtrip.py [--sample N] [-j N] [--json OUT] [--failures OUT] [--quiet]
                              [--verdicts OUT] [--ratchet]
    python bench/roundtrip.py --baseline     # hand verify() the true source: must be 100%
    python bench/roundtrip.py --strict       # also count outputs exact under verify(strict=True)
    python bench/roundtrip.py --strict --strict-failures OUT   # ... and write the strict misses
    python bench/roundtrip.py --digest       # one hash over every output and verdict

--digest prints a SHA-256 over every code object's output text (or its error's last line) and
verdict, in walk order: a pure refactor of the decompiler must leave it unchanged, so two runs
(before and after, same interpreter, same files) compare in one line. Set PYTHONHASHSEED=0
(or any fixed value) for it: a frozenset constant (``x in {'a', 'b'}``) prints in the order of
its strings' hashes, which differ from run to run otherwise.

Every file is timed: the summary lists those whose round trip took more than --slow CPU
seconds (default 10: a defect, on the stdlib or on torch and transformers; CPU time, since a
loaded machine multiplies wall time) with their slowest code object; --timeout S cuts a file off after S seconds (where signals work), so one walk that
hangs cannot stall a run over a whole tree.

--strict adds the strict figure: of the exact outputs, how many are still exact when what the
compiler decides from line layout counts too (NOPs, superinstructions, jump forms; see
verify.py). With --baseline unparse it gives the ceiling an ast-based renderer can reach.
"""

import argparse
import collections
import hashlib
import io
import json
import os
import platform
import re
import sys
import time
import traceback
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.append(HERE)  # bench/ratchet.py
SRC = os.path.join(os.path.dirname(HERE), "src")
if os.path.isdir(SRC) and SRC not in sys.path:
    sys.path.insert(0, SRC)

from dynalens.decompiler.errors import DecompilationError  # noqa: E402
from dynalens.decompiler import verify as _verify_module  # noqa: E402

verify = _verify_module.verify
NOT_COMPILING = _verify_module.SOURCE_DOES_NOT_COMPILE

EXCLUDED_DIRS = frozenset(["test", "tests", "idle_test", "site-packages", "dist-packages",
                           "__pycache__"])
CO_OPTIMIZED = 0x0001
MAX_TRACEBACKS = 5


# ---------------------------------------------------------------------------------------------
# Which files


def _excluded(relpath):
    parts = relpath.replace("\\", "/").split("/")[:-1]
    return any(part in EXCLUDED_DIRS for part in parts)


def stdlib_root():
    import sysconfig
    return sysconfig.get_paths()["stdlib"]


def collect_from_dir(root):
    """(display path, loader) pairs for every .py under root, sorted, tests excluded."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED_DIRS)
        for name in filenames:
            if name.endswith(".py"):
                full = os.path.join(dirpath, name)
                if not _excluded(os.path.relpath(full, root)):
                    found.append(full)
    return [("file", path) for path in sorted(found)]


def collect_from_zip(zip_path):
    with zipfile.ZipFile(zip_path) as archive:
        names = [n for n in archive.namelist() if n.endswith(".py") and not _excluded(n)]
    return [("zip", zip_path + "!" + name) for name in sorted(names)]


def read_source(entry):
    kind, where = entry
    if kind == "file":
        with open(where, "rb") as handle:
            return where, handle.read()
    zip_path, name = where.split("!", 1)
    with zipfile.ZipFile(zip_path) as archive:
        return where, archive.read(name)


def sample(entries, count):
    """A deterministic, evenly spread sample: the same N files on every run and machine."""
    if count is None or count >= len(entries):
        return entries
    if count <= 0:
        return []
    stride = len(entries) / float(count)
    return [entries[int(i * stride)] for i in range(count)]


# ---------------------------------------------------------------------------------------------
# One file


def walk_code(code):
    """Every code object nested in ``code`` (not ``code`` itself), depth first."""
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            yield const
            for inner in walk_code(const):
                yield inner


def kind_of(code):
    """'function' for function-level code (defs, lambdas, comprehensions, genexps, annotation
    scopes: all optimized frames), 'class' for class bodies."""
    return "function" if code.co_flags & CO_OPTIMIZED else "class"


def bucket_for_error(exc):
    opname = getattr(exc, "opname", None)
    if opname:
        return "DecompilationError at %s" % opname
    message = getattr(exc, "message", None) or str(exc)
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", message)
    message = re.sub(r"\d+", "N", message)
    return "DecompilationError: " + message[:70]


_EXPECTED_GOT = re.compile(r"expected (\S+).*?, got (\S+)")


def bucket_for_difference(difference):
    if difference.startswith(NOT_COMPILING):
        return "output does not compile: " + re.sub(r"\(line \d+\)", "", difference[len(
            NOT_COMPILING):]).strip(" :")[:60]
    text = difference.split(": ", 1)[-1]
    if "at instruction #" in difference:
        tail = difference.split("at instruction #", 1)[1]
        match = _EXPECTED_GOT.search(tail)
        if match:
            want, have = [("end of code" if op == "end" else op)
                          for op in (match.group(1).rstrip(","), match.group(2).rstrip(","))]
            if want != have:
                return "%s instead of %s" % (have, want)
            return "%s: %s" % (want, _same_opname_detail(tail))
    for field in ("co_varnames", "co_cellvars", "co_freevars", "co_argcount",
                  "co_posonlyargcount", "co_kwonlyargcount", "flags", "docstring",
                  "exception table", "no code object named", "code named"):
        if field in text:
            return "differs: " + field
    return "differs: " + text[:60]


def _same_opname_detail(tail):
    """Why two instructions with the same opname differ, in a word or two."""
    expected, _, got = tail.partition(", got ")
    expected = expected.split("expected ", 1)[-1]
    if "NULL" in expected and "NULL" not in got:
        return "missing NULL push"
    if "NULL" in got and "NULL" not in expected:
        return "extra NULL push"
    if " to #" in expected and " to #" in got:
        return "different jump target"
    return "different argument"


class FileResult(object):
    """Everything one worker learned about one file; plain data so it pickles across -j."""

    def __init__(self, path):
        self.path = path
        self.compiles = True
        self.counts = collections.Counter()  # "<kind>", "<kind>_exact"
        self.module_exact = False
        self.all_alone_exact = True
        self.not_compiling = 0
        self.exceptions = 0
        self.tracebacks = []
        self.buckets = collections.Counter()
        self.failures = []  # (kind, qualname, cause, difference, decompiled source or None)
        self.unmarked = []  # qualnames of outputs not exact that carry no '# dynalens:' line
        self.seconds = collections.Counter()  # wall and cpu seconds per kind, compile time
        self.verdicts = []  # (qualname, first line, "exact" or the cause), in walk order
        self.strict_buckets = collections.Counter()  # --strict: why exact ones are not strictly
        self.strict_failures = []  # --strict-failures: (kind, qualname, cause, difference,
        #                            decompiled source, the original's lines)
        self.source_lines = None  # the file's lines, kept for --strict-failures
        self.digest = ""  # hex SHA-256 chained over every output (or error) and verdict
        self.file_seconds = 0.0  # wall seconds of the whole file (compile, decompile, verify)
        self.file_cpu = 0.0  # CPU seconds of the same (what --slow compares: load-free)
        self.slowest = (0.0, None)  # (wall seconds, qualname) of its slowest code object
        self.timed_out = False  # --timeout: the file was cut off (counts so far are kept)


def _digest_text(result, text):
    """Chain ``text`` into the file's digest (kept as a string so results pickle for -j)."""
    result.digest = hashlib.sha256((result.digest + "\0" + text).encode(
        "utf-8", "surrogatepass")).hexdigest()


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)


def round_trip(code, kind, decompile_code, result, keep_sources, true_source, qualname=None):
    """Decompile one code object alone and verify it; record the outcome under ``kind`` (and
    its verdict for the ratchet, bench/ratchet.py)."""
    exact = _round_trip(code, kind, decompile_code, result, keep_sources, true_source)
    cause = "exact" if exact else result.failures[-1][2]
    result.verdicts.append((qualname or _qualname(code), code.co_firstlineno, cause))
    _digest_text(result, "%s %s" % (qualname or _qualname(code), cause))
    return exact


def _round_trip(code, kind, decompile_code, result, keep_sources, true_source):
    started = time.perf_counter()
    try:
        return _round_trip_timed(code, kind, decompile_code, result, keep_sources, true_source)
    finally:
        seconds = time.perf_counter() - started
        if seconds > result.slowest[0]:
            result.slowest = (seconds, _qualname(code))


def _round_trip_timed(code, kind, decompile_code, result, keep_sources, true_source):
    result.counts[kind] += 1
    started, started_cpu = time.perf_counter(), time.process_time()
    try:
        if decompile_code is None:
            text = true_source
        else:
            text = decompile_code(code)
    except DecompilationError as exc:
        result.seconds[kind] += time.perf_counter() - started
        result.seconds[kind + "_cpu"] += time.process_time() - started_cpu
        cause = bucket_for_error(exc)
        _digest_text(result, str(exc))
        result.buckets[cause] += 1
        result.failures.append((kind, _qualname(code), cause, str(exc), None))
        return False
    except Exception:
        result.seconds[kind] += time.perf_counter() - started
        result.seconds[kind + "_cpu"] += time.process_time() - started_cpu
        result.exceptions += 1
        formatted = traceback.format_exc()
        if len(result.tracebacks) < MAX_TRACEBACKS:
            result.tracebacks.append("%s (%s):\n%s" % (_qualname(code), result.path, formatted))
        cause = "crash: " + formatted.strip().splitlines()[-1][:70]
        _digest_text(result, formatted.strip().splitlines()[-1])  # (not the line numbers)
        result.buckets[cause] += 1
        result.failures.append((kind, _qualname(code), cause, formatted, None))
        return False
    result.seconds[kind] += time.perf_counter() - started
    result.seconds[kind + "_cpu"] += time.process_time() - started_cpu
    _digest_text(result, text if isinstance(text, str) else text.decode("utf-8", "replace"))

    outcome = verify(code, text)
    if outcome:
        result.counts[kind + "_exact"] += 1
        if STRICT[0] and kind == "function":  # (the strict figure counts functions)
            strict = verify(code, text, strict=True)
            if strict:
                result.counts[kind + "_strict"] += 1
            else:
                cause = bucket_for_difference(strict.difference)
                result.strict_buckets[cause] += 1
                if keep_sources:  # (with --baseline: the true source, or its unparse)
                    result.strict_failures.append((kind, _qualname(code), cause,
                                                   strict.difference, text,
                                                   original_lines(code, result.source_lines)))
        return True
    if decompile_code is not None:
        # decompile() marks what it could not verify: every inexact output must say so
        if MARKERS.search(text):
            result.counts["not_exact_marked"] += 1
        else:
            result.unmarked.append("%s %s" % (kind, _qualname(code)))
    if outcome.difference.startswith(NOT_COMPILING):
        result.not_compiling += 1
    cause = bucket_for_difference(outcome.difference)
    result.buckets[cause] += 1
    result.failures.append((kind, _qualname(code), cause, outcome.difference,
                            text if keep_sources and decompile_code is not None else None))
    return False


BASELINE_UNPARSE = [False]
STRICT = [False]  # --strict, set in each worker
MARKERS = re.compile(r"^[ \t]*# dynalens: (not exact|could not decompile): ", re.M)


def _unparsed(data, path):
    import ast
    return ast.unparse(ast.parse(data, path))


def original_lines(code, source_lines):
    """The lines of the file that ``code``'s line table covers (first to last), numbered, or
    None without the file's text."""
    if not source_lines:
        return None
    numbers = [code.co_firstlineno]
    lines = getattr(code, "co_lines", None)
    if lines is not None:
        numbers += [line for _, _, line in lines() if line is not None]
    else:
        import dis
        numbers += [line for _, line in dis.findlinestarts(code)]
    first, last = min(numbers), min(max(numbers), len(source_lines))
    return "".join("%5d  %s" % (number, source_lines[number - 1])
                   for number in range(first, last + 1))


class FileTimeout(BaseException):
    """--timeout: raised by the interval timer inside a file's round trip (a BaseException, so
    the per-code-object ``except Exception`` does not swallow it)."""


TIMEOUT = [0]  # --timeout seconds per file, set in each worker (0: none)


def _on_alarm(signum, frame):
    raise FileTimeout()


def process_file(entry, decompile_code, keep_sources):
    """The file's round trip, timed; cut off after --timeout seconds where signals allow."""
    started, started_cpu = time.perf_counter(), time.process_time()
    armed = False
    if TIMEOUT[0] and decompile_code is not None:
        try:
            import signal
            signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, TIMEOUT[0])
            armed = True
        except (ImportError, AttributeError, ValueError, OSError):  # Pyodide, not main thread
            pass
    holder = []
    try:
        return _process_file(entry, decompile_code, keep_sources, holder)
    except FileTimeout:
        holder[0].timed_out = True
        return holder[0]
    finally:
        if armed:
            import signal
            signal.setitimer(signal.ITIMER_REAL, 0)
        if holder:
            holder[0].file_seconds = time.perf_counter() - started
            holder[0].file_cpu = time.process_time() - started_cpu


def _process_file(entry, decompile_code, keep_sources, holder):
    path, data = read_source(entry)
    result = FileResult(path)
    holder.append(result)
    if keep_sources and STRICT[0]:
        result.source_lines = data.decode("utf-8", "replace").splitlines(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. invalid escapes in old stdlib files
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            module = compile(data, path, "exec", dont_inherit=True)
        except Exception:  # SyntaxError, ValueError: not Python for this interpreter version
            result.compiles = False
            return result
        result.seconds["compile_cpu"] += time.process_time() - started_cpu
        result.seconds["compile"] += time.perf_counter() - started
    true_source = None
    if decompile_code is None:  # --baseline: the true source, or the same after ast.unparse
        true_source = data if BASELINE_UNPARSE[0] is False else _unparsed(data, path)
    result.module_exact = round_trip(module, "module", decompile_code, result, keep_sources,
                                     true_source, "<module>")
    for code, qualname in walk_named(module):
        if not round_trip(code, kind_of(code), decompile_code, result, keep_sources, true_source,
                          qualname):
            result.all_alone_exact = False
    return result


def walk_named(code, prefix="", own=True):
    """(code object, qualified name) for every code object nested in ``code``, depth first
    (as walk_code): ``co_qualname`` on 3.11+ (``own``), the same dotted form built from the
    nesting before (a function's children under ``<locals>``)."""
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            qualname = (own and getattr(const, "co_qualname", None)) or prefix + const.co_name
            yield const, qualname
            inner = qualname + (".<locals>." if const.co_flags & CO_OPTIMIZED else ".")
            for item in walk_named(const, inner, own):
                yield item


def verdicts_document(results, entries_root, options, whole=True):
    """The per-code-object verdicts of a run (bench/ratchet.py reads them); ``whole``: the
    run covered every file (a --sample as large as the tree is no sample)."""
    verdicts = collections.OrderedDict()
    files = []
    for result in results:
        if not result.compiles:
            continue
        rel = relative_name(result.path, entries_root)
        files.append(rel)
        for qualname, line, cause in result.verdicts:
            key = "%s::%s:%d" % (rel, qualname, line)
            if key in verdicts:
                n = 2
                while "%s#%d" % (key, n) in verdicts:
                    n += 1
                key = "%s#%d" % (key, n)
            verdicts[key] = cause
    return collections.OrderedDict([
        ("python", sys.version.split()[0]),
        ("implementation", platform.python_implementation()),
        ("mode", "baseline" if options.baseline else "decompile"),
        ("sample", None if whole else options.sample),
        ("files", files),
        ("verdicts", verdicts),
    ])


def default_verdicts_path(python_version):
    """tmp/roundtrip-verdicts-<X.Y>.json of the checkout, or None where it cannot be written
    (Pyodide mounts only the folders it needs)."""
    folder = os.path.join(os.path.dirname(HERE), "tmp")
    try:
        if not os.path.isdir(folder):
            os.makedirs(folder)
    except OSError:
        return None
    path = os.path.join(folder, "roundtrip-verdicts-%s.json" % ".".join(
        python_version.split(".")[:2]))
    return path if os.access(folder, os.W_OK) else None


def relative_name(path, root):
    """A file's name relative to the tree it came from, with '/' separators."""
    if "!" in path and not os.path.exists(path):
        return path.split("!", 1)[1]
    return os.path.relpath(path, root).replace(os.sep, "/")


# ---------------------------------------------------------------------------------------------
# Many files


_WORKER_STATE = {}


def _worker_init(baseline, keep_sources, strict=False, timeout=0):
    BASELINE_UNPARSE[0] = baseline == "unparse"
    STRICT[0] = strict
    TIMEOUT[0] = timeout or 0
    _WORKER_STATE["decompile"] = None if baseline else load_decompiler()
    _WORKER_STATE["keep"] = keep_sources


def _worker_run(entry):
    before = MARKING_SECONDS[0]
    result = process_file(entry, _WORKER_STATE["decompile"], _WORKER_STATE["keep"])
    result.seconds["marking_cpu"] += MARKING_SECONDS[0] - before
    return result


def load_decompiler():
    try:
        import importlib
        render = importlib.import_module("dynalens.decompiler.render")
    except ImportError as exc:
        raise SystemExit("roundtrip: cannot import dynalens.decompiler.render.decompile_code "
                         "(%s); use --baseline to check verify() alone" % exc)
    _time_marking(render)
    return render.decompile_code


MARKING_SECONDS = [0.0]


def _time_marking(render):
    """Count the time decompile_code spends verifying and marking its own output (part of
    the decompile seconds), when this version of the core does that (``check`` verifies,
    ``finish`` marks; older cores verify inside ``finish``; since round ten the text is
    compiled for ``check`` by ``compiled_source`` beforehand, so that one is counted too)."""
    for attribute in ("compiled_source", "check", "finish"):
        original = getattr(render, attribute, None)
        if original is None or getattr(original, "_timed", False):
            continue
        setattr(render, attribute, _timed(original))


def _timed(function):
    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            MARKING_SECONDS[0] += time.process_time() - started

    timed._timed = True
    return timed


def _keep(options):
    """Whether workers keep decompiled sources (for --failures / --strict-failures)."""
    return bool(options.failures or options.strict_failures)


def run_all(entries, options, progress):
    """Results for every entry, in order; with -j N through a process pool."""
    results = []
    jobs = options.jobs
    if jobs > 1:
        try:
            import multiprocessing
            pool = multiprocessing.Pool(jobs, _worker_init, (options.baseline,
                                                             _keep(options),
                                                             options.strict,
                                                             options.timeout))
        except (ImportError, OSError, NotImplementedError) as exc:  # Pyodide: no processes
            sys.stderr.write("roundtrip: -j %d unavailable here (%s); running serially\n"
                             % (jobs, exc))
            jobs = 1
    if jobs <= 1:
        _worker_init(options.baseline, _keep(options), options.strict, options.timeout)
        for number, entry in enumerate(entries):
            progress(number, entry)
            results.append(_worker_run(entry))
        return results
    try:
        for number, result in enumerate(pool.imap(_worker_run, entries, chunksize=4)):
            progress(number, (None, result.path))
            results.append(result)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
    return results


class Progress(object):
    """A plain \\r counter on stderr, only when stderr is a terminal (no dependency: Pyodide)."""

    def __init__(self, total, enabled):
        self.total = total
        self.enabled = enabled and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()

    def __call__(self, number, entry):
        if self.enabled:
            name = entry[1][-50:]
            sys.stderr.write("\r[%d/%d] %-50s" % (number + 1, self.total, name))
            sys.stderr.flush()

    def done(self):
        if self.enabled:
            sys.stderr.write("\r" + " " * 70 + "\r")
            sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# Summary


def peak_rss_mib():
    """Peak resident set size of this process and its finished children, or None (Pyodide)."""
    try:
        import resource
    except ImportError:
        return None
    scale = 1.0 / 1024 if sys.platform != "darwin" else 1.0 / (1024 * 1024)  # KiB vs bytes
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) * scale


def traced_peak_mib(entries, decompile_code):
    """Separate pass under tracemalloc (too slow to share with timing): the largest peak of
    Python allocations while decompiling one file."""
    import tracemalloc
    worst = 0
    for entry in entries:
        path, data = read_source(entry)
        try:
            module = compile(data, path, "exec", dont_inherit=True)
        except Exception:
            continue
        tracemalloc.start()
        try:
            for code in [module] + list(walk_code(module)):
                try:
                    decompile_code(code)
                except Exception:
                    pass
            worst = max(worst, tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return worst / (1024.0 * 1024.0)


def summarize(results, wall, options):
    total = collections.Counter()
    seconds = collections.Counter()
    buckets = collections.Counter()
    tracebacks = []
    files = [r for r in results if r.compiles]
    for result in files:
        total.update(result.counts)
        seconds.update(result.seconds)
        buckets.update(result.buckets)
        tracebacks.extend(result.tracebacks)
    functions = total["function"]
    function_seconds = seconds["function"]
    decompile_seconds = seconds["function"] + seconds["class"] + seconds["module"]
    summary = collections.OrderedDict()
    summary["python"] = sys.version.split()[0]
    summary["implementation"] = platform.python_implementation()
    summary["platform"] = sys.platform
    summary["mode"] = ("baseline (%s)" % ("true source" if options.baseline == "source" else
                                          "ast.unparse of the source")
                       if options.baseline else "decompile")
    summary["files"] = len(files)
    summary["files_skipped_not_compiling_here"] = len(results) - len(files)
    summary["functions"] = functions
    summary["functions_exact"] = total["function_exact"]
    summary["functions_exact_pct"] = _pct(total["function_exact"], functions)
    if options.strict:
        strict_buckets = collections.Counter()
        for result in files:
            strict_buckets.update(result.strict_buckets)
        summary["functions_strict_exact"] = total["function_strict"]
        summary["functions_strict_exact_pct"] = _pct(total["function_strict"], functions)
        summary["strict_misses_by_cause"] = strict_buckets.most_common(options.top)
    summary["class_bodies"] = total["class"]
    summary["class_bodies_exact_pct"] = _pct(total["class_exact"], total["class"])
    summary["modules_exact_pct"] = _pct(sum(r.module_exact for r in files), len(files))
    summary["files_every_code_object_exact_pct"] = _pct(
        sum(r.module_exact and r.all_alone_exact for r in files), len(files))
    summary["outputs_not_compiling"] = sum(r.not_compiling for r in files)
    not_exact = sum(total[k] - total[k + "_exact"] for k in ("function", "class", "module"))
    unmarked = [name for r in files for name in r.unmarked]
    summary["outputs_not_exact"] = not_exact
    summary["outputs_not_exact_marked"] = total["not_exact_marked"]
    summary["outputs_not_exact_unmarked"] = unmarked[:20]
    raised = [f for r in files for f in r.failures
              if f[2].startswith(("DecompilationError", "crash"))]
    summary["outputs_raised"] = len(raised)
    summary["modules_failing_as_a_whole"] = sum(1 for f in raised if f[0] == "module")
    summary["marking_cpu_seconds"] = round(seconds["marking_cpu"], 3)
    summary["exceptions_other_than_DecompilationError"] = sum(r.exceptions for r in files)
    summary["decompile_seconds"] = round(decompile_seconds, 3)
    summary["function_decompile_seconds"] = round(function_seconds, 3)
    summary["class_body_decompile_seconds"] = round(seconds["class"], 3)
    summary["module_decompile_seconds"] = round(seconds["module"], 3)
    summary["functions_per_second"] = _rate(functions, function_seconds)
    summary["functions_per_cpu_second"] = _rate(functions, seconds["function_cpu"])
    compile_seconds = seconds["compile"]
    summary["compile_functions_per_second"] = _rate(functions, compile_seconds)
    summary["compile_functions_per_cpu_second"] = _rate(functions, seconds["compile_cpu"])
    # The speed figure of record: CPU time of decompiling the functions alone (verification
    # included) over CPU time of compile() of their files, both measured in this run.
    summary["ratio_to_compile"] = (round(seconds["function_cpu"] / seconds["compile_cpu"], 2)
                                   if seconds["compile_cpu"] > 0 and functions else None)
    summary["jobs"] = options.jobs
    summary["slow_threshold"] = options.slow
    summary["wall_seconds"] = round(wall, 2)
    summary["peak_rss_mib"] = _round(peak_rss_mib())
    summary["failures_by_cause"] = buckets.most_common(options.top)
    slow = sorted((r for r in files if r.file_cpu > options.slow or r.timed_out),
                  key=lambda r: -r.file_cpu)
    summary["slow_files"] = [(r.path, round(r.file_cpu, 1), r.timed_out,
                              r.slowest[1], round(r.slowest[0], 1), round(r.file_seconds, 1))
                             for r in slow]
    summary["first_tracebacks"] = tracebacks[:MAX_TRACEBACKS]
    if options.digest:
        # (file paths left out: the same files under another root give the same digest)
        summary["digest"] = hashlib.sha256(" ".join(
            r.digest for r in results).encode("ascii")).hexdigest()
    return summary


def _pct(part, whole):
    return round(100.0 * part / whole, 2) if whole else None


def _rate(count, seconds):
    return round(count / seconds, 1) if seconds > 0 else None


def _round(value):
    return None if value is None else round(value, 1)


def print_summary(summary, out):
    lines = [
        "dynalens stdlib round trip -- %s %s on %s (%s)" % (
            summary["implementation"], summary["python"], summary["platform"], summary["mode"]),
        "files:                          %d (%d skipped: do not compile on this version)" % (
            summary["files"], summary["files_skipped_not_compiling_here"]),
        "functions:                      %d" % summary["functions"],
        "functions exact:                %s%% (%d)" % (summary["functions_exact_pct"],
                                                      summary["functions_exact"]),
    ]
    if "functions_strict_exact_pct" in summary:
        lines.append("functions strictly exact:       %s%% (%d; line layout decisions "
                     "included)" % (summary["functions_strict_exact_pct"],
                                    summary["functions_strict_exact"]))
    lines += [
        "class bodies exact:             %s%% of %d" % (summary["class_bodies_exact_pct"],
                                                       summary["class_bodies"]),
        "whole modules exact:            %s%%" % summary["modules_exact_pct"],
        "files, every code object exact: %s%%" % summary["files_every_code_object_exact_pct"],
        "outputs that do not compile:    %d" % summary["outputs_not_compiling"],
        "exceptions (not Decompilation): %d" % summary["exceptions_other_than_DecompilationError"],
        "outputs not exact:              %d (%d raised; %d marked '# dynalens:'; unmarked: %s)" % (
            summary["outputs_not_exact"], summary["outputs_raised"],
            summary["outputs_not_exact_marked"],
            ", ".join(summary["outputs_not_exact_unmarked"]) or "none"),
        "modules failing as a whole:     %d" % summary["modules_failing_as_a_whole"],
        "decompile seconds:              %.2f (functions alone: %.2f, class bodies alone: "
        "%.2f, whole modules: %.2f)" % (
            summary["decompile_seconds"], summary["function_decompile_seconds"],
            summary["class_body_decompile_seconds"], summary["module_decompile_seconds"]),
        "of which verifying and marking: %.2f CPU seconds" % summary["marking_cpu_seconds"],
        "functions per second:           %s (per CPU-second: %s; compile() does %s, per "
        "CPU-second %s)" % (
            summary["functions_per_second"], summary["functions_per_cpu_second"],
            summary["compile_functions_per_second"],
            summary["compile_functions_per_cpu_second"]),
        "ratio to compile():             %s (CPU time, functions alone, verification "
        "included)" % ("%.2fx" % summary["ratio_to_compile"]
                       if summary["ratio_to_compile"] is not None else "n/a"),
        "jobs / wall seconds:            %d / %.1f" % (summary["jobs"], summary["wall_seconds"]),
        "peak memory (RSS):              %s" % (
            "%s MiB" % summary["peak_rss_mib"] if summary["peak_rss_mib"] is not None
            else "n/a (no resource module; use --memory)"),
    ]
    if "digest" in summary:
        lines.append("digest of outputs and verdicts: %s%s" % (
            summary["digest"], "" if os.environ.get("PYTHONHASHSEED") else
            " (PYTHONHASHSEED not set: frozenset constants print in a random order)"))
    if "traced_peak_mib" in summary:
        lines.append("peak traced memory, one file:   %s MiB" % summary["traced_peak_mib"])
    if summary["slow_files"]:
        lines.append("files over %s CPU s or cut off by --timeout (slowest code object, "
                     "wall s):" % summary["slow_threshold"])
        for path, seconds, timed_out, qualname, its, wall in summary["slow_files"]:
            lines.append("  %7.1f s%s  %s  (%s: %.1f s; file %.1f s wall)" % (
                seconds, " TIMED OUT" if timed_out else "", path, qualname, its, wall))
    if summary["failures_by_cause"]:
        lines.append("failures by cause (top %d):" % len(summary["failures_by_cause"]))
        for cause, count in summary["failures_by_cause"]:
            lines.append("  %6d  %s" % (count, cause))
    if summary.get("strict_misses_by_cause"):
        lines.append("exact but not strictly, by cause (top %d):"
                     % len(summary["strict_misses_by_cause"]))
        for cause, count in summary["strict_misses_by_cause"]:
            lines.append("  %6d  %s" % (count, cause))
    out.write("\n".join(lines) + "\n")
    if summary["first_tracebacks"]:
        out.write("first tracebacks of unexpected exceptions:\n")
        for text in summary["first_tracebacks"]:
            out.write(text + "\n")


def write_failures(results, path):
    with open(path, "w") as handle:
        for result in results:
            for kind, qualname, cause, difference, text in result.failures:
                handle.write("=" * 78 + "\n")
                handle.write("%s %s  (%s)\ncause: %s\n%s\n" % (
                    kind, qualname, result.path, cause, difference.rstrip()))
                if text is not None:
                    handle.write("--- decompiled source ---\n%s\n" % text.rstrip())


def write_strict_failures(results, path):
    """Every output exact but not strictly exact: the difference, the original's lines and
    the decompiled source side by side, to see which line layout the output missed."""
    with open(path, "w") as handle:
        for result in results:
            for kind, qualname, cause, difference, text, original in result.strict_failures:
                handle.write("=" * 78 + "\n")
                handle.write("%s %s  (%s)\nstrict cause: %s\n%s\n" % (
                    kind, qualname, result.path, cause, difference.rstrip()))
                if original is not None:
                    handle.write("--- original ---\n%s\n" % original.rstrip())
                handle.write("--- decompiled source ---\n%s\n" % text.rstrip())


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--source-root", metavar="DIR", help="walk DIR instead of the stdlib")
    where.add_argument("--source-zip", metavar="ZIP", help="read .py files from ZIP "
                       "(Pyodide's python_stdlib.zip)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="an evenly spread, deterministic sample of N files")
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                        help="worker processes (default 1)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--failures", metavar="PATH",
                        help="write every failing code object with its decompiled source")
    parser.add_argument("--memory", action="store_true",
                        help="extra tracemalloc pass for peak memory (slow; not timed)")
    parser.add_argument("--top", type=int, default=15, metavar="N",
                        help="how many failure causes to list (default 15)")
    parser.add_argument("--baseline", nargs="?", const="source", choices=["source", "unparse"],
                        help="verify the true source instead of decompiling (checks verify(); "
                             "must be 100%%), or with 'unparse' the source regenerated by "
                             "ast.unparse (3.9+: the ceiling for an ast-based renderer)")
    parser.add_argument("--slow", type=float, default=10.0, metavar="S",
                        help="list the files whose round trip took more than S CPU seconds "
                             "(default 10; CPU, so a loaded machine does not inflate it), each "
                             "with its slowest code object (wall seconds)")
    parser.add_argument("--timeout", type=float, default=0, metavar="S",
                        help="cut a file off after S wall seconds (where signals work; the "
                             "file is listed as TIMED OUT with what it counted so far)")
    parser.add_argument("--quiet", action="store_true", help="no progress, no tracebacks")
    parser.add_argument("--strict", action="store_true",
                        help="also count the exact outputs that stay exact under "
                             "verify(strict=True), where line-layout decisions count")
    parser.add_argument("--strict-failures", metavar="PATH",
                        help="(implies --strict) write every output that is exact but not "
                             "strictly exact, with the original's lines and the decompiled "
                             "source")
    parser.add_argument("--digest", action="store_true",
                        help="print one SHA-256 over every output text and verdict (the "
                             "check of a pure refactor: it must not change)")
    parser.add_argument("--verdicts", metavar="PATH",
                        help="write every code object's verdict (bench/ratchet.py reads it)")
    parser.add_argument("--ratchet", nargs="?", const="", metavar="BASELINE",
                        help="compare the verdicts with the committed baseline (default "
                             "bench/baselines/<X.Y>.json): exit 1 when a code object that "
                             "was exact is not any more")
    return parser.parse_args(argv)


def main(argv=None):
    options = parse_args(argv)
    if options.strict_failures:
        options.strict = True
    if options.source_zip:
        entries = collect_from_zip(options.source_zip)
    else:
        entries = collect_from_dir(options.source_root or stdlib_root())
    whole = options.sample is None or options.sample >= len(entries)
    entries = sample(entries, options.sample)
    if not entries:
        raise SystemExit("roundtrip: no .py files found")
    if not options.baseline:
        load_decompiler()  # fail early and clearly
    progress = Progress(len(entries), not options.quiet)
    started = time.perf_counter()
    results = run_all(entries, options, progress)
    wall = time.perf_counter() - started
    progress.done()
    summary = summarize(results, wall, options)
    if options.memory and not options.baseline:
        summary["traced_peak_mib"] = _round(traced_peak_mib(entries, load_decompiler()))
    status = 0
    ratchet_text = None
    if options.verdicts or options.ratchet is not None:
        root = options.source_zip or options.source_root or stdlib_root()
        document = verdicts_document(results, root, options, whole)
        if not options.verdicts:  # keep them, so `ratchet.py update` has a file to read
            options.verdicts = default_verdicts_path(document["python"])
        if options.verdicts:
            with open(options.verdicts, "w") as handle:
                json.dump(document, handle, indent=0)
                handle.write("\n")
        if options.ratchet is not None:
            import ratchet
            baseline = options.ratchet or ratchet.baseline_path(document["python"])
            ratchet_text = io.StringIO()
            comparison = ratchet.check(document, baseline, options.verdicts, ratchet_text)
            summary["ratchet"] = comparison.as_json()
            status = 1 if comparison.status == "regressed" else 0
    if options.quiet:
        summary_to_print = dict(summary, first_tracebacks=[])
    else:
        summary_to_print = summary
    print_summary(summary_to_print, sys.stdout)
    if ratchet_text is not None:
        sys.stdout.write(ratchet_text.getvalue())
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(summary, handle, indent=2)
            handle.write("\n")
    if options.failures:
        write_failures(results, options.failures)
    if options.strict_failures:
        write_strict_failures(results, options.strict_failures)
    return status


if __name__ == "__main__":
    sys.exit(main())
