"""chunk_starts.cannot_start: the look ahead that spares read_chunk's failing trials must
never say "no chunk" where the trial finds one, nor skip a trial that would have noted a fact
(decompiler/chunk_starts.py)."""

import ast
import os
import sys
import textwrap

import pytest

from dynalens.decompiler import branches, chunk_starts, render
from dynalens.decompiler.render import decompile_code

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def _facts(walker):
    return (set(walker.imported_names), set(walker.module_names),
            set(getattr(walker, "globals_declared", ())),
            set(getattr(walker, "nonlocals_declared", ())))


@pytest.fixture
def checked_trials(monkeypatch):
    """Every read_chunk call runs its trial as well; where the look ahead said no chunk can
    start, the trial must find none and note nothing. Counts (spared, all)."""
    counts = [0, 0]
    trial = branches.read_chunk

    def read_chunk(walker, k, stack, limit, siblings=(), operand=False):
        spared = k < limit and k < walker.n and chunk_starts.cannot_start(walker, k, stack,
                                                                          limit)
        before = _facts(walker)
        monkeypatch.setattr(branches, "cannot_start", lambda *args: False)
        try:
            found = trial(walker, k, stack, limit, siblings, operand)
        finally:
            monkeypatch.setattr(branches, "cannot_start", chunk_starts.cannot_start)
        counts[1] += 1
        if spared:
            counts[0] += 1
            assert found is None, (walker.code.co_name, k)
            assert _facts(walker) == before, (walker.code.co_name, k)
        return found

    monkeypatch.setattr(branches, "read_chunk", read_chunk)
    return counts


def _corpus_sources():
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".py"):
            with open(os.path.join(CORPUS, name)) as handle:
                yield name, handle.read()


def test_look_ahead_agrees_with_the_trials_on_the_corpus(checked_trials):
    for name, source in _corpus_sources():
        try:
            module = compile(source, name, "exec")
        except SyntaxError:
            continue  # (a construct of a later version)
        try:
            decompile_code(module)
        except Exception:
            pass  # (what the corpus checks is the corpus test's; here only the trials)
    spared, total = checked_trials
    assert total > 500 and spared > total // 4, checked_trials


def test_look_ahead_agrees_with_the_trials_on_stdlib_modules(checked_trials):
    import inspect
    import argparse
    import textwrap as textwrap_module
    for module in (argparse, textwrap_module, inspect):
        decompile_code(compile(open(module.__file__).read(), module.__file__, "exec"))
    assert checked_trials[0] > 0


def _walker_at_body(source):
    """(walker, index of the first instruction of the body of the function's first if)."""
    code = next(c for c in compile(textwrap.dedent(source), "<t>", "exec").co_consts
                if hasattr(c, "co_code"))
    walker = render.CodeWalker(code, "function", render.Session())
    jump = next(ins for ins in walker.instrs if ins.op.startswith("POP_JUMP_IF"))
    return walker, jump.index + 1


@pytest.mark.parametrize("body", ["x = f(a)", "return a.b[1]", "raise E(a)", "a.b = c",
                                  "self.log(a, b=2)", "a[1] = c * 2"])
def test_statements_cannot_start_a_chunk(body):
    walker, k = _walker_at_body("def f(a, c):\n    if a:\n        %s\n    return c\n" % body)
    assert chunk_starts.cannot_start(walker, k, [], walker.n)


@pytest.mark.parametrize("source", [
    "def f(a, b):\n    if a and b:\n        return 1\n",       # the next test of the condition
    "def f(a, b):\n    if a:\n        x = (b := g())\n    return x\n",  # a walrus: the trial
    "def f(a, b):\n    if a:\n        x, y = b\n    return x\n",  # unpacking: the trial
    # `mod.f()` without the method form (a module-level import): the trial notes `os`
    "import os\ndef f(a, b):\n    if a:\n        os.fspath(b)\n",
])
def test_what_the_look_ahead_leaves_to_the_trial(source):
    walker, k = _walker_at_body(source)
    assert not chunk_starts.cannot_start(walker, k, [], walker.n)


def test_a_family_that_takes_over_a_handler_takes_it_out_of_the_look_ahead(monkeypatch):
    from dynalens.decompiler import registry
    walker, k = _walker_at_body("def f(a):\n    if a:\n        x = g(a)\n    return x\n")
    assert chunk_starts.cannot_start(walker, k, [], walker.n)
    monkeypatch.setitem(registry.OPCODES, "STORE_FAST", lambda *args: None)
    monkeypatch.setattr(chunk_starts, "_tables", [])
    assert not chunk_starts.cannot_start(walker, k, [], walker.n)
