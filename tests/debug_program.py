"""The program the debugger tests (pdb, debugpy) run, and how they read what debug() prints.

The program follows the reference tool's workflow: run once under `prepare_debug`, then again
under `with debug():`, which pauses on entry (no `pause=False`). Workloads, chosen to cover
each kind of file a breakpoint can be hit in:

- `toy_example` (the reference tool's README example, backend "eager"): a graph break, so
  transformed code, a resume function's transformed code, and two graphs run from the files;
- `MLP` (an nn.Module, backend "aot_eager"): its graph runs from its file only because the
  block is `debug(run, eager_graphs=True)`.

`debug()` prints, at the pause, one line per file the block runs from:
`  <kind> <label>  <absolute path>`; `listed_files` reads them back.
"""

import os
import re
import socket
import subprocess
import sys
import textwrap
import threading
import time

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

PROGRAM = textwrap.dedent('''
    import sys
    import torch
    from dynalens.lens.api import prepare_debug, debug


    def toy_example(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b


    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, h):
            return torch.relu(self.fc(h))


    torch.manual_seed(0)
    toy = torch.compile(toy_example, backend="eager")
    mlp = torch.compile(MLP(), backend="aot_eager")
    a, b, h = torch.ones(3), -torch.ones(3), torch.ones(1, 3)
    with prepare_debug(sys.argv[1], report=False) as run:
        expected = [toy(a, b), mlp(h)]
    with debug(run, eager_graphs=True):
        got = [toy(a, b), mlp(h)]
    print("SAME", all(torch.equal(x, y) for x, y in zip(got, expected)), flush=True)
''')

_LISTED = re.compile(r"^  (transformed code|resume function|graph) (\S+) +(/\S+)$", re.M)


def write_program(folder):
    path = os.path.join(str(folder), "prog.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(PROGRAM)
    return path


def program_env(**extra):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
    env.pop("PYTHONBREAKPOINT", None)
    env.update(extra)
    return env


def listed_files(text):
    """[(kind, label, path)] from the file list debug() printed."""
    return _LISTED.findall(text)


def call_line(path):
    """The line of a transformed-code file that calls the compiled graph (`graph_out_0 = `)."""
    return _line(path, lambda ln: ln.lstrip().startswith("graph_out_0 = "))


_RENAME = re.compile(r"^\s*\w+ = \w+\s*$")


def op_line(path):
    """The first line of a graph file's `forward` that runs an operation (after the lines
    that only rename its inputs, `l_a_ = L_a_`)."""
    return _line(path, lambda ln: " = " in ln and not _RENAME.match(ln)
                 and not ln.lstrip().startswith(("def ", "class ")))


def _line(path, test):
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.lstrip().startswith("#") and test(line):
                return i
    raise AssertionError("no matching line in %s:\n%s" % (path, open(path).read()))


def not_exact_is_why(pause_text, function):
    """xfail when debug() says a compile of `function` does not run from its file because its
    decompiled source is not exact and could not be relabeled: the verification work for
    torch 2.15 (branch t215), not the debugger's. Any other reason stays a failure."""
    import pytest

    for line in pause_text.splitlines():
        if line.startswith("  not from its file:") and "decompiled source is not exact" in line \
                and "(" + function in line:
            pytest.xfail("torch %s, Python %d.%d: the transformed code of %s is not swapped (its "
                         "source does not verify and Dynamo's bytecode could not be relabeled): "
                         "%s" % (_torch_version(), sys.version_info[0], sys.version_info[1],
                                 function, line.strip()[:300]))


def _torch_version():
    import torch

    return torch.__version__


def graph_of(transformed_path, files):
    """The listed graph file that `transformed_path` calls (`__compiled_fn_<k>_...`)."""
    with open(transformed_path, encoding="utf-8") as fh:
        called = set(re.findall(r"\b(__compiled_fn_\d+)_", fh.read()))
    return [path for kind, label, path in files if kind == "graph" and label in called]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Console:
    """A child process whose stdout (stderr merged) is read by a thread, so that waiting for a
    prompt that ends without a newline ("(Pdb) ") has a deadline and never hangs."""

    def __init__(self, argv, env, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=env, cwd=cwd)
        self.text = ""
        self._seen = 0
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        while True:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return
            with self._lock:
                self.text += chunk.decode("utf-8", "replace")

    def wait_for(self, predicate, timeout, what):
        """Text since the last wait once `predicate(new text)` holds; fails at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                new = self.text[self._seen:]
            if predicate(new):
                with self._lock:
                    self._seen += len(new)
                return new
            if time.monotonic() > deadline or (self.proc.poll() is not None
                                               and not self._reader.is_alive()):
                raise AssertionError("no %s within %ss; output:\n%s"
                                     % (what, timeout, self.text[-6000:]))
            time.sleep(0.05)

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def finish(self, timeout):
        """Wait for the process to end (killed at the deadline); its exit status."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the program did not end within %ss; output:\n%s"
                                 % (timeout, self.text[-6000:]))
        finally:
            self._reader.join(timeout=10)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

