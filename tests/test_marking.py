"""decompile() is never silently wrong: what does not verify is marked where it stands, and a
function that cannot be decompiled keeps its place, says why and still runs as the original.
Written to hold on CPython 3.8-3.15."""

import sys
import textwrap

import pytest

from dynalens import decompile
from dynalens.decompiler import render
from dynalens.decompiler.errors import DecompilationError
from dynalens.decompiler.marking import NOT_DECOMPILED, NOT_EXACT, finish
from dynalens.decompiler.render import Session

SOURCE = textwrap.dedent('''
    """Module docstring."""
    from __future__ import annotations
    import functools

    def plain(a, b=2):
        return a + b

    def closure(n):
        def inner(x, *, scale=3):
            """Inner docstring."""
            return x * n * scale
        return inner

    class Base:
        def hello(self):
            return "base"

    class Child(Base):
        @functools.lru_cache(maxsize=None)
        def hello(self):
            return "child of " + super().hello()

        @property
        def size(self):
            return 7

    def counter(limit):
        for value in range(limit):
            yield value

    square = lambda v: v * v
''')


def module_code(source=SOURCE):
    return compile(source, "<sample>", "exec")


def marker_lines(text, prefix):
    lines = text.splitlines()
    return [(number, line) for number, line in enumerate(lines) if line.lstrip().startswith(prefix)]


def test_exact_output_is_returned_unmarked():
    text = decompile(module_code())
    assert "# dynalens" not in text


def test_each_inexact_code_object_is_marked_directly_above_its_def():
    code = module_code()
    wrong = (SOURCE.replace("return a + b", "return a - b")
             .replace('"child of "', '"kid of "')
             .replace("v * v", "v + v"))
    text = finish(code, wrong, Session())
    lines = text.splitlines()
    marked = marker_lines(text, NOT_EXACT)
    assert len(marked) == 3, text
    following = [lines[number + 1].strip() for number, _ in marked]
    assert following == ["def plain(a, b=2):", "def hello(self):", "square = lambda v: v + v"]
    # the marker is indented like the line it stands above, and names the code object
    hello_marker = marked[1][1]
    assert hello_marker.startswith("    " + NOT_EXACT) and "hello" in hello_marker
    assert "in plain" in marked[0][1] and "<lambda>" in marked[2][1]
    compile(text, "<marked>", "exec")  # comments only: still the same program
    with pytest.raises(DecompilationError, match="not exact"):
        finish(code, wrong, Session(), strict=True)


def test_output_that_does_not_compile_is_marked_at_the_error():
    code = module_code()
    text = finish(code, SOURCE.replace("return a + b", "return a +"), Session())
    marked = marker_lines(text, NOT_EXACT)
    assert len(marked) == 1 and "does not compile" in marked[0][1]


@pytest.fixture
def broken(monkeypatch):
    """Make the core fail on the code objects named in the returned set."""
    names = set()
    original = render.decompile_body

    def decompile_body(code, kind=None, session=None):
        if code.co_name in names:
            raise DecompilationError("cannot do this one", code=code, offset=0, opname="NOP")
        return original(code, kind, session)

    monkeypatch.setattr(render, "decompile_body", decompile_body)
    return names


def run(text):
    namespace = {"__name__": "decompiled"}
    exec(compile(text, "<decompiled>", "exec"), namespace)
    return namespace


def test_a_function_that_cannot_be_decompiled_keeps_its_place_and_runs(broken):
    broken.update(["plain", "inner", "hello", "counter"])
    text = decompile(module_code())
    failed = marker_lines(text, NOT_DECOMPILED)
    assert len(failed) == 5, text  # plain, inner, Base.hello, Child.hello, counter
    assert all("cannot do this one" in line for _, line in failed)
    lines = text.splitlines()
    # signature kept, decorators kept and applied after the original code is back
    assert "def plain(a, b=2):" in [line.strip() for line in lines]
    assert any(line.strip() == "def inner(x, *, scale=3):" for line in lines)
    assert "@functools.lru_cache(maxsize=None)" in [line.strip() for line in lines]
    # what is not broken is not touched, and the module docstring stays first
    assert lines[0].startswith('"""Module docstring') or lines[0].startswith("'Module")
    assert "def size(self):" in [line.strip() for line in lines]
    namespace = run(text)
    assert namespace["__doc__"] == "Module docstring."
    assert namespace["plain"](1) == 3
    inner = namespace["closure"](2)
    assert inner(5) == 30 and inner.__doc__ == "Inner docstring."
    assert namespace["Child"]().hello() == "child of base"
    assert list(namespace["counter"](3)) == [0, 1, 2]
    assert namespace["square"](4) == 16
    with pytest.raises(DecompilationError, match="cannot do this one"):
        decompile(module_code(), strict=True)


def test_a_class_body_that_cannot_be_decompiled_runs_as_it_was(broken):
    broken.add("Child")
    text = decompile(module_code())
    assert len(marker_lines(text, NOT_DECOMPILED)) == 1
    namespace = run(text)
    child = namespace["Child"]()
    assert child.hello() == "child of base" and child.size == 7
    assert namespace["Child"].__qualname__ == "Child"


def test_a_method_of_a_decompiled_class_that_cannot_be_decompiled(broken):
    namespace = run(SOURCE)
    broken.add("hello")
    text = decompile(namespace["Base"])
    assert len(marker_lines(text, NOT_DECOMPILED)) == 1
    assert run(text)["Base"]().hello() == "base"
    with pytest.raises(DecompilationError, match="cannot do this one"):
        decompile(namespace["Base"], strict=True)


def test_output_that_cannot_be_rendered_falls_back_for_the_function_at_fault(monkeypatch):
    # The walker leaving a non-node in a body is caught when the text is rendered; the second
    # attempt pins it on one function instead of failing the module.
    original = render.decompile_body

    def decompile_body(code, kind=None, session=None):
        body = original(code, kind, session)
        if code.co_name == "plain":
            body[-1].value = object()
        return body

    monkeypatch.setattr(render, "decompile_body", decompile_body)
    text = decompile(module_code())
    failed = marker_lines(text, NOT_DECOMPILED)
    assert len(failed) == 1 and "plain" in failed[0][1]
    assert run(text)["plain"](1) == 3


def test_stub_body_names_its_free_variables_so_the_closure_matches(broken):
    broken.add("inner")
    source = textwrap.dedent('''
        def outer(a, b):
            def inner():
                nonlocal b
                b += 1
                return a + b
            return inner
    ''')
    namespace = run(decompile(module_code(source)))
    function = namespace["outer"](1, 2)
    assert function() == 4 and function() == 5


SWAP = textwrap.dedent('''
    def reverse(self, n):
        for i in range(n // 2):
            self[i], self[n - i - 1] = self[n - i - 1], self[i]
''')
SWAP_WITH_TEMPORARIES = textwrap.dedent('''
    def reverse(self, n):
        for i in range(n // 2):
            __temp_1 = self[n - i - 1]
            __temp_2 = self[i]
            self[i] = __temp_1
            self[n - i - 1] = __temp_2
''')


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] <= (3, 13),
                    reason="the dataflow check covers CPython 3.11-3.13")
def test_temporaries_are_marked_for_human_code_and_accepted_for_generated_code():
    code = module_code(SWAP)
    session = Session()
    session.temp_count = 2
    text = finish(code, SWAP_WITH_TEMPORARIES, session)
    marked = marker_lines(text, NOT_EXACT)
    assert len(marked) == 1 and marked[0][1].endswith("(dataflow check)")
    session.generated = True  # Dynamo's code: no source compiles to it, dataflow decides
    assert finish(code, SWAP_WITH_TEMPORARIES, session) == SWAP_WITH_TEMPORARIES
    wrong = SWAP_WITH_TEMPORARIES.replace("self[i] = __temp_1", "self[i] = __temp_2")
    assert len(marker_lines(finish(code, wrong, session), NOT_EXACT)) == 1


def test_a_lambda_that_cannot_be_decompiled_is_made_from_its_original_code(broken):
    broken.add("<lambda>")
    text = decompile(module_code(SOURCE + "\nscaled = lambda v, k=3: v * k\n"))
    failed = marker_lines(text, NOT_DECOMPILED)
    assert len(failed) == 2, text
    assert all(text.splitlines()[number + 1].startswith(("square = ", "scaled = "))
               for number, _ in failed)
    namespace = run(text)
    assert namespace["square"](4) == 16 and namespace["scaled"](2) == 6
    with pytest.raises(DecompilationError, match="cannot do this one"):
        decompile(module_code(), strict=True)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 type parameters: 3.12+")
def test_a_module_with_type_parameters_decompiles_as_a_whole():
    source = textwrap.dedent('''
        class Box[T]:
            def get(self) -> T:
                return self.value

        def first[T](items: list[T]) -> T:
            return items[0]
    ''')
    text = decompile(module_code(source))
    namespace = run(text)
    assert namespace["first"]([5, 6]) == 5
    assert [p.__name__ for p in namespace["Box"].__type_params__] == ["T"]


def test_a_renamed_nested_function_is_not_marked():
    """decompile(code, name=...) of a nested function (the lens names Dynamo's transformed code
    of a local function `__transformed_code_<n>_for_<fn>`) verifies under the new name: the
    rename is no difference."""
    def outer():
        def inner(x):
            return x + 1
        return inner

    source = decompile(outer().__code__, name="renamed")
    assert "not exact" not in source, source
    namespace = {}
    exec(source, namespace)
    assert namespace["renamed"](1) == 2
