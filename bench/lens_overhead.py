"""How much does the lens cost? Wall time of a fresh process, plain torch.compile vs prepare_debug.

For each workload (README example on Inductor, an MLP training step, a TransformerEncoderLayer)
it runs a fresh Python process that imports torch, compiles and runs the workload, `--runs`
times plain and `--runs` times under `dynalens.prepare_debug(tmpdir)` (interleaved, after one
discarded warm-up of each so both see the same warm Inductor/FX caches), and prints the medians
of wall time and of the child's CPU time (user + system), each with the ratio lens/plain of the
medians. The dump includes the HTML report unless `--no-report`.

    .venv/bin/python bench/lens_overhead.py [--runs 5] [--no-report] [WORKLOAD ...]
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["readme", "mlp_training", "transformer_encoder_layer"]

CHILD = """
import sys
from dynalens.examples.workloads import run_workload
name, dump, report = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
if dump == "-":
    run_workload(name)
else:
    from dynalens.lens.api import prepare_debug
    with prepare_debug(dump, report=report):
        run_workload(name)
"""


def one(name, dump, report):
    """(wall seconds, CPU seconds) of one fresh process running the workload."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"),
               PYTHONWARNINGS="ignore")
    # measure what users get: Python caches compiled modules (.pyc) unless told not to; with
    # PYTHONDONTWRITEBYTECODE (set on some CI machines) every run would recompile dynalens
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", CHILD, name, dump, "1" if report else "0"],
                         env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit("workload %s failed:\n%s" % (name, res.stderr[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=DEFAULT)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-report", action="store_true")
    args = ap.parse_args()
    report = not args.no_report
    print("python %s, %d runs each, report %s" % (sys.version.split()[0], args.runs,
                                                  "on" if report else "off"))
    print("%-28s %9s %9s %7s   %9s %9s %7s" % (
        "workload", "wall s", "lens", "ratio", "CPU s", "lens", "ratio"))
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.workloads:
            one(name, "-", report)
            one(name, os.path.join(tmp, name + "_warm"), report)
            plain, lens = [], []
            for i in range(args.runs):
                plain.append(one(name, "-", report))
                lens.append(one(name, os.path.join(tmp, "%s_%d" % (name, i)), report))
            row = [name]
            for k in (0, 1):
                p = [x[k] for x in plain]
                q = [x[k] for x in lens]
                ratio = statistics.median(q) / statistics.median(p)
                row += [statistics.median(p), statistics.median(q), ratio]
                if k == 0:
                    worst = max(worst, ratio)
            print("%-28s %9.2f %9.2f %7.3f   %9.2f %9.2f %7.3f" % tuple(row), flush=True)
    print("worst wall-time ratio of medians: %.3f (CPU time is steadier on a shared machine)"
          % worst)


if __name__ == "__main__":
    main()
