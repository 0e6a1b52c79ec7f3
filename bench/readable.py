"""How readable the transformed code is: `__temp_N` names and lines per transformed-code file.

    python bench/readable.py            # runs the README example and every lens workload
    python bench/readable.py --dump DIR # only measures an existing dump folder (any layout)

Prints, for the README example (the `seed` program): lines of code of each transformed file
and its `__temp_N` count; and across the workloads: how many transformed files, the median and
largest `__temp_N` count per file, and how many verified. Run it with each torch venv to get
the figures per torch version. Nothing is asserted: the figures go in notes and issues.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "src"))

from dynalens.lens.readable import temp_count  # noqa: E402


def transformed_files(dump):
    """[(path, verified or None)] of every transformed-code file under ``dump``."""
    found = []
    for folder, _, files in os.walk(dump):
        verified = {}
        if "index.json" in files:
            try:
                with open(os.path.join(folder, "index.json")) as fh:
                    index = json.load(fh)
                for entry in index.get("compiles", []):
                    t = entry.get("transformed_code") or {}
                    if t.get("file"):
                        verified[t["file"]] = t.get("verified")
            except (OSError, ValueError):
                pass
        for name in sorted(files):
            if name.startswith("__transformed_code_") and name.endswith(".py"):
                found.append((os.path.join(folder, name), verified.get(name)))
    return found


def code_lines(path):
    """Lines of the function itself: not comments, not blank."""
    with open(path) as fh:
        return [ln for ln in fh.read().splitlines()
                if ln.strip() and not ln.lstrip().startswith("#")]


def run(args, env):
    subprocess.run([sys.executable] + args, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def measure(dump, label):
    files = transformed_files(dump)
    temps = [temp_count(open(p).read()) for p, _ in files]
    verified = sum(1 for _, v in files if v)
    if not files:
        print("%s: no transformed-code files" % label)
        return
    print("%s: %d transformed files, __temp_N per file median %s max %d, %d verified"
          % (label, len(files), statistics.median(temps), max(temps), verified))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="measure this dump folder only")
    opts = parser.parse_args()
    import torch

    print("torch %s, Python %d.%d" % ((torch.__version__,) + sys.version_info[:2]))
    if opts.dump:
        measure(opts.dump, opts.dump)
        return
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    with tempfile.TemporaryDirectory() as tmp:
        seed_dir = os.path.join(tmp, "seed")
        run(["-m", "dynalens.examples.seed", seed_dir], env)
        for path, verified in transformed_files(seed_dir):
            if path.endswith("_for_toy_example.py"):
                print("README example %s: %d lines of code, %d __temp_N, verified %s"
                      % (os.path.basename(path), len(code_lines(path)) - 1,
                         temp_count(open(path).read()), verified))
        work_dir = os.path.join(tmp, "workloads")
        run(["-m", "dynalens.examples.workloads", "--all", work_dir], env)
        measure(work_dir, "lens workloads")


if __name__ == "__main__":
    main()
