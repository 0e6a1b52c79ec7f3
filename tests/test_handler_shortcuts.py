"""Shortcuts in the value stack machine (expressions.py): each spares work the general path
would do, and must give what the general path gives. Compared on real code objects, the
shortcut on and off."""

import sys

from dynalens.decompiler import render
from dynalens.decompiler.errors import DecompilationError
from dynalens.decompiler.expressions import StackMachine


def _calls(a, b, c):
    a.f(b, c)(a)
    print(len(a), *b, key=c)
    super().f(a)
    return [x.g(y) for x, y in a(b)], (lambda: b.h())


def _codes():
    import argparse
    import shutil
    import tempfile
    todo = []
    for module in (argparse, shutil, tempfile):
        with open(module.__file__) as handle:
            todo.append(compile(handle.read(), module.__file__, "exec"))
    todo.append(_calls.__code__)
    codes = []
    while todo:
        code = todo.pop()
        if code.co_flags & 1:  # (functions: the module and class bodies go with them)
            codes.append(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    return codes


def _output(code):
    try:
        return render.decompile_code(code)
    except DecompilationError as error:  # (3.8: a function the walk does not read)
        return str(error)


def _outputs(codes):
    return [_output(code) for code in codes]


def test_plain_calls_made_at_once_read_as_the_general_path_reads_them(monkeypatch):
    codes = _codes()
    fast = _outputs(codes)
    monkeypatch.setattr(StackMachine, "_plain_call", lambda self, ins, stack: False)
    assert _outputs(codes) == fast


def test_plain_calls_are_most_calls(monkeypatch):
    made = []
    real = StackMachine._plain_call

    def counting(self, ins, stack):
        made.append(real(self, ins, stack))
        return made[-1]

    monkeypatch.setattr(StackMachine, "_plain_call", counting)
    _outputs([_calls.__code__])
    if sys.version_info >= (3, 11):  # (before, only CALL_METHOD comes here)
        assert made.count(True) > made.count(False) > 0  # (`super()` takes the other path)
