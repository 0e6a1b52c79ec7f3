"""Check the control-flow graph (src/dynalens/decompiler/cfg.py) on real code, any CPython 3.8+.

For every code object of the stdlib (or a deterministic sample of its files, or --source-root)
it builds the CFG and checks it three ways, counting each fact checked and each violation:

* its own invariants: blocks partition the code, edges are symmetric, every jump target and
  handler starts a block, the immediate dominator of a block dominates it, a loop's header
  dominates its body;
* CPython's own facts: the exception table as ``dis`` parses it (3.11+) gives each instruction
  the handler the CFG gives its block; code the compiler keeps is reachable (3.10+ removes
  dead code); a handler is entered only by exception edges (3.9+: 3.8 falls into ``finally``
  and ``with`` exits through BEGIN_FINALLY);
* the structurer's ad hoc analyses: every ``while`` bottom test it finds (statements.py
  ``_find_while``) is a natural loop, and every jump back to the head of a loop the walk
  builds (recorded while decompiling) that closes a cycle is a natural loop's back edge (or,
  3.8/3.9, a threaded entry into the loop's back edge or the back jump as the header); the
  code that ``cold_blocks.exception_only_code`` says normal flow never reaches is exactly
  what the CFG reaches only through exception edges (3.11+), and the blocks it skips as
  exception-only are; the detached exit copies of ``ExitBlocks`` are straight code to an exit, and copies of
  one exit that are whole blocks are one copy group.

    python tools/cfg_check.py [--sample N] [--source-root DIR | --source-zip ZIP] [--json PATH]
                              [--strict] [--no-walk] [-v]

Exit status 1 when a fact about the CFG or CPython does not hold (the first violations are
printed). Where the structurer's analyses disagree with the CFG, that is a finding about the
structurer (trial parses included: a loop built and then rejected counts), printed the same
way; ``--strict`` makes those fail too.
Standard library only, like bench/roundtrip.py (which it borrows its file list from).
"""

import argparse
import collections
import dis
import json
import os
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _path in (os.path.join(ROOT, "src"), os.path.join(ROOT, "bench")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import roundtrip  # noqa: E402  (file selection and the code-object walk)
from dynalens.decompiler import cfg as cfg_mod  # noqa: E402
from dynalens.decompiler.cold_blocks import exception_only_blocks, exception_only_code  # noqa
from dynalens.decompiler.instructions import (exception_entries, normalize,  # noqa: E402
                                              raw_instructions)

PY = sys.version_info[:2]
SHOWN = 10
STRUCTURER = "structurer: "  # the checks that compare with the structurer's own analyses


class Tally(object):
    """Facts checked and violations, by check name."""

    def __init__(self):
        self.checked = collections.Counter()
        self.failed = collections.Counter()
        self.examples = collections.defaultdict(list)
        self.stats = collections.Counter()

    def check(self, name, holds, where, detail=""):
        self.checked[name] += 1
        if not holds:
            self.failed[name] += 1
            if len(self.examples[name]) < SHOWN:
                self.examples[name].append("%s %s" % (where, detail))


def check_invariants(graph, tally, where):
    blocks, n = graph.blocks, graph.n
    position = 0
    for block in blocks:
        tally.check("blocks partition the code", block.start == position and
                    block.end > block.start and
                    all(graph.block_at[k] == block.id for k in range(block.start, block.end)),
                    where, "B%d" % block.id)
        position = block.end
        for e in block.succs:
            back = cfg_mod.Edge(e.kind, block.id)
            tally.check("edges are symmetric", back in blocks[e.block].preds, where,
                        "B%d %r" % (block.id, e))
    tally.check("blocks partition the code", position == n, where, "ends at %d of %d"
                % (position, n))
    for ins in graph.instrs:
        t = cfg_mod.jump_target(ins)
        if t is not None and t < n and ins.op not in cfg_mod.SETUPS:
            tally.check("jump targets start blocks", blocks[graph.block_at[t]].start == t,
                        where, "%r" % ins)
    for e in graph.entries:
        if e.target < n:
            tally.check("handlers start blocks", blocks[graph.block_at[e.target]].start ==
                        e.target, where, "%r" % e)
    reachable = graph.reachable()
    for b in reachable:
        up = graph.idom(b)
        if b == 0:
            tally.check("the entry has no dominator", up is None, where)
            continue
        tally.check("a block's idom dominates it", up is not None and graph.dominates(up, b)
                    and up != b and graph.dominates(0, b), where, "B%d" % b)
        pd = graph.ipdom(b)
        if pd is not None:
            tally.check("a block's ipdom post-dominates it", graph.post_dominates(pd, b)
                        and pd != b, where, "B%d" % b)
    for loop in graph.loops:
        tally.stats["natural loops"] += 1
        tally.check("a loop header dominates its body",
                    all(graph.dominates(loop.header, b) for b in loop.body), where, repr(loop))
    tally.stats["irreducible edges"] += len(graph.irreducible)
    tally.stats["blocks"] += len(blocks)
    tally.stats["copy groups"] += len(graph.copies)
    tally.stats["blocks in copy groups"] += sum(len(g) for g in graph.copies)


def check_cpython_facts(code, instrs, offset_to_index, graph, tally, where):
    n = graph.n
    if PY >= (3, 11) and hasattr(dis, "_parse_exception_table"):
        raws = raw_instructions(code)
        for entry in dis._parse_exception_table(code):
            handler = offset_to_index.get(entry.target, n)
            for raw in raws:
                if entry.start <= raw.offset < entry.end:
                    k = offset_to_index.get(raw.offset, n)
                    if k >= n or (k + 1 < n and instrs[k].offset != raw.offset):
                        continue  # dropped, or folded into what follows
                    block = graph.blocks[graph.block_at[k]]
                    want = graph.block_at[handler] if handler < n else None
                    tally.check("dis's exception table gives the block's handler",
                                block.handler == want, where,
                                "offset %d: handler B%s, table says %s" % (
                                    raw.offset, block.handler, want))
    if PY >= (3, 10):
        reachable = graph.reachable()
        for block in graph.blocks:
            tally.check("the compiler keeps only reachable code (3.10+)",
                        block.id in reachable or _dead_name_cleanup(graph, block), where,
                        "B%d [%d,%d)" % (block.id, block.start, block.end))
    if PY >= (3, 9):
        live = graph.reachable()  # (3.8-3.10 keep some dead jumps: legacy normalization)
        for e in graph.entries:
            if e.target < n and not e.start == e.end == e.target:  # (folded: see cfg.py)
                block = graph.blocks[graph.block_at[e.target]]
                tally.check("a handler is entered only by exception edges (3.9+)",
                            all(p.kind == cfg_mod.EXCEPTION for p in block.preds
                                if p.block in live), where,
                            "B%d preds %s" % (block.id, block.preds))


def _dead_name_cleanup(graph, block):
    """3.10+ keeps the unbinding handler of ``except E as e: pass`` (``e = None; del e;
    RERAISE``) after the empty body's exception entry went away with its NOP."""
    ops = [ins.op for ins in graph.instrs[block.start:block.end]]
    return PY >= (3, 10) and len(ops) == 4 and ops[0] == "LOAD_CONST" and \
        ops[1].startswith("STORE_") and ops[2].startswith("DELETE_") and ops[3] == "RERAISE"


def check_structurer(code, graph_fresh, instrs_fresh, entries_fresh, walker, tally, where):
    """The structurer's own analyses, on the same instructions (the walker's CFG reads the
    jumps ExitBlocks redirected through ``original_target``)."""
    if PY >= (3, 11):
        cold = exception_only_code(instrs_fresh)
        normal = graph_fresh.reachable(exceptions=False)
        cfg_cold = set(k for b in graph_fresh.blocks if b.id not in normal
                       for k in range(b.start, b.end))
        tally.check(STRUCTURER + "exception_only_code is what only exception edges reach (3.11+)",
                    cold == cfg_cold, where, "only in cold_blocks: %s, only in the CFG: %s" % (
                        sorted(cold - cfg_cold)[:5], sorted(cfg_cold - cold)[:5]))
        only_exc = graph_fresh.exception_only()
        for start in exception_only_blocks(instrs_fresh, entries_fresh):
            b = graph_fresh.block_at[start]
            tally.check(STRUCTURER + "blocks the walk skips are reached only by exceptions",
                        graph_fresh.blocks[b].start == start and b in only_exc, where,
                        "at %d" % start)
    if walker is None:
        return
    graph = cfg_mod.build(walker.instrs, walker.entries)
    at = graph.block_at
    for head, (body, bottom, exit_, length) in walker.while_loops.items():
        loop = graph.loop_of(at[body])
        tally.check(STRUCTURER + "its while loops are natural loops",
                    graph.blocks[at[body]].start == body and loop is not None and
                    at[bottom] in loop.back_edges, where, "while at %d" % head)
    exits = walker.exits
    by_key = collections.defaultdict(list)
    for start in exits.virtual:
        block = graph.blocks[at[start]]
        key = exits._key(start)
        tally.check(STRUCTURER + "detached exit copies are straight code to an exit",
                    block.start == start and key is not None and
                    _straight_to_exit(graph, block, start + len(key)), where, "at %d" % start)
        if key is not None and block.end - block.start == len(key):
            by_key[(key, block.handler)].append(block.id)
    for blocks in by_key.values():
        if len(blocks) > 1:
            classes = set(graph.copy_class(b) for b in blocks)
            tally.check(STRUCTURER + "copies of one exit are one copy group",
                        len(classes) == 1, where,
                        "blocks %s" % blocks)


def check_walked_loops(walker, heads, tally, where):
    """Every live jump back to the head (or body start) of a loop the walk built that closes
    a cycle is a back edge of the natural loop with that header, or, where the compiler threaded
    a jump from before the loop into its back edge (3.8/3.9: a cycle with two entries), an
    irreducible edge, or the back jump is the header itself (every entry threaded into it).
    3.8-3.10 keep some dead jumps on purpose, for the shape of the source
    (legacy normalization): those are not checked."""
    graph = cfg_mod.build(walker.instrs, walker.entries)
    at = graph.block_at
    live = graph.reachable()
    for head, body_start in sorted(heads):
        starts = set(k for k in (head, body_start) if k is not None and k < graph.n)
        for ins in walker.instrs:
            t = cfg_mod.jump_target(ins)
            if t in starts and ins.index >= t and ins.op not in cfg_mod.SETUPS:
                if at[ins.index] not in live:
                    tally.stats["dead back jumps kept (3.8-3.10)"] += 1
                    continue
                if not _reaches(graph, at[t], at[ins.index]):
                    # no cycle: a jump to where the loop starts from code it never comes
                    # back from (3.12+: a cold handler's join before the loop; a `while
                    # True:` whose body always leaves, entered by a jump laid out after it)
                    tally.stats["jumps to a loop head on no cycle"] += 1
                    continue
                loop = graph.loop_of(at[t])
                natural = loop is not None and at[ins.index] in loop.back_edges
                if not natural and (at[ins.index], at[t]) in graph.irreducible:
                    tally.stats["loops entered twice (jumps threaded into the back edge)"] += 1
                    natural = True
                rotated = graph.loop_of(at[ins.index])
                if not natural and rotated is not None and at[t] in rotated.body:
                    # every way into the loop was threaded into its back jump: that block
                    # is the natural loop's header
                    tally.stats["loops entered only at their back jump"] += 1
                    natural = True
                tally.check(STRUCTURER + "its loops' cyclic back jumps are loop back edges",
                            graph.blocks[at[t]].start == t and natural, where,
                            "jump %d -> %d" % (ins.index, t))


class LoopRecorder(object):
    """Records the loops structuring builds (statements.Loop, made in branches.py,
    handlers.py and legacy_structure.py) with the walker that builds them."""

    MODULES = ("branches", "handlers", "legacy_structure")

    def __init__(self):
        import importlib
        from dynalens.decompiler import statements
        self.base = statements.Loop
        self.modules = [importlib.import_module("dynalens.decompiler." + m)
                        for m in self.MODULES]
        self.found = {}  # id(walker) -> (walker, set of (head, body_start))
        recorder = self

        class RecordedLoop(self.base):
            __slots__ = ()

            def __init__(self, head, *args, **kwargs):
                recorder.base.__init__(self, head, *args, **kwargs)
                walker = sys._getframe(1).f_locals.get("self")
                if walker is not None and hasattr(walker, "instrs"):
                    entry = recorder.found.setdefault(id(walker), (walker, set()))
                    entry[1].add((head, self.body_start))

        self.loop_class = RecordedLoop

    def __enter__(self):
        for module in self.modules:
            module.Loop = self.loop_class
        return self

    def __exit__(self, *exc):
        for module in self.modules:
            module.Loop = self.base
        return False


def walk_all(code, recorder):
    """Decompile ``code`` (its nested code with it); where it fails, each nested one alone."""
    from dynalens.decompiler import render
    try:
        render.decompile_body(code)
    except Exception:
        for const in code.co_consts:
            if hasattr(const, "co_code"):
                walk_all(const, recorder)


def _reaches(graph, source, target):
    """Whether block ``target`` can follow block ``source`` (over every edge)."""
    seen = set([source])
    todo = [source]
    while todo:
        b = todo.pop()
        for e in graph.blocks[b].succs:
            if e.block == target:
                return True
            if e.block not in seen:
                seen.add(e.block)
                todo.append(e.block)
    return False


def _straight_to_exit(graph, block, stop):
    """Whether ``block`` falls, block by block (an exception range may split it), into an exit
    block that ends at ``stop``."""
    while True:
        normal = [e for e in block.succs if e.kind != cfg_mod.EXCEPTION]
        if not normal:
            return block.end == stop and not block.to_end
        if len(normal) > 1 or normal[0].kind != cfg_mod.FALL or block.end >= stop:
            return False
        block = graph.blocks[normal[0].block]


def make_walker(code):
    from dynalens.decompiler import render
    try:
        return render.CodeWalker(code, render.code_kind(code), render.Session())
    except Exception:  # (DecompilationError or a crash) the walk fails too: nothing to compare
        return None


def check_file(entry, tally, walks=True):
    path, data = roundtrip.read_source(entry)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = compile(data, path, "exec", dont_inherit=True)
    except Exception:
        return False
    short = os.path.basename(path)
    for code, qualname in [(module, "<module>")] + list(roundtrip.walk_named(module)):
        where = "%s::%s:%d" % (short, qualname, code.co_firstlineno)
        instrs, offset_to_index = normalize(code)
        entries = exception_entries(code, offset_to_index)
        graph = cfg_mod.build(instrs, entries)
        tally.stats["code objects"] += 1
        check_invariants(graph, tally, where)
        check_cpython_facts(code, instrs, offset_to_index, graph, tally, where)
        walker = make_walker(code)
        if walker is None:
            tally.stats["walker not built"] += 1
        check_structurer(code, graph, instrs, entries, walker, tally, where)
    if walks:
        with LoopRecorder() as recorder:
            walk_all(module, recorder)
        for walker, heads in recorder.found.values():
            code = walker.code
            where = "%s::%s:%d" % (short, getattr(code, "co_qualname", code.co_name),
                                   code.co_firstlineno)
            tally.stats["loops the walk built"] += len(heads)
            check_walked_loops(walker, heads, tally, where)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--source-root", metavar="DIR", help="walk DIR instead of the stdlib")
    where.add_argument("--source-zip", metavar="ZIP",
                       help="read .py files from ZIP (Pyodide's python_stdlib.zip)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="an evenly spread, deterministic sample of N files")
    parser.add_argument("--json", metavar="PATH", help="write the counts as JSON")
    parser.add_argument("--no-walk", dest="walks", action="store_false",
                        help="skip decompiling (the check of the loops the walk builds)")
    parser.add_argument("--strict", action="store_true",
                        help="also fail when the structurer's analyses disagree with the CFG")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check")
    options = parser.parse_args(argv)
    if options.source_zip:
        entries = roundtrip.collect_from_zip(options.source_zip)
    else:
        entries = roundtrip.collect_from_dir(options.source_root or roundtrip.stdlib_root())
    entries = roundtrip.sample(entries, options.sample)
    tally = Tally()
    started = time.perf_counter()
    files = sum(1 for entry in entries if check_file(entry, tally, options.walks))
    seconds = time.perf_counter() - started
    print("cfg check -- Python %s, %d files, %d code objects, %.1fs" % (
        sys.version.split()[0], files, tally.stats["code objects"], seconds))
    for name in sorted(tally.checked):
        if options.verbose or tally.failed[name]:
            print("  %-76s %7d checked, %d failed" % (name, tally.checked[name],
                                                      tally.failed[name]))
    print("  %d facts checked, %d failed; %s" % (
        sum(tally.checked.values()), sum(tally.failed.values()),
        ", ".join("%s %d" % item for item in sorted(tally.stats.items()))))
    for name in sorted(tally.examples):
        print("first violations of '%s':" % name)
        for text in tally.examples[name]:
            print("    " + text)
    if options.json:
        with open(options.json, "w") as handle:
            json.dump({"python": sys.version.split()[0], "files": files,
                       "checked": dict(tally.checked), "failed": dict(tally.failed),
                       "examples": dict(tally.examples), "stats": dict(tally.stats)},
                      handle, indent=1, sort_keys=True)
    own = sum(count for name, count in tally.failed.items() if not name.startswith(STRUCTURER))
    return 1 if own or (options.strict and sum(tally.failed.values())) else 0


if __name__ == "__main__":
    sys.exit(main())
