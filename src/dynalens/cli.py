"""The ``dynalens`` command line.

Each subcommand is two small functions -- one adds its arguments, one runs it and returns the
exit status -- registered in the ``SUBCOMMANDS`` table at the bottom. To add a subcommand, write
those two functions (importing anything heavy, torch above all, inside the run function so that
``dynalens --help`` stays instant) and add one line to the table.

Exit status: 0 success; 1 the work was done but the result is not good (a decompilation error,
or ``--verify`` found a code object that is not exact); 2 the request itself was wrong (bad
arguments, a target that does not exist or cannot be decompiled by type).
"""

import argparse
import importlib
import os
import sys
import types

from . import runner  # run / report / demo; light: imports torch only when a command runs

EXIT_OK, EXIT_NOT_EXACT, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A target or option that cannot be acted on; printed as one line, exit status 2."""


# ---------------------------------------------------------------------------------------------
# dynalens decompile


def _decompile_arguments(parser):
    parser.add_argument("target", metavar="TARGET",
                        help="a .pyc file, a .py file (compiled, then decompiled), a directory "
                             "(its .pyc files, else its .py files, each in turn), or "
                             "module:qualname (imported, e.g. json.decoder:JSONDecoder.decode)")
    parser.add_argument("--verify", action="store_true",
                        help="recompile the output and compare bytecode for every code object; "
                             "report on stderr, exit 1 if any is not exact")
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit 1, no output) instead of marking a code object that "
                             "is not exact or cannot be decompiled with a '# dynalens:' line")
    parser.add_argument("--indent", type=int, default=4, metavar="N",
                        help="spaces per indentation level (default 4)")


def _run_decompile(args):
    if args.indent < 1:
        raise UsageError("--indent must be at least 1, got %d" % args.indent)
    if os.path.isdir(args.target):
        return _decompile_directory(args)
    return _decompile_one(args.target, _load_target(args.target), args)


def _decompile_one(label, target, args):
    """Decompile one target to stdout (and verify it with --verify); the exit status."""
    from .decompiler.api import Decompiler, _decompile_code
    from .decompiler.errors import DecompilationError

    try:
        decompiler = Decompiler(target, indent=args.indent, strict=args.strict)
        text = decompiler.decompile()
    except TypeError as exc:
        raise UsageError(str(exc))
    except DecompilationError as exc:
        sys.stderr.write("dynalens: cannot decompile %s%s: %s\n" % (
            label, " exactly (--strict)" if args.strict else "", exc))
        return EXIT_NOT_EXACT
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()
    _report_marks(text)
    if not args.verify:
        return EXIT_OK
    return _report_verification(decompiler, text, _decompile_code, " " * args.indent)


def _directory_files(folder):
    """The files `decompile DIR` reads: its .pyc files (all subfolders, __pycache__ included),
    or, when it has none, its .py files; sorted, so the output is the same on every run."""
    found = {".pyc": [], ".py": []}
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            ext = os.path.splitext(name)[1]
            if ext in found:
                found[ext].append(os.path.join(root, name))
    return found[".pyc"] or found[".py"]


def _decompile_directory(args):
    """Every .pyc (else .py) file under a folder, one after another, each under a banner line;
    a file that fails is reported on stderr and the others go on (exit status 1 then)."""
    files = _directory_files(args.target)
    if not files:
        raise UsageError("%s is a directory with no .pyc or .py files in it; TARGET is a .pyc "
                         "file, a .py file, a directory of them, or module:qualname"
                         % args.target)
    status = EXIT_OK
    for number, path in enumerate(files):
        sys.stdout.write("%s# ==== %s\n" % ("\n" if number else "", path))
        if args.verify:
            sys.stderr.write("# %s\n" % path)
        status = max(status, _decompile_one(path, path, args))
    return status


def _report_marks(text):
    """One line on stderr when the output says, in ``# dynalens:`` lines, that some of it is
    not exact or could not be decompiled (the lines themselves say where and why)."""
    from .decompiler.marking import NOT_DECOMPILED, NOT_EXACT
    lines = [line.lstrip(" \t") for line in text.splitlines()]
    inexact = sum(1 for line in lines if line.startswith(NOT_EXACT))
    failed = sum(1 for line in lines if line.startswith(NOT_DECOMPILED))
    if inexact or failed:
        sys.stderr.write("dynalens: %d not exact, %d could not be decompiled (see the "
                         "'# dynalens:' lines; --strict fails instead)\n" % (inexact, failed))


def _load_target(spec):
    """A path for files; the imported object for ``module:qualname``."""
    if os.path.exists(spec) or spec.endswith((".py", ".pyc")):
        if not os.path.isfile(spec):
            raise UsageError("no such file: %s" % spec)
        return spec
    if ":" not in spec:
        raise UsageError("TARGET must be a .pyc file, a .py file, a directory or "
                         "module:qualname, got %r"
                         % spec)
    module_name, _, qualname = spec.partition(":")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError("cannot import module %r: %s" % (module_name, exc))
    if not qualname:
        return obj
    for part in qualname.split("."):
        if part == "<locals>":
            raise UsageError("%s: functions local to another function cannot be reached by "
                             "name; decompile the enclosing function instead" % spec)
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError("%s: %r has no attribute %r" % (spec, obj, part))
    # Class attributes reached by getattr are already unwrapped (functions, bound methods);
    # staticmethod/classmethod objects come back as the function, which is what we want.
    return obj


def _code_objects(decompiler):
    """The code objects --verify checks: the target and everything nested in it."""
    if decompiler.kind == "class":
        roots = [value.__code__ for value in _class_functions(decompiler.target)]
    else:
        roots = [decompiler.code]
    found = []
    for root in roots:
        found.append(root)
        found.extend(_nested(root))
    return found


def _class_functions(cls):
    for value in cls.__dict__.values():
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            for accessor in (value.fget, value.fset, value.fdel):
                if isinstance(accessor, types.FunctionType):
                    yield accessor
        elif isinstance(value, types.FunctionType):
            yield value


def _nested(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            for inner in _nested(const):
                yield inner


def _report_verification(decompiler, text, decompile_code, indent):
    """Verify the whole output, then every nested code object decompiled on its own."""
    from .decompiler.errors import DecompilationError
    from .decompiler.verify import verify

    codes = _code_objects(decompiler)
    exact = 0
    for number, code in enumerate(codes):
        name = getattr(code, "co_qualname", code.co_name)
        if number == 0 and decompiler.kind == "code":
            source = text  # the output printed above
        else:
            try:
                source = decompile_code(code, indent, decompiler.temp_prefix, None)
            except DecompilationError as exc:
                sys.stderr.write("FAILED     %s: %s\n" % (name, exc))
                continue
        result = verify(code, source)
        if result:
            exact += 1
            sys.stderr.write("exact      %s\n" % name)
        else:
            sys.stderr.write("DIFFERENT  %s: %s\n" % (name, result.difference))
    sys.stderr.write("%d of %d code objects exact\n" % (exact, len(codes)))
    return EXIT_OK if exact == len(codes) else EXIT_NOT_EXACT


# ---------------------------------------------------------------------------------------------
# The table: name -> (one-line help, add_arguments(parser), run(args) -> exit status).
# Add new subcommands here (run, report, demo, ...).

SUBCOMMANDS = {
    "decompile": ("turn a .pyc, a .py file or module:qualname back into source",
                  _decompile_arguments, _run_decompile),
    "run": ("run a script (or -m module) unchanged under prepare_debug; write the dump and "
            "its report", runner.run_arguments, runner.run_command),
    "report": ("write the HTML explorer for a dump folder", runner.report_arguments,
               runner.report_command),
    "demo": ("run the README example under the lens and print where its report is",
             runner.demo_arguments, runner.demo_command),
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog="dynalens",
        description="See what torch.compile did: decompile bytecode, capture and explore "
                    "compiled programs.",
        epilog="exit status: 0 ok, 1 not exact / cannot decompile, 2 bad request")
    from . import __version__
    parser.add_argument("--version", action="version", version="dynalens " + __version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    for name, (help_text, add_arguments, run) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add_arguments(sub)
        sub.set_defaults(_run=run)
    return parser


def main(argv=None):
    """Entry point of the ``dynalens`` script and ``python -m dynalens``; returns the status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args._run(args)
    except BrokenPipeError:  # `dynalens decompile x.pyc | head`
        return EXIT_OK
    except (UsageError, OSError) as exc:
        sys.stderr.write("dynalens %s: error: %s\n" % (args.command, exc))
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
