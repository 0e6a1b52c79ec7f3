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
* the ``visit_<Class>`` method is looked up once per node class.

Only on the CPython versions whose unparser was checked to decide quotes that way (3.9-3.13);
elsewhere :func:`unparse` is plain ``ast.unparse``. ``tests/test_fast_unparse.py`` compares
the two on strings made to hit every branch of the quote choice.
"""

import ast
import sys

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


if _CHECKED:
    class _Unparser(ast._Unparser):
        """The standard unparser, faster where it writes plain strings and dispatches."""

        _visitors = {}  # node class -> the unbound visit_<Class> method (or None)

        def traverse(self, node):
            if isinstance(node, list):
                for item in node:
                    self.traverse(item)
                return
            cls = node.__class__
            visitor = self._visitors.get(cls, False)
            if visitor is False:
                visitor = self._visitors[cls] = getattr(type(self), "visit_" + cls.__name__,
                                                        None)
            if visitor is None:
                self.generic_visit(node)
            else:
                visitor(self, node)

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

    def unparse(node):
        """``ast.unparse(node)``, faster (see module docstring)."""
        return _Unparser().visit(node)
else:
    unparse = getattr(ast, "unparse", None)
