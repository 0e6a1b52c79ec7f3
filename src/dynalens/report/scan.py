"""An index rebuilt from file names, for a dump folder whose ``index.json`` is missing or broken.

That happens when a run was killed before the lens wrote its index. The names alone still tie
most files together (see docs/dump-format.md): transformed code, guards and full code share
``<fn>`` and ``<n>``, and a graph belongs to the compile whose transformed code calls it.
What names cannot tell (graph breaks, reasons, stacks) is simply absent.
"""

import os
import re

_TRANSFORMED = re.compile(r"^__transformed_code_(\d+)_for_(.+)\.py$")
_GUARDS = re.compile(r"^__guards_(\d+)_for_(.+)\.py$")
_FULL = re.compile(r"^full_code_for_(.+)_(\d+)\.py$")
_GRAPH = re.compile(r"^(__compiled_fn_\d+)\.(?!kernel_)(.+)\.(\d+)\.py$")
_KERNEL = re.compile(r"^(__compiled_fn_\d+)\.kernel_(\d+)\.py$")
_OTHER = re.compile(r"^(__resume_code_|__disassembly_).*\.py$")


def _calls(root, rel, graph):
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return re.search(r"\b%s(?:_[0-9a-f_]+)?\b" % re.escape(graph), text) is not None


def index_from_names(root):
    """A dict shaped like ``index.json``, or None when the folder holds no dump files."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return None
    compiles = {}
    graphs = {}
    files = []

    def comp(fn, n):
        key = "%s#%s" % (fn, n)
        return compiles.setdefault(key, {"key": key, "compile_id": key, "function": fn,
                                         "graphs": []})

    for name in names:
        m = _TRANSFORMED.match(name)
        if m:
            comp(m.group(2), m.group(1))["transformed_code"] = {"file": name}
            continue
        m = _GUARDS.match(name)
        if m:
            comp(m.group(2), m.group(1))["guards"] = {"file": name}
            continue
        m = _FULL.match(name)
        if m:
            comp(m.group(1), m.group(2))["full_code"] = name
            continue
        m = _KERNEL.match(name)
        if m:
            graphs.setdefault(m.group(1), {"name": m.group(1), "stages": [], "kernels": []})
            graphs[m.group(1)]["kernels"].append(name)
            continue
        m = _GRAPH.match(name)
        if m:
            graphs.setdefault(m.group(1), {"name": m.group(1), "stages": [], "kernels": []})
            graphs[m.group(1)]["stages"].append({"stage": m.group(2), "file": name})
            continue
        if _OTHER.match(name):
            files.append({"path": name, "kind": "resume_code" if "resume" in name else "disassembly"})
    if not compiles and not graphs and not files:
        return None

    for gname in sorted(graphs, key=lambda g: int(g.rsplit("_", 1)[1])):
        graph = graphs[gname]
        owner = None
        for entry in compiles.values():
            rel = (entry.get("transformed_code") or {}).get("file")
            if rel and _calls(root, rel, gname):
                owner = entry
                break
        if owner is None:
            owner = comp("(unknown caller)", gname)
        owner["graphs"].append(graph)
    return {"format": "dynalens-dump", "compiles": list(compiles.values()), "files": files}
