"""The decompiler's construct tests, without pytest, for any CPython 3.8+ (Pyodide included).

Why a second runner beside pytest: Pyodide under Node.js cannot install pytest (its package CDN
is not reachable), and a bare interpreter (``python3.9`` from pyenv) has no pytest either. So
this script needs the standard library only. It walks the round-trip corpus
(``tests/corpus/*.py``, one module per construct family), and for every file allowed on the
running version it decompiles the module and every nested code object on its own and checks
each with ``verify``. A file passes when all of its code objects come back exact.

A corpus file may start with ``# min-python: 3.10`` (or ``# max-python: 3.11``) comment lines:
files outside the running version's range are reported as skipped, never silently dropped.

Prints one line per file and a closing ``corpus: N passed, N failed, N skipped`` line; with
``--json PATH`` also writes every failure with a short cause (used by tools/pyversions.py).
Exit status: 0 all passed, 1 some failed, 2 the decompiler could not even be imported.
"""

import argparse
import json
import os
import re
import signal
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HEADER = re.compile(r"#\s*(min|max)-python:\s*(\d+)\.(\d+)\s*$")
_CodeType = type(compile("", "", "exec"))


class FileTimeout(Exception):
    """A corpus file took longer than --timeout (a decompiler loop, most likely)."""


def version_bounds(source):
    """(min, max) version tuples from the leading comment lines, None where not given."""
    bounds = {"min": None, "max": None}
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        match = _HEADER.match(stripped)
        if match:
            bounds[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return bounds["min"], bounds["max"]


def skip_reason(source, version=None):
    """Why the file cannot run on ``version`` (default: this interpreter), or None."""
    version = tuple(sys.version_info[:2]) if version is None else tuple(version)
    low, high = version_bounds(source)
    if low is not None and version < low:
        return "needs Python %d.%d+" % low
    if high is not None and version > high:
        return "needs Python %d.%d or older" % high
    return None


def qualname(code, parent=None):
    name = getattr(code, "co_qualname", None)
    if name:
        return name
    return code.co_name if parent is None else "%s.%s" % (parent, code.co_name)


def nested_code_objects(code, parent=None):
    """Every code object below ``code`` (not ``code`` itself), depth first, with qualnames."""
    for const in code.co_consts:
        if isinstance(const, _CodeType):
            name = qualname(const, parent)
            yield name, const
            for item in nested_code_objects(const, name):
                yield item


_POSITION = re.compile(r"^in \S+ at instruction #\d+: ")
_QUOTED = re.compile(r"('[^']*'|\"[^\"]*\"|<code [^>]*>)")


def cause_of(kind, detail):
    """A short, groupable cause for one failure: what went wrong, without names and offsets.

    Exceptions group by type (and opcode for DecompilationError); verify differences by the
    pair of opcodes that first disagree, so one missing template shows up as one cause.
    """
    if kind == "exception":
        return detail.split(":", 1)[0] if detail else "exception"
    if kind == "decompile_error":
        match = re.search(r"opcode (\w+)", detail or "")
        if match:
            return "DecompilationError at %s" % match.group(1)
        message = (detail or "").split(" [in ", 1)[0].strip()
        return ("DecompilationError: %s" % message[:70]) if message else "DecompilationError"
    if kind == "timeout":
        return "timeout"
    text = detail or ""
    if text.startswith("source does not compile"):
        return "output does not compile"
    if text.startswith("first difference: "):
        text = text[len("first difference: "):]
    text = _POSITION.sub("", text)
    match = re.match(r"expected (\w+).*?, got (\w+)", text)
    if match and match.group(1).isupper():
        return "expected %s, got %s" % (match.group(1), match.group(2))
    match = re.match(r"in \S+: (expected \w+)", text)
    if match:
        return match.group(1).replace("expected co_", "co_")
    text = re.sub(r"^in \S+: ", "", text)
    return _QUOTED.sub("...", text)[:60]


class Checker(object):
    """Decompile + verify with whatever the decompiler package offers on this version."""

    def __init__(self):
        from dynalens.decompiler import api
        from dynalens.decompiler.verify import verify
        from dynalens.decompiler.errors import DecompilationError
        self.decompile_module = api.decompile
        try:
            from dynalens.decompiler.render import decompile_code
        except ImportError:
            decompile_code = api.decompile
        self.decompile_code = decompile_code
        self.verify = verify
        self.error_type = DecompilationError

    def check(self, code, decompile):
        """None when exact, else (kind, detail)."""
        try:
            text = decompile(code)
        except FileTimeout:
            raise
        except self.error_type as exc:
            return "decompile_error", str(exc)
        except Exception as exc:  # any other type escaping decompile is a decompiler bug
            return "exception", "%s: %s" % (type(exc).__name__, exc)
        try:
            result = self.verify(code, text)
        except FileTimeout:
            raise
        except Exception as exc:
            return "exception", "verify raised %s: %s" % (type(exc).__name__, exc)
        if result:
            return None
        return "not_exact", str(getattr(result, "difference", "") or "not exact")


def check_file(checker, path):
    """One corpus file -> result dict (status pass / fail / skip)."""
    name = os.path.basename(path)
    with open(path, "rb") as handle:
        raw = handle.read()
    source = raw.decode("utf-8")
    reason = skip_reason(source)
    if reason:
        return {"name": name, "status": "skip", "reason": reason, "code_objects": 0,
                "failures": []}
    try:
        module = compile(raw, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        detail = "corpus file does not compile on Python %d.%d (%s, line %s): add a " \
                 "'# min-python:' line" % (sys.version_info[0], sys.version_info[1],
                                           exc.msg, exc.lineno)
        return {"name": name, "status": "fail", "reason": detail, "code_objects": 0,
                "failures": [{"qualname": "<module>", "kind": "corpus", "detail": detail,
                              "cause": "corpus file does not compile"}]}
    units = [("<module>", module, checker.decompile_module)]
    units.extend((q, c, checker.decompile_code) for q, c in nested_code_objects(module))
    failures = []
    for unit_name, code, decompile in units:
        try:
            outcome = checker.check(code, decompile)
        except FileTimeout:
            failures.append({"qualname": unit_name, "kind": "timeout",
                             "detail": "gave up on the file after --timeout seconds",
                             "cause": "timeout"})
            break
        if outcome is not None:
            kind, detail = outcome
            failures.append({"qualname": unit_name, "kind": kind, "detail": detail,
                             "cause": cause_of(kind, detail)})
    return {"name": name, "status": "fail" if failures else "pass", "reason": None,
            "code_objects": len(units), "failures": failures}


def _with_timeout(seconds, func, *args):
    """Run func under SIGALRM where the platform has it (not on Windows or Pyodide)."""
    usable = (seconds and hasattr(signal, "SIGALRM") and sys.platform != "emscripten")
    if not usable:
        return func(*args)

    def expire(signum, frame):
        raise FileTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(int(seconds))
    try:
        return func(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def corpus_files(directory, names=None):
    if not os.path.isdir(directory):
        raise SystemExit("corpus_check: no corpus folder at %s" % directory)
    files = sorted(f for f in os.listdir(directory) if f.endswith(".py"))
    if names:
        wanted = set(os.path.basename(n) for n in names)
        missing = wanted - set(files)
        if missing:
            raise SystemExit("corpus_check: not in %s: %s" % (directory, ", ".join(sorted(missing))))
        files = [f for f in files if f in wanted]
    return [os.path.join(directory, f) for f in files]


def summarize(results, seconds):
    counts = {"pass": 0, "fail": 0, "skip": 0}
    causes = {}
    code_objects = exact = 0
    for result in results:
        counts[result["status"]] += 1
        code_objects += result["code_objects"]
        exact += result["code_objects"] - len(result["failures"])
        for failure in result["failures"]:
            causes[failure["cause"]] = causes.get(failure["cause"], 0) + 1
    return {
        "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
        "platform": sys.platform,
        "passed": counts["pass"], "failed": counts["fail"], "skipped": counts["skip"],
        "code_objects": code_objects, "code_objects_exact": exact,
        "seconds": round(seconds, 3), "causes": causes, "files": results,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="corpus_check.py",
        description="Round-trip every code object of the construct corpus (no pytest needed).")
    parser.add_argument("files", nargs="*", help="only these corpus file names")
    parser.add_argument("--corpus", default=os.path.join(ROOT, "tests", "corpus"),
                        help="folder of corpus modules (default: tests/corpus)")
    parser.add_argument("--src", default=os.path.join(ROOT, "src"),
                        help="folder that holds the dynalens package (default: src)")
    parser.add_argument("--json", dest="json_path", help="also write the results here")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per corpus file before it counts as failed (default 60)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print failing files and the summary only")
    args = parser.parse_args(argv)

    paths = corpus_files(args.corpus, args.files)
    if args.src and args.src not in sys.path:
        sys.path.insert(0, args.src)
    try:
        checker = Checker()
    except Exception as exc:
        print("corpus_check: cannot import the decompiler on Python %s: %s: %s"
              % (sys.version.split()[0], type(exc).__name__, exc))
        traceback.print_exc(limit=-3, file=sys.stdout)
        return 2

    started = time.perf_counter()
    results = []
    for path in paths:
        result = _with_timeout(args.timeout, check_file, checker, path)
        results.append(result)
        status = result["status"]
        if status == "skip":
            if not args.quiet:
                print("SKIP %s (%s)" % (result["name"], result["reason"]))
        elif status == "pass":
            if not args.quiet:
                print("PASS %s (%d code objects)" % (result["name"], result["code_objects"]))
        else:
            print("FAIL %s (%d of %d code objects not exact)"
                  % (result["name"], len(result["failures"]), result["code_objects"]))
            for failure in result["failures"]:
                detail = failure["detail"].replace("\n", " ")
                print("    %s: %s" % (failure["qualname"], detail[:300]))
    summary = summarize(results, time.perf_counter() - started)
    if args.json_path:
        with open(args.json_path, "w") as handle:
            json.dump(summary, handle, indent=1, sort_keys=True)
    print("Python %s: %d of %d code objects exact in %.1fs"
          % (summary["python"], summary["code_objects_exact"], summary["code_objects"],
             summary["seconds"]))
    print("corpus: %d passed, %d failed, %d skipped"
          % (summary["passed"], summary["failed"], summary["skipped"]))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
