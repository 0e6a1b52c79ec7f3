"""Round trip of the construct corpus: every code object decompiles alone and verifies exact.

The corpus (tests/corpus/*.py) is shared with tools/corpus_check.py, which runs the same check
without pytest on every CPython version and under Pyodide.
"""

import os
import re
import sys
import types

import pytest

from dynalens.decompiler.render import decompile_code
from dynalens.decompiler.verify import verify

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
_HEADER = re.compile(r"#\s*(min|max)-python:\s*(\d+)\.(\d+)")

# Constructs the decompiler does not rebuild yet: these must fail until fixed (strict xfail
# turns an unexpected pass into a failure, so the list cannot go stale).
KNOWN_GAPS = {
}


def _bounds(source):
    found = {}
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        m = _HEADER.match(line)
        if m:
            found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return found.get("min"), found.get("max")


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            for inner in _code_objects(const):
                yield inner


def _cases():
    for fname in sorted(os.listdir(CORPUS)):
        if not fname.endswith(".py"):
            continue
        path = os.path.join(CORPUS, fname)
        with open(path) as fh:
            source = fh.read()
        low, high = _bounds(source)
        marks = []
        if low and sys.version_info[:2] < low or high and sys.version_info[:2] > high:
            marks.append(pytest.mark.skip(reason="needs Python %s..%s" % (low, high)))
        elif fname in KNOWN_GAPS:
            marks.append(pytest.mark.xfail(reason=KNOWN_GAPS[fname], strict=True))
        yield pytest.param(path, source, id=fname, marks=marks)


@pytest.mark.parametrize("path,source", list(_cases()))
def test_every_code_object_round_trips(path, source):
    module = compile(source, path, "exec")
    failures = []
    for code in _code_objects(module):
        qualname = getattr(code, "co_qualname", code.co_name)
        try:
            text = decompile_code(code)
        except Exception as exc:  # collect all, report together
            failures.append("%s: %s" % (qualname, exc))
            continue
        result = verify(code, text)
        if not result.exact:
            failures.append("%s: %s\n%s" % (qualname, result.difference, text))
    assert not failures, "\n\n".join(failures)


def _outcome(function, *args):
    try:
        value = function(*args)
        if isinstance(value, types.GeneratorType):
            value = list(value)
        return "returned", value
    except Exception as exc:
        return "raised", type(exc)


def test_decompiled_module_runs_like_the_original():
    """Exact bytecode is the bar; this checks the other promise: the text runs the same."""
    source = open(os.path.join(CORPUS, "statements.py")).read()
    text = decompile_code(compile(source, "statements.py", "exec"))
    decompiled, original = {}, {}
    exec(compile(text, "decompiled.py", "exec"), decompiled)
    exec(compile(source, "statements.py", "exec"), original)
    calls = [("branches", args) for args in [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0), (1, 1, 1)]]
    calls += [("loops", ([1, 2, None, 3], 3)), ("loops", ([1, -2], 7)), ("loops", ([], 0)),
              ("raising", (0,)), ("raising", (None,)), ("raising", (5,)),
              ("generators", ([7, 8],)), ("keyword_only", (1,)), ("positional_only", (1, 2, 3))]
    for fname, args in calls:
        assert _outcome(decompiled[fname], *args) == _outcome(original[fname], *args), fname
    assert decompiled["keyword_only"](1, c=3) == (1, 2, (), 3, 4, {})
