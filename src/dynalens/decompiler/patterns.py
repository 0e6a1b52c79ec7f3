"""``match`` statements: pattern bytecode back to ``ast.Match``.

CPython compiles a ``match`` (``compiler_match`` and the ``compiler_pattern_*`` helpers of
``Python/compile.c``) into a flat run of tests over copies of the subject::

    <subject>
    COPY 1; <pattern 1>; <stores>; [guard]; POP_TOP; <body 1>; JUMP end; <fail pops>
    COPY 1; <pattern 2>; ...                           (every case but the last copies)
    <pattern n>; <stores>; [guard]; <body n>           (the last one consumes the subject)
    [<body of a trailing `case _:`>]
    end:

A failing test jumps into a run of ``POP_TOP`` s that drops what the pattern had pushed and
lands on the next case.  The peephole optimizer then rewrites the pattern code (``SWAP`` s that
move captured values into place are applied statically by reordering the ``STORE`` s,
``LOAD_CONST None; IS_OP`` tests become ``POP_JUMP_IF_[NOT_]NONE``), so instead of matching the
compiler's templates instruction by instruction, a case's pattern is *executed symbolically*:
every stack value is a :class:`PNode` (the subject or a part of it) or a piece of the
bookkeeping (``len()``, the result of ``MATCH_KEYS``...), and each node learns its pattern from
the instruction that consumes it -- ``MATCH_SEQUENCE`` makes it a sequence pattern, ``==`` a
value pattern, a ``STORE`` a capture, a ``POP_TOP`` a wildcard.  How the values are shuffled
does not matter, only who consumes them.  Or-patterns are the one place with control flow:
each alternative runs on its own copy and jumps to a shared end, where the captured values of
all alternatives sit in the same order.

The failure jumps are what makes the structure certain: every one must land, after popping
exactly what was on the stack above the case's base, on one point -- the next case.

Per version (the symbolic execution absorbs most of it): 3.10's MATCH_CLASS / MATCH_KEYS push
their tuple *and* a success flag and sub-patterns index into the tuple
(``PROFILE.match_success_flag`` in those two handlers), ``**rest`` is COPY_DICT_WITHOUT_KEYS,
rotations are ROT_N; from 3.12 on (and sometimes before) the code after an or-pattern is a
short exit that the compiler copies into every alternative instead of jumping to it, which
:func:`_or_pattern` reads as an alternative's "tail".
"""

import ast

from .emit import strip_trailing_return
from .errors import DecompilationError
from .expressions import const, name
from .profile import PROFILE
from .statements import NotAChunk
from .expressions import StackMachine
from . import handlers_legacy
from . import branches


class _NotAPattern(Exception):
    """The code being read is not the pattern template (the caller tries another reading)."""


class PNode(object):
    """A value a pattern is matched against: the subject, or an element, item or attribute.

    ``kind`` says which pattern consumed it (None until then: a capture if it is stored, a
    wildcard if it is popped)."""

    __slots__ = ("kind", "name", "value", "length", "children", "star", "front", "back",
                 "keys", "rest", "cls", "nargs", "attrs", "inner", "alts", "popped")

    def __init__(self):
        self.kind = None
        self.name = None
        self.value = None
        self.length = None      # ("==" | ">=", n) from the GET_LEN test
        self.children = None    # UNPACK_* of a sequence, or the values / attributes tuple
        self.star = None        # index of the starred child (UNPACK_EX)
        self.front = {}         # subject[i] extracted around a `*_`
        self.back = {}          # subject[len - k] extracted after a `*_`
        self.keys = None
        self.rest = None
        self.cls = None
        self.nargs = 0
        self.attrs = ()
        self.inner = None       # `pattern as name`: the copy the inner pattern consumed
        self.alts = None
        self.popped = False


class _Val(object):
    """A loaded expression (value pattern, class, mapping key); ``raw`` for constants."""

    __slots__ = ("expr", "raw", "is_const")

    def __init__(self, expr, raw=None, is_const=False):
        self.expr, self.raw, self.is_const = expr, raw, is_const


class _Check(object):
    """A boolean a pattern test pushed for its failure jump."""


class _Len(object):
    def __init__(self, node):
        self.node = node


class _LenMinus(object):
    """``len(subject) - k``: the index of an element after a ``*_``."""

    def __init__(self, node, k):
        self.node, self.k = node, k


class _Result(object):
    """What MATCH_CLASS / MATCH_KEYS push: a tuple of values, or None on failure."""

    def __init__(self, node, count):
        self.node, self.count = node, count


class _KeysTuple(object):
    def __init__(self, node, count):
        self.node, self.count = node, count


class _KeyItem(object):
    pass


class _EmptyDict(object):
    pass


class _RestDict(object):
    """The ``**rest`` dict being built: a copy of the subject without the matched keys."""

    def __init__(self, node):
        self.node = node
        self.name = None


class _OrSlot(object):
    """One captured name of an or-pattern: the values its alternatives captured for it."""

    def __init__(self, members):
        self.members = members


def literal(value):
    """A constant as a pattern literal: complex numbers as ``a + bj`` (a parenthesized
    ``(1+2j)`` is no literal in a mapping key)."""
    if isinstance(value, complex) and value.real:
        real = const(value.real if value.real != int(value.real) else int(value.real))
        imag = abs(value.imag)
        return ast.BinOp(left=real, op=ast.Sub() if value.imag < 0 or (
            value.imag == 0 and str(value.imag).startswith("-")) else ast.Add(),
            right=ast.Constant(value=complex(0, imag)))
    if isinstance(value, complex) and str(value.imag).startswith("-"):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=complex(0, -value.imag)))
    return const(value)


def _unnamed_capture(item):
    """Whether ``item`` is a value an alternative captured and leaves for its stores."""
    if isinstance(item, _OrSlot):
        return all(_unnamed_capture(m) for m in item.members)
    if isinstance(item, _RestDict):
        return item.node.rest is None
    return isinstance(item, PNode) and item.name is None and item.kind in (None, "as")


def _only_names(pattern):
    """Whether a pattern only binds names (``x``, ``x as y``...): plain assignments."""
    while isinstance(pattern, ast.MatchAs) and pattern.name is not None:
        pattern = pattern.pattern
    return pattern is None


def _is_wildcard(pattern):
    return isinstance(pattern, ast.MatchAs) and pattern.pattern is None and pattern.name is None


def _ends_with_implicit_return(body):
    while body and isinstance(body[-1], ast.If):
        body = body[-1].orelse or body[-1].body
    return bool(body) and isinstance(body[-1], ast.Return) and getattr(body[-1], "_implicit", False)


class _Case(object):
    __slots__ = ("pattern", "guard", "body_start", "body_end", "fail", "refutable")

    def __init__(self, pattern, guard, body_start, body_end, fail, refutable):
        self.pattern, self.guard = pattern, guard
        self.body_start, self.body_end = body_start, body_end
        self.fail, self.refutable = fail, refutable


# Recognises ``match`` statements where the walker meets their first pattern.


# -- entry points ----------------------------------------------------------------------
def op_COPY(walker, ins, stack, out):
    if ins.argval == 1 and not walker.chunk_mode and stack and isinstance(stack[-1], ast.expr) \
            and hasattr(ast, "MatchAs") and \
            not _reads_the_copy(walker, ins.index):  # (no match statement before 3.10)
        nxt = match_statement(walker, ins.index, stack, out, copied=True)
        if nxt is not None:
            return nxt
    return StackMachine.op_COPY(walker, ins, stack, out)


# loads whose pattern step pushes one value and pops none (_p_load_name, _p_LOAD_CONST)
_PLAIN_LOADS = frozenset(["LOAD_FAST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CONST"])


def _reads_the_copy(walker, k):
    """Whether the code after ``COPY 1`` at ``k`` uses the copy as a value, as no case can
    (a cheap test before match_statement's trial, which fails there: 210 of the 630 COPY 1
    on 600 stdlib files): ``a.b += 1`` reads an attribute of it, and ``x = a.b = v`` stores
    it into an attribute of a loaded value. In every reading of a case there (a copying
    case, whose pattern starts at k + 1 on its node; the last one, which starts at the COPY
    itself: an or-pattern's first alternative, or an ``as`` pattern's inner node) the
    instruction at k + 1 meets a node on top of the pattern stack: _p_LOAD_ATTR refuses a
    node; after a plain load, STORE_ATTR has no pattern step, and as the end of an
    or-pattern's alternative it leaves the loaded value, no capture, behind it."""
    instrs = walker.instrs
    if k + 2 >= walker.n:
        return False
    op = instrs[k + 1].op
    return op == "LOAD_ATTR" or op in _PLAIN_LOADS and instrs[k + 2].op == "STORE_ATTR"


def _match_without_copy(walker, ins, stack, out, preloaded):
    """The only (or last non-default) case of a match starts at a MATCH_* opcode."""
    if walker.chunk_mode:
        raise NotAChunk()
    nxt = match_statement(walker, ins.index, stack, out, copied=False, preloaded=preloaded)
    if nxt is None:
        walker.fail("unrecognised match statement", ins)
    return nxt


def op_MATCH_SEQUENCE(walker, ins, stack, out):
    return _match_without_copy(walker, ins, stack, out, 0)

op_MATCH_MAPPING = op_MATCH_SEQUENCE


def op_MATCH_CLASS(walker, ins, stack, out):
    return _match_without_copy(walker, ins, stack, out, 2)


# -- the statement ---------------------------------------------------------------------
def match_statement(walker, k, stack, out, copied, preloaded=0):
    """Parse the match whose subject is on ``stack`` and whose first case starts at
    ``k``; append an ``ast.Match`` and return where the code goes on, or None (and no
    change) when the code there is no match statement."""
    if len(stack) < 1 + preloaded:
        return None
    cut = len(stack) - 1 - preloaded
    subject = stack[cut]
    if not isinstance(subject, ast.expr):
        return None
    outer = stack[:cut]
    if outer and outer[-1] is subject:
        return None  # a COPY 1 the walker took as a plain copy: not the subject's start
    pre = [_pat_val(walker, v) for v in stack[cut + 1:]]
    if any(v is None for v in pre):
        return None
    state = walker.fork()
    try:
        cases = _read_cases(walker, k, outer, subject, pre, copied and not pre, True)
    except (_NotAPattern, DecompilationError, NotAChunk):
        cases = None
    if cases is None:
        walker.restore(state)
        return None
    subject = walker.value(subject, None)
    last = out[-1] if out else None
    if k > 0 and walker.instrs[k - 1].op.startswith("STORE_") and \
            isinstance(last, ast.Assign) and last.value is subject and \
            len(last.targets) == 1 and isinstance(last.targets[0], ast.Name):
        # `match (n := value):` -- COPY 1; STORE n before the first case
        out.pop()
        subject = ast.NamedExpr(target=last.targets[0], value=subject)
    nxt = _emit_match(walker, subject, outer, cases, out)
    del stack[cut:]
    return nxt


def _read_cases(walker, pos, outer, subject, pre, copy_first, first):
    """The cases from ``pos`` on: copying ones while the subject stays, then the one
    that consumes it (tried as a copying case first, as the last one if what follows
    does not read)."""
    if copy_first:
        case = _read_case(walker, pos, outer, subject, True, [])
        if case is not None:
            rest = _read_cases(walker, case.fail, outer, subject, [], True, False)
            if rest is not None:
                return [case] + rest
    case = _read_case(walker, pos, outer, subject, False, pre, lone=first)
    if case is None:
        return None
    if not first and _is_wildcard(case.pattern) and case.guard is None:
        return None  # `case _:` after others is the default: no pattern code at all
    return [case]


def _emit_match(walker, subject, outer, cases, out):
    last = cases[-1]
    loop = walker.ctx.loop
    end = _body_jump_target(walker, cases)
    if last.fail is None:
        # an irrefutable last case runs to the end of the match
        stop = end if end is not None else _region_end(walker)
        last.body_end = stop
    bodies = [walker.walk(case.body_start, min(case.body_end, walker.range_end), list(outer),
                        walker.ctx)[0] for case in cases]
    default = None
    # bodies that end with copies of the code's final `return None`: the match is the
    # last statement, and those returns are the fall-through past its end.  Nested in
    # another statement, the returns stay (the enclosing if/else may need them), except
    # where no `return` may be written
    returns = loop is None and any(
        _ends_with_implicit_return(body) or _ends_with_exit_copy(walker, case)
        for case, body in zip(cases, bodies))
    top_level = walker.range_end >= walker.n
    strip = returns and (top_level or walker.kind in ("module", "class"))
    if last.fail is None:
        nxt = last.body_end
    elif returns and top_level:
        # whatever the last case fails to is its `case _:`
        nxt = _region_end(walker)
        default = (last.fail, nxt)
    elif end is not None and end > last.fail and \
            walker.exits.label(end) != walker.exits.label(last.fail):
        default = (last.fail, end)
        nxt = end
    else:
        nxt = last.fail
    if nxt > walker.range_end:
        nxt = walker.range_end
    # (the match ends the loop body, up to its back edge or with it: _fails_to_loop_head)
    redundant_continue = loop is not None and \
        (nxt == loop.last or nxt == loop.last + 1 == walker.range_end) and \
        loop.last < walker.n and walker.instrs[loop.last].op == "JUMP" and \
        walker.instrs[loop.last].target in loop.continue_targets
    match_cases = []
    for case, body in zip(cases, bodies):
        body = _case_body(walker, body, strip, redundant_continue)
        match_cases.append(ast.match_case(pattern=case.pattern, guard=case.guard, body=body))
    if default is not None and default[0] < min(default[1], walker.range_end):
        body, _ = walker.walk(default[0], min(default[1], walker.range_end), list(outer), walker.ctx)
        body = _case_body(walker, body, strip, redundant_continue)
        if not (len(body) == 1 and isinstance(body[0], ast.Pass)):
            match_cases.append(ast.match_case(pattern=ast.MatchAs(pattern=None, name=None),
                                              guard=None, body=body))
    if len(match_cases) == len(cases) and _is_wildcard(last.pattern) and last.guard:
        # `case _ if guard:` compiles as a case (not as the default) only when a
        # `case _:` follows it
        match_cases.append(ast.match_case(pattern=ast.MatchAs(pattern=None, name=None),
                                          guard=None, body=[ast.Pass()]))
    out.append(ast.Match(subject=subject, cases=match_cases))
    return nxt


def _ends_with_exit_copy(walker, case):
    """Whether the case body's code ends with a copy of the implicit ``return None`` (which
    the walk may have skipped as a detached copy)."""
    end = case.body_end
    if end is None or end - 2 < case.body_start or end > walker.n:
        return False
    load, ret = walker.instrs[end - 2], walker.instrs[end - 1]
    return ret.op == "RETURN_VALUE" and load.op == "LOAD_CONST" and load.argval is None \
        and handlers_legacy.is_implicit_return(walker, load)


def _region_end(walker):
    """The end of the range being walked, short of the enclosing loop's back edge."""
    loop = walker.ctx.loop
    if loop is not None and loop.last == walker.range_end - 1 and \
            walker.instrs[loop.last].op == "JUMP":
        return loop.last
    return walker.range_end

_CLASS_EPILOGUE = ("__classcell__", "__static_attributes__", "__classdictcell__")


def _case_body(walker, body, strip, redundant_continue):
    """The implicit ``return None`` copies (when the match ends the code; in a class
    body with the epilogue the compiler adds before it) and a ``continue`` that is only
    the loop's back edge, at the end of a case body, are the fall-through to the end of
    the match."""
    if strip:
        strip_trailing_return(body)
        while walker.kind == "class" and body and isinstance(body[-1], ast.Assign) and \
                len(body[-1].targets) == 1 and isinstance(body[-1].targets[0], ast.Name) \
                and body[-1].targets[0].id in _CLASS_EPILOGUE:
            body.pop()
    if redundant_continue and body and isinstance(body[-1], ast.Continue):
        body.pop()
    return body or [ast.Pass()]


def _body_jump_target(walker, cases):
    """Where the case bodies jump when done: the end of the match (None if every body
    returns, raises or leaves the loop)."""
    found = None
    for case in cases:
        end = case.body_end
        if end is None or end <= case.body_start or end - 1 >= walker.n:
            continue
        last = walker.instrs[end - 1]
        if last.op != "JUMP" or last.target < end or branches._is_loop_jump(walker, last) or \
                last.target > walker.range_end:
            continue
        if found is None or last.target > found:
            found = last.target
    return found


# -- one case --------------------------------------------------------------------------
def _read_case(walker, k, outer, subject, copied, pre, lone=False):
    """A case at ``k``: with ``copied`` the template that copies the subject first and
    pops it after a match; without, the last case's, which consumes it. ``lone``: a case
    that would be the match's only one, refused if it only captures names."""
    instrs = walker.instrs
    root = PNode()
    if copied:
        if k >= walker.n or instrs[k].op != "COPY" or instrs[k].argval != 1:
            return None
        base = len(outer) + 1
        stack = list(outer) + [subject, root]
        start = k + 1
    else:
        base = len(outer)
        stack = list(outer) + [root] + pre
        start = k
    fails = []
    try:
        stop = _pat_run(walker, start, stack, base, fails, False)
    except _NotAPattern:
        return None
    if stop >= walker.n and copied:
        return None
    fail, chain = _case_fail_point(walker, fails, base)
    if lone and not fails and _only_names(_pat_build(walker, root)):
        # a lone case that only captures is `x = y = value`, whatever follows: refused
        # before its guard is looked for (a trial parse of the next statement's test)
        return None
    if not copied and fail is not None and fail < start:
        fail = chain = _fails_to_loop_head(walker, fail)
        if fail is None:
            return None
    guard_stack = list(outer) + ([subject] if copied else [])
    exit_only = bool(fails) and fail is None
    guard, body_start, fail = _case_guard(walker, stop, guard_stack, fail, copied, exit_only,
                                               chain)
    if guard is False:
        return None
    if copied:
        if fail is None or body_start >= walker.n or instrs[body_start].op != "POP_TOP":
            return None
        body_start += 1
    if fail is not None and chain is None:
        chain = fail
    if fail is not None and chain < body_start:
        return None
    pattern = _pat_build(walker, root)
    return _Case(pattern, guard, body_start, chain, fail, bool(fails))


def _fails_to_loop_head(walker, head):
    """Where the match ends when its last case fails straight back to ``head``: the head of
    the enclosing loop, whose body the match ends (3.12+ threads the jump to the code after
    the match, the loop's back edge, to the head): the end of the range, the loop's back
    edge included (the last case's body runs to it, so a loop in it ends the loop body:
    its breaks may be threaded to the head too; the back edge reads as a `continue` that
    _case_body drops). None when ``head`` is no loop head."""
    loop = walker.ctx.loop
    if loop is None or head not in loop.continue_targets:
        return None
    return walker.range_end


def _case_fail_point(walker, fails, base):
    """The one point every failure jump reaches after its pops, and the first pop."""
    point = chain = None
    instrs = walker.instrs
    for target, depth in fails:
        pops = depth - base
        if pops < 0:
            raise _NotAPattern()
        if target is None:
            continue  # leaves the code: agrees with whatever end the others reach
        if target >= walker.n:
            if pops:
                raise _NotAPattern()
            land = target
        else:
            if any(target + q >= walker.n or instrs[target + q].op != "POP_TOP"
                   for q in range(pops)):
                raise _NotAPattern()
            land = target + pops
            chain = target if chain is None else min(chain, target)
        if point is None:
            point = land
        elif walker.exits.label(point) != walker.exits.label(land):
            raise _NotAPattern()
        elif land < point:
            point = land
    return point, chain


def _case_guard(walker, k, stack, fail, copied, exit_only=False, chain=None):
    """``case ... if guard:``: a condition whose false exits go to the case's failure
    point (or a copy of it past the case body: an ``if`` that starts the body may jump
    to a copy of the same exit at the body's end), or to a return when the pattern
    fails to one (``exit_only``).
    Returns (guard or None, body start, failure point); guard False: no fit."""
    instrs = walker.instrs
    if k < walker.n and copied and instrs[k].op == "POP_TOP":
        return None, k, fail
    chunks = branches.gather_chunks(walker, k, walker.range_end, stack)
    for count in range(len(chunks), 0, -1):
        last = chunks[count - 1].jump
        true, false = branches.after(walker, last), last.target
        real = _real_target(last)
        if fail is not None and (walker.exits.label(false) != walker.exits.label(fail) or
                                 real != fail and true <= real < (chain or fail)):
            continue
        if exit_only and not _is_exit(walker, real):
            continue
        if copied and (true >= walker.n or instrs[true].op != "POP_TOP"):
            continue
        expr = branches.parse_cond(walker, chunks[:count], true, false, true)
        if expr is not None:
            return expr, true, fail if fail is not None else real
    if copied:
        return False, k, fail
    return None, k, fail


def _is_exit(walker, k):
    """Whether ``k`` starts a ``return <constant>`` (or lies past the code)."""
    return k >= walker.n or (k + 1 < walker.n and walker.instrs[k].op == "LOAD_CONST" and
                           walker.instrs[k + 1].op == "RETURN_VALUE")


# -- symbolic execution of pattern code ------------------------------------------------
def _pat_run(walker, k, stack, base, fails, alternative):
    """Execute pattern code from ``k`` until the stack is back at ``base`` (a case) or,
    for an or-pattern's alternative, until its jump to the shared end."""
    instrs = walker.instrs
    while True:
        if not alternative and len(stack) <= base:
            return k
        if k >= walker.n:
            raise _NotAPattern()
        ins = instrs[k]
        if ins.op == "JUMP":
            if alternative:
                return k
            raise _NotAPattern()
        if alternative and _leaves_alternative(ins, stack, base):
            return k
        handler = _PATTERN_STEPS.get(ins.op)
        if handler is None:
            raise _NotAPattern()
        nxt = handler(walker, ins, stack, base, fails)
        k = k + 1 if nxt is None else nxt


def _leaves_alternative(ins, stack, base):
    """Whether ``ins`` belongs to the code after an or-pattern (which the compiler copies
    into each alternative when it is a short exit): stores, or what touches the node
    the alternatives share."""
    op = ins.op
    if op.startswith("STORE_"):
        return True
    if op == "POP_TOP":
        return len(stack) <= base
    if op == "SWAP":
        return ins.argval > len(stack) - base
    return False


def _pat_pop(stack, base):
    if len(stack) <= base:
        raise _NotAPattern()
    return stack.pop()


def _pat_val(walker, value):
    if isinstance(value, ast.expr):
        raw = getattr(value, "_const", None)
        if isinstance(value, ast.Constant):
            return _Val(value, value.value, True)
        if raw is not None:
            return _Val(value, raw, True)
        return _Val(value)
    return None


def _p_LOAD_CONST(walker, ins, stack, base, fails):
    if hasattr(ins.argval, "co_code"):
        raise _NotAPattern()
    stack.append(_Val(literal(ins.argval), ins.argval, True))


def _p_load_name(walker, ins, stack, base, fails):
    stack.append(_Val(name(ins.argval)))

_p_LOAD_NAME = _p_LOAD_GLOBAL = _p_LOAD_FAST = _p_LOAD_DEREF = _p_load_name
_p_LOAD_CLASSDEREF = _p_load_name


def _p_LOAD_ATTR(walker, ins, stack, base, fails):
    obj = _pat_pop(stack, base)
    if not isinstance(obj, _Val) or obj.is_const:
        raise _NotAPattern()
    stack.append(_Val(ast.Attribute(value=obj.expr, attr=ins.argval, ctx=ast.Load())))


def _p_BUILD_TUPLE(walker, ins, stack, base, fails):
    items = [_pat_pop(stack, base) for _ in range(ins.argval)][::-1]
    if not all(isinstance(v, _Val) for v in items):
        raise _NotAPattern()
    stack.append(_Val(ast.Tuple(elts=[v.expr for v in items], ctx=ast.Load())))


def _p_COPY(walker, ins, stack, base, fails):
    n = ins.argval
    if n > len(stack) - base:
        raise _NotAPattern()
    item = stack[-n]
    if n == 1 and isinstance(item, PNode) and item.kind is None:
        nxt = _or_pattern(walker, ins.index, stack, base, fails)
        if nxt is not None:
            return nxt
        inner = PNode()
        item.kind = "as"
        item.inner = inner
        stack.append(inner)
        return None
    stack.append(item)


def _p_SWAP(walker, ins, stack, base, fails):
    n = ins.argval
    if n > len(stack) - base:
        raise _NotAPattern()
    stack[-1], stack[-n] = stack[-n], stack[-1]


def _p_ROT(walker, ins, stack, base, fails):  # 3.10: ROT_TWO/THREE/FOUR/N
    n = ins.argval
    if n > len(stack) - base:
        raise _NotAPattern()
    top = stack.pop()
    stack.insert(len(stack) - n + 1, top)


def _p_COPY_DICT_WITHOUT_KEYS(walker, ins, stack, base, fails):  # 3.10's **rest
    keys = stack[-1] if len(stack) > base else None
    if not isinstance(keys, _KeysTuple):
        raise _NotAPattern()
    stack[-1] = _RestDict(keys.node)


def _p_POP_TOP(walker, ins, stack, base, fails):
    item = _pat_pop(stack, base)
    if isinstance(item, PNode):
        if item.kind is None and item.name is None:
            item.popped = True
        elif item.kind not in ("seq", "map", "or"):
            raise _NotAPattern()
    elif not isinstance(item, _KeysTuple) and \
            not (isinstance(item, _Result) and PROFILE.match_success_flag):
        raise _NotAPattern()


def _pat_store(walker, ins, stack, base):
    item = _pat_pop(stack, base)
    _pat_name(walker, item, ins.argval)


def _pat_name(walker, item, ident):
    if isinstance(item, _OrSlot):
        for member in item.members:
            _pat_name(walker, member, ident)
    elif isinstance(item, _RestDict):
        if item.node.rest is not None:
            raise _NotAPattern()
        item.node.rest = ident
    elif isinstance(item, PNode) and item.name is None and item.kind in (None, "as"):
        item.name = ident
    else:
        raise _NotAPattern()


def _p_STORE_FAST(walker, ins, stack, base, fails):
    _pat_store(walker, ins, stack, base)

_p_STORE_NAME = _p_STORE_FAST


def _p_STORE_GLOBAL(walker, ins, stack, base, fails):
    _pat_store(walker, ins, stack, base)
    walker.globals_declared.add(ins.argval)


def _p_STORE_DEREF(walker, ins, stack, base, fails):
    _pat_store(walker, ins, stack, base)
    if ins.argval in walker.code.co_freevars:
        walker.nonlocals_declared.add(ins.argval)


def _pat_fresh(walker, stack, base, kind):
    if len(stack) <= base:
        raise _NotAPattern()
    node = stack[-1]
    if not isinstance(node, PNode) or node.kind is not None:
        raise _NotAPattern()
    node.kind = kind
    return node


def _p_MATCH_SEQUENCE(walker, ins, stack, base, fails):
    _pat_fresh(walker, stack, base, "seq")
    stack.append(_Check())


def _p_MATCH_MAPPING(walker, ins, stack, base, fails):
    _pat_fresh(walker, stack, base, "map")
    stack.append(_Check())


def _p_GET_LEN(walker, ins, stack, base, fails):
    node = stack[-1] if len(stack) > base else None
    if not isinstance(node, PNode) or node.kind not in ("seq", "map"):
        raise _NotAPattern()
    stack.append(_Len(node))


def _p_COMPARE_OP(walker, ins, stack, base, fails):
    right = _pat_pop(stack, base)
    left = _pat_pop(stack, base)
    if isinstance(left, _Len) and isinstance(right, _Val) and right.is_const and \
            type(right.raw) is int and ins.argval in ("==", ">=") and left.node.length is None:
        left.node.length = (ins.argval, right.raw)
    elif isinstance(left, PNode) and left.kind is None and isinstance(right, _Val) and \
            ins.argval == "==":
        left.kind = "value"
        left.value = right
    else:
        raise _NotAPattern()
    stack.append(_Check())


def _p_IS_OP(walker, ins, stack, base, fails):
    right = _pat_pop(stack, base)
    left = _pat_pop(stack, base)
    if not (isinstance(right, _Val) and right.is_const):
        raise _NotAPattern()
    if ins.arg == 0 and isinstance(left, PNode) and left.kind is None and \
            right.raw in (True, False, None) and type(right.raw) in (bool, type(None)):
        left.kind = "singleton"
        left.value = right.raw
    elif ins.arg == 1 and isinstance(left, _Result) and right.raw is None:
        pass
    else:
        raise _NotAPattern()
    stack.append(_Check())


def _real_target(ins):
    """Where a failure jump really goes: the pops it lands on may look like a copy of an
    exit block to :class:`~.statements.ExitBlocks`, which redirects such jumps."""
    return ins.target if ins.original_target is None else ins.original_target


def _jumps_back(walker, ins):
    """Whether the failure jump ``ins`` goes backwards, other than to the head of the
    enclosing loop (the last case of a match that ends a loop body, 3.12+:
    _fails_to_loop_head)."""
    loop = walker.ctx.loop
    return ins.target <= ins.index and (loop is None or ins.target not in loop.continue_targets)


def _p_POP_JUMP_IF_FALSE(walker, ins, stack, base, fails):
    if not isinstance(_pat_pop(stack, base), _Check) or _jumps_back(walker, ins):
        raise _NotAPattern()
    fails.append((_real_target(ins), len(stack)))


def _p_POP_JUMP_IF_NONE(walker, ins, stack, base, fails):
    if not isinstance(_pat_pop(stack, base), _Result) or _jumps_back(walker, ins):
        raise _NotAPattern()
    fails.append((_real_target(ins), len(stack)))


def _p_POP_JUMP_IF_NOT_NONE(walker, ins, stack, base, fails):
    node = _pat_pop(stack, base)
    if not isinstance(node, PNode) or node.kind is not None or _jumps_back(walker, ins):
        raise _NotAPattern()
    node.kind = "singleton"
    node.value = None
    fails.append((_real_target(ins), len(stack)))


def _pat_children(walker, stack, count):
    kids = [PNode() for _ in range(count)]
    stack.extend(reversed(kids))
    return kids


def _p_UNPACK_SEQUENCE(walker, ins, stack, base, fails):
    item = _pat_pop(stack, base)
    count = ins.argval
    if isinstance(item, PNode) and item.kind == "seq" and item.children is None and \
            not item.front and not item.back:
        item.children = _pat_children(walker, stack, count)
    elif isinstance(item, _Result) and item.count == count and item.node.children is None:
        item.node.children = _pat_children(walker, stack, count)
    elif isinstance(item, _KeysTuple) and item.count == count:
        stack.extend(_KeyItem() for _ in range(count))
    else:
        raise _NotAPattern()


def _p_UNPACK_EX(walker, ins, stack, base, fails):
    item = _pat_pop(stack, base)
    if not (isinstance(item, PNode) and item.kind == "seq" and item.children is None and
            not item.front and not item.back):
        raise _NotAPattern()
    before, after = ins.arg & 0xFF, ins.arg >> 8
    item.star = before
    item.children = _pat_children(walker, stack, before + 1 + after)


def _p_BINARY_SUBSCR(walker, ins, stack, base, fails):
    index = _pat_pop(stack, base)
    node = _pat_pop(stack, base)
    if isinstance(node, _Result) and PROFILE.match_success_flag:
        # 3.10 takes the attributes / values out of MATCH_CLASS's / MATCH_KEYS's tuple
        kids = node.node.children
        if not (isinstance(index, _Val) and index.is_const and type(index.raw) is int and
                0 <= index.raw < len(kids) and kids[index.raw] is None):
            raise _NotAPattern()
        child = kids[index.raw] = PNode()
        stack.append(child)
        return
    if not isinstance(node, PNode) or node.kind != "seq" or node.children is not None:
        raise _NotAPattern()
    if isinstance(index, _Val) and index.is_const and type(index.raw) is int and \
            index.raw not in node.front:
        child = node.front[index.raw] = PNode()
    elif isinstance(index, _LenMinus) and index.node is node and index.k not in node.back:
        child = node.back[index.k] = PNode()
    else:
        raise _NotAPattern()
    stack.append(child)


def _p_BINARY_OP(walker, ins, stack, base, fails):
    right = _pat_pop(stack, base)
    left = _pat_pop(stack, base)
    if ins.argval != "-" or not isinstance(left, _Len) or not (
            isinstance(right, _Val) and right.is_const and type(right.raw) is int):
        raise _NotAPattern()
    stack.append(_LenMinus(left.node, right.raw))


def _p_MATCH_KEYS(walker, ins, stack, base, fails):
    if len(stack) - base < 2:
        raise _NotAPattern()
    keys, node = stack[-1], stack[-2]
    if not (isinstance(keys, _Val) and isinstance(node, PNode) and node.kind == "map") or \
            node.keys is not None:
        raise _NotAPattern()
    if keys.is_const and isinstance(keys.raw, tuple):
        exprs = [literal(v) for v in keys.raw]
    elif isinstance(keys.expr, ast.Tuple):
        exprs = list(keys.expr.elts)
    else:
        raise _NotAPattern()
    node.keys = exprs
    stack[-1] = _KeysTuple(node, len(exprs))
    stack.append(_Result(node, len(exprs)))
    if PROFILE.match_success_flag:  # 3.10: the values tuple and a success flag
        node.children = [None] * len(exprs)
        stack.append(_Check())


def _p_MATCH_CLASS(walker, ins, stack, base, fails):
    attrs = _pat_pop(stack, base)
    cls = _pat_pop(stack, base)
    node = _pat_pop(stack, base)
    if not (isinstance(attrs, _Val) and attrs.is_const and isinstance(attrs.raw, tuple) and
            all(isinstance(a, str) for a in attrs.raw)):
        raise _NotAPattern()
    if not isinstance(cls, _Val) or cls.is_const or not isinstance(node, PNode) or \
            node.kind is not None:
        raise _NotAPattern()
    node.kind = "class"
    node.cls = cls.expr
    node.nargs = ins.arg
    node.attrs = attrs.raw
    stack.append(_Result(node, ins.arg + len(attrs.raw)))
    if PROFILE.match_success_flag:  # 3.10: the attributes tuple and a success flag
        node.children = [None] * (ins.arg + len(attrs.raw))
        stack.append(_Check())


def _p_BUILD_MAP(walker, ins, stack, base, fails):
    if ins.argval != 0:
        raise _NotAPattern()
    stack.append(_EmptyDict())


def _p_DICT_UPDATE(walker, ins, stack, base, fails):
    node = _pat_pop(stack, base)
    n = ins.argval
    if not isinstance(node, PNode) or node.kind != "map" or n > len(stack) - base or \
            not isinstance(stack[-n], _EmptyDict):
        raise _NotAPattern()
    stack[-n] = _RestDict(node)


def _p_DELETE_SUBSCR(walker, ins, stack, base, fails):
    key = _pat_pop(stack, base)
    rest = _pat_pop(stack, base)
    if not isinstance(key, _KeyItem) or not isinstance(rest, _RestDict):
        raise _NotAPattern()


# -- or-patterns -----------------------------------------------------------------------
def _or_pattern(walker, k, stack, base, fails):
    """``p1 | p2 | ...`` at ``COPY 1`` (``k``) over the node on top of ``stack``: each
    alternative matches a copy and jumps to the shared end; the last failure pops the
    node and jumps to the enclosing failure.  None when the code is no or-pattern."""
    instrs = walker.instrs
    node = stack[-1]
    kept = list(stack)
    alts, captured, new_fails, tails = [], [], [], []
    end = None
    pos = k
    try:
        while True:
            if pos + 1 >= walker.n:
                return None
            ins = instrs[pos]
            if ins.op == "COPY" and ins.argval == 1:
                alt = PNode()
                sub = kept + [alt]
                alt_fails = []
                j = _pat_run(walker, pos + 1, sub, len(kept), alt_fails, True)
                if len(sub) < len(kept) or any(a is not b for a, b in zip(sub, kept)):
                    return None
                caps = sub[len(kept):]
                if not all(_unnamed_capture(c) for c in caps):
                    return None
                if instrs[j].op == "JUMP":
                    target = _real_target(instrs[j])
                    if target <= j or (end is not None and target != end):
                        return None
                    end = target
                    after = j + 1
                else:
                    # the code after the or-pattern, copied here: up to its exit
                    after = _tail_end(walker, j)
                    if after is None:
                        return None
                    tails.append(j)
                point, chain = _case_fail_point(walker, alt_fails, len(kept))
                if point is None:
                    return None
                if chain is not None and chain != after:
                    return None
                alts.append(alt)
                captured.append(caps)
                last_fails = alt_fails
                pos = point
                continue
            if ins.op == "POP_TOP" and len(alts) >= 2:
                after = instrs[pos + 1]
                if tails and (end is None or end == tails[-1]):
                    # the alternatives carry (or jump to the last one's) copy of what
                    # follows: the last failure pops the node and falls into the
                    # enclosing failure
                    end = tails[-1]
                    new_fails.append((pos, len(kept)))
                    # the last alternative's failures come after the case body now;
                    # through this pop they reach the enclosing failure too
                    new_fails.extend(last_fails)
                    break
                if after.op == "JUMP" and pos + 2 == end:
                    new_fails.append((_real_target(after), len(kept) - 1))
                    break
                if after.op == "LOAD_CONST" and pos + 3 == end and \
                        instrs[pos + 2].op == "RETURN_VALUE":
                    # the failure exit became a copy of the final `return None`
                    new_fails.append((None, len(kept) - 1))
                    break
            return None
    except _NotAPattern:
        return None
    width = len(captured[0])
    if any(len(c) != width for c in captured):
        return None
    fails.extend(new_fails)
    node.kind = "or"
    node.alts = alts
    stack[:] = kept + [_OrSlot([c[q] for c in captured]) for q in range(width)]
    return end

_EXITS = frozenset(["RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"])


def _tail_end(walker, k):
    """The index after the exit that ends straight-line code from ``k`` (None if a
    branch comes first)."""
    for q in range(k, min(k + 40, walker.n)):
        op = walker.instrs[q].op
        if op in _EXITS:
            return q + 1
        if walker.instrs[q].target is not None:
            return None
    return None


# -- building ast patterns -------------------------------------------------------------
def _pat_build(walker, node):
    kind = node.kind
    if kind is None:
        if node.name is None and not node.popped:
            raise _NotAPattern()
        pattern = None
    elif kind == "as":
        if node.name is None:
            raise _NotAPattern()
        pattern = _pat_build(walker, node.inner)
    elif kind == "value":
        pattern = _pat_value(node.value)
    elif kind == "singleton":
        pattern = ast.MatchSingleton(value=node.value)
    elif kind == "seq":
        pattern = _pat_sequence(walker, node)
    elif kind == "map":
        pattern = _pat_mapping(walker, node)
    elif kind == "class":
        kids = [_pat_kid(walker, c) for c in node.children or []]
        if len(kids) != node.nargs + len(node.attrs):
            raise _NotAPattern()
        pattern = ast.MatchClass(cls=node.cls, patterns=kids[:node.nargs],
                                 kwd_attrs=list(node.attrs), kwd_patterns=kids[node.nargs:])
    elif kind == "or":
        pattern = ast.MatchOr(patterns=[_pat_build(walker, a) for a in node.alts])
    else:
        raise _NotAPattern()
    if node.name is not None and kind != "as" and kind is not None:
        raise _NotAPattern()
    if node.name is not None or pattern is None:
        return ast.MatchAs(pattern=pattern, name=node.name)
    return pattern


def _pat_value(val):
    expr = val.expr
    if val.is_const:
        return ast.MatchValue(value=expr)
    probe = expr
    while isinstance(probe, ast.Attribute):
        probe = probe.value
    if not isinstance(probe, ast.Name) or probe is expr:
        raise _NotAPattern()
    return ast.MatchValue(value=expr)


def _pat_star(walker, child):
    if child.kind is not None:
        raise _NotAPattern()
    if child.name is None and not child.popped:
        raise _NotAPattern()
    return ast.MatchStar(name=child.name)


def _pat_sequence(walker, node):
    op, size = node.length if node.length is not None else (">=", 0)
    if node.children is not None:
        kids = node.children
        if node.star is None:
            if op != "==" or size != len(kids):
                raise _NotAPattern()
        elif len(kids) > 1 and (op != ">=" or size != len(kids) - 1) or \
                len(kids) == 1 and node.length is not None:
            raise _NotAPattern()
        return ast.MatchSequence(patterns=[
            _pat_star(walker, c) if q == node.star else _pat_build(walker, c) for q, c in enumerate(kids)])
    if op == "==":
        if node.back:
            raise _NotAPattern()
        if any(not 0 <= i < size for i in node.front):
            raise _NotAPattern()
        if node.front:
            # elements taken by index with no star: not what the compiler does
            raise _NotAPattern()
        return ast.MatchSequence(patterns=[ast.MatchAs(pattern=None, name=None)
                                           for _ in range(size)])
    total = size + 1
    if node.back:
        star = min(total - k for k in node.back) - 1
    else:
        star = max(node.front) + 1 if node.front else total - 1
    if node.front and star <= max(node.front):
        raise _NotAPattern()
    positions = {}
    for i, child in node.front.items():
        positions[i] = child
    for k, child in node.back.items():
        at = total - k
        if at <= star or at >= total or at in positions:
            raise _NotAPattern()
        positions[at] = child
    if star >= total:
        raise _NotAPattern()
    patterns = []
    for q in range(total):
        if q == star:
            patterns.append(ast.MatchStar(name=None))
        elif q in positions:
            patterns.append(_pat_build(walker, positions[q]))
        else:
            patterns.append(ast.MatchAs(pattern=None, name=None))
    return ast.MatchSequence(patterns=patterns)


def _pat_mapping(walker, node):
    keys = node.keys or []
    kids = node.children or []
    if len(kids) != len(keys):
        raise _NotAPattern()
    if keys and node.length != (">=", len(keys)):
        raise _NotAPattern()
    return ast.MatchMapping(keys=list(keys), patterns=[_pat_kid(walker, c) for c in kids],
                            rest=node.rest)


def _pat_kid(walker, child):
    """A sub-pattern; 3.10 takes no value out for a wildcard (None)."""
    if child is None:
        return ast.MatchAs(pattern=None, name=None)
    return _pat_build(walker, child)


# opname -> the step of _pat_run that executes it on the pattern stack: every ``_p_<OPNAME>``
# above (an opcode with none ends the pattern)
_PATTERN_STEPS = dict((name[len("_p_"):], step) for name, step in list(globals().items())
                      if name.startswith("_p_") and name[len("_p_"):].isupper())
