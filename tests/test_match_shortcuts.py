"""patterns.py's shortcuts before a match statement's trial: a COPY 1 whose copy is used as a
value (patterns._reads_the_copy) and a lone case that only captures names (``lone``, refused
before its guard is looked for) must answer as the full trial does, on real code."""

import ast
import os

import pytest

from dynalens.decompiler import patterns
from dynalens.decompiler.render import decompile_code

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

pytestmark = pytest.mark.skipif(not hasattr(ast, "MatchAs"), reason="no match before 3.10")

_SHAPES = '''
def f(self, a, b):
    self.n += 1
    a.total -= b
    x = self.y = b
    self.y = x = b
    x = y = a
    if (z := a.get(b)) is not None:
        x = z
    match a:
        case [p, q] if p:
            return p
        case {"k": v} | [v, _]:
            return v
        case (v as w) if w:
            self.m = x = v
        case B.c:
            x = y = 2
    match b:
        case n if n > 1:
            x = n
        case [m]:
            x = m
    return x
'''


def _modules():
    """Module code objects: the match corpus, the shapes above, stdlib modules full of
    chained assignments and in-place attribute updates."""
    import argparse
    import inspect
    import tarfile
    sources = [(_SHAPES, "<shapes>")]
    for name in sorted(os.listdir(CORPUS)):
        if name.startswith(("match", "issue12_match")) and name.endswith(".py"):
            with open(os.path.join(CORPUS, name)) as handle:
                sources.append((handle.read(), name))
    for module in (argparse, inspect, tarfile):
        with open(module.__file__) as handle:
            sources.append((handle.read(), module.__file__))
    codes = []
    for source, name in sources:
        try:
            codes.append(compile(source, name, "exec"))
        except SyntaxError:
            pass  # (a construct of a later version)
    return codes


def _decompile_all(codes):
    texts = []
    for code in codes:
        try:
            texts.append(decompile_code(code))
        except Exception as error:  # (the corpus test owns the corpus; here: the same answer)
            texts.append(repr(error))
    return texts


def test_a_copy_read_as_a_value_starts_no_match(monkeypatch):
    # where _reads_the_copy says no case can start, the full trial finds no match
    reads = patterns._reads_the_copy
    trial = patterns.match_statement
    seen = []

    def match_statement(walker, k, stack, out, copied, preloaded=0):
        found = trial(walker, k, stack, out, copied, preloaded)
        if copied and reads(walker, k):
            seen.append(walker.instrs[k + 2].op)
            assert found is None, (walker.code.co_name, k)
        return found

    monkeypatch.setattr(patterns, "_reads_the_copy", lambda walker, k: False)
    monkeypatch.setattr(patterns, "match_statement", match_statement)
    _decompile_all(_modules())
    assert "STORE_ATTR" in seen and len(seen) > 10, seen  # (both shapes met)
    assert len(set(seen)) > 1, seen


def test_a_lone_case_of_names_is_refused_as_its_trial_refuses_it(monkeypatch):
    # the old order: the guard looked for, then _read_cases refuses a lone case that only
    # captures names; the new one refuses it first, and nothing else changes
    read_case = patterns._read_case
    refused = []

    def full_read_case(walker, k, outer, subject, copied, pre, lone=False):
        case = read_case(walker, k, outer, subject, copied, pre)
        if lone and case is not None and not case.refutable and \
                patterns._only_names(case.pattern):
            refused.append(k)
            return None
        return case

    codes = _modules()
    fast = _decompile_all(codes)
    monkeypatch.setattr(patterns, "_read_case", full_read_case)
    assert _decompile_all(codes) == fast
    assert len(refused) >= 5, refused


def test_outputs_with_every_trial_run(monkeypatch):
    codes = _modules()
    fast = _decompile_all(codes)
    monkeypatch.setattr(patterns, "_reads_the_copy", lambda walker, k: False)
    assert _decompile_all(codes) == fast
