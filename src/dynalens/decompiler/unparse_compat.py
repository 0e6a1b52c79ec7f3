"""``ast`` -> source text where ``ast.unparse`` is missing (CPython 3.8).

Used only when ``ast.unparse`` does not exist.  It covers the nodes the decompiler builds (all of
3.8's statements and expressions) and aims at source that compiles back to the same bytecode,
not at preserving a layout: parentheses follow operator precedence, tuples are always
parenthesized (that never changes the bytecode), and f-strings pick a quote their expressions
do not use (3.8 forbids reusing it, and backslashes, inside the braces).

Pure Python, no dependency: the ``astunparse`` backport would add two packages (``six``,
``wheel``) to a 3.8 install for one function, and its output of nested f-strings is not valid 3.8.
"""

import ast
import math

from .fast_unparse import unparse as _native

# Binding strength, weakest first.  A child weaker than its context gets parentheses.
(TEST, OR, AND, NOT, CMP, BOR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT,
 ATOM) = range(3, 18)

_BINOPS = {
    ast.Add: ("+", ARITH), ast.Sub: ("-", ARITH), ast.Mult: ("*", TERM), ast.MatMult: ("@", TERM),
    ast.Div: ("/", TERM), ast.FloorDiv: ("//", TERM), ast.Mod: ("%", TERM),
    ast.Pow: ("**", POWER), ast.LShift: ("<<", SHIFT), ast.RShift: (">>", SHIFT),
    ast.BitOr: ("|", BOR), ast.BitXor: ("^", BXOR), ast.BitAnd: ("&", BAND),
}
_UNARY = {ast.Invert: "~", ast.Not: "not ", ast.UAdd: "+", ast.USub: "-"}
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
        ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


class UnparseError(ValueError):
    """A tree that has no 3.8 source form (e.g. a backslash inside an f-string expression)."""


def to_source(node):
    """``ast.unparse`` where it exists (3.9+; fast_unparse.py's, same text), this module's
    writer on 3.8."""
    if _native is not None:
        return _native(node)
    return unparse(node)


def unparse(node):
    """Source text for a module, statement or expression node."""
    if isinstance(node, ast.Module):
        return "\n".join(_Writer().block(node.body, 0))
    if isinstance(node, ast.stmt):
        return "\n".join(_Writer().statement(node, 0))
    return _Writer().expr(node)


def _constant(value):
    if value is Ellipsis:
        return "..."
    if isinstance(value, float):
        if math.isinf(value):
            return "1e309" if value > 0 else "-1e309"
        if math.isnan(value):
            return "(1e309-1e309)"
    if isinstance(value, complex):
        if math.isinf(value.imag) or math.isinf(value.real):
            return "(%s+%sj)" % (_constant(value.real), _constant(value.imag))
    if isinstance(value, tuple):
        if len(value) == 1:
            return "(%s,)" % _constant(value[0])
        return "(%s)" % ", ".join(_constant(v) for v in value)
    if isinstance(value, frozenset):
        if not value:
            return "frozenset()"
        return "frozenset({%s})" % ", ".join(_constant(v) for v in value)
    return repr(value)


def _escape(text, quote):
    """``text`` as the body of a string literal delimited by ``quote``."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ch == quote[0]:
            out.append("\\" + ch)
        elif not ch.isprintable():
            code = ord(ch)
            out.append("\\x%02x" % code if code < 0x100 else
                       "\\u%04x" % code if code < 0x10000 else "\\U%08x" % code)
        else:
            out.append(ch)
    return "".join(out)


class _Writer(object):

    # -- statements ------------------------------------------------------------------------
    def block(self, stmts, level):
        lines = []
        for stmt in stmts:
            lines.extend(self.statement(stmt, level))
        return lines or ["    " * level + "pass"]

    def statement(self, node, level):
        method = _STATEMENT_WRITERS.get(node.__class__)
        if method is None:
            method = _writer_of(node.__class__, "s_", "statement")
            _STATEMENT_WRITERS[node.__class__] = method
        return method(self, node, level)

    def _simple(self, text, level):
        return ["    " * level + text]

    def _compound(self, header, body, level):
        return ["    " * level + header + ":"] + self.block(body, level + 1)

    def s_Expr(self, node, level):
        return self._simple(self.expr(node.value), level)

    def s_Pass(self, node, level):
        return self._simple("pass", level)

    def s_Break(self, node, level):
        return self._simple("break", level)

    def s_Continue(self, node, level):
        return self._simple("continue", level)

    def s_Return(self, node, level):
        if node.value is None:
            return self._simple("return", level)
        return self._simple("return " + self.expr(node.value), level)

    def s_Delete(self, node, level):
        return self._simple("del " + ", ".join(self.target(t) for t in node.targets), level)

    def s_Assign(self, node, level):
        targets = "".join(self.target(t) + " = " for t in node.targets)
        return self._simple(targets + self.expr(node.value), level)

    def s_AugAssign(self, node, level):
        op = _BINOPS[type(node.op)][0]
        text = "%s %s= %s" % (self.target(node.target), op, self.expr(node.value))
        return self._simple(text, level)

    def s_AnnAssign(self, node, level):
        target = self.target(node.target)
        if not node.simple and isinstance(node.target, ast.Name):
            target = "(%s)" % target
        text = "%s: %s" % (target, self.expr(node.annotation, TEST))
        if node.value is not None:
            text += " = " + self.expr(node.value)
        return self._simple(text, level)

    def s_Raise(self, node, level):
        text = "raise"
        if node.exc is not None:
            text += " " + self.expr(node.exc, TEST)
        if node.cause is not None:
            text += " from " + self.expr(node.cause, TEST)
        return self._simple(text, level)

    def s_Assert(self, node, level):
        text = "assert " + self.expr(node.test, TEST)
        if node.msg is not None:
            text += ", " + self.expr(node.msg, TEST)
        return self._simple(text, level)

    def s_Global(self, node, level):
        return self._simple("global " + ", ".join(node.names), level)

    def s_Nonlocal(self, node, level):
        return self._simple("nonlocal " + ", ".join(node.names), level)

    def _alias(self, alias):
        return alias.name if alias.asname is None else "%s as %s" % (alias.name, alias.asname)

    def s_Import(self, node, level):
        return self._simple("import " + ", ".join(self._alias(a) for a in node.names), level)

    def s_ImportFrom(self, node, level):
        module = "." * (node.level or 0) + (node.module or "")
        names = ", ".join(self._alias(a) for a in node.names)
        return self._simple("from %s import %s" % (module, names), level)

    def s_If(self, node, level):
        lines = self._compound("if " + self.expr(node.test), node.body, level)
        orelse = node.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ast.If):
            lines += self._compound("elif " + self.expr(orelse[0].test), orelse[0].body, level)
            orelse = orelse[0].orelse
        if orelse:
            lines += self._compound("else", orelse, level)
        return lines

    def s_While(self, node, level):
        lines = self._compound("while " + self.expr(node.test), node.body, level)
        if node.orelse:
            lines += self._compound("else", node.orelse, level)
        return lines

    def s_For(self, node, level, prefix=""):
        header = "%sfor %s in %s" % (prefix, self.target(node.target), self.expr(node.iter))
        lines = self._compound(header, node.body, level)
        if node.orelse:
            lines += self._compound("else", node.orelse, level)
        return lines

    def s_AsyncFor(self, node, level):
        return self.s_For(node, level, "async ")

    def s_With(self, node, level, prefix=""):
        items = []
        for item in node.items:
            text = self.expr(item.context_expr, TEST)
            if item.optional_vars is not None:
                text += " as " + self.target(item.optional_vars)
            items.append(text)
        return self._compound(prefix + "with " + ", ".join(items), node.body, level)

    def s_AsyncWith(self, node, level):
        return self.s_With(node, level, "async ")

    def s_Try(self, node, level):
        lines = self._compound("try", node.body, level)
        for handler in node.handlers:
            header = "except"
            if handler.type is not None:
                header += " " + self.expr(handler.type, TEST)
                if handler.name:
                    header += " as " + handler.name
            lines += self._compound(header, handler.body, level)
        if node.orelse:
            lines += self._compound("else", node.orelse, level)
        if node.finalbody:
            lines += self._compound("finally", node.finalbody, level)
        return lines

    def _decorators(self, node, level):
        return ["    " * level + "@" + self.expr(d, TEST) for d in node.decorator_list]

    def s_FunctionDef(self, node, level, prefix=""):
        header = "%sdef %s(%s)" % (prefix, node.name, self.arguments(node.args))
        if node.returns is not None:
            header += " -> " + self.expr(node.returns, TEST)
        return self._decorators(node, level) + self._compound(header, node.body, level)

    def s_AsyncFunctionDef(self, node, level):
        return self.s_FunctionDef(node, level, "async ")

    def s_ClassDef(self, node, level):
        parts = [self.expr(b, TEST) for b in node.bases] + [self.keyword(k) for k in node.keywords]
        header = "class " + node.name + ("(%s)" % ", ".join(parts) if parts else "")
        return self._decorators(node, level) + self._compound(header, node.body, level)

    # -- pieces ----------------------------------------------------------------------------
    def arguments(self, args, annotate=True):
        def one(arg, default=None):
            text = arg.arg
            if annotate and arg.annotation is not None:
                text += ": " + self.expr(arg.annotation, TEST)
            if default is not None:
                text += (" = " if annotate and arg.annotation is not None else "=") + \
                    self.expr(default, TEST)
            return text
        positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        parts = [one(a, d) for a, d in zip(positional, defaults)]
        if getattr(args, "posonlyargs", None):
            parts.insert(len(args.posonlyargs), "/")
        if args.vararg is not None:
            parts.append("*" + one(args.vararg))
        elif args.kwonlyargs:
            parts.append("*")
        parts.extend(one(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults))
        if args.kwarg is not None:
            parts.append("**" + one(args.kwarg))
        return ", ".join(parts)

    def keyword(self, kw):
        if kw.arg is None:
            return "**" + self.expr(kw.value, BOR)
        return "%s=%s" % (kw.arg, self.expr(kw.value, TEST))

    def target(self, node):
        """An assignment / for / with / del target: names, attributes, subscripts, unpacking."""
        if node.__class__ is _NAME:
            return node.id  # (the most common: as expr() writes it)
        if isinstance(node, (ast.Tuple, ast.List)):
            inner = ", ".join(self.target(e) for e in node.elts)
            if isinstance(node, ast.List):
                return "[%s]" % inner
            return "(%s,)" % inner if len(node.elts) == 1 else "(%s)" % inner
        if isinstance(node, ast.Starred):
            return "*" + self.target(node.value)
        return self.expr(node, ATOM)

    # -- expressions -----------------------------------------------------------------------
    def expr(self, node, context=0):
        """``node`` as text, parenthesized when it binds more weakly than ``context``."""
        if node.__class__ is _NAME:
            return node.id  # (the most common expression: an atom, never parenthesized)
        method = _EXPRESSION_WRITERS.get(node.__class__)
        if method is None:
            method = _writer_of(node.__class__, "e_", "expression")
            _EXPRESSION_WRITERS[node.__class__] = method
        text, strength = method(self, node)
        return "(%s)" % text if strength < context else text

    def e_Name(self, node):
        return node.id, ATOM

    def e_Constant(self, node):
        value = node.value
        if value.__class__ in _REPR_ATOMS:
            return repr(value), ATOM  # (most constants: what _constant writes, an atom)
        text = _constant(value)
        if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
            if text.startswith("-") or text.startswith("(") and not isinstance(value, complex):
                return text, FACTOR
            # `1 .real`: an int literal before a dot would read as a float
            return text, ATOM - 1 if isinstance(value, int) else ATOM
        return text, ATOM

    # 3.8's parser makes these subclasses' instances; the decompiler builds Constant
    e_Num = e_Str = e_Bytes = e_NameConstant = e_Ellipsis = e_Constant

    def e_Attribute(self, node):
        return "%s.%s" % (self.expr(node.value, ATOM), node.attr), ATOM

    def e_Call(self, node):
        args = [self.expr(a, TEST) for a in node.args] + [self.keyword(k) for k in node.keywords]
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
            args = [self.expr(node.args[0], ATOM)]
        return "%s(%s)" % (self.expr(node.func, ATOM), ", ".join(args)), ATOM

    def e_Subscript(self, node):
        return "%s[%s]" % (self.expr(node.value, ATOM), self.index(node.slice)), ATOM

    def index(self, node):
        if type(node).__name__ == "Index":
            return self.index(node.value)
        if type(node).__name__ == "ExtSlice":
            dims = [self.index(d) for d in node.dims]
            return ", ".join(dims) + ("," if len(dims) == 1 else "")
        if isinstance(node, ast.Tuple) and node.elts and any(
                isinstance(e, ast.Slice) or type(e).__name__ == "Slice" for e in node.elts):
            elts = [self.index(e) for e in node.elts]
            return ", ".join(elts) + ("," if len(elts) == 1 else "")
        if isinstance(node, ast.Slice):
            text = (self.expr(node.lower, TEST) if node.lower is not None else "") + ":" + \
                (self.expr(node.upper, TEST) if node.upper is not None else "")
            if node.step is not None:
                text += ":" + self.expr(node.step, TEST)
            return text
        return self.expr(node)

    def e_Starred(self, node):
        return "*" + self.expr(node.value, BOR), ATOM

    def e_Tuple(self, node):
        elts = [self.expr(e, TEST) for e in node.elts]
        return ("(%s,)" % elts[0] if len(elts) == 1 else "(%s)" % ", ".join(elts)), ATOM

    def e_List(self, node):
        return "[%s]" % ", ".join(self.expr(e, TEST) for e in node.elts), ATOM

    def e_Set(self, node):
        if not node.elts:
            return "{*()}", ATOM
        return "{%s}" % ", ".join(self.expr(e, TEST) for e in node.elts), ATOM

    def e_Dict(self, node):
        items = []
        for k, v in zip(node.keys, node.values):
            if k is None:
                items.append("**" + self.expr(v, BOR))
            else:
                items.append("%s: %s" % (self.expr(k, TEST), self.expr(v, TEST)))
        return "{%s}" % ", ".join(items), ATOM

    def e_BinOp(self, node):
        op, strength = _BINOPS[type(node.op)]
        if strength == POWER:  # right-associative; the exponent may be a unary minus
            left, right = self.expr(node.left, POWER + 1), self.expr(node.right, FACTOR)
        else:
            left, right = self.expr(node.left, strength), self.expr(node.right, strength + 1)
        return "%s %s %s" % (left, op, right), strength

    def e_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            return "not " + self.expr(node.operand, NOT), NOT
        operand = self.expr(node.operand, FACTOR)
        if operand[:1] in "+-~" and not isinstance(node.op, ast.Invert):
            operand = "(%s)" % operand  # `- -x` would read fine, `--x` too; keep it obvious
        return _UNARY[type(node.op)] + operand, FACTOR

    def e_BoolOp(self, node):
        strength = AND if isinstance(node.op, ast.And) else OR
        word = " and " if strength == AND else " or "
        return word.join(self.expr(v, strength + 1) for v in node.values), strength

    def e_Compare(self, node):
        parts = [self.expr(node.left, CMP + 1)]
        for op, right in zip(node.ops, node.comparators):
            parts.append(_CMP[type(op)])
            parts.append(self.expr(right, CMP + 1))
        return " ".join(parts), CMP

    def e_IfExp(self, node):
        return "%s if %s else %s" % (self.expr(node.body, TEST + 1), self.expr(node.test, TEST + 1),
                                     self.expr(node.orelse, TEST)), TEST

    def e_Lambda(self, node):
        args = self.arguments(node.args, annotate=False)
        return ("lambda %s: %s" % (args, self.expr(node.body, TEST)) if args else
                "lambda: %s" % self.expr(node.body, TEST)), TEST

    def e_NamedExpr(self, node):
        return "(%s := %s)" % (self.expr(node.target, ATOM), self.expr(node.value, TEST)), ATOM

    def e_Await(self, node):
        return "await " + self.expr(node.value, ATOM), AWAIT

    def e_Yield(self, node):
        if node.value is None:
            return "(yield)", ATOM
        return "(yield %s)" % self.expr(node.value, TEST), ATOM

    def e_YieldFrom(self, node):
        return "(yield from %s)" % self.expr(node.value, TEST), ATOM

    def _generators(self, generators):
        parts = []
        for gen in generators:
            text = "%sfor %s in %s" % ("async " if gen.is_async else "", self.target(gen.target),
                                       self.expr(gen.iter, OR))
            for cond in gen.ifs:
                text += " if " + self.expr(cond, OR)
            parts.append(text)
        return " ".join(parts)

    def e_ListComp(self, node):
        return "[%s %s]" % (self.expr(node.elt, TEST), self._generators(node.generators)), ATOM

    def e_SetComp(self, node):
        return "{%s %s}" % (self.expr(node.elt, TEST), self._generators(node.generators)), ATOM

    def e_GeneratorExp(self, node):
        return "(%s %s)" % (self.expr(node.elt, TEST), self._generators(node.generators)), ATOM

    def e_DictComp(self, node):
        return "{%s: %s %s}" % (self.expr(node.key, TEST), self.expr(node.value, TEST),
                                self._generators(node.generators)), ATOM

    # -- f-strings -------------------------------------------------------------------------
    def e_JoinedStr(self, node):
        fields = []
        self._fstring_fields(node, fields)
        used = "".join(text for is_expr, text in fields if is_expr)
        if "\\" in used:
            raise UnparseError("an f-string expression holds a backslash (not valid before 3.12)")
        quote = "'" if "'" not in used else '"'
        if quote in used:
            raise UnparseError("an f-string expression uses both quote characters")
        body = "".join(text if is_expr else
                       _escape(text, quote).replace("{", "{{").replace("}", "}}")
                       for is_expr, text in fields)
        return "f" + quote + body + quote, ATOM

    def e_FormattedValue(self, node):
        return self.e_JoinedStr(ast.JoinedStr(values=[node]))

    def _fstring_fields(self, node, fields):
        """(is expression, text) pieces of a JoinedStr, format specs inlined."""
        for value in node.values:
            if isinstance(value, ast.Constant):
                fields.append((False, value.value))
                continue
            inner = self.expr(value.value, TEST)
            if inner.startswith("{"):
                inner = " " + inner
            fields.append((True, "{" + inner))
            if value.conversion not in (None, -1):
                fields.append((True, "!" + chr(value.conversion)))
            if value.format_spec is not None:
                fields.append((True, ":"))
                self._fstring_fields(value.format_spec, fields)
            fields.append((True, "}"))


# node class -> _Writer's unbound method for it, looked up once per class (every node is
# written through one; building "e_" + the class name and looking it up each time was most
# of the cost of the smallest nodes)
_STATEMENT_WRITERS = {}
_NAME = ast.Name
# constants of these exact types: written as repr() writes them, an atom (see e_Constant)
_REPR_ATOMS = frozenset([str, bytes, bool, type(None)])
_EXPRESSION_WRITERS = {}


def _writer_of(node_class, prefix, what):
    method = getattr(_Writer, prefix + node_class.__name__, None)
    if method is None:
        raise UnparseError("cannot write a %s %s" % (node_class.__name__, what))
    return method
