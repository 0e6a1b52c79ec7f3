"""The control-flow graph layer (decompiler/cfg.py): blocks, edges, dominators,
post-dominators, natural loops and copies, on small functions of the running interpreter and
on hand-made instruction lists; and tools/cfg_check.py over a stdlib sample on every native
CPython found (the whole stdlib is its command-line run, see docs/decompiler.md)."""

import os
import subprocess
import sys

import pytest

from native_pythons import native_interpreters
from dynalens.decompiler import cfg
from dynalens.decompiler.instructions import ExceptionEntry, Instr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")


def _block_with(graph, op, argval=None):
    for block in graph.blocks:
        for ins in graph.instrs[block.start:block.end]:
            if ins.op == op and (argval is None or ins.argval == argval):
                return block.id
    raise AssertionError("no %s %r" % (op, argval))


def test_if_else_diamond_dominators_and_post_dominators():
    def f(c):
        if c:
            a = one()
        else:
            a = two()
        return join(a)

    graph = cfg.from_code(f.__code__)
    then, other = _block_with(graph, "LOAD_GLOBAL", "one"), _block_with(graph, "LOAD_GLOBAL", "two")
    joined = _block_with(graph, "LOAD_GLOBAL", "join")
    assert graph.idom(then) == graph.idom(other) == graph.idom(joined) == 0
    assert graph.ipdom(0) == joined and graph.ipdom(then) == joined
    assert graph.post_dominates(joined, then) and not graph.post_dominates(then, 0)
    assert not graph.dominates(then, joined) and graph.dominates(0, joined)
    assert graph.loops == [] and graph.irreducible == []
    kinds = sorted(e.kind for e in graph.blocks[0].succs)
    assert kinds == [cfg.FALL, cfg.JUMP]


def test_nested_loops_are_natural_loops_with_parents():
    def f(rows):
        total = 0
        for row in rows:
            while row:
                row = step(row)
            total += 1
        return total

    graph = cfg.from_code(f.__code__)
    assert len(graph.loops) == 2
    outer, inner = graph.loops
    assert graph.instrs[graph.blocks[outer.header].start].op == "FOR_ITER"
    assert inner.body < outer.body and inner.parent == outer.header and outer.parent is None
    step_block = _block_with(graph, "LOAD_GLOBAL", "step")
    assert step_block in inner.body
    for loop in graph.loops:
        for source in loop.back_edges:
            assert graph.dominates(loop.header, source)
    exit_block = _block_with(graph, "RETURN_VALUE")
    assert exit_block not in outer.body


def test_handlers_are_reached_by_exception_edges_only():
    def f():
        try:
            a()
        except ValueError:
            b()
        return 1

    graph = cfg.from_code(f.__code__)
    handler_blocks = set(b.handler for b in graph.blocks if b.handler is not None)
    assert handler_blocks
    for h in handler_blocks:
        assert all(p.kind == cfg.EXCEPTION for p in graph.blocks[h].preds)
    protected = _block_with(graph, "LOAD_GLOBAL", "a")
    assert graph.blocks[protected].handler is not None
    in_except = _block_with(graph, "LOAD_GLOBAL", "b")
    assert in_except in graph.exception_only()
    assert in_except not in graph.reachable(exceptions=False)
    if sys.version_info >= (3, 11):
        # post-dominance is over normal edges: the handler does not keep `a()` from
        # reaching the return
        assert graph.post_dominates(_block_with(graph, "RETURN_VALUE"), protected) or \
            graph.ipdom(protected) is not None


def _instrs(spec):
    """[(op, argval, target)] -> normalized instructions with indexes."""
    out = []
    for index, (op, argval, target) in enumerate(spec):
        ins = Instr(op, None, argval, index * 2, None)
        ins.index, ins.target = index, target
        out.append(ins)
    return out


def test_exit_copies_are_one_copy_group():
    # if x: f() / return None (copied)  else: g() / return None
    instrs = _instrs([
        ("LOAD_FAST", "x", None), ("POP_JUMP_IF_FALSE", None, 6),
        ("LOAD_GLOBAL", "f", None), ("JUMP", None, 4),
        ("LOAD_CONST", None, None), ("RETURN_VALUE", None, None),
        ("LOAD_GLOBAL", "g", None), ("JUMP", None, 8),
        ("LOAD_CONST", None, None), ("RETURN_VALUE", None, None),
        ("LOAD_CONST", 0, None), ("RETURN_VALUE", None, None),  # different constant
    ])
    graph = cfg.build(instrs, [])
    first, second, other = (graph.block_at[k] for k in (4, 8, 10))
    assert [first, second] in graph.copies
    assert graph.copy_class(second) == first and graph.copy_class(other) == other
    # the blocks jumping to them are copies only if their code matches: f() vs g()
    assert graph.copy_class(graph.block_at[2]) != graph.copy_class(graph.block_at[6])


def test_copies_need_interchangeable_successors_and_handlers():
    instrs = _instrs([
        ("LOAD_FAST", "x", None), ("POP_JUMP_IF_FALSE", None, 4),
        ("POP_TOP", None, None), ("JUMP", None, 6),     # -> return 1
        ("POP_TOP", None, None), ("JUMP", None, 8),     # -> return 2: not a copy
        ("LOAD_CONST", 1, None), ("RETURN_VALUE", None, None),
        ("LOAD_CONST", 2, None), ("RETURN_VALUE", None, None),
        ("PUSH_EXC_INFO", None, None), ("RERAISE", 0, None),
    ])
    graph = cfg.build(instrs, [])
    assert graph.copy_class(graph.block_at[2]) != graph.copy_class(graph.block_at[4])
    # the same two blocks with the same successor but different handlers are not copies
    instrs = _instrs([
        ("LOAD_FAST", "x", None), ("POP_JUMP_IF_FALSE", None, 4),
        ("POP_TOP", None, None), ("JUMP", None, 6),
        ("POP_TOP", None, None), ("JUMP", None, 6),
        ("LOAD_CONST", 1, None), ("RETURN_VALUE", None, None),
        ("PUSH_EXC_INFO", None, None), ("RERAISE", 0, None),
    ])
    entries = [ExceptionEntry(2, 4, 8, 0, False)]
    graph = cfg.build(instrs, entries)
    assert graph.blocks[graph.block_at[2]].handler == graph.block_at[8]
    assert graph.copy_class(graph.block_at[2]) != graph.copy_class(graph.block_at[4])
    assert graph.copy_class(graph.block_at[4]) == graph.block_at[4]
    graph = cfg.build(instrs, [])
    assert graph.copy_class(graph.block_at[4]) == graph.block_at[2]


def test_a_cycle_with_two_entries_is_irreducible_not_a_loop():
    instrs = _instrs([
        ("LOAD_FAST", "x", None), ("POP_JUMP_IF_FALSE", None, 4),  # into the middle
        ("LOAD_GLOBAL", "a", None), ("POP_TOP", None, None),       # 2: first half
        ("LOAD_GLOBAL", "b", None), ("POP_TOP", None, None),       # 4: second half
        ("LOAD_FAST", "y", None), ("POP_JUMP_IF_TRUE", None, 2),   # back to the first half
        ("LOAD_CONST", None, None), ("RETURN_VALUE", None, None),
    ])
    graph = cfg.build(instrs, [])
    assert graph.loops == []
    assert graph.irreducible == [(graph.block_at[6], graph.block_at[2])]


def test_endless_loop_has_no_post_dominator_and_jumps_past_the_end_exit():
    instrs = _instrs([("LOAD_GLOBAL", "f", None), ("POP_TOP", None, None), ("JUMP", None, 0)])
    graph = cfg.build(instrs, [])
    assert [loop.header for loop in graph.loops] == [0]
    assert graph.ipdom(0) is None and not graph.post_dominates(0, 0)
    instrs = _instrs([("LOAD_FAST", "x", None), ("POP_JUMP_IF_TRUE", None, 3),
                      ("LOAD_CONST", None, None)])
    graph = cfg.build(instrs, [])
    assert graph.blocks[0].to_end and graph.blocks[-1].to_end


def test_the_walker_redirected_jumps_are_read_through_original_target():
    instrs = _instrs([("LOAD_FAST", "x", None), ("POP_JUMP_IF_FALSE", None, 4),
                      ("LOAD_CONST", 1, None), ("RETURN_VALUE", None, None),
                      ("LOAD_CONST", None, None), ("RETURN_VALUE", None, None)])
    instrs[1].original_target, instrs[1].target = 4, 99  # ExitBlocks' virtual label
    graph = cfg.build(instrs, [])
    assert cfg.Edge(cfg.JUMP, graph.block_at[4]) in graph.blocks[0].succs


@pytest.mark.parametrize("python", native_interpreters())
def test_cfg_check_on_a_stdlib_sample(python):
    """CPython's facts and the structurer's analyses agree with the CFG (--strict: both)."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONHOME", None)
    done = subprocess.run([python, os.path.join(TOOLS, "cfg_check.py"), "--sample", "20",
                           "--strict"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " 0 failed;" in done.stdout


@pytest.mark.parametrize("python", native_interpreters())
def test_cfg_check_on_the_snippets(python):
    """tests/cfg_snippets: shapes where the CFG found a defect of normalization once."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONHOME", None)
    done = subprocess.run([python, os.path.join(TOOLS, "cfg_check.py"), "--source-root",
                           os.path.join(ROOT, "tests", "cfg_snippets"), "--strict"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " 0 failed;" in done.stdout


def test_empty_code_has_an_empty_graph():
    graph = cfg.build([], [])
    assert graph.blocks == [] and graph.loops == [] and graph.copies == []
    assert not graph.dominates(0, 0) and graph.reachable() == set()
