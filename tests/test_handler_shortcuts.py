"""Shortcuts in the value stack machine (expressions.py): each spares work the general path
would do, and must give what the general path gives. Compared on real code objects, the
shortcut on and off."""

import sys

from dynalens.decompiler.expressions import StackMachine
from real_code import code_objects, decompiled


def _calls(a, b, c):
    a.f(b, c)(a)
    print(len(a), *b, key=c)
    super().f(a)
    return [x.g(y) for x, y in a(b)], (lambda: b.h())


def _codes():
    import argparse
    import shutil
    import tempfile
    return code_objects((argparse, shutil, tempfile), [_calls.__code__], functions_only=True)


def _outputs(codes):
    return [decompiled(code) for code in codes]


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
