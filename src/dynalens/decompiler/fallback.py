"""Stand-ins for code objects the decompiler cannot turn into source.

A module, a class or a function that holds one function the decompiler cannot handle must not
fail as a whole: that function keeps its place and its signature (both come from the enclosing
code, which did decompile) and its body becomes a *stub*. Once the output runs, the stub is
given the original code object back, so the program behaves exactly as before:

* a function stub is decorated (innermost, before any decorator of its own sees it) with
  ``_dynalens_original_code(b'...')``, a helper defined at the top of the output that sets
  ``__code__`` to the original code object, read with ``marshal`` from a bytes literal. The
  stub's body names the helper (so the stub can be recognised in the recompiled output) and
  the function's free variables (so the enclosing function still makes the same cells, and
  ``__code__`` accepts the original, which needs a closure of the same length); its docstring
  is the original's, because ``__doc__`` is taken from the code object a function is made with;
* a class body stub runs the original class body with ``exec`` in the class namespace (a class
  body runs once, where it stands; only possible when the body has no free variables);
* a lambda, or an annotation scope that is called where it is made (3.12+ ``class C[T]:`` and
  ``def f[T]():`` run a ``<generic parameters of ...>`` function), is made from its original
  code object in place: ``types.FunctionType(marshal.loads(b'...'), globals(), None, defaults)``.
  Only without free variables, keyword-only defaults or annotations; otherwise the failure
  stands for the enclosing function (or module).

The decorator and the helper are added to the text after verification (marking.py), so that the
enclosing code objects verify exactly as they would without them. ``marshal`` data is readable
only by the same Python version (major.minor) that wrote it: an output with a stub runs on the
Python it was decompiled with, like a ``.pyc``.
"""

import ast
import marshal

from .emit import code_docstring, unparse
from .expressions import const, name

HELPER = "_dynalens_original_code"


class Fallback(object):
    """A code object replaced by a stub: ``kind`` is "function", "class" or "expression"
    (a lambda or annotation scope made from its original code where it stood)."""

    __slots__ = ("code", "message", "kind")

    def __init__(self, code, message, kind):
        self.code, self.message, self.kind = code, message, kind


def failure_text(exc, code):
    """One line saying why decompilation failed."""
    text = str(exc) or type(exc).__name__
    if not hasattr(exc, "opname"):  # not a DecompilationError: say what and where
        text = "%s: %s [in %s]" % (type(exc).__name__, text,
                                   getattr(code, "co_qualname", code.co_name))
    return " ".join(text.split())


def check_renders(body, session):
    """Raise if ``body`` cannot be rendered as text. Only in a session's second attempt
    (``session.validate``), made when rendering the whole failed: it finds the function at
    fault at the cost of rendering each body once more, which the usual case never pays."""
    if getattr(session, "validate", False):
        unparse(list(body))


def _record(session, code, exc, kind):
    if session is not None:
        fallbacks = getattr(session, "fallbacks", None)
        if fallbacks is not None:
            fallbacks[id(code)] = Fallback(code, failure_text(exc, code), kind)


def function_stub(code, exc, session):
    """The body of a ``def`` whose code object could not be decompiled (see module doc), or
    None when the caller asked for strict decompilation (then the error stands)."""
    if getattr(session, "strict", False):
        return None
    _record(session, code, exc, "function")
    body = []
    doc = code_docstring(code)
    if doc is not None:
        body.append(ast.Expr(value=const(doc)))
    names = [name(HELPER)] + [name(v) for v in code.co_freevars]
    body.append(ast.Expr(value=ast.Tuple(elts=names, ctx=ast.Load())
                         if len(names) > 1 else names[0]))
    return body


def class_stub(code, exc, session):
    """The body of a ``class`` whose body could not be decompiled, or None when it cannot be
    run on its own (free variables: ``exec`` cannot give it a closure) or strict was asked."""
    if code.co_freevars or getattr(session, "strict", False):
        return None
    _record(session, code, exc, "class")
    loads = ast.Call(func=ast.Attribute(
        value=ast.Call(func=name("__import__"), args=[const("marshal")], keywords=[]),
        attr="loads", ctx=ast.Load()), args=[const(marshal.dumps(code))], keywords=[])
    return [ast.Expr(value=ast.Call(func=name("exec"), args=[loads], keywords=[]))]


def function_expression(code, fv, exc, session):
    """An expression that makes the function ``code`` from its original code object, for a
    lambda or annotation scope that could not be decompiled (no statement to decorate):
    ``types.FunctionType(marshal.loads(b'...'), globals(), None, defaults)``. None when that
    cannot stand for it: free variables (no closure to give), keyword-only defaults,
    annotations, or strict decompilation."""
    if code.co_freevars or fv.kwdefaults or fv.annotations or getattr(session, "strict", False):
        return None
    if getattr(fv, "annotate", None) is not None or getattr(fv, "closure", None) is not None:
        return None
    _record(session, code, exc, "expression")

    def imported(module, attribute):
        return ast.Attribute(value=ast.Call(func=name("__import__"), args=[const(module)],
                                            keywords=[]), attr=attribute, ctx=ast.Load())

    args = [ast.Call(func=imported("marshal", "loads"), args=[const(marshal.dumps(code))],
                     keywords=[]),
            ast.Call(func=name("globals"), args=[], keywords=[])]
    if fv.defaults:
        args += [const(None), ast.Tuple(elts=list(fv.defaults), ctx=ast.Load())]
    return ast.Call(func=imported("types", "FunctionType"), args=args, keywords=[])


def helper_lines(indent):
    """The helper's definition, as lines of source."""
    return [
        "def %s(data):" % HELPER,
        indent + '"""dynalens: the original code of a function it could not decompile '
                 '(marshal: this Python only)."""',
        indent + "def attach(function):",
        indent * 2 + "function.__code__ = __import__('marshal').loads(data)",
        indent * 2 + "return function",
        indent + "return attach",
    ]


def decorator_line(code):
    return "@%s(%r)" % (HELPER, marshal.dumps(code))
