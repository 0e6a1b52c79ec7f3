"""No input makes decompile() hang (statements.py): a construct that would resume where it
started fails, and the walks of one code object have a bound on their work. Either failure is
an ordinary one: the code object falls back (marked or stubbed) and the rest is kept."""

import textwrap

import pytest

from dynalens import decompile
from dynalens.decompiler import statements
from dynalens.decompiler.errors import DecompilationError
from dynalens.decompiler.verify import verify

# Reduced from torch/_dynamo/eval_frame.py's compile_wrapper (torch 2.15): on 3.12 and 3.13
# the inner finally handler was read as a try that resumed before itself, for ever.
NESTED_FINALLY = textwrap.dedent("""
    def nested_finally(x, g):
        try:
            try:
                x()
            finally:
                g()
        finally:
            pass

    def after(a):
        return a + 1
    """)


def _module(source):
    return compile(source, "<work budget>", "exec")


def test_nested_finally_with_empty_outer_finally_finishes_and_keeps_the_rest():
    text = decompile(_module(NESTED_FINALLY))
    compile(text, "<output>", "exec")  # the output is Python, whatever became of the function
    assert "def after(a):\n    return a + 1" in text
    namespace = {}
    exec(compile(text, "<output>", "exec"), namespace)
    calls = []
    namespace["nested_finally"](lambda: calls.append("x"), lambda: calls.append("g"))
    assert calls == ["x", "g"]
    # exact, or saying where it is not: never silently wrong
    exact = verify(_module(NESTED_FINALLY), text)
    assert exact or "# dynalens: not exact" in text or "could not decompile" in text


# a loop whose body re-reads a try/finally: more work than a bound of one per instruction
HEAVY = textwrap.dedent("""
    def heavy(items):
        total = 0
        for item in items:
            if item:
                try:
                    total += item
                finally:
                    total -= 1
        return total
    """)


def _loop_heavy_function():
    return next(c for c in _module(HEAVY).co_consts if hasattr(c, "co_code"))


def test_walk_past_its_work_bound_fails_with_a_clear_error(monkeypatch):
    monkeypatch.setattr(statements, "WORK_FLOOR", 0)
    monkeypatch.setattr(statements, "WORK_PER_INSTRUCTION", 1)
    with pytest.raises(DecompilationError, match="too much work"):
        decompile(_loop_heavy_function())


def test_nested_function_past_its_work_bound_becomes_a_stub_and_the_module_goes_on(monkeypatch):
    source = "import os\n" + HEAVY
    # a bound that the module body (a few instructions) stays under and the function does not
    monkeypatch.setattr(statements, "WORK_FLOOR", 12)
    monkeypatch.setattr(statements, "WORK_PER_INSTRUCTION", 1)
    text = decompile(_module(source))
    assert "import os" in text
    namespace = {}
    exec(compile(text, "<output>", "exec"), namespace)
    assert namespace["heavy"]([1, 2, 0]) == 1  # the stub runs the original code
    assert "too much work" in text

