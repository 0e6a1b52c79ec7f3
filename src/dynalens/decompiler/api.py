"""The public front door of the decompiler: ``decompile(obj)`` and ``Decompiler``.

Users hand us whatever they have at hand -- a function, a method, a class, a module, a ``.pyc``
on disk -- so this module's job is to find the code object behind it (or say clearly why there
is none) and to guarantee the error contract: only ``DecompilationError`` (bytecode we cannot
handle, including a ``.pyc`` of another Python), ``TypeError`` (an object we do not accept) and
``OSError`` (a file we cannot read) ever leave it. Unexpected exceptions from the core are
wrapped in ``DecompilationError`` with the original chained, because the lens calls this from
inside a user's program and must be able to catch one type and carry on.

The names ``Decompiler``, ``decompile`` and ``overwite_fn_name`` (sic) follow depyf so that code
and habits written for it keep working. Nothing here imports torch.
"""

import importlib.util
import marshal
import os
import sys
import types

from .._version_guard import PycVersionError, check_running_python, other_version_advice
from .._version_guard import python_version_for_magic as _version_for_header
from .errors import DecompilationError
from .signature import is_literal
from .unparse_compat import to_source

__all__ = ["decompile", "Decompiler", "PycVersionError", "load_pyc", "python_version_for_magic"]

_ACCEPTED = ("a function, method, lambda, generator/coroutine function or object, "
             "staticmethod/classmethod, code object, class, module, or the path (str or "
             "os.PathLike) of a .pyc or .py file")
_OPTIONS = ("indent", "temp_prefix", "name", "strict", "generated")




def decompile(obj, **options):
    """Source text for ``obj``; see :class:`Decompiler` for ``indent``, ``temp_prefix``, ``name``
    and ``strict``.

    The text is verified before it is returned: a code object in it that does not recompile
    exactly has a ``# dynalens: not exact: <first difference>`` line above its ``def`` (above
    the statement holding a lambda or comprehension), and a function that cannot be decompiled
    keeps its place and signature under ``# dynalens: could not decompile: <why>`` and gets
    its original code object back when the output runs. With ``strict=True`` either raises
    DecompilationError instead.

    Accepted: functions (plain, lambda, generator, coroutine, async generator), bound methods,
    staticmethod/classmethod objects, generator/coroutine objects, code objects, classes (an
    approximation: see :meth:`Decompiler.decompile`), modules (their ``.pyc`` when it is fresh,
    else their compiled source) and paths of ``.pyc`` or ``.py`` files.
    """
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError("decompile() got unexpected option(s) %s; accepted options: %s"
                        % (", ".join(unknown), ", ".join(_OPTIONS)))
    return Decompiler(obj, **options).decompile()


class Decompiler(object):
    """Decompile one object with fixed options.

    ``indent`` is the indentation unit (a string, or a number of spaces as in depyf);
    ``temp_prefix`` names the temporaries used where bytecode has no plain statement form;
    ``name`` renames the decompiled function (useful for code objects Dynamo generated);
    ``strict=True`` raises DecompilationError for output that would otherwise be marked as not
    exact or hold a function that could not be decompiled (see :func:`decompile`);
    ``generated=True`` says no source compiles to the code (Dynamo's transformed code): it is
    then verified by the dataflow check (same operations, same order) instead of bytecode.
    """

    def __init__(self, code_or_obj, *, indent="    ", temp_prefix="__temp_", name=None,
                 strict=False, generated=False):
        check_running_python()  # outside 3.8-3.15 the opcode tables would misread bytecode
        self.indent = _indent_text(indent)
        self.temp_prefix = _check_str("temp_prefix", temp_prefix)
        self.name = None if name is None else _check_str("name", name)
        self.strict = bool(strict)
        self.generated = bool(generated)
        self.kind, self.target = _resolve(code_or_obj)
        # A function object also knows its default values, which its code object does not.
        self.function = _function_of(code_or_obj)
        # depyf exposes the code object as ``.code``; a class has none.
        self.code = self.target if self.kind == "code" else None

    def decompile(self, indentation=None, temp_prefix=None, overwite_fn_name=None,
                  overwrite_fn_name=None, strict=None):
        """Source text. Arguments override the constructor's options for this call only.

        ``overwite_fn_name`` keeps depyf's spelling; ``overwrite_fn_name`` is the same option
        spelled correctly. For a class, every function found in the class ``__dict__`` is
        decompiled on its own and placed under a ``class Name(bases):`` header, with simple
        class attributes written back from their values: a class object keeps no code for its
        body, so this is an approximation of the original class statement, not a round trip.
        """
        if (overwite_fn_name is not None and overwrite_fn_name is not None
                and overwite_fn_name != overwrite_fn_name):
            raise TypeError("overwite_fn_name and overwrite_fn_name disagree: %r vs %r"
                            % (overwite_fn_name, overwrite_fn_name))
        indent = self.indent if indentation is None else _indent_text(indentation)
        prefix = self.temp_prefix if temp_prefix is None else _check_str("temp_prefix",
                                                                         temp_prefix)
        name = overwite_fn_name if overwite_fn_name is not None else overwrite_fn_name
        name = self.name if name is None else _check_str("overwite_fn_name", name)
        strict = self.strict if strict is None else bool(strict)
        if self.kind == "class":
            return _render_class(self.target, indent, prefix, strict)
        target, notes, generated = self.target, [], self.generated
        if self.kind == "code":
            target, notes, name, dynamo = _generated_view(target, name)
            generated = generated or dynamo
        text = _decompile_code(target, indent, prefix, name, strict, self.function, generated)
        if notes:
            text = "".join("# %s\n" % line for line in [
                "Dynamo-generated code, decompiled as the dynalens lens dumps it. Left out "
                "(nothing computed differently):"] + ["  - " + n for n in notes]) + text
        return text

    def __repr__(self):
        what = self.target.__qualname__ if self.kind == "class" else getattr(
            self.target, "co_qualname", self.target.co_name)
        return "Decompiler(%s %s)" % (self.kind, what)


def _generated_view(code, name):
    """(code, notes, name, generated): code Dynamo generated (resume functions, transformed
    code) goes the way the lens decompiles it (dynalens.lens.generated.generated_view) and is
    verified as generated code; any other code is untouched. Only when
    torch is already loaded: such code exists nowhere else, and the decompiler never imports
    torch (or anything outside the standard library) itself."""
    if "torch" not in sys.modules:
        return code, [], name, False
    try:
        from ..lens.generated import generated_view, is_generated

        if not is_generated(code):
            return code, [], name, False
        return generated_view(code, name) + (True,)
    except Exception:   # the lens's view is an improvement, never a new way to fail
        return code, [], name, False


# ---------------------------------------------------------------------------------------------
# Options


def _indent_text(indent):
    if isinstance(indent, bool):
        raise TypeError("indent must be a string of spaces/tabs or a number of spaces, got bool")
    # Bad values are TypeErrors too: decompile's contract lets only DecompilationError,
    # TypeError and OSError out, so callers need to catch no more than those.
    if isinstance(indent, int):
        if indent < 1:
            raise TypeError("indent must be at least 1 space, got %d" % indent)
        return " " * indent
    if isinstance(indent, str):
        if not indent or indent.strip(" \t"):
            raise TypeError("indent must be non-empty spaces or tabs, got %r" % indent)
        return indent
    raise TypeError("indent must be a string or an int, got %s" % type(indent).__name__)


def _check_str(option, value):
    if not isinstance(value, str):
        raise TypeError("%s must be a string, got %s" % (option, type(value).__name__))
    return value


# ---------------------------------------------------------------------------------------------
# From an object to a code object


def _resolve(obj):
    """('code', code object) or ('class', class) for anything accepted; TypeError otherwise."""
    if isinstance(obj, types.CodeType):
        return "code", obj
    if isinstance(obj, (staticmethod, classmethod)):
        return _resolve(obj.__func__)
    if isinstance(obj, types.MethodType):
        return _resolve(obj.__func__)
    if isinstance(obj, types.FunctionType):
        return "code", obj.__code__
    if isinstance(obj, type):
        return "class", obj
    for attribute in ("gi_code", "cr_code", "ag_code"):  # generator / coroutine objects
        code = getattr(obj, attribute, None)
        if isinstance(code, types.CodeType):
            return "code", code
    if isinstance(obj, types.ModuleType):
        return "code", _module_code(obj)
    if isinstance(obj, (str, os.PathLike)):
        return "code", _file_code(os.fspath(obj))
    import functools
    if isinstance(obj, functools.partial):
        raise TypeError("cannot decompile a functools.partial; decompile its .func instead "
                        "(accepted: %s)" % _ACCEPTED)
    if isinstance(obj, (types.BuiltinFunctionType, types.MethodWrapperType,
                        types.WrapperDescriptorType, types.MethodDescriptorType)):
        raise TypeError("cannot decompile %r: it is implemented in C and has no bytecode "
                        "(accepted: %s)" % (obj, _ACCEPTED))
    raise TypeError("cannot decompile an object of type %s; accepted: %s"
                    % (type(obj).__name__, _ACCEPTED))


def _function_of(obj):
    while isinstance(obj, (staticmethod, classmethod, types.MethodType)):
        obj = obj.__func__
    return obj if isinstance(obj, types.FunctionType) else None


def _module_code(module):
    """The module's code: its cached .pyc when that matches the source file, else the source
    compiled here (the .pyc is what actually ran, but a stale one would mislead)."""
    path = getattr(module, "__file__", None)
    if not path and getattr(module, "__path__", None) is not None:
        raise TypeError("cannot decompile module %r: it is a namespace package, which has no "
                        "code of its own; decompile one of its modules" % module.__name__)
    if not path:
        raise TypeError("cannot decompile module %r: it is built into the interpreter and has "
                        "no bytecode" % module.__name__)
    if path.endswith(".pyc"):
        return load_pyc(path)
    if not path.endswith(".py"):
        raise TypeError("cannot decompile module %r: %s is not Python source or bytecode "
                        "(an extension module?)" % (module.__name__, path))
    try:
        cached = importlib.util.cache_from_source(path)
    except (NotImplementedError, ValueError):  # sys.implementation.cache_tag is None
        cached = None
    if cached and os.path.exists(cached) and _pyc_matches_source(cached, path):
        return load_pyc(cached)
    return _compile_file(path)


def _pyc_matches_source(pyc_path, source_path):
    try:
        with open(pyc_path, "rb") as handle:
            header = handle.read(16)
        stat = os.stat(source_path)
    except OSError:
        return False
    if len(header) < 16 or header[:4] != importlib.util.MAGIC_NUMBER:
        return False
    flags = int.from_bytes(header[4:8], "little")
    if flags & 1:  # hash-based pyc (PEP 552): compare the source hash
        try:
            with open(source_path, "rb") as handle:
                return header[8:16] == importlib.util.source_hash(handle.read())
        except OSError:
            return False
    mtime = int.from_bytes(header[8:12], "little")
    size = int.from_bytes(header[12:16], "little")
    return mtime == (int(stat.st_mtime) & 0xFFFFFFFF) and size == (stat.st_size & 0xFFFFFFFF)


def _file_code(path):
    if path.endswith(".py") or path.endswith(".pyw"):
        return _compile_file(path)
    if path.endswith(".pyc") or os.path.isfile(path) and _looks_like_pyc(path):
        return load_pyc(path)
    raise TypeError("cannot decompile %r: a path must name a .pyc or .py file%s (accepted: %s)"
                    % (path, "" if os.path.exists(path) else ", and there is no such file",
                       _ACCEPTED))


def _looks_like_pyc(path):
    with open(path, "rb") as handle:
        return handle.read(4)[2:4] == b"\r\n"


def _compile_file(path):
    with open(path, "rb") as handle:
        source = handle.read()
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise DecompilationError("%s does not compile on Python %d.%d, so there is no bytecode "
                                 "to decompile: %s" % (path, sys.version_info[0],
                                                       sys.version_info[1], exc)) from exc


# ---------------------------------------------------------------------------------------------
# .pyc files


def python_version_for_magic(number):
    """'3.12' for a magic number CPython 3.12 writes; None for one we do not know.

    The table lives in dynalens._version_guard (one table for the whole package)."""
    if number == 62211:
        return "2.7"
    if not 0 <= number < 0x10000:
        return None
    return _version_for_header(number.to_bytes(2, "little") + b"\r\n")


def load_pyc(path):
    """The module code object in a .pyc written by this Python; clear errors otherwise."""
    with open(path, "rb") as handle:
        data = handle.read()
    here = "%d.%d" % sys.version_info[:2]
    here_magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "little")
    if len(data) < 4 or data[2:4] != b"\r\n":
        raise DecompilationError("%s is not a .pyc file: it does not start with a magic number"
                                 % path)
    magic = int.from_bytes(data[:2], "little")
    if data[:4] != importlib.util.MAGIC_NUMBER:
        version = python_version_for_magic(magic)
        if version is None:
            written_by = "an unknown Python (unknown magic number %d)" % magic
        else:
            written_by = "Python %s (magic number %d)" % (version, magic)
        raise PycVersionError("%s was written by %s, but this is Python %s (magic number %d): %s"
                              % (path, written_by, here, here_magic,
                                 other_version_advice(version)))
    if len(data) < 16:
        raise DecompilationError("%s is truncated: a .pyc header is 16 bytes, the file has %d"
                                 % (path, len(data)))
    try:
        code = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError) as exc:
        raise DecompilationError("%s is truncated or corrupt: its code object cannot be read "
                                 "(%s)" % (path, exc)) from exc
    if not isinstance(code, types.CodeType):
        raise DecompilationError("%s is corrupt: it holds a %s, not a code object"
                                 % (path, type(code).__name__))
    return code


# ---------------------------------------------------------------------------------------------
# Calling the core


def _decompile_code(code, indent, temp_prefix, name, strict=False, function=None,
                    generated=False):
    try:
        from .render import decompile_code
    except ImportError as exc:
        raise DecompilationError("the decompiler core (dynalens.decompiler.render) cannot be "
                                 "imported: %s" % exc) from exc
    try:
        options = {"generated": True} if generated else {}
        text = decompile_code(code, indent=indent, temp_prefix=temp_prefix, name=name,
                              strict=strict, function=function, **options)
    except DecompilationError:
        raise
    except Exception as exc:  # a bug in the core: keep the contract, keep the cause
        raise DecompilationError("internal error while decompiling: %s: %s"
                                 % (type(exc).__name__, exc), code=code) from exc
    if not isinstance(text, str):
        raise DecompilationError("internal error: the core returned %s instead of source text"
                                 % type(text).__name__, code=code)
    return text


# ---------------------------------------------------------------------------------------------
# Classes (approximate: a class keeps no code object for its body)

_SKIPPED_ATTRIBUTES = frozenset(["__module__", "__qualname__", "__dict__", "__weakref__",
                                 "__doc__", "__firstlineno__", "__static_attributes__",
                                 "__annotations__", "__annotate__", "__classdictcell__",
                                 "__orig_bases__", "__parameters__", "__type_params__"])


def _render_class(cls, indent, temp_prefix, strict=False):
    stubs = []
    lines = _class_lines(cls, indent, temp_prefix, strict, stubs)
    if stubs:  # a method that could not be decompiled gets its code back (fallback.py)
        from .fallback import helper_lines
        lines = [(line, False) for line in helper_lines(indent) + ["", ""]] + lines
    return "\n".join(line for line, _ in lines) + "\n"


# Lines are (text, inside_string) pairs: a line that continues a multi-line string literal
# (a docstring, say) must not be indented with the rest, or the string itself would change.


def _block_lines(text):
    """(line, inside_string) for each line of ``text``, found with the tokenizer."""
    import io
    import tokenize
    lines = text.rstrip("\n").split("\n")
    inside = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            start_row, end_row = token.start[0], token.end[0]
            if end_row > start_row and token.type not in (tokenize.NEWLINE, tokenize.NL):
                inside.update(range(start_row + 1, end_row + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return [(line, number + 1 in inside) for number, line in enumerate(lines)]


def _class_lines(cls, indent, temp_prefix, strict, stubs):
    header = [_type_name(base, cls) for base in cls.__bases__ if base is not object]
    metaclass = type(cls)
    if metaclass is not type and not any(type(base) is metaclass for base in cls.__bases__):
        header.append("metaclass=%s" % _type_name(metaclass, cls))
    lines = [("class %s%s:" % (cls.__name__, "(%s)" % ", ".join(header) if header else ""),
              False)]
    body = []
    doc = cls.__dict__.get("__doc__")
    if isinstance(doc, str):
        body.extend(_block_lines(_docstring_source(doc)))
    for attribute, value in list(cls.__dict__.items()):
        if attribute in _SKIPPED_ATTRIBUTES:
            continue
        body.extend(_member_lines(cls, attribute, value, indent, temp_prefix, strict, stubs))
    # One blank line between definitions, none at the edges of the body.
    tidy = []
    for line, inside in body:
        if line or inside or (tidy and (tidy[-1][0] or tidy[-1][1])):
            tidy.append((line, inside))
    while tidy and not tidy[-1][0] and not tidy[-1][1]:
        tidy.pop()
    body = tidy or [("pass", False)]
    for line, inside in body:
        lines.append((indent + line if line and not inside else line, inside))
    return lines


def _docstring_source(doc):
    """The docstring as ast.unparse writes one (triple-quoted where it can be)."""
    import ast
    module = ast.Module(body=[ast.Expr(value=ast.Constant(value=doc))], type_ignores=[])
    return to_source(module)


_BLANK = [("", False)]


def _member_lines(cls, attribute, value, indent, temp_prefix, strict, stubs):
    def function_lines(function, decorator=None, name=None):
        code = function.__code__
        try:
            text = _decompile_code(code, "    ", temp_prefix, name, strict, function)
            text = _definition_only(text, name or code.co_name, code, indent)
        except DecompilationError as exc:
            if strict:
                raise
            text = _method_stub(function, name or code.co_name, exc, indent)
            if text is None:
                raise
            stubs.append(code)
        out = _BLANK + ([("@" + decorator, False)] if decorator else [])
        return out + _block_lines(text) + _BLANK

    if isinstance(value, types.FunctionType):
        return function_lines(value, name=attribute if value.__name__ != attribute else None)
    if isinstance(value, staticmethod) and isinstance(value.__func__, types.FunctionType):
        return function_lines(value.__func__, "staticmethod")
    if isinstance(value, classmethod) and isinstance(value.__func__, types.FunctionType):
        return function_lines(value.__func__, "classmethod")
    if isinstance(value, property):
        out = []
        for accessor, decorator in (("fget", "property"), ("fset", attribute + ".setter"),
                                    ("fdel", attribute + ".deleter")):
            function = getattr(value, accessor)
            if isinstance(function, types.FunctionType):
                out.extend(function_lines(function, decorator, name=attribute))
        return out
    if isinstance(value, type) and value.__qualname__.startswith(cls.__qualname__ + "."):
        return _BLANK + _class_lines(value, indent, temp_prefix, strict, stubs) + _BLANK
    if is_literal(value):
        return _block_lines("%s = %r" % (attribute, value))
    return [("# %s = <%s object: not decompiled>" % (attribute, type(value).__name__), False)]


def _method_stub(function, name, exc, indent):
    """A method that could not be decompiled: its signature, and the decorator that gives it
    its original code object back (fallback.py); None when its closure cannot be rebuilt."""
    import ast
    from . import fallback
    from .definitions import CO_ASYNC_GENERATOR, CO_COROUTINE, arguments_of
    from .marking import NOT_DECOMPILED
    from .signature import apply_signature
    code = function.__code__
    if [v for v in code.co_freevars if v != "__class__"]:
        return None
    node_type = (ast.AsyncFunctionDef if code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR)
                 else ast.FunctionDef)
    node = node_type(name=name, args=arguments_of(code), decorator_list=[], returns=None,
                     type_comment=None, body=fallback.function_stub(code, exc, None))
    if hasattr(ast, "TypeAlias"):
        node.type_params = []
    notes = apply_signature([node], function, name)
    from .emit import unparse
    text = _reindent(unparse([node]), indent)
    from .marking import NOT_EXACT
    head = [NOT_DECOMPILED + fallback.failure_text(exc, code)] + [NOT_EXACT + n for n in notes]
    return "\n".join(head + [fallback.decorator_line(code), text])


def _definition_only(text, name, code, indent):
    """The ``def name`` statement alone from the core's output for one function, with the
    marker comments directly above it.

    Decompiled on its own, a method with class cells comes back inside its class (so that it
    recompiles to the same code object); inside a class rendering only the definition itself
    belongs. Cut as lines, not re-rendered, so the comments stay."""
    import ast
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise DecompilationError("internal error: the core's output does not parse: %s" % exc,
                                 code=code) from exc
    node = None
    queue = list(tree.body)
    while queue:
        current = queue.pop(0)
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                current.name == name:
            node = current
            break
        queue.extend(getattr(current, "body", []))
    if node is None or (len(tree.body) == 1 and node is tree.body[0]):
        return _reindent(text, indent)
    lines = text.split("\n")
    first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
    while first > 0 and lines[first - 1].lstrip().startswith("# dynalens:"):
        first -= 1
    chunk = lines[first:node.end_lineno]
    depth = node.col_offset
    inside = set(number for number, flag in enumerate(_block_lines("\n".join(chunk)))
                 if flag[1])
    chunk = [line if number in inside else line[depth:] for number, line in enumerate(chunk)]
    return _reindent("\n".join(chunk) + "\n", indent)


def _reindent(text, indent):
    if indent == "    ":
        return text
    from .emit import reindent
    return reindent(text, indent)


def _type_name(cls, user):
    """How ``user``'s class statement would name ``cls``: bare within its own module."""
    module = getattr(cls, "__module__", None)
    if module in ("builtins", None, "__main__", getattr(user, "__module__", None)):
        return cls.__qualname__
    return "%s.%s" % (module, cls.__qualname__)
