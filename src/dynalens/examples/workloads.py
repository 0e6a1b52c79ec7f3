"""Small, CPU-fast, deterministic torch.compile programs that exercise what the lens captures.

Each workload is a function `run(backend=None) -> list` that builds its inputs and modules from a
fixed seed, compiles, calls, and returns its outputs (tensors, numbers, tuples) so a caller can
check that the lens changed nothing. Compiled functions are created inside the call, and callers
reset Dynamo (`torch._dynamo.reset()`) between runs so every run compiles afresh.

`python -m dynalens.examples.workloads NAME [DUMP_DIR]` runs one (under prepare_debug when a
folder is given); `--list` lists them; `--all DUMP_ROOT` runs every one plain and under the lens
and prints how many of Dynamo's code objects decompiled and verified exact.
"""

import sys

import torch

WORKLOADS = {}


def workload(name, backend="eager", description=""):
    def register(fn):
        fn.workload_name = name
        fn.default_backend = backend
        fn.description = description or (fn.__doc__ or "").strip().splitlines()[0]
        WORKLOADS[name] = fn
        return fn
    return register


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _seeded(seed=0):
    torch.manual_seed(seed)


def _b(backend, default):
    return default if backend is None else backend


@workload("readme", backend="inductor")
def readme(backend=None):
    """The README example: data-dependent branch (graph break), dtype recompilation."""
    from . import seed

    def toy_example(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    fn = torch.compile(toy_example, backend=_b(backend, "inductor"))
    return seed.main(fn)


@workload("graph_break_print")
def graph_break_print(backend=None):
    """A print() inside the compiled function splits it in two graphs."""
    import io

    sink = io.StringIO()

    def fn(x):
        y = torch.sin(x) * 2
        print("halfway", file=sink)
        return torch.cos(y) + 1

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(1)
    return [cfn(torch.randn(8, generator=g)) for _ in range(2)]


@workload("graph_break_item")
def graph_break_item(backend=None):
    """`.item()` turns a tensor into a Python number: a graph break."""
    def fn(x):
        s = x.sum().item()
        return x * s + 1

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(2)
    return [cfn(torch.randn(6, generator=g)) for _ in range(2)]


@workload("data_dependent_branch")
def data_dependent_branch(backend=None):
    """An `if` on a tensor's value: both branches taken, resume functions for each."""
    def fn(x, y):
        z = x @ y
        if z.mean() > 0:
            return z.relu()
        return z.sigmoid() - 1

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(3)
    out = []
    for _ in range(4):
        out.append(cfn(torch.randn(4, 4, generator=g), torch.randn(4, 4, generator=g)))
    return out


def _mlp():
    _seeded(4)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))


@workload("mlp_inference", backend="aot_eager")
def mlp_inference(backend=None):
    """An MLP forward under no_grad (AOT inference graph)."""
    model = _mlp().eval()
    cmodel = torch.compile(model, backend=_b(backend, "aot_eager"))
    g = _gen(5)
    with torch.no_grad():
        return [cmodel(torch.randn(8, 16, generator=g)) for _ in range(2)]


@workload("mlp_training", backend="aot_eager")
def mlp_training(backend=None):
    """A training step: forward, loss, backward, SGD step (joint/forward/backward graphs)."""
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(x, target):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        return loss.detach()

    cstep = torch.compile(step, backend=_b(backend, "aot_eager"))
    g = _gen(6)
    losses = [cstep(torch.randn(8, 16, generator=g), torch.randn(8, 4, generator=g))
              for _ in range(3)]
    return losses + [p.detach().clone() for p in model.parameters()]


@workload("transformer_encoder_layer", backend="aot_eager")
def transformer_encoder_layer(backend=None):
    """torch.nn.TransformerEncoderLayer in eval mode."""
    _seeded(7)
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                             dropout=0.0, batch_first=True).eval()
    clayer = torch.compile(layer, backend=_b(backend, "aot_eager"))
    g = _gen(7)
    with torch.no_grad():
        return [clayer(torch.randn(2, 5, 16, generator=g)) for _ in range(2)]


@workload("conv_net", backend="aot_eager")
def conv_net(backend=None):
    """A small conv net: conv, batch norm (eval), pooling, linear head."""
    _seeded(8)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 3)).eval()
    cnet = torch.compile(net, backend=_b(backend, "aot_eager"))
    g = _gen(8)
    with torch.no_grad():
        return [cnet(torch.randn(2, 1, 8, 8, generator=g)) for _ in range(2)]


@workload("dynamic_growing")
def dynamic_growing(backend=None):
    """Growing input sizes: the second size triggers an automatic-dynamic recompile."""
    def fn(x):
        return (x * 2).sum(dim=0) + x.shape[0]

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(9)
    return [cfn(torch.randn(n, 3, generator=g)) for n in (2, 3, 4, 5)]


@workload("dynamic_true")
def dynamic_true(backend=None):
    """`dynamic=True`: one symbolic-shape graph for all sizes."""
    def fn(x, y):
        return torch.cat([x, y]).cumsum(0)

    cfn = torch.compile(fn, backend=_b(backend, "eager"), dynamic=True)
    g = _gen(10)
    return [cfn(torch.randn(n, generator=g), torch.randn(n + 1, generator=g))
            for n in (3, 5, 7)]


@workload("dtype_recompile")
def dtype_recompile(backend=None):
    """The same function on float32, then float64 (dtype guard fails), then float32 again."""
    def fn(x):
        return x.exp() - x

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(11)
    return [cfn(torch.randn(5, generator=g, dtype=dt))
            for dt in (torch.float32, torch.float64, torch.float32)]


@workload("closures")
def closures(backend=None):
    """A compiled closure that reads a cell and a nested function that writes a nonlocal."""
    scale = torch.tensor(3.0)
    calls = []

    def make():
        count = 0

        def inner(x):
            nonlocal count
            count += 1
            calls.append(count)
            return x * scale + count

        return inner

    cfn = torch.compile(make(), backend=_b(backend, "eager"))
    g = _gen(12)
    return [cfn(torch.randn(4, generator=g)) for _ in range(2)] + [list(calls)]


class _Scaler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        _seeded(13)
        self.lin = torch.nn.Linear(4, 4)

    def score(self, x, bias=0.0):
        return self.lin(x).tanh().sum(-1) + bias


@workload("module_method")
def module_method(backend=None):
    """A compiled bound method of an nn.Module (not forward), with a keyword argument."""
    m = _Scaler()
    cscore = torch.compile(m.score, backend=_b(backend, "eager"))
    g = _gen(13)
    return [cscore(torch.randn(3, 4, generator=g), bias=0.5) for _ in range(2)]


@workload("containers")
def containers(backend=None):
    """kwargs, list and dict inputs, a tuple output."""
    def fn(xs, table, *, weight=1.0):
        total = sum(xs)
        return total * weight, table["a"] - table["b"], len(xs)

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(14)
    out = []
    for _ in range(2):
        xs = [torch.randn(3, generator=g) for _ in range(3)]
        table = {"a": torch.randn(3, generator=g), "b": torch.randn(3, generator=g)}
        out.append(cfn(xs, table, weight=2.0))
    return out


@workload("loop_graph_break")
def loop_graph_break(backend=None):
    """A loop whose body calls a function with a graph break (print).

    Dynamo cannot resume in the middle of a loop, so it skips the looping frame (the dump
    records why) and compiles the called function on its own, split at the print.
    """
    import io

    sink = io.StringIO()

    def body(x, i):
        y = x * 2 + i
        print("step", i, file=sink)
        return y.tanh()

    def fn(x):
        for i in range(3):
            x = body(x, i)
        return x.sum()

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(15)
    return [cfn(torch.randn(4, generator=g)) for _ in range(2)]


@workload("no_grad_try")
def no_grad_try(backend=None):
    """torch.no_grad() and try/except inside the compiled function."""
    def fn(x):
        with torch.no_grad():
            y = x * 2
        try:
            z = y / x.abs().max()
        except ZeroDivisionError:
            z = y
        return z + y

    cfn = torch.compile(fn, backend=_b(backend, "eager"))
    g = _gen(16)
    return [cfn(torch.randn(5, generator=g, requires_grad=True)) for _ in range(2)]


@workload("backends", backend="all")
def backends(backend=None):
    """One function compiled with each backend: eager, aot_eager, inductor."""
    def fn(x):
        return torch.nn.functional.gelu(x) * x.sum()

    g = _gen(17)
    x = torch.randn(6, generator=g)
    return [torch.compile(fn, backend=b)(x) for b in ("eager", "aot_eager", "inductor")]


@workload("fullgraph")
def fullgraph(backend=None):
    """`fullgraph=True`: one graph, no graph breaks allowed."""
    def fn(x, y):
        return torch.where(x > y, x - y, y - x).norm()

    cfn = torch.compile(fn, backend=_b(backend, "eager"), fullgraph=True)
    g = _gen(18)
    return [cfn(torch.randn(5, generator=g), torch.randn(5, generator=g)) for _ in range(2)]


@workload("nested_compiled")
def nested_compiled(backend=None):
    """A compiled function calling another compiled function (inlined by Dynamo)."""
    be = _b(backend, "eager")

    @torch.compile(backend=be)
    def inner(x):
        return x.sin() + 1

    @torch.compile(backend=be)
    def outer(x):
        return inner(x) * inner(x * 2)

    g = _gen(19)
    return [outer(torch.randn(4, generator=g)) for _ in range(2)] + [inner(torch.ones(2))]


def outputs_equal(a, b):
    """Exact equality of workload outputs: same types, shapes, dtypes and bits."""
    if isinstance(a, torch.Tensor):
        return (isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape
                and bool(torch.equal(a, b)))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(outputs_equal(x, y) for x, y in zip(a, b)))
    return a == b


def run_workload(name, backend=None):
    """Run one workload after resetting Dynamo, so it compiles afresh."""
    import torch._dynamo

    torch._dynamo.reset()
    return WORKLOADS[name](backend)


def run_all(root, names=None):
    """Every workload plain and under the lens (into root/NAME); print what the lens saw.

    Prints, per workload, whether outputs matched and how many Dynamo code objects
    (transformed code and resume functions) decompiled and verified exact, then totals.
    """
    import os
    import warnings

    from dynalens.lens.api import prepare_debug

    totals = {"code objects": 0, "decompiled": 0, "exact": 0, "mismatched outputs": 0}
    print("%-26s %-5s %8s %10s %6s" % ("workload", "same", "objects", "decompiled", "exact"))
    for name in names or list(WORKLOADS):
        plain = run_workload(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            with prepare_debug(os.path.join(root, name), report=False) as run:
                lensed = run_workload(name)
        same = outputs_equal(plain, lensed)
        objs = []
        for c in run.index["compiles"]:
            t = c["transformed_code"]
            if t is not None:
                objs.append((t["decompiled"], t["verified"]))
            objs += [(r["decompiled"], r["verified"]) for r in c["resume_functions"]]
        dec = sum(1 for d, _ in objs if d)
        ex = sum(1 for _, v in objs if v)
        totals["code objects"] += len(objs)
        totals["decompiled"] += dec
        totals["exact"] += ex
        totals["mismatched outputs"] += not same
        print("%-26s %-5s %8d %10d %6d" % (name, same, len(objs), dec, ex), flush=True)
    print("totals: " + ", ".join("%s %d" % kv for kv in totals.items()))
    return totals


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--all":
        if len(argv) < 2:
            print("usage: --all DUMP_ROOT [NAME ...]", file=sys.stderr)
            return 2
        totals = run_all(argv[1], argv[2:] or None)
        return 0 if totals["mismatched outputs"] == 0 else 1
    if not argv or argv[0] == "--list":
        for name, fn in WORKLOADS.items():
            print("%-26s %-10s %s" % (name, fn.default_backend, fn.description))
        return 0
    name = argv[0]
    if name not in WORKLOADS:
        print("unknown workload %r; --list shows them" % name, file=sys.stderr)
        return 2
    if len(argv) > 1:
        from dynalens.lens.api import prepare_debug

        with prepare_debug(argv[1]) as run:
            run_workload(name)
        print("dump written to", run.dump_dir)
    else:
        for out in run_workload(name):
            print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
