"""Python source -> highlighted HTML with cross-links, done once when the report is written.

Highlighting happens here, server-side, so the page needs no script library and no network to
show coloured code. It is also done inside the user's program (``prepare_debug`` writes the page
when its block ends), so it has to be cheap: one regular expression finds the tokens that get a
colour (comments, strings, numbers, names), and everything between them -- whitespace,
operators, punctuation and the plain names that make up most of any code -- is copied as one
escaped run. That is about ten times faster than a general lexer (Pygments took most of the
report's time: 50-90 ms for a small run's blocks, plus 20-45 ms to build its lexer in every
process) and needs no package.

The classes are Pygments' short token names (``k`` keyword, ``s2`` string, ``c1`` comment,
``nf`` function name ...), so the markup reads as people who know Pygments expect; the
colours are :data:`STYLE`'s. A name such as ``__compiled_fn_3`` becomes a link to the section
that shows its graphs, also inside a string (a disassembly, written when decompiling failed,
keeps its listing in a docstring). The markup stays small: plain names, whitespace and
punctuation get no ``<span>``, because a run with hundreds of compiles carries thousands of
code blocks in one file.
"""

import builtins
import html
import keyword
import re

# Larger texts (a huge generated kernel file) are shown uncoloured: the highlighter takes
# about a second per 3 MB, and one such file should not stall the whole report.
COLOUR_LIMIT = 2000000

_PREFIX = r"(?:[rR][bBfFtT]?|[bBfFtT][rR]?|[uU])?"
_TOKENS = re.compile(
    r"(?P<c1>\#[^\r\n]*)"
    # strings: the quote decides the class; an unterminated one ends at the end of its line
    # (single quotes) or of the text (triple quotes), as a reader would see it
    r"|(?P<dq3>%(p)s\"\"\"(?:[^\"\\]|\\[\s\S]|\"(?!\"\"))*(?:\"\"\"|\Z))"
    r"|(?P<sq3>%(p)s'''(?:[^'\\]|\\[\s\S]|'(?!''))*(?:'''|\Z))"
    r"|(?P<s2>%(p)s\"(?:[^\"\\\r\n]|\\[\s\S])*\"?)"
    r"|(?P<s1>%(p)s'(?:[^'\\\r\n]|\\[\s\S])*'?)"
    r"|(?P<number>0[xXoObB][0-9a-fA-F_]+"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)"
    r"|(?P<decorator>@[ \t]*[^\W\d][\w.]*)"
    r"|(?P<name>[^\W\d]\w*)" % {"p": _PREFIX})

_WORD_CLASSES = {"True": "kc", "False": "kc", "None": "kc", "and": "ow", "or": "ow",
                 "not": "ow", "in": "ow", "is": "ow", "import": "kn", "from": "kn"}
_AFTER = {"def": "nf", "class": "nc"}   # the name a keyword introduces
_SITE_NAMES = {"copyright", "credits", "license", "exit", "quit"}   # added by `site`
_LINKED = frozenset(["nf", "nc"])       # classes whose names may also be links


def _name_classes():
    """name -> class for every name that gets a colour: keywords, builtins, self/cls."""
    classes = {}
    for name in dir(builtins):
        if name.startswith("_") or name in _SITE_NAMES:
            continue
        value = getattr(builtins, name)
        is_exception = isinstance(value, type) and issubclass(value, BaseException)
        classes[name] = "ne" if is_exception else "nb"
    for name in ("self", "cls", "Ellipsis", "NotImplemented"):
        classes[name] = "bp"
    for name in keyword.kwlist:
        classes[name] = _WORD_CLASSES.get(name, "k")
    return classes


_NAME_CLASSES = _name_classes()
_ATTRIBUTE_FREE = frozenset(["nb", "ne", "bp"])  # after a dot these are plain attributes
_SOFT_KEYWORDS = frozenset(["match", "case"])

# Colours per class (selector-scoped by :func:`stylesheet`), in the page's own palette.
STYLE = {
    "k": "color: #cf222e; font-weight: 600",
    "kc": "color: #0550ae; font-weight: 600",
    "kn": "color: #cf222e; font-weight: 600",
    "ow": "color: #cf222e; font-weight: 600",
    "nb": "color: #0550ae",
    "bp": "color: #0550ae",
    "ne": "color: #a40e26",
    "nf": "color: #6639ba",
    "nc": "color: #6639ba; font-weight: 600",
    "nd": "color: #8250df",
    "s1": "color: #0a3069",
    "s2": "color: #0a3069",
    "sd": "color: #0a3069; font-style: italic",
    "c1": "color: #59636e; font-style: italic",
    "mi": "color: #0550ae",
    "mf": "color: #0550ae",
    "mh": "color: #0550ae",
    "mo": "color: #0550ae",
    "mb": "color: #0550ae",
}
_NUMBER_BASES = {"x": "mh", "o": "mo", "b": "mb"}


def _link(value, links, current):
    target = links.get(value)
    if target is None or target == current:
        return None
    return '<a class="xref" href="#%s" data-target="%s">%s</a>' % (target, target, html.escape(value))


def _line_start(code, start):
    """Is there only indentation between the start of the line and ``start``?"""
    begin = code.rfind("\n", 0, start) + 1
    return not code[begin:start].strip()


def highlight(code, links=None, current=None):
    """Return ``code`` as HTML (without the surrounding ``<pre>``).

    ``links`` maps identifiers to element ids in the page; an occurrence of such an identifier
    becomes an ``<a href="#id">``, except for ``current``, the id of the block being rendered,
    so that a section does not link to itself.
    """
    links = links or {}
    if len(code) > COLOUR_LIMIT:
        return _plain(code, links, current)
    escape = html.escape
    name_classes = _NAME_CLASSES
    out = []
    pos = 0          # code[pos:] is not written yet
    introduced = None  # the class of the next name (after `def` / `class`)
    for match in _TOKENS.finditer(code):
        kind = match.lastgroup
        value = match.group()
        start = match.start()
        if kind == "name":
            cls = introduced or name_classes.get(value)
            introduced = _AFTER.get(value) if cls == "k" else None
            if cls in _ATTRIBUTE_FREE and start and code[start - 1] == ".":
                cls = None
            elif value in _SOFT_KEYWORDS and cls is None and _soft_keyword(code, match):
                cls = "k"
            if cls is None or cls in _LINKED:
                anchor = _link(value, links, current) if links else None
                if anchor is None and cls is None:
                    continue    # a plain name: copied with the text around it
                if anchor is not None:
                    value = anchor if cls is None else '<span class="%s">%s</span>' % (
                        cls, anchor)
                    out.append(escape(code[pos:start], quote=False))
                    out.append(value)
                    pos = match.end()
                    continue
        elif kind == "number":
            cls = _NUMBER_BASES.get(value[1:2].lower(), "mi") if value[:1] == "0" else None
            if cls is None or cls == "mi":
                cls = "mf" if any(c in value for c in ".eEjJ") else "mi"
        elif kind in ("dq3", "sq3"):
            cls = "sd" if _line_start(code, start) else ("s2" if kind == "dq3" else "s1")
        elif kind == "decorator":
            if not _line_start(code, start):
                continue    # `a @b`: the matrix product, left plain
            cls = "nd"
            introduced = None
        else:
            cls = kind
        if kind != "name":
            introduced = None
        out.append(escape(code[pos:start], quote=False))
        if links and cls[0] == "s" and "__" in value:
            # Names inside strings: a disassembly keeps its listing in a docstring, and its
            # __compiled_fn_<k> should still lead to the graph.
            inner = _plain(value, links, current)
        else:
            inner = escape(value, quote=False)
        out.append('<span class="%s">%s</span>' % (cls, inner))
        pos = match.end()
    out.append(escape(code[pos:], quote=False))
    return "".join(out)


def _soft_keyword(code, match):
    """``match`` / ``case`` starting a statement whose line ends with a colon (else a name)."""
    end = code.find("\n", match.end())
    line = code[match.end():len(code) if end < 0 else end].split("#", 1)[0].rstrip()
    return line[:1] in (" ", "\t") and line.endswith(":") and _line_start(code, match.start())


def _plain(code, links, current):
    """Escaped text with links (huge texts, and names inside strings)."""
    if not links:
        return html.escape(code, quote=False)
    pieces = []
    pos = 0
    for match in re.finditer(r"[A-Za-z_]\w*", code):
        anchor = _link(match.group(0), links, current)
        if anchor is None:
            continue
        pieces.append(html.escape(code[pos:match.start()], quote=False))
        pieces.append(anchor)
        pos = match.end()
    pieces.append(html.escape(code[pos:], quote=False))
    return "".join(pieces)


def stylesheet(selector=".hl"):
    """CSS rules for the token classes, scoped under ``selector`` (and its background)."""
    rules = ["%s { background: #f8f8f8; }" % selector]
    rules += ["%s .%s { %s }" % (selector, cls, rule) for cls, rule in STYLE.items()]
    return "\n".join(rules)
