"""The README's seed example: one compiled function with a graph break and a recompilation.

Run it as ``python -m dynalens.examples.seed`` (plain torch.compile) or
``python -m dynalens.examples.seed DUMP_DIR`` (under ``dynalens.prepare_debug(DUMP_DIR)``).

The data-dependent ``if`` splits the function into a graph plus resume functions, and the last
call changes the dtype, which fails a guard and forces a recompilation: so a single run shows
every kind of thing the lens captures. Inputs come from a fixed seed, so runs are repeatable.
"""

import sys

import torch


@torch.compile
def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def make_inputs():
    """Fixed-seed inputs: both branches of the ``if``, then float64 to force a recompile."""
    gen = torch.Generator().manual_seed(0)
    inputs = []
    for _ in range(3):
        inputs.append((torch.randn(10, generator=gen), torch.randn(10, generator=gen)))
    inputs.append((torch.randn(10, generator=gen, dtype=torch.float64),
                   torch.randn(10, generator=gen, dtype=torch.float64)))
    return inputs


def main(fn=None):
    """Call the compiled function on every input; return the outputs (for comparisons)."""
    fn = toy_example if fn is None else fn
    return [fn(a, b) for a, b in make_inputs()]


if __name__ == "__main__":
    if len(sys.argv) > 1:
        from dynalens.lens.api import prepare_debug

        with prepare_debug(sys.argv[1]) as run:
            main()
        print("dump written to", run.dump_dir)
    else:
        for out in main():
            print(out)
