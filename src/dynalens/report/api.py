"""The explorer's public entry points: a page on disk, or the same page inline in Jupyter."""

import html
import os
import uuid

REPORT_NAME = "report.html"


def _load(dump_dir):
    from .load import load_dump

    if not os.path.isdir(dump_dir):
        raise FileNotFoundError("not a dump folder (no such directory): %r" % (dump_dir,))
    return load_dump(dump_dir)


def write_report(dump_dir, output=None, show_progress=None):
    """Write the explorer page for ``dump_dir`` and return its path.

    The page goes to ``<dump_dir>/report.html`` unless ``output`` names another file. It is
    written to a temporary name and renamed, so a reader (or a second process finishing at the
    same moment) never sees half a page. ``show_progress=None`` shows a bar only on a terminal.
    """
    from .render import render

    dump_dir = os.path.abspath(dump_dir)
    dump = _load(dump_dir)
    output = os.path.abspath(output) if output else os.path.join(dump_dir, REPORT_NAME)
    out_dir = os.path.dirname(output)
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.relpath(dump_dir, out_dir)
    base_href = "" if base == "." else base.replace(os.sep, "/") + "/"
    page = render(dump, base_href=base_href, show_progress=show_progress)
    # open(..., "x") rather than mkstemp: the page gets the user's umask, not mode 0600.
    tmp = os.path.join(out_dir, ".%s.%d.%s.tmp" % (os.path.basename(output), os.getpid(),
                                                    uuid.uuid4().hex[:8]))
    try:
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, output)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return output


class Explorer:
    """The explorer for one dump folder, as a value: ``display()``-able in Jupyter.

    The notebook gets the page inside an ``<iframe srcdoc=...>`` so that its styles and script
    stay out of the notebook's own page, and links inside it work as in the file.
    """

    def __init__(self, dump_dir, height=720):
        self.dump_dir = os.path.abspath(_dump_folder(dump_dir))
        self.height = height
        if not os.path.isdir(self.dump_dir):
            raise FileNotFoundError("not a dump folder (no such directory): %r" % (dump_dir,))

    def html(self):
        """The whole page as a string (file links relative to the dump folder)."""
        from .render import render

        return render(_load(self.dump_dir), base_href="file://" + self.dump_dir + "/",
                      show_progress=False)

    def write(self, output=None):
        """Write the page (into the dump folder by default) and return its path."""
        return write_report(self.dump_dir, output=output)

    def _repr_html_(self):
        return ('<iframe srcdoc="%s" style="width:100%%;height:%dpx;border:1px solid #d1d9e0" '
                'title="dynalens explorer"></iframe>' % (html.escape(self.html(), quote=True),
                                                         self.height))

    def __repr__(self):
        return "<dynalens explorer of %s>" % self.dump_dir


def explain(dump_dir, height=720):
    """An :class:`Explorer` for ``dump_dir``; in Jupyter it displays the explorer inline.

    ``dump_dir`` is a dump folder (str or os.PathLike) or the object ``prepare_debug`` yielded.
    """
    return Explorer(_dump_folder(dump_dir), height=height)


def _dump_folder(value):
    """The folder a dump argument names; anything else (a compiled function, a model) is a
    TypeError that says how to get a dump of it."""
    if isinstance(value, (str, os.PathLike)):
        return value
    folder = getattr(value, "dump_dir", None)   # what prepare_debug yields (DebugRun)
    if isinstance(folder, (str, os.PathLike)):
        return folder
    raise TypeError(
        "dynalens.explain() takes a dump folder (the path given to prepare_debug, or the object "
        "it yields), got %s. To see what torch.compile made of a function, run it under "
        "`with dynalens.prepare_debug(DUMP_DIR):`, then call dynalens.explain(DUMP_DIR)"
        % _describe(value))


def _describe(value):
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    kind = type(value).__name__
    return "%s %s" % (kind, name) if name else "a %s" % kind
