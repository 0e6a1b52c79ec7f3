"""``ast.unparse`` with its two hot spots made cheaper; the text is the same, character for
character.

Writing the decompiled text costs about as much as compiling it, and two things in the
standard unparser dominate: string literals are escaped one character at a time through a
Python function (docstrings make that most of the characters written), and every node is
dispatched by building the name ``visit_<Class>`` and looking it up. Here:

* a string that needs no escape at all (no backslash, nothing unprintable: the common case)
  is handed to the standard helper as a few-character stand-in that has the same newline,
  the same quote sequences and the same last character, which are all its choice of quotes
  depends on; the escaped text is then the string itself (or with its last quote escaped, as
  the stand-in says). Anything else goes to the standard helper unchanged;
* the ``visit_<Class>`` method is looked up once per node class;
* the helpers every node goes through (``fill``, ``block``, ``delimit``, ``require_parens``,
  ``get_precedence``) and the visitors of the commonest nodes (names, attributes, calls,
  keywords, expression statements, returns, 3.11+ assignments, if/for/while, comparisons,
  binary, boolean and unary operators, plain constants, lists, tuples, dicts, subscripts,
  slices, parameters, modules and docstrings, function and class headers, try/except,
  with, raise, imports, yields, comprehensions) write the same text without a
  generator-based context manager per block or parenthesis, and without making an enum
  member per operand (``_Precedence.next()``). Where versions differ (tuples and
  subscripts before 3.11, type parameters from 3.12, ``except*``) each version's is
  followed;
* a name, the commonest node (a third of all), is written by the parent that finds it,
  without dispatch and without recording a precedence it would not read;
* an f-string with nothing to escape and no quote anywhere in it is written between single
  quotes directly, as every checked version does; any other goes to the standard writer.

Only on the CPython versions whose unparser was checked to decide quotes that way (3.9-3.13);
elsewhere the standard unparser. ``tests/test_fast_unparse.py`` compares the two on strings
made to hit every branch of the quote choice.

On every version with ``ast.unparse`` (3.9+) the unparser also writes the line breaks
``line_breaks.py`` recorded inside comprehensions, and a ``try`` body marked to stay on the
``try:`` line (nop_lines.py) there; with none recorded the text is ``ast.unparse``'s.
"""

import ast
import sys
import threading

from .line_breaks import BREAK_BEFORE_FOR, BREAK_BEFORE_IFS, INLINE_BODY, target_breaks

_CHECKED = (3, 9) <= sys.version_info[:2] <= (3, 13) and hasattr(ast, "_Unparser") and \
    hasattr(getattr(ast, "_Unparser", None), "_str_literal_helper")

# Every quote sequence the standard helper chooses among, longest first so a stand-in keeps
# the triple quotes of the string (a lone quote is in it whenever a triple is).
_QUOTES = ("'''", '"""', "'", '"')


def _stand_in(string):
    """A short string for which the standard helper picks the same quotes as for ``string``
    (given that neither needs escaping): the same quote sequences, newline and last
    character, each kept apart by a letter so that no new quote sequence forms."""
    parts = [quote for quote in _QUOTES if quote in string]
    if "\n" in string:
        parts.append("\n")
    parts.append(string[-1])
    return "x".join(parts)


# Whether unparse() needs a ``lineno`` on every statement (the standard unparser looks type
# comments up by it)
NEEDS_LINENO = True

# unparse() of a module of these statements, without the module (where fast; else None:
# emit.unparse makes one)
unparse_statements = None

_FSTRINGS = threading.local()  # how deep inside f-strings this thread's unparser is

# The standard unparser class: ast._Unparser on 3.9-3.13, _ast_unparse.Unparser from 3.14.
_Standard = getattr(ast, "_Unparser", None)
_Precedence = getattr(ast, "_Precedence", None)
if _Standard is None:
    try:
        from _ast_unparse import Unparser as _Standard, _Precedence
    except ImportError:  # 3.8 (no ast.unparse), or a future layout: plain ast.unparse
        _Standard = None


if _Standard is not None:
    class _LaidOutUnparser(_Standard):
        """The standard unparser, with the comprehension line breaks of line_breaks.py."""

        def visit_comprehension(self, node):
            before_for = getattr(node, BREAK_BEFORE_FOR, False)
            before_ifs = getattr(node, BREAK_BEFORE_IFS, ())
            if not (before_for or any(before_ifs)) or getattr(_FSTRINGS, "depth", 0):
                # (a line break inside an f-string's braces is no Python before 3.12)
                return _Standard.visit_comprehension(self, node)
            self.write(self._gap(before_for) + ("async for " if node.is_async else "for "))
            self.set_precedence(_Precedence.TUPLE, node.target)
            self.traverse(node.target)
            self.write(" in ")
            self.set_precedence(_Precedence.TEST.next(), node.iter, *node.ifs)
            self.traverse(node.iter)
            for condition, starts_line in zip(node.ifs, before_ifs):
                self.write(self._gap(starts_line) + "if ")
                self.traverse(condition)

        def visit_Tuple(self, node):
            breaks = None
            if isinstance(node.ctx, ast.Store) and not getattr(_FSTRINGS, "depth", 0):
                breaks = target_breaks(node)
            if breaks is None:
                return _Standard.visit_Tuple(self, node)
            self._write_broken_tuple(node, breaks)

        def _write_broken_tuple(self, node, breaks):
            """An unpacking written on several lines (line_breaks.py): in brackets, broken
            where the original broke it."""
            self.write("(")
            for k, (element, starts_line) in enumerate(zip(node.elts, breaks)):
                if k:
                    self.write("," + self._gap(starts_line))
                self.traverse(element)
            self.write(",)" if len(node.elts) == 1 else ")")

        def visit_Try(self, node):
            start = len(self._source)
            _Standard.visit_Try(self, node)
            if getattr(node, INLINE_BODY, False):
                # `try: <statement>` (nop_lines.py): the body's line break and indentation
                # after the colon give way to a space
                # (the line break after it is a piece of its own, or the start of the
                # piece that holds the next line's indentation: fast writers write the two
                # as one)
                source = self._source
                at = start + 2
                if source[start:at] == ["\n", "    " * self._indent + "try"] and \
                        source[at:at + 1] == [":"] and len(source) > at + 1:
                    after = source[at + 1]
                    if after == "\n":
                        if len(source) > at + 2:
                            source[at + 1] = " "
                            source[at + 2] = source[at + 2].lstrip(" ")
                    elif after[:1] == "\n":
                        source[at + 1] = " " + after[1:].lstrip(" ")

        def _gap(self, starts_line):
            return "\n" + "    " * (self._indent + 1) if starts_line else " "

        def visit_JoinedStr(self, node):
            _FSTRINGS.depth = getattr(_FSTRINGS, "depth", 0) + 1
            try:
                return _Standard.visit_JoinedStr(self, node)
            finally:
                _FSTRINGS.depth -= 1

        def visit_TemplateStr(self, node):
            _FSTRINGS.depth = getattr(_FSTRINGS, "depth", 0) + 1
            try:
                return _Standard.visit_TemplateStr(self, node)
            finally:
                _FSTRINGS.depth -= 1
else:
    _LaidOutUnparser = None


if _CHECKED:
    _ATOM, _TEST, _YIELD = ast._Precedence.ATOM, ast._Precedence.TEST, ast._Precedence.YIELD
    _TUPLE, _EXPR, _FACTOR = ast._Precedence.TUPLE, ast._Precedence.EXPR, ast._Precedence.FACTOR
    # Names are the commonest node by far (a third of all) and take no precedence: the
    # writers below write one where they find it instead of dispatching to visit_Name, and
    # set no precedence for it (visit_Name reads none)
    _Name, _Attribute, _Call = ast.Name, ast.Attribute, ast.Call
    _Tuple, _Starred, _Store = ast.Tuple, ast.Starred, ast.Store
    _Expr = ast.Expr
    # 3.9/3.10 write a tuple in parentheses always, and a subscript's tuple without them
    # only when no element is starred
    _TUPLE_PARENS_BY_PRECEDENCE = sys.version_info >= (3, 11)
    _TYPE_PARAMS = hasattr(ast._Unparser, "_type_params_helper")  # 3.12+
    _Constant, _FormattedValue, _JoinedStr = ast.Constant, ast.FormattedValue, ast.JoinedStr
    _IF = ast.If

    class _Unindent(object):
        """``block()``'s end: one level less indentation (not after an exception, as the
        standard generator-based one)."""

        __slots__ = ("unparser",)

        def __init__(self, unparser):
            self.unparser = unparser

        def __enter__(self):
            return None

        def __exit__(self, kind, value, traceback):
            if kind is None:
                self.unparser._indent -= 1
            return False

    class _Close(object):
        """``delimit()``'s end: writes the closing text (not after an exception)."""

        __slots__ = ("unparser", "end")

        def __init__(self, unparser, end):
            self.unparser = unparser
            self.end = end

        def __enter__(self):
            return None

        def __exit__(self, kind, value, traceback):
            if kind is None:
                self.unparser._source.append(self.end)
            return False

    class _Nothing(object):
        """``nullcontext()`` without the object per use."""

        __slots__ = ()

        def __enter__(self):
            return None

        def __exit__(self, kind, value, traceback):
            return False

    _NOTHING = _Nothing()

    # the standard unparser's operator tables, by node class, with the precedences it gives
    # the operands (ast._Precedence.next() builds an enum member per call: looked up here)
    _NEXT = dict((level, level.next()) for level in ast._Precedence)
    _CMP, _CMP_NEXT = ast._Precedence.CMP, ast._Precedence.CMP.next()
    _CMPOPS = dict((getattr(ast, name), " %s " % text)
                   for name, text in ast._Unparser.cmpops.items())
    _BINOPS = {}
    for _name, _text in ast._Unparser.binop.items():
        _level = ast._Unparser.binop_precedence[_text]
        _BINOPS[getattr(ast, _name)] = (
            " %s " % _text, _level,
            _level.next() if _text in ast._Unparser.binop_rassoc else _level,
            _level if _text in ast._Unparser.binop_rassoc else _level.next())
    _TEST_NEXT = _NEXT[_TEST]
    _CONVERSIONS = dict((ord(letter), "!" + letter) for letter in "sra")

    # the ASCII characters a docstring holds as they are: the printable ones but the backslash,
    # line breaks and tabs
    _AS_IS_ASCII = (bytes(range(0x20, 0x7F)) + b"\n\t").replace(b"\\", b"")

    def _docstring_as_is(string):
        r"""Whether the standard writer has nothing to escape in docstring ``string``: no
        backslash, nothing unprintable but line breaks and tabs. ASCII text (almost every
        docstring, the longest strings written) is checked by deleting the characters that
        need no escape, without ``replace``'s copies and ``isprintable``'s lookup per
        character."""
        if string.isascii():
            return not string.encode("ascii").translate(None, _AS_IS_ASCII)
        return "\\" not in string and \
            string.replace("\n", "").replace("\t", "").isprintable()

    def _plain_text(value):
        """An f-string's text part as written when it holds no backslash and no
        unprintable character but line breaks and tabs (escaped, as the standard writer
        escapes them in text parts), braces doubled; None otherwise. Quotes are left in
        (``_plain_fstring`` chooses the quote)."""
        if value.__class__ is not str or "\\" in value:
            return None
        if not value.isprintable():
            if not value.replace("\n", "").replace("\t", "").replace("\r", "").isprintable():
                return None
            value = value.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
        return value.replace("{", "{{").replace("}", "}}")

    _UNARYOPS = {}
    for _name, _text in ast._Unparser.unop.items():
        _level = ast._Unparser.unop_precedence[_text]
        # (the standard writes a space after the operator unless it is a factor prefix)
        _UNARYOPS[getattr(ast, _name)] = (_text if _level is _FACTOR else _text + " ", _level)
    _AUGMENTED = dict((getattr(ast, name), " %s= " % text)
                      for name, text in ast._Unparser.binop.items())
    _BOOLOPS = dict((getattr(ast, name), (" %s " % text,
                                          ast._Unparser.boolop_precedence[text]))
                    for name, text in ast._Unparser.boolops.items())
    # constants the standard unparser writes as their repr (a str only outside an f-string's
    # braces before 3.12, where backslashes are avoided: see visit_Constant)
    _REPR_CONSTANTS = frozenset([int, bool, type(None), bytes])

    class _Unparser(_LaidOutUnparser):
        """The standard unparser, faster where it writes plain strings and dispatches."""

        # (set by the standard __init__ before 3.13, where f-string fields avoid backslashes;
        # 3.13's has none: no avoiding)
        _avoid_backslashes = False

        # (each writes what the standard method writes, in the same order; see the module
        # docstring)
        def fill(self, text=""):
            source = self._source
            if source:
                source.append("\n")
            source.append("    " * self._indent + text)

        def block(self, *, extra=None):
            source = self._source
            source.append(":")
            if extra:
                source.append(extra)
            self._indent += 1
            return _Unindent(self)

        def delimit(self, start, end):
            self._source.append(start)
            return _Close(self, end)

        def delimit_if(self, start, end, condition):
            if condition:
                self._source.append(start)
                return _Close(self, end)
            return _NOTHING

        def require_parens(self, precedence, node):
            if self._precedences.get(node, _TEST) > precedence:
                self._source.append("(")
                return _Close(self, ")")
            return _NOTHING

        def get_precedence(self, node):
            return self._precedences.get(node, _TEST)

        def visit_Name(self, node):
            self._source.append(node.id)

        def visit_Attribute(self, node):
            value = node.value
            source = self._source
            if value.__class__ is _Name:
                source.append(value.id + "." + node.attr)
                return
            self._precedences[value] = _ATOM
            _VISITORS[value.__class__](self, value)
            if isinstance(value, ast.Constant) and isinstance(value.value, int):
                source.append(" ")  # (3 .__abs__())
            source.append("." + node.attr)

        def visit_Call(self, node):
            func = node.func
            source = self._source
            if func.__class__ is _Name:
                source.append(func.id + "(")
            elif func.__class__ is _Attribute and func.value.__class__ is _Name:
                source.append(func.value.id + "." + func.attr + "(")  # (a method call)
            else:
                self._precedences[func] = _ATOM
                _VISITORS[func.__class__](self, func)
                source.append("(")
            comma = False
            for item in node.args:
                if comma:
                    source.append(", ")
                else:
                    comma = True
                if item.__class__ is _Name:
                    source.append(item.id)
                elif item.__class__ is _Attribute and item.value.__class__ is _Name:
                    source.append(item.value.id + "." + item.attr)
                else:
                    _VISITORS[item.__class__](self, item)
            for item in node.keywords:
                if comma:
                    source.append(", ")
                else:
                    comma = True
                self.visit_keyword(item)
            source.append(")")

        def visit_keyword(self, node):
            value = node.value
            if node.arg is None:
                self._source.append("**")
            elif value.__class__ is _Name:
                self._source.append(node.arg + "=" + value.id)
                return
            else:
                self._source.append(node.arg + "=")
            _VISITORS[value.__class__](self, value)

        def visit_Expr(self, node):
            source = self._source
            source.append("\n" + "    " * self._indent if source else "    " * self._indent)
            value = node.value
            if value.__class__ is _Call:  # (the commonest; a call reads no precedence)
                self.visit_Call(value)
                return
            self._precedences[value] = _YIELD
            _VISITORS[value.__class__](self, value)

        def visit_Return(self, node):
            source = self._source
            text = "    " * self._indent + "return"
            source.append("\n" + text if source else text)
            value = node.value
            if value:
                if value.__class__ is _Name:
                    source.append(" " + value.id)
                else:
                    source.append(" ")
                    _VISITORS[value.__class__](self, value)

        if sys.version_info >= (3, 11):  # (3.9/3.10's sets no precedence on the targets)
            def visit_Assign(self, node):
                source = self._source
                source.append("\n" + "    " * self._indent if source else "    " * self._indent)
                for target in node.targets:
                    if target.__class__ is _Name:
                        source.append(target.id + " = ")
                        continue
                    if target.__class__ is _Attribute and target.value.__class__ is _Name:
                        source.append(target.value.id + "." + target.attr + " = ")
                        continue
                    self._precedences[target] = _TUPLE
                    _VISITORS[target.__class__](self, target)
                    source.append(" = ")
                value = node.value
                if value.__class__ is _Name:
                    source.append(value.id)
                elif value.__class__ is _Call:
                    self.visit_Call(value)
                else:
                    _VISITORS[value.__class__](self, value)
                if node.type_comment is not None or self._type_ignores:
                    type_comment = self.get_type_comment(node)
                    if type_comment:
                        source.append(type_comment)

        def visit_If(self, node):
            test = node.test
            if test.__class__ is _Name:
                self.fill("if " + test.id)
            else:
                self.fill("if ")
                _VISITORS[test.__class__](self, test)
            self._body(node.body)
            # (nested ifs alone in an else are written as elifs)
            while node.orelse and len(node.orelse) == 1 and isinstance(node.orelse[0], _IF):
                node = node.orelse[0]
                self.fill("elif ")
                test = node.test
                _VISITORS[test.__class__](self, test)
                self._body(node.body)
            if node.orelse:
                self.fill("else")
                self._body(node.orelse)

        def visit_For(self, node):
            self.fill("for ")
            target, iterable = node.target, node.iter
            self._precedences[target] = _TUPLE
            _VISITORS[target.__class__](self, target)
            self._source.append(" in ")
            _VISITORS[iterable.__class__](self, iterable)
            self._body(node.body, self.get_type_comment(node))
            if node.orelse:
                self.fill("else")
                self._body(node.orelse)

        def visit_While(self, node):
            self.fill("while ")
            test = node.test
            _VISITORS[test.__class__](self, test)
            self._body(node.body)
            if node.orelse:
                self.fill("else")
                self._body(node.orelse)

        def _body(self, statements, extra=None):
            """``with self.block(extra=extra): self.traverse(statements)``."""
            source = self._source
            source.append(":")
            if extra:
                source.append(extra)
            self._indent += 1
            visitors = _VISITORS  # (_traverse_list's loop: one call less per block)
            for node in statements:
                visitors[node.__class__](self, node)
            self._indent -= 1

        def visit_Compare(self, node):
            source = self._source
            precedences = self._precedences
            parens = precedences.get(node, _TEST) > _CMP
            if parens:
                source.append("(")
            left = node.left
            if left.__class__ is _Name:
                source.append(left.id)
            else:
                precedences[left] = _CMP_NEXT
                _VISITORS[left.__class__](self, left)
            for operator, item in zip(node.ops, node.comparators):
                if item.__class__ is _Name:
                    source.append(_CMPOPS[operator.__class__] + item.id)
                else:
                    source.append(_CMPOPS[operator.__class__])
                    precedences[item] = _CMP_NEXT
                    _VISITORS[item.__class__](self, item)
            if parens:
                source.append(")")

        def visit_BinOp(self, node):
            operator, precedence, left, right = _BINOPS[node.op.__class__]
            source = self._source
            precedences = self._precedences
            parens = precedences.get(node, _TEST) > precedence
            if parens:
                source.append("(")
            operand = node.left
            if operand.__class__ is _Name:
                source.append(operand.id)
            else:
                precedences[operand] = left
                _VISITORS[operand.__class__](self, operand)
            operand = node.right
            if operand.__class__ is _Name:
                source.append(operator + operand.id)
            else:
                source.append(operator)
                precedences[operand] = right
                _VISITORS[operand.__class__](self, operand)
            if parens:
                source.append(")")

        def visit_BoolOp(self, node):
            operator, precedence = _BOOLOPS[node.op.__class__]
            source = self._source
            precedences = self._precedences
            parens = precedences.get(node, _TEST) > precedence
            if parens:
                source.append("(")
            for k, value in enumerate(node.values):
                if k:
                    source.append(operator)
                precedence = _NEXT[precedence]  # each operand binds one level tighter
                precedences[value] = precedence
                _VISITORS[value.__class__](self, value)
            if parens:
                source.append(")")

        def visit_Constant(self, node):
            value = node.value
            kind = value.__class__
            if kind is str and not self._avoid_backslashes or kind in _REPR_CONSTANTS:
                # (what the standard writes for these: an optional "u", then the repr)
                self._source.append("u" + repr(value) if node.kind == "u" else repr(value))
                return
            _Standard.visit_Constant(self, node)

        def _write_docstring(self, node):
            string = node.value
            if '"""' in string or string[-1:] == '"' or not _docstring_as_is(string):
                return _Standard._write_docstring(self, node)
            # nothing to escape (line breaks and tabs stay as they are in a docstring) and
            # neither a triple double quote nor a last double quote in the way: the
            # standard writes it between triple double quotes as it is
            source = self._source
            text = "    " * self._indent + ('u"""' if node.kind == "u" else '"""') + \
                string + '"""'
            source.append("\n" + text if source else text)

        def visit_FunctionDef(self, node):
            self._function_helper(node, "def")

        def visit_arg(self, node):
            self._source.append(node.arg)
            if node.annotation:
                self._source.append(": ")
                self.traverse(node.annotation)

        def visit_List(self, node):
            source = self._source
            source.append("[")
            for k, item in enumerate(node.elts):
                if k:
                    source.append(", ")
                _VISITORS[item.__class__](self, item)
            source.append("]")

        def visit_Module(self, node):
            ignores = node.type_ignores
            self._type_ignores = dict(
                (ignore.lineno, "ignore" + ignore.tag) for ignore in ignores) if ignores else {}
            self._write_docstring_and_traverse_body(node)
            self._type_ignores.clear()

        def _write_docstring_and_traverse_body(self, node):
            # (the standard's; its callers, here and there, pass only the nodes that hold a
            # docstring: modules, classes and functions)
            self._docstring_and_body(node.body)

        def _docstring_and_body(self, body):
            """A docstring holder's body, its docstring first (get_raw_docstring's test
            written out)."""
            if body and body[0].__class__ is _Expr:
                docstring = body[0].value
                if isinstance(docstring, _Constant) and isinstance(docstring.value, str):
                    self._write_docstring(docstring)
                    body = body[1:]
            visitors = _VISITORS  # (_traverse_list's loop: one call less per body)
            for node in body:
                visitors[node.__class__](self, node)

        def _function_helper(self, node, fill_suffix):
            source = self._source
            if source:
                source.append("\n")  # (maybe_newline)
            for decorator in node.decorator_list:
                self.fill("@")
                self.traverse(decorator)
            self.fill(fill_suffix + " " + node.name)
            if _TYPE_PARAMS and hasattr(node, "type_params"):
                self._type_params_helper(node.type_params)
            source.append("(")
            self.visit_arguments(node.args)
            source.append(")")
            if node.returns:
                source.append(" -> ")
                self.traverse(node.returns)
            source.append(":")
            if node.type_comment is not None or self._type_ignores:
                extra = self.get_type_comment(node)
                if extra:
                    source.append(extra)
            self._indent += 1
            self._docstring_and_body(node.body)  # (_write_docstring_and_traverse_body's)
            self._indent -= 1

        def visit_Subscript(self, node):
            source = self._source
            value = node.value
            if value.__class__ is _Name:
                source.append(value.id + "[")
            else:
                self._precedences[value] = _ATOM
                _VISITORS[value.__class__](self, value)
                source.append("[")
            index = node.slice
            if index.__class__ is _Name:
                source.append(index.id)
            elif isinstance(index, _Tuple) and index.elts and (
                    _TUPLE_PARENS_BY_PRECEDENCE or
                    not any(isinstance(item, _Starred) for item in index.elts)):
                self._items_view(index.elts)
            else:
                _VISITORS[index.__class__](self, index)
            source.append("]")

        def _items_view(self, items):
            """``items_view(self.traverse, items)``: comma-separated, a trailing comma after
            a single item."""
            source = self._source
            if len(items) == 1:
                _VISITORS[items[0].__class__](self, items[0])
                source.append(",")
                return
            comma = False
            for item in items:
                if comma:
                    source.append(", ")
                else:
                    comma = True
                if item.__class__ is _Name:
                    source.append(item.id)
                else:
                    _VISITORS[item.__class__](self, item)

        def visit_Tuple(self, node):
            if isinstance(node.ctx, _Store) and not getattr(_FSTRINGS, "depth", 0):
                breaks = target_breaks(node)
                if breaks is not None:
                    return self._write_broken_tuple(node, breaks)
            elts = node.elts
            parens = not _TUPLE_PARENS_BY_PRECEDENCE or not elts or \
                self._precedences.get(node, _TEST) > _TUPLE
            if parens:
                self._source.append("(")
                self._items_view(elts)
                self._source.append(")")
            else:
                self._items_view(elts)

        def visit_UnaryOp(self, node):
            operator, precedence = _UNARYOPS[node.op.__class__]
            source = self._source
            parens = self._precedences.get(node, _TEST) > precedence
            operand = node.operand
            if operand.__class__ is _Name:
                source.append("(" + operator + operand.id + ")" if parens else
                              operator + operand.id)
                return
            source.append("(" + operator if parens else operator)
            self._precedences[operand] = precedence
            _VISITORS[operand.__class__](self, operand)
            if parens:
                source.append(")")

        def visit_Starred(self, node):
            value = node.value
            if value.__class__ is _Name:
                self._source.append("*" + value.id)
                return
            self._source.append("*")
            self._precedences[value] = _EXPR
            _VISITORS[value.__class__](self, value)

        def visit_Raise(self, node):
            if not node.exc:
                _Standard.visit_Raise(self, node)
                return
            self.fill("raise ")
            self.traverse(node.exc)
            if node.cause:
                self._source.append(" from ")
                self.traverse(node.cause)

        def visit_AugAssign(self, node):
            self.fill()
            self.traverse(node.target)
            self._source.append(_AUGMENTED[node.op.__class__])
            self.traverse(node.value)

        def visit_Slice(self, node):
            source = self._source
            if node.lower:
                self.traverse(node.lower)
            source.append(":")
            if node.upper:
                self.traverse(node.upper)
            if node.step:
                source.append(":")
                self.traverse(node.step)

        def visit_Dict(self, node):
            source = self._source
            source.append("{")
            comma = False
            for key, value in zip(node.keys, node.values):
                if comma:
                    source.append(", ")
                else:
                    comma = True
                if key is None:
                    # (dictionary unpacking: {**d})
                    source.append("**")
                    self._precedences[value] = _EXPR
                else:
                    _VISITORS[key.__class__](self, key)
                    source.append(": ")
                _VISITORS[value.__class__](self, value)
            source.append("}")

        def visit_Import(self, node):
            self.fill("import " + ", ".join(
                alias.name + " as " + alias.asname if alias.asname else alias.name
                for alias in node.names))

        if hasattr(_Standard, "do_visit_try"):  # 3.11+ (try and try* share it)
            def do_visit_try(self, node):
                self.fill("try")
                self._body(node.body)
                for handler in node.handlers:
                    self.traverse(handler)
                if node.orelse:
                    self.fill("else")
                    self._body(node.orelse)
                if node.finalbody:
                    self.fill("finally")
                    self._body(node.finalbody)

        def visit_ExceptHandler(self, node):
            # (3.9/3.10 have no except*, nor the flag)
            self.fill("except*" if getattr(self, "_in_try_star", False) else "except")
            if node.type:
                self._source.append(" ")
                self.traverse(node.type)
            if node.name:
                self._source.append(" as " + node.name)
            self._body(node.body)

        def visit_ClassDef(self, node):
            source = self._source
            if source:
                source.append("\n")  # (maybe_newline)
            for decorator in node.decorator_list:
                self.fill("@")
                self.traverse(decorator)
            self.fill("class " + node.name)
            if _TYPE_PARAMS and hasattr(node, "type_params"):
                self._type_params_helper(node.type_params)
            if node.bases or node.keywords:
                source.append("(")
                comma = False
                for item in node.bases + node.keywords:
                    if comma:
                        source.append(", ")
                    else:
                        comma = True
                    _VISITORS[item.__class__](self, item)
                source.append(")")
            source.append(":")
            self._indent += 1
            self._docstring_and_body(node.body)  # (_write_docstring_and_traverse_body's)
            self._indent -= 1

        def visit_With(self, node, keyword="with "):
            self.fill(keyword)
            source = self._source
            comma = False
            for item in node.items:
                if comma:
                    source.append(", ")
                else:
                    comma = True
                self.traverse(item.context_expr)
                if item.optional_vars:
                    source.append(" as ")
                    self.traverse(item.optional_vars)
            self._body(node.body, self.get_type_comment(node))

        def visit_AsyncWith(self, node):
            self.visit_With(node, "async with ")

        def visit_Yield(self, node):
            source = self._source
            parens = self._precedences.get(node, _TEST) > _YIELD
            value = node.value
            if not value:
                source.append("(yield)" if parens else "yield")
                return
            source.append("(yield " if parens else "yield ")
            self._precedences[value] = _ATOM
            _VISITORS[value.__class__](self, value)
            if parens:
                source.append(")")

        def visit_ListComp(self, node, start="[", end="]"):
            source = self._source
            source.append(start)
            element = node.elt
            _VISITORS[element.__class__](self, element)
            for generator in node.generators:
                self.visit_comprehension(generator)
            source.append(end)

        def visit_GeneratorExp(self, node):
            self.visit_ListComp(node, "(", ")")

        def visit_SetComp(self, node):
            self.visit_ListComp(node, "{", "}")

        def visit_comprehension(self, node):
            if getattr(node, BREAK_BEFORE_FOR, False) or any(getattr(node, BREAK_BEFORE_IFS, ())):
                # (line breaks: line_breaks.py)
                return _LaidOutUnparser.visit_comprehension(self, node)
            source = self._source
            precedences = self._precedences
            source.append(" async for " if node.is_async else " for ")
            target = node.target
            if target.__class__ is _Name:
                source.append(target.id + " in ")
            else:
                precedences[target] = _TUPLE
                _VISITORS[target.__class__](self, target)
                source.append(" in ")
            iterable = node.iter
            precedences[iterable] = _TEST_NEXT
            for condition in node.ifs:
                precedences[condition] = _TEST_NEXT
            _VISITORS[iterable.__class__](self, iterable)
            for condition in node.ifs:
                source.append(" if ")
                _VISITORS[condition.__class__](self, condition)

        def visit_JoinedStr(self, node):
            text = None if self._avoid_backslashes else \
                self._plain_fstring(node)
            if text is None:
                return _LaidOutUnparser.visit_JoinedStr(self, node)
            self._source.append(text)

        def _plain_fstring(self, node):
            """The text of an f-string that needs no choice of its writer: text parts with
            no backslash, no unprintable character but line breaks and tabs, and one kind of
            quote at most; fields that write no quote, no backslash and nothing unprintable;
            format specs of such text without quotes or line breaks. None for any other.
            Every checked version writes such an f-string as it is (braces of its text
            doubled, line breaks and tabs escaped) between single quotes, or double ones
            where the text holds a single quote; the others go to the standard writer,
            with its choice of quotes (from 3.12 quotes inside fields need not differ)."""
            parts = ["f'"]
            for value in node.values:
                if value.__class__ is _Constant:
                    piece = _plain_text(value.value)
                    if piece is None:
                        return None
                    parts.append(piece)
                    continue
                if value.__class__ is not _FormattedValue:
                    return None
                conversion = value.conversion
                if conversion != -1 and conversion not in _CONVERSIONS:
                    return None
                inner = value.value
                if inner.__class__ is _Name:
                    expression = inner.id
                else:
                    _FSTRINGS.depth = getattr(_FSTRINGS, "depth", 0) + 1
                    try:
                        unparser = _Unparser()
                        unparser._precedences[inner] = _TEST_NEXT
                        unparser.traverse(inner)
                    finally:
                        _FSTRINGS.depth -= 1
                    expression = "".join(unparser._source)
                    if "'" in expression or '"' in expression or "\\" in expression or \
                            not expression.isprintable():
                        return None
                    if expression[:1] == "{":
                        expression = " " + expression  # (not "{{", an escaped brace)
                parts.append("{" + expression)
                if conversion != -1:
                    parts.append(_CONVERSIONS[conversion])
                spec = value.format_spec
                if spec:
                    if spec.__class__ is not _JoinedStr:
                        return None
                    parts.append(":")
                    for piece in spec.values:
                        text = piece.value if piece.__class__ is _Constant else None
                        if text.__class__ is not str or "'" in text or '"' in text or \
                                not text.isprintable() or "\\" in text:
                            return None
                        parts.append(text.replace("{", "{{").replace("}", "}}"))
                parts.append("}")
            parts.append("'")
            text = "".join(parts)
            if "'" in text[2:-1]:
                if '"' in text:
                    return None
                return 'f"' + text[2:-1] + '"'
            return text

        def visit_arguments(self, node):
            source = self._source
            if not (node.posonlyargs or node.defaults or node.vararg or node.kwonlyargs or
                    node.kwarg):
                # (the commonest signature: positional parameters only, no defaults; what
                # the loop below writes, as one piece where none is annotated)
                names = []
                for item in node.args:
                    if item.annotation:
                        break
                    names.append(item.arg)
                else:
                    if names:  # (nothing at all for none: a lambda's buffer stays empty)
                        source.append(", ".join(names))
                    return
            first = True
            positional = node.posonlyargs + node.args
            defaults = [None] * (len(positional) - len(node.defaults)) + node.defaults
            slash_after = len(node.posonlyargs)
            for index, (item, default) in enumerate(zip(positional, defaults), 1):
                if first:
                    first = False
                else:
                    source.append(", ")
                _VISITORS[item.__class__](self, item)
                if default:
                    source.append("=")
                    self.traverse(default)
                if index == slash_after:
                    source.append(", /")
            if node.vararg or node.kwonlyargs:
                if first:
                    first = False
                else:
                    source.append(", ")
                source.append("*")
                if node.vararg:
                    source.append(node.vararg.arg)
                    if node.vararg.annotation:
                        source.append(": ")
                        self.traverse(node.vararg.annotation)
            if node.kwonlyargs:
                for item, default in zip(node.kwonlyargs, node.kw_defaults):
                    source.append(", ")
                    _VISITORS[item.__class__](self, item)
                    if default:
                        source.append("=")
                        self.traverse(default)
            if node.kwarg:
                if not first:
                    source.append(", ")
                source.append("**" + node.kwarg.arg)
                if node.kwarg.annotation:
                    source.append(": ")
                    self.traverse(node.kwarg.annotation)

        def traverse(self, node):
            _VISITORS[node.__class__](self, node)

        def _traverse_list(self, nodes):
            visitors = _VISITORS
            for node in nodes:
                visitors[node.__class__](self, node)

        def get_type_comment(self, node):
            # (the standard looks ``# type: ignore`` comments up by ``node.lineno``; the
            # decompiler's trees carry none, so their statements need no line numbers)
            if self._type_ignores:
                return _Standard.get_type_comment(self, node)
            comment = node.type_comment
            if comment is not None:
                return " # type: " + comment

        def _str_literal_helper(self, string, *, quote_types=ast._ALL_QUOTES,
                                escape_special_whitespace=False):
            standard = ast._Unparser._str_literal_helper
            plain = "\\" not in string and string and (
                string.isprintable() or not escape_special_whitespace and
                string.replace("\n", "").replace("\t", "").isprintable())
            if not plain:
                return standard(self, string, quote_types=quote_types,
                                escape_special_whitespace=escape_special_whitespace)
            stand_in = _stand_in(string)
            text, quotes = standard(self, stand_in, quote_types=quote_types,
                                    escape_special_whitespace=escape_special_whitespace)
            if text == stand_in:
                return string, quotes
            if text == stand_in[:-1] + "\\" + stand_in[-1]:  # its last quote escaped
                return string[:-1] + "\\" + string[-1], quotes
            # no quote fits (the helper fell back to repr): the string itself decides
            return standard(self, string, quote_types=quote_types,
                            escape_special_whitespace=escape_special_whitespace)

    class _Visitors(dict):
        """Node class -> ``_Unparser``'s unbound visitor of it (a list: each item; no
        visit_<Class>: ``generic_visit``), looked up by name once per class: one dictionary
        subscript per node instead of ``NodeVisitor.visit``'s name built and looked up. The
        writers of the commonest nodes call ``_VISITORS[child.__class__](self, child)``
        for their children themselves: what ``traverse`` does, without its call."""

        __slots__ = ()

        def __missing__(self, node_class):
            if issubclass(node_class, list):
                visitor = _Unparser._traverse_list
            else:
                visitor = getattr(_Unparser, "visit_" + node_class.__name__, None) or \
                    _Unparser.generic_visit
            self[node_class] = visitor
            return visitor

    _VISITORS = _Visitors()

    def unparse(node):
        """``ast.unparse(node)``, faster (see module docstring)."""
        unparser = _Unparser()
        unparser.traverse(node)  # (what visit does, on the unparser's fresh _source)
        return "".join(unparser._source)

    def unparse_statements(stmts):
        """``unparse(ast.Module(body=stmts, type_ignores=[]))`` without making the module
        (the decompiler's every output: its making and visit cost a twentieth of writing a
        function's text)."""
        unparser = _Unparser()
        unparser._docstring_and_body(stmts)
        return "".join(unparser._source)

    NEEDS_LINENO = False  # (see get_type_comment)
elif _LaidOutUnparser is not None:
    def unparse(node):
        """``ast.unparse(node)``, with the comprehension line breaks (see module docstring)."""
        return _LaidOutUnparser().visit(node)
else:
    unparse = getattr(ast, "unparse", None)
