"""PEP 695 type parameters (3.12+): ``def f[T](...)``, ``class C[T]:``, ``type A[T] = ...``.

The compiler puts a generic definition in an *annotation scope*: a function named
``<generic parameters of NAME>`` that is made and called where the definition stands, and
returns what the definition binds. Its body is a fixed template::

    [LOAD_CONST 'A']                          # type alias: its name first
    LOAD_CONST 'T'; [bound / constraints / default: lazily evaluated functions]
    CALL_INTRINSIC_1 TYPEVAR (PARAMSPEC, TYPEVARTUPLE) or CALL_INTRINSIC_2 TYPEVAR_WITH_BOUND...
    COPY 1; STORE_FAST/STORE_DEREF T          # one such group per parameter
    BUILD_TUPLE n
    then, by what is defined:
      function:   [annotations] MAKE_FUNCTION f; SWAP 2; CALL_INTRINSIC_2 SET_FUNCTION_TYPE_PARAMS
      class:      STORE_DEREF .type_params; __build_class__(body, 'C', *bases,
                  .generic_base := Generic[*.type_params], **keywords)
      type alias: the value's function; BUILD_TUPLE 3; CALL_INTRINSIC_1 TYPEALIAS
    RETURN_VALUE

The scope's parameters (``.defaults``, ``.kwdefaults``) are the definition's defaults, passed by
the call. This module reads the template with a walker of the scope (expressions, the
function or class being made, are the walker's) and gives the enclosing walk the value the
definition binds, with ``type_params`` attached: storing it writes ``def``/``class``/``type``
with its brackets. Anything off the template raises, and the scope falls back as before.
"""

import ast

from .expressions import FunctionValue, ClassValue, TypeAliasValue, const
from .statements import Context

PREFIX = "<generic parameters of "

# CALL_INTRINSIC_2's operand numbers (the same in 3.12-3.15)
TYPEVAR_WITH_BOUND = 2
TYPEVAR_WITH_CONSTRAINTS = 3
SET_FUNCTION_TYPE_PARAMS = 4
SET_TYPEPARAM_DEFAULT = 5

_PARAM_KINDS = {"INTRINSIC_TYPEVAR": "TypeVar", "INTRINSIC_PARAMSPEC": "ParamSpec",
                "INTRINSIC_TYPEVARTUPLE": "TypeVarTuple"}

# Stands for ``Generic[*.type_params]`` among a generic class's bases, where the compiler
# added it; it is not a base the source wrote.
GENERIC_BASE = ast.Name(id=".generic_base", ctx=ast.Load())
# What a generic class body reads as ``__type_params__`` (emit.class_body drops that store).
TYPE_PARAMS = ast.Name(id=".type_params", ctx=ast.Load())


def is_generic_scope(code):
    return code.co_name.startswith(PREFIX)


def new_param(kind, param_name):
    """The ``ast`` type parameter ``CALL_INTRINSIC_1 kind`` makes from a name constant."""
    return getattr(ast, _PARAM_KINDS[kind])(name=param_name)


def is_param_intrinsic(kind):
    return kind in _PARAM_KINDS


def with_bound(param_name, value, constraints):
    """``T: bound`` or ``T: (A, B)``: the bound's lazily evaluated value (a lambda)."""
    if not isinstance(value, ast.Lambda) or (constraints and not isinstance(value.body, ast.Tuple)):
        return None
    return ast.TypeVar(name=param_name, bound=value.body)


def with_default(param, value):
    """3.13+ ``T = default``."""
    if not isinstance(param, ast.type_param) or not isinstance(value, ast.Lambda):
        return None
    param.default_value = value.body
    return param


def read_scope(walker, fv, args, ins):
    """The value a generic definition binds, read from its annotation scope ``fv`` called
    with ``args``: a FunctionValue, ClassValue or TypeAliasValue with ``type_params``."""
    code = fv.code
    scope = type(walker)(code, "function", walker.session)
    instrs, n = scope.instrs, scope.n
    params = code.co_varnames[:code.co_argcount]
    if fv.closure is None and code.co_freevars:
        scope.fail("annotation scope without its closure", instrs[0] if n else None)
    if len(args) != len(params) or n < 3 or instrs[-1].op != "RETURN_VALUE":
        scope.fail("unrecognised annotation scope", instrs[0] if n else None)
    bound = dict(zip(params, args))
    for i in instrs:
        if i.op == "LOAD_FAST" and i.argval in bound:
            i.op, i.argval = "PUSH_VALUE", bound[i.argval]  # the values the call passed
    k = 0
    alias = None
    if instrs[-2].op == "CALL_INTRINSIC_1" and instrs[-2].argval == "INTRINSIC_TYPEALIAS":
        if instrs[0].op != "LOAD_CONST" or not isinstance(instrs[0].argval, str):
            scope.fail("type alias scope without its name", instrs[0])
        alias, k = instrs[0].argval, 1
    type_params, k = _read_params(scope, k)
    end = n - 1
    if alias is not None:
        value = scope.value(_walk_value(scope, k, n - 3), instrs[n - 3])
        if instrs[n - 3].op != "BUILD_TUPLE" or not isinstance(value, ast.Lambda) or \
                value.args.args or value.args.posonlyargs:
            scope.fail("unrecognised generic type alias", instrs[n - 3])
        return TypeAliasValue(alias, value.body, type_params)
    if instrs[end - 1].op == "CALL_INTRINSIC_2" and \
            instrs[end - 1].argval == SET_FUNCTION_TYPE_PARAMS and instrs[end - 2].op == "SWAP":
        value = _walk_value(scope, k, end - 2)
        if not isinstance(value, FunctionValue):
            scope.fail("unrecognised generic function", instrs[end - 1])
        value.type_params = type_params
        return value
    if instrs[k].op == "STORE_DEREF" and instrs[k].argval == TYPE_PARAMS.id:
        return _read_class(scope, k + 1, end, type_params)
    scope.fail("unrecognised annotation scope", instrs[k])


def standalone_arguments(code, instrs):
    """Stand-ins for what a call of the scope ``code`` (normalized ``instrs``) passes, when it
    is decompiled on its own: the defaults and keyword-only defaults are evaluated outside the
    scope, so any values make the same scope, as long as they are of the kinds it takes. Which
    kinds the scope takes is read from the flags of the function it makes (the compiler names
    a lone parameter ``.defaults`` whichever kind it is)."""
    if not code.co_argcount:  # (a type alias's value function may have defaults of its own)
        return []
    defined = code.co_name[len(PREFIX):-1]
    flags = 0
    for k, ins in enumerate(instrs):
        if ins.op == "LOAD_CONST" and getattr(ins.argval, "co_name", None) == defined and \
                k + 1 < len(instrs) and instrs[k + 1].op == "MAKE_FUNCTION":
            inner = ins.argval
            flags = instrs[k + 1].arg or 0  # 3.12 (3.13+: the attributes set after it)
            for after in instrs[k + 2:]:
                if after.op != "SET_FUNCTION_ATTRIBUTE":
                    break
                flags |= after.arg
            break
    else:
        return None
    args = []
    if flags & 1:
        args.append(ast.Tuple(elts=[const(None)], ctx=ast.Load()))
    if flags & 2:
        first = inner.co_varnames[inner.co_argcount]
        args.append(ast.Dict(keys=[const(first)], values=[const(None)]))
    return args if len(args) == code.co_argcount else None


def standalone_class_params(code):
    """A generic class body decompiled on its own: the type parameters it reads (its free
    variables other than the compiler's own) stand for the class's; at least one, since the
    body's ``__type_params__`` store exists only in a generic class."""
    names = [v for v in code.co_freevars
             if v != TYPE_PARAMS.id and v not in ("__class__", "__classdict__",
                                                 "__conditional_annotations__")]
    return [ast.TypeVar(name=v) for v in names] or [ast.TypeVar(name="T")]


def _read_params(scope, k):
    """Type parameters from index ``k`` to their BUILD_TUPLE: (params, index after it)."""
    instrs, n = scope.instrs, scope.n
    params = []
    while k < n and instrs[k].op != "BUILD_TUPLE":
        first = instrs[k]
        if first.op != "LOAD_CONST" or not isinstance(first.argval, str):
            scope.fail("unrecognised type parameter", first)
        j = k + 1
        while j + 1 < n and not (instrs[j].op == "COPY" and instrs[j].arg == 1 and
                                 instrs[j + 1].op in ("STORE_FAST", "STORE_DEREF") and
                                 instrs[j + 1].argval == first.argval):
            j += 1
        stack = [const(first.argval)]
        stmts, _ = scope.walk(k + 1, j, stack, Context())
        if stmts or len(stack) != 1 or not isinstance(stack[0], ast.type_param):
            scope.fail("unrecognised type parameter", first)
        params.append(stack[0])
        k = j + 2
    if k >= n or instrs[k].argval != len(params) or not params:
        scope.fail("type parameters without their tuple", instrs[min(k, n - 1)])
    return params, k + 1


def _walk_value(scope, start, end):
    """The one value the instructions [start, end) leave, making no statement."""
    stack = []
    stmts, _ = scope.walk(start, end, stack, Context())
    if stmts or len(stack) != 1:
        scope.fail("unrecognised annotation scope", scope.instrs[start])
    return stack[0]


def _read_class(scope, k, end, type_params):
    """``class C[T](bases, **kw)``: the ``__build_class__`` call, with the compiler's
    ``.generic_base`` (``Generic[*.type_params]`` after the written bases) taken out."""
    instrs = scope.instrs
    at = k
    while at + 2 < end and not (instrs[at].op == "LOAD_DEREF" and
                                instrs[at].argval == TYPE_PARAMS.id):
        at += 1
    if not (instrs[at + 1].op == "CALL_INTRINSIC_1" and
            instrs[at + 1].argval == "INTRINSIC_SUBSCRIPT_GENERIC" and
            instrs[at + 2].op == "STORE_FAST" and instrs[at + 2].argval == GENERIC_BASE.id):
        scope.fail("unrecognised generic class", instrs[k])
    for i in instrs[k:end]:
        if i.op == "LOAD_FAST" and i.argval == GENERIC_BASE.id:
            i.op, i.argval = "PUSH_VALUE", GENERIC_BASE
        elif i.op == "LOAD_CLOSURE" and i.argval == TYPE_PARAMS.id:  # the class body's cell
            i.op, i.argval = "PUSH_VALUE", TYPE_PARAMS
    stack = []
    stmts, _ = scope.walk(k, at, stack, Context())
    stmts2, _ = scope.walk(at + 3, end, stack, Context())
    cls = stack[0] if len(stack) == 1 else None
    if stmts or stmts2 or not isinstance(cls, ClassValue) or not cls.bases or \
            cls.bases[-1] is not GENERIC_BASE:
        scope.fail("unrecognised generic class", instrs[k])
    cls.bases.pop()
    cls.type_params = type_params
    return cls
