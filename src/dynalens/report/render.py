"""Model -> one self-contained HTML page (CSS, JS, code and its highlighter inlined; no network).

Jinja2 renders the page: it ships with torch, so wherever a dump exists it is installed, and its
autoescaping keeps reasons, file names and code from being read as markup. Code goes in as
escaped text with its cross-links (``crosslinks.py``); the page colours it in the browser with the
vendored Prism (``vendor/prism``), so writing the page costs no highlighting at all.
"""

import html
import os
import re
from urllib.parse import quote

from .crosslinks import linked, snippet
from .load import SHOWN_REASONS
from .progress import progress

_HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
_PRISM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor", "prism")

_KIND_NAMES = {
    "guards": "guards",
    "transformed": "transformed code",
    "side_by_side": "side by side",
    "resume": "resume function",
    "full_code": "full code",
    "graph": "graph",
    "kernel": "inductor code",
    "source": "source",
    "reasons": "guard failures",
    "disassembly": "disassembly",
}


class LinkTable(dict):
    """Identifier -> element id, for the names that tie the dump together.

    torch 2.13 stores a graph in the frame's globals under ``__compiled_fn_<k>_<uuid>``, while
    the dump (and the reader) calls it ``__compiled_fn_<k>``; both spellings lead to the graph.
    """

    _UUID_SUFFIX = re.compile(r"^(__compiled_fn_\d+)_[0-9a-f]{8}(?:_[0-9a-f]{4}){3}_[0-9a-f]{12}$")

    def get(self, name, default=None):
        target = dict.get(self, name)
        if target is None and name.startswith("__compiled_fn_"):
            m = self._UUID_SUFFIX.match(name)
            if m:
                target = dict.get(self, m.group(1))
        return default if target is None else target

    def __contains__(self, name):
        return self.get(name) is not None


def _own_names(comp):
    """The names one compile introduces, each with the element it should lead to."""
    for graph in comp.graphs:
        yield graph.name, graph.anchor
    for block in comp.resume:
        for name in [block.title] + list(block.aliases):
            yield name, block.anchor
    for block in (comp.transformed, comp.guards):
        if block is not None:
            yield block.title, block.anchor


def link_tables(dump):
    """One :class:`LinkTable` per compile, keyed by compile anchor.

    A name first resolves within its own compile (each recompilation has its own resume
    functions and graphs, often with the same names as the previous one's), then within the
    process that wrote it: graph numbers restart in every process, so ``__compiled_fn_1`` in
    one rank's code must lead to that rank's graph. Across compiles the first occurrence wins,
    so a name leads to where it was introduced.
    """
    per_process = {}
    for comp in dump.compiles:
        table = per_process.setdefault(comp.process, LinkTable())
        for name, anchor in _own_names(comp):
            table.setdefault(name, anchor)
    tables = {}
    for comp in dump.compiles:
        table = LinkTable(per_process[comp.process])
        table.update(_own_names(comp))
        tables[comp.anchor] = table
    return tables


def side_by_side_html(block, links):
    """Rows of two columns: a line of transformed code, and the user's line it comes from
    (shown where it changes, so a run of statements from one line reads as one step)."""
    shown = [user for _, lineno, user in block.rows if lineno is not None and user.strip()]
    indent = min((len(u) - len(u.lstrip()) for u in shown), default=0)
    out, previous = [], None
    for code, lineno, user in block.rows:
        left = linked(code, links, current=block.anchor) if code.strip() else ""
        right = ""
        if lineno is not None and lineno != previous:
            right = '<span class="no">%d</span>%s' % (lineno, snippet(user[indent:].rstrip()))
            previous = lineno
        # the page colours each `py` cell on its own, as the lines were written one by one
        out.append('<span class="sbs"><span class="tc py">%s</span><span class="us">%s</span>'
                   '</span>' % (left, right))
    return "".join(out)


def _read_resource(name, folder=_HERE):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def _highlighter():
    """Prism's core and Python grammar, as the page inlines them (see vendor/prism/README.md;
    tests/test_report.py checks that neither holds a `</script` that would end the element)."""
    return "\n".join(_read_resource(name, _PRISM)
                     for name in ("prism-core.min.js", "prism-python.min.js"))


def _environment(base_href, cache_dir=None):
    """The Jinja2 environment; its compiled template is kept in `cache_dir` (default
    ``templates/__pycache__``) so that a fresh process does not compile it again."""
    import jinja2
    from markupsafe import Markup

    from .template_cache import TemplateCache

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_HERE),
        bytecode_cache=TemplateCache(cache_dir or os.path.join(_HERE, "__pycache__")),
        autoescape=True,
        trim_blocks=False,
        lstrip_blocks=False,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["basename"] = lambda p: os.path.basename(p or "") or (p or "")
    env.filters["kindname"] = lambda k: _KIND_NAMES.get(k, k)
    env.globals["shown_reasons"] = SHOWN_REASONS
    env.filters["hl"] = lambda text: Markup(snippet(text or ""))
    env.filters["fileurl"] = lambda p: quote((base_href + p).replace(os.sep, "/"), safe="/:._-~")
    return env


def render(dump, base_href="", show_progress=None):
    """Return the page as a string.

    ``base_href`` is prefixed to the dump-relative file paths so that the "open file" links
    work when the page is written somewhere other than the dump folder.
    """
    from .. import __version__

    tables = link_tables(dump)
    empty = LinkTable()
    blocks = list(dump.code_blocks())
    bar = progress(len(blocks), "dynalens report", enabled=show_progress)
    rendered = []
    try:
        for block, comp in blocks:
            links = tables[comp.anchor] if comp is not None else empty
            if block.language == "text":
                body = html.escape(block.text, quote=False)
            elif block.language == "side_by_side":
                body = side_by_side_html(block, links)
            else:
                body = linked(block.text, links, current=block.anchor)
            rendered.append((block.anchor, block.language, body))
            bar.update(1)
    finally:
        bar.close()
    compiles = dump.compiles
    env = _environment(base_href)
    template = env.get_template("report.html.j2")
    return template.render(
        dump=dump,
        blocks=rendered,
        css=_read_resource("report.css"),
        js=_read_resource("report.js"),
        highlighter=_highlighter(),
        n_graphs=sum(len(c.graphs) for c in compiles),
        n_kernels=sum(len(g.kernels) for c in compiles for g in c.graphs),
        version=__version__,
    )
