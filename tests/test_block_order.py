"""block_order.py: the reordered instruction list is the same program, handlers after their region."""

import os
import sys
import sysconfig

import pytest

from dynalens.decompiler import block_order
from dynalens.decompiler.instructions import exception_entries, normalize
from dynalens.decompiler.profile import PROFILE, profile_for

needs_cold = pytest.mark.skipif(not PROFILE.cold_handlers,
                                reason="the compiler lays handlers out as written (before 3.12)")

SNIPPETS = {
    "try_else": """
def f(a):
    try:
        x = a()
    except ValueError as e:
        x = 2
    except KeyError:
        raise
    else:
        y = 3
    z = 5
    print(x, y, z)
    return x
""",
    "with": """
def f(a):
    with open(a) as fh:
        fh.read()
    print(1)
""",
    "nested": """
def f(a):
    try:
        try:
            a()
        except E:
            b()
        c()
    except F:
        d()
    e()
""",
    "in_loop": """
def f(a):
    for i in a:
        try:
            g(i)
        except E:
            h()
        k()
    while a:
        with a:
            a.x()
        a.y()
""",
    "in_handler": """
def f(a):
    try:
        a()
    except E:
        try:
            b()
        except F:
            c()
        d()
    e()
""",
    "comprehension": """
def f(a):
    x = [i for i in a]
    try:
        y = {k: v for k, v in a}
    except E:
        y = None
    z = [x, y]
    return z
""",
    "async": """
async def f(a):
    async with a as b:
        await b()
    try:
        await a
    except E:
        pass
    return 1
""",
}


def _codes(source):
    def walk(code):
        yield code
        for const in code.co_consts:
            if hasattr(const, "co_code"):
                for inner in walk(const):
                    yield inner
    return list(walk(compile(source, "<snippet>", "exec")))


def _listing(code):
    instrs, offset_to_index = normalize(code)
    return instrs, exception_entries(code, offset_to_index)


def _handler_of(entries, k):
    for e in entries:
        if e.start <= k < e.end:
            return e
    return None


def _through_jumps(instrs, k):
    """The first index control reaches from index ``k`` that is not an unconditional jump
    (so added or dropped jumps are transparent); len(instrs) past the end."""
    seen = set()
    while k < len(instrs) and instrs[k].op == "JUMP" and k not in seen:
        seen.add(k)
        k = instrs[k].target
    return k


def _successors(instrs, entries, k, name):
    """Where instruction ``k`` can pass control, each place named by ``name`` (an old
    index): the next instruction, its jump target, its handler (with the depth and lasti
    the unwinding uses)."""
    ins = instrs[k]
    found = set()
    if ins.op not in block_order._NO_FALLTHROUGH:
        found.add(("next", name(_through_jumps(instrs, k + 1))))
    if ins.target is not None:
        found.add(("jump", name(_through_jumps(instrs, ins.target))))
    entry = _handler_of(entries, k)
    if entry is not None:
        found.add(("handler", name(entry.target), entry.depth, entry.lasti))
    return found


def assert_same_program(instrs, entries, new, new_entries, origin):
    """Every instruction of ``instrs`` that is not an unconditional jump is in ``new``
    once (``origin``: new index -> old), the same instruction, with the same successors;
    ``new`` adds only unconditional jumps."""
    n = len(instrs)
    assert len(origin) == len(new)
    kept = sorted(k for k in origin if k is not None)
    assert len(set(kept)) == len(kept)
    assert set(k for k in range(n) if instrs[k].op != "JUMP") <= set(kept)
    assert all(instrs[k].op == "JUMP" for k in range(n) if k not in set(kept))
    old_name = lambda k: k if k < n else "end"
    new_name = lambda k: origin[k] if k < len(new) else "end"
    assert old_name(_through_jumps(instrs, 0)) == new_name(_through_jumps(new, 0))
    for position, k in enumerate(origin):
        if k is None:
            assert new[position].op == "JUMP"
            continue
        ins, copy = instrs[k], new[position]
        assert (ins.op, ins.argval, ins.offset, ins.line) == (copy.op, copy.argval,
                                                              copy.offset, copy.line)
        if ins.op == "JUMP":
            continue
        assert _successors(instrs, entries, k, old_name) == \
            _successors(new, new_entries, position, new_name), ins
    for k, ins in enumerate(new):
        assert ins.index == k
        assert ins.target is None or 0 <= ins.target <= len(new)
        assert ins.is_target == any(other.target == k for other in new)
    for e in new_entries:
        assert 0 <= e.start < e.end <= len(new) and e.target < len(new)


def _check(code):
    """Reorder ``code``'s listing, check it; whether anything moved."""
    instrs, entries = _listing(code)
    snapshot = [(ins.index, ins.op, ins.target) for ins in instrs]
    moves = block_order.plan(instrs, entries)
    if not moves:
        assert block_order.restore_handler_order(instrs, entries)[0] is instrs
        return False
    new, new_entries, origin = block_order.reorder(instrs, entries, moves)
    assert [(ins.index, ins.op, ins.target) for ins in instrs] == snapshot  # input untouched
    assert_same_program(instrs, entries, new, new_entries, origin)
    return True


@needs_cold
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippets_reordered_to_the_same_program(name):
    moved = sum(_check(code) for code in _codes(SNIPPETS[name]))
    assert moved, "no code object of %r had a handler moved" % name


@needs_cold
@pytest.mark.parametrize("name", ["try_else", "with", "nested", "in_handler", "comprehension"])
def test_handler_right_after_its_region(name):
    for code in _codes(SNIPPETS[name]):
        instrs, entries = _listing(code)
        moves = block_order.plan(instrs, entries)
        new, new_entries = block_order.restore_handler_order(instrs, entries)
        warm = block_order.warm_code(new)
        for e in new_entries:
            if not warm[e.start] or warm[e.target]:
                continue
            # a handler of warm code lies after that code and before the next warm code
            # that is not its own: inside the statement, not at the end of the function
            assert e.target >= e.end
            if moves and e.target < len(new) - 1:
                following = next((k for k in range(e.target, len(new)) if warm[k]), None)
                if following is not None:
                    assert all(not warm[k] for k in range(e.target, following))


@needs_cold
def test_try_else_layout_as_311():
    """`try: a() except E: b() else: c()` then `d()`: body, else, the jump to the join,
    the handler, the join, as 3.11 lays it out."""
    code = _codes("try:\n    a()\nexcept E:\n    b()\nelse:\n    c()\nd()\n")[0]
    instrs, entries = _listing(code)
    new, new_entries = block_order.restore_handler_order(instrs, entries)
    ops = [ins.op for ins in new]
    handler = ops.index("PUSH_EXC_INFO")
    calls = [k for k, ins in enumerate(new) if ins.op == "LOAD_NAME"]
    names = [new[k].argval for k in calls]
    assert names.index("d") > names.index("E")          # the join after the handler
    assert calls[names.index("c")] < handler             # the else before it
    assert new[handler - 1].op == "JUMP" and new[handler - 1].target == calls[names.index("d")] - (
        1 if new[calls[names.index("d")] - 1].op == "PUSH_NULL" else 0)


def test_profile_names_the_fact():
    assert not profile_for((3, 11)).cold_handlers and profile_for((3, 12)).cold_handlers
    code = _codes(SNIPPETS["try_else"])[1]
    instrs, entries = _listing(code)
    same = block_order.restore_handler_order(instrs, entries, profile_for((3, 11)))
    assert same[0] is instrs and same[1] is entries


def _stdlib_files(count):
    root = sysconfig.get_paths()["stdlib"]
    names = sorted(n for n in os.listdir(root) if n.endswith(".py"))
    step = max(1, len(names) // count)
    return [os.path.join(root, n) for n in names[::step][:count]]


@needs_cold
def test_stdlib_sample_same_program():
    """Every code object of a stdlib sample: the reordered list is the same program."""
    checked = moved = 0
    for path in _stdlib_files(40):
        with open(path, encoding="utf-8") as f:
            try:
                top = compile(f.read(), path, "exec")
            except SyntaxError:
                continue
        for code in _codes_of(top):
            checked += 1
            moved += _check(code)
    assert checked > 100 and moved > 10, (checked, moved)


def _codes_of(top):
    todo = [top]
    while todo:
        code = todo.pop()
        yield code
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
