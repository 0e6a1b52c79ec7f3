"""Collect what torch.compile produces, one record per compile id, through torch's own surfaces.

Two sources, both supported by torch 2.13 and both removable:

* `torch._dynamo.convert_frame.register_bytecode_hook` hands over the original and the
  transformed code object of every compiled frame (and lets a hook substitute the latter, which
  `debug` uses);
* a `logging.Handler` on the structured-trace logger ``torch.__trace`` receives every event that
  `TORCH_TRACE` would write (graphs of each stage, Inductor output code, guard trees,
  graph-break and recompile reasons, the user stack), without any environment variable.

Events carry the compile id (`frame_id`, `frame_compile_id`, `attempt`), so both sources meet in
one `CompileRecord`. Nothing here may raise into torch: every entry point catches, records one
warning per kind of problem, and returns.
"""

import functools
import json
import logging
import re
import sys
import threading
import warnings

TRACE_LOGGER = "torch.__trace"

# structured-trace event (or artifact name) -> graph stage name used in file names
GRAPH_EVENTS = {
    "dynamo_output_graph": "Captured_Graph",
    "after_pre_grad_graph": "pre_grad_graph",
    "aot_inference_graph": "Inference_graph",
    "aot_joint_graph": "Joint_graph",
    "aot_forward_graph": "Forward_graph",
    "aot_backward_graph": "Backward_graph",
    "inductor_post_grad_graph": "post_grad_graph",
}
STAGE_ORDER = list(GRAPH_EVENTS.values())

_ID_KEYS = ("frame_id", "frame_compile_id", "attempt", "has_payload", "compiled_autograd_id")
RESUME_PREFIX = "torch_dynamo_resume_in_"
_RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")
_BREAK_AT_RE = re.compile(r"Graph break in user code at (?P<file>.+?):(?P<line>\d+)")
_BREAK_REASON_RE = re.compile(r"Graph Break Reason:\s*(?P<reason>.+)")


def compile_id_string(frame_id, frame_compile_id, attempt):
    """torch's own spelling of a compile id ("0/1", "0/1_2" after a restart)."""
    base = "%s/%s" % (frame_id, frame_compile_id)
    return base if not attempt else "%s_%s" % (base, attempt)


def parse_resume_name(name):
    """('toy_example', 12) for 'torch_dynamo_resume_in_toy_example_at_12', else None."""
    m = _RESUME_RE.match(name or "")
    return (m.group("fn"), int(m.group("line"))) if m else None


class CompileRecord:
    """Everything known about one compile id."""

    def __init__(self, frame_id, frame_compile_id, attempt, generation=0):
        self.frame_id = frame_id
        self.frame_compile_id = frame_compile_id
        self.attempt = attempt
        self.generation = generation    # how many torch._dynamo.reset()s came before
        self.compile_id = compile_id_string(frame_id, frame_compile_id, attempt)
        self.finished = False           # compilation_metrics (the last event) arrived
        self.stack = []
        self.original_code = None       # the frame's code object (user's or a resume function)
        self.transformed_code = None    # what Dynamo put in its place
        self.frame_globals = None       # the frame's globals (resume functions, compiled fns)
        self.graphs = []                # [(stage, payload)] in arrival order
        self.graph_modules = []         # [(global name, weakref to Dynamo's GraphModule)]
        self.output_code = []           # [(inductor file path, payload)]
        self.graph_breaks = []          # [dict]
        self.recompile_reasons = []     # [str]
        self.guard_tree = None          # torch's guard tree as text
        self.metrics = {}
        self.rank = None

    @property
    def key(self):
        return (self.generation, self.frame_id, self.frame_compile_id, self.attempt)

    @property
    def index_key(self):
        """Unique within a run: torch restarts compile ids after torch._dynamo.reset()."""
        if self.generation:
            return "%s#%d" % (self.compile_id, self.generation)
        return self.compile_id

    @property
    def function(self):
        code = self.original_code
        if code is not None:
            return code.co_name
        return self.metrics.get("co_name") or "frame_%s" % self.frame_id

    def __repr__(self):
        return "<CompileRecord %s %s>" % (self.compile_id, self.function)


class Capture:
    """Owns the hooks and the records; `start()` / `stop()` attach and detach them."""

    def __init__(self):
        self.records = {}
        self.order = []
        self.generation = 0
        self.warnings = []
        self._warned = set()
        self._strings = {}
        self._lock = threading.RLock()
        self._hook_handle = None
        self._handler = None
        self._saved_level = None
        self._logger = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self):
        from ._torch import require_torch

        require_torch()
        import torch._dynamo.convert_frame as convert_frame

        self._hook_handle = convert_frame.register_bytecode_hook(self._on_bytecode)
        handler = _TraceHandler(self)
        logger = logging.getLogger(TRACE_LOGGER)
        self._saved_level = logger.level
        if not logger.isEnabledFor(logging.DEBUG):
            logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
        self._handler, self._logger = handler, logger

    def stop(self):
        if self._hook_handle is not None:
            try:
                self._hook_handle.remove()
            finally:
                self._hook_handle = None
        if self._handler is not None:
            self._logger.removeHandler(self._handler)
            if self._saved_level is not None:
                self._logger.setLevel(self._saved_level)
            self._handler = None

    def reset_after_fork(self):
        """In a forked child: forget the parent's records (the parent dumps those)."""
        self.records = {}
        self.order = []
        self._lock = threading.RLock()

    # -- problems ------------------------------------------------------------------------
    def warn(self, kind, message):
        """Record a lens problem; the first of each kind also becomes a Python warning."""
        text = "dynalens: %s" % message
        with self._lock:
            self.warnings.append(text)
            first = kind not in self._warned
            self._warned.add(kind)
        if first:
            warnings.warn(text, RuntimeWarning, stacklevel=2)

    # -- records -------------------------------------------------------------------------
    def record(self, frame_id, frame_compile_id, attempt, starting=False):
        """The record of a compile id; `starting` for events that only open a compile.

        A compile id that opens again after it finished means torch._dynamo.reset() ran
        (torch restarts its counters): later compiles go into a new generation. Events that
        trail a finished compile (a lazily compiled backward) do not open one.
        """
        with self._lock:
            key = (self.generation, frame_id, frame_compile_id, attempt or 0)
            rec = self.records.get(key)
            if starting and rec is not None and rec.finished:
                self.generation += 1
                key = (self.generation, frame_id, frame_compile_id, attempt or 0)
                rec = None
            if rec is None:
                rec = CompileRecord(frame_id, frame_compile_id, attempt or 0, self.generation)
                self.records[key] = rec
                self.order.append(key)
            return rec

    def compiles(self):
        """Records in the order compiles started, dropping attempts that Dynamo restarted."""
        with self._lock:
            recs = [self.records[k] for k in self.order]
        final = {}
        for rec in recs:
            k = (rec.generation, rec.frame_id, rec.frame_compile_id)
            if k not in final or rec.attempt > final[k].attempt:
                final[k] = rec
        kept = []
        for rec in recs:
            best = final[(rec.generation, rec.frame_id, rec.frame_compile_id)]
            if rec is best:
                kept.append(rec)
            elif rec.graph_breaks or rec.stack:
                # an abandoned attempt still explains why the final one looks as it does
                for gb in rec.graph_breaks:
                    if gb not in best.graph_breaks:
                        best.graph_breaks.append(gb)
                if not best.stack:
                    best.stack = rec.stack
        return kept

    # -- bytecode hook -------------------------------------------------------------------
    def _on_bytecode(self, code, new_code):
        try:
            from torch._guards import CompileContext

            trace_id = CompileContext.current_trace_id()
            if trace_id is None:
                return None
            cid = trace_id.compile_id
            rec = self.record(cid.frame_id, cid.frame_compile_id, trace_id.attempt)
            rec.original_code = code
            rec.transformed_code = new_code
            rec.frame_globals = _find_frame_globals(code)
            rec.rank = _current_rank()
        except Exception as exc:  # never break the user's compile
            self.warn("hook", "bytecode hook failed (%s: %s); compilation goes on unchanged"
                      % (type(exc).__name__, exc))
        return None

    # -- structured trace ----------------------------------------------------------------
    def on_trace(self, metadata, payload):
        if "str" in metadata:
            name, index = metadata["str"]
            self._strings[index] = name
            return
        if "frame_id" not in metadata or metadata.get("frame_id") is None:
            return
        event = next((k for k in metadata if k not in _ID_KEYS), None)
        if event is None or event == "chromium_event":
            return
        body = metadata[event]
        starting = event == "dynamo_start" or (
            event == "artifact" and body.get("name") == "recompile_reasons")
        rec = self.record(metadata["frame_id"], metadata["frame_compile_id"],
                          metadata.get("attempt", 0), starting=starting)
        if event == "artifact":
            self._on_artifact(rec, body.get("name", ""), payload)
        elif event == "dynamo_start":
            rec.stack = _with_outer_callers([self._frame(f) for f in body.get("stack", [])])
        elif event in GRAPH_EVENTS:
            rec.graphs.append((GRAPH_EVENTS[event], payload or ""))
            if event == "dynamo_output_graph":
                found = _find_output_graph()
                if found is not None:
                    rec.graph_modules.append(found)
        elif event == "inductor_output_code":
            rec.output_code.append((body.get("filename") or body.get("file_path"),
                                    payload or ""))
        elif event == "dynamo_cpp_guards_str":
            rec.guard_tree = payload
        elif event == "compilation_metrics":
            if isinstance(body, dict):
                rec.metrics = {k: v for k, v in body.items() if _jsonable(v)}
            rec.finished = True

    def _on_artifact(self, rec, name, payload):
        if name in GRAPH_EVENTS:
            rec.graphs.append((GRAPH_EVENTS[name], payload or ""))
        elif name == "dynamo_graph_break_reason":
            rec.graph_breaks.append(_parse_graph_break(payload or ""))
        elif name == "recompile_reasons":
            rec.recompile_reasons.extend(_parse_recompile_reasons(payload))

    def _frame(self, f):
        filename = f.get("filename")
        if isinstance(filename, int):
            filename = self._strings.get(filename) or _interned(filename)
        out = {"filename": filename, "line": f.get("line"), "name": f.get("name")}
        if f.get("loc"):
            out["loc"] = f["loc"]
        return out


@functools.lru_cache(maxsize=1)
def _internal_dirs():
    """Folders whose frames are torch's or the lens's own (computed once)."""
    import os

    import torch

    here = os.path.dirname(os.path.abspath(__file__))
    return tuple(os.path.join(os.path.dirname(os.path.abspath(m.__file__)), "")
                 for m in (torch, logging)) + (os.path.join(here, ""),)


def _same_frame(a, b):
    return (a.get("filename"), a.get("name"), a.get("line")) == \
        (b.get("filename"), b.get("name"), b.get("line"))


def _with_outer_callers(stack):
    """torch's dynamo_start stack, completed with the callers it leaves out.

    torch records the compiled frame and the frames above it, but not the one that called the
    compiled function (the ``<module>`` line of a script that calls it at top level, the
    line in ``main()`` that calls it): at dynamo_start the Python stack still holds it, under
    torch's own frames. Python's callers (torch's and the lens's frames aside) are merged in,
    in order, where torch's list lacks them; every frame of torch's list is kept.
    """
    try:
        internal = _internal_dirs()
        callers = []
        frame = sys._getframe(1)
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith(internal):
                callers.append({"filename": filename, "line": frame.f_lineno,
                                "name": frame.f_code.co_name})
            frame = frame.f_back
        callers.reverse()  # outermost first, like torch's list
        if not stack:
            return callers
        merged, at = [], 0
        for theirs in stack[:-1]:
            found = next((k for k in range(at, len(callers))
                          if _same_frame(callers[k], theirs)), None)
            if found is not None:
                merged.extend(callers[at:found])
                at = found + 1
            merged.append(theirs)
        return merged + callers[at:] + [stack[-1]]
    except Exception:
        return stack


class _TraceHandler(logging.Handler):
    def __init__(self, capture):
        super().__init__(level=logging.DEBUG)
        self.capture = capture

    def emit(self, record):
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        try:
            self.capture.on_trace(metadata, getattr(record, "payload", None))
        except Exception as exc:
            self.capture.warn("trace", "could not read a structured-trace event (%s: %s)"
                              % (type(exc).__name__, exc))

    def handleError(self, record):  # never print logging tracebacks into the user's run
        pass


def _interned(index):
    """A string torch interned before our handler was attached (its "str" event is gone)."""
    try:
        from torch._logging.structured import INTERN_TABLE

        for text, i in list(INTERN_TABLE.items()):
            if i == index:
                return text
    except Exception:
        pass
    return "<unknown>"


def _jsonable(value):
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _parse_graph_break(text):
    gb = {"reason": None, "detail": text.strip(), "filename": None, "line": None,
          "source_line": None}
    m = _BREAK_AT_RE.search(text)
    if m:
        gb["filename"], gb["line"] = m.group("file"), int(m.group("line"))
    m = _BREAK_REASON_RE.search(text)
    if m:
        gb["reason"] = m.group("reason").strip()
    elif text.strip():
        gb["reason"] = text.strip().splitlines()[0]
    if gb["filename"] and gb["line"]:
        import linecache

        line = linecache.getline(gb["filename"], gb["line"]).strip()
        gb["source_line"] = line or None
    return gb


def _parse_recompile_reasons(payload):
    if payload is None:
        return []
    value = payload
    if isinstance(payload, str):
        try:
            value = json.loads(payload)
        except ValueError:
            value = payload.splitlines()
    if isinstance(value, str):
        value = [value]
    out = []
    for item in value:
        out.extend(s for s in str(item).splitlines() if s.strip())
    return out


def _find_frame_globals(code):
    """The globals dict of the frame being compiled, from Dynamo's own call stack.

    The bytecode hook is called without the frame; Dynamo's `_compile` holds it as locals
    named `code` and `globals`. Walking up to that frame is read-only and bounded.
    """
    f = sys._getframe(2)
    for _ in range(12):
        if f is None:
            return None
        loc = f.f_locals
        g = loc.get("globals")
        if isinstance(g, dict) and loc.get("code") is code:
            return g
        f = f.f_back
    return None


def _find_output_graph():
    """(global name, weakref) of the GraphModule Dynamo is about to hand to the backend.

    The `dynamo_output_graph` event is logged from Dynamo's `compile_and_call_fx_graph`, whose
    locals hold the graph module (`gm`) and the global it will be installed under (`name`);
    reading them from the stack is read-only and touches nothing in torch.
    """
    import weakref

    f = sys._getframe(2)
    for _ in range(16):
        if f is None:
            return None
        loc = f.f_locals
        gm, name = loc.get("gm"), loc.get("name")
        if isinstance(name, str) and name.startswith("__compiled_fn") and gm is not None \
                and hasattr(gm, "graph"):
            try:
                return name, weakref.ref(gm)
            except TypeError:
                return None
        f = f.f_back
    return None


def _current_rank():
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        return None
    return None
