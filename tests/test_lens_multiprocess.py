"""Several processes dumping into one folder lose and corrupt nothing; ranks get subfolders."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
ENV = dict(os.environ, PYTHONPATH=SRC, OMP_NUM_THREADS="1")

SCRIPT = textwrap.dedent('''
    import multiprocessing as mp
    import sys
    import torch
    from dynalens.lens.api import prepare_debug

    def toy(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    def work(seed, n=6):
        fn = torch.compile(toy, backend="eager")
        g = torch.Generator().manual_seed(seed)
        outs = [fn(torch.randn(n, generator=g), torch.randn(n, generator=g)) for _ in range(4)]
        outs.append(fn(torch.randn(n, generator=g, dtype=torch.float64),
                       torch.randn(n, generator=g, dtype=torch.float64)))
        return outs

    def spawned(folder, seed):
        with prepare_debug(folder, report=False):
            work(seed)

    if __name__ == "__main__":
        mode, folder = sys.argv[1], sys.argv[2]
        if mode == "spawn":
            ctx = mp.get_context("spawn")
            procs = [ctx.Process(target=spawned, args=(folder, s)) for s in range(2)]
        else:
            # the parent's active block is inherited by forked children, which dump their
            # own compiles when they exit (a new size: the parent's cache does not fit)
            ctx = mp.get_context("fork")
            procs = []
        with prepare_debug(folder, report=False) as run:
            work(10)
            if mode == "fork":
                procs = [ctx.Process(target=work, args=(s, 9)) for s in (11, 12)]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
        print("EXIT", [p.exitcode for p in procs])
''')


def _run(tmp_path, mode):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    folder = tmp_path / "dump"
    res = subprocess.run([sys.executable, str(script), mode, str(folder)], capture_output=True,
                         text=True, env=ENV, timeout=600)
    assert res.returncode == 0 and "EXIT [0, 0" in res.stdout, res.stderr[-3000:]
    with open(folder / "index.json", encoding="utf-8") as fh:
        return str(folder), json.load(fh)


def _check_consistent(folder, index, processes, same_program=True):
    assert len(index["processes"]) == processes
    assert len({p["pid"] for p in index["processes"]}) == processes
    keys = [c["key"] for c in index["compiles"]]
    assert len(keys) == len(set(keys))
    paths = [f["path"] for f in index["files"]]
    assert len(paths) == len(set(paths)), "two processes claimed one file"
    on_disk = {f for f in os.listdir(folder) if f.endswith(".py")}
    assert on_disk == set(paths)
    for name in on_disk:
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            text = fh.read()
        assert text.strip(), name
        compile(text, name, "exec")
    assert not [f for f in os.listdir(folder) if f.endswith(".part")]
    for c in index["compiles"]:
        assert c["full_code"] in on_disk
        assert c["transformed_code"] is None or c["transformed_code"]["file"] in on_disk
    per_pid = {}
    for c in index["compiles"]:
        per_pid.setdefault(c["pid"], []).append(c)
    assert len(per_pid) == processes
    if same_program:
        # every process dumped the same compiles of the same program
        ids = [sorted(c["compile_id"] for c in v) for v in per_pid.values()]
        assert all(i == ids[0] for i in ids)
    return per_pid


def test_spawned_processes_share_one_folder(tmp_path):
    folder, index = _run(tmp_path, "spawn")
    _check_consistent(folder, index, processes=3)


def test_forked_children_dump_their_own_compiles(tmp_path):
    folder, index = _run(tmp_path, "fork")
    per_pid = _check_consistent(folder, index, processes=3, same_program=False)
    parent = index["processes"][-1]["pid"]     # the parent finishes last
    for pid, compiles in per_pid.items():
        if pid != parent:
            # the child inherited the parent's cache entries and recompiled for the new size
            reasons = [r for c in compiles for r in c["recompile_reasons"]]
            assert any("size mismatch" in r for r in reasons), reasons


@pytest.mark.slow
def test_torchrun_ddp_one_subfolder_per_rank(tmp_path):
    folder = tmp_path / "dump"
    res = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node",
                          "2", "-m", "dynalens.examples.ddp_train", str(folder)],
                         capture_output=True, text=True, env=ENV, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    with open(folder / "index.json", encoding="utf-8") as fh:
        top = json.load(fh)
    assert top["subdumps"] == ["rank_0", "rank_1"] and top["compiles"] == []
    for rank in (0, 1):
        sub = folder / ("rank_%d" % rank)
        with open(sub / "index.json", encoding="utf-8") as fh:
            index = json.load(fh)
        assert [p["rank"] for p in index["processes"]] == [rank]
        assert index["processes"][0]["world_size"] == 2
        stages = {s["stage"] for c in index["compiles"] for g in c["graphs"]
                  for s in g["stages"]}
        assert {"Captured_Graph", "Forward_graph", "Backward_graph"} <= stages
        for f in index["files"]:
            assert (sub / f["path"]).exists()
