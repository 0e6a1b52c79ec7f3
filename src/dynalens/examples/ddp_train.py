"""A two-rank DistributedDataParallel training run under the lens (CPU, gloo).

    torchrun --nproc_per_node 2 -m dynalens.examples.ddp_train DUMP_DIR

Each rank compiles the model that DDP wraps (AOTAutograd: forward and backward graphs) and runs a few SGD steps under `prepare_debug(DUMP_DIR)`; since torch.distributed
is initialised, each rank's dump lands in `DUMP_DIR/rank_<r>/`. Rank 0 prints the final loss.
"""

import os
import sys

import torch
import torch.distributed as dist


def main(dump_dir, steps=3):
    from dynalens.lens.api import prepare_debug

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    try:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                    torch.nn.Linear(16, 2))
        # The compiled module inside DDP: torch 2.13's Dynamo cannot trace DDP's own
        # forward (its runtime logger breaks the graph and nothing is left to compile).
        cmodel = torch.nn.parallel.DistributedDataParallel(
            torch.compile(model, backend="aot_eager"))
        opt = torch.optim.SGD(cmodel.parameters(), lr=0.05)
        gen = torch.Generator().manual_seed(100 + rank)
        with prepare_debug(dump_dir, report=(rank == 0)) as run:
            for _ in range(steps):
                opt.zero_grad()
                x = torch.randn(4, 8, generator=gen)
                loss = cmodel(x).pow(2).mean()
                loss.backward()
                opt.step()
        print("rank %d dumped %d compiles to %s (loss %.6f)"
              % (rank, len(run.index["compiles"]), run.dump_dir, loss.item()), flush=True)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(sys.argv[1])
