"""`full_code_for_<fn>_<n>.py`: every cached version of a function in one runnable program.

torch keeps, per code object, a list of cache entries (guards + transformed code), newest
first; a call runs the first entry whose guards pass, and when none passes Dynamo compiles the
frame again. The file written after the n-th compile of a function shows that list as it stood
then: for each version its guard function, its transformed code, the resume functions that code
calls, and the graphs it calls bound to their `Captured_Graph` files; then the function's own
code (what runs when no guard passes, where torch would compile again), and a dispatcher,
`transformed_<fn>(...)`, that picks the version the way torch does. `python FILE` defines it
all; imported in the process that compiled (e.g. `runpy.run_path`), the dispatcher reproduces
torch's choice for given arguments (guards check objects by identity, so in another process
they fail and the dispatcher falls through to the function's own code).
"""

import ast
import functools
import inspect
import os

from .source import signature_of

_BANNER = "# " + "=" * 70


class Version:
    """One cache entry of the function, as dumped: the names the dispatcher calls and the
    sections that define them."""

    def __init__(self, key, guard_name, transformed_name, sections, resume_bindings,
                 graph_bindings):
        self.key = key                        # the compile's key ("0/1")
        self.guard_name = guard_name          # None: no guard function (entry gone from cache)
        self.transformed_name = transformed_name  # None: not decompiled (disassembly only)
        self.sections = sections              # [(title, text)]
        # [(section index, global name, def name)]: the transformed code calls the resume
        # function that section defines by that global name
        self.resume_bindings = resume_bindings
        self.graph_bindings = graph_bindings  # [(global name, Captured_Graph file name)]


def _section(title, text):
    return ["", _BANNER, "# %s" % title, _BANNER, text.rstrip("\n")]


def full_code_text(header_lines, fn_name, code, versions, original_text, original_error,
                   module_name=None):
    """The file's text. `versions` newest first (torch's order); `code` is the frame's code
    object (for the dispatcher's signature); `original_text` the decompiled function itself
    (or None, with `original_error` saying why); `module_name` the `__name__` of the frame's
    globals, whose other names (the program's helpers, modules, Dynamo's `__import_*`
    aliases) the code reads."""
    dispatcher = "transformed_%s" % fn_name
    cached = [v for v in versions if v.guard_name is not None]
    lines = ["# " + h for h in header_lines] + [
        "# Every version torch.compile has cached for %s at this point (%d), newest first, "
        "each" % (fn_name, len(cached)),
        "# with its guards, transformed code and the resume functions and graphs it calls; then",
        "# %s itself and %s(...), which picks a version the way torch does:" % (
            fn_name, dispatcher),
        "# the first (most recent) cache entry whose guards pass; none: torch compiles again.",
        "",
        "import os as __dynalens_os",
        "import runpy as __dynalens_runpy",
        "",
        "",
        "def __dynalens_graph(file_name, __cache={}):",
        "    \"\"\"The GraphModule of a dumped Captured_Graph file (beside this one), built once:",
        "    what a __compiled_fn_<k> runs, eagerly (the backend's kernels are not in the dump).\"\"\"",
        "    if file_name not in __cache:",
        "        path = __dynalens_os.path.join(__dynalens_os.path.dirname("
        "__dynalens_os.path.abspath(__file__)), file_name)",
        "        __cache[file_name] = __dynalens_runpy.run_path(path, run_name="
        "\"dynalens_graph\")[\"GraphModule\"]()",
        "    return __cache[file_name]",
    ]
    if module_name:
        lines += [
            "",
            "",
            "# The code below reads globals of its own module (%s, in %s): in the process that"
            % (module_name, code.co_filename),
            "# compiled, where that module is loaded, its names are used as they are now.",
            "import sys as __dynalens_sys",
            "__dynalens_module = __dynalens_sys.modules.get(%r)" % module_name,
            "if __dynalens_module is not None and getattr(__dynalens_module, '__file__', None) "
            "== %r:" % code.co_filename,
            "    globals().update({__k: __v for __k, __v in vars(__dynalens_module).items()",
            "                      if not __k.startswith('__') or __k.startswith('__import_')})",
        ]
    aliases = {}          # section text -> the name its def is kept under
    defined = set()       # top-level names the sections so far define
    for number, v in enumerate(versions):
        title = "version %d of %d: compile %s%s" % (
            len(versions) - number, len(versions), v.key,
            "" if v.guard_name is not None else " (no longer in torch's cache: not dispatched)")
        lines += ["", "", "# " + "#" * 70, "# " + title, "# " + "#" * 70]
        binds = {}
        for index, global_name, def_name in v.resume_bindings:
            binds.setdefault(index, []).append((global_name, def_name))
        bindings = []
        for index, (sec_title, text) in enumerate(v.sections):
            if text in aliases:   # a resume function several versions call: once
                lines += ["", "# %s: defined above" % sec_title]
            else:
                lines += _section(sec_title, text)
                names = _toplevel_names(text)
                defined |= names
                aliases[text] = None
                def_name = next((d for _, d in binds.get(index, ())), None)
                if def_name in names:
                    # two resume functions may share a name (both branches of an `if`): each
                    # is kept under a name of its own before the next def replaces it
                    aliases[text] = "__dynalens_resume_%d" % len(aliases)
                    lines += ["%s = %s" % (aliases[text], def_name)]
            for global_name, _ in binds.get(index, ()):
                if aliases[text] is not None:   # (a nested def sits in its enclosing function)
                    bindings += ["", "%s = %s  # the resume function this code calls by that "
                                 "name" % (global_name, aliases[text])]
        for global_name, file_name in v.graph_bindings:
            bindings += ["", "",
                         "def %s(*args):" % global_name,
                         "    \"\"\"Graph %s, run eagerly from its dumped file.\"\"\"" % (
                             os.path.splitext(file_name)[0].split(".")[0]),
                         "    return __dynalens_graph(%r)(*args)" % file_name]
        if bindings:
            lines += ["", _BANNER, "# names the transformed code calls", _BANNER] + bindings[1:]
    lines += ["", "", "# " + "#" * 70,
              "# %s itself: what runs when no guard passes (torch would compile it again)"
              % fn_name, "# " + "#" * 70]
    if original_text is not None:
        lines.append(original_text.rstrip("\n"))
        defined |= _toplevel_names(original_text)
    else:
        lines.append("# (could not be decompiled: %s)" % original_error)
    lines += _dispatcher(dispatcher, fn_name, code, cached, original_text is not None,
                         defined)
    return "\n".join(lines) + "\n"


def _dispatcher(name, fn_name, code, cached, have_original, toplevel):
    sig = signature_of(code)
    args = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount
                            + bool(code.co_flags & inspect.CO_VARARGS)
                            + bool(code.co_flags & inspect.CO_VARKEYWORDS)]
    call = _call_args(code)
    out = ["", "", "# " + "#" * 70,
           "# the dispatcher: torch's choice among the cached versions", "# " + "#" * 70,
           "def %s(%s):" % (name, sig)]
    if code.co_freevars:
        # torch's guards read the free variables as frame locals, and the code that reads them
        # is decompiled inside its enclosing function: nothing here can stand in for the frame
        return out + ["    raise RuntimeError(%r)" % (
            "%s is a closure (free variables: %s): its guards and code read them from its "
            "enclosing function's frame, so this nested code cannot be dispatched here; the "
            "versions above show what torch runs" % (fn_name, ", ".join(code.co_freevars)))]
    out += ["    __local_dict = {%s}" % ", ".join("%r: %s" % (a, a) for a in args),
            "    __global_dict = globals()"]
    for v in cached:
        if v.transformed_name is not None and v.transformed_name not in toplevel:
            out += ["    if %s(__local_dict, __global_dict):" % v.guard_name,
                    "        raise RuntimeError(%r)" % (
                        "compile %s runs here, but its code is nested (a closure or a local "
                        "function): its def sits inside the enclosing function above, where the "
                        "dispatcher cannot call it" % v.key)]
        elif v.transformed_name is not None:
            out += ["    if %s(__local_dict, __global_dict):" % v.guard_name,
                    "        return %s(%s)" % (v.transformed_name, call)]
        else:
            out += ["    if %s(__local_dict, __global_dict):" % v.guard_name,
                    "        raise RuntimeError(%r)" % (
                        "compile %s runs here, but its transformed code could not be "
                        "decompiled (see its disassembly file)" % v.key)]
    if have_original and fn_name not in toplevel:
        out += ["    raise LookupError(%r)" % (
            "no cached version's guards pass: torch would compile %s again (a nested function: "
            "its def sits inside the enclosing function above)" % fn_name)]
    elif have_original:
        out += ["    # no guard passed: torch would compile %s again; here it runs as it is"
                % fn_name, "    return %s(%s)" % (fn_name, call)]
    else:
        out += ["    raise LookupError(%r)" % ("no cached version's guards pass: torch would "
                                                "compile %s again" % fn_name)]
    return out


@functools.lru_cache(maxsize=4096)   # earlier versions' sections recur in every later file
def _toplevel_names(text):
    """Names the module text defines at its top level (def, class, assignment)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _call_args(code):
    """The arguments of a call that passes the frame's parameters on unchanged."""
    names = code.co_varnames
    pos = code.co_argcount
    kwonly = code.co_kwonlyargcount
    parts = list(names[:pos])
    i = pos + kwonly
    if code.co_flags & inspect.CO_VARARGS:
        parts.append("*" + names[i])
        i += 1
    parts += ["%s=%s" % (n, n) for n in names[pos:pos + kwonly]]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        parts.append("**" + names[i])
    return ", ".join(parts)
