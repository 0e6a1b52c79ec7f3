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
import os
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

# Every structured-trace event name the lens knows, per torch version it was checked on
# (2.13.0 and 2.15.0: the same top-level events). Events it reads are handled in
# `Capture.on_trace`; the others carry nothing the dump shows (timing, symbolic-shape
# bookkeeping, export, distributed splitting, caches). An event missing from both sets is new
# to this dynalens: it becomes a named warning in index.json and the report, never a silent loss.
READ_EVENTS = frozenset(["dynamo_start", "artifact", "inductor_output_code",
                         "dynamo_cpp_guards_str", "compilation_metrics", "str"]
                        + list(GRAPH_EVENTS))
IGNORED_EVENTS = frozenset([
    "chromium_event", "describe_source", "describe_storage", "describe_tensor",
    "create_symbol", "create_unbacked_symbol", "expression_created", "guard_added",
    "guard_added_fast", "symbolic_shape_specialization", "guard_on_data_dependent_error",
    "propagate_real_tensors", "propagate_real_tensors_provenance", "dynamo_guards",
    "bwd_compilation_metrics", "aot_autograd_backward_compilation_metrics",
    "compiled_autograd_graph", "optimize_ddp_split_graph", "optimize_ddp_split_child",
    "inductor_input_graph", "export", "exported_program", "graph_dump", "dump_file", "link",
    "missing_fake_kernel", "mismatched_fake_kernel", "get_extra_remote_code_state",
    "put_local_code_state", "get_local_code_state", "get_remote_code_state",
    "put_remote_code_state",
])
# Artifacts (the "artifact" event, told apart by name) the lens reads; and those it knows and
# leaves out (names, then name patterns). torch 2.15 renamed its AOT runtime-wrapper artifacts
# (backward_prologue, compiled_fn_wrapper, runtime_wrapper_orchestration, ... became
# aot_autograd_runtime_wrappers); both spellings are known.
READ_ARTIFACTS = frozenset(["dynamo_graph_break_reason", "recompile_reasons"]
                           + list(GRAPH_EVENTS))
IGNORED_ARTIFACTS = frozenset([
    "after_joint_graph", "before_joint_graph", "before_pre_grad_graph", "before_post_grad_graph",
    "aot_forward_graph_fw_metadata", "aot_forward_graph_fw_subclass_metadata",
    "aot_inference_graph_after_hop_passes", "aot_joint_graph_sync_decision_cross_ranks",
    "aot_saved_tensors_hooks_graphs", "aotautograd_cache_pickle_failure",
    "backward_epilogue", "backward_prologue", "compiled_fn_wrapper",
    "compiled_function_backward", "compiled_function_forward", "output_alias_wrapper",
    "runtime_wrapper_orchestration", "aot_autograd_runtime_wrappers",
    "dynamo_error", "dynamo_side_effects", "dynamo_cache_bypass", "dynamo_cache_entries",
    "dynamo_cache_exception", "fx_graph_runnable", "fx_graph_bundled_cache_hit",
    "inductor_provenance_tracking_kernel_stack_traces",
    "inductor_provenance_tracking_node_mappings", "inductor_runtime_and_tensor_meta",
    "torch._functorch.config", "precompile_cache_bypass", "compiler_collective",
    "triton_kernel_info", "eager_compile_backwards_failure", "make_fx_fail_partial",
    "compiled_autograd_compile_reasons", "compiled_autograd_graph_pre_reordering",
    "inductor_aot_wrapper_code", "inductor_aot_kernel_code", "inductor_aot_header_code",
    "inductor_autotune_at_compile_time_code", "invoke_subgraph_backward_duplicate",
    "inductor_collective_schedule", "inductor_fx_passes_overlap_bucketing",
    "inductor_overlap_cyclic_extra_deps", "inductor_spmd_graph_mismatch",
    "fx_bucketing_passes_all_gather_buckets", "fx_bucketing_passes_reduce_scatter_buckets",
    "fx_compute_nodes_runtime_estimation", "fx_interpreter_error",
    "fx_net_acc_splitter_finder_events", "overlap_scheduling_graph_after",
    "overlap_scheduling_graph_before", "reorder_communication_preserving_peak_memory",
    "scheduler_nodes_before_comm_overlap", "sink_waits_iterative_info",
    "pge_profile_vs_analytical", "graph_execution", "torch_version", "cprofile_manifold_url",
    "compile_worker_sidecar_death", "compile_worker_status",   # 2.15
])
IGNORED_ARTIFACT_RE = re.compile(
    r"^(?:.+_(?:ORIGINAL|MODIFIED)_BYTECODE"       # Dynamo's bytecode (the hook has the code)
    r"|(?:fx_graph|aotautograd)_cache_\w+"          # cache hits and misses
    r"|(?:get|put)_\w+_code_state"                  # automatic-dynamic (PGO) state
    r"|.+_(?:pre|post)_grad"                        # pattern-matcher passes
    r"|(?:before|after)_\w+_pass|min_cut_\w+|pre_bucketing_\w+|\w+_comms"
    r"|flex_gemm_\w+)$")

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
        self._unknown = set()
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
            else:
                # an abandoned attempt still explains why the final one looks as it does: torch
                # logs the recompile reasons (and often the graph break that made it restart)
                # under attempt 0, before it restarts the analysis as attempt 1, 2, ...
                for gb in rec.graph_breaks:
                    if gb not in best.graph_breaks:
                        best.graph_breaks.append(gb)
                if rec.recompile_reasons and not best.recompile_reasons:
                    best.recompile_reasons = list(rec.recompile_reasons)
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
        event = next((k for k in metadata if k not in _ID_KEYS), None)
        if event is None or event in IGNORED_EVENTS:
            return
        if event not in READ_EVENTS:
            self.unknown("event", event)
            return
        body = metadata[event]
        if not isinstance(body, dict):
            body = {}
        if event == "artifact":
            name = body.get("name", "")
            if name not in READ_ARTIFACTS:
                if name not in IGNORED_ARTIFACTS and not IGNORED_ARTIFACT_RE.match(name):
                    self.unknown("artifact", name)
                return
        if metadata.get("frame_id") is None:
            return   # not inside a compile (what the lens reads always is)
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

    def unknown(self, what, name):
        """A structured-trace event (or artifact) this dynalens does not know: say so once."""
        with self._lock:
            seen = (what, name) in self._unknown
            self._unknown.add((what, name))
        if not seen:
            self.warn("unknown-trace-" + what,
                      "torch %s sent structured-trace %s %r, which this dynalens does not "
                      "recognise; its content is not in the dump" % (_torch_version(), what, name))

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


_TB_FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>.+)$')
_NAMED_RE = re.compile(r"`([A-Za-z_][\w.]*)`")


def _parse_graph_break(text):
    """torch's graph-break message -> the index entry (docs/dump-format.md, graph_breaks).

    torch's message is "Graph break in user code at FILE:LINE", then "Graph Break Reason: ..."
    whose first line is often generic ("Encountered graph break when attempting to trace CALL:
    a function call, e.g. f(x, y):"), the real cause (torch's gb_type, e.g. "Unsupported
    Tensor.item() call ...") on the next non-empty line, then "Explanation:" / "Hint:" lines and
    a "User code traceback:". `reason` is the cause; a cause that names nothing ("Failed to
    trace builtin operator") gets the first name its explanation quotes (`print`). FILE:LINE
    can be inside torch (a break in `optimizer.step()`): `user_frame` is the innermost frame
    of the user's own code, the line to show.
    """
    gb = {"reason": None, "context": None, "explanation": None, "detail": text.strip(),
          "filename": None, "line": None, "source_line": None, "user_frame": None}
    m = _BREAK_AT_RE.search(text)
    if m:
        gb["filename"], gb["line"] = m.group("file"), int(m.group("line"))
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if _BREAK_REASON_RE.match(ln.strip())), None)
    if start is not None:
        first = _BREAK_REASON_RE.match(lines[start].strip()).group("reason").strip()
        rest = lines[start + 1:]
        cause = first
        if first.endswith(":"):
            nxt = next((ln.strip() for ln in rest if ln.strip()), "")
            if nxt and not nxt.startswith(("User code traceback", "Traceback")):
                gb["context"] = first[:-1]
                cause = nxt
        expl = next((ln.strip()[len("Explanation:"):].strip() for ln in rest
                     if ln.strip().startswith("Explanation:")), None)
        gb["explanation"] = expl
        if expl and "`" not in cause and "()" not in cause:
            named = _NAMED_RE.search(expl)
            if named:
                cause = "%s: `%s`" % (cause, named.group(1))
        gb["reason"] = cause
    elif text.strip():
        gb["reason"] = text.strip().splitlines()[0]
    if gb["filename"] and gb["line"]:
        gb["source_line"] = _line_of(gb["filename"], gb["line"])
    gb["user_frame"] = _user_frame(gb, lines)
    return gb


def _line_of(filename, line):
    import linecache

    return linecache.getline(filename, int(line)).strip() or None


def _is_internal(filename):
    try:
        return os.path.abspath(filename).startswith(_internal_dirs())
    except Exception:
        return False


def _user_frame(gb, lines):
    """The innermost frame of the user's code for a graph break (see `_parse_graph_break`)."""
    if gb["filename"] and not _is_internal(gb["filename"]):
        return {"filename": gb["filename"], "line": gb["line"], "name": None,
                "source_line": gb["source_line"]}
    try:
        at = lines.index("User code traceback:")
    except ValueError:
        return None
    found = None
    for ln in lines[at + 1:]:
        if not ln.strip():
            break
        m = _TB_FRAME_RE.match(ln)
        if m and not _is_internal(m.group("file")):
            found = {"filename": m.group("file"), "line": int(m.group("line")),
                     "name": m.group("name").strip(), "source_line": None}
    if found is not None:
        found["source_line"] = _line_of(found["filename"], found["line"])
    return found


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


def _torch_version():
    torch = sys.modules.get("torch")
    return getattr(torch, "__version__", "?")


def _current_rank():
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        return None
    return None
