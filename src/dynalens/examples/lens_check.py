"""What must hold for any program run under the lens, measured on one run.

Shared by the tests of real models (tests/test_hf_models.py) and the bench script that prints
the figures (bench/hf_models.py):

- `dump_figures(run)`: compiles, Dynamo code objects (transformed code and resume functions)
  decompiled and verified, resume functions the transformed code calls that have no entry or
  no file, dumped `.py` files that do not compile, the lens's warnings;
- `probe_guards(run, replay)`: calls `replay()` (the same calls again, on the same compiled
  objects) and, each time a compiled frame starts, evaluates its dumped guard function and
  torch's own guard on the frame's locals: they must agree.
"""

import os
import re
import sys

__all__ = ["dump_figures", "probe_guards"]

_RESUME_GLOBAL = re.compile(r"^__resume_at_\d+_\d+$")


def code_entries(run):
    """(label, entry) of every transformed code and resume function in the index."""
    out = []
    for c in run.index["compiles"]:
        prefix = "%s %s" % (c["key"], c["function"])
        if c["transformed_code"] is not None:
            out.append((prefix, c["transformed_code"]))
        out += [("%s resume %s" % (prefix, r["name"]), r) for r in c["resume_functions"]]
    return out


def dump_figures(run):
    """Figures and problems of one dump (a dict; lists of problems are empty when all holds)."""
    entries = code_entries(run)
    not_verified = ["%s: %s" % (label, e.get("error") or e.get("difference"))
                    for label, e in entries if not (e["decompiled"] and e["verified"])]
    files = sorted(f for f in os.listdir(run.dump_dir) if f.endswith(".py"))
    bad_files = []
    for f in files:
        path = os.path.join(run.dump_dir, f)
        with open(path, encoding="utf-8") as fh:
            try:
                compile(fh.read(), path, "exec")
            except SyntaxError as exc:
                bad_files.append("%s: %s" % (f, exc))
    return {
        "compiles": len(run.index["compiles"]),
        "frames": len(entries),
        "decompiled": sum(1 for _, e in entries if e["decompiled"]),
        "verified": sum(1 for _, e in entries if e["decompiled"] and e["verified"]),
        "not_verified": not_verified,
        "resume_functions": sum(len(c["resume_functions"]) for c in run.index["compiles"]),
        "resume_problems": _resume_problems(run),
        "files": len(files),
        "bad_files": bad_files,
        "warnings": list(run.index.get("warnings") or []),
    }


def _resume_problems(run):
    """Resume functions the transformed code calls (globals `__resume_at_<offset>_<n>` that
    exist in the frame's globals) without an index entry or without its file on disk."""
    problems = []
    by_key = {c["key"]: c for c in run.index["compiles"]}
    for dc in run.compiles:
        code = dc.record.transformed_code
        entry = by_key.get(dc.key)
        if code is None or entry is None:
            continue
        frame_globals = dc.record.frame_globals or {}
        called = [n for n in code.co_names if _RESUME_GLOBAL.match(n) and n in frame_globals]
        listed = {}
        for r in entry["resume_functions"]:
            for g in r["global_names"] or []:
                listed[g] = r
        for g in called:
            r = listed.get(g)
            if r is None:
                problems.append("%s %s calls %s: no entry" % (dc.key, entry["function"], g))
            elif not os.path.exists(os.path.join(run.dump_dir, r["file"])):
                problems.append("%s %s calls %s: no file %s" % (
                    dc.key, entry["function"], g, r["file"]))
    return problems


def probe_guards(run, replay):
    """Replay the program and compare, at the start of each compiled frame, the dumped guard
    function with torch's guard on the frame's locals.

    Returns {"checked": n, "true": n, "problems": [...]}: one check per compile (the first
    time its code runs); a problem is a guard file that does not load, a guard that raises,
    or a disagreement with torch.
    """
    import torch

    codes, guards, problems = {}, {}, []
    for dc in run.compiles:
        code = dc.record.transformed_code
        if code is None or dc.guard_path is None or dc.guard_entry is None:
            continue
        try:
            guards[dc.key] = run.guard_function(dc.key)
        except Exception as exc:
            problems.append("%s: guard file does not load: %s: %s" % (
                dc.key, type(exc).__name__, exc))
            continue
        codes[id(code)] = dc   # by identity: Dynamo's constants may be unhashable
    results = {}

    def profile(frame, event, arg):
        if event == "call" and id(frame.f_code) in codes:
            check(frame)

    # inside a compiled region Dynamo's frame callback is still set: the guards must not be
    # compiled themselves
    @torch.compiler.disable
    def check(frame):
        dc = codes[id(frame.f_code)]
        if dc.key in results:
            return
        local = dict(frame.f_locals)
        manager = dc.guard_entry.get("manager") or dc.guard_entry["entry"].guard_manager
        try:
            ours = guards[dc.key](local, frame.f_globals)
        except Exception as exc:
            ours = "%s: %s" % (type(exc).__name__, exc)
        results[dc.key] = (ours, bool(manager.check(local)))

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        replay()
    finally:
        sys.setprofile(old)
    for key, (ours, theirs) in sorted(results.items()):
        if ours is not theirs:
            problems.append("%s: dumped guard says %s, torch says %s" % (key, ours, theirs))
    return {"checked": len(results), "true": sum(1 for o, _ in results.values() if o is True),
            "problems": problems}
