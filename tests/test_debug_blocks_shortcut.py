"""nop_lines.debug_blocks leaves the lines of ``try:`` NOPs (decode.try_nop_lines) out of the
lines an ``if __debug__:`` may be read from, which spares the walk of every statement's lines
in most functions with a ``try``; the output must be what it is with those lines kept.
Compared on real code objects, the shortcut on and off."""

import dis
import sys

import pytest

from dynalens.decompiler import nop_lines
from dynalens.decompiler.decode import try_nop_lines, try_nops
from real_code import code_objects, decompiled


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
    return code_objects((runpy, multiprocessing.resource_sharer, shutil, tempfile),
                        [_in_try.__code__], functions_only=True)


def _outputs(codes):
    return [decompiled(code) for code in codes]


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


@pytest.mark.skipif(sys.version_info < (3, 11), reason="no exception table, no try NOP")
def test_try_nop_lines_read_in_one_pass_equal_every_range_tested():
    found = 0
    import importlib
    modules = [importlib.import_module(name) for name in (
        "argparse", "asyncio.base_events", "imaplib", "shutil", "subprocess", "tarfile",
        "zipfile")]
    for code in _codes() + code_objects(modules):
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
