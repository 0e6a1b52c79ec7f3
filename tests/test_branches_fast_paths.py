"""branches.py's shortcuts give what the long way gives, on the tests of real code
(decompiler/branches.py)."""

import ast

from dynalens.decompiler import branches
from dynalens.decompiler.render import decompile_code


def _single_tests(monkeypatch):
    """The expressions of the one-chunk conditions parsed while decompiling a few stdlib
    modules, each with its chunk's jump."""
    found = []
    parse = branches.parse_cond

    def parse_cond(walker, chunks, true, false, fall):
        if len(chunks) == 1 and chunks[0].jump.op == "POP_JUMP_IF_FALSE":
            found.append(chunks[0].expr)
        return parse(walker, chunks, true, false, fall)

    monkeypatch.setattr(branches, "parse_cond", parse_cond)
    import argparse
    import inspect
    import textwrap
    for module in (argparse, inspect, textwrap):
        decompile_code(compile(open(module.__file__).read(), module.__file__, "exec"))
    return found


def test_a_test_negated_twice_is_the_long_way(monkeypatch):
    # `if x:` (POP_JUMP_IF_FALSE to the false label) reads as negate(jump_test(chunk)),
    # negate(negate(x)): _negated_twice builds no `not x` where that gives x back
    tests = _single_tests(monkeypatch)
    kinds = set()
    for expr in tests:
        short = branches._negated_twice(expr)
        assert ast.dump(short) == ast.dump(branches.negate(branches.negate(expr)))
        if short is expr:  # (the node itself, with its line and numbering, as before)
            assert branches.negate(branches.negate(expr)) is expr
            kinds.add(type(expr).__name__)
    assert len(tests) > 500 and {"Name", "Call", "Attribute"} <= kinds, (len(tests), kinds)
