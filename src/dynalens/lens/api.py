"""Public entry points of the torch.compile lens: prepare_debug, debug, install, uninstall.

This module imports without torch (``import dynalens`` must stay cheap and torch-free); torch is
imported inside the functions, and a missing torch gives an ImportError saying
``pip install 'dynalens[torch]'``.

`prepare_debug(dump_dir)` captures everything torch.compile makes while its block runs and writes
the dump folder when the block ends (also when it ends with an exception, which is re-raised
unchanged). The object it yields carries `.dump_dir` and `.index` so views (the HTML report, a
notebook) can be attached to it.
"""

import contextlib
import datetime
import gc
import os
import threading
import warnings

from ._torch import require_torch

__all__ = ["prepare_debug", "debug", "install", "uninstall", "DebugRun", "last_run"]

_active = threading.local()


@contextlib.contextmanager
def _program_objects_set_aside():
    """While the dump and report are written, the garbage collector looks only at what that
    allocates, not at the program's own objects.

    Writing them allocates enough to start full collections, and a full collection walks every
    object of the program (torch alone makes millions): that was most of what the lens cost
    at the end of a block. ``gc.freeze()`` sets the existing objects aside (none is freed or
    changed) and ``gc.unfreeze()`` puts them back as they were. Skipped when the program has
    frozen objects itself: its freeze is not the lens's to undo."""
    if not hasattr(gc, "freeze") or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
_state = {"active": None, "last": None}
_state_lock = threading.Lock()


class DebugRun:
    """One `prepare_debug` block: its capture while active, its dump afterwards.

    Attributes: `dump_dir` (the folder the files went to: `DUMP_DIR`, or `DUMP_DIR/rank_<r>`
    under torch.distributed), `index` (the parsed index.json after the block; None before),
    `warnings` (the lens's own problems, one line each), `compiles` (per-compile details kept in
    memory for `debug()` and guard checks).
    """

    def __init__(self, dump_dir, clean_wild_fx_code=True, log_bytecode=False, *, report=True):
        if not isinstance(dump_dir, (str, os.PathLike)):
            raise TypeError("prepare_debug() needs a folder path (str or os.PathLike), got %s"
                            % type(dump_dir).__name__)
        self.clean_wild_fx_code = bool(clean_wild_fx_code)
        self.log_bytecode = bool(log_bytecode)
        self.requested_dir = os.path.abspath(os.fspath(dump_dir))
        self.dump_dir = self.requested_dir
        self.index = None
        self.report = report
        self.report_path = None
        self.compiles = []
        self.warnings = []
        self._capture = None
        self._pid = None
        self._entered = False
        self._finished = False
        self._slot = None

    # -- context manager -----------------------------------------------------------------
    def __enter__(self):
        require_torch()
        if self._entered:
            raise RuntimeError("this prepare_debug(%r) block was already used; create a new one "
                               "with dynalens.prepare_debug(dump_dir)" % self.requested_dir)
        with _state_lock:
            active = _state["active"]
            if active is not None and active._pid == os.getpid():
                raise RuntimeError(
                    "dynalens.prepare_debug(%r) is already active (dumping to %r); nesting or "
                    "re-entering it is not supported: end the outer block first"
                    % (self.requested_dir, active.requested_dir))
            _state["active"] = self
        from .capture import Capture

        os.makedirs(self.requested_dir, exist_ok=True)
        try:
            from .runfolder import open_block

            # a new run replaces an earlier run's dump here; a concurrent one is joined
            self._slot = open_block(self.requested_dir)
        except Exception as exc:
            warnings.warn("dynalens: could not check %s for an earlier run's dump (%s: %s); "
                          "this run's files are added to it" % (
                              self.requested_dir, type(exc).__name__, exc),
                          RuntimeWarning, stacklevel=2)
        self._entered = True
        self._pid = os.getpid()
        self._started = _now()
        self._capture = Capture()
        try:
            self._capture.start()
        except BaseException:
            self._capture.stop()
            with _state_lock:
                _state["active"] = None
            self._close_slot()
            raise
        _register_fork_handler()
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            self._capture.stop()
        finally:
            with _state_lock:
                if _state["active"] is self:
                    _state["active"] = None
        self._finish()
        return False

    def _finish(self):
        """Collect guards from torch's caches, write the dump, then the report; never raise."""
        if self._finished:
            return
        self._finished = True
        with _program_objects_set_aside():
            self._write_all()

    def _write_all(self):
        try:
            from .dump import Dumper

            guard_info = self._collect_guards()
            dumper = Dumper(self.requested_dir, self._capture, self._started,
                            clean_wild_fx_code=self.clean_wild_fx_code,
                            log_bytecode=self.log_bytecode)
            self.dump_dir, self.index = dumper.write(guard_info)
            self.compiles = dumper.dumped
        except Exception as exc:
            self._capture.warn("dump", "writing the dump to %s failed (%s: %s)"
                               % (self.requested_dir, type(exc).__name__, exc))
        self._close_slot()
        self.warnings = list(self._capture.warnings)
        with _state_lock:
            _state["last"] = self
        if self.report:
            self._write_report()

    def _close_slot(self):
        slot, self._slot = self._slot, None
        if slot is None or self._pid != os.getpid():
            return   # a forked child's inherited block: the parent's slot, not ours
        try:
            from .runfolder import close_block

            close_block(slot)
        except Exception as exc:
            self._capture.warn("runfolder", "could not mark the block in %s as finished "
                               "(%s: %s)" % (self.requested_dir, type(exc).__name__, exc))

    def _write_report(self):
        try:
            from dynalens.report.api import write_report
        except ImportError:
            return
        try:
            self.report_path = write_report(self.dump_dir)
        except Exception as exc:
            warnings.warn("dynalens: the HTML report for %s could not be written (%s: %s); the "
                          "dump itself is complete" % (self.dump_dir, type(exc).__name__, exc),
                          RuntimeWarning, stacklevel=3)

    def _collect_guards(self):
        """Guard code parts of every compile still in torch's cache, by compile key."""
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        info = {}
        seen = set()
        for rec in self._capture.compiles():
            code = rec.original_code
            if code is None or id(code) in seen:
                continue
            seen.add(id(code))
            try:
                entries = _debug_get_cache_entry_list(code)
            except Exception:
                continue
            for entry in entries:
                cid = entry.compile_id
                gm = entry.guard_manager
                key = (cid.frame_id, cid.frame_compile_id)
                info[key] = {"code_parts": list(getattr(gm, "code_parts", []) or []),
                             "entry": entry, "code": code, "manager": gm}
        # after a torch._dynamo.reset() inside the block, compile ids repeat: the cache
        # entries alive now belong to the latest compile with that id and code object
        latest = {}
        for rec in self._capture.compiles():
            k = (rec.frame_id, rec.frame_compile_id)
            if k in info and info[k]["code"] is rec.original_code:
                latest[k] = rec
        return {rec.key: info[k] for k, rec in latest.items()}

    # -- after the block -----------------------------------------------------------------
    def compile(self, compile_id):
        """The dumped compile with this key: the compile id ("0/0"), see index.json's `key`."""
        for dc in self.compiles:
            if dc.key == compile_id:
                return dc
        raise KeyError("no compile %r in this run (have: %s)" % (
            compile_id, ", ".join(dc.key for dc in self.compiles) or "none"))

    def guard_function(self, compile_id):
        """The dumped guard function of a compile, loaded and bound to torch's live objects.

        Call it as `fn(L, G)` (frame locals and globals as dicts): True when that compiled
        version would run for those values.
        """
        from .guards import load_guard_function

        dc = self.compile(compile_id)
        compile_id = dc.key
        if dc.guard_path is None:
            raise LookupError("compile %s has no guard function (its cache entry was gone when "
                              "the block ended)" % compile_id)
        found = dc.guard_entry
        closure, check = None, None
        if found is not None:
            gm = found.get("manager") or found["entry"].guard_manager
            closure = getattr(gm, "closure_vars", None)
            check = gm.check
        return load_guard_function(dc.guard_path, dc.guard_name, closure, check)

    def __repr__(self):
        n = len(self.index["compiles"]) if self.index else 0
        return "<dynalens run %s: %d compiles>" % (self.dump_dir, n)

    def _repr_html_(self):
        try:
            from dynalens.report.api import explain
        except ImportError:
            return None
        try:
            view = explain(self.dump_dir)
            return view._repr_html_() if hasattr(view, "_repr_html_") else None
        except Exception:
            return None


def prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False, *, report=True):
    """Capture everything torch.compile makes inside the `with` block into `dump_src_dir`.

    ::

        with dynalens.prepare_debug("dump") as run:
            model(x)           # compiles: captured
        print(run.dump_dir)   # files described in docs/dump-format.md

    The positional parameters are the reference tool's (depyf), with its meanings:
    `clean_wild_fx_code` leaves out FX graphs that belong to no compiled function (graphs torch
    logged for a compile whose transformed code calls no `__compiled_fn_<k>`, e.g. one that
    failed and fell back); `log_bytecode=True` also saves each code object (Dynamo's
    transformed code, resume functions, the frame's original code) beside its source as
    `<name>.code`, readable with `marshal.load` (docs/dump-format.md).
    `report=False` (keyword only) skips the HTML report. Nesting or re-entering gives a
    RuntimeError; a missing torch an ImportError. Problems inside the lens become warnings;
    the program's results are never changed.
    """
    return DebugRun(dump_src_dir, clean_wild_fx_code, log_bytecode, report=report)


def last_run():
    """The most recent finished `prepare_debug` run of this process (or None)."""
    return _state["last"]


def debug(run=None, eager_graphs=False, pause=True):
    """Run compiled code from the dumped files (breakpoints there are hit), inside the block.

    ``run`` is what `prepare_debug` yielded (default: the last finished run of this process).
    Transformed code runs from the dumped file where its source verified exact, else as
    Dynamo's own bytecode relabeled with the file's lines. Graphs of the eager backend run
    from their `Captured_Graph` files; ``eager_graphs=True`` does that for every backend (the
    graph then runs eagerly, not as Inductor's kernels). See `dynalens.lens.debug`.

    On entry the block pauses in the debugger (a `breakpoint()` made by dynalens, in a small
    file of its own that lists what to open, so pdb, `PYTHONBREAKPOINT` and IDE debuggers
    apply), after printing the dump folder and the files to set breakpoints in; continue to
    run the block. A run with no debugger attached and
    stdin not a terminal does not pause: it prints how to get the pause and goes on.
    ``pause=False`` (scripts, tests) neither pauses nor prints. See `dynalens.lens.pause`.
    """
    require_torch()
    from .debug import DebugSession

    if run is None:
        run = last_run()
    if run is None:
        raise RuntimeError("dynalens.debug() needs a finished prepare_debug run in this process: "
                           "run the code once under `with dynalens.prepare_debug(dump_dir):` "
                           "first")
    if not isinstance(run, DebugRun):
        raise TypeError("debug() takes the object prepare_debug yielded, got %s"
                        % type(run).__name__)
    return DebugSession(run, eager_graphs=eager_graphs, pause=pause)


def install():
    """Show decompiled source in Dynamo's bytecode log (`TORCH_LOGS="+bytecode"`)."""
    require_torch()
    from .logging import install as _install

    _install()


def uninstall():
    """Undo `install()`; a no-op when not installed."""
    from .logging import uninstall as _uninstall

    _uninstall()


# -- processes ---------------------------------------------------------------------------
_fork_registered = []


def _register_fork_handler():
    """A forked child inherits an active block: let it dump its own compiles at its exit."""
    if _fork_registered or not hasattr(os, "register_at_fork"):
        return
    _fork_registered.append(True)
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _after_fork_in_child():
    run = _state["active"]
    if run is None:
        return
    try:
        run._capture.reset_after_fork()
        run._pid = os.getpid()
        run._slot = None    # the parent's block holds the folder's run open, not the child
        run.report = False  # the parent writes the report over the merged index
        import atexit

        atexit.register(_child_finish, run)
        try:
            # multiprocessing clears its finalizers in a fresh child *after* this hook, then
            # runs its after-fork callbacks: register the finalizer from one of those
            from multiprocessing import util

            util.register_after_fork(run, _register_child_finalizer)
        except Exception:
            pass
    except Exception:
        pass


def _register_child_finalizer(run):
    from multiprocessing import util

    util.Finalize(None, _child_finish, args=(run,), exitpriority=100)


def _child_finish(run):
    if run._finished or run._pid != os.getpid():
        return
    try:
        run._capture.stop()
    except Exception:
        pass
    run._finish()


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
