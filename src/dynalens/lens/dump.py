"""Compile records -> the dump folder (layout and index schema: docs/dump-format.md).

Each compile gets a number `<n>` per function name, claimed on disk with exclusive creation so
that processes sharing the folder never write the same name; every file is written atomically;
`index.json` is merged under a lock. A file that cannot be produced becomes a warning in the
index, never an exception in the user's program.
"""

import datetime
import os
import re
import sys

from . import atomic
from .capture import STAGE_ORDER, parse_resume_name
from .fullcode import Version, full_code_text
from .graphfile import graph_file
from .guards import guard_function_source
from .noise import simplify
from .relabel import listing_lines, relabel
from .generated import renamed_lambda
from .source import _decompile, function_source

FORMAT = "dynalens-dump"
FORMAT_VERSION = 1
_COMPILED_FN_RE = re.compile(r"^(__compiled_fn_(\d+))(?:_[0-9a-f_]+)?$")
_RESUME_GLOBAL_RE = re.compile(r"^__resume_at_\d+_\d+$")


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _safe(name):
    return re.sub(r"[^\w]", "_", name)[:100] or "fn"


def graph_short_name(global_name):
    m = _COMPILED_FN_RE.match(global_name)
    return m.group(1) if m else global_name


class DumpedCompile:
    """What was written for one compile, kept in memory for `debug()` and the guard tests."""

    def __init__(self, record, key):
        self.record = record
        self.key = key
        self.n = None
        self.transformed = None       # SourceResult
        self.clean_code = None        # transformed code without profiler bookkeeping
        self.relabeled = None         # Dynamo's code with lines mapped onto the dumped file
        self.transformed_path = None
        self.transformed_name = None
        self.guard_path = None
        self.guard_name = None
        self.graph_files = {}         # global graph name -> {stage: [paths]}
        self.entry = None             # the index.json entry
        self.version = None           # this compile as a full_code version (fullcode.Version)
        self.guard_entry = None       # {"code_parts", "entry": torch's live cache entry, "code"}


class Dumper:
    """Writes the dump folder. `clean_wild_fx_code` and `log_bytecode` are prepare_debug's
    (the reference tool's) options: leave out graphs that belong to no compiled function;
    save each code object beside its source as marshal data (`<name>.code`)."""

    def __init__(self, dump_dir, capture, started, clean_wild_fx_code=True, log_bytecode=False):
        self.root = os.path.abspath(dump_dir)
        self.capture = capture
        self.started = started
        self.clean_wild_fx_code = clean_wild_fx_code
        self.log_bytecode = log_bytecode
        self.dumped = []
        self.files = []
        self.warnings = capture.warnings

    def warn(self, kind, message):
        self.capture.warn(kind, message)

    # -- entry point ---------------------------------------------------------------------
    def write(self, guard_info):
        """Write every captured compile; return (folder written, merged index)."""
        from .noise import simplified_once
        from .source import decompiled_once

        # a code object's simplified view, and its text under one name, are worked out once
        with simplified_once(), decompiled_once():
            return self._write_all(guard_info)

    def _write_all(self, guard_info):
        records = self.capture.compiles()
        rank = next((r.rank for r in records if r.rank is not None), None)
        if rank is None:
            from .capture import _current_rank

            rank = _current_rank()
        folder = self.root if rank is None else os.path.join(self.root, "rank_%d" % rank)
        os.makedirs(folder, exist_ok=True)
        self.folder = folder
        self._resumes = {rec.key: self._resume_functions(rec) for rec in records}
        self._compiles_of_code, self._resumed_at = {}, {}
        for rec in records:
            if rec.original_code is not None:
                self._compiles_of_code.setdefault(id(rec.original_code), []).append(rec.index_key)
            for r in self._resumes[rec.key]:
                self._resumed_at.setdefault(id(r["code"]), r)
        entries = []
        for rec in records:
            try:
                entries.append(self._write_compile(rec, guard_info.get(rec.key)))
            except Exception as exc:
                self.warn("dump", "could not dump compile %s of %s (%s: %s)"
                          % (rec.compile_id, rec.function, type(exc).__name__, exc))
        self._link_guard_failures(entries)
        process = {
            "pid": os.getpid(), "rank": rank, "world_size": _world_size(),
            "argv": list(sys.argv), "python": "%d.%d.%d" % sys.version_info[:3],
            "torch": _torch_version(), "dynalens": _dynalens_version(),
            "started": self.started, "finished": _now(),
        }
        index = atomic.update_json(os.path.join(folder, "index.json"),
                                   lambda cur: _merge(cur, process, entries, self.files,
                                                      self.warnings))
        for dc in self.dumped:   # a key another process already used got "@<pid>" appended
            if dc.entry is not None:
                dc.key = dc.entry["key"]
        if folder != self.root:
            sub = os.path.basename(folder)
            atomic.update_json(os.path.join(self.root, "index.json"),
                               lambda cur: _merge_subdump(cur, sub))
        return folder, index

    # -- one compile ---------------------------------------------------------------------
    def _write_compile(self, rec, guard_info):
        folder = self.folder
        fn = _safe(rec.function)
        n, full_path = atomic.claim(folder, lambda i: "full_code_for_%s_%d.py" % (fn, i))
        dc = DumpedCompile(rec, rec.index_key)
        dc.n = n
        dc.guard_entry = guard_info
        self.dumped.append(dc)
        resume = parse_resume_name(rec.function)
        entry = {
            "key": rec.index_key, "pid": os.getpid(), "compile_id": rec.compile_id,
            "frame_id": rec.frame_id, "frame_compile_id": rec.frame_compile_id,
            "attempt": rec.attempt, "function": rec.function,
            "filename": rec.original_code.co_filename if rec.original_code else
            rec.metrics.get("co_filename"),
            "firstlineno": rec.original_code.co_firstlineno if rec.original_code else
            rec.metrics.get("co_firstlineno"),
            "is_resume": resume is not None, "resume_of": resume[0] if resume else None,
            "stack": rec.stack, "recompile_reasons": list(rec.recompile_reasons),
            "guards": None, "transformed_code": None, "full_code": None,
            "resume_functions": [], "graphs": [], "graph_breaks": rec.graph_breaks,
            "metrics": {k: rec.metrics[k] for k in (
                "guard_count", "graph_op_count", "graph_node_count", "entire_frame_compile_time_s",
                "backend_compile_time_s", "fail_type", "fail_reason",
                "structured_logging_overhead_s") if k in rec.metrics},
        }
        dc.entry = entry
        header = ["dynalens dump of torch.compile, compile id %s of %s (%s:%s)" % (
            rec.compile_id, rec.function, entry["filename"], entry["firstlineno"])]
        sections = []

        # guards
        torch_count = rec.metrics.get("guard_count")
        if guard_info is not None:
            gname = "__guard_%d_for_%s" % (n, fn)
            gfile = "__guards_%d_for_%s.py" % (n, fn)
            text, parts = guard_function_source(
                gname, guard_info["code_parts"], rec.guard_tree,
                header_lines=header + guard_count_lines(len(guard_info["code_parts"]),
                                                        torch_count))
            self._write(gfile, text, "guards", dc)
            dc.guard_path, dc.guard_name = os.path.join(folder, gfile), gname
            entry["guards"] = {"function": gname, "file": gfile,
                               "count": len(guard_info["code_parts"]),
                               "torch_guard_count": torch_count,
                               "untranslated": sum(1 for p in parts if not p.translated),
                               "tree": rec.guard_tree, "failures": []}
            sections.append(("guards", text))
        elif rec.guard_tree:
            entry["guards"] = {"function": None, "file": None, "count": None,
                               "torch_guard_count": torch_count, "untranslated": None,
                               "tree": rec.guard_tree, "failures": []}

        resumes = self._resumes[rec.key]
        called = self._resumed_at.get(id(rec.original_code)) if rec.original_code else None
        entry["resume_offset"] = called["offset"] if called else None
        entry["resumes_at_line"] = called["resumes_at_line"] if called else None

        # transformed code
        if rec.transformed_code is not None:
            tname = "__transformed_code_%d_for_%s" % (n, fn)
            tfile = tname + ".py"
            tpath = os.path.join(folder, tfile)
            theader = header + [
                "Dynamo's transformed bytecode of %s, decompiled by dynalens." % rec.function,
                "Under `with dynalens.debug():` this file's code runs in place of Dynamo's, so a",
                "breakpoint here is hit with live values."]
            clean, notes, removed = simplify(rec.transformed_code, warn=self._surface_warning)
            theader = theader + _notes_header(notes) + _nested_convention_note(
                [r["code"] for r in resumes], warn=self._surface_warning)
            res = function_source(clean, tname, tpath, theader,
                                  on_failure=self._decompile_failed, readable=True,
                                  resume_codes={g: r["code"] for r in resumes
                                                for g in r["globals"]})
            dc.clean_code = clean
            if not res.decompiled:
                tfile = "__disassembly_%d_for_%s.transformed.py" % (n, fn)
                tpath = os.path.join(folder, tfile)
                res.text = res.text.replace("\n".join("# " + h for h in theader[1:4]) + "\n",
                                            "# Dynamo's transformed bytecode of %s (under "
                                            "debug(), breakpoints on the listing's lines are "
                                            "hit).\n" % rec.function, 1)
                first = _listing_first_line(res.text)
                if first:
                    dc.relabeled = relabel(rec.transformed_code, None, tpath, first,
                                           ref=listing_lines(clean, first))
            elif not res.verified:
                before = res.text.count("\n")
                res.text = res.text.replace(
                    theader[-1] + "\n",
                    theader[-1] + "\n# NOT SWAPPED by debug(): the source does not recompile to "
                    "the same bytecode (%s)\n# Under debug() Dynamo's own bytecode runs instead, "
                    "its line numbers mapped onto this file\n# (approximately, by aligning "
                    "instructions), so breakpoints here are still hit.\n"
                    % _one_line(res.difference), 1)
                if res.candidate is not None:
                    dc.relabeled = relabel(rec.transformed_code, res.candidate, tpath,
                                           _def_body_line(res.text, tname),
                                           line_offset=res.text.count("\n") - before)
            kind = "transformed_code" if res.decompiled else "disassembly"
            self._write(tfile, res.text, kind, dc)
            tcode_file = self._write_bytecode(tfile, rec.transformed_code, dc)
            dc.transformed, dc.transformed_path, dc.transformed_name = res, tpath, tname
            entry["transformed_code"] = {
                "file": tfile, "function": tname, "decompiled": res.decompiled,
                "verified": res.verified, "verified_by": res.verified_by,
                "swappable": res.swappable, "error": res.error,
                "difference": res.difference, "profiler_bookkeeping_removed": removed,
                "debug_mode": "exact" if res.swappable else (
                    "relabeled" if dc.relabeled is not None else None)}
            if tcode_file:
                entry["transformed_code"]["bytecode"] = tcode_file
            sections.append(("transformed code", res.text))
        if rec.original_code is not None and self.log_bytecode:
            entry["original_bytecode"] = self._write_bytecode(
                "__original_code_%d_for_%s.py" % (n, fn), rec.original_code, dc)

        # resume functions called from the transformed code: one file each, even when two
        # share a name (both branches of an `if` resume in a function named after its line)
        for r in resumes:
            rname, rcode = r["name"], r["code"]
            where = "resumes %s at line %s (bytecode offset %s)" % (
                r["resume_of"] or "the frame", r["resumes_at_line"], r["offset"]) \
                if r["offset"] is not None else None
            _, rpath = atomic.claim(folder, lambda j: "__resume_code_%d_for_%s.py"
                                    % (j, _safe(rname)), start=n)
            rfile = os.path.basename(rpath)
            rclean, rnotes, _ = simplify(rcode, warn=self._surface_warning)
            res = function_source(rclean, rname, rpath,
                                  header + ["Resume function %s, created by Dynamo at a graph "
                                            "break%s." % (rname, "; it " + where if where else "")]
                                  + _notes_header(rnotes),
                                  on_failure=self._decompile_failed)
            if not res.decompiled:
                os.unlink(rpath)
                _, rpath = atomic.claim(folder, lambda j: "__disassembly_%d_for_%s.resume.py"
                                        % (j, _safe(rname)), start=n)
                rfile = os.path.basename(rpath)
            self._write(rfile, res.text, "resume_code" if res.decompiled else "disassembly", dc)
            rcode_file = self._write_bytecode(rfile, rcode, dc)
            parsed = parse_resume_name(rname)
            rglobals = r["globals"]
            entry["resume_functions"].append({"name": rname, "file": rfile,
                                              "global_name": rglobals[0] if rglobals else None,
                                              "global_names": rglobals,
                                              "line": parsed[1] if parsed else None,
                                              "offset": r["offset"],
                                              "resumes_at_line": r["resumes_at_line"],
                                              "compiles": list(self._compiles_of_code.get(
                                                  id(rcode), [])),
                                              "decompiled": res.decompiled,
                                              "verified": res.verified,
                                              "verified_by": res.verified_by})
            if rcode_file:
                entry["resume_functions"][-1]["bytecode"] = rcode_file
            sections.append(("resume function %s%s" % (rname, " (%s)" % where if where else ""),
                             res.text))

        # graphs and kernels
        entry["graphs"] = self._write_graphs(rec, dc)

        # the one readable program: every cached version of the function, and a dispatcher
        dc.version = self._version(dc, sections)
        atomic.write_text(full_path, _future_imports_first(
            self._full_code(rec, dc, header, fn, full_path)))
        self._file(os.path.basename(full_path), "full_code", dc)
        entry["full_code"] = os.path.basename(full_path)
        return entry

    def _version(self, dc, sections):
        """This compile as one entry of the full_code dispatcher (fullcode.Version)."""
        entry = dc.entry
        tc = entry["transformed_code"]
        graphs = []
        for g in entry["graphs"]:
            captured = [s["file"] for s in g["stages"] if s["stage"] == "Captured_Graph"]
            if g["global_name"] and captured:
                graphs.append((g["global_name"], captured[0]))
        g = dc.record.frame_globals or {}
        # bound only where the global is the resume function itself, defined at module level
        # (one with free variables is installed through a factory and decompiled inside an
        # enclosing function)
        first = next((i for i, (title, _) in enumerate(sections)
                      if title.startswith("resume function")), len(sections))
        resumes = [(first + i, glob, r["name"])
                   for i, r in enumerate(entry["resume_functions"]) if r["decompiled"]
                   for glob in r["global_names"] if _plain_function(g.get(glob), r["name"])]
        guard_file = (entry.get("guards") or {}).get("file")
        sections = [(title, _without_guard_tree(text, guard_file) if title == "guards" else text)
                    for title, text in sections]
        return Version(dc.key, dc.guard_name,
                       dc.transformed_name if tc is not None and tc["decompiled"] else None,
                       sections, resumes, graphs)

    def _full_code(self, rec, dc, header, fn, full_path):
        """full_code_for_<fn>_<n>.py: this compile and the earlier ones of the same code
        object (torch's cache list as it stood after this compile, newest first)."""
        versions = [d.version for d in reversed(self.dumped)
                    if getattr(d, "version", None) is not None
                    and d.record.generation == rec.generation
                    and (d.record.original_code is rec.original_code
                         if rec.original_code is not None else d is dc)]
        code = rec.original_code
        original, error = None, "the frame's code object was not captured"
        if code is not None:
            try:
                if parse_resume_name(code.co_name):    # Dynamo's: as its own file shows it
                    original = _decompile(simplify(code)[0], fn)
                else:                                  # the user's (a lambda: `def <fn>`)
                    from dynalens.decompiler.api import decompile

                    original = decompile(renamed_lambda(code, fn), name=fn)
            except Exception as exc:
                error = "%s: %s" % (type(exc).__name__, _one_line(exc))
        if code is None:
            return "\n".join("# " + h for h in header) + "\n# (no code object captured)\n" + \
                "".join("\n".join(["", "# " + "=" * 70, "# " + t, "# " + "=" * 70, x])
                        for t, x in dc.version.sections) + "\n"
        module = (rec.frame_globals or {}).get("__name__")
        return full_code_text(header, fn, code, versions, original, error,
                              module if isinstance(module, str) else None)

    def _resume_functions(self, rec):
        """Each resume function the transformed code calls, told apart by code object.

        Returns dicts: name (the code's co_name, which two resume functions can share), code,
        globals (the `__resume_at_<offset>_<n>` names the transformed code calls it by; both
        branches of an `if` may resume in one function), offset (where in the frame's original
        bytecode it resumes, from that global's name) and resumes_at_line (that offset's line).
        """
        code = rec.transformed_code
        if code is None:
            return []
        found, order = {}, []
        g = rec.frame_globals or {}

        def add(rc, global_name=None):
            item = found.get(id(rc))
            if item is None:
                item = found[id(rc)] = {"name": rc.co_name, "code": rc, "globals": [],
                                        "offset": None, "resumes_at_line": None,
                                        "resume_of": (parse_resume_name(rc.co_name) or
                                                      (None,))[0]}
                order.append(item)
            if global_name is not None:
                item["globals"].append(global_name)
                if item["offset"] is None:
                    item["offset"] = int(global_name.split("_")[-2])
                    item["resumes_at_line"] = _line_at(rec.original_code, item["offset"])

        for name in code.co_names:
            if _RESUME_GLOBAL_RE.match(name) and name in g:
                rc = _resume_code(g[name])
                if rc is not None:
                    add(rc, name)
        stack = list(code.co_consts)
        while stack:
            c = stack.pop()
            if hasattr(c, "co_code"):
                if c.co_name.startswith("torch_dynamo_resume_in_"):
                    add(c)
                stack.extend(c.co_consts)
        return sorted(order, key=lambda r: (r["name"], r["offset"] if r["offset"] is not None
                                             else -1))

    def _write_graphs(self, rec, dc):
        code = rec.transformed_code
        names = [n for n, _ in rec.graph_modules]
        if not names and code is not None:
            names = [n for n in code.co_names if _COMPILED_FN_RE.match(n)]
        graphs = []
        called = set(code.co_names) if code is not None else set()
        if self.clean_wild_fx_code and rec.graphs and not called.intersection(names):
            # "wild" graphs: no compiled function of this compile calls them (e.g. the backend
            # failed after Dynamo traced, and torch ran the frame as it was): left out, as the
            # reference tool leaves out FX code that is no part of a compiled function
            dc.entry["wild_graphs_left_out"] = [stage for stage, _ in rec.graphs]
            return graphs
        for i, global_name in enumerate(names or ([None] if rec.graphs else [])):
            short = graph_short_name(global_name) if global_name else "__graph_%s" % (
                rec.compile_id.replace("/", "_"))
            g = {"name": short, "global_name": global_name, "stages": [], "kernels": []}
            stages = rec.graphs if i == 0 else []
            per_stage = {}
            for stage, payload in sorted(stages, key=lambda sp: STAGE_ORDER.index(sp[0])):
                head = [
                    "dynalens dump: graph %s, stage %s, compile id %s of %s" % (
                        short, stage, rec.compile_id, rec.function),
                    "torch's readable form of the FX graph (GraphModule.print_readable)."]
                k, path = atomic.claim(
                    self.folder, lambda j: "%s.%s.%d.py" % (short, stage, j),
                    start=per_stage.get(stage, 0))
                per_stage[stage] = k + 1
                atomic.write_text(path, graph_file(payload, head, os.path.basename(path)).text)
                rel = os.path.basename(path)
                self._file(rel, "graph", dc, graph=short)
                g["stages"].append({"stage": stage, "file": rel})
                dc.graph_files.setdefault(global_name, {}).setdefault(stage, []).append(path)
            if i == 0:
                for src_path, payload in rec.output_code:
                    k, path = atomic.claim(self.folder, lambda j: "%s.kernel_%d.py" % (short, j))
                    head = "# dynalens dump: Inductor output code for %s (compile id %s)\n" \
                           "# from %s\n" % (short, rec.compile_id, src_path)
                    atomic.write_text(path, head + (payload or ""))
                    rel = os.path.basename(path)
                    self._file(rel, "kernel", dc, graph=short)
                    g["kernels"].append(rel)
            graphs.append(g)
        return graphs

    # -- helpers -------------------------------------------------------------------------
    def _decompile_failed(self, code, exc):
        self.warn("decompile", "could not decompile %s (%s: %s); wrote its disassembly instead"
                  % (code.co_name, type(exc).__name__, _one_line(str(exc))))

    def _surface_warning(self, text):
        self.warn("torch-surface", text)

    def _write(self, name, text, kind, dc, graph=None):
        path = os.path.join(self.folder, name)
        atomic.write_text(path, text)
        self._file(name, kind, dc, graph)
        return path

    def _write_bytecode(self, source_name, code, dc):
        """With log_bytecode: `code` as marshal data beside `source_name` (same name, `.code`),
        for `marshal.load`; the file name, or None (not asked, or marshal refused it)."""
        if not self.log_bytecode or code is None:
            return None
        import marshal

        name = os.path.splitext(source_name)[0] + ".code"
        try:
            data = marshal.dumps(code)
        except ValueError as exc:   # a constant marshal cannot write
            self.warn("bytecode", "could not save the bytecode of %s (%s)" % (code.co_name, exc))
            return None
        atomic.write_bytes(os.path.join(self.folder, name), data)
        self._file(name, "bytecode", dc)
        return name

    def _file(self, name, kind, dc, graph=None):
        self.files.append({"path": name, "kind": kind, "compile": dc.key, "graph": graph})

    def _link_guard_failures(self, entries):
        # reasons name the failed entry by torch's compile id without the attempt ("0/0"),
        # and only compiles of the same generation (between resets) can be meant
        for e in entries:
            gen = e["key"].partition("#")[2]
            by_id = {}
            for other in entries:
                if other["key"].partition("#")[2] == gen:
                    by_id[other["compile_id"]] = other
                    by_id.setdefault(other["compile_id"].split("_")[0], other)
            for reason in e["recompile_reasons"]:
                cid, sep, text = reason.partition(": ")
                target = by_id.get(cid.strip())
                if sep and target is not None and target.get("guards") is not None:
                    target["guards"]["failures"].append(text)


def guard_count_lines(checks, torch_count):
    """Header lines giving the one guard count the dump and the report use, explained.

    The count is the checks this file runs (torch's guard tree, leaf by leaf). torch's own
    `guard_count` metric is smaller: it counts Dynamo's guards before they are built into the
    tree, where one guard can become several checks (a tensor match also checks the tensor's
    dynamic-dimension markings and aliasing).
    """
    lines = ["Guards: %d checks" % checks]
    if torch_count is not None and torch_count != checks:
        lines.append("(torch's guard_count metric says %d: it counts Dynamo's guards before they "
                     "are built into these checks)" % torch_count)
    return lines


def _line_at(code, offset):
    """The source line of the instruction at `offset` in `code` (None if unknown)."""
    if code is None:
        return None
    import dis

    line = None
    for start, lineno in dis.findlinestarts(code):
        if start > offset:
            break
        if lineno is not None:
            line = lineno
    return line


def _resume_code(obj):
    """The resume function's code object, also behind torch's closure-factory convention.

    A resume function with free variables (a graph break inside an inlined call) is installed
    as a factory `_make_fn(closure)` that builds the function at run time; its code object
    sits in the factory's closure cells.
    """
    code = getattr(obj, "__code__", None)
    if code is None:
        return None
    if code.co_name.startswith("torch_dynamo_resume_in_"):
        return code
    for cell in getattr(obj, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if hasattr(value, "co_code") and value.co_name.startswith("torch_dynamo_resume_in_"):
            return value
    return None


def _plain_function(obj, code_name):
    code = getattr(obj, "__code__", None)
    return code is not None and code.co_name == code_name and not code.co_freevars


_GUARD_TREE_LINE = "# torch's guard tree, as torch prints it"


def _without_guard_tree(text, guard_file):
    """A guard file's text without torch's guard tree comment (kept in the guard file): a
    full_code file holds every cached version, and the tree is most of a guard's text."""
    at = text.find(_GUARD_TREE_LINE)
    if at < 0:
        return text
    return text[:at] + "# torch's guard tree: in %s\n" % guard_file


_NESTED_ARGS = ("__nested_resume_fns", "__nested_frame_values")


def _nested_convention_note(resume_codes, warn=None):
    """Header lines that explain torch's calling convention for resume functions (nested graph
    breaks, as in torch 2.13 and 2.15), whose list building is most of a graph-break frame and
    reads as noise without it. Resume functions that take other first arguments are a
    convention this lens does not know: `warn(text)` says so."""
    if not any(code.co_varnames[:2] == _NESTED_ARGS for code in resume_codes):
        if resume_codes and warn is not None:
            warn("unrecognised torch surface 'resume calling convention': %s takes (%s), not "
                 "(%s) as torch 2.13 and 2.15 do; its call in the transformed code is left "
                 "unexplained" % (resume_codes[0].co_name,
                                  ", ".join(resume_codes[0].co_varnames[:2]),
                                  ", ".join(_NESTED_ARGS)))
        return []
    return ["At a graph break this code calls a resume function as",
            "  __resume_at_<offset>_<n>(__nested_resume_fns, __nested_frame_values, *live_values):",
            "the two lists are the frames around this one (empty for the outermost frame), then",
            "this frame's live values in the order of the resume function's parameters. Where",
            "the lists are built step by step before the call (one list of live values per",
            "frame; this frame's, the last, taken off and unpacked), that is torch's",
            "bookkeeping, not your code."]


_FUTURE_IMPORT = re.compile(r"^from __future__ import (.+?)\s*$", re.M)


def _future_imports_first(text):
    """The full_code file with its `from __future__` imports gathered on one line at the top.

    A section decompiled from a module with `from __future__ import annotations` (transformers'
    modules have it) starts with that import, which Python accepts only at the top of a file:
    every such import is taken out and put, once, after the leading comment lines (where the
    compiler allows them), so the one file compiles like each section's own file does.
    """
    futures = []
    for names in _FUTURE_IMPORT.findall(text):
        for feature in names.strip("()").split(","):
            feature = feature.strip()
            if feature and feature not in futures:
                futures.append(feature)
    if not futures:
        return text
    lines = _FUTURE_IMPORT.sub("", text).split("\n")
    at = 0
    while at < len(lines) and (lines[at].startswith("#") or not lines[at].strip()):
        at += 1
    lines.insert(at, "from __future__ import %s" % ", ".join(futures))
    return "\n".join(lines)


def _notes_header(notes):
    """Header lines saying what `noise.simplify` left out of the decompiled code."""
    if not notes:
        return []
    lines = ["Left out (nothing computed differently; 'verified' refers to the code without "
             "them):"]
    return lines + ["  - " + n for n in notes]


def _listing_first_line(text):
    for i, line in enumerate(text.splitlines(), 1):
        if line.endswith('_disassembly = """'):
            return i + 1
    return None


def _def_body_line(text, name):
    lines = text.splitlines()
    for i, line in enumerate(lines, 1):
        if re.match(r"\s*(async\s+)?def\s+%s\s*\(" % re.escape(name), line):
            return i + 1
    return 1


def _one_line(text):
    return " ".join(str(text).split())[:300]


def _merge(current, process, entries, files, warnings):
    index = current if isinstance(current, dict) and current.get("format") == FORMAT else {
        "format": FORMAT, "format_version": FORMAT_VERSION, "processes": [], "subdumps": [],
        "compiles": [], "files": [], "warnings": []}
    taken = {c["key"] for c in index["compiles"]}
    renamed = {}
    for e in entries:
        if e["key"] in taken:
            new = "%s@%d" % (e["key"], process["pid"])
            renamed[e["key"]] = new
            e["key"] = new
        taken.add(e["key"])
    for f in files:
        f["compile"] = renamed.get(f["compile"], f["compile"])
    for e in entries:
        for r in e.get("resume_functions") or []:
            r["compiles"] = [renamed.get(k, k) for k in r.get("compiles") or []]
    index["processes"].append(process)
    index["compiles"].extend(entries)
    index["files"].extend(files)
    index["warnings"].extend(warnings)
    return index


def _merge_subdump(current, sub):
    index = current if isinstance(current, dict) and current.get("format") == FORMAT else {
        "format": FORMAT, "format_version": FORMAT_VERSION, "processes": [], "subdumps": [],
        "compiles": [], "files": [], "warnings": []}
    if sub not in index["subdumps"]:
        index["subdumps"].append(sub)
        index["subdumps"].sort()
    return index


def _world_size():
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return dist.get_world_size()
    except Exception:
        return None
    return None


def _torch_version():
    torch = sys.modules.get("torch")
    return getattr(torch, "__version__", None)


def _dynalens_version():
    try:
        import dynalens

        return dynalens.__version__
    except Exception:
        return None
