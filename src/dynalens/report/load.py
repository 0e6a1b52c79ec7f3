"""A dump folder (``index.json`` + files, see docs/dump-format.md) -> the report model.

Reading is forgiving: the report is most wanted when a run went wrong, so a missing file, an
unknown field or a half-written index becomes a line under "Problems while reading the dump"
instead of an exception. Only a folder that is not a dump at all is an error.
"""

import inspect
import json
import linecache
import os
import re
import textwrap
import tokenize

from .model import CodeBlock, Compile, Dump, Frame, Function, Graph, GraphBreak

INDEX_NAME = "index.json"
CONTEXT_LINES = 2  # lines shown above and below a graph break's line
SHOWN_REASONS = 3  # recompile reasons / guard failures shown unfolded per compile

_KINDS = {
    "guards": "guards",
    "transformed_code": "transformed",
    "resume_code": "resume",
    "full_code": "full_code",
    "graph": "graph",
    "kernel": "kernel",
    "disassembly": "disassembly",
}


class NotADump(ValueError):
    """The folder holds no ``index.json`` and no dump files."""


def _anchor(*parts):
    text = "-".join(str(p).strip("/") for p in parts if p not in (None, ""))
    return re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-") or "x"


class _Reader:
    def __init__(self, root, prefix=""):
        self.root = root            # the folder holding this index.json
        self.prefix = prefix        # its path relative to the report's dump folder ("rank_0/")
        self.warnings = []
        self.seen_paths = set()

    def warn(self, message):
        self.warnings.append(message)

    def read(self, rel):
        path = os.path.join(self.root, rel)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError as exc:
            self.warn("cannot read %s: %s" % (self.prefix + rel, exc.strerror or exc))
            return "# dynalens report: this file is missing from the dump folder\n"

    def block(self, rel, kind, title, anchor, note=None):
        self.seen_paths.add(rel)
        return CodeBlock(title=title, anchor=anchor, text=self.read(rel), path=self.prefix + rel,
                         kind=kind, note=note)


_DISPATCHER_BANNER = "# the dispatcher: "


def _full_code_excerpt(text):
    """(text, shortened): a full_code file without the versions it repeats from the other
    blocks (a function recompiled N times has N files holding up to N versions each: in full,
    the page would grow with N squared), i.e. its header comment and its dispatcher."""
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines) if ln.startswith(_DISPATCHER_BANNER)), None)
    if at is None:
        return text, False
    head = []
    for ln in lines:
        if not ln.startswith("#"):
            break
        head.append(ln)
    start = at - 1 if at > 0 and lines[at - 1].startswith("# ###") else at
    return "\n".join(head + ["", "# ... every cached version: see the blocks above ...", ""]
                     + lines[start:]) + "\n", True


# the lens ends each statement of transformed code with its user line: `  # seed.py:19`, or
# `; seed.py:19` after a comment the statement already had
_USER_LINE = re.compile(r"(?:  # |; )([\w.+-]+\.py):(\d+)$")


def side_by_side(block, filename, anchor):
    """The transformed code next to the lines of the user's source its statements come from
    (Dynamo keeps the user's line numbers; the lens writes them as trailing comments), or
    None when no statement names a line of ``filename``. The header comments are left out."""
    if block is None or not filename:
        return None
    base = os.path.basename(filename)
    lines = block.text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("#")),
                 len(lines))
    rows, found = [], False
    for line in lines[start:]:
        match = _USER_LINE.search(line)
        if match and match.group(1) == base:
            code = line[:match.start()].rstrip()  # a comment before `; file:N` stays
            lineno = int(match.group(2))
            rows.append((code, lineno, _source_line(filename, lineno)))
            found = True
        else:
            rows.append((line, None, ""))
    if not found:
        return None
    return CodeBlock(title="%s next to your source (%s)" % (block.title, base), anchor=anchor,
                     text=block.text, path=block.path, kind="side_by_side",
                     language="side_by_side", rows=rows)


def _source_line(filename, lineno):
    if not filename or not lineno:
        return ""
    return linecache.getline(filename, int(lineno)).rstrip("\n")


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_EXAMPLES_DIR = os.path.join(_PACKAGE_DIR, "examples")
_RUNPY = ("<frozen runpy>", os.path.splitext(os.path.abspath(__import__("runpy").__file__))[0])


def _is_tool_frame(frame):
    """Frames of ``dynalens run`` and runpy, which sit under every user stack it starts.

    They are dynalens's plumbing, not the user's code, so the report hides them (the examples
    shipped inside the package are user code for this purpose).
    """
    name = frame.filename
    if name in _RUNPY[:1] or os.path.splitext(name)[0] == _RUNPY[1]:
        return True
    path = os.path.abspath(name) if name and not name.startswith("<") else ""
    return (path.startswith(_PACKAGE_DIR + os.sep)
            and not path.startswith(_EXAMPLES_DIR + os.sep))


_TB_FILE = re.compile(r'^(\s*)File "([^"]+)", line \d+')


def _strip_tool_frames(text):
    """Drop runpy's and dynalens's own entries from a traceback quoted in torch's message."""
    out = []
    skipping_indent = None
    for line in text.splitlines():
        m = _TB_FILE.match(line)
        if m:
            skipping_indent = len(m.group(1)) if _is_tool_frame(Frame(m.group(2), None)) else None
            if skipping_indent is not None:
                continue
        elif skipping_indent is not None:
            # The source line and caret line under a skipped "File ..." entry are indented more.
            if line.strip() and len(line) - len(line.lstrip()) > skipping_indent:
                continue
            skipping_indent = None
        out.append(line)
    return "\n".join(out)


def _user_stack(entries):
    frames = [_frame(f) for f in entries or [] if isinstance(f, dict)]
    return [f for f in frames if not _is_tool_frame(f)]


def _frame(entry):
    filename = entry.get("filename") or ""
    lineno = entry.get("line", entry.get("lineno"))
    line = entry.get("loc") or entry.get("source_line") or _source_line(filename, lineno)
    return Frame(filename=filename, lineno=lineno, name=entry.get("name") or "", line=line.strip())


def _context(filename, lineno):
    """The lines around a user's line, read from their file now (empty if it is gone)."""
    if not filename or not lineno:
        return []
    lineno = int(lineno)
    frames = []
    for n in range(max(1, lineno - CONTEXT_LINES), lineno + CONTEXT_LINES + 1):
        text = linecache.getline(filename, n)
        if not text and n > lineno:
            break
        frames.append(Frame(filename=filename, lineno=n, line=text.rstrip("\n")))
    if not any(f.line.strip() for f in frames):
        return []
    return frames


MAX_SOURCE_LINES = 400


def _function_source(fn):
    """The user's function as it is in its file now (decorators included), or None.

    Read at report time, so an edited file shows its new text; the graph-break and stack lines
    come from torch's records instead, which is why those stay right.
    """
    if not fn.filename or not fn.firstlineno:
        return None
    lines = linecache.getlines(fn.filename)
    start = int(fn.firstlineno) - 1
    if not 0 <= start < len(lines):
        return None
    try:
        block = inspect.getblock(lines[start:start + MAX_SOURCE_LINES])
    except (SyntaxError, tokenize.TokenError, IndentationError):
        return None
    text = textwrap.dedent("".join(block))
    if not text.strip():
        return None
    return CodeBlock(title="%s (your source, %s:%s)" % (fn.name.split(" ")[-1],
                                                        os.path.basename(fn.filename),
                                                        fn.firstlineno),
                     anchor=_anchor(fn.anchor, "source"), text=text, kind="source")


def _graph_break(entry, compile_id):
    """One graph break; its headline is the cause at the user's line.

    Since issue 14 the index gives the cause as `reason` and torch's generic step as
    `context`, and `user_frame` for a break inside torch's own code (optimizer.step()): the
    excerpt shows the user's line, not torch's.
    """
    user = entry.get("user_frame") if isinstance(entry.get("user_frame"), dict) else None
    if user and user.get("filename"):
        filename, lineno = user.get("filename"), user.get("line")
        name, recorded = user.get("name") or entry.get("function") or "", user.get("source_line")
    else:
        filename = entry.get("filename") or ""
        lineno = entry.get("line", entry.get("lineno"))
        name, recorded = entry.get("function") or "", entry.get("source_line")
    reason = entry.get("reason") or "graph break"
    detail = _strip_tool_frames(entry.get("detail") or "")
    if detail.strip() == reason.strip():
        detail = ""
    frame = None
    if filename or lineno:
        frame = Frame(filename=filename, lineno=lineno, name=name,
                      line=(recorded or _source_line(filename, lineno)).strip())
    context = _context(filename, lineno)
    if frame is not None and context and frame.line:
        # Prefer the line torch recorded: the file may have changed since the run.
        for f in context:
            if f.lineno == lineno and f.line.strip() != frame.line:
                context = []
                break
    step = entry.get("context") if isinstance(entry.get("context"), str) else None
    return GraphBreak(reason=reason, detail=detail, frame=frame, compile_id=compile_id,
                      context=context, step=step,
                      stack=_user_stack(entry.get("stack")))


_REASON_START = re.compile(r"^\d+/\d+(?:_\d+)?: ")


def _merge_reason_lines(items):
    """Rejoin multi-line recompile reasons that arrive one line per item.

    torch's reason for a failed cache entry is several lines (``0/3: n == 3`` then a user stack
    trace); each reason starts with the entry's compile id, so a line without one continues the
    reason before it.
    """
    items = [str(r) for r in items or []]
    if not items or not _REASON_START.match(items[0]):
        return items
    merged = []
    for line in items:
        if _REASON_START.match(line) or not merged:
            merged.append(line)
        else:
            merged[-1] += "\n" + line
    return merged


def _count_repeats(items):
    """Identical strings once each, in first-seen order, with how often they occurred."""
    counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [item if n == 1 else "%s\n(%d times)" % (item, n) for item, n in counts.items()]


_RESUME_GLOBAL = re.compile(r"\b__resume_at_(\d+)_(\d+)\b")


def _resume_aliases(transformed_text, resume_entries):
    """Pair the ``__resume_at_<offset>_<n>`` globals in transformed code with resume functions.

    Returns resume-function name -> list of globals. The index names a resume function by its
    code name (``torch_dynamo_resume_in_f_at_12``) and may give the global it is stored under
    (``global_name``). When it does not: with as many globals as functions, they are matched
    in bytecode-offset order to the functions in line order, which is how Dynamo creates them
    (a later resume point is later in both); when every function has one name (both branches
    of an ``if`` resume at the same line), all globals lead to it.
    """
    aliases = {}
    missing = []
    for entry in resume_entries:
        globs = entry.get("global_names") or [entry.get("global_name") or entry.get("global")]
        globs = [g for g in globs if isinstance(g, str) and g]
        if globs:
            aliases.setdefault(entry.get("name"), []).extend(globs)
        else:
            missing.append(entry)
    if missing and transformed_text:
        taken = {g for globs in aliases.values() for g in globs}
        found = sorted({(int(m.group(1)), m.group(0))
                        for m in _RESUME_GLOBAL.finditer(transformed_text)})
        names = [g for _, g in found if g not in taken]
        if len(names) == len(missing):
            ordered = sorted(missing, key=lambda e: (e.get("line") or 0))
            for entry, glob in zip(ordered, names):
                aliases.setdefault(entry.get("name"), []).append(glob)
        elif names and len({e.get("name") for e in missing}) == 1:
            aliases.setdefault(missing[0].get("name"), []).extend(names)
    return aliases


def _guard_count(guards):
    """(checks, note): the one guard count the page shows, and why torch's differs.

    The count is the checks of the dumped guard function; torch's `guard_count` metric
    counts Dynamo's guards before they are built into checks (one tensor match becomes the
    tensor check plus its dynamic-dimension and aliasing checks), so it is smaller.
    """
    checks = guards.get("count") if isinstance(guards.get("count"), int) else None
    theirs = guards.get("torch_guard_count")
    note = None
    if checks is not None and isinstance(theirs, int) and theirs != checks:
        note = ("%d checks in the guard function; torch's guard_count metric says %d because it "
                "counts Dynamo's guards before they are built into checks" % (checks, theirs))
    return checks, note


def _compile(reader, entry, ordinal):
    key = str(entry.get("key") or entry.get("compile_id") or ordinal)
    cid = str(entry.get("compile_id") or key)
    pid = str(entry.get("pid") or "")
    prefix = reader.prefix
    anchor = _anchor("c", prefix, key)
    comp = Compile(
        compile_id=(prefix.rstrip("/") + " " if prefix else "") + cid,
        key=prefix + key,
        anchor=anchor,
        function=entry.get("function") or "?",
        filename=entry.get("filename") or "",
        firstlineno=entry.get("firstlineno"),
        stack=_user_stack(entry.get("stack")),
        recompile_reasons=_merge_reason_lines(entry.get("recompile_reasons")),
        process=prefix + pid,
        is_resume=bool(entry.get("is_resume")),
        resume_of=entry.get("resume_of"),
        resumes_at_line=entry.get("resumes_at_line"),
        metrics={k: v for k, v in (entry.get("metrics") or {}).items()
                 if isinstance(v, (int, float)) and not isinstance(v, bool)},
    )
    comp.graph_breaks = [_graph_break(b, cid) for b in entry.get("graph_breaks") or []]

    guards = entry.get("guards") or {}
    comp.guard_checks, comp.guard_note = _guard_count(guards)
    if guards.get("file"):
        note = "%s guard checks" % comp.guard_checks if comp.guard_checks is not None else None
        comp.guards = reader.block(guards["file"], "guards", guards.get("function") or guards["file"],
                                   _anchor(anchor, "guards"), note)
    comp.guard_failures = _count_repeats(str(r) for r in guards.get("failures") or [])
    if len(comp.recompile_reasons) > SHOWN_REASONS:
        comp.all_reasons = CodeBlock(
            title="all %d guard failures that led to this compile" % len(comp.recompile_reasons),
            anchor=_anchor(anchor, "reasons"), text="\n".join(comp.recompile_reasons),
            kind="reasons", language="text")
    if len(comp.guard_failures) > SHOWN_REASONS:
        comp.all_failures = CodeBlock(
            title="all %d ways later calls failed these guards" % len(comp.guard_failures),
            anchor=_anchor(anchor, "failures"), text="\n".join(comp.guard_failures),
            kind="reasons", language="text")

    tc = entry.get("transformed_code") or {}
    if tc.get("file"):
        note = None
        if tc.get("decompiled") is False:
            comp.badges.append("not decompiled")
            note = "decompilation failed: %s" % (tc.get("error") or "unknown error")
        elif tc.get("verified") is False:
            comp.badges.append("not verified")
            note = "decompiled source does not recompile to the same bytecode"
        comp.transformed = reader.block(tc["file"], "transformed",
                                        tc.get("function") or tc["file"],
                                        _anchor(anchor, "transformed"), note)
        comp.side_by_side = side_by_side(comp.transformed, comp.filename,
                                         _anchor(anchor, "side"))

    if entry.get("full_code"):
        comp.full_code = reader.block(entry["full_code"], "full_code", entry["full_code"],
                                      _anchor(anchor, "full"))
        comp.full_code.text, shortened = _full_code_excerpt(comp.full_code.text)
        if shortened:
            comp.full_code.note = ("the file's header and dispatcher; its versions are the "
                                   "blocks above and those of the earlier compiles (open the "
                                   "file for all in one)")

    resume_entries = [r for r in entry.get("resume_functions") or [] if isinstance(r, dict)]
    aliases = _resume_aliases(comp.transformed.text if comp.transformed else "", resume_entries)
    for i, r in enumerate(resume_entries):
        if not r.get("file"):
            continue
        name = r.get("name") or r["file"]
        own = [g for g in r.get("global_names") or () if isinstance(g, str)]
        called_as = own or aliases.get(name, [])
        note = "called as %s" % " / ".join(called_as) if called_as else None
        if r.get("resumes_at_line"):
            note = "%sresumes at line %s" % (note + "; " if note else "", r["resumes_at_line"])
        block = reader.block(r["file"], "resume", name, _anchor(anchor, "resume", i), note)
        block.aliases.extend(called_as)
        block.targets.extend(prefix + str(k) for k in r.get("compiles") or ())
        comp.resume.append(block)

    for g in entry.get("graphs") or []:
        name = g.get("name") or "graph"
        graph = Graph(name=name, anchor=_anchor("g", prefix, key, name))
        for j, st in enumerate(g.get("stages") or []):
            if isinstance(st, str):
                st = {"file": st, "stage": st}
            if not st.get("file"):
                continue
            stage = st.get("stage") or "graph"
            graph.stages.append(reader.block(st["file"], "graph", "%s %s" % (name, stage),
                                             _anchor(graph.anchor, "s", j)))
        for j, kern in enumerate(g.get("kernels") or []):
            rel = kern.get("file") if isinstance(kern, dict) else kern
            if rel:
                graph.kernels.append(reader.block(rel, "kernel", rel, _anchor(graph.anchor, "k", j)))
        comp.graphs.append(graph)
    return comp, key


def _function_key(reader, entry, comp):
    """Which compiles are one function: those of one code object.

    torch numbers code objects (`frame_id`, restarted after torch._dynamo.reset(), which the
    key's "#<n>" counts; a second process's "@<pid>"). Two resume functions share a name when
    both branches of an `if` resume at its line, yet are two code objects: grouping by name
    would count the second as a recompilation of the first. Indexes without `frame_id` group
    by name and place.
    """
    process = comp.process.split("/")[0] if reader.prefix else ""
    key = str(entry.get("key") or "")
    generation = key.partition("#")[2].partition("@")[0]
    pid = str(entry.get("pid") or "")
    if isinstance(entry.get("frame_id"), int):
        return (process, pid, generation, "frame", entry["frame_id"])
    return (process, comp.function, comp.filename, comp.firstlineno)


def _load_index(reader, index, dump):
    if index.get("format") not in (None, "dynalens-dump"):
        reader.warn("index.json says format %r; reading it as a dynalens dump" % index.get("format"))
    version = index.get("format_version")
    if isinstance(version, int) and version > 1:
        reader.warn("index.json is format_version %d, newer than this report knows (1); "
                    "some details may be missing" % version)
    by_key = {}
    functions = {}
    several = len({p.get("pid") for p in index.get("processes") or []
                   if isinstance(p, dict)}) > 1
    for i, entry in enumerate(index.get("compiles") or []):
        if not isinstance(entry, dict):
            reader.warn("compile entry %d is not an object; skipped" % i)
            continue
        try:
            comp, key = _compile(reader, entry, i)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            reader.warn("compile entry %d (%s) could not be read: %s"
                        % (i, entry.get("compile_id"), exc))
            continue
        by_key[key] = comp
        fn = functions.get(_function_key(reader, entry, comp))
        if fn is None:
            # each process has its own cache: its compiles are its own function's
            suffix = " (pid %s)" % entry.get("pid") if several and entry.get("pid") else ""
            fn = Function(name=(reader.prefix.rstrip("/") + " " if reader.prefix else "")
                          + comp.function + suffix,
                          anchor=_anchor("f", reader.prefix, comp.function, len(dump.functions)),
                          filename=comp.filename, firstlineno=comp.firstlineno,
                          resume_of=comp.resume_of, resumes_at_line=comp.resumes_at_line)
            functions[_function_key(reader, entry, comp)] = fn
            dump.functions.append(fn)
            if not comp.is_resume:
                fn.source = comp.function_source = _function_source(fn)
        fn.compiles.append(comp)

    # Files the compiles do not mention (e.g. a disassembly written after a failed decompile).
    for i, f in enumerate(index.get("files") or []):
        rel = f.get("path") if isinstance(f, dict) else None
        if not rel or rel in reader.seen_paths or f.get("kind") == "bytecode":
            continue   # (bytecode: marshal data written with log_bytecode, not text)
        kind = _KINDS.get(f.get("kind"), f.get("kind") or "file")
        owner = by_key.get(str(f.get("compile")))
        block = reader.block(rel, kind, rel, _anchor("o", reader.prefix, i))
        (owner.other if owner is not None else dump.unattached).append(block)

    for w in index.get("warnings") or []:
        reader.warn("lens: %s" % re.sub(r"^dynalens: ", "", str(w)))


def _load_folder(root, prefix, dump, depth=0):
    reader = _Reader(root, prefix)
    index_path = os.path.join(root, INDEX_NAME)
    index = None
    if os.path.exists(index_path):
        try:
            with open(index_path, encoding="utf-8") as f:
                index = json.load(f)
        except (OSError, ValueError) as exc:
            reader.warn("%s%s could not be read (%s); showing the files by name"
                        % (prefix, INDEX_NAME, exc))
    if index is None:
        from .scan import index_from_names

        index = index_from_names(root)
        if index is None:
            if depth == 0:
                raise NotADump("%s is not a dynalens dump folder: it has no %s and no dumped "
                               "files" % (root, INDEX_NAME))
            return reader.warnings
        if not os.path.exists(index_path):
            reader.warn("no %s in %s; the report is built from file names only, without "
                        "graph breaks, reasons or call stacks" % (INDEX_NAME, prefix or "the folder"))
    if not isinstance(index, dict):
        if depth == 0:
            raise NotADump("%s: %s is not a JSON object" % (root, INDEX_NAME))
        reader.warn("%s%s is not a JSON object; skipped" % (prefix, INDEX_NAME))
        return reader.warnings
    _load_index(reader, index, dump)
    warnings = reader.warnings
    for sub in index.get("subdumps") or []:
        rel = sub.get("path") if isinstance(sub, dict) else sub
        if not rel or depth > 2:
            continue
        sub_root = os.path.join(root, rel)
        if not os.path.isdir(sub_root):
            warnings.append("subdump %s%s is missing" % (prefix, rel))
            continue
        warnings.extend(_load_folder(sub_root, prefix + rel.rstrip("/") + "/", dump, depth + 1))
    return warnings


def _connect_resume_functions(dump):
    """Link each resume-function block to the section where that function's compiles are.

    The index names the compiles of each resume function's code object (`compiles`); older
    indexes only its name, which two resume functions can share (then the first is linked).
    """
    sections, by_key = {}, {}
    for fn in dump.functions:
        process = fn.compiles[0].process if fn.compiles else ""
        sections.setdefault((process, fn.compiles[0].function if fn.compiles else fn.name), fn)
        for comp in fn.compiles:
            by_key[comp.key] = fn
    for comp in dump.compiles:
        for block in comp.resume:
            fns = [by_key[k] for k in block.targets if k in by_key]
            fn = fns[0] if fns else sections.get((comp.process, block.title))
            if fn is not None:
                ids = ", ".join(c.compile_id for c in fn.compiles)
                block.see_also.append(("compiled as %s" % ids, fn.anchor))
        if comp.resume_of:
            parent = sections.get((comp.process, comp.resume_of))
            if parent is not None:
                comp.resume_of_anchor = parent.anchor


def _dedupe(messages):
    counts = {}
    for m in messages:
        counts[m] = counts.get(m, 0) + 1
    return [m if n == 1 else "%s (%d times)" % (m, n) for m, n in counts.items()]


def load_dump(dump_dir):
    """Read ``dump_dir`` into a :class:`~dynalens.report.model.Dump`."""
    root = os.path.abspath(dump_dir)
    dump = Dump(root=root, title="dynalens: %s" % os.path.basename(root.rstrip(os.sep)))
    dump.warnings.extend(_dedupe(_load_folder(root, "", dump)))
    _connect_resume_functions(dump)
    return dump
