"""`dynalens run`: run an unmodified script or module under ``prepare_debug``.

Shaped like ``python -m cProfile script.py args...``: the program sees the ``sys.argv``,
``__main__`` module and ``sys.path[0]`` it would see when run directly, its exit code becomes
ours, and an exception it raises is printed as Python would print it. The lens is entered around
the whole program, so every ``torch.compile`` in it is captured, and the report is written
when it ends (also when it fails, because that is when a user most needs it).
"""

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


def run(target, args=(), dump_dir=DEFAULT_DUMP, module=False, report=True):
    """Run ``target`` (a script path, or a module name when ``module``) with ``args``.

    Returns ``(exit_code, report_path_or_None)``. The caller's ``sys.argv``, ``sys.path`` and
    ``__main__`` are restored afterwards, so this can be called from tests in-process.
    """
    _check_target(target, module)
    prepare_debug = _prepare_debug()
    dump_dir = os.path.abspath(dump_dir)

    saved_argv = sys.argv[:]
    saved_path = sys.path[:]
    if module:
        # `python -m mod` puts the current directory first on sys.path.
        sys.argv = [target] + list(args)
        sys.path.insert(0, os.getcwd())
    else:
        sys.argv = [target] + list(args)
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))

    code = 0
    try:
        with prepare_debug(dump_dir):
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
    skip = (os.path.abspath(__file__), os.path.abspath(runpy.__file__))
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) in skip:
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
