"""debug(): run compiled code from the dumped files, so breakpoints in them are hit.

Transformed code: torch 2.13 keeps, per code object, a list of "precompile entries" (guard
manager + code to run) that it consults before its own cache (`_load_precompile_entry`, the
surface `torch.compiler` uses to load saved compiles). Inside the block we add one entry per
dumped compile, pairing the compile's own guard manager with the code object compiled from its
dumped file; leaving the block removes them (`_reset_precompile_entries`), and torch's own cache,
untouched throughout, takes over again. Only code objects that `dynalens.verify` found exact are
swapped in; for the others the entry holds Dynamo's own bytecode relabeled to the dumped file's
name and lines (`relabel.py`), so breakpoints work and the program computes the same thing.

Graphs: where the compiled graph is an FX GraphModule (backend "eager"), the frame's global
`__compiled_fn_<k>_...` is pointed, for the block, at the `forward` of the dumped
`Captured_Graph` file bound to that GraphModule, so a breakpoint in the graph file is hit too.
Other backends keep running their compiled graphs, unless `debug(eager_graphs=True)`: then
Dynamo's captured graph runs eagerly from its file in their place (same operations, but not
Inductor's kernels, so floating-point results may differ in the last bits). The global is the
file's bound `forward` itself, with Dynamo told to skip that code and everything it calls
(torch's frame execution strategy), so no frame of ours stands between the transformed code's
`__compiled_fn_<k>(...)` line and the graph file: a debugger's "step into" lands in the file.

Pause: on entry, once everything is swapped, the session stops in a debugger the way the
reference tool does (`pause.py`), so the user can open the dumped files and set breakpoints.
"""

import functools
import types
import weakref

from .pause import pause_for_debugger


class DebugSession:
    def __init__(self, run, eager_graphs=False, pause=True):
        self.run = run
        self.eager_graphs = eager_graphs
        self.pause = pause
        self.swapped = []         # (compile id, file): code compiled from the file, verified
        self.relabeled = []       # (compile id, file): Dynamo's code, lines mapped to the file
        self.not_swapped = []     # (compile id, why)
        self.graphs_swapped = []  # (graph global name, file)
        self.dropped = []         # (compile id, why): swapped, then dropped inside the block
        self._codes = []
        self._finalizers = []
        self._globals_restore = []
        self._active = False

    def __enter__(self):
        from torch._C._dynamo.eval_frame import _load_precompile_entry

        if self._active:
            raise RuntimeError("this debug() block is already active")
        self._active = True
        # objects only cycles keep alive go now, so that torch invalidates the cache entries
        # that guard them by identity before we pair code with those entries' guards
        import gc

        gc.collect()
        self._shared = _shared_by_backends(self.run.compiles)
        _keep_dynamo_out_of_debuggers()
        try:
            for dc in self.run.compiles:
                self._swap_code(dc, _load_precompile_entry)
                self._swap_graphs(dc)
            if self.pause:
                # quitting the debugger here (BdbQuit) leaves the block with nothing swapped
                pause_for_debugger(self)
        except BaseException:
            self._restore()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        self._restore()
        return False

    def _swap_code(self, dc, load):
        cid = dc.key
        res = dc.transformed
        if res is None:
            self.not_swapped.append((cid, "no transformed code was captured"))
            return
        if res.swappable and res.reserved and dc.record.frame_globals is None:
            self.not_swapped.append((cid, "its code reads constants with no literal form as "
                                     "globals, and the frame's globals are unknown"))
            return
        if res.swappable:
            replacement, where = res.compiled, self.swapped
        elif dc.relabeled is not None:
            replacement, where = dc.relabeled, self.relabeled
        else:
            self.not_swapped.append((cid, "decompiled source is not exact: %s" % (
                res.error or res.difference)))
            return
        if id(dc.record.original_code) in self._shared:
            self.not_swapped.append((cid, "the function was compiled by several backends, and "
                                     "torch's precompile entries cannot tell them apart: "
                                     "torch's own cache runs it"))
            return
        found = dc.guard_entry
        if found is None:
            self.not_swapped.append((cid, "its cache entry is gone (torch._dynamo.reset()?)"))
            return
        if not _still_cached(found):
            # torch dropped it: a reset, or an object its guards check by identity was freed
            # (a new model or optimizer may now sit at the old address and pass those checks)
            self.not_swapped.append((cid, "torch has invalidated its cache entry since (reset, "
                                     "or an object its guards check was freed): torch "
                                     "compiles it anew"))
            return
        code = dc.record.original_code
        manager = found["entry"].guard_manager
        guarded = _identity_guarded(manager)
        if guarded is None:
            self.not_swapped.append((cid, "could not find which objects its guards check by "
                                     "identity (torch changed?): torch's own cache runs it"))
            return
        if replacement is res.compiled:
            self._bind_constants(dc.record.frame_globals, res.reserved)
        load(code, manager, replacement)
        if code not in self._codes:
            self._codes.append(code)
        # torch invalidates its entry when such an object is freed (a new one may take its
        # address and pass the identity check); the precompile entry must go with it
        for obj in guarded:
            self._finalizers.append(weakref.finalize(obj, self._forget, code))
        where.append((cid, dc.transformed_path))

    def _bind_constants(self, g, reserved):
        """The file reads Dynamo's constants with no literal form as reserved globals
        (lens/constants.py): bind those very objects in the frame's globals for the block."""
        for name, obj in reserved.items():
            self._globals_restore.append((g, name, g.get(name, _ABSENT)))
            g[name] = obj

    def _forget(self, code):
        """An object the guards of a swapped entry check by identity was freed: drop this
        code object's precompile entries for the rest of the block (torch compiles anew)."""
        from torch._C._dynamo.eval_frame import _reset_precompile_entries

        if code not in self._codes:
            return
        try:
            _reset_precompile_entries(code)
        except Exception:
            pass
        self._codes.remove(code)
        for cid, path in self.swapped + self.relabeled:
            dc = next((d for d in self.run.compiles if d.key == cid), None)
            if dc is not None and dc.record.original_code is code:
                self.dropped.append((cid, "an object its guards check by identity was freed"))

    _shared = frozenset()

    def _swap_graphs(self, dc):
        import torch

        g = dc.record.frame_globals
        if g is None:
            return
        for global_name, stages in dc.graph_files.items():
            paths = stages.get("Captured_Graph")
            if not global_name or not paths or global_name not in g:
                continue
            compiled = g[global_name]
            target = getattr(compiled, "__wrapped__", None)
            gm = getattr(target, "__self__", None)
            if not isinstance(gm, torch.fx.GraphModule):
                # another backend compiled the graph: run Dynamo's graph eagerly instead,
                # only when asked (kernels may round differently from eager)
                if not self.eager_graphs:
                    continue
                ref = dict(dc.record.graph_modules).get(global_name)
                gm = ref() if ref is not None else None
                if not isinstance(gm, torch.fx.GraphModule):
                    continue
            forward = _load_graph_forward(paths[0], gm)
            if forward is None:
                continue
            self._globals_restore.append((g, global_name, compiled))
            g[global_name] = _dynamo_off(forward)
            self.graphs_swapped.append((global_name, paths[0]))

    def _restore(self):
        from torch._C._dynamo.eval_frame import _reset_precompile_entries

        for code in self._codes:
            try:
                _reset_precompile_entries(code)
            except Exception:
                pass
        self._codes = []
        for finalizer in self._finalizers:
            finalizer.detach()
        self._finalizers = []
        for g, name, value in reversed(self._globals_restore):
            if value is _ABSENT:
                g.pop(name, None)
            else:
                g[name] = value
        self._globals_restore = []
        self._active = False


_ABSENT = object()  # a global that was not bound before the block


def _load_graph_forward(path, gm):
    """`forward` of the dumped graph class, bound to the live GraphModule `gm` (or None)."""
    import torch

    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        ns = dict(getattr(gm.forward, "__globals__", {}))
        ns.setdefault("torch", torch)
        ns["__name__"] = "dynalens_graph"
        ns["__file__"] = path
        exec(compile(source, path, "exec"), ns)
        cls = ns.get("GraphModule")
        if cls is None:
            cls = next((v for v in ns.values() if isinstance(v, type)
                        and issubclass(v, torch.nn.Module) and "forward" in vars(v)), None)
        if cls is None:
            return None
        return types.MethodType(vars(cls)["forward"], gm)
    except Exception:
        return None


# Python debuggers whose own code runs on the stopped thread (pdb's is stdlib, and Dynamo
# finds no tensors in its frames; debugpy's evaluation code breaks Dynamo's tracer)
_DEBUGGER_PACKAGES = ("debugpy", "pydevd")
_skipped_debuggers = set()


def _keep_dynamo_out_of_debuggers():
    """Put the debuggers' packages on Dynamo's skip list (`torch._dynamo.trace_rules.add`).

    At a breakpoint in compiled code Dynamo's frame callback is still installed (the
    transformed code needs it: the resume functions it calls are compiled frames), so the
    debugger's own Python code, run on that thread to answer "evaluate" or "variables", would be
    compiled by Dynamo: slow, and debugpy's evaluation path makes Dynamo's tracer fail, which
    hangs the request (seen on torch 2.13, debugpy 1.8.22). Skipping a debugger's code changes
    nothing a program computes, so it stays skipped after the block.
    """
    import sys

    try:
        from torch._dynamo import trace_rules
    except Exception:
        return
    for name in _DEBUGGER_PACKAGES:
        if name in _skipped_debuggers or name not in sys.modules:
            continue
        try:
            trace_rules.add(name)
            _skipped_debuggers.add(name)
        except Exception:
            pass


def _dynamo_off(forward):
    """`forward`, callable from compiled code with Dynamo off inside it and below.

    Compiled code calls its graphs with Dynamo's frame callback still installed; the graph must
    run as it is, not be compiled again. Telling Dynamo to skip the file's code object and
    everything it calls does that without a wrapper frame (`torch._dynamo.disable` adds two),
    so stepping from the transformed code lands in the graph file. The code object is compiled
    afresh from the file on every `debug()` entry, so the setting touches nothing else.
    """
    try:
        from torch._C._dynamo.eval_frame import set_code_exec_strategy
        from torch._dynamo.types import FrameAction, FrameExecStrategy

        set_code_exec_strategy(forward.__func__.__code__,
                               FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP))
        return forward
    except Exception:
        import torch

        return torch._dynamo.disable(forward)


def _shared_by_backends(compiles):
    """ids of code objects that several torch.compile backends compiled (torch recompiled them
    with a BACKEND_MATCH failure). A precompile entry pairs a guard set with code and knows
    nothing of backends, so the first entry whose guards pass would serve every backend's
    call: the eager backend's transformed code would run in the inductor call's place."""
    shared = set()
    for dc in compiles:
        if any("BACKEND_MATCH" in reason for reason in dc.record.recompile_reasons):
            shared.add(id(dc.record.original_code))
    return shared


def _still_cached(found):
    """Is the cache entry the dump paired with this compile still one torch would use?"""
    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        manager = found["entry"].guard_manager
        if type(manager).__name__ == "DeletedGuardManagerWrapper" or \
                manager is not found.get("manager", manager):
            return False  # torch replaced the guards with one that always fails
        return any(entry.guard_manager is manager
                   for entry in _debug_get_cache_entry_list(found["code"]))
    except Exception:
        return False


def _identity_guarded(manager):
    """The live objects that ``manager``'s guards check by identity, or None if unknown.

    torch registers, for each such object, ``weakref.finalize(obj, partial(invalidate, ...))``
    on the guards' CheckFunctionManager, whose ``guard_manager`` is ``manager``: found among the
    registered finalizers (read only; nothing of torch's is changed).
    """
    try:
        found = []
        for info in list(weakref.finalize._registry.values()):
            func = info.func
            if isinstance(func, functools.partial):
                func = func.func
            if getattr(func, "__name__", "") != "invalidate":
                continue
            owner = getattr(func, "__self__", None)
            if getattr(owner, "guard_manager", None) is manager:
                obj = info.weakref()
                if obj is not None:
                    found.append(obj)
        return found
    except Exception:
        return None

