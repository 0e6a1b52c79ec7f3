"""``break`` where the compiler copied the code after a loop into the loop, ``else`` where it
threaded the end of an ``if`` body to the loop head.

Why: from 3.12 a jump to a small exit block (``return x`` after a loop) is replaced by a copy
of that block, written line number included (``PROFILE.lined_exit_copies``). A ``break``
followed by ``return x`` after the loop then compiles to ``return x`` inside the loop, and the
walker reads it so: the same code, so ``verify()`` calls it exact, but the ``break`` keeps a
line-number NOP of its own, so only the ``break`` form is exact under
``verify(strict=True)`` (issue 12's strict figure), and it is what was written.

How we know: the walker stamps each value with the line of the instruction that made it
(``_line``; line_breaks.py). A copy of the return after the loop carries that return's line: a
``return`` inside the loop whose value was made on the very line of the equal ``return`` that
follows the loop is its copy. A ``while True:`` loop that is left only through copies has no
code after it at all; there, a ``return`` whose line is past every other line of the loop, and
that follows a line-number NOP after its ``if``'s test (the ``break``'s: a ``return`` written
last in the loop has none), is the copy, and the return goes back after the loop. Either way the
statements do what they did.
"""

import ast
import copy

from .emit import statement_blocks
from .line_breaks import first_line
from .nop_lines import NopLines

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def breaks_for_copied_exits(stmts, code):
    """Rewrite, in place, the copies of the return after a loop inside it as ``break`` (see
    the module docstring); ``stmts`` is the walked body of function ``code``. Nested blocks
    included."""
    _block(stmts, NopLines(code), top=True)


def _block(stmts, nops, top=False, after=()):
    """``after``: the statements that run when ``stmts`` ends (those after the ifs it is a
    branch of); a loop that ends a block goes on there. Only the first few of them are read
    (a copied exit is short, _exit_after): they are all that is passed on, so a long block
    costs no copy of its rest at each statement."""
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        blocks = statement_blocks(stmt)
        if not blocks:
            k += 1  # (most statements: no loop, no block that ends in one)
            continue
        following = stmts[k + 1:k + 1 + _MAX_COPIED_STATEMENTS] or list(after)
        for block in blocks:
            _block(block, nops, after=following if isinstance(stmt, ast.If) else ())
        if isinstance(stmt, _LOOPS):
            exit_run = _exit_after(following)
            if exit_run:
                _breaks(stmt, exit_run, None)
            elif k + 1 == len(stmts) and top and _endless(stmt):
                exit_run = _copied_exit(stmt, nops)
                if exit_run:
                    _breaks(stmt, exit_run, _line(exit_run[0]))
                    stmts.extend(exit_run)
        k += 1


# The compiler copies exit blocks of at most this many instructions (flowgraph.c's
# MAX_COPY_SIZE): a run of more statements than that is no copy
_MAX_COPIED_STATEMENTS = 4


def _exit_after(after):
    """The statements after a loop up to the first return, if they may be a copied exit."""
    for count, stmt in enumerate(after[:_MAX_COPIED_STATEMENTS], 1):
        if isinstance(stmt, ast.Return):
            return after[:count] if stmt.value is not None else None
    return None


def _breaks(loop, exit_run, exit_line):
    """Each run of statements ending a block of ``loop``'s body that copies ``exit_run``
    (same code, starting on the same line) becomes ``break``. ``exit_line``: the line of
    ``exit_run``, None to work it out here, only where the body has a block ending in a
    return (most loops have none, and the line is a walk of the statement)."""
    candidates = _candidates(loop.body)
    if not candidates:
        return
    if exit_line is None:
        exit_line = _line(exit_run[0])
        if exit_line is None:
            return
    count = len(exit_run)
    for block, _ in candidates:
        run = block[-count:]
        if len(run) == count and _line(run[0]) == exit_line and _same(run, exit_run):
            block[-count:] = [ast.copy_location(ast.Break(), run[0])]


def _candidates(body):
    """(block, the if whose branch the block is or None) for each block of the loop body
    that ends in a return, through ifs only: a return inside a nested loop, try or with
    would leave more than the loop."""
    found = []
    todo = [(body, None)]
    while todo:
        block, guard = todo.pop()
        if block and isinstance(block[-1], ast.Return) and block[-1].value is not None:
            found.append((block, guard))
        for stmt in block:
            if isinstance(stmt, ast.If):
                todo.extend([(stmt.body, stmt), (stmt.orelse, stmt)])
    return found


def _copied_exit(loop, nops):
    """The exit an endless ``loop`` with nothing after it was left through, if blocks of it
    end in copies of one: the same statements, past every other line of the loop, each after
    its if's test and a line-number NOP (the ``break``'s)."""
    runs = []
    for block, guard in _candidates(loop.body):
        run = [block[-1]]
        while len(run) < min(len(block), _MAX_COPIED_STATEMENTS) and \
                _line(block[-len(run) - 1]) is not None and \
                _line(block[-len(run) - 1]) >= _line(run[0]):
            run.insert(0, block[-len(run) - 1])
        runs.append((run, guard))
    lines = [_line(run[0]) for run, _ in runs if _line(run[0]) is not None]
    if not lines:
        return None
    exit_line = max(lines)  # (the others: returns written in the loop)
    runs = [(run, guard) for run, guard in runs if _line(run[0]) == exit_line]
    first, _ = runs[0]
    if not _past_the_rest(loop, [stmt for run, _ in runs for stmt in run]):
        return None
    for run, guard in runs:
        if guard is None or _line(run[0]) != exit_line or not _same(run, first) or \
                not nops.between(first_line(guard.test) or exit_line, exit_line):
            return None
    return [copy.deepcopy(stmt) for stmt in first]


def _endless(loop):
    """``while True:`` (or any constant true test) without else and without a break: the
    code after it is reached only through copies the compiler made."""
    if not isinstance(loop, ast.While) or loop.orelse:
        return False
    test = loop.test
    if not (isinstance(test, ast.Constant) and test.value):
        return False
    todo = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break):
            return False
        if not isinstance(node, _LOOPS + _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return True


def _past_the_rest(loop, copies):
    """Whether every copied statement's line is past every other line stamped in ``loop``."""
    skip = set(id(node) for stmt in copies for node in ast.walk(stmt))
    lines = [getattr(node, "_line", None) for node in ast.walk(loop) if id(node) not in skip]
    lines = [line for line in lines if line is not None]
    exit_line = min(_line(stmt) or 0 for stmt in copies)
    return bool(lines) and exit_line > max(lines)


def _line(stmt):
    """The first line stamped on ``stmt`` (a return's: on its value), or None."""
    if isinstance(stmt, ast.Return):
        return first_line(stmt.value) if stmt.value is not None else None
    return first_line(stmt)


def _same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return ast.dump(a) == ast.dump(b)


def else_for_threaded_continues(stmts):
    """Rewrite, in place, the compiler's threaded jumps to a loop head in ``stmts`` (a
    function's walked body) as the ``else`` / ``if`` they stand for (see the module
    docstring)."""
    for stmt in stmts:
        _threaded_in(stmt)


def _threaded_in(stmt):
    if isinstance(stmt, _LOOPS):
        _tail(stmt.body)
        for inner in stmt.orelse:
            _threaded_in(inner)
        return
    for block in statement_blocks(stmt):
        for inner in block:
            _threaded_in(inner)


def _tail(stmts):
    """``stmts`` run to the end of a loop body: fold the threaded continues in them."""
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        if isinstance(stmt, ast.If) and not stmt.orelse:
            rest = stmts[k + 1:]
            positive = getattr(stmt, "_threaded_test", None)
            if positive is None and len(stmt.body) == 1 and _ends_threaded(stmt.body) and \
                    isinstance(stmt.test, ast.UnaryOp) and isinstance(stmt.test.op, ast.Not):
                positive = stmt.test.operand  # (the test's jump over the threaded one)
            if positive is not None and rest and len(stmt.body) == 1:
                # `if not a: continue` + rest -> `if a: rest`
                stmt.test, stmt.body = positive, rest
                del stmts[k + 1:]
            elif _ends_threaded(stmt.body) and len(stmt.body) > 1:
                stmt.body.pop()  # `if a: x; continue` + rest -> `if a: x else: rest`
                stmt.orelse = rest
                del stmts[k + 1:]
        elif isinstance(stmt, _MATCH) and stmts[k + 1:] and _open_ended(stmt) and \
                all(_ends_threaded(case.body) and len(case.body) > 1 for case in stmt.cases):
            # each `case p: x; continue` + rest -> `case p: x` ... `case _: rest`
            for case in stmt.cases:
                case.body.pop()
            stmt.cases.append(ast.match_case(pattern=ast.MatchAs(pattern=None, name=None),
                                             guard=None, body=stmts[k + 1:]))
            del stmts[k + 1:]
        elif isinstance(stmt, ast.Try) and k == len(stmts) - 1 and not stmt.orelse and \
                not stmt.finalbody and len(stmt.body) > 1 and \
                (_ends_threaded(stmt.body) or getattr(stmt.body[-1], "_back_edge", False)):
            # a try body that ends the loop body and goes on to its back edge: the jump
            # back is the loop's own (it keeps the loop's line), no `continue`
            stmt.body.pop()
        if isinstance(stmt, ast.If) and k == len(stmts) - 1:
            _tail(stmt.body)  # (an if before more statements falls into them, not the end)
            _tail(stmt.orelse)
        elif isinstance(stmt, _MATCH) and k == len(stmts) - 1:
            for case in stmt.cases:
                _tail(case.body)
        else:
            _threaded_in(stmt)
        k += 1


_MATCH = getattr(ast, "Match", ())  # (3.10+)


def _open_ended(match):
    """Whether no case of ``match`` matches everything (then a ``case _:`` may follow)."""
    last = match.cases[-1] if match.cases else None
    return last is None or not (last.guard is None and isinstance(last.pattern, ast.MatchAs)
                                and last.pattern.pattern is None)


def _ends_threaded(body):
    return bool(body) and isinstance(body[-1], ast.Continue) and \
        getattr(body[-1], "_threaded", False)
