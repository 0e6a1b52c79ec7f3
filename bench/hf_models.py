"""The lens on Hugging Face transformers models: one line of figures per model and mode.

Runs every model of dynalens.examples.hf_models (GPT-2, Llama, BERT, T5, Mixtral-style MoE;
tiny configs, random weights, offline) for inference and for a compiled training step, plain
and under `dynalens.prepare_debug`, then replays the run to compare each dumped guard with
torch's, and prints: outputs identical, compiles, Dynamo code objects (transformed code and
resume functions) verified / total, resume functions, dumped .py files, whether all of them
compile, guards agreeing with torch / checked, lens warnings; under each line, what failed.

    PYTHONPATH=src .venv/bin/python bench/hf_models.py [--dump DIR] [NAME ...]
"""

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="keep the dumps in this folder (default: a temporary one)")
    parser.add_argument("--mode", choices=["inference", "training"], action="append")
    parser.add_argument("names", nargs="*", help="models (default: all)")
    args = parser.parse_args()

    import torch
    import transformers

    from dynalens.examples.hf_models import run_all

    print("torch %s, transformers %s, Python %s" % (
        torch.__version__, transformers.__version__, sys.version.split()[0]))
    root = args.dump or tempfile.mkdtemp(prefix="dynalens_hf_")
    rows = run_all(root, args.names or None, args.mode or None)
    frames = sum(r["frames"] for r in rows)
    verified = sum(r["verified"] for r in rows)
    print("total: %d/%d frames verified (%.1f%%), %d runs with outputs changed, %d with a file "
          "that does not compile" % (verified, frames, 100.0 * verified / max(frames, 1),
                                     sum(not r["same"] for r in rows),
                                     sum(bool(r["bad_files"]) for r in rows)))
    print("dumps in", root)
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
