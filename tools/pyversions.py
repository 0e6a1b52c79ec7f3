"""Run the decompiler's tests on every CPython from 3.8 to 3.15, like nox or tox would.

    python tools/pyversions.py [--versions 3.8,3.14] [--pyodide/--no-pyodide] [--sample N]
                               [--install] [--min-exact PCT] [--ratchet] [--jobs N] [--json PATH]

For each version it finds an interpreter (a native CPython on PATH, in pyenv or uv; otherwise
the pinned Pyodide release run by Node.js, installed from npm with --install), runs the
construct tests (tools/corpus_check.py) and a deterministic sample of the stdlib round trip
(bench/roundtrip.py --sample N), and prints one table. A version with no interpreter is shown
as SKIPPED with the reason; it never passes silently. Exit status 1 when a version crashed or
fell below --min-exact (or, with --strict, failed a construct test); 2 for bad arguments.
"""

import argparse
import concurrent.futures
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from versionrunner import discover, jobs, pyodide, report  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="pyversions.py",
        description="Decompiler construct tests + stdlib round trip on CPython 3.8-3.15 "
                    "(native interpreters, Pyodide for the rest).")
    parser.add_argument("--versions", default=",".join(discover.VERSIONS),
                        help="comma-separated versions or ranges (default: %(default)s)")
    parser.add_argument("--pyodide", dest="pyodide", action="store_true", default=True,
                        help="use Pyodide where no native interpreter is found (default)")
    parser.add_argument("--no-pyodide", dest="pyodide", action="store_false",
                        help="native interpreters only")
    parser.add_argument("--prefer-pyodide", action="store_true",
                        help="use Pyodide even where a native interpreter exists")
    parser.add_argument("--install", action="store_true",
                        help="install missing Pyodide releases from the npm registry")
    parser.add_argument("--list", action="store_true",
                        help="only show which interpreter each version would use, and why not")
    parser.add_argument("--python", action="append", default=[], metavar="X.Y=PATH",
                        help="use this interpreter for version X.Y (repeatable)")
    parser.add_argument("--sample", type=int, default=30, metavar="N",
                        help="stdlib files in the round-trip sample (default %(default)s)")
    parser.add_argument("--no-roundtrip", dest="roundtrip", action="store_false",
                        help="construct tests only")
    parser.add_argument("--corpus", metavar="DIR",
                        help="construct tests from DIR instead of tests/corpus (e.g. snippets "
                             "that reproduce a problem, to see it on every version)")
    parser.add_argument("--matrix", action="store_true",
                        help="print construct test x version (ok / skip / first cause)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every version's construct-test output after the table")
    parser.add_argument("--baseline", action="store_true",
                        help="round trip on the true source (checks verify(), not decompile)")
    parser.add_argument("--ratchet", action="store_true",
                        help="fail a version where a sampled code object that is exact in "
                             "the committed baseline (bench/baselines/X.Y.json) is not any "
                             "more (bench/ratchet.py)")
    parser.add_argument("--min-exact", type=float, default=0.0, metavar="PCT",
                        help="fail a version whose round trip is below PCT%% exact (default 0)")
    parser.add_argument("--strict", action="store_true",
                        help="also fail a version with a failing construct test")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                        help="versions run at once (default %(default)s)")
    parser.add_argument("--timeout", type=int, default=600, metavar="S",
                        help="seconds per step before it counts as crashed (default 600)")
    parser.add_argument("--cache", default=os.path.join(ROOT, ".pyodide"), metavar="DIR",
                        help="where Pyodide releases are installed (default .pyodide/)")
    parser.add_argument("--work", default=os.path.join(ROOT, "tmp", "pyversions"),
                        metavar="DIR", help="logs and JSON of every step (default tmp/pyversions)")
    parser.add_argument("--json", dest="json_path", metavar="PATH",
                        help="write the whole run as JSON")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the table as Markdown (for the README)")
    parser.add_argument("--causes", type=int, default=3, metavar="N",
                        help="list the top N failure causes per version (default 3; 0: none)")
    args = parser.parse_args(argv)
    try:
        args.versions = discover.parse_versions(args.versions)
    except ValueError as exc:
        parser.error(str(exc))
    explicit = {}
    for spec in args.python:
        version, sep, path = spec.partition("=")
        if not sep or version not in discover.VERSIONS or not path:
            parser.error("--python wants X.Y=PATH with X.Y one of %s, got %r"
                         % (", ".join(discover.VERSIONS), spec))
        explicit[version] = path
    args.explicit = explicit
    if args.sample < 1:
        parser.error("--sample must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.corpus and not os.path.isdir(args.corpus):
        parser.error("--corpus %s is not a folder" % args.corpus)
    return args


class Resolver(object):
    """Picks the interpreter for each version, installing Pyodide releases when allowed."""

    def __init__(self, args, log, find_native=discover.find_native, find_node=pyodide.find_node,
                 install=pyodide.install, installed_version=pyodide.installed_version):
        self.args = args
        self.log = log
        self._find_native = find_native
        self._find_node = find_node
        self._install = install
        self._installed_version = installed_version
        self.node = None
        self._node_error = None

    def _node(self):
        if self.node is None and self._node_error is None:
            try:
                self.node = self._find_node()
            except pyodide.PyodideUnavailable as exc:
                self._node_error = str(exc)
        return self.node

    def resolve(self, version):
        """(Interpreter, None) or (None, reason it is skipped)."""
        args = self.args
        explicit = args.explicit.get(version)
        release = pyodide.release_for(version)
        use_pyodide_first = (args.prefer_pyodide and args.pyodide and release and not explicit)
        if not use_pyodide_first:
            native = self._find_native(version, explicit=explicit)
            if native is not None:
                return native, None
            if explicit:
                return None, "%s is not a working CPython %s" % (explicit, version)
        searched = "no native CPython %s found (PATH, pyenv, uv)" % version
        if not args.pyodide:
            return None, searched + "; Pyodide disabled (--no-pyodide)"
        if not release:
            return None, searched + "; no Pyodide release embeds %s" % version
        if self._node() is None:
            return None, self._node_error
        if self._installed_version(args.cache, release) != release:
            if not args.install:
                return None, "pyodide %s not installed (run with --install)" % release
            self.log("installing pyodide %s (Python %s) into %s ..."
                     % (release, version, pyodide.cache_dir(args.cache, release)))
            try:
                self._install(release, args.cache)
            except pyodide.PyodideUnavailable as exc:
                return None, str(exc)
        return discover.Interpreter(version, "pyodide", path=pyodide.dist_dir(args.cache, release),
                                    full_version=pyodide.RELEASES[version][1],
                                    release=release), None


def run(args, log=None, resolver=None, run_version=jobs.run_version):
    """Resolve, run and tabulate; returns the VersionResults in version order."""
    log = log or (lambda text: print(text, flush=True))
    resolver = resolver or Resolver(args, log)
    results, todo = {}, []
    for version in args.versions:
        interpreter, reason = resolver.resolve(version)
        if interpreter is None:
            results[version] = jobs.VersionResult(version, skipped=reason)
            log("%-5s SKIPPED (%s)" % (version, reason))
        else:
            todo.append(interpreter)
    if not os.path.isdir(args.work):
        os.makedirs(args.work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for interpreter in todo:
            log("%-5s running on %s" % (interpreter.version, interpreter.label()))
            futures[pool.submit(run_version, interpreter, ROOT, args.work, args.sample,
                                args.timeout, node=resolver.node, roundtrip=args.roundtrip,
                                roundtrip_args=(["--baseline"] if args.baseline else []) +
                                (["--ratchet"] if args.ratchet else []),
                                corpus_dir=args.corpus)] = interpreter
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            results[result.version] = result
            verdict = report.row(result, args.min_exact, args.strict)[-1]
            log("%-5s %s in %.1fs" % (result.version, verdict, result.seconds))
    return [results[v] for v in args.versions]


def list_interpreters(args, resolver=None):
    """Lines of 'version  interpreter-or-SKIPPED'; installs nothing unless --install."""
    resolver = resolver or Resolver(args, log=lambda text: print(text, flush=True))
    lines = []
    for version in args.versions:
        interpreter, reason = resolver.resolve(version)
        lines.append("%-5s %s" % (version, interpreter.label() if interpreter
                                  else "SKIPPED (%s)" % reason))
    return lines


def _examples(result):
    """First example of each failure cause: a construct-test file, else the stdlib sample's."""
    found = {}
    if result.roundtrip is not None and result.roundtrip.log_path:
        folder = os.path.dirname(result.roundtrip.log_path)
        found.update(jobs.first_examples(os.path.join(folder, jobs.FAILURES)))
    corpus = result.corpus.data if result.corpus is not None and result.corpus.data else {}
    for item in corpus.get("files", []):
        for failure in item.get("failures", []):
            if failure["qualname"] != "<module>":
                found.setdefault(failure["cause"], "%s (corpus %s)" % (failure["qualname"],
                                                                      item["name"]))
    return found


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        print("\n".join(list_interpreters(args)))
        return 0
    started = time.perf_counter()
    results = run(args)
    print()
    print(report.table(results, args.min_exact, args.strict))
    print(report.legend(results, args.min_exact, args.strict))
    if args.verbose:
        for result in results:
            if result.corpus is not None and result.corpus.log_path:
                print("\n== %s construct tests (%s) ==" % (result.version,
                                                         result.interpreter.label()))
                with open(result.corpus.log_path) as handle:
                    print(handle.read().rstrip())
    if args.matrix:
        text = report.matrix(results)
        if text:
            print("\n" + text)
    if args.ratchet:
        for result in results:
            state = report.ratchet_state(result.roundtrip.data if result.roundtrip else None)
            if state is not None:
                print("ratchet %-5s %s" % (result.version, state))
    if args.causes:
        text = report.causes_text(results, args.causes, examples=_examples)
        if text:
            print("\ntop failure causes (construct tests + round trip):")
            print(text)
    if args.markdown:
        with open(args.markdown, "w") as handle:
            handle.write(report.markdown(results, args.min_exact, args.strict) + "\n")
    if args.json_path:
        with open(args.json_path, "w") as handle:
            handle.write(report.to_json(results, args.min_exact, args.strict) + "\n")
    print("\nlogs and per-step JSON: %s; %.0fs in all" % (args.work, time.perf_counter() - started))
    print(report.summary_line(results, args.min_exact, args.strict))
    return report.exit_status(results, args.min_exact, args.strict)


if __name__ == "__main__":
    sys.exit(main())
