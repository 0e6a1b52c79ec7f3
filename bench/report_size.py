"""Size and generation time of the explorer page for large runs.

    python bench/report_size.py                    # synthetic dumps: 120 and 480 compiles
    python bench/report_size.py --compiles 1000
    python bench/report_size.py --real 120         # a real run: a loop that recompiles 120 times
    python bench/report_size.py --dump DIR         # an existing dump folder

Prints, per dump: compiles, code blocks, dump size on disk, page size, generation time (median
of --repeat runs), the time to read the dump alone and, with --browser, the time headless
Chromium takes to open the page. Nothing is asserted: the figures go in
notes and pull requests.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from dynalens.report.api import write_report  # noqa: E402
from dynalens.report.load import load_dump  # noqa: E402
from dynalens.report.synthetic import make_dump  # noqa: E402

REAL_PROGRAM = '''
import sys
import torch
import torch._dynamo

torch._dynamo.config.recompile_limit = 100000
torch._dynamo.config.cache_size_limit = 100000
torch._dynamo.config.automatic_dynamic_shapes = False


@torch.compile(backend=sys.argv[2])
def step(x, n):
    y = torch.sin(x) * n
    if y.sum() > 0:        # a graph break on every compile
        y = y + 1
    return torch.relu(y)


for n in range(int(sys.argv[1])):
    step(torch.randn(4), n)  # n is a constant to Dynamo: every new n recompiles
'''


def _folder_size(root):
    total = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name != "report.html":
                total += os.path.getsize(os.path.join(dirpath, name))
    return total


BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]


def open_time(path, chromium="/usr/bin/chromium"):
    """Seconds until the page's load event in headless Chromium (None without Playwright)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not os.path.exists(chromium):
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
        try:
            page = browser.new_page()
            page.goto("file://" + os.path.abspath(path), wait_until="load")
            return page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") / 1e3
        finally:
            browser.close()


def measure(root, repeat, browser=False):
    times = []
    path = None
    for _ in range(repeat):
        start = time.perf_counter()
        path = write_report(root, show_progress=False)
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    dump = load_dump(root)
    load_time = time.perf_counter() - start
    blocks = sum(1 for _ in dump.code_blocks())
    line = ("%-16s compiles %5d  blocks %6d  dump %6.1f MB  page %6.1f MB  generate %6.2f s  "
            "(read %5.2f s)" % (os.path.basename(root.rstrip("/")), len(dump.compiles), blocks,
                                _folder_size(root) / 1e6, os.path.getsize(path) / 1e6,
                                statistics.median(times), load_time))
    if browser:
        opened = open_time(path)
        line += "  open in chromium %s" % ("n/a" if opened is None else "%.2f s" % opened)
    print(line, flush=True)


def real_dump(compiles, root, backend):
    """Run a loop that recompiles ``compiles`` times under ``dynalens run``."""
    import subprocess

    script = os.path.join(root, "recompile_loop.py")
    with open(script, "w") as f:
        f.write(REAL_PROGRAM)
    dump = os.path.join(root, "real_%d" % compiles)
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "src"))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dynalens.cli", "run", "--dump", dump, script,
                    str(compiles), backend], check=True, env=env)
    print("real run with %d compiles took %.1f s (including the report)"
          % (compiles, time.perf_counter() - start))
    return dump


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, nargs="*", default=[120, 480],
                        help="synthetic dump sizes (compiles)")
    parser.add_argument("--real", type=int, default=0, help="also time a real run with N compiles")
    parser.add_argument("--backend", default="eager", help="backend for --real (eager, inductor)")
    parser.add_argument("--dump", help="time an existing dump folder instead")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR",
                        help="build the dumps in DIR and keep them (default: a temporary folder)")
    parser.add_argument("--browser", action="store_true",
                        help="also time opening the page in headless Chromium (needs playwright)")
    args = parser.parse_args(argv)
    if args.dump:
        measure(args.dump, args.repeat, args.browser)
        return
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dynalens-bench-") as tmp:
        tmp = args.keep or tmp
        for n in args.compiles:
            root = os.path.join(tmp, "synthetic_%d" % n)
            functions = max(1, n // 4)
            make_dump(root, functions=functions, compiles_per_function=max(1, n // functions))
            measure(root, args.repeat, args.browser)
        if args.real:
            measure(real_dump(args.real, tmp, args.backend), args.repeat, args.browser)


if __name__ == "__main__":
    main()
