"""decompile() / Decompiler: which code object each kind of input leads to, the error contract
(TypeError naming what is accepted, DecompilationError for other Pythons' .pyc files and
corrupt ones, nothing else escaping), and -- with the real core -- that output verifies."""

import functools
import importlib
import importlib.util
import os
import pathlib
import py_compile
import sys
import textwrap
import types

import pytest

import dynalens
from dynalens import DecompilationError
from dynalens.decompiler import api
from dynalens.decompiler.api import Decompiler, PycVersionError, decompile

HERE_VERSION = "%d.%d" % sys.version_info[:2]


@pytest.fixture
def core(monkeypatch):
    """A stand-in for dynalens.decompiler.render that records what it is asked to decompile,
    so these tests check the routing in api.py whatever state the real core is in."""
    fake = types.ModuleType("dynalens.decompiler.render")
    fake.calls = []
    fake.fail_with = None

    def decompile_code(code, indent="    ", temp_prefix="__temp_", name=None, strict=False,
                       function=None):
        fake.calls.append({"code": code, "indent": indent, "temp_prefix": temp_prefix,
                           "name": name, "strict": strict, "function": function})
        if fake.fail_with is not None:
            raise fake.fail_with
        if code.co_name == "<module>":
            return "# module %s\n" % code.co_filename
        count, kwonly = code.co_argcount, code.co_kwonlyargcount
        params = list(code.co_varnames[:count])
        if kwonly:
            params += ["*"] + list(code.co_varnames[count:count + kwonly])
        return "def %s(%s):\n%sreturn %r\n" % (name or code.co_name, ", ".join(params),
                                                 indent, code.co_name)

    fake.decompile_code = decompile_code
    monkeypatch.setitem(sys.modules, "dynalens.decompiler.render", fake)
    return fake


def sample_function(a, b=2):
    return a + b


async def sample_coroutine(x):
    return await x


def sample_generator(n):
    yield from range(n)


async def sample_async_generator(n):
    yield n


class Base(object):
    pass


class Sample(Base):
    """Sample docstring."""
    limit = 10
    names = ("a", "b")

    def method(self, x):
        return x

    @staticmethod
    def static(x):
        return x

    @classmethod
    def create(cls):
        return cls()

    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        pass

    class Inner(object):
        def inner_method(self):
            return 2


# --- routing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("obj, code", [
    (sample_function, sample_function.__code__),
    (sample_coroutine, sample_coroutine.__code__),
    (sample_generator, sample_generator.__code__),
    (sample_async_generator, sample_async_generator.__code__),
    (Sample().method, Sample.method.__code__),
    (Sample.__dict__["static"], Sample.static.__code__),
    (Sample.__dict__["create"], Sample.create.__func__.__code__),
    (Sample.create, Sample.create.__func__.__code__),
    (sample_function.__code__, sample_function.__code__),
])
def test_functions_methods_and_code_objects_reach_their_code(core, obj, code):
    text = decompile(obj)
    assert core.calls[-1]["code"] is code
    # the function object travels with its code (defaults, annotations: see below)
    function = getattr(obj, "__func__", obj)
    assert core.calls[-1]["function"] is (function if function is not code else None)
    assert text == core.decompile_code(code)


def test_lambda_and_generator_objects(core):
    square = lambda v: v * v  # noqa: E731
    decompile(square)
    assert core.calls[-1]["code"] is square.__code__
    generator = sample_generator(3)
    decompile(generator)
    assert core.calls[-1]["code"] is sample_generator.__code__


def test_options_reach_the_core(core):
    decompile(sample_function, indent=2, temp_prefix="tmp_", name="renamed")
    assert core.calls[-1]["indent"] == "  "
    assert core.calls[-1]["temp_prefix"] == "tmp_"
    assert core.calls[-1]["name"] == "renamed"
    decompiler = Decompiler(sample_function, indent="\t")
    decompiler.decompile(indentation=3, overwite_fn_name="old_spelling")
    assert core.calls[-1]["indent"] == "   " and core.calls[-1]["name"] == "old_spelling"
    decompiler.decompile(overwrite_fn_name="new_spelling", temp_prefix="t_")
    assert core.calls[-1]["name"] == "new_spelling" and core.calls[-1]["temp_prefix"] == "t_"
    assert core.calls[-1]["indent"] == "\t"  # the constructor's option, not the last call's
    assert decompiler.code is sample_function.__code__
    with pytest.raises(TypeError, match="disagree"):
        decompiler.decompile(overwite_fn_name="a", overwrite_fn_name="b")


SENTINEL = object()


def with_defaults(a, b=SENTINEL, c=(1, "two", None), *, d=len, e=3.5, f):
    return a


def test_function_defaults_are_written_into_the_def():
    assert decompile(sample_function).startswith("def sample_function(a, b=2):")
    text = decompile(with_defaults)
    assert text.startswith(
        "def with_defaults(a, b=SENTINEL, c=(1, 'two', None), *, d=len, e=3.5, f):")
    # A code object has no defaults to show.
    assert decompile(with_defaults.__code__).startswith("def with_defaults(a, b, c, *, d, e, f):")
    hidden = object()

    def local(x=hidden, *, y=1):
        return x

    # A default with no source form keeps its place, and the output says so.
    lines = decompile(local).splitlines()
    assert lines[0].startswith("# dynalens: not exact: default of x is <object object at")
    assert lines[1] == "def local(x=..., *, y=1):"
    with pytest.raises(DecompilationError, match="default of x"):
        decompile(local, strict=True)


def test_defaults_and_annotations_come_from_the_function_object():
    import json.decoder
    text = decompile(json.decoder.JSONDecoder.decode)
    assert text.startswith("def decode(self, s, _w=WHITESPACE.match):")
    namespace = dict(vars(json.decoder))
    exec(text, namespace)
    assert namespace["decode"].__defaults__ == json.decoder.JSONDecoder.decode.__defaults__
    assert decompile(lambda x, y=2: x + y).strip() == "lambda x, y=2: x + y"

    def annotated(a: int, *rest: str, key: "Sample" = None, **more: list) -> dict:
        return {}

    assert decompile(annotated).startswith(
        "def annotated(a: int, *rest: str, key: 'Sample'=None, **more: list) -> dict:")


def test_nested_function_without_free_variables_is_a_top_level_def():
    def outer():
        def inner(a, b=3):
            return a * b
        return inner

    namespace = {}
    exec(decompile(outer()), namespace)  # depyf's usage
    assert namespace["inner"](2) == 6


def test_module_uses_fresh_pyc_and_compiles_stale_source(core, tmp_path, monkeypatch):
    source = tmp_path / "dl_sample_mod.py"
    source.write_text("def f():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "dl_sample_mod", raising=False)
    module = importlib.import_module("dl_sample_mod")
    py_compile.compile(str(source), doraise=True)  # make sure the cache exists
    loaded = []
    real_load = api.load_pyc
    monkeypatch.setattr(api, "load_pyc", lambda path: loaded.append(path) or real_load(path))

    decompile(module)
    assert loaded == [importlib.util.cache_from_source(str(source))]
    assert core.calls[-1]["code"].co_name == "<module>"
    assert core.calls[-1]["code"].co_filename == str(source)

    source.write_text("def f():\n    return 12345\n")  # the pyc no longer matches
    del loaded[:]
    decompile(module)
    assert loaded == []
    assert 12345 in core.calls[-1]["code"].co_consts[0].co_consts


def test_pyc_and_py_paths(core, tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("X = 41\n")
    pyc = tmp_path / "mod.pyc"
    py_compile.compile(str(source), cfile=str(pyc), doraise=True)
    for path in (str(pyc), pyc, str(source), source):
        decompile(path)
        code = core.calls[-1]["code"]
        assert code.co_name == "<module>" and 41 in code.co_consts


def test_class_is_rendered_from_its_methods(core):
    text = decompile(Sample)
    lines = text.splitlines()
    assert lines[0] == "class Sample(Base):"
    assert lines[1] in ('    """Sample docstring."""', "    'Sample docstring.'")  # 3.8: repr
    assert "    limit = 10" in lines and "    names = ('a', 'b')" in lines
    assert "    @staticmethod" in lines and "    @classmethod" in lines
    assert "    @property" in lines and "    @size.setter" in lines
    assert "    class Inner:" in lines and "        def inner_method(self):" in lines
    decompiled = [call["code"] for call in core.calls]
    assert Sample.method.__code__ in decompiled
    assert Sample.__dict__["size"].fset.__code__ in decompiled
    compile(text, "<class>", "exec")  # the approximation is still valid Python


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [42, None, functools.partial(sample_function, 1), len,
                                 [].append, object(), b"bytes"])
def test_unaccepted_objects_are_type_errors_listing_what_is_accepted(bad):
    with pytest.raises(TypeError) as info:
        decompile(bad)
    assert "accepted" in str(info.value) and "code object" in str(info.value)


def test_partial_and_builtins_get_specific_advice():
    with pytest.raises(TypeError, match=r"\.func"):
        decompile(functools.partial(sample_function, 1))
    with pytest.raises(TypeError, match="no bytecode"):
        decompile(len)
    with pytest.raises(TypeError, match="no bytecode"):
        decompile(sys)  # built into the interpreter
    namespace_package = types.ModuleType("nspkg")
    namespace_package.__path__ = []
    with pytest.raises(TypeError, match="namespace package"):
        decompile(namespace_package)


def test_bad_options():
    with pytest.raises(TypeError, match="unexpected option"):
        decompile(sample_function, indentation=4)
    with pytest.raises(TypeError, match="temp_prefix"):
        Decompiler(sample_function, temp_prefix=3)
    with pytest.raises(TypeError, match="indent"):
        Decompiler(sample_function, indent="xx")
    with pytest.raises(TypeError, match="indent"):
        decompile(sample_function, indent=0)
    with pytest.raises(TypeError):
        Decompiler(sample_function, "    ")  # options are keyword-only


def test_paths_that_are_not_bytecode(tmp_path):
    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello")
    with pytest.raises(TypeError, match=r"\.pyc or \.py"):
        decompile(str(text_file))
    with pytest.raises(TypeError, match="no such file"):
        decompile(str(tmp_path / "missing"))
    with pytest.raises(OSError):
        decompile(str(tmp_path / "missing.pyc"))
    fake_pyc = tmp_path / "fake.pyc"
    fake_pyc.write_text("this is not bytecode")
    with pytest.raises(DecompilationError, match="not a .pyc"):
        decompile(fake_pyc)
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n")
    with pytest.raises(DecompilationError, match="does not compile"):
        decompile(broken)


def _real_pyc(tmp_path):
    source = tmp_path / "real.py"
    source.write_text("def f(x):\n    return [x] * 3\n")
    pyc = tmp_path / "real.pyc"
    py_compile.compile(str(source), cfile=str(pyc), doraise=True)
    return pyc


def test_pyc_of_another_version_names_both_versions(tmp_path):
    pyc = _real_pyc(tmp_path)
    other = 3413 if sys.version_info[:2] != (3, 8) else 3495  # 3.8's, or 3.11's
    other_version = "3.8" if other == 3413 else "3.11"
    data = pyc.read_bytes()
    pyc.write_bytes(other.to_bytes(2, "little") + data[2:])
    with pytest.raises(PycVersionError) as info:
        decompile(pyc)
    message = str(info.value)
    assert "Python %s (magic number %d)" % (other_version, other) in message
    assert "this is Python %s" % HERE_VERSION in message
    assert isinstance(info.value, DecompilationError)


@pytest.mark.parametrize("magic, version", [(62211, "2.7"), (3379, "3.6"), (3394, "3.7")])
def test_pyc_of_an_unsupported_version_says_so(tmp_path, magic, version):
    # a crafted header is enough (no 2.7/3.6 interpreter needed): dynalens never reads past it
    pyc = tmp_path / "old.pyc"
    pyc.write_bytes(magic.to_bytes(2, "little") + b"\r\n" + bytes(12) + b"c\x00")
    with pytest.raises(PycVersionError) as info:
        decompile(pyc)
    message = str(info.value)
    assert "Python %s (magic number %d)" % (version, magic) in message
    assert "not supported" in message and "3.8-3.15" in message
    assert "decompile it with Python %s" % version not in message


def test_pyc_of_a_supported_version_says_which_python_reads_it(tmp_path):
    pyc = _real_pyc(tmp_path)
    other, other_version = (3413, "3.8") if sys.version_info[:2] != (3, 8) else (3495, "3.11")
    data = pyc.read_bytes()
    pyc.write_bytes(other.to_bytes(2, "little") + data[2:])
    with pytest.raises(PycVersionError, match="decompile it with Python %s" % other_version):
        decompile(pyc)


def test_dir_lists_each_public_name_once_also_after_use():
    import dynalens

    dynalens.decompile, dynalens.verify, dynalens.Decompiler   # resolve lazy names
    names = dir(dynalens)
    assert len(names) == len(set(names))
    assert {"decompile", "verify", "prepare_debug", "explain"} <= set(names)


def test_pyc_with_unknown_magic(tmp_path):
    pyc = _real_pyc(tmp_path)
    data = pyc.read_bytes()
    pyc.write_bytes((9999).to_bytes(2, "little") + data[2:])
    with pytest.raises(PycVersionError, match="unknown magic number 9999"):
        decompile(pyc)


def test_truncated_and_corrupt_pyc(tmp_path):
    pyc = _real_pyc(tmp_path)
    data = pyc.read_bytes()
    pyc.write_bytes(data[:10])
    with pytest.raises(DecompilationError, match="truncated: a .pyc header is 16 bytes"):
        decompile(pyc)
    pyc.write_bytes(data[:len(data) // 2])
    with pytest.raises(DecompilationError, match="truncated or corrupt"):
        decompile(pyc)
    pyc.write_bytes(data[:16] + b"\xff" * 20)
    with pytest.raises(DecompilationError):
        decompile(pyc)


def test_magic_number_table():
    assert api.python_version_for_magic(3379) == "3.6"
    assert api.python_version_for_magic(3413) == "3.8"
    assert api.python_version_for_magic(3439) == "3.10"
    assert api.python_version_for_magic(3495) == "3.11"
    assert api.python_version_for_magic(3531) == "3.12"
    assert api.python_version_for_magic(3571) == "3.13"
    assert api.python_version_for_magic(3600) == "3.14"
    assert api.python_version_for_magic(3650) == "3.15"
    assert api.python_version_for_magic(62211) == "2.7"
    assert api.python_version_for_magic(1234) is None
    running = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "little")
    assert api.python_version_for_magic(running) == HERE_VERSION


def test_internal_core_errors_are_wrapped(core):
    core.fail_with = KeyError("boom")
    with pytest.raises(DecompilationError) as info:
        decompile(sample_function)
    assert isinstance(info.value.__cause__, KeyError)
    assert info.value.code is sample_function.__code__
    original = DecompilationError("cannot", code=sample_function.__code__, offset=4,
                                  opname="NOP")
    core.fail_with = original
    with pytest.raises(DecompilationError) as info:
        decompile(sample_function)
    assert info.value is original


def test_public_names_are_reexported():
    assert dynalens.decompile is decompile and dynalens.Decompiler is Decompiler


# --- with the real core ----------------------------------------------------------------------

ROUND_TRIP_SOURCE = textwrap.dedent('''
    def clamp(value, low=0, high=10):
        if value < low:
            return low
        elif value > high:
            return high
        return value

    def total(items):
        result = 0
        for item in items:
            result += item
        return result
''')


def _real_core_namespace():
    namespace = {}
    exec(compile(ROUND_TRIP_SOURCE, "<round-trip>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", ["clamp", "total"])
def test_real_core_function_output_verifies(name):
    function = _real_core_namespace()[name]
    text = decompile(function)
    assert dynalens.verify(function.__code__, text), text


def test_real_core_module_and_pyc_output_verifies(tmp_path):
    source = tmp_path / "round.py"
    source.write_text(ROUND_TRIP_SOURCE)
    pyc = tmp_path / "round.pyc"
    py_compile.compile(str(source), cfile=str(pyc), doraise=True)
    code = api.load_pyc(str(pyc))
    text = decompile(pyc)
    assert dynalens.verify(code, text), text
    assert dynalens.verify(code, decompile(str(source)))


def test_real_core_class_rendering_holds_each_method_once():
    text = decompile(Sample)
    assert text.count("class Sample") == 1
    assert "\n    def method(self, x):\n" in text
    assert "\n    class Inner:\n        def inner_method(self):\n" in text
    for function in (Sample.method, Sample.static, Sample.create.__func__,
                     Sample.Inner.inner_method):
        result = dynalens.verify(function.__code__, text)
        assert result, (function.__qualname__, result.difference, text)


class WithStrings(object):
    """First line.

    Indented continuation.
    """

    def method(self):
        """Method doc.

            deeper
        """
        return """a
  b"""

    class Nested(object):
        def inner(self):
            return '''x
y'''


def test_real_core_class_rendering_keeps_multiline_strings_intact():
    for indent in (4, 2):
        text = decompile(WithStrings, indent=indent)
        namespace = {}
        exec(compile(text, "<class>", "exec"), namespace)
        rebuilt = namespace["WithStrings"]
        assert rebuilt.__doc__ == WithStrings.__doc__
        assert rebuilt.method.__doc__ == WithStrings.method.__doc__
        assert rebuilt().method() == WithStrings().method()
        assert rebuilt.Nested().inner() == WithStrings.Nested().inner()
        for function in (WithStrings.method, WithStrings.Nested.inner):
            result = dynalens.verify(function.__code__, text)
            assert result, (function.__qualname__, result.difference, text)


BROKEN_CODE_SCRIPT = r'''
import sys, types
from dynalens import decompile, DecompilationError

def sample(a, b):
    total = 0
    for item in a:
        if item > b:
            total += item
    return total

code = sample.__code__
raw = code.co_code
# cut at the first instruction at or after the middle: a cut inside an instruction's inline
# caches makes CPython 3.13.0 itself crash when it frees the code object, dynalens or not
import dis
middle = [i.offset for i in dis.get_instructions(code) if i.offset >= len(raw) // 2][0]
changes = [
    {"co_code": raw[:middle]},                                # cut in the middle
    {"co_code": bytes([255, 0]) + raw[2:]},                   # an opcode that does not exist
    {"co_names": ()},                                         # name indices out of range
    {"co_consts": ()},                                        # constant indices out of range
    {"co_code": raw[2:] + raw[:2]},                           # rotated
]
broken = []
for change in changes:
    try:
        broken.append(code.replace(**change))
    except ValueError:  # this CPython refuses to build it at all
        pass
outcomes = []
for number, item in enumerate(broken):
    try:
        decompile(item)
        outcomes.append("ok")
    except DecompilationError:
        outcomes.append("DecompilationError")
    except Exception as exc:
        print("case %d escaped: %s: %s" % (number, type(exc).__name__, exc))
        sys.exit(1)
print(" ".join(outcomes))
'''


def test_broken_code_objects_raise_only_decompilation_error(tmp_path):
    # In a subprocess with a time limit: malformed bytecode must never hang the test run.
    import subprocess
    script = tmp_path / "broken.py"
    script.write_text(BROKEN_CODE_SCRIPT)
    env = dict(os.environ)
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 3 <= len(result.stdout.split()) <= 5


def test_unsupported_running_python_is_refused_with_both_versions(monkeypatch):
    import dynalens._version_guard as guard

    monkeypatch.setattr(guard.sys, "version_info", (3, 16, 0, "final", 0))
    with pytest.raises(RuntimeError) as info:
        decompile(test_unsupported_running_python_is_refused_with_both_versions)
    assert "3.16.0" in str(info.value) and "3.8 to 3.15" in str(info.value)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="X | Y annotations: 3.10+")
def test_union_annotations_and_wrappers():
    import functools
    namespace = {}
    exec("def f(a: int | None, b: 'list[str]' = None) -> dict | list:\n    return {}\n", namespace)
    assert decompile(namespace["f"]).startswith(
        "def f(a: int | None, b: 'list[str]'=None) -> dict | list:")

    @functools.wraps(namespace["f"])
    def wrapper(*args, **kwargs):
        return namespace["f"](*args, **kwargs)

    # the wrapper carries f's annotations, which are not about its own parameters
    text = decompile(wrapper)
    assert "    def wrapper(*args, **kwargs):" in text and "dynalens" not in text


def test_output_does_not_depend_on_string_hashing():
    """A set of strings folded into a frozenset constant (`x in {"b", "a"}`) iterates in hash
    order, which changes from process to process; the output must not, so that a dump diffed
    across runs shows only what changed."""
    import subprocess
    program = textwrap.dedent("""
        import dynalens
        def pick(x):
            return x in {"delta", "alpha", "charlie", "bravo", "echo"}
        print(dynalens.decompile(pick))
        """)
    src = str(pathlib.Path(dynalens.__file__).resolve().parents[1])
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=src)
        result = subprocess.run([sys.executable, "-c", program], env=env, check=True,
                                capture_output=True, text=True)
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert "{'alpha', 'bravo', 'charlie', 'delta', 'echo'}" in outputs.pop()
