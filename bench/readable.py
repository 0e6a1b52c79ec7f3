"""How readable the transformed code is: `__temp_N` names and lines per transformed-code file.

    python bench/readable.py            # the README example, every lens workload, and the
                                        # transformers models (examples/hf_models.py RUNS)
    python bench/readable.py --no-hf    # without the models (they take minutes)
    python bench/readable.py --dump DIR # only measures an existing dump folder (any layout)

Prints, for the README example (the `seed` program): lines of code of each transformed file
and its `__temp_N` count; then for the lens workloads, for the models (real programs with
graph breaks: GPT-2, Llama, BERT, T5, a Mixtral-style MoE, inference and a training step, a
generation loop, a checkpointed CNN), and for both together: how many transformed files, the
median and largest `__temp_N` count per file, how many verified, and the files with the most
`__temp_N`. Run it with each torch venv to get the figures per torch version. Nothing is
asserted: the figures go in notes and issues.
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


def measure(dumps, label):
    """Print the figures for the transformed files under ``dumps``; return those files."""
    files = [f for dump in dumps for f in transformed_files(dump)]
    if not files:
        print("%s: no transformed-code files" % label)
        return files
    temps = [temp_count(open(p).read()) for p, _ in files]
    verified = sum(1 for _, v in files if v)
    print("%s: %d transformed files, __temp_N per file median %s max %d, %d verified"
          % (label, len(files), statistics.median(temps), max(temps), verified))
    worst = sorted(zip(temps, (p for p, _ in files)), reverse=True)[:3]
    for count, path in worst:
        if count:
            print("    %d __temp_N: %s" % (count, os.path.relpath(path, os.path.dirname(
                os.path.dirname(path)))))
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="measure this dump folder only")
    parser.add_argument("--no-hf", action="store_true", help="leave out the transformers models")
    opts = parser.parse_args()
    import torch

    print("torch %s, Python %d.%d" % ((torch.__version__,) + sys.version_info[:2]))
    if opts.dump:
        measure([opts.dump], opts.dump)
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
        measure([work_dir], "lens workloads")
        if opts.no_hf:
            return
        from dynalens.examples.hf_models import RUNS

        model_dirs = []
        for name, mode in RUNS:
            model_dirs.append(os.path.join(tmp, "hf", "%s_%s" % (name, mode)))
            run(["-m", "dynalens.examples.hf_models", name, mode, model_dirs[-1]],
                dict(env, HF_HUB_OFFLINE="1"))
        measure(model_dirs, "models (%d runs)" % len(RUNS))
        measure([work_dir] + model_dirs, "workloads and models")


if __name__ == "__main__":
    main()
