"""install()/uninstall(): TORCH_LOGS=+bytecode also shows the decompiled source."""

import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

SCRIPT = textwrap.dedent('''
    import sys
    import torch
    import dynalens

    def first(x):
        return x.cos() + 1

    def second(x):
        return x.sin() - 1

    dynalens.install()
    dynalens.install()                       # idempotent
    torch.compile(first, backend="eager")(torch.ones(2))
    print("MARK uninstall", file=sys.stderr, flush=True)
    dynalens.uninstall()
    dynalens.uninstall()                     # a no-op the second time
    torch.compile(second, backend="eager")(torch.ones(2))
''')


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    script = tmp_path_factory.mktemp("logging") / "prog.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=SRC, TORCH_LOGS="+bytecode")
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    before, _, after = res.stderr.partition("MARK uninstall")
    return before, after


def test_installed_hook_logs_decompiled_source(logged):
    before, _ = logged
    assert "MODIFIED BYTECODE first" in before            # torch's own listing
    assert before.count("decompiled by dynalens") == 1     # installed twice, logged once
    text = before.split("decompiled by dynalens", 1)[1]
    assert "def first(x):" in text or "could not decompile" in text


def test_uninstall_removes_it(logged):
    _, after = logged
    assert "MODIFIED BYTECODE second" in after
    assert "decompiled by dynalens" not in after


def test_hook_does_nothing_when_the_log_is_off(monkeypatch):
    from dynalens.lens import logging as lens_logging
    from dynalens.lens import source

    calls = []
    monkeypatch.setattr(source, "function_source", lambda *a, **k: calls.append(a))
    assert lens_logging._hook(_f.__code__, _f.__code__) is None
    assert calls == []


def _f(x):
    return x
