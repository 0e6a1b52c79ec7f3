"""How many of Dynamo's code objects does the lens verify? Per workload and in total.

Runs every lens workload (src/dynalens/examples/workloads.py) under `prepare_debug` in this
process and counts, over the transformed code objects and the resume functions they call:

    frames     transformed code objects (one per compile that produced code)
    resumes    resume functions those call
    bytecode   code objects whose source recompiles to the same bytecode
    dataflow   code objects verified by the dataflow check (`verify(..., temporaries=True)`)
    not        decompiled but not verified (marked NOT SWAPPED in the dump)
    failed     not decompiled at all (a disassembly is dumped instead)
    swapped    transformed code objects debug() swaps for the file's own code

and lists the first difference of every code object that did not verify, and the lens's
warnings. Run it with each torch you support, e.g.

    PYTHONPATH=src .venv/bin/python bench/lens_frames.py [--keep DIR] [WORKLOAD ...]
"""

import argparse
import os
import sys
import tempfile
import warnings

COLUMNS = ("frames", "resumes", "bytecode", "dataflow", "not", "failed", "swapped")


def count(index):
    """The figures of one dump's index, and the problems (one line each)."""
    figures = dict.fromkeys(COLUMNS, 0)
    problems = []
    for c in index["compiles"]:
        entries = []
        t = c["transformed_code"]
        if t is not None:
            figures["frames"] += 1
            figures["swapped"] += bool(t.get("swappable"))
            entries.append(("transformed", t))
        for r in c["resume_functions"]:
            figures["resumes"] += 1
            entries.append(("resume " + r["name"], r))
        for label, e in entries:
            if not e["decompiled"]:
                figures["failed"] += 1
                problems.append("%s %s %s: decompile failed: %s" % (
                    c["compile_id"], c["function"], label, e.get("error")))
            elif e["verified"]:
                figures[e["verified_by"] or "bytecode"] += 1
            else:
                figures["not"] += 1
                problems.append("%s %s %s: %s" % (c["compile_id"], c["function"], label,
                                                  e.get("difference")))
    return figures, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="workloads (default: all)")
    parser.add_argument("--keep", help="write the dumps here instead of a temporary folder")
    args = parser.parse_args(argv)

    import torch

    from dynalens.examples.workloads import WORKLOADS, run_workload
    from dynalens.lens.api import prepare_debug

    names = args.names or sorted(WORKLOADS)
    root = args.keep or tempfile.mkdtemp(prefix="lens_frames_")
    print("torch %s, Python %d.%d.%d" % ((torch.__version__,) + sys.version_info[:3]))
    print("%-26s" % "workload" + "".join("%9s" % c for c in COLUMNS))
    totals = dict.fromkeys(COLUMNS, 0)
    all_problems, all_warnings = [], []
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            with prepare_debug(os.path.join(root, name), report=False) as run:
                run_workload(name)
        figures, problems = count(run.index)
        for k in COLUMNS:
            totals[k] += figures[k]
        all_problems += ["%s: %s" % (name, p) for p in problems]
        all_warnings += ["%s: %s" % (name, w) for w in run.index.get("warnings", [])]
        print("%-26s" % name + "".join("%9d" % figures[k] for k in COLUMNS), flush=True)
    print("%-26s" % "TOTAL" + "".join("%9d" % totals[k] for k in COLUMNS))
    objects = totals["frames"] + totals["resumes"]
    verified = totals["bytecode"] + totals["dataflow"]
    print("verified %d of %d code objects (%.1f%%)" % (
        verified, objects, 100.0 * verified / objects if objects else 0.0))
    for p in all_problems:
        print("  NOT VERIFIED " + " ".join(p.split())[:400])
    for w in all_warnings:
        print("  WARNING " + " ".join(w.split())[:400])
    return 0 if verified == objects else 1


if __name__ == "__main__":
    sys.exit(main())
