"""`dynalens run`: run an unmodified script or module under ``prepare_debug``.

Shaped like ``python -m cProfile script.py args...``: the program sees the ``sys.argv``,
``__main__`` module and ``sys.path[0]`` it would see when run directly, its exit code becomes
ours, and an exception it raises is printed as Python would print it. The lens is entered around
the whole program, so every ``torch.compile`` in it is captured, and the report is written
when it ends (also when it fails, because that is when a user most needs it).
"""

import contextlib
import os
import runpy
import sys
import traceback

DEFAULT_DUMP = "dynalens_dump"


class RunError(Exception):
    """The program could not be started (missing file or module, lens not available)."""


def _exit_code(exc):
    """The process exit status Python would give for ``SystemExit(exc.code)``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    # sys.exit("message") prints the message to stderr and exits with 1.
    print(code, file=sys.stderr)
    return 1


def _run_target(target, module):
    if module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")


def _check_target(target, module):
    if module:
        import importlib.util

        try:
            spec = importlib.util.find_spec(target)
        except (ImportError, ValueError) as exc:
            raise RunError("cannot find module %r: %s" % (target, exc))
        if spec is None:
            raise RunError("no module named %r" % target)
    elif not os.path.exists(target):
        raise RunError("no such file: %r" % target)


def _prepare_debug():
    try:
        from .lens.api import prepare_debug
    except ImportError as exc:
        raise RunError(
            "the torch.compile lens is not available (%s); install it with "
            "`pip install dynalens[torch]`" % exc)
    return prepare_debug


@contextlib.contextmanager
def _entered(lens):
    """Enter ``lens``; a missing torch (ImportError on entry) becomes a RunError."""
    try:
        lens.__enter__()
    except ImportError as exc:
        raise RunError(str(exc))
    ok = False
    try:
        yield lens
        ok = True
    finally:
        if ok:
            lens.__exit__(None, None, None)
        else:
            lens.__exit__(*sys.exc_info())


def run(target, args=(), dump_dir=DEFAULT_DUMP, module=False, report=True):
    """Run ``target`` (a script path, or a module name when ``module``) with ``args``.

    Returns ``(exit_code, report_path_or_None)``. The caller's ``sys.argv``, ``sys.path`` and
    ``__main__`` are restored afterwards, so this can be called from tests in-process.
    """
    dump_dir = os.path.abspath(dump_dir)
    saved_argv = sys.argv[:]
    saved_path = sys.path[:]
    code = 0
    try:
        # `python -m mod` puts the current directory first on sys.path, `python prog.py` the
        # script's folder; the module must be looked up with that path in place.
        sys.path.insert(0, os.getcwd() if module else os.path.dirname(os.path.abspath(target)))
        _check_target(target, module)
        prepare_debug = _prepare_debug()
        sys.argv = [target] + list(args)
        # prepare_debug writes the report itself on exit (also after a failure); --no-report
        # asks it not to.
        with _entered(prepare_debug(dump_dir, report=report)):
            try:
                _run_target(target, module)
            except SystemExit as exc:
                code = _exit_code(exc)
            except KeyboardInterrupt:
                traceback.print_exc()
                code = 130
            except BaseException:
                # Print like the interpreter would, minus our own frames, and carry on to the
                # report: the program's failure is not ours.
                etype, value, tb = sys.exc_info()
                tb = _skip_own_frames(tb)
                traceback.print_exception(etype, value, tb)
                code = 1
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path

    path = None
    if report:
        path = ensure_report(dump_dir)
    return code, path


def _skip_own_frames(tb):
    """Drop the runner's and runpy's frames from a traceback, as ``python script.py`` shows it."""
    skip = ("<frozen runpy>", os.path.abspath(__file__), os.path.abspath(runpy.__file__))
    while tb is not None and (tb.tb_frame.f_code.co_filename in skip
                              or os.path.abspath(tb.tb_frame.f_code.co_filename) in skip):
        tb = tb.tb_next
    return tb


def ensure_report(dump_dir):
    """The report path, writing the report if ``prepare_debug`` has not (or could not).

    Returns None when no report could be written; the reason is printed once on stderr.
    """
    from .report.api import REPORT_NAME, write_report

    path = os.path.join(dump_dir, REPORT_NAME)
    if os.path.exists(path) and _newer_than_index(path, dump_dir):
        return path
    try:
        return write_report(dump_dir)
    except Exception as exc:  # the program has run; a report failure must not hide its result
        print("dynalens: could not write the report for %s: %s" % (dump_dir, exc), file=sys.stderr)
        return None


def _newer_than_index(path, dump_dir):
    index = os.path.join(dump_dir, "index.json")
    if not os.path.exists(index):
        return True
    return os.path.getmtime(path) >= os.path.getmtime(index)


# ---------------------------------------------------------------------------------------------
# The `run`, `report` and `demo` subcommands (registered in cli.SUBCOMMANDS). Each returns the
# exit status; a request that cannot be acted on prints one line and returns 2, as cli does.

EXIT_USAGE = 2
DEMO_MODULE = "dynalens.examples.seed"


def _error(command, message):
    sys.stderr.write("dynalens %s: error: %s\n" % (command, message))
    return EXIT_USAGE


def _dump_argument(parser):
    parser.add_argument("--dump", metavar="DIR", default=DEFAULT_DUMP,
                        help="dump folder to write (default ./%s)" % DEFAULT_DUMP)


def run_arguments(parser):
    import argparse

    parser.usage = "%(prog)s [--dump DIR] [--no-report] (script.py | -m module) [args ...]"
    _dump_argument(parser)
    parser.add_argument("--no-report", action="store_true",
                        help="write the dump folder only, not report.html")
    parser.add_argument("-m", dest="module", action="store_true",
                        help="run TARGET as a module, like python -m")
    # optional for argparse, so that a bare `dynalens run` gets run_command's own message
    # instead of "the following arguments are required: TARGET, args"
    parser.add_argument("target", metavar="TARGET", nargs="?",
                        help="script path (or module name with -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER,
                        help="arguments passed to the program unchanged")


RUN_USAGE = ("name the program to run: `dynalens run [--dump DIR] script.py [args ...]` or "
             "`dynalens run [--dump DIR] -m module [args ...]` (as with python)")


def run_command(args):
    if not args.target:
        sys.stderr.write("usage: dynalens run [--dump DIR] [--no-report] (script.py | -m module) "
                         "[args ...]\n")
        return _error("run", RUN_USAGE)
    try:
        code, path = run(args.target, args.args, dump_dir=args.dump, module=args.module,
                         report=not args.no_report)
    except RunError as exc:
        return _error("run", exc)
    _announce(args.dump, path, args.no_report)
    return code


def _announce(dump_dir, path, skipped=False):
    sys.stdout.flush()
    sys.stderr.write("dynalens: dump folder %s\n" % os.path.abspath(dump_dir))
    if path:
        sys.stderr.write("dynalens: report %s\n" % path)
    elif not skipped:
        sys.stderr.write("dynalens: no report was written (see above)\n")


def report_arguments(parser):
    parser.add_argument("dump_dir", metavar="DUMP_DIR", help="a folder written by prepare_debug")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write the page (default DUMP_DIR/report.html)")


def report_command(args):
    from .report.api import write_report
    from .report.load import NotADump

    try:
        path = write_report(args.dump_dir, output=args.output)
    except (NotADump, FileNotFoundError) as exc:
        return _error("report", exc)
    print(path)
    return 0


def demo_arguments(parser):
    _dump_argument(parser)


def demo_command(args):
    """Run the README's example under the lens: one graph break, one recompilation."""
    try:
        code, path = run(DEMO_MODULE, [], dump_dir=args.dump, module=True)
    except RunError as exc:
        return _error("demo", exc)
    _announce(args.dump, path)
    return code
