"""Function, lambda, class and comprehension definitions from ``MAKE_FUNCTION`` and friends.

A nested code object is decompiled on its own (``decompile_nested``) and wrapped in the node its
flags and name call for; the signature comes from the code object's argument counts and the
defaults, keyword defaults and annotations ``MAKE_FUNCTION`` consumed.
"""

import ast

from . import fallback
from .branches import merged_negated_ifs, negate
from .annotate import (CO_FUTURE_ANNOTATIONS, function_annotations, is_format_check,
                       unstringify)
from .expressions import ClassNamespace, FunctionValue, const
from .line_breaks import mark_comprehension
from .errors import DecompilationError
from .statements import AppendStmt, StatementWalker
from . import type_params

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ASYNC_GENERATOR = 0x200

COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
# 3.12+ definitions carry type parameters (asked once: a failed hasattr on a module is slow)
_TYPE_PARAMS = hasattr(ast, "TypeAlias")


def arguments_of(code, defaults=(), kwdefaults=None, annotations=None):
    """``ast.arguments`` for a code object's signature."""
    names = code.co_varnames
    argc = code.co_argcount
    posonly = getattr(code, "co_posonlyargcount", 0)
    kwonly = code.co_kwonlyargcount
    annotation = annotations.get if annotations else _no_annotation
    arg = ast.arg  # (fields by position: (arg, annotation, type_comment) on every version)
    # (loops, not comprehensions: most signatures are a few names, and before 3.12 each
    # comprehension is a function made and called; most functions have no annotations, and
    # then their positional arguments are made without a call per name to find none)
    positional = []
    if annotations:
        for n in names[:argc]:
            positional.append(arg(n, annotation(n), None))
    else:
        for n in names[:argc]:
            positional.append(arg(n, None, None))
    kwonlyargs = []
    kw_defaults = []
    for n in names[argc:argc + kwonly]:
        kwonlyargs.append(arg(n, annotation(n), None))
        kw_defaults.append(kwdefaults.get(n) if kwdefaults else None)
    k = argc + kwonly
    vararg = kwarg = None
    if code.co_flags & CO_VARARGS:
        vararg = arg(names[k], annotation(names[k]), None)
        k += 1
    if code.co_flags & CO_VARKEYWORDS:
        kwarg = arg(names[k], annotation(names[k]), None)
    # (fields by position, ast's _fields order on every version: posonlyargs, args, vararg,
    # kwonlyargs, kw_defaults, kwarg, defaults; keywords cost three times as much)
    return ast.arguments(positional[:posonly], positional[posonly:], vararg, kwonlyargs,
                         kw_defaults, kwarg, list(defaults))


def _no_annotation(name):
    return None


def function_def(walker, fv, fname, ins):
    code = fv.code
    try:
        body = walker.decompile_nested(code, "function")
        fallback.check_renders(body, getattr(walker, "session", None))
    except Exception as exc:  # its own failure: the enclosing code goes on around a stub
        body = fallback.function_stub(code, exc, getattr(walker, "session", None))
        if body is None:
            raise
    annotations = fv.annotations
    annotate = getattr(fv, "annotate", None)
    if not annotations and annotate is not None:  # 3.14+: an __annotate__ function
        annotations = function_annotations(
            walker.decompile_nested(annotate.code, "function"), annotate.code)
        if annotations is None:
            walker.fail("unrecognised __annotate__ function", ins)
    elif annotations and code.co_flags & CO_FUTURE_ANNOTATIONS:
        # compiled as strings: the expressions are what compiles to those strings again
        annotations = dict((k, unstringify(v)) for k, v in annotations.items())
    args = arguments_of(code, fv.defaults, fv.kwdefaults, annotations)
    is_async = bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
    node_type = ast.AsyncFunctionDef if is_async else ast.FunctionDef
    node = node_type(name=fname, args=args, body=body or [ast.Pass()],
                     decorator_list=list(fv.decorators), returns=annotations.get("return"),
                     type_comment=None)
    if _TYPE_PARAMS:
        node.type_params = list(getattr(fv, "type_params", ()))
    return node


def lambda_expr(walker, fv, ins):
    code = fv.code
    if is_lazy_value(code):
        return _lazy_value(walker, code, ins)
    if code.co_name in COMPREHENSIONS:
        walker.fail("comprehension function used as a value", ins)
    try:
        body = walker.decompile_nested(code, "lambda")
        fallback.check_renders(body, getattr(walker, "session", None))
        expr = _lambda_expression(body)
        if expr is None:
            walker.fail("lambda body is not one expression", ins)
    except Exception as exc:
        # a lambda, or an annotation scope called where it is made (3.12+: the
        # `<generic parameters of C>` function of `class C[T]:`), can be rebuilt from its
        # original code as an expression (fallback.py)
        made = fallback.function_expression(code, fv, exc, getattr(walker, "session", None))
        if made is None:
            raise
        return made
    args = arguments_of(code, fv.defaults, fv.kwdefaults, fv.annotations)
    return ast.Lambda(args=args, body=expr)


def _lazy_value(walker, code, ins):
    """A lazily evaluated value (3.14+ ``type X = value``) as ``lambda: value``, the form
    the type alias reader takes (the function's ``.format`` parameter and the check on it
    are the compiler's, so the lambda has none)."""
    value = lazy_value(code, walker.decompile_nested)
    if value is None:
        walker.fail("unrecognised lazily evaluated value", ins)
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=value)


def class_def(walker, cv, ins):
    fv = cv.function
    try:
        body = walker.decompile_nested(fv.code, "class")
        fallback.check_renders(body, getattr(walker, "session", None))
    except Exception as exc:
        body = fallback.class_stub(fv.code, exc, getattr(walker, "session", None))
        if body is None:
            raise
    node = ast.ClassDef(name=cv.name, bases=cv.bases, keywords=cv.keywords,
                        body=body or [ast.Pass()], decorator_list=list(cv.decorators))
    if _TYPE_PARAMS:
        node.type_params = list(getattr(cv, "type_params", ()))
    return node


# -- PEP 695 generic definitions (type_params.py reads their annotation scopes) --------
def generic_definition(walker, fv, args, ins):
    """What a called ``<generic parameters of X>`` scope binds; when its body is not the
    compiler's template, the scope stands as a function made from its original code
    (fallback.py), as before this reader existed."""
    state = walker.fork()
    try:
        return type_params.read_scope(walker, fv, args, ins)
    except DecompilationError:
        walker.restore(state)
        return ast.Call(walker.value(fv, ins), [walker.value(a, ins) for a in args], [])


def type_param_intrinsic(walker, kind, ins, stack):
    """``CALL_INTRINSIC_1 TYPEVAR`` (PARAMSPEC, TYPEVARTUPLE): a type parameter from its
    name (only inside an annotation scope, where type_params.py reads it)."""
    param_name = walker.pop(stack, ins)
    if not isinstance(getattr(param_name, "value", None), str):
        walker.fail("type parameter without a name", ins)
    stack.append(type_params.new_param(kind, param_name.value))


def op_CALL_INTRINSIC_2(walker, ins, stack, out):
    value = walker.pop(stack, ins)
    first = walker.pop(stack, ins)
    kind = ins.argval
    made = None
    if kind in (type_params.TYPEVAR_WITH_BOUND, type_params.TYPEVAR_WITH_CONSTRAINTS):
        made = type_params.with_bound(getattr(first, "value", None), walker.value(value, ins),
                                      kind == type_params.TYPEVAR_WITH_CONSTRAINTS)
    elif kind == type_params.SET_TYPEPARAM_DEFAULT:
        made = type_params.with_default(first, walker.value(value, ins))
    elif kind == type_params.SET_FUNCTION_TYPE_PARAMS and isinstance(first, FunctionValue):
        return walker.fail("type parameters set outside their annotation scope", ins)
    if made is None:
        walker.fail("unsupported intrinsic %r" % (kind,), ins)
    stack.append(made)


def op_STORE_DEREF(walker, ins, stack, out):
    if ins.argval == "__classdict__" and stack and isinstance(stack[-1], ClassNamespace):
        # a class body that holds an annotation scope keeps its namespace in a cell for
        # it (3.12+); the class statement makes that again
        walker.pop(stack, ins)
        return
    StatementWalker.op_STORE_DEREF(walker, ins, stack, out)


def op_PUSH_VALUE(walker, ins, stack, out):
    """Not CPython's: a load that a recogniser resolved to a value it already has (an
    annotation scope's parameters, type_params.py)."""
    stack.append(ins.argval)


def op_LOAD_FROM_DICT_OR_DEREF(walker, ins, stack, out):
    if ins.argval == type_params.TYPE_PARAMS.id:  # a generic class body's __type_params__
        walker.pop(stack, ins)
        stack.append(type_params.TYPE_PARAMS)
        return
    StatementWalker.op_LOAD_FROM_DICT_OR_DEREF(walker, ins, stack, out)


def comprehension(walker, fv, iterable, ins):
    code = fv.code
    stmts = walker.decompile_nested(code, "comprehension")
    node = comprehension_from_statements(code.co_name, stmts, iterable.iterable
                                         if hasattr(iterable, "iterable") else iterable)
    if node is None:
        walker.fail("unrecognised comprehension body", ins)
    mark_comprehension(node, getattr(walker, "session", None))
    if code.co_flags & CO_COROUTINE:
        # an asynchronous list/set/dict comprehension (one that awaits) is a coroutine
        # the compiler awaits where it is called: that await is not written in source
        node._awaited_by_compiler = True
    return node


def comprehension_from_statements(kind, stmts, outer_iterable):
    """Rebuild a comprehension from its code object's statements (a for loop that appends)."""
    loops = [s for s in stmts if not isinstance(s, ast.Return)]
    if len(loops) != 1 or not isinstance(loops[0], (ast.For, ast.AsyncFor)):
        return None
    generators = []
    element = []

    def visit_loop(loop, iterable):
        gen = ast.comprehension(target=loop.target, iter=iterable, ifs=[],
                                is_async=int(isinstance(loop, ast.AsyncFor)))
        generators.append(gen)
        return visit_body(loop.body, gen)

    def visit_body(body, gen):
        for k, stmt in enumerate(body):
            last = k == len(body) - 1
            if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and \
                    isinstance(stmt.body[0], ast.Continue):
                gen.ifs.append(negate(stmt.test))
                continue
            if not last:
                return False
            if isinstance(stmt, ast.If) and not stmt.orelse:
                gen.ifs.append(stmt.test)
                return visit_body(stmt.body, gen)
            if isinstance(stmt, (ast.For, ast.AsyncFor)) and not stmt.orelse:
                return visit_loop(stmt, stmt.iter)
            if isinstance(stmt, AppendStmt):
                element.append(stmt)
                return True
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield):
                # `yield` and `yield None` compile alike; a generator expression's element
                # is never empty: `(None for _ in x)`
                value = stmt.value.value
                element.append(AppendStmt(value=const(None) if value is None else value,
                                          key=None))
                return True
            return False
        return False

    if not visit_loop(loops[0], outer_iterable) or not element:
        return None
    for gen in generators:
        gen.ifs = merged_negated_ifs(gen.ifs)
    item = element[0]
    if kind == "<listcomp>":
        return ast.ListComp(elt=item.value, generators=generators)
    if kind == "<setcomp>":
        return ast.SetComp(elt=item.value, generators=generators)
    if kind == "<dictcomp>":
        return ast.DictComp(key=item.key, value=item.value, generators=generators)
    return ast.GeneratorExp(elt=item.value, generators=generators)


def lazy_value(code, decompile_nested):
    """The value a lazily evaluated value function (``is_lazy_value``) returns, or None when
    its body is not the compiler's: ``if format > 2: raise NotImplementedError``, then
    ``return value`` (the parameter is renamed for the walk: ``.format`` has no source form)."""
    renamed = code.replace(co_varnames=("format",) + code.co_varnames[1:])
    body = decompile_nested(renamed, "function")
    if len(body) == 2 and is_format_check(body[0]) and isinstance(body[1], ast.Return):
        return body[1].value
    return None


def is_lazy_value(code):
    """3.14+ evaluates a type alias's value only when asked (PEP 649/749): the compiler makes a
    function of one positional-only ``.format`` that raises NotImplementedError for the formats
    it cannot serve and returns the value; no source spells such a function."""
    return (code.co_argcount == 1 and code.co_posonlyargcount == 1
            and code.co_varnames[:1] == (".format",))


def _lambda_expression(body):
    """The expression a lambda's statements return, or None. 3.12+ copy the return into both
    branches of a conditional expression (``lambda p: a if c else b`` reads as ``if c: return
    a`` then ``return b``): that pair is the conditional expression again."""
    if not body:
        return const(None)
    first = body[0]
    if len(body) == 1 and isinstance(first, ast.Return):
        return first.value if first.value is not None else const(None)
    if len(body) == 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Yield):
        return first.value
    if isinstance(first, ast.If) and len(first.body) == 1 and \
            isinstance(first.body[0], ast.Return) and first.body[0].value is not None:
        rest = first.orelse if first.orelse else body[1:]
        if first.orelse and len(body) > 1:
            return None
        orelse = _lambda_expression(rest) if rest else None
        if orelse is not None and not (len(rest) == 1 and isinstance(rest[0], ast.Expr)):
            return ast.IfExp(test=first.test, body=first.body[0].value, orelse=orelse)
    return None
