"""Python source -> highlighted HTML with cross-links, done once when the report is written.

Highlighting happens here, server-side, so the page needs no script library and no network to
show coloured code. Pygments is used when installed (the ``report`` extra); without it the code is
shown escaped but uncoloured, and links still work, because the report must never fail for lack
of an optional package.

The tokens are emitted by hand rather than through Pygments' HtmlFormatter for two reasons: a
name such as ``__compiled_fn_3`` must become a link to the section that shows its graphs, and the
markup must stay small (short class names, whitespace and punctuation left bare), because a run
with hundreds of compiles carries thousands of code blocks in one file.
"""

import html
import re

try:  # optional: the report degrades to plain escaped text without it
    from pygments import lex
    from pygments.lexers.python import PythonLexer
    from pygments.token import STANDARD_TYPES
    from pygments.formatters.html import HtmlFormatter
except ImportError:  # pragma: no cover - exercised only where pygments is absent
    lex = None

# Larger texts (a huge generated kernel file) are shown uncoloured: Pygments takes about a
# second per 300 kB, and one such file should not stall the whole report.
COLOUR_LIMIT = 400000

# Token types left without a <span>: they are the bulk of any code and need no colour.
_BARE_CLASSES = {"", "w", "p", "o", "n", "nx", "x", "err"}


def available():
    """Whether coloured output is possible (Pygments importable)."""
    return lex is not None


def _css_class(ttype):
    # Walk up the token hierarchy until a type with a short class name is found, as Pygments'
    # own formatter does, so that e.g. Name.Builtin.Pseudo still gets a colour.
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def _link(value, links, current):
    target = links.get(value)
    if target is None or target == current:
        return None
    return '<a class="xref" href="#%s" data-target="%s">%s</a>' % (target, target, html.escape(value))


def highlight(code, links=None, current=None):
    """Return ``code`` as HTML (without the surrounding ``<pre>``).

    ``links`` maps identifiers to element ids in the page; an occurrence of such an identifier
    becomes an ``<a href="#id">``, except for ``current``, the id of the block being rendered,
    so that a section does not link to itself.
    """
    links = links or {}
    if lex is None or len(code) > COLOUR_LIMIT:
        return _plain(code, links, current)
    out = []
    pending_class = None
    pending = []

    def flush():
        if pending:
            text = "".join(pending)
            if pending_class in _BARE_CLASSES:
                out.append(text)
            else:
                out.append('<span class="%s">%s</span>' % (pending_class, text))
            del pending[:]

    for ttype, value in lex(code, PythonLexer(stripnl=False, ensurenl=False)):
        cls = _css_class(ttype)
        if links and cls in ("n", "nf", "nc", "nx"):
            anchor = _link(value, links, current)
            if anchor is not None:
                flush()
                pending_class = None
                out.append(anchor if cls == "n" else '<span class="%s">%s</span>' % (cls, anchor))
                continue
        if links and cls.startswith("s") and "__" in value:
            # Names inside strings: a disassembly (written when decompiling failed) keeps its
            # listing in a docstring, and its __compiled_fn_<k> should still lead to the graph.
            linked = _plain(value, links, current)
            if "</a>" in linked:
                flush()
                pending_class = None
                out.append('<span class="%s">%s</span>' % (cls, linked))
                continue
        if cls != pending_class:
            flush()
            pending_class = cls
        pending.append(html.escape(value, quote=False))
    flush()
    return "".join(out)


def _plain(code, links, current):
    """Escaped text with links, for when Pygments is not installed."""
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
    """CSS rules for the token classes, scoped under ``selector``; empty without Pygments."""
    if lex is None:
        return ""
    return HtmlFormatter(style="default").get_style_defs(selector)
