"""The 3.8 fallback writer (unparse_compat) gives source that compiles to the same bytecode.

It runs on every version (3.9+ have ast.unparse, but the fallback must stay right there too, so
the tests exercise it directly)."""

import ast
import sys

import pytest

from dynalens.decompiler.unparse_compat import UnparseError, unparse
from dynalens.decompiler.verify import verify

SNIPPETS = [
    "x = a + b * c - (d - e) - f ** -g ** h",
    "x = (-1) ** 2; y = -(1 ** 2); z = (1).real; w = 1.5.real; v = ~-x; u = not -x",
    "x = a if b else (c if d else e); y = (lambda: 1) if a else lambda q, *r, s=1, **t: q",
    "x = a and (b or c) and not d; y = (a < b) < c; z = a < b < c; w = (a is not b) in c",
    "a[1:2, ::3]; a[1:2]; a[(1, 2)]; a[:, None]; a[...]; del a[0], b.c",
    "x, *y = z; [p, (q, r)] = s; a.b = c[d] = e; f((x for x in y)); g(*a, *b, c=1, **d)",
    "print(f'{x!r:>{width}} and {y[\"k\"]} {{literal}} {z:%Y-%m}\\n')",
    "x = {**a, 'b': 1}; y = {*a, 1}; z = set(); w = {*()}; t = (); u = (1,); v = [*a, *b]",
    "def f(a, b=1, /, c=2, *d, e, f=3, **g) -> int:\n    '''doc'''\n    global q\n    return (yield a)",
    "async def f():\n    async with a as b, c:\n        await (x + 1)\n    async for i in y:\n        pass\n    return [await z async for z in w if z]",
    "@dec\n@mod.dec(1)\nclass C(B, metaclass=M):\n    x: int = 1\n    (y): str\n    def m(self):\n        return super().m()",
    "try:\n    pass\nexcept (A, B) as e:\n    raise C from e\nexcept:\n    raise\nelse:\n    x = 1\nfinally:\n    y = 2",
    "while a:\n    if b:\n        break\n    elif c:\n        continue\n    else:\n        pass\nelse:\n    assert x, 'msg'",
    "from . import a\nfrom ..b import c as d, e\nimport f.g as h, i\nx = 1e309; y = -1e309; z = 2j",
    "if (n := len(a)) > 10:\n    print({k: v for k, v in a.items()}, {x for x in a}, [y for y in a for z in y if z])",
    "x = 'it\\'s \"q\"'; y = b'\\x00\\n'; z = '\\u2028\\t'",
]


@pytest.mark.parametrize("source", SNIPPETS)
def test_same_bytecode(source):
    code = compile(source, "<snippet>", "exec")
    written = unparse(ast.parse(source))
    result = verify(code, written)
    assert result, "%s\n---\n%s" % (result.difference, written)


def test_backslash_inside_fstring_expression_is_refused():
    tree = ast.Module(body=[ast.Expr(value=ast.JoinedStr(values=[ast.FormattedValue(
        value=ast.Constant(value="\n"), conversion=-1, format_spec=None)]))], type_ignores=[])
    with pytest.raises(UnparseError):
        unparse(tree)


@pytest.mark.skipif(not hasattr(ast, "unparse"), reason="compares with ast.unparse")
def test_same_bytecode_as_ast_unparse_on_this_file():
    source = open(__file__).read()
    assert verify(compile(source, "<f>", "exec"), unparse(ast.parse(source)))
