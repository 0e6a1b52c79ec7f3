"""Two versions of the decompiler timed against each other in one process, interleaved.

On a shared, loaded machine two whole-stdlib runs taken one after the other differ by more
than most speed changes gain (the load moves between them). This script loads both versions
side by side, under package names of their own, and decompiles every function-level code
object with each in turn (the order flipped from one code object to the next), adding up CPU
time per version; the load then falls on both alike, and ``head/base`` is the figure to quote
(1.000 for two copies of the same code, within about 0.5%). It also counts the code objects
whose outputs differ, so a pure speed change shows 0.

    python bench/interleaved.py BASE HEAD [--sample N] [--source-root DIR]

BASE and HEAD are each a git revision of this repository (``main``, ``HEAD~3``, a hash) or a
folder that holds the ``dynalens`` package (a checkout's ``src``). Bytecode counts and
profiles are no substitute: changes that execute fewer bytecodes have measured slower here
(small code objects pay for the lists that C helpers build).

Its ratios to compile() are not the figure of record: each code object is decompiled twice in
a row here, and the second decompile of the same work runs warm (the processor's caches and
the allocator's free lists still hold what the first one touched: on 3.11, a second decompile
of the same code object takes 5-7% less CPU, and one of a copy of it about 5% less), so
both versions read about 7-10% faster than a single cold pass. `bench/roundtrip.py`'s
``ratio to compile()`` (one decompile per code object) is the figure issue 13 and the README
quote; this script's ``head/base`` is what it is for.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import roundtrip  # noqa: E402  (file selection and the code-object walk, shared)

sys.path.remove(BENCH)

_ABSOLUTE_IMPORT = re.compile(r"^(\s*)(from|import)(\s+)dynalens\b", re.MULTILINE)


def package_source(spec, workdir, label):
    """The folder holding a ``dynalens`` package for ``spec``: the folder itself, or the
    revision's ``src`` written out with ``git archive`` (a spec that is neither is an error
    naming it)."""
    if os.path.isdir(os.path.join(spec, "dynalens")):
        return spec
    # (labelled: the same revision given twice, two identical copies, is the noise check)
    target = os.path.join(workdir, "%s-rev-%s" % (label, re.sub(r"[^A-Za-z0-9_.-]", "_", spec)))
    os.makedirs(target)
    try:
        archive = subprocess.run(["git", "-C", REPO, "archive", spec, "src/dynalens"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    except subprocess.CalledProcessError as exc:
        raise SystemExit("interleaved.py: %r is neither a folder holding dynalens nor a git "
                         "revision of %s (%s)" % (spec, REPO, exc.stderr.decode().strip()))
    subprocess.run(["tar", "-x", "-C", target], input=archive.stdout, check=True)
    return os.path.join(target, "src")


def load_under(source_dir, name, workdir):
    """Copy ``source_dir/dynalens`` to ``workdir/name`` with its absolute imports of
    ``dynalens`` renamed, import it, and return its ``decompile_code``. Relative imports need
    no change; the absolute ones would otherwise load the installed package into the copy."""
    destination = os.path.join(workdir, name)
    shutil.copytree(os.path.join(source_dir, "dynalens"), destination,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for folder, _, files in os.walk(destination):
        for file_name in files:
            if file_name.endswith(".py"):
                path = os.path.join(folder, file_name)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                renamed = _ABSOLUTE_IMPORT.sub(r"\1\2\3" + name, text)
                if renamed != text:
                    with open(path, "w", encoding="utf-8") as handle:
                        handle.write(renamed)
    if workdir not in sys.path:
        sys.path.insert(0, workdir)
    module = __import__(name + ".decompiler.render", fromlist=["decompile_code"])
    return module.decompile_code


def compare(entries, base, head):
    """Decompile every function-level code object of ``entries`` with ``base`` and ``head``
    alternately; returns a dict of the CPU seconds of each, of compile(), and the counts."""
    clock = time.process_time
    totals = {"base": 0.0, "head": 0.0, "compile": 0.0, "functions": 0, "different": 0}
    for entry in entries:
        path, data = roundtrip.read_source(entry)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = clock()
            try:
                module = compile(data, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                continue
            totals["compile"] += clock() - start
        for code in roundtrip.walk_code(module):
            if not code.co_flags & 1:  # CO_OPTIMIZED: function-level code objects only
                continue
            totals["functions"] += 1
            order = (("base", base), ("head", head))
            if totals["functions"] % 2 == 0:
                order = order[::-1]
            outputs = {}
            for label, decompile_code in order:
                start = clock()
                try:
                    outputs[label] = decompile_code(code)
                except Exception as exc:  # a decompile error is an output like any other here
                    outputs[label] = "%s: %s" % (type(exc).__name__, exc)
                totals[label] += clock() - start
            totals["different"] += outputs["base"] != outputs["head"]
    return totals


def report(totals):
    compile_seconds = totals["compile"] or float("nan")
    return ("Python %s: %d functions, %d with different output\n"
            "base %.2f CPU s (%.2fx compile()), head %.2f CPU s (%.2fx compile()), "
            "compile() %.2f CPU s (ratios warm, see the docstring: quote head/base)\n"
            "head/base %.4f"
            % (sys.version.split()[0], totals["functions"], totals["different"],
               totals["base"], totals["base"] / compile_seconds, totals["head"],
               totals["head"] / compile_seconds, totals["compile"],
               totals["head"] / totals["base"] if totals["base"] else float("nan")))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="git revision or folder holding dynalens")
    parser.add_argument("head", help="git revision or folder holding dynalens")
    parser.add_argument("--sample", type=int, default=None, help="only the first N files")
    parser.add_argument("--source-root", default=None,
                        help="a tree of .py files instead of the stdlib")
    options = parser.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="dynalens-interleaved-")
    try:
        base = load_under(package_source(options.base, workdir, "base"), "dynalens_base", workdir)
        head = load_under(package_source(options.head, workdir, "head"), "dynalens_head", workdir)
        entries = roundtrip.collect_from_dir(options.source_root or roundtrip.stdlib_root())
        if options.sample:
            entries = roundtrip.sample(entries, options.sample)
        print(report(compare(entries, base, head)))
    finally:
        for name in [name for name in sys.modules
                     if name.split(".")[0] in ("dynalens_base", "dynalens_head")]:
            del sys.modules[name]
        if workdir in sys.path:
            sys.path.remove(workdir)
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
