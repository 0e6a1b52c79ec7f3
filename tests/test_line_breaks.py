"""Comprehensions keep the original's line breaks (line_breaks.py), so that what the compiler
decides from line layout comes out the same: exact under verify(strict=True), not only
verify(). Runs on the interpreter at hand; tools/pyversions.py runs the corpus elsewhere."""

import sys

import pytest

from dynalens.decompiler.render import decompile_code
from dynalens.decompiler.verify import verify

pytestmark = pytest.mark.skipif(sys.version_info < (3, 9), reason="3.8 has no ast.unparse: "
                                "its own writer puts a comprehension on one line")

MULTI_LINE = '''\
def parts(strings):
    return ''.join([part
                    for part in strings
                    if part and part is not SUPPRESS])
'''

ONE_LINE = '''\
def parts(strings):
    return ''.join([part for part in strings if part and part is not SUPPRESS])
'''


def function(source):
    module = compile(source, "<test>", "exec")
    return next(c for c in module.co_consts if hasattr(c, "co_code"))


def test_a_comprehension_written_over_lines_is_decompiled_over_lines():
    code = function(MULTI_LINE)
    text = decompile_code(code)
    lines = [line.strip() for line in text.strip().splitlines()]
    # (3.11 and before write the condition as two `if`s: the same bytecode there)
    assert lines[:3] == ["def parts(strings):", "return ''.join([part", "for part in strings"]
    assert len(lines) == 4 and lines[3].startswith("if part ") and lines[3].endswith("])"), text
    assert verify(code, text, strict=True), verify(code, text, strict=True).difference


def test_a_comprehension_on_one_line_stays_on_one_line():
    code = function(ONE_LINE)
    text = decompile_code(code)
    assert text.strip() == ONE_LINE.strip()
    assert verify(code, text, strict=True)


def test_no_line_break_inside_an_f_string():
    # a break inside an f-string's braces is a syntax error before 3.12: none is written
    source = ("def show(items):\n    return f'{[item\n"
              "                for item in items\n"
              "                if item]}'\n") if sys.version_info >= (3, 12) else (
        "def show(items):\n    return f'''{[item\n"
        "                for item in items\n"
        "                if item]}'''\n")
    code = function(source)
    text = decompile_code(code)
    assert "# dynalens" not in text, text
    assert "[item for item in items if item]" in text, text


def test_first_line_is_the_least_line_stamped_on_any_node_ast_walk_finds():
    # on the walker's own trees (values stamped with lines, comprehensions, loops): every
    # node of the walked bodies of textwrap's functions, compared with the definition
    import ast
    import textwrap
    from dynalens.decompiler.line_breaks import first_line
    from dynalens.decompiler.render import decompile_body

    def by_walk(node):
        lines = [getattr(part, "_line", None) for part in ast.walk(node)]
        lines = [line for line in lines if line is not None]
        return min(lines) if lines else None

    with open(textwrap.__file__) as handle:
        todo = [compile(handle.read() + MULTI_LINE, textwrap.__file__, "exec")]
    nodes = []
    while todo:
        code = todo.pop()
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
        if code.co_flags & 1:  # (a function's)
            nodes.extend(node for stmt in decompile_body(code) for node in ast.walk(stmt))
    assert len(nodes) > 1000 and len(set(map(by_walk, nodes))) > 100
    assert [first_line(node) for node in nodes] == [by_walk(node) for node in nodes]
