"""Python source -> escaped HTML in which the names that tie the dump together are links.

This is all the writer does to code: the page colours it in the browser, with the vendored
Prism (``vendor/prism``), when a block is unfolded. Colouring it here cost about a millisecond
per kB with Pygments, paid at the end of every ``prepare_debug`` block (issue 13: the MLP
training step's page carries about 125 kB of code), for blocks most readers never open.

A name such as ``__compiled_fn_3`` becomes ``<a class="xref" href="#id">``; the page's script
keeps these links when it colours the text (it splices them back in by character offset), and
without that script the text stays readable and linked. Every identifier is looked up, in code,
strings and comments alike: a disassembly keeps its listing in a docstring, and its
``__compiled_fn_<k>`` should still lead to the graph.
"""

import html
import re

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


_WORD = re.compile(r"\w")
_STARTS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def _identifier_at(code, start, end):
    """Is ``code[start:end]`` (which starts with a letter or ``_``) one of the identifiers
    ``_IDENTIFIER.finditer(code)`` yields? It is when no word character follows it, and none
    of the word characters right before it could start one (digits, non-ASCII letters): the
    scan would then have started there and run on through it."""
    if end < len(code) and _WORD.match(code, end):
        return False
    while start and _WORD.match(code, start - 1):
        start -= 1
        if code[start] in _STARTS:
            return False
    return True


def _anchor(name, target):
    return '<a class="xref" href="#%s" data-target="%s">%s</a>' % (target, target,
                                                                  html.escape(name))


def linked(code, links=None, current=None):
    """Return ``code`` as HTML text (without the surrounding ``<pre>``).

    ``links`` maps identifiers to element ids in the page (any mapping with ``get``); an
    occurrence of such an identifier becomes a link, except to ``current``, the id of the block
    being rendered, so that a section does not link to itself.
    """
    if not links:
        return html.escape(code, quote=False)
    # each distinct identifier is looked up once, and only the places of the few that are
    # links are looked for: a block holds thousands of identifiers, a handful of links
    targets = {}
    get = links.get
    for name in set(_IDENTIFIER.findall(code)):
        target = get(name)
        if target is not None and target != current:
            targets[name] = target
    if not targets:
        return html.escape(code, quote=False)
    found = []
    for name, target in targets.items():
        at = code.find(name)
        while at >= 0:
            if _identifier_at(code, at, at + len(name)):
                found.append((at, name, target))
            at = code.find(name, at + 1)
    found.sort()
    pieces = []
    pos = 0
    for at, name, target in found:
        pieces.append(html.escape(code[pos:at], quote=False))
        pieces.append(_anchor(name, target))
        pos = at + len(name)
    pieces.append(html.escape(code[pos:], quote=False))
    return "".join(pieces)


def snippet(code):
    """One line (or a few) of the user's Python, outside any folded block: the page colours
    every ``class="py"`` element when it opens."""
    return '<span class="py">%s</span>' % html.escape(code, quote=False)
