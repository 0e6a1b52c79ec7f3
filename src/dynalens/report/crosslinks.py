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
    # each distinct identifier is looked up once: a block has thousands of identifiers, a
    # tenth as many distinct ones, and a handful that are links
    targets = {}
    get = links.get
    for name in set(_IDENTIFIER.findall(code)):
        target = get(name)
        if target is not None and target != current:
            targets[name] = target
    if not targets:
        return html.escape(code, quote=False)
    pieces = []
    pos = 0
    for match in _IDENTIFIER.finditer(code):
        name = match.group(0)
        if name not in targets:
            continue
        pieces.append(html.escape(code[pos:match.start()], quote=False))
        pieces.append(_anchor(name, targets[name]))
        pos = match.end()
    pieces.append(html.escape(code[pos:], quote=False))
    return "".join(pieces)


def snippet(code):
    """One line (or a few) of the user's Python, outside any folded block: the page colours
    every ``class="py"`` element when it opens."""
    return '<span class="py">%s</span>' % html.escape(code, quote=False)
