"""debug()'s pause on entry: stop in a debugger so the user can set breakpoints in the dump.

The workflow users know from the reference tool: run the program under a debugger; on entering
`with debug():` it pauses; open the dumped files, set breakpoints, continue; the debugger stops
there with live tensors. The pause is a `breakpoint()` in a frame of ours, so whatever answers
`breakpoint()` applies: pdb, `PYTHONBREAKPOINT`, IDE debuggers (debugpy/VS Code, PyCharm
install their own `sys.breakpointhook`).

A `breakpoint()` nobody can answer must not stop a run, though: pdb on a pipe or /dev/null
blocks forever or quits the program. So the pause happens only when something says a person or
a debugger is there (`debugger_present`), and otherwise the message says how to get the pause
and the block runs on. The message (printed either way, to stderr) names the dump folder and
the files whose breakpoints the block hits; in the pausing frame they are the locals
`dump_dir` and `files`. That frame's code comes from a small file of its own in a temporary
folder (`_pause_function`), so debuggers that skip library code still stop there.
"""

import os
import sys

# top-level module -> the debugger's name users know
_DEBUGGER_MODULES = {"bdb": "pdb", "pdb": "pdb", "pydevd": "debugpy", "debugpy": "debugpy",
                     "_pydevd_bundle": "debugpy", "_pydev_bundle": "debugpy",
                     "_pydevd_frame_eval": "debugpy", "pydevd_file_utils": "debugpy"}


def debugger_present():
    """(pause, why): whether a `breakpoint()` here would be answered, and a phrase saying why.

    In order: PYTHONBREAKPOINT set (the user chose the hook; "0" turns breakpoint() off);
    `sys.breakpointhook` replaced (debugpy's returns at once when no client is attached); a
    debugger's trace function on this thread (pdb with breakpoints set) or sys.monitoring's
    debugger slot taken (3.12+); a debugger's driver on the stack (`python -m pdb`, debugpy);
    stdin a terminal (pdb prompts there). Anything else is a run nobody watches.
    """
    hook = os.environ.get("PYTHONBREAKPOINT")
    if hook == "0":
        return False, "PYTHONBREAKPOINT=0 turns breakpoint() off"
    if hook:
        return True, "PYTHONBREAKPOINT=%s" % hook
    if sys.breakpointhook is not sys.__breakpointhook__:
        return True, "breakpoint hook %s" % _qualname(sys.breakpointhook)
    tracer = _debugger_tracer(sys.gettrace())
    if tracer:
        return True, "%s traces this thread" % tracer
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        try:
            tool = monitoring.get_tool(monitoring.DEBUGGER_ID)
        except Exception:
            tool = None
        if tool:
            return True, "debugger %s (sys.monitoring)" % tool
    driver = _debugger_on_stack()
    if driver:
        return True, "running under %s" % driver
    if _stdin_is_terminal():
        return True, "stdin is a terminal"
    return False, "no debugger is attached and stdin is not a terminal"


def pause_for_debugger(session):
    """Print where the dump is and which files to open; pause when someone can answer."""
    dump_dir = session.run.dump_dir
    try:
        files = breakpoint_files(session)
        text = _message(session, dump_dir, files)
    except Exception as exc:     # a lens problem never stops the program: a shorter message
        files = []
        text = "Dump: %s (index.json lists every file; the file list failed: %s: %s)\n" % (
            dump_dir, type(exc).__name__, exc)
    try:
        pause, why = debugger_present()
    except Exception as exc:
        pause, why = False, "could not tell whether a debugger is attached (%s)" % exc
    if not pause:
        _say("dynalens.debug(): not pausing (%s); the block runs now.\n%s"
             "To pause here and set breakpoints first, run the program under a debugger "
             "(`python -m pdb prog.py`, VS Code's Python debugger) or with "
             "PYTHONBREAKPOINT=pdb.set_trace; `debug(pause=False)` skips this message.\n"
             % (why, text))
        return
    _stop_here(dump_dir, files,
               "dynalens.debug(): paused before the block runs (%s).\n%s"
               "Set breakpoints in these files, then continue: in pdb `b FILE:LINE` then `c`; in "
               "VS Code open a file, click left of a line number, then Continue (F5).\n"
               % (why, text))


def _stop_here(dump_dir, files, message):
    """Print `message`, then `breakpoint()` in the pause file's frame (or, when that file
    cannot be written, in this module's)."""
    _say(message)
    stop = _pause_function(message)
    if stop is None:
        breakpoint()
        return "dynalens.debug(): set breakpoints in `files`, then continue"  # stopped here
    return stop(dump_dir, files)


_PAUSE_SOURCE = '''\
def dynalens_debug_pause(dump_dir, files):
    breakpoint()
    return "continue to run the block"  # <- dynalens.debug() stopped here
'''


_pause_folder = {}     # this process's folder for the pause file (a fork gets its own)


def _pause_function(message):
    """The function to stop in, compiled from a file of its own whose comments repeat
    `message` (with file:// links an editor opens on a click), or None.

    Why not a frame of this module: debuggers skip library code by default (VS Code's
    `justMyCode`), and with dynalens installed in site-packages debugpy ignores a
    `breakpoint()` made there. The pause file lives in a fresh temporary folder, so every
    debugger takes it for the user's code, and what the editor shows at the stop explains it.
    """
    try:
        import tempfile

        if _pause_folder.get("pid") != os.getpid():
            _pause_folder.update(pid=os.getpid(), path=tempfile.mkdtemp(prefix="dynalens-"))
        path = os.path.join(_pause_folder["path"], "dynalens_debug_pause.py")
        text = "".join("# " + line + "\n" for line in _linked(message).splitlines())
        text += "\n" + _PAUSE_SOURCE
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        namespace = {"__name__": "dynalens_debug_pause", "__file__": path}
        exec(compile(text, path, "exec"), namespace)
        return namespace["dynalens_debug_pause"]
    except Exception:
        return None


def _linked(message):
    """`message` with the absolute paths of its file list as file:// links."""
    import re
    from urllib.request import pathname2url

    def link(m):
        return m.group(1) + "file://" + pathname2url(m.group(2))

    return re.sub(r"^(  \S.*?  )(/\S+\.py)$", link, message, flags=re.M)


def breakpoint_files(session):
    """[(kind, label, path)] of the files the block runs from, in the order they were dumped:
    kind is "transformed code", "resume function" (the transformed code Dynamo made of a
    resume function: what runs at a graph break) or "graph"."""
    resumes = set()
    for dc in session.run.compiles:
        if (dc.entry or {}).get("is_resume"):
            resumes.add(dc.key)
    files = []
    for cid, path in session.swapped + session.relabeled:
        kind = "resume function" if cid in resumes else "transformed code"
        files.append((kind, cid, path))
    files.sort(key=lambda f: f[0] == "resume function")     # stable: dump order within
    for global_name, path in session.graphs_swapped:
        from .dump import graph_short_name

        files.append(("graph", graph_short_name(global_name), path))
    return files


def _message(session, dump_dir, files):
    lines = ["Dump: %s (index.json lists every file)" % dump_dir]
    if files:
        lines.append("Breakpoints in these files are hit inside the block:")
        width = max(len(kind) + len(label) for kind, label, _ in files) + 2
        for kind, label, path in files:
            lines.append("  %s  %s" % (("%s %s" % (kind, label)).ljust(width), path))
    else:
        lines.append("No compiled code runs from the dump's files in this block.")
    functions = {dc.key: dc.record.function for dc in session.run.compiles}
    for cid, why in session.not_swapped:
        lines.append("  not from its file: compile %s (%s): %s" % (cid, functions.get(cid), why))
    return "\n".join(lines) + "\n"


def _say(text):
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except Exception:
        pass


def _qualname(obj):
    return "%s.%s" % (getattr(obj, "__module__", None) or "?",
                      getattr(obj, "__qualname__", None) or type(obj).__name__)


def _debugger_tracer(tracer):
    """The debugger's name if `tracer` (a trace function) belongs to one, else None; coverage
    and profilers trace too, and nobody answers a prompt for them."""
    if tracer is None:
        return None
    import bdb

    owner = getattr(tracer, "__self__", tracer)
    if isinstance(owner, bdb.Bdb):
        return type(owner).__name__
    for obj in (tracer, owner, type(owner)):
        module = (getattr(obj, "__module__", None) or "").split(".")[0]
        if module in _DEBUGGER_MODULES:
            return _DEBUGGER_MODULES[module]
    return None


def _debugger_on_stack():
    """A debugger's module among the frames that called us (`python -m pdb` runs the script
    from `bdb.Bdb.run`; debugpy's launcher from pydevd), else None."""
    frame = sys._getframe(1)
    while frame is not None:
        name = (frame.f_globals.get("__name__") or "").split(".")[0]
        if name in _DEBUGGER_MODULES:
            return _DEBUGGER_MODULES[name]
        frame = frame.f_back
    return None


def _stdin_is_terminal():
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except Exception:
        return False
