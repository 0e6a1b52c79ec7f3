"""block_order.py: the reordered instruction list is the same program, handlers after their region."""

import os
import sys

import pytest

from dynalens.decompiler import block_order
from dynalens.decompiler.instructions import exception_entries, normalize
from dynalens.decompiler.profile import PROFILE, profile_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
import block_order_check  # noqa: E402

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


def _check(code):
    """Reorder ``code``'s listing, check it is the same program; whether anything moved."""
    moved, found = block_order_check.check_code(code)
    assert not found, found
    return moved


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


@needs_cold
def test_stdlib_sample_same_program():
    """Every code object of a stdlib sample (tools/block_order_check.py does the whole
    stdlib): the reordered list is the same program."""
    checked = moved = 0
    for path in block_order_check.stdlib_files(60):
        with open(path, encoding="utf-8") as f:
            try:
                top = compile(f.read(), path, "exec")
            except SyntaxError:
                continue
        for code in block_order_check.code_objects(top):
            checked += 1
            moved += _check(code)
    assert checked > 100 and moved > 5, (checked, moved)


def test_a_changed_successor_is_found():
    """The checker itself: a reordering that sends a jump elsewhere is not the same program."""
    code = _codes(SNIPPETS["try_else"])[1]
    instrs, entries = _listing(code)
    new, new_entries = list(instrs), list(entries)
    origin = list(range(len(instrs)))
    assert not block_order_check.differences(instrs, entries, new, new_entries, origin)
    jump = next(k for k, ins in enumerate(instrs) if ins.op.startswith("POP_JUMP"))
    copies, _, _ = block_order.reorder(instrs, entries, [])
    copies[jump].target = jump + 1
    assert block_order_check.differences(instrs, entries, copies, new_entries, origin)


PARTLY = """
def f(a):
    try:
        a()
    except E:
        return 1
    else:
        try:
            b()
        except F:
            c()
        d()
    e()
"""


def _readings(code, answer):
    """The listing the walker reads and the decompiled function, with ``answer`` at the
    code object's choice point."""
    from dynalens.decompiler import choices, render
    session = render.Session()
    session.decisions = choices.Decisions({(id(code), choices.SOURCE_BLOCK_ORDER, 0): answer})
    walker = render.CodeWalker(code, "function", session)
    assert session.decisions.asked[id(code)] == [(choices.SOURCE_BLOCK_ORDER, 0)]
    body = render.decompile_body(code, "function", session)
    source = "def f(a):\n" + "\n".join("    " + line for line in
                                        render.unparse(body).splitlines())
    return [(i.op, i.target) for i in walker.instrs], source


@needs_cold
@pytest.mark.parametrize("name", ["try_else", "partly"])
def test_restored_order_is_the_default_and_a_choice_point(name):
    """The walker reads the restored order by default where every handler goes back, the
    compiled layout where one stays at the end (an else's handler, compiled first, goes
    back after the code the outer one would go in front of); the choice point
    (choices.SOURCE_BLOCK_ORDER, asked once) gives the other reading, and all verify."""
    from dynalens.decompiler.verify import verify
    code = _codes(PARTLY if name == "partly" else SNIPPETS[name])[1]
    compiled, entries = _listing(code)
    restored, _, every = block_order.source_order(compiled, entries)
    assert restored is not compiled and every == (name == "try_else")
    listings = [[(i.op, i.target) for i in listing] for listing in (restored, compiled)]
    if not every:
        listings.reverse()
    for answer, listing in enumerate(listings):
        read, source = _readings(code, answer)
        assert read == listing, answer
        assert verify(code, source), (answer, source)


def test_no_choice_point_where_nothing_moves():
    from dynalens.decompiler import choices, render
    code = _codes("def f(a):\n    return a + 1\n")[1]
    session = render.Session()
    session.decisions = choices.Decisions()
    render.CodeWalker(code, "function", session)
    assert id(code) not in session.decisions.asked


@needs_cold
def test_a_restored_order_that_does_not_walk_falls_back_to_the_compiled_layout(monkeypatch):
    """Where the walk of the restored order fails, the compiled layout is read (with
    cold_blocks.py's compensation): simulated, the first walk of a restored order fails."""
    from dynalens.decompiler import render
    from dynalens.decompiler.verify import verify
    code = _codes(SNIPPETS["try_else"])[1]
    real_walk = render.CodeWalker.walk
    read = []

    def walk(self, start, end, stack, ctx, *rest, **kwargs):
        read.append(self.source_order)
        if self.source_order:
            self.fail("the restored order does not fit", self.instrs[0])
        return real_walk(self, start, end, stack, ctx, *rest, **kwargs)

    monkeypatch.setattr(render.CodeWalker, "walk", walk)
    body = render.decompile_body(code, "function", render.Session())
    assert read[:2] == [True, False]
    source = "def f(a):\n" + "\n".join("    " + line for line in
                                       render.unparse(body).splitlines())
    assert verify(code, source), source


LEAVING = {
    # every clause returns: the handler right after the body, before the code after the try
    "returns": ("try:\n    a()\nexcept E:\n    return 1\nafter()\n", "a", "after"),
    # a finally: after the warm copy of its body
    "finally": ("try:\n    a()\nfinally:\n    fin()\nafter()\n", "fin", "after"),
    # a with whose body returns: after the exit call and the return, the exit's suppressing
    # path having a copy of the code after the statement
    "with_return": ("if cm:\n    with cm:\n        return a()\nreturn after()\n", "a",
                    "after"),
}


@needs_cold
@pytest.mark.parametrize("name", sorted(LEAVING))
def test_handler_without_join_goes_to_the_end_of_its_statement(name):
    """A handler that never comes back to warm code (no join to read) goes back after the
    statement's warm code: the body, a finally copy or with exit, a return it ends with;
    the function then reads the restored order by default (every handler went back)."""
    text, before, after = LEAVING[name]
    source = "def f(cm):\n" + "".join("    " + line + "\n" for line in text.splitlines())
    code = _codes(source)[1]
    instrs, entries = _listing(code)
    new, new_entries, every = block_order.source_order(instrs, entries)
    assert new is not instrs and every
    assert block_order_check.differences(instrs, entries, new, new_entries,
                                         block_order.reorder(instrs, entries,
                                                             block_order.plan(
                                                                 instrs, entries))[2]) == []
    handler = [ins.op for ins in new].index("PUSH_EXC_INFO")
    calls = {}
    for k, ins in enumerate(new):
        if ins.op == "LOAD_GLOBAL":
            calls.setdefault(ins.argval, k)
    assert calls[before] < handler < calls[after], [(i.op, i.argval) for i in new]
    if name == "with_return":  # (the value under the exit: SWAP, exit call, RETURN_VALUE)
        assert new[handler - 1].op == "RETURN_VALUE"
        assert "SWAP" in [i.op for i in new[handler - 9:handler]]


@needs_cold
def test_a_clause_falling_into_the_code_after_the_else_keeps_its_place():
    """`try: a() except E: pass else: return b()` then `return after()`: the code after the
    statement is reached from the clause only (the compiler laid it out after the handler,
    as 3.11 does): the handler is in place, and the function has no handler to move."""
    code = _codes("def f():\n    try:\n        a()\n    except E:\n        pass\n"
                  "    else:\n        return b()\n    return after()\n")[1]
    instrs, entries = _listing(code)
    assert block_order._plan(instrs, entries) == ([], 0)


# (not in the corpus: 3.10 reads the first one's else wrongly, a shape of its own)
MORE_WITHOUT_JOIN = """def clause_falls_off_the_function(self, pid):
    try:
        callback = self.callbacks.pop(pid)
    except KeyError:
        if self.debug:
            self.warn(pid)
    else:
        callback(pid)


def two_statements(self, pid):
    try:
        callback = self.callbacks.pop(pid)
    except KeyError:
        return False
    try:
        callback(pid)
    except KeyError:
        if self.debug:
            self.warn(pid)
    else:
        callback(pid)
"""


@needs_cold
@pytest.mark.parametrize("name", ["every_clause_returns", "try_finally", "with_returning",
                                  "clause_falls_into_copy",
                                  "clause_falls_into_copy_after_else", "finally_with_branch",
                                  "two_statements"])
def test_handlers_without_join_read_in_the_restored_order(name):
    """The corpus functions whose handlers have no join: the walker's first reading is the
    restored order, its walk succeeds and the result verifies with no retry."""
    from dynalens.decompiler import render
    from dynalens.decompiler.statements import Context
    from dynalens.decompiler.verify import verify
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus",
                        "issue12_handlers_without_join.py")
    with open(path) as fh:
        text = fh.read() + MORE_WITHOUT_JOIN
    code = next(c for c in _codes(text) if c.co_name == name)
    walker = render.CodeWalker(code, "function", render.Session())
    assert walker.source_order
    walker.walk(0, walker.n, [], Context())
    body = render.decompile_body(code, "function", render.Session())
    args = ", ".join(code.co_varnames[:code.co_argcount])
    source = "def %s(%s):\n" % (name, args) + "\n".join(
        "    " + line for line in render.unparse(body).splitlines())
    assert verify(code, source), source


@needs_cold
@pytest.mark.parametrize("name", ["code_after_laid_out_after_clause",
                                  "else_returns_code_after_laid_out_after_clause",
                                  "clause_falls_off_the_function"])
def test_handlers_of_statements_that_end_the_warm_code_stay(name):
    """The code after the body is the try's else (the code after the statement is laid out
    after a clause, or the clause falls off into a copy of the implicit return): the
    statement ends the warm code and its handler is where it belongs, nothing moves."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus",
                        "issue12_handlers_without_join.py")
    with open(path) as fh:
        text = fh.read() + MORE_WITHOUT_JOIN
    code = next(c for c in _codes(text) if c.co_name == name)
    assert block_order._plan(*_listing(code)) == ([], 0)


@needs_cold
def test_source_order_asks_take_only_where_something_moves():
    asked = []
    moved_somewhere = False
    for name in sorted(SNIPPETS):
        for code in _codes(SNIPPETS[name]):
            original, original_entries = _listing(code)
            copy, copied_entries, every = block_order.source_order(original, original_entries)
            for answer in (False, True):
                del asked[:]
                instrs, entries = _listing(code)
                restored, moved, every_too = block_order.source_order(
                    instrs, entries, take=lambda every: asked.append(every) or answer)
                assert every_too == every
                if copy is original:  # nothing moves: take is not asked, the input comes back
                    assert asked == [] and restored is instrs and moved is entries
                    continue
                moved_somewhere = True
                assert asked == [every]
                if not answer:
                    assert restored is instrs and moved is entries
                    continue
                # the copy's order, built out of the input's own instructions
                assert [(i.op, i.target, i.original_target, i.index, i.is_target)
                        for i in restored] == [(i.op, i.target, i.original_target, i.index,
                                                i.is_target) for i in copy]
                assert [(e.start, e.end, e.target, e.depth, e.lasti) for e in moved] == \
                    [(e.start, e.end, e.target, e.depth, e.lasti) for e in copied_entries]
                inputs = set(map(id, instrs))
                assert all(id(i) in inputs for i in restored if i.op != "JUMP")
    assert moved_somewhere
