"""nop_lines.debug_blocks leaves the lines of ``try:`` NOPs (decode.try_nop_lines) out of the
lines an ``if __debug__:`` may be read from, which spares the walk of every statement's lines
in most functions with a ``try``; the output must be what it is with those lines kept.
Compared on real code objects, the shortcut on and off."""

import dis
import sys

import pytest

from dynalens.decompiler import nop_lines, render
from dynalens.decompiler.decode import try_nop_lines, try_nops
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
    monkeypatch.setattr(nop_lines, "try_nops", lambda code: ((), False))
    assert _outputs(codes) == fast


def test_try_lines_are_the_lines_of_try_statements():
    first = _in_try.__code__.co_firstlineno
    # the `try:` alone, not the NOP of the `break` out of the `with` (in resource_sharer.py,
    # inside a `try`, it comes right before a range of that try's handler, not its first)
    expected = {first + 2} if sys.version_info >= (3, 11) else set()
    assert set(try_nop_lines(_in_try.__code__)) == expected


def _free_lines_read(code):
    """The lines debug_blocks leaves free when it reads every NOP's line (its slow path)."""
    nops = nop_lines.NopLines(code)
    free = set(nops.alone())
    tries = try_nop_lines(code)
    if free and tries:
        free.difference_update([line for line in tries if nops._nop.count(line) == 1])
    return free


def test_every_nop_a_try_line_leaves_no_line_free():
    """Where try_nops says every NOP is a ``try:`` NOP on a line of its own, debug_blocks
    reads no line: the slow path must leave none free there (and the case must occur)."""
    taken = 0
    for code in _codes():
        if try_nops(code)[1]:
            taken += 1
            assert _free_lines_read(code) == set(), code
    assert taken or sys.version_info < (3, 11) or sys.version_info > (3, 13)


def test_every_nop_a_try_line_skipped_changes_no_output(monkeypatch):
    codes = _codes()
    fast = _outputs(codes)
    monkeypatch.setattr(nop_lines, "try_nops",
                        lambda code: (try_nop_lines(code), False))
    assert _outputs(codes) == fast


def test_known_try_lines_answer_as_the_read_lines():
    """NopLines.any_between answers from the ``try:`` lines before reading every line: the
    answers must be the read ones, for every pair of lines around each try line."""
    asked = 0
    for code in _codes():
        tries = try_nop_lines(code)
        for line in tries:
            for low in range(line - 3, line + 1):
                for high in range(line, line + 4):
                    known = nop_lines.NopLines(code, tries).any_between(low, high)
                    assert known == nop_lines.NopLines(code).any_between(low, high)
                    asked += 1
    assert asked or sys.version_info < (3, 11)


def _try_nop_lines_every_range(code):
    """try_nops' lines as found by testing every NOP offset against every range of
    ``co_lines()`` (what it did before reading the ranges and the offsets in one pass)."""
    from dynalens.decompiler.decode import exception_table
    data, at, seen = code.co_code, set(), set()
    for start, _, target, _, _ in exception_table(code):
        if target not in seen and start >= 2 and data[start - 2] == dis.opmap["NOP"]:
            at.add(start - 2)
        seen.add(target)
    found, line = set(), None
    for start, end, given in code.co_lines():
        if given is not None or sys.version_info >= (3, 13):
            line = given
        if line is not None:
            found.update(line for offset in at if start <= offset < end)
    return found


def _module_codes(names):
    import importlib
    for name in names:
        path = importlib.import_module(name).__file__
        with open(path) as handle:
            todo = [compile(handle.read(), path, "exec", dont_inherit=True)]
        while todo:
            code = todo.pop()
            yield code
            todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="no exception table, no try NOP")
def test_try_nop_lines_read_in_one_pass_equal_every_range_tested():
    found = 0
    for code in list(_codes()) + list(_module_codes(
            ("argparse", "asyncio.base_events", "imaplib", "shutil", "subprocess",
             "tarfile", "zipfile"))):
        lines = set(try_nop_lines(code))
        assert lines == _try_nop_lines_every_range(code), code
        found += len(lines)
    assert found > 100


def test_statements_passed_over_as_blockless_hold_no_block_and_no_try():
    # (_mark_tries passes them over without asking statement_blocks)
    import ast
    from dynalens.decompiler import emit
    for cls in nop_lines._BLOCKLESS:
        assert emit._block_fields(cls) is None and not issubclass(cls, ast.Try), cls
