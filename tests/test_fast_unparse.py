"""fast_unparse.py writes exactly what ``ast.unparse`` writes.

Its string fast path decides quotes through a stand-in string, so the strings here are made to
reach every choice the standard helper makes: each quote sequence present or not, newlines,
tabs, a quote as the last character, nothing that fits (the repr fallback), escapes."""

import ast
import itertools
import os
import sys

import pytest

from dynalens.decompiler import fast_unparse

pytestmark = pytest.mark.skipif(not hasattr(ast, "unparse"), reason="ast.unparse is 3.9+")

PIECES = ["a", "'", '"', "'''", '"""', "\n", "\t", "\\", "\x00", "é", " ", "''", '""']


def _strings():
    yield ""
    for size in (1, 2, 3):
        for combo in itertools.product(PIECES, repeat=size):
            yield "".join(combo)


def _module(value, docstring):
    if docstring:
        return ast.Module(body=[ast.FunctionDef(
            name="f", args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]),
            body=[ast.Expr(value=ast.Constant(value=value))], decorator_list=[],
            returns=None, type_comment=None, lineno=1, type_params=[])], type_ignores=[])
    return ast.Module(body=[ast.Expr(value=ast.JoinedStr(values=[
        ast.Constant(value=value), ast.FormattedValue(value=ast.Name(id="x", ctx=ast.Load()),
                                                      conversion=-1, format_spec=None)])),
        ast.Expr(value=ast.Constant(value=value))], type_ignores=[])


def test_strings_are_written_as_ast_unparse_writes_them():
    for value in _strings():
        for docstring in (False, True):
            tree = _module(value, docstring)
            assert fast_unparse.unparse(tree) == ast.unparse(tree), repr(value)


@pytest.mark.skipif(not fast_unparse._CHECKED, reason="plain ast.unparse on this version")
def test_string_helper_decides_as_the_standard_one():
    fast, standard = fast_unparse._Unparser(), ast._Unparser()
    for value in _strings():
        for quotes in (ast._ALL_QUOTES, ast._MULTI_QUOTES):
            for escape in (False, True):
                options = dict(quote_types=quotes, escape_special_whitespace=escape)
                assert fast._str_literal_helper(value, **options) == \
                    standard._str_literal_helper(value, **options), (repr(value), options)


def test_the_standard_library_is_written_the_same():
    import sysconfig
    root = sysconfig.get_paths()["stdlib"]
    for name in ("_pydecimal.py", "argparse.py", "inspect.py", "typing.py", "difflib.py"):
        with open(os.path.join(root, name), "rb") as handle:
            tree = ast.parse(handle.read())
        assert fast_unparse.unparse(tree) == ast.unparse(tree), name


def test_checked_versions_use_the_fast_writer():
    checked = (3, 9) <= sys.version_info[:2] <= (3, 13)
    assert (fast_unparse.unparse is not ast.unparse) == checked


# Where fast_unparse's own writers (names, attributes, calls, keywords, expression statements,
# returns, blocks, parentheses) have a choice to make: an int before a dot, unpacking in calls,
# yields and walruses as values, precedence that needs parentheses or not, type comments after
# a block's colon, nested blocks.
HOT_NODES = """
x = (3).real + True.imag + 3.5.real + (-1).numerator + 'a'.upper() + (1, 2).count(1)
f(a, *b, c=1, **d)(e)[0].g(**h)
f(*a, **b, c=d)
f(x for x in y)
f((yield), (yield z), await_(q))
(yield)
(yield from g)
x = yield
(a := f(b))
await_((a, b).c)
(a + b).c(d or e, f if g else h, lambda: i, not j)
(lambda: 1)()
print(-x ** 2, (-x) ** 2, (a, *b), [c, *d], {**e, 'f': g}, {h, *i})
def f(a, b=1, *c, d, e=2, **g):  # type: (int) -> None
    return
def f2():
    return (yield)
def f3():
    return x, y
def f4():
    return (a := 1)
class C(B, metaclass=M):
    '''doc'''
    def m(self):
        if a:
            return self.x.y.z()
        elif b:
            pass
        else:
            while c:
                for d in e:  # type: int
                    with f(g) as h, i:
                        try:
                            j()
                        except K as k:
                            raise L from k
                        finally:
                            del m.n
"""


def test_hot_node_writers_write_as_ast_unparse():
    tree = ast.parse(HOT_NODES, type_comments=True)
    assert fast_unparse.unparse(tree) == ast.unparse(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.stmt, ast.expr)) and not isinstance(node, ast.Starred):
            assert fast_unparse.unparse(node) == ast.unparse(node), ast.dump(node)[:80]


def test_assignments_write_as_ast_unparse():
    tree = ast.parse("a = b = c, d\n(a, b) = c\n*a, b = c\na[1:2], b.c = d = (yield)\n"
                     "x = 1  # type: int\n", type_comments=True)
    assert fast_unparse.unparse(tree) == ast.unparse(tree)


def test_statements_need_no_line_numbers_on_the_fast_writer():
    """The decompiler's statements carry no ``lineno`` (emit.unparse numbers them only for the
    standard writer): type comments are still written, ``# type: ignore`` lines still found."""
    tree = ast.parse(HOT_NODES + "y = 2  # type: ignore[x]\n", type_comments=True)
    expected = ast.unparse(tree)
    assert tree.type_ignores and "ignore[x]" in expected
    if fast_unparse.NEEDS_LINENO:
        pytest.skip("the standard writer looks type comments up by line")
    assert fast_unparse.unparse(tree) == expected
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            del node.lineno
    tree.type_ignores = []
    assert fast_unparse.unparse(tree) == expected.replace(" # type: ignore[x]", "")


# Where the writers of conditions, loops, operators, constants and signatures have a choice to
# make: elif chains (an else holding one if, or more), loop else clauses and type comments,
# parentheses by precedence and associativity, u-strings, bytes, the constants written by
# the standard helper (floats, tuples, Ellipsis), strings inside f-string braces, each kind of
# parameter with and without defaults and annotations.
OPERATOR_NODES = """
if a < b <= c is not d in e not in f:
    pass
elif (a < b) < c:
    pass
elif not (a == b):
    pass
else:
    if x:
        pass
if a:
    pass
else:
    if b:
        pass
    c
for (i, j) in k:  # type: int
    pass
else:
    pass
while x or y and not z:
    break
else:
    continue
x = a ** b ** c, (a ** b) ** c, -a ** b, (-a) ** b, a - (b - c), (a - b) - c, a * (b + c)
x = a << b >> c | d ^ e & f // g % h @ i / j, (a or b) and c, a or (b and c), (a and b) or c
x = (a if b else c) + d, (a < b) + c, not a < b, (not a) < b, a and b and c or d or e
x = u'u', b'b', 'ü', None, True, False, ..., 1.5, 1e400, -1e400, 2j, 0, -1, 123456789012345678
x = f'{a!r:>{w}} {"q"} {b["k"]}', [], [a], [a, *b], [[a], (b,)]
def f(a, b: int, /, c=1, *d: str, e, g: int = 2, **h: dict) -> None:
    pass
def g(*, a, b=1):
    pass
def h(a=1, /, b=2):
    pass
lambda a, /, b=1, *c, d, **e: 0
"""


def test_operator_and_block_writers_write_as_ast_unparse():
    tree = ast.parse(OPERATOR_NODES, type_comments=True)
    tree.body.append(ast.Expr(value=ast.Constant(value=(1, "a", None, 1.5))))
    tree.body.append(ast.Expr(value=ast.Constant(value=float("nan"))))
    assert fast_unparse.unparse(tree) == ast.unparse(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.stmt, ast.expr)) and not isinstance(node, ast.Starred):
            assert fast_unparse.unparse(node) == ast.unparse(node), ast.dump(node)[:80]


# Where the writers of modules, function headers, subscripts, tuples, unary operators,
# starred items, raise, augmented assignment, slices, dicts and imports have a choice to make:
# docstrings (module, class, function; u-strings; none), decorators, async functions, return
# annotations, a tuple as an index (starred or not, one element), tuples by precedence,
# unary operators needing parentheses or not, raise with and without cause, dict unpacking
# of an expression, slices with missing bounds and a step, aliases.
MORE_NODES = '''"""module doc"""
import a, b.c as d, e
@dec
@dec2(x)
async def f(a, *b) -> Tuple[int, ...]:
    u"""doc"""
    x[1], x[1,], x[a, b:c], x[()], x[(a, b)], x[-1], x[f(), 2:3:4], x[::2], x[a:], x[:b]
    x[a][b:c, d]
    y = (1,), (), (a, (b, c)), [(a, b)], f((a, b)), (a, b).c, (a, b)[0], ((a, b) for c in d)
    for (a, b) in c:
        x = -a, not a, ~(a + b), -(a ** b), (not a) + b, not (a and b), -(-a), - -a, +a.b
    raise
    raise E
    raise E(x) from (a or b)
    x += 1
    x.y[z] **= a if b else c
    d = {**a, b: c, **(d or e), 'f': -g}
    return {}
class C:
    """class doc"""
    x = f(*a, *(b or c), **d)
def g():
    pass
'''


def test_module_header_and_operand_writers_write_as_ast_unparse():
    tree = ast.parse(MORE_NODES)
    assert fast_unparse.unparse(tree) == ast.unparse(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.stmt, ast.expr)) and not isinstance(node, ast.Starred):
            assert fast_unparse.unparse(node) == ast.unparse(node), ast.dump(node)[:80]


def test_starred_index_writes_as_ast_unparse():
    """``x[*a, b]`` (3.11+ syntax; earlier versions unparse such a tree in parentheses)."""
    index = ast.Tuple(elts=[ast.Starred(value=ast.Name(id="a", ctx=ast.Load()),
                                        ctx=ast.Load()), ast.Name(id="b", ctx=ast.Load())],
                      ctx=ast.Load())
    tree = ast.Module(body=[ast.Expr(value=ast.Subscript(
        value=ast.Name(id="x", ctx=ast.Load()), slice=index, ctx=ast.Load()))],
        type_ignores=[])
    assert fast_unparse.unparse(tree) == ast.unparse(tree)


# Where the writers of f-strings, try statements, handlers, classes, with statements, yields
# and comprehensions have a choice to make: f-strings written as they are (plain text and
# fields, conversions, plain format specs, a field starting with a brace) or handed to the
# standard writer (quotes, backslashes, newlines, unprintable characters, nested fields in a
# spec, nested f-strings, strings inside fields); handlers with and without type and name,
# else and finally; bases and keywords; with items with and without targets; yields in each
# position; async and nested comprehensions with conditions.
FSTRING_AND_BLOCK_NODES = r"""
x = f'', f'a', f'{a}', f'{a!r}{b!s:>10}{c!a:{w}}', f'a{{b}}c{d}', f'{ {a: b} }', f'{a:%Y-%m}'
x = f'{a.b(c)[d]} é', f"it's {a}", f'"{a}"', f'{a["k"]}', f'a\nb{c}', f'a\tb', f'{a}\\'
x = f'a\rb{c}\n', f"'{a}' \"", f'\x00{a}', f"'''{a}", f'{a}\u2028', f'{a:\n}', f'{a:"}'
x = f'{f"{a}"}', f'{a:{b}.{c}}', f'{a!r:^{w}}', f'''{a}
b''', f'{x if y else z}', f'{(yield)}', f'{a, b}', f'{[i for i in j]}', f'{b"x"}'
try:
    a
except:
    b
try:
    a
except E:
    b
except (F, G) as e:
    c
else:
    d
finally:
    e
class A:
    pass
@d
class B(A, C, metaclass=M, **k):
    x = 1
with a:
    pass
with a as b, c, d as (e, f):
    pass
async def g():
    async with a as b, c:
        pass
    y = [i async for i in j if i if not i]
def h():
    yield
    x = yield
    x = yield a
    f((yield a), (yield))
    x = [i for i in j for k in i if k], {i for i in j}, (i for (i, k) in j), {i: k for i in j}
    x = [(a, b) for a, b in c if a or b]
"""


def test_fstring_and_block_writers_write_as_ast_unparse():
    tree = ast.parse(FSTRING_AND_BLOCK_NODES)
    assert fast_unparse.unparse(tree) == ast.unparse(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.stmt, ast.expr)) and not isinstance(node, ast.Starred):
            assert fast_unparse.unparse(node) == ast.unparse(node), ast.dump(node)[:80]


def test_statements_are_written_as_the_module_that_holds_them():
    """emit.unparse writes a statement list without making a module of it (fast writer), or
    through one: either way ``ast.unparse``'s text of the module, docstring first or not."""
    from dynalens.decompiler import emit
    import sysconfig
    with open(os.path.join(sysconfig.get_paths()["stdlib"], "textwrap.py"), "rb") as handle:
        sources = [handle.read(), HOT_NODES, "'''doc'''\nx = 1\n", "x = 1\n'''not doc'''\n",
                   "b'not doc'\n", "", "f'not {doc}'\n"]
    for source in sources:
        tree = ast.parse(source)
        assert emit.unparse(tree.body) == ast.unparse(tree), source[:40]
        if fast_unparse.unparse_statements is not None:
            assert fast_unparse.unparse_statements(tree.body) == ast.unparse(tree)
    assert (fast_unparse.unparse_statements is not None) == fast_unparse._CHECKED


@pytest.mark.skipif(not fast_unparse._CHECKED, reason="plain ast.unparse on this version")
def test_docstrings_written_as_they_are_are_those_without_escapes():
    # the ASCII shortcut against the test it stands for, on every ASCII character (alone,
    # and among plain text, line breaks and tabs) and on the test strings
    def standard(string):
        return "\\" not in string and \
            string.replace("\n", "").replace("\t", "").isprintable()

    texts = [chr(code) for code in range(0x300)] + list(_strings())
    texts += ["ab\n\tc" + text + "d\n" for text in texts]
    for text in texts:
        assert fast_unparse._docstring_as_is(text) == standard(text), repr(text)
