"""nop_lines.debug_blocks leaves the lines of ``try:`` NOPs (decode.try_nop_lines) out of the
lines an ``if __debug__:`` may be read from, which spares the walk of every statement's lines
in most functions with a ``try``; the output must be what it is with those lines kept.
Compared on real code objects, the shortcut on and off."""

import sys

from dynalens.decompiler import nop_lines, render
from dynalens.decompiler.decode import try_nop_lines
from dynalens.decompiler.errors import DecompilationError


def _in_try(a, b):
    x = a
    try:
        y = b(x)
    except ValueError:
        y = None
    if __debug__:
        print(y)
    while a:
        with b:
            if x:
                break
        x = b
    return y


def _codes():
    import multiprocessing.resource_sharer
    import runpy
    import shutil
    import tempfile
    todo = []
    for module in (runpy, multiprocessing.resource_sharer, shutil, tempfile):
        with open(module.__file__) as handle:
            todo.append(compile(handle.read(), module.__file__, "exec"))
    todo.append(_in_try.__code__)
    codes = []
    while todo:
        code = todo.pop()
        if code.co_flags & 1:  # (functions: the module and class bodies go with them)
            codes.append(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    return codes


def _outputs(codes):
    outputs = []
    for code in codes:
        try:
            outputs.append(render.decompile_code(code))
        except DecompilationError as error:  # (3.8: a function the walk does not read)
            outputs.append(str(error))
    return outputs


def test_try_lines_left_out_change_no_output(monkeypatch):
    codes = _codes()
    fast = _outputs(codes)
    monkeypatch.setattr(nop_lines, "try_nop_lines", lambda code: ())
    assert _outputs(codes) == fast


def test_try_lines_are_the_lines_of_try_statements():
    first = _in_try.__code__.co_firstlineno
    # the `try:` alone, not the NOP of the `break` out of the `with` (in resource_sharer.py,
    # inside a `try`, it comes right before a range of that try's handler, not its first)
    expected = {first + 2} if sys.version_info >= (3, 11) else set()
    assert set(try_nop_lines(_in_try.__code__)) == expected
