"""verify(): exact on the true source whatever its layout, and a useful first difference for
every kind of change that alters behaviour. Written to hold on CPython 3.8-3.15 (opcode names
are matched loosely where versions differ, e.g. LOAD_FAST_BORROW or LOAD_SMALL_INT)."""

import sys
import textwrap

import pytest

from dynalens.decompiler.instructions import raw_instructions
from dynalens.decompiler.verify import (SOURCE_DOES_NOT_COMPILE, VerifyResult, _candidates,
                                        check_tree, verify)

SAMPLE = textwrap.dedent('''
    """Module docstring."""
    import os
    from collections import OrderedDict as OD

    CONSTANT = (1, 2.0, "three", None)

    def outer(a, b=1, *args, key=None, **kwargs):
        """Function docstring."""
        total = a + b
        try:
            for item in args:
                if item > 2:
                    break
                total += item
            else:
                total -= 1
        except (ValueError, KeyError) as exc:
            return exc
        finally:
            total *= 2
        with open(os.devnull) as handle, open(os.devnull) as other:
            handle.read()
        helper = lambda y: y + total
        squares = [z * z for z in range(total) if z % 2]
        return helper, squares, {k: v for k, v in kwargs.items()}

    class Thing(OD):
        """Class docstring."""
        size = 3

        def method(self, x):
            return super().method(x) + self.size

        @staticmethod
        def static(*values):
            return sum(values)

    async def agen(n):
        async for value in n:
            yield value
        await n
''')


def code_named(source, qualname):
    """The code object for ``qualname`` (dotted, no <locals>) in ``source`` compiled."""
    code = compile(source, "<sample>", "exec")
    for part in qualname.split("."):
        code = next(c for c in code.co_consts if hasattr(c, "co_code") and c.co_name == part)
    return code


def test_identical_source_is_exact_for_module_and_every_function():
    module = compile(SAMPLE, "<sample>", "exec")
    assert verify(module, SAMPLE)
    for name in ("outer", "Thing", "Thing.method", "Thing.static", "agen"):
        result = verify(code_named(SAMPLE, name), SAMPLE)
        assert result.exact, (name, result.difference)
        assert result.difference is None
        assert result.compiled is not None and result.compiled.co_name == name.split(".")[-1]


def test_line_number_only_changes_are_exact():
    relaid = SAMPLE.replace("total = a + b", "total = (a\n        +\n        b)")
    relaid = "\n\n\n" + relaid.replace("\n    def method", "\n\n\n    def method")
    module = compile(SAMPLE, "<sample>", "exec")
    assert verify(module, relaid)
    assert verify(code_named(SAMPLE, "outer"), relaid)
    assert verify(code_named(SAMPLE, "Thing.method"), relaid)


def test_strict_is_exact_on_the_true_source_whatever_its_line_numbers():
    relaid = "\n\n\n" + SAMPLE.replace("\n    def method", "\n\n\n    def method")
    module = compile(SAMPLE, "<sample>", "exec")
    assert verify(module, relaid, strict=True)
    for name in ("outer", "Thing", "Thing.method", "Thing.static", "agen"):
        result = verify(code_named(SAMPLE, name), relaid, strict=True)
        assert result.exact, (name, result.difference)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="3.8/3.9 remove every line-number NOP: "
                    "`while a: pass` compiles alike on one line or two")
def test_strict_counts_what_the_compiler_decides_from_line_layout():
    # Two lines keep a NOP for the `pass` line's event (or a jump to it); one line needs none.
    # Same behaviour, so verify() says exact; strict comparison says where the layout shows.
    original = code_named("def f(a):\n    while a:\n        pass\n", "f")
    one_line = "def f(a):\n    while a: pass\n"
    assert verify(original, one_line)
    result = verify(original, one_line, strict=True)
    assert not result.exact
    assert result.difference.startswith("first difference: in f at instruction #")


def test_a_method_decompiled_alone_may_define_a_class():
    # Alone, `sniff` recompiles without its class: the class it defines stores the
    # __qualname__ 'sniff.<locals>.dialect' where the original stores
    # 'Sniffer.sniff.<locals>.dialect' (csv.Sniffer.sniff). That is the prefix, not the code.
    source = textwrap.dedent("""
        class Sniffer:
            def sniff(self, sample):
                class dialect:
                    delimiter = ","
                return dialect
    """)
    method = code_named(source, "Sniffer.sniff")
    alone = textwrap.dedent("""
        def sniff(self, sample):
            class dialect:
                delimiter = ","
            return dialect
    """)
    result = verify(method, alone)
    assert result.exact, result.difference
    other = verify(method, alone.replace('","', '";"'))
    assert not other.exact and "dialect" in other.difference


def test_changed_constant_is_reported_with_both_values():
    code = code_named(SAMPLE, "outer")
    result = verify(code, SAMPLE.replace("item > 2", "item > 3"))
    assert not result and not result.exact
    assert result.difference.startswith("first difference: in outer at instruction #")
    assert "expected" in result.difference and "2" in result.difference
    assert "got" in result.difference and "3" in result.difference


def test_changed_keyword_name_is_reported_with_both_names():
    """A call's keyword names are a constant every version compares (3.11's ``dis`` leaves
    KW_NAMES's tuple unresolved: the comparison reads it from co_consts itself)."""
    source = "def f(g):\n    x = 1\n    return g(1, key=x)\n"
    code = code_named(source, "f")
    assert verify(code, source)
    result = verify(code, source.replace("key=", "other="))
    assert not result
    assert "'key'" in result.difference and "'other'" in result.difference


def test_local_versus_global_name_is_reported():
    code = code_named("def f(x):\n    return x\n", "f")
    result = verify(code, "def f(y):\n    return x\n")
    assert not result
    assert "LOAD_FAST" in result.difference and "LOAD_GLOBAL" in result.difference
    assert " x" in result.difference


def test_changed_operator_is_reported():
    code = code_named("def f(a, b):\n    return a + b\n", "f")
    result = verify(code, "def f(a, b):\n    return a - b\n")
    assert not result
    assert "in f at instruction #" in result.difference


def test_changed_jump_is_reported():
    code = code_named(SAMPLE, "outer")
    result = verify(code, SAMPLE.replace("break", "continue"))
    assert not result
    assert "in outer" in result.difference


def test_difference_inside_nested_code_names_the_nested_code():
    code = code_named(SAMPLE, "outer")
    result = verify(code, SAMPLE.replace("y + total", "y - total"))
    assert not result
    assert "<lambda>" in result.difference
    module = compile(SAMPLE, "<sample>", "exec")
    result = verify(module, SAMPLE.replace("return sum(values)", "return max(values)"))
    assert not result and "static" in result.difference


def test_syntax_error_is_not_exact_and_does_not_raise():
    code = code_named(SAMPLE, "outer")
    result = verify(code, "def outer(:\n    pass\n")
    assert not result
    assert result.difference.startswith(SOURCE_DOES_NOT_COMPILE)
    assert "SyntaxError" in result.difference
    assert result.compiled is None
    assert not verify(code, "x = 1\0\n")  # compile() raises ValueError or SyntaxError here


def test_missing_function_is_reported():
    result = verify(code_named(SAMPLE, "outer"), "def other():\n    pass\n")
    assert not result and "no code object named 'outer'" in result.difference


@pytest.mark.parametrize("left, right", [
    ("1", "1.0"), ("1", "True"), ("0.0", "-0.0"), ("(1, 2)", "(1, 2.0)"),
    ("'a'", "b'a'"), ("1j", "1.0"), ("'a'", "'b'"), ("1", "2"), ("b'a'", "b'b'"),
    ("True", "False"), ("None", "..."),
])
def test_constants_differ_by_type_and_value(left, right):
    code = code_named("def f():\n    return %s\n" % left, "f")
    assert verify(code, "def f():\n    return %s\n" % left)
    assert not verify(code, "def f():\n    return %s\n" % right)


def test_nan_constant_equals_itself_and_frozensets_compare_by_element_types():
    nan_source = "def f():\n    return 1e999 * 0\n"  # folded to a NaN constant
    assert verify(code_named(nan_source, "f"), nan_source)
    in_set = "def f(x):\n    return x in {1, 2}\n"
    assert verify(code_named(in_set, "f"), in_set)
    assert not verify(code_named(in_set, "f"), in_set.replace("{1, 2}", "{1, 2.0}"))


def test_signature_flags_and_defaults():
    varargs = code_named("def f(*a):\n    pass\n", "f")
    result = verify(varargs, "def f(**a):\n    pass\n")
    assert not result and "VARARGS" in result.difference
    positional = code_named("def f(a, b):\n    pass\n", "f")
    result = verify(positional, "def f(a, *, b):\n    pass\n")
    assert not result and "co_argcount" in result.difference
    # Defaults live in the enclosing code, so the module comparison is what catches them.
    module = compile("def f(a=1):\n    pass\n", "<s>", "exec")
    assert not verify(module, "def f(a=1.0):\n    pass\n")


def test_generator_and_docstring_differences():
    gen = code_named("def f():\n    yield 1\n", "f")
    assert not verify(gen, "def f():\n    return 1\n")
    documented = code_named('def f():\n    "doc"\n    return 1\n', "f")
    result = verify(documented, "def f():\n    return 1\n")
    assert not result and "docstring" in result.difference


def test_method_found_inside_class_or_alone():
    method = code_named(SAMPLE, "Thing.method")
    assert verify(method, "class Thing:\n    def method(self, x):\n"
                          "        return super().method(x) + self.size\n")
    # Alone, super() has no __class__ cell: that is a real difference, and it is found.
    result = verify(method, "def method(self, x):\n    return super().method(x) + self.size\n")
    assert not result


def test_several_candidates_prefer_the_exact_one():
    source = ("class A:\n    def run(self):\n        return 1\n"
              "class B:\n    def run(self):\n        return 2\n")
    assert verify(code_named(source, "B.run"), source)
    assert verify(code_named(source, "A.run"), source)


def test_method_alone_stops_at_its_own_def():
    # A method decompiled on its own (`C.m`) comes back as `def m`: check_tree's walk for
    # candidates stops at that def (a qualname tail) instead of walking what it nests, and a
    # difference is still found (the walk then goes on over every candidate).
    source = ("class C:\n    def m(self):\n        def m():\n            return 1\n"
              "        return [m() for _ in self]\n")
    method = code_named(source, "C.m")
    alone = ("def m(self):\n    def m():\n        return 1\n"
             "    return [m() for _ in self]\n")
    module = compile(alone, "<alone>", "exec")
    found, complete = _candidates(module, method, stop_at_exact=True)
    assert not complete and [c.co_name for c in found] == ["m"]
    assert found[0] is next(c for c in module.co_consts if hasattr(c, "co_code"))
    assert check_tree(method, alone) == ([], {})
    differences, _ = check_tree(method, alone.replace("return 1", "return 2"))
    assert differences and "m" in differences[0].difference


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception tables exist from 3.11")
def test_exception_handler_change_is_found():
    source = "def f(g):\n    try:\n        g()\n    except ValueError:\n        return 1\n"
    code = code_named(source, "f")
    changed = "def f(g):\n    g()\n    try:\n        pass\n    except ValueError:\n        return 1\n"
    assert not verify(code, changed)


def test_bad_arguments_are_type_errors():
    with pytest.raises(TypeError, match="code object"):
        verify("not code", "x = 1")
    with pytest.raises(TypeError, match="source"):
        verify(compile("x = 1", "<s>", "exec"), 42)


def test_result_object():
    exact = VerifyResult(True)
    assert exact and repr(exact) == "VerifyResult(exact=True)"
    different = VerifyResult(False, "first difference: x")
    assert not different and "first difference: x" in repr(different)


def test_extended_args_and_big_functions_are_exact():
    # Hundreds of names push arguments past 255 (EXTENDED_ARG) and jumps across them.
    body = "\n".join("    v%d = %d.5\n    if v%d:\n        w%d = v%d" % (i, i, i, i, i)
                     for i in range(300))
    source = "def big():\n%s\n    return 0\n" % body
    assert verify(code_named(source, "big"), "\n" + source)
    assert not verify(code_named(source, "big"), source.replace("v299 = 299.5", "v299 = 2.5"))


LAYOUT_SENSITIVE = textwrap.dedent('''
    def f(fs, a, b, c, split):
        pending = sum(
            g.state not in [1, 2] for g in fs)
        parts = [x for x in split(a)
                 if x and x != '.']
        ok = (isinstance(a, int) or
              isinstance(a, str) and
                  bool(a.flags & 4) or
              isinstance(a, float))
        while a:
            if (b or
                    c):
                break
        return (a or
                b and c), pending, parts, ok
''')


@pytest.mark.skipif(sys.version_info < (3, 9), reason="ast.unparse is 3.9+")
def test_jump_shapes_that_follow_line_layout_are_exact():
    # The compiler threads jumps and inverts branches only within one line, so the same
    # program laid out on one line per statement compiles to different jumps.
    import ast
    code = code_named(LAYOUT_SENSITIVE, "f")
    one_line_each = ast.unparse(ast.parse(LAYOUT_SENSITIVE))
    assert verify(code, one_line_each)
    assert verify(compile(LAYOUT_SENSITIVE, "<sample>", "exec"), one_line_each)


@pytest.mark.parametrize("left, right", [
    ("if x:\n        return 1\n    return 2", "if not x:\n        return 1\n    return 2"),
    ("return a and b", "return a or b"),
    ("return a and b or c", "return a and (b or c)"),
    ("while x:\n        x()", "while not x:\n        x()"),
    ("if x is None:\n        return 1", "if x is not None:\n        return 1"),
])
def test_jump_canonicalization_keeps_real_differences(left, right):
    template = "def f(x, a, b, c):\n    %s\n"
    code = code_named(template % left, "f")
    assert verify(code, template % left)
    assert not verify(code, template % right)


# --- property: layout never matters -------------------------------------------------------

try:  # hypothesis comes with the [test] extra; other interpreters may run this file without it
    from hypothesis import given, settings, strategies as st
except ImportError:  # pragma: no cover
    st = None

# Names only: a constant in a test lets the compiler fold branches away, and which dead code it
# keeps does depend on lines (rare in real code; not what this property is about).
if st is not None:
    _LEAVES = st.sampled_from(["a", "b", "c", "x"])
    _BINARY = st.sampled_from(["+", "-", "*", "and", "or", "<", "==", "in"])

    def _expressions():
        def extend(children):
            binary = st.tuples(st.just("bin"), children, _BINARY, children, st.booleans())
            negation = st.tuples(st.just("not"), children)
            conditional = st.tuples(st.just("if"), children, children, children, st.booleans())
            return binary | negation | conditional
        return st.recursive(_LEAVES, extend, max_leaves=8)

    def _render(tree, broken):
        """Source for ``tree``; ``broken`` puts the chosen line breaks inside the parentheses."""
        if isinstance(tree, str):
            return tree
        if tree[0] == "not":
            return "(not %s)" % _render(tree[1], broken)
        if tree[0] == "bin":
            _, left, op, right, newline = tree
            gap = "\n" if broken and newline else " "
            return "(%s %s%s%s)" % (_render(left, broken), op, gap, _render(right, broken))
        _, body, test, orelse, newline = tree
        gap = "\n" if broken and newline else " "
        return "(%s if%s%s else %s)" % (_render(body, broken), gap, _render(test, broken),
                                        _render(orelse, broken))

    _TEMPLATE = textwrap.dedent("""
    def f(a, b, c):
        if {0}:
            return {1}
        while {2}:
            if {3}:
                break
            a = {4}
        return [x for x in b if {5}], {6}
    """)

    @settings(max_examples=60, deadline=None, database=None)
    @given(st.lists(_expressions(), min_size=7, max_size=7))
    def test_line_breaks_inside_expressions_never_change_the_verdict(trees):
        multi_line = _TEMPLATE.format(*[_render(tree, True) for tree in trees])
        one_line = _TEMPLATE.format(*[_render(tree, False) for tree in trees])
        code = code_named(multi_line, "f")
        result = verify(code, one_line)
        assert result, (result.difference, multi_line)
        assert verify(code_named(one_line, "f"), multi_line)
else:  # pragma: no cover
    def test_line_breaks_inside_expressions_never_change_the_verdict():
        pytest.skip("hypothesis is not installed (pip install -e '.[test]')")


def test_difference_shows_numeric_arguments():
    code = code_named("def f(a, b):\n    return a is b\n", "f")
    result = verify(code, "def f(a, b):\n    return a is not b\n")
    assert not result
    if sys.version_info >= (3, 9):  # IS_OP's argument is the inversion flag
        assert "IS_OP 0" in result.difference and "IS_OP 1" in result.difference


def test_generated_empty_tuple_build_matches_the_constant():
    # Dynamo emits BUILD_TUPLE 0 where source can only say (); both push the same object.
    import dis
    source = "def f():\n    x = ()\n    return x\n"
    code = code_named(source, "f")
    raw = bytearray(code.co_code)
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_CONST" and ins.argval == ():
            raw[ins.offset] = dis.opmap["BUILD_TUPLE"]
            raw[ins.offset + 1] = 0
    built = code.replace(co_code=bytes(raw))
    assert any(i.opname == "BUILD_TUPLE" for i in dis.get_instructions(built))
    assert verify(built, source)
    assert not verify(built, "def f():\n    x = []\n    return x\n")


def test_compiling_the_candidate_warns_nothing_and_leaves_the_filters_as_they_were():
    """verify() and check_tree() compile with every warning ignored (a SyntaxWarning would
    name the original file with the candidate's lines), even where warnings are errors, and
    put the caller's filters back: the same list, and still in force after."""
    import warnings
    from dynalens.decompiler.verify import check_tree

    def f(x):
        return x == 1

    source = "def f(x):\n    return x is 1\n"  # SyntaxWarning: "is" with a literal
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        filters = warnings.filters
        before = list(filters)
        assert not verify(f.__code__, source)
        differences, _ = check_tree(f.__code__, source)
        assert differences
        assert warnings.filters is filters and filters == before
        with pytest.raises(SyntaxError):  # (the filter is in force again: an error)
            compile(source, "<candidate>", "exec", dont_inherit=True)
    assert caught == []


def test_normalized_keys_are_the_keys_key_gives(monkeypatch):
    """_Normalized writes most comparison keys itself (those that read no neighbour): the same
    keys, instructions and exception ranges as when _Normalized._key writes every one, on real
    code."""
    import sysconfig
    from dynalens.decompiler import verify as verify_module

    class Everything(object):
        def __contains__(self, item):
            return True

    def facts(code, strict):
        normalized = verify_module._Normalized(code, code.co_name, strict)
        return normalized.keys, normalized.instructions, normalized.exception_ranges

    root = sysconfig.get_paths()["stdlib"]
    codes = []
    for name in ("argparse.py", "enum.py", "dataclasses.py", "typing.py"):
        with open("%s/%s" % (root, name), "rb") as handle:
            todo = [compile(handle.read(), name, "exec", dont_inherit=True)]
        while todo:
            code = todo.pop()
            todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
            codes.append(code)
    fast = [facts(code, strict) for code in codes for strict in (False, True)]
    monkeypatch.setattr(verify_module, "_KEY_SPECIAL", Everything())
    slow = [facts(code, strict) for code in codes for strict in (False, True)]
    assert len(codes) > 500
    assert fast == slow


def _offset_of(code, opname_part, argval):
    return next(ins.offset for ins in raw_instructions(code)
                if opname_part in ins.opname and ins.argval == argval)


def test_difference_reach_is_the_furthest_instruction_the_mismatch_involves():
    # check_tree's Difference.reach (choices.py skips changes of reading past it): the
    # original's offset of the first mismatch, or of a jump's target beyond it
    from dynalens.decompiler.verify import check_tree
    source = "def f(a):\n    b = 1\n    if a:\n        b = 5\n    c = 6\n    return b + c\n"
    code = code_named(source, "f")
    differences, _ = check_tree(code, source.replace("b = 1", "b = 2"))
    assert len(differences) == 1
    assert differences[0].reach == _offset_of(code, "LOAD", 1)
    # a jump whose target moved (two instructions more in the body): past the original's
    # target, by the recompiled target counted in the original's instructions
    differences, _ = check_tree(code, source.replace("b = 5", "b = 5\n        b = 7"))
    assert len(differences) == 1
    returns = max(ins.offset for ins in raw_instructions(code) if "RETURN" in ins.opname)
    assert _offset_of(code, "LOAD", 6) < differences[0].reach <= returns
    # not an instruction: no reach
    differences, _ = check_tree(code, source.replace("def f(a)", "def f(a, z)"))
    assert differences[0].reach is None


def test_difference_reach_is_unbounded_where_a_return_stands_against_a_jump():
    # (an exit block copied into a jump to it, or not: code anywhere after may decide it)
    from dynalens.decompiler.verify import check_tree
    source = "def f(a):\n    if a:\n        b = 1\n    else:\n        return 2\n    return 3\n"
    code = code_named(source, "f")
    differences, _ = check_tree(code, source.replace("return 2", "b = 2"))
    assert len(differences) == 1 and differences[0].reach is None, differences
