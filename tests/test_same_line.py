"""same_line.py: nested ``with`` statements written on one line become one, and the bytecode
scan (may_merge) that spares the pass in code that cannot hold two ``with`` statements."""

import contextlib
import filecmp
import shutil
import tempfile

from dynalens.decompiler import render, same_line
from dynalens.decompiler.render import decompile_code


_MERGED = """\
def copy(src, dst):
    with open(src) as a, open(dst, 'w') as b:
        b.write(a.read())
    return dst
"""


def _functions(*modules):
    """The function-level code objects of ``modules``' source and of ``_MERGED``, nested
    ones included."""
    todo = [compile(_MERGED, "<merged>", "exec")]
    for module in modules:
        with open(module.__file__) as handle:
            todo.append(compile(handle.read(), module.__file__, "exec"))
    codes = []
    while todo:
        code = todo.pop()
        if code.co_flags & 1:  # (CO_OPTIMIZED: a function's)
            codes.append(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
    return codes


def _text(code):
    """The output for ``code``, or why there is none (a code object this version's walker
    does not read is the same failure either way)."""
    try:
        return decompile_code(code)
    except Exception as error:  # (DecompilationError)
        return "failed: %s" % error


def test_a_with_statement_begins_with_an_opcode_may_merge_counts():
    assert same_line._COUNTED  # (every version this was written for)

    def nested(a, b):
        with a:
            with b:
                pass

    async def merged(a, b):
        async with a, b:
            pass

    def alone(a):
        with a:
            pass

    assert same_line.may_merge(nested.__code__)
    assert same_line.may_merge(merged.__code__)
    assert not same_line.may_merge(alone.__code__)
    assert not same_line.may_merge(test_a_with_statement_begins_with_an_opcode_may_merge_counts
                                   .__code__)


def test_skipping_the_pass_where_may_merge_says_no_changes_no_output(monkeypatch):
    # real code objects, many with `with` statements: the output with the scan is the
    # output of the pass run everywhere
    codes = _functions(contextlib, filecmp, shutil, tempfile)
    assert any(not same_line.may_merge(code) for code in codes)
    scanned = [_text(code) for code in codes]
    monkeypatch.setattr(render, "may_merge", lambda code: True)
    assert [_text(code) for code in codes] == scanned
    # (and the sample holds code the pass changes)
    monkeypatch.setattr(render, "may_merge", lambda code: False)
    assert [_text(code) for code in codes] != scanned
