"""chunk_starts.cannot_start: the look ahead that spares read_chunk's failing trials must
never say "no chunk" where the trial finds one, nor skip a trial that would have noted a fact
(decompiler/chunk_starts.py)."""

import ast
import os
import sys
import textwrap

import pytest

from dynalens.decompiler import branches, chunk_starts, render
from dynalens.decompiler.render import decompile_code

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def _facts(walker):
    return (set(walker.imported_names), set(walker.module_names),
            set(getattr(walker, "globals_declared", ())),
            set(getattr(walker, "nonlocals_declared", ())))


@pytest.fixture
def checked_trials(monkeypatch):
    """Every read_chunk call runs its trial as well; where the look ahead said no chunk can
    start, the trial must find none and note nothing. Counts (spared, all)."""
    counts = [0, 0]
    trial = branches.read_chunk

    def read_chunk(walker, k, stack, limit, siblings=(), operand=False):
        before = _facts(walker)
        spared = k < limit and k < walker.n and chunk_starts.cannot_start(walker, k, stack,
                                                                          limit)
        looked = _facts(walker)  # (the look ahead notes what the spared trial would note)
        if spared:
            walker.imported_names.clear()
            walker.imported_names.update(before[0])  # the trial must note that itself
        monkeypatch.setattr(branches, "cannot_start", lambda *args: False)
        try:
            found = trial(walker, k, stack, limit, siblings, operand)
        finally:
            monkeypatch.setattr(branches, "cannot_start", chunk_starts.cannot_start)
        counts[1] += 1
        if spared:
            counts[0] += 1
            assert found is None, (walker.code.co_name, k)
            trial_facts = _facts(walker)
            if _walks_more(walker, k, limit):
                # the trial decompiled a nested code object or walked a with body, which
                # note the imports they find: the walk for real does that again (see the
                # outputs' test below)
                assert all(a <= b for a, b in zip(looked, trial_facts)), \
                    (walker.code.co_name, k)
                assert trial_facts[2:] == looked[2:], (walker.code.co_name, k)
            else:
                assert trial_facts == looked, (walker.code.co_name, k)
        return found

    monkeypatch.setattr(branches, "read_chunk", read_chunk)
    return counts


def _walks_more(walker, k, limit):
    """Whether the look ahead from ``k`` met a MAKE_FUNCTION or a with statement (it reads
    at most _MOST instructions)."""
    return any(ins.op in ("MAKE_FUNCTION", "BEFORE_WITH")
               for ins in walker.instrs[k:min(limit, k + chunk_starts._MOST)])


def _corpus_sources():
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".py"):
            with open(os.path.join(CORPUS, name)) as handle:
                yield name, handle.read()


def test_look_ahead_agrees_with_the_trials_on_the_corpus(checked_trials):
    for name, source in _corpus_sources():
        try:
            module = compile(source, name, "exec")
        except SyntaxError:
            continue  # (a construct of a later version)
        try:
            decompile_code(module)
        except Exception:
            pass  # (what the corpus checks is the corpus test's; here only the trials)
    spared, total = checked_trials
    assert total > 500 and spared > total // 4, checked_trials


def test_look_ahead_agrees_with_the_trials_on_stdlib_modules(checked_trials):
    import inspect
    import argparse
    import textwrap as textwrap_module
    for module in (argparse, textwrap_module, inspect):
        decompile_code(compile(open(module.__file__).read(), module.__file__, "exec"))
    assert checked_trials[0] > 0


def test_the_look_ahead_over_jumps_agrees_with_the_trials(checked_trials, monkeypatch):
    # a `continue` or a `break` that starts an if body is a statement, and a jump the walk
    # cannot follow (over the else of `x if c else y`, read as a chunk) fails the trial: the
    # look ahead spares those; the loop's own back edge and a jump the walk passes it leaves
    source = textwrap.dedent('''
        def f(a, b):
            for x in a:
                if x:
                    continue
                if x > 1:
                    break
                y = 1 if x else 2
                while b:
                    if b.c:
                        continue
                    if b.e:
                        break
                    b = b.d
            return x
    ''')
    at_jumps = []
    look = chunk_starts.cannot_start

    def cannot_start(walker, k, stack, limit):
        answer = look(walker, k, stack, limit)
        if answer and walker.instrs[k].op in ("JUMP", "LOAD_CONST"):
            at_jumps.append(walker.instrs[k].op)
        return answer

    monkeypatch.setattr(chunk_starts, "cannot_start", cannot_start)
    decompile_code(compile(source, "<t>", "exec"), strict=True)
    assert at_jumps.count("JUMP") >= 3 and "LOAD_CONST" in at_jumps, at_jumps


def test_the_look_ahead_over_imports_elements_and_chained_stores(checked_trials, monkeypatch):
    # `import m` in an if body, a comprehension's element added under its condition, an
    # in-place update of an attribute (COPY 1 ... SWAP 2; STORE_ATTR, 3.11+), and the
    # second store of `p = q = value` (read for a match's guard: patterns._case_guard) are
    # statements: the look ahead spares their trials (every one checked by the fixture)
    source = textwrap.dedent('''
        def f(a, b):
            if b:
                import os
            if a:
                import os.path
            x = [c for c in a if c]
            y = {c for c in a if c > b}
            z = {c: d for c, d in a if d}
            w = [[c, *d] for c, d in a if c]
            v = [[*c, d and e] for c, d, e in a if c]
            p = q = a.get(b)
            if p:
                a.total += len(b)
            if q:
                b[p] -= 1
            return os, x, y, z, w, p, q
    ''')
    spared = []
    look = chunk_starts.cannot_start

    def cannot_start(walker, k, stack, limit):
        answer = look(walker, k, stack, limit)
        if answer:
            spared.extend(ins.op for ins in walker.instrs[k:k + 4]
                          if ins.op in ("IMPORT_NAME", "LIST_APPEND", "SET_ADD", "MAP_ADD"))
            if walker.instrs[k + 1].op == "COPY":
                spared.append("in-place")
            if walker.instrs[k].op == "STORE_FAST" and not stack[:-1]:
                spared.append("handed")
        return answer

    monkeypatch.setattr(chunk_starts, "cannot_start", cannot_start)
    decompile_code(compile(source, "<t>", "exec"), strict=True)
    assert {"IMPORT_NAME", "LIST_APPEND", "SET_ADD", "MAP_ADD"} <= set(spared), spared
    if hasattr(ast, "MatchAs"):  # (no match statement, so no such trial, before 3.10)
        assert "handed" in spared, spared
    if sys.version_info >= (3, 11):  # (COPY and SWAP: 3.11+)
        assert "in-place" in spared, spared


def test_a_store_of_a_handed_value_that_is_also_below_it_is_left_to_the_trial():
    # (the store may make a walrus there, no statement: StatementWalker._store)
    walker, k = _walker_at_body("def f(a):\n    if a:\n        x = (y := a)\n")
    store = next(ins.index for ins in walker.instrs if ins.op == "STORE_FAST")
    value = ast.Name("a", ast.Load())
    value._made = 0
    assert not chunk_starts.cannot_start(walker, store, [value, value], walker.n)
    assert chunk_starts.cannot_start(walker, store, [ast.Name("b", ast.Load()), value],
                                     walker.n)


def test_an_add_to_anything_but_the_comprehensions_result_is_left_to_the_trial():
    # (comprehension_bodies._element leaves it to the core: a display built in the body)
    code = next((c for c in compile("[x for x in a if x]", "<t>", "exec").co_consts
                 if hasattr(c, "co_code")), None)
    if code is None:
        pytest.skip("3.12+: the comprehension is inlined in its function")
    walker = render.CodeWalker(code, "comprehension", render.Session())
    k = next(ins.index for ins in walker.instrs if ins.op.startswith("POP_JUMP_IF")) + 1
    assert walker.instrs[k + 1].op == "LIST_APPEND"
    result = ast.List([], ast.Load())
    result._made = 0
    handed = [result, object()]  # (the list, the iterator)
    assert chunk_starts.cannot_start(walker, k, handed, walker.n)
    walker.comprehension_result = ast.List([], ast.Load())
    assert not chunk_starts.cannot_start(walker, k, handed, walker.n)


def test_outputs_are_those_of_the_trials(monkeypatch):
    # the look ahead changes how much work is done, never what is read: whole modules (with
    # nested functions made in if bodies, whose trials the look ahead spares) decompile to
    # the same text with every trial run
    import hmac
    import tempfile
    import textwrap as textwrap_module
    sources = [compile(open(module.__file__).read(), module.__file__, "exec")
               for module in (hmac, tempfile, textwrap_module)]
    spared = [decompile_code(code) for code in sources]
    monkeypatch.setattr(branches, "cannot_start", lambda *args: False)
    assert [decompile_code(code) for code in sources] == spared


def _walker_at_body(source):
    """(walker, index of the first instruction of the body of the function's first if)."""
    code = next(c for c in compile(textwrap.dedent(source), "<t>", "exec").co_consts
                if hasattr(c, "co_code"))
    walker = render.CodeWalker(code, "function", render.Session())
    jump = next(ins for ins in walker.instrs if ins.op.startswith("POP_JUMP_IF"))
    return walker, jump.index + 1


@pytest.mark.parametrize("body", ["x = f(a)", "return a.b[1]", "raise E(a)", "a.b = c",
                                  "self.log(a, b=2)", "a[1] = c * 2", "x, y = c",
                                  "a.x, c[0], *y = f(a)", "return lambda: c",
                                  "x = lambda d=1: a", "global G; G = c(a)",
                                  "x = [b for b in c]", "for b in c.d: pass",
                                  "with a.b(c) as d: pass"])
def test_statements_cannot_start_a_chunk(body):
    walker, k = _walker_at_body("def f(a, c):\n    if a:\n        %s\n    return c\n" % body)
    assert chunk_starts.cannot_start(walker, k, [], walker.n)


def test_a_nested_definition_cannot_start_a_chunk():
    # (the trial would decompile the nested function before its store refuses it)
    walker, k = _walker_at_body("def f(a, c):\n    if a:\n        def g(b=1):\n"
                                "            return a + c\n        c = g\n    return c\n")
    assert chunk_starts.cannot_start(walker, k, [], walker.n)


def test_the_look_ahead_notes_the_declarations_the_trial_would():
    source = "G = 0\ndef f(a):\n    c = 1\n    def g():\n        nonlocal c\n" \
        "        global G\n        if a:\n            c, G = a\n    return g\n"
    module = compile(source, "<t>", "exec")
    outer = next(v for v in module.co_consts if hasattr(v, "co_code"))
    code = next(v for v in outer.co_consts if hasattr(v, "co_code"))
    walker = render.CodeWalker(code, "function", render.Session())
    k = next(ins.index for ins in walker.instrs if ins.op.startswith("POP_JUMP_IF")) + 1
    assert chunk_starts.cannot_start(walker, k, [], walker.n)
    assert walker.globals_declared == {"G"} and walker.nonlocals_declared == {"c"}


@pytest.mark.parametrize("source", [
    "def f(a, b):\n    if a and b:\n        return 1\n",       # the next test of the condition
    "def f(a, b):\n    if a:\n        x = (b := g())\n    return x\n",  # a walrus: the trial
    "def f(a, b):\n    if a:\n        x, (y, z) = b\n    return x\n",  # nested: the trial
    "def f(a, b):\n    if a:\n        x = [*b]\n    return x\n",  # unaudited opcodes
])
def test_what_the_look_ahead_leaves_to_the_trial(source):
    walker, k = _walker_at_body(source)
    assert not chunk_starts.cannot_start(walker, k, [], walker.n)


@pytest.mark.parametrize("call, noted", [("os.fspath(b)", {"os"}), ("b.fspath(a)", {"b"}),
                                         ("os.path.join(b)", set()), ("g(os.sep)", set())])
def test_the_look_ahead_notes_the_imports_the_trial_would(call, noted):
    # `mod.f()` without the method form means a module-level import (expressions.py's
    # _note_plain_attribute_call): a spared trial would have noted it (3.8-3.10, which
    # compile the method form for any attribute call, note nothing)
    walker, k = _walker_at_body("import os\ndef f(a, b):\n    if a:\n        %s\n" % call)
    walker.imported_names = set()
    assert chunk_starts.cannot_start(walker, k, [], walker.n)
    trial_walker, _ = _walker_at_body("import os\ndef f(a, b):\n    if a:\n        %s\n" % call)
    trial_walker.imported_names = set()
    try:
        trial_walker.walk(k, trial_walker.n, [], trial_walker.ctx,
                          out=branches._NoStatements(), chunk_mode=True)
    except branches.NotAChunk:
        pass
    assert walker.imported_names == trial_walker.imported_names
    assert walker.imported_names <= noted


_EXCEPT_AS = """
def f(a):
    try:
        g()
    except E as e:
        if a:
            x = h(e)
        return x
"""


def test_the_look_ahead_in_an_except_as_clause():
    from dynalens.decompiler.statements import Context
    code = next(c for c in compile(_EXCEPT_AS, "<t>", "exec").co_consts
                if hasattr(c, "co_code"))
    walker = render.CodeWalker(code, "function", render.Session())
    instrs = walker.instrs
    test = next(ins.index for ins in instrs if ins.op == "LOAD_FAST" and ins.argval == "a")
    body = test + 2  # (after the test's jump: `x = h(e)`)
    unbind = next(ins.index for ins in instrs if ins.op == "LOAD_CONST" and
                  ins.argval is None and instrs[ins.index + 1].argval == "e" and
                  instrs[ins.index + 1].op.startswith("STORE_"))
    # outside the clause the unbinding reads as a store; inside it, the walk skips it
    assert chunk_starts.cannot_start(walker, unbind, [], walker.n)
    walker.ctx = Context(handler_name="e")
    assert not chunk_starts.cannot_start(walker, unbind, [], walker.n)
    # and a statement of the clause is one as anywhere else
    assert chunk_starts.cannot_start(walker, body, [], walker.n)


def test_the_look_ahead_over_a_copied_finally_body():
    from dynalens.decompiler.statements import Context
    code = next(c for c in compile("def f():\n    try:\n        g()\n    finally:\n"
                                   "        h()\n", "<t>", "exec").co_consts
                if hasattr(c, "co_code"))
    walker = render.CodeWalker(code, "function", render.Session())
    instrs = walker.instrs
    loads = [ins.index for ins in instrs if ins.argval == "h"]
    starts = [k - 1 if instrs[k - 1].op == "PUSH_NULL" else k for k in loads]
    if len(starts) < 2:
        pytest.skip("3.8: one finally body, not copied onto the normal exit")
    length = next(ins.index for ins in instrs[loads[0]:] if ins.op == "POP_TOP") - \
        starts[0] + 1
    assert chunk_starts.cannot_start(walker, starts[0], [], walker.n)
    # where the walk skips a copy of the finally body, the look ahead leaves it the trial
    walker.ctx = Context(finally_copies=((starts[1], length, -1),))
    assert not chunk_starts.cannot_start(walker, starts[0], [], walker.n)


def test_a_family_that_takes_over_a_handler_takes_it_out_of_the_look_ahead(monkeypatch):
    from dynalens.decompiler import registry
    walker, k = _walker_at_body("def f(a):\n    if a:\n        x = g(a)\n    return x\n")
    assert chunk_starts.cannot_start(walker, k, [], walker.n)
    monkeypatch.setitem(registry.OPCODES, "STORE_FAST", lambda *args: None)
    monkeypatch.setattr(chunk_starts, "_tables", [])
    assert not chunk_starts.cannot_start(walker, k, [], walker.n)
