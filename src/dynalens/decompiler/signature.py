"""Default values and annotations of a function decompiled on its own, from the function object.

Defaults, keyword-only defaults and annotations are evaluated where a function is defined, so
its code object does not hold them; decompiled alone, a ``def`` would come back without them
(``JSONDecoder.decode`` as ``def decode(self, s, _w):``). The function object holds the values;
this module writes each one back as an expression that evaluates to that very object where the
function was defined: a literal, a name of the function's module or of builtins bound to it, an
attribute path from such a name (a bound method such as ``WHITESPACE.match``, a class or
function of an imported module, an enum member), a container of those, ``list[int]``-style
aliases, and ``typing`` forms whose names the module binds.

A value with no such expression keeps its place (``...``), so the signature still says the
parameter is optional, and the output is marked ``# dynalens: not exact:`` naming it: never
silently wrong. The function's own code does not change, so this never changes how it verifies.
"""

import ast
import builtins
import sys
import types

from .annotate import CO_FUTURE_ANNOTATIONS
from .errors import DecompilationError
from .marking import NOT_EXACT, _indentation

_LITERAL_TYPES = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis))
_DEPTH = 4


def is_literal(value, depth=0):
    """Whether ``repr(value)`` is source for an equal value (no NaN/inf, nothing opaque)."""
    if depth > _DEPTH:
        return False
    if isinstance(value, _LITERAL_TYPES):
        if isinstance(value, float):
            return value == value and value not in (float("inf"), float("-inf"))
        if isinstance(value, complex):
            return is_literal(value.real) and is_literal(value.imag)
        return type(value) in _LITERAL_TYPES
    if type(value) in (tuple, list, frozenset, set):
        return all(is_literal(item, depth + 1) for item in value)
    if type(value) is dict:
        return all(is_literal(k, depth + 1) and is_literal(v, depth + 1)
                   for k, v in value.items())
    return False


def expression_for(value, namespace, depth=0):
    """An ``ast.expr`` that evaluates to ``value`` in a module whose globals are ``namespace``
    (a dict), or None when none is known."""
    if depth > _DEPTH:
        return None
    if is_literal(value):
        try:
            return ast.parse(repr(value), mode="eval").body
        except (SyntaxError, ValueError):
            return None
    for key, bound in namespace.items():
        if bound is value and isinstance(key, str) and key.isidentifier():
            return ast.Name(id=key, ctx=ast.Load())
    label = getattr(value, "__name__", None)
    if (isinstance(label, str) and label.isidentifier() and label not in namespace
            and getattr(builtins, label, None) is value):
        return ast.Name(id=label, ctx=ast.Load())
    kind = type(value)
    if kind in (tuple, list, set) and (value or kind is not set):
        items = [expression_for(item, namespace, depth + 1) for item in value]
        if any(item is None for item in items):
            return None
        node = {tuple: ast.Tuple, list: ast.List, set: ast.Set}[kind]
        return node(elts=items, ctx=ast.Load()) if kind is not set else node(elts=items)
    if kind is dict:
        keys = [expression_for(k, namespace, depth + 1) for k in value]
        values = [expression_for(v, namespace, depth + 1) for v in value.values()]
        if any(item is None for item in keys + values):
            return None
        return ast.Dict(keys=keys, values=values)
    owner = getattr(value, "__self__", None)
    if owner is not None and isinstance(label, str) and not isinstance(owner, types.ModuleType):
        # a bound method: its object, then the attribute (only if that gives it back)
        try:
            same = getattr(owner, label) == value
        except Exception:
            same = False
        base = expression_for(owner, namespace, depth + 1) if same else None
        if base is not None:
            return ast.Attribute(value=base, attr=label, ctx=ast.Load())
    enum_type = _enum_type(value)
    if enum_type is not None:
        base = expression_for(enum_type, namespace, depth + 1)
        if base is not None:
            return ast.Attribute(value=base, attr=value.name, ctx=ast.Load())
    if isinstance(value, types.GenericAlias if hasattr(types, "GenericAlias") else ()):
        return _subscript(value.__origin__, value.__args__, namespace, depth)
    if isinstance(value, types.UnionType if hasattr(types, "UnionType") else ()):
        parts = [ast.Constant(value=None) if arg is type(None)
                 else expression_for(arg, namespace, depth + 1) for arg in value.__args__]
        if any(part is None for part in parts):
            return None
        node = parts[0]
        for part in parts[1:]:
            node = ast.BinOp(left=node, op=ast.BitOr(), right=part)  # int | None
        return node
    path = _importable_path(value)
    if path is not None:
        module_name, qualname = path
        found = _path_from(module_name, qualname.split("."), value, namespace)
        if found is not None:
            return found
    return _typing_form(value, namespace, depth)


def _enum_type(value):
    enum = sys.modules.get("enum")
    if enum is None or not isinstance(value, enum.Enum):
        return None
    try:
        return type(value) if getattr(type(value), value.name) is value else None
    except AttributeError:
        return None


def _importable_path(value):
    module_name = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not isinstance(module_name, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return None
    return module_name, qualname


def _path_from(module_name, parts, value, namespace):
    """``mod.A.f`` where the namespace binds the module (or ``A.f`` where it binds ``A``)."""
    module = sys.modules.get(module_name)
    if module is None:
        return None
    starts = []
    for key, bound in namespace.items():
        if isinstance(key, str) and key.isidentifier():
            if bound is module:
                starts.append((ast.Name(id=key, ctx=ast.Load()), module, parts))
            elif parts and bound is getattr(module, parts[0], None):
                starts.append((ast.Name(id=key, ctx=ast.Load()), bound, parts[1:]))
    for node, current, rest in starts:
        ok = True
        for part in rest:
            current = getattr(current, part, _MISSING)
            if current is _MISSING:
                ok = False
                break
            node = ast.Attribute(value=node, attr=part, ctx=ast.Load())
        if ok and current is value:
            return node
    return None


_MISSING = object()


def _subscript(origin, args, namespace, depth):
    return _subscripted(expression_for(origin, namespace, depth + 1), args, namespace, depth)


def _subscripted(base, args, namespace, depth):
    """``base[args]`` as an expression, or None when the base or an argument has none."""
    if base is None or not args:
        return None
    items = [expression_for(arg, namespace, depth + 1) for arg in args]
    if any(item is None for item in items):
        return None
    index = items[0] if len(items) == 1 else ast.Tuple(elts=items, ctx=ast.Load())
    return ast.Subscript(value=base, slice=index, ctx=ast.Load())


def _typing_form(value, namespace, depth):
    """``Optional[int]``, ``typing.List[str]``: a typing alias is its generic base (found by
    name in ``typing``) subscripted with its arguments."""
    typing = sys.modules.get("typing")
    if typing is None or type(value).__module__ != "typing":
        return None
    label = getattr(value, "_name", None) or getattr(value, "__name__", None)
    args = getattr(value, "__args__", None)
    if not isinstance(label, str):
        return None
    base_object = getattr(typing, label, None)
    if base_object is None:
        return None
    if args is None or base_object is value:
        return _path_from("typing", [label], value, namespace) if base_object is value else None
    if label == "Optional" or (label == "Union" and type(None) in args and len(args) == 2):
        inner = [arg for arg in args if arg is not type(None)]
        if len(inner) == 1:
            optional = _subscripted(_path_from("typing", ["Optional"], typing.Optional,
                                               namespace), inner, namespace, depth)
            if optional is not None:
                return optional
    return _subscripted(_path_from("typing", [label], base_object, namespace), args,
                        namespace, depth)


# ---------------------------------------------------------------------------------------------


def apply_signature(stmts, function, name):
    """Give the ``def`` (or lambda) of ``function`` in ``stmts`` its defaults and annotations.
    Returns notes: one sentence per value written as ``...`` or left out for want of an
    expression (the caller marks the output with them)."""
    node = _find_definition(stmts, name)
    if node is None:
        return []
    namespace = getattr(function, "__globals__", None) or {}
    notes = []
    args = node.args
    positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
    defaults = function.__defaults__ or ()
    if defaults and not args.defaults and len(defaults) <= len(positional):
        names = [arg.arg for arg in positional[len(positional) - len(defaults):]]
        args.defaults = [_value(value, namespace, "default of %s" % arg_name, notes)
                         for arg_name, value in zip(names, defaults)]
    keyword = function.__kwdefaults__ or {}
    if keyword and not any(args.kw_defaults):
        args.kw_defaults = [
            _value(keyword[arg.arg], namespace, "default of %s" % arg.arg, notes)
            if arg.arg in keyword else None for arg in args.kwonlyargs]
    if not isinstance(node, ast.Lambda) and getattr(function, "__wrapped__", None) is None:
        # (a functools.wraps wrapper carries the wrapped function's annotations, which name
        # that function's parameters, not its own)
        _annotate(node, function, namespace, notes)
    return notes


def _value(value, namespace, what, notes):
    node = expression_for(value, namespace)
    if node is None:
        notes.append("%s is %s, which has no source form here" % (what, _short_repr(value)))
        node = ast.Constant(value=Ellipsis)
    return node


def _annotate(node, function, namespace, notes):
    try:
        annotations = dict(getattr(function, "__annotations__", None) or {})
    except Exception as exc:  # 3.14+: evaluating them may fail (a forward reference)
        notes.append("annotations could not be evaluated (%s)" % type(exc).__name__)
        return
    if not annotations:
        return
    args = node.args
    every = (list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)
             + [arg for arg in (args.vararg, args.kwarg) if arg is not None])
    by_name = dict((arg.arg, arg) for arg in every)
    stringified = bool(function.__code__.co_flags & CO_FUTURE_ANNOTATIONS)
    for key, value in annotations.items():
        target = by_name.get(key)
        if target is None and key != "return":
            continue
        current = node.returns if key == "return" else target.annotation
        if current is not None:
            continue
        expr = _annotation(value, namespace, stringified)
        if expr is None:
            notes.append("annotation of %s is %s, which has no source form here; left out"
                         % (key, _short_repr(value)))
            continue
        if key == "return":
            node.returns = expr
        else:
            target.annotation = expr


def _annotation(value, namespace, stringified):
    if isinstance(value, str):
        if stringified:  # `from __future__ import annotations`: the text compiles to itself
            try:
                return ast.parse(value, mode="eval").body
            except SyntaxError:
                return None
        return ast.Constant(value=value)
    return expression_for(value, namespace)


def _short_repr(value):
    try:
        text = repr(value)
    except Exception:
        text = "<%s object>" % type(value).__name__
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _find_definition(stmts, name):
    queue = list(stmts)
    while queue:
        node = queue.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Lambda) and \
                name == "<lambda>":
            return node.value
        queue.extend(child for child in getattr(node, "body", []) if isinstance(child, ast.stmt))
    return None


def mark_signature(text, notes, name, strict, code):
    """``text`` with a ``# dynalens: not exact:`` line per note above the definition."""
    if strict:
        raise DecompilationError("not exact: " + notes[0], code=code)
    lines = text.split("\n")
    starts = ("def %s(" % name, "async def %s(" % name) if name != "<lambda>" else ()
    at = None
    for number, line in enumerate(lines):
        stripped = line.lstrip(" \t")
        if stripped.startswith(starts) if starts else "lambda" in stripped:
            at = number
            break
    if at is None:
        at = 0
    pad = _indentation(lines[at])
    lines[at:at] = [pad + NOT_EXACT + note for note in notes]
    return "\n".join(lines)
