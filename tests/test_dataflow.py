"""verify(temporaries=True): generated code (Dynamo's) keeps values on the stack where source
must name them. The dataflow check accepts exactly that difference and nothing more: a call
moved, a value computed twice, a branch changed or an exception handled differently is still
a difference. Real compiled functions stand for both sides where source can express the
original; the test assembler builds the shapes only generated code has."""

import sys
import textwrap

import pytest

from dynalens.decompiler.dataflow import SUPPORTED
from dynalens.decompiler.verify import verify

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="the dataflow check models 3.11-3.13")


def code_of(source, name="f"):
    namespace = {}
    exec(compile(textwrap.dedent(source), "<original>", "exec"), namespace)
    return namespace[name].__code__


def check(original, candidate):
    return verify(code_of(original), textwrap.dedent(candidate), temporaries=True)


def test_value_held_in_a_temporary_is_the_same_value():
    result = check("""
        def f(a):
            return h(a) + k(a)
    """, """
        def f(a):
            t = h(a)
            return t + k(a)
    """)
    assert result and result.how == "dataflow"


def test_a_call_with_other_keyword_names_is_a_difference():
    """The keyword names are part of the call (3.11's dis leaves KW_NAMES's tuple UNKNOWN:
    the check reads it from co_consts, or `g(key=v)` passed for `g(other=v)`)."""
    original = """
        def f(g, x):
            return g(1, key=x + 1)
    """
    assert check(original, """
        def f(g, x):
            t = x + 1
            return g(1, key=t)
    """).how == "dataflow"
    assert not check(original, """
        def f(g, x):
            t = x + 1
            return g(1, other=t)
    """)


def test_loading_a_global_is_an_event_in_its_place():
    # g is looked up before h runs (h could rebind it): naming h(a) first moves the lookup
    assert not check("""
        def f(a):
            return g(h(a))
    """, """
        def f(a):
            t = h(a)
            return g(t)
    """)


def test_bytecode_exact_source_says_so():
    source = "def f(a):\n    return g(a) + 1\n"
    result = verify(code_of(source), source, temporaries=True)
    assert result and result.how == "bytecode"


def test_without_temporaries_the_temporary_is_a_difference():
    original = "def f(a):\n    return g(h(a), k(a))\n"
    candidate = "def f(a):\n    t = h(a)\n    return g(t, k(a))\n"
    assert not verify(code_of(original), candidate)


def test_calls_in_another_order_differ():
    result = check("""
        def f(a):
            return g(h(a), k(a))
    """, """
        def f(a):
            t = k(a)
            return g(h(a), t)
    """)
    assert not result
    assert "as dataflow" in result.difference


def test_value_computed_twice_differs():
    result = check("""
        def f(a):
            x = h(a)
            return x + x
    """, """
        def f(a):
            x = h(a)
            return h(a) + h(a)
    """)
    assert not result


def test_different_operand_differs():
    assert not check("def f(a, b):\n    return g(a)\n", "def f(a, b):\n    return g(b)\n")


def test_store_to_a_real_local_is_observable():
    # `x` exists on both sides, so storing it is an event, not a temporary
    result = check("""
        def f(a):
            x = g(a)
            x = k(x)
            return x
    """, """
        def f(a):
            x = g(a)
            return k(x)
    """)
    assert not result


def test_branches_must_agree_on_both_paths():
    original = """
        def f(a):
            if a:
                return g(a)
            return k(a)
    """
    assert check(original, """
        def f(a):
            t = a
            if t:
                return g(a)
            return k(a)
    """)
    assert not check(original, """
        def f(a):
            if a:
                return g(a)
            return g(a)
    """)


def test_loops_terminate_and_compare_every_iteration():
    original = """
        def f(items):
            total = 0
            for item in items:
                total = total + g(item)
            return total
    """
    assert check(original, """
        def f(items):
            total = 0
            for item in items:
                t = g(item)
                total = total + t
            return total
    """)
    assert not check(original, """
        def f(items):
            total = 0
            for item in items:
                total = g(item) + total
            return total
    """)


def test_exception_handlers_must_correspond():
    original = """
        def f(a):
            try:
                x = g(a)
            except ValueError:
                return None
            return x
    """
    assert check(original, """
        def f(a):
            try:
                t = g(a)
                x = t
            except ValueError:
                return None
            return x
    """)
    # the same call outside the try: an exception it raises is no longer handled
    assert not check(original, """
        def f(a):
            t = g(a)
            try:
                x = t
            except ValueError:
                return None
            return x
    """)


def test_reading_a_temporary_before_it_is_set_is_a_difference():
    result = check("""
        def f(a, c):
            return g(a)
    """, """
        def f(a, c):
            if c:
                t = a
            return g(t)
    """)
    assert not result


def test_unmodelled_instructions_fail_closed():
    # generators are outside the model: never reported as equivalent unless bytecode-exact
    result = check("""
        def f(a):
            yield g(a)
    """, """
        def f(a):
            t = g(a)
            yield t
    """)
    assert not result
    assert "not modelled" in result.difference


def test_nested_code_objects_are_compared_too():
    result = check("""
        def f(a):
            return lambda: g(a)
    """, """
        def f(a):
            return lambda: k(a)
    """)
    assert not result


# -- shapes only generated code has (CPython 3.11's encoding) ---------------------------------

assembler = pytest.importorskip("bytecode_builder")
needs_311 = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                               reason="the test assembler encodes CPython 3.11 only")


@needs_311
def test_list_extend_on_the_stack_is_the_extend_call():
    code = assembler.assemble([
        ("RESUME", 0), ("LOAD_FAST", 0), ("BUILD_LIST", 1), ("LOAD_FAST", 1),
        ("LIST_EXTEND", 1), ("RETURN_VALUE", 0),
    ], argnames=("a", "b"))
    code = code.replace(co_name="f", co_qualname="f")
    assert verify(code, "def f(a, b):\n    t = [a]\n    t.extend(b)\n    return t\n",
                  temporaries=True)
    assert not verify(code, "def f(a, b):\n    t = [a]\n    t.extend(a)\n    return t\n",
                      temporaries=True)


@needs_311
def test_cell_passed_as_a_value():
    # LOAD_CLOSURE pushes the cell itself; source spells it (lambda: x).__closure__[0]
    inner = code_of("""
        def outer():
            x = 1
            def f():
                return g(x)
            return f
    """, "outer")
    f_code = [c for c in inner.co_consts if hasattr(c, "co_code")][0]
    code = assembler.assemble([
        ("COPY_FREE_VARS", 1), ("RESUME", 0), ("LOAD_GLOBAL", (0, True)),
        ("LOAD_CLOSURE", 0), ("PRECALL", 1), ("CALL", 1), ("RETURN_VALUE", 0),
    ], names=("g",))
    code = code.replace(co_name="f", co_qualname="outer.<locals>.f",
                        co_freevars=f_code.co_freevars, co_flags=f_code.co_flags)
    source = textwrap.dedent("""
        def outer():
            x = 1
            def f():
                return g((lambda: x).__closure__[0])
            return f
    """)
    assert verify(code, source, temporaries=True)
    wrong = source.replace("__closure__[0]", "__closure__[0].cell_contents")
    assert not verify(code, wrong, temporaries=True)


def _erase(code, first, last):
    """``code`` with the instructions from opname ``first`` (its first occurrence) through the
    next ``last`` replaced by NOPs (caches included): generated code's shapes made from real
    compiled code, on every Python version the check supports."""
    import dis
    import opcode

    ins = list(dis.get_instructions(code))
    start = next(k for k, i in enumerate(ins) if i.opname == first)
    stop = next(k for k in range(start, len(ins)) if ins[k].opname == last)
    end = ins[stop + 1].offset
    raw = bytearray(code.co_code)
    raw[ins[start].offset:end] = bytes([opcode.opmap["NOP"], 0]) * ((end - ins[start].offset) // 2)
    return code.replace(co_code=bytes(raw))


def test_cell_loaded_by_its_slot_is_the_cell():
    # 3.13 loads a cell with LOAD_FAST on its slot (LOAD_CLOSURE before); Dynamo passes cells
    # to resume functions that way. Built from the spelled form with the spelling erased.
    source = textwrap.dedent("""
        def outer():
            x = 1
            def f():
                return g((lambda: x).__closure__[0])
            return f
    """)
    f_code = [c for c in code_of(source, "outer").co_consts if hasattr(c, "co_code")][0]
    bare = _erase(f_code, "BUILD_TUPLE", "BINARY_SUBSCR")
    assert verify(bare, source, temporaries=True)
    assert not verify(bare, source.replace("g((lambda: x).__closure__[0])", "g(x)"),
                      temporaries=True)


def test_cell_loaded_by_its_slot_decompiles_to_the_cell():
    from dynalens.decompiler.api import decompile

    source = textwrap.dedent("""
        def outer():
            x = 1
            def f():
                return g((lambda: x).__closure__[0])
            return f
    """)
    f_code = [c for c in code_of(source, "outer").co_consts if hasattr(c, "co_code")][0]
    bare = _erase(f_code, "BUILD_TUPLE", "BINARY_SUBSCR")
    text = decompile(bare)
    assert "(lambda: x).__closure__[0]" in text, text


def test_slice_built_or_sliced_in_one_instruction_is_the_same():
    # a[b:c] is BINARY_SLICE from 3.12 on; Dynamo builds the slice with BUILD_SLICE and
    # subscripts: slice(b, c) and slice(b, c, None) are the same slice
    assert check("def f(a, b, c):\n    return a[b:c:None]\n",
                 "def f(a, b, c):\n    return a[b:c]\n")
    assert check("def f(a, b, c, v):\n    a[b:c:None] = v\n",
                 "def f(a, b, c, v):\n    a[b:c] = v\n")
    assert not check("def f(a, b, c):\n    return a[b:c:None]\n",
                     "def f(a, b, c):\n    return a[c:b]\n")
    assert not check("def f(a, b, c):\n    return a[b:c:b]\n",
                     "def f(a, b, c):\n    return a[b:c]\n")


def test_star_arguments_from_a_list_display():
    # CALL_FUNCTION_EX makes the tuple itself: g(*[a, *b]) is g(a, *b) (3.12+ converts with
    # CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE, 3.11 with LIST_TO_TUPLE)
    assert check("def f(a, b):\n    return g(*[a, *b])\n",
                 "def f(a, b):\n    return g(a, *b)\n")
    assert not check("def f(a, b):\n    return g(*[a, *b])\n",
                     "def f(a, b):\n    return g(b, *a)\n")


@pytest.mark.skipif(sys.version_info[:2] != (3, 13),
                    reason="cut from 3.13 code, where the NULL follows the callable")
def test_attribute_then_null_is_the_method_call():
    # Dynamo (torch 2.15, 3.13) calls o.m as LOAD_ATTR m (plain), PUSH_NULL, CALL; source's
    # o.m(x) compiles to the method form of LOAD_ATTR. Calling the attribute is the call.
    import dis
    import opcode

    code = code_of("def f(o, x):\n    t = o.m\n    return t(x)\n")
    raw = bytearray(code.co_code)
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_FAST", "LOAD_FAST") and ins.argval == "t":
            raw[ins.offset:ins.offset + 2] = bytes([opcode.opmap["NOP"], 0])
    bare = code.replace(co_code=bytes(raw))
    assert [i.opname for i in dis.get_instructions(bare) if i.opname != "NOP"][2:5] == [
        "LOAD_ATTR", "PUSH_NULL", "LOAD_FAST"]
    result = verify(bare, "def f(o, x):\n    return o.m(x)\n", temporaries=True)
    assert result and result.how == "dataflow"
    assert not verify(bare, "def f(o, x):\n    return o.n(x)\n", temporaries=True)
    assert not verify(bare, "def f(o, x):\n    return o.m(o)\n", temporaries=True)


def test_is_none_by_identity_test_is_the_none_branch():
    # torch 2.15's profiler template tests `cm is not None` with IS_OP and a truth jump; source
    # compiles it to POP_JUMP_IF_NONE (3.11+). Built from source: a stored test, the store
    # and load erased, is IS_OP then the jump.
    import dis
    import opcode

    code = code_of("def f(a):\n    t = a is not None\n    if t:\n        g(a)\n")
    raw = bytearray(code.co_code)
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_FAST", "LOAD_FAST", "TO_BOOL") and ins.argval == "t" \
                or ins.opname == "TO_BOOL":
            raw[ins.offset:ins.offset + 2] = bytes([opcode.opmap["NOP"], 0])
    bare = code.replace(co_code=bytes(raw))
    assert "IS_OP" in [i.opname for i in dis.get_instructions(bare)]
    result = verify(bare, "def f(a):\n    if a is not None:\n        g(a)\n", temporaries=True)
    assert result and result.how == "dataflow", result.difference
    assert not verify(bare, "def f(a):\n    if a is None:\n        g(a)\n", temporaries=True)
    assert not verify(bare, "def f(a):\n    if a:\n        g(a)\n", temporaries=True)
# Shapes from Hugging Face models under Dynamo (tests/test_hf_models.py): Dynamo's code does
# the same as the decompiled source, spelled in bytecode no source compiles to.

def _assembled(program, **kw):
    bytecode_builder = pytest.importorskip("bytecode_builder")
    if not bytecode_builder.SUPPORTED:
        pytest.skip("the test assembler encodes CPython 3.11 only")
    return bytecode_builder.assemble(program, **kw)


def _dict_of_two(keys):
    # Dynamo: BUILD_MAP with each constant key loaded before its value
    return _assembled([
        ("RESUME", 0),
        ("LOAD_CONST", 1), ("LOAD_GLOBAL", (0, True)), ("PRECALL", 0), ("CALL", 0),
        ("LOAD_CONST", 2), ("LOAD_GLOBAL", (1, True)), ("PRECALL", 0), ("CALL", 0),
        ("BUILD_MAP", 2), ("RETURN_VALUE", 0),
    ], consts=(None,) + keys, names=("g", "h"))


def test_dict_with_constant_keys_built_either_way_is_the_same_dict():
    source = "def generated():\n    return {'a': g(), 'b': h()}\n"   # BUILD_CONST_KEY_MAP
    result = verify(_dict_of_two(("a", "b")), source, temporaries=True)
    assert result and result.how == "dataflow", result.difference
    assert not verify(_dict_of_two(("a", "c")), source, temporaries=True)
    assert not verify(_dict_of_two(("a", "b")),
                      "def generated():\n    return {'a': h(), 'b': g()}\n", temporaries=True)


def test_attribute_loaded_then_called_is_the_method_call():
    # Dynamo: PUSH_NULL, the owner, LOAD_ATTR __new__, the argument, CALL; source
    # `cls.__new__(cls)` compiles to LOAD_METHOD
    code = _assembled([
        ("RESUME", 0), ("PUSH_NULL", 0), ("LOAD_FAST", 0), ("LOAD_ATTR", 0),
        ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1), ("RETURN_VALUE", 0),
    ], argnames=("cls",), names=("__new__",))
    result = verify(code, "def generated(cls):\n    return cls.__new__(cls)\n",
                    temporaries=True)
    assert result and result.how == "dataflow", result.difference
    assert not verify(code, "def generated(cls):\n    return cls.__init__(cls)\n",
                      temporaries=True)
    assert not verify(code, "def generated(cls):\n    return cls.__new__(cls, cls)\n",
                      temporaries=True)


def _graph_call(count, order):
    # Dynamo calls a graph with every tensor as one CALL; past 30 arguments the compiler
    # builds a list, appends each argument and calls with CALL_FUNCTION_EX
    program = [("RESUME", 0), ("LOAD_GLOBAL", (0, True))]
    for k in order:
        program += [("LOAD_FAST", 0), ("LOAD_CONST", k + 1), ("BINARY_SUBSCR", 0)]
    program += [("PRECALL", count), ("CALL", count), ("RETURN_VALUE", 0)]
    return _assembled(program, argnames=("x",), consts=(None,) + tuple(range(count)),
                      names=("graph",))


def test_call_with_many_arguments_through_a_list_is_the_same_call():
    count = 35
    source = "def generated(x):\n    return graph(%s)\n" % ", ".join(
        "x[%d]" % k for k in range(count))
    result = verify(_graph_call(count, range(count)), source, temporaries=True)
    assert result and result.how == "dataflow", result.difference
    swapped = list(range(count))
    swapped[3], swapped[4] = 4, 3
    assert not verify(_graph_call(count, swapped), source, temporaries=True)
    assert not verify(_graph_call(count, range(count)), source.replace("x[34])", "x[34], x)"),
                      temporaries=True)


@pytest.mark.parametrize("invert, jump, source_test", [
    (0, "POP_JUMP_FORWARD_IF_TRUE", "x is not None"),    # skip the body when x is None
    (1, "POP_JUMP_FORWARD_IF_FALSE", "x is not None"),   # skip it when not (x is not None)
    (0, "POP_JUMP_FORWARD_IF_FALSE", "x is None"),
])
def test_is_none_spelled_out_is_the_branch_on_none(invert, jump, source_test):
    # Dynamo's resume functions (Mixtral's `if labels is not None:`): LOAD_CONST None, IS_OP,
    # a jump on truth, where source compiles to POP_JUMP_IF_(NOT_)NONE
    bytecode_builder = pytest.importorskip("bytecode_builder")
    if not bytecode_builder.SUPPORTED:
        pytest.skip("the test assembler encodes CPython 3.11 only")
    skip = bytecode_builder.Label("skip")
    code = bytecode_builder.assemble([
        ("RESUME", 0), ("LOAD_FAST", 0), ("LOAD_CONST", 0), ("IS_OP", invert), (jump, skip),
        ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1), ("CALL", 1),
        ("RETURN_VALUE", 0), skip, ("LOAD_CONST", 0), ("RETURN_VALUE", 0),
    ], argnames=("x",), names=("g",))
    body = "    if %s:\n        return g(x)\n    return None\n"
    result = verify(code, "def generated(x):\n" + body % source_test, temporaries=True)
    assert result and result.how == "dataflow", result.difference
    opposite = "x is None" if source_test == "x is not None" else "x is not None"
    assert not verify(code, "def generated(x):\n" + body % opposite, temporaries=True)


@pytest.mark.skipif(sys.version_info[:2] != (3, 13), reason="encodes CPython 3.13 bytecode")
def test_call_with_many_arguments_through_a_list_on_313():
    # 3.12+ turns the list into a tuple with CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE
    import dis
    import opcode

    count = 35

    def encode(program):
        out = bytearray()
        for op, arg in program:
            out += bytes([opcode.opmap[op], arg])
            out += b"\0\0" * opcode._inline_cache_entries.get(op, 0)
        return bytes(out)

    def template(g, x):
        pass

    program = [("RESUME", 0), ("LOAD_FAST", 0), ("PUSH_NULL", 0)]
    for k in range(count):
        program += [("LOAD_FAST", 1), ("LOAD_CONST", k), ("BINARY_SUBSCR", 0)]
    program += [("CALL", count), ("RETURN_VALUE", 0)]
    code = template.__code__.replace(co_code=encode(program), co_consts=tuple(range(count)),
                                     co_stacksize=count + 4, co_name="generated",
                                     co_qualname="generated", co_linetable=b"")
    assert [i.opname for i in dis.get_instructions(code)][-2:] == ["CALL", "RETURN_VALUE"]
    source = "def generated(g, x):\n    return g(%s)\n" % ", ".join(
        "x[%d]" % k for k in range(count))
    result = verify(code, source, temporaries=True)
    assert result and result.how == "dataflow", result.difference
    assert not verify(code, source.replace("x[3], x[4]", "x[4], x[3]"), temporaries=True)




@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="3.11 bytecode")
def test_local_the_original_never_touches_may_hold_a_value():
    # Dynamo keeps the user's local names (x) in the transformed code without using them; a
    # readable rewrite may hold a value there as in a temporary. A local the original does
    # store stays an event of its own.
    import bytecode_builder as assembler

    code = assembler.assemble([
        ("RESUME", 0), ("LOAD_GLOBAL", (0, True)), ("LOAD_FAST", 0), ("PRECALL", 1),
        ("CALL", 1), ("RETURN_VALUE", 0),
    ], argnames=("a",), names=("g",), varnames=("a", "x"))
    code = code.replace(co_name="f", co_qualname="f")
    assert "x" in code.co_varnames
    assert verify(code, "def f(a):\n    x = g(a)\n    return x\n", temporaries=True)
    assert not verify(code, "def f(a):\n    x = g(a)\n    return a\n", temporaries=True)
    stored = code_of("def f(a):\n    x = g(a)\n    h()\n    return x\n")
    assert verify(stored, "def f(a):\n    t = g(a)\n    x = t\n    h()\n    return x\n",
                  temporaries=True)
    assert not verify(stored, "def f(a):\n    t = g(a)\n    h()\n    x = t\n    return x\n",
                      temporaries=True)


class _EveryPairKeyed(object):
    """The dataflow check's explored set as it was before keys were computed lazily: every
    pair keyed on arrival. Records how many pairs each check explored."""

    counts = []

    def __init__(self):
        from dynalens.decompiler.dataflow import _canonical

        self.keys, self.count, self._canonical = set(), 0, _canonical
        self.counts.append(self)

    def add(self, a, b):
        key = self._canonical((a, b))
        if key in self.keys:
            return False
        self.keys.add(key)
        self.count += 1
        return True

    def settle(self, a, b):
        pass


@pytest.mark.parametrize("original, candidate", [
    ("""
        def f(items, a):
            total = 0
            for item in items:
                if a:
                    total = total + g(item)
                else:
                    total = h(total)
            try:
                x = g(total)
            except ValueError:
                x = None
            return [x, total]
    """, """
        def f(items, a):
            total = 0
            for item in items:
                if a:
                    t = g(item)
                    total = total + t
                else:
                    total = h(total)
            try:
                x = g(total)
            except ValueError:
                x = None
            return [x, total]
    """),
    ("""
        def f(a, b):
            x = g(a) if b else h(a)
            y = g(x) if a else h(b)
            return k([x, y][0:1], y)
    """, """
        def f(a, b):
            if b:
                x = g(a)
            else:
                x = h(a)
            y = g(x) if a else h(b)
            return k([x, y][0:1], y)
    """),
])
def test_lazy_keys_explore_what_keying_every_pair_explores(original, candidate, monkeypatch):
    import dynalens.decompiler.dataflow as dataflow

    explored = []
    real = dataflow._SeenStates

    class Recorded(real):
        def __init__(self):
            super().__init__()
            explored.append(self)

    monkeypatch.setattr(dataflow, "_SeenStates", Recorded)
    lazy = check(original, candidate)
    monkeypatch.setattr(dataflow, "_SeenStates", _EveryPairKeyed)
    _EveryPairKeyed.counts = []
    eager = check(original, candidate)
    assert bool(lazy) == bool(eager) and lazy.how == "dataflow"
    assert [s.count for s in explored] == [s.count for s in _EveryPairKeyed.counts]
    assert any(s.keys for s in explored)   # joins and the loop were keyed


def test_a_verdict_is_reused_only_for_the_same_code_with_other_line_numbers(monkeypatch):
    # within one shared_disassembly block (the lens verifies a file as it rewrites it, then
    # with its header and its line comments) the dataflow check runs once per recompiled shape
    import dynalens.decompiler.verify as verify_module
    from dynalens.decompiler.instructions import shared_disassembly

    runs = []
    real = verify_module._dataflow
    monkeypatch.setattr(verify_module, "_dataflow",
                        lambda *args: runs.append(args) or real(*args))
    original = code_of("""
        def f(a):
            return h(a) + k(a, 1)
    """)
    good = "def f(a):\n    t = h(a)\n    return t + k(a, 1)\n"
    with shared_disassembly():
        first = verify(original, good, temporaries=True)
        moved = verify(original, "# a note\n\n" + good.replace("t + ", "t + \\\n"),
                       temporaries=True)
        assert first and moved and first.how == moved.how == "dataflow"
        assert len(runs) == 1
        assert moved.compiled.co_firstlineno == 3   # the code of the text it was given
        # one constant of another type is another shape: checked, and refused
        assert not verify(original, good.replace("1)", "True)"), temporaries=True)
        assert not verify(original, good.replace("h(a)", "k(a)"), temporaries=True)
        assert len(runs) == 3
    assert verify(original, good, temporaries=True) and len(runs) == 4   # outside: no memory
