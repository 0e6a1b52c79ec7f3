"""Choice points: where the bytecode allows more than one reading, and verify picks.

Some bytecode shapes are read equally well in two ways: an ``if`` whose body cannot fall
through may or may not have an ``else`` holding the code after it, and which one compiles
back to the same bytecode depends on what the compiler did further on (a jump threaded, a
block copied, dead code left). The recognisers pick the likelier reading from what they
can see, and are sometimes wrong where the other reading would verify.

A recogniser that meets such a place asks ``choose(walker, kind, offset)``: ``kind`` names
the choice (one of ``KINDS``), ``offset`` the instruction it is about, so the key is stable
from one walk to the next. The answer is 0, today's reading, unless a retry asked for an
alternative. The answers and the record of what was asked live in a :class:`Decisions`
object, one per ``decompile()`` call, which the session hands to each walker (``walker.
decisions``): nothing is kept between calls.

``retry`` runs after verification, only when some code object did not come back exact: it
renders again with one more alternative answered at a time, at the points recorded for the
code objects that failed, and keeps an attempt when it leaves strictly fewer code objects
not exact (and none that was exact before); it stops when everything is exact or after
``BUDGET`` attempts per failing code object (``KIND_BUDGET`` at the points of one kind),
the likeliest flips first (``ORDER``, then nearest to the first difference). Exact code is
never re-rendered, so it costs nothing there, and output for it is unchanged.
"""

# an ``if`` whose body cannot fall through (return, raise, a loop jump, or branches that
# leave by exit copies): is the code after it, up to the end of the range being walked, its
# ``else``, or after it (branches.if_statement); answer 1 takes the reading not taken
ELSE_AFTER_EXIT = "else-after-exit"
# 3.8/3.9: the code after the last ``if`` (or ``try``) that cannot fall through, before the
# dead ``return None``, moved into its ``else`` (legacy_structure.else_for_dead_return)
ELSE_FOR_DEAD_RETURN = "else-for-dead-return"
# 3.12+: the block order the walker reads (render.CodeWalker), asked once per code object
# (offset 0) where a handler can be put back at the end of its statement (block_order.py):
# 0 is that order where every handler goes back, else the compiled layout; 1 the other one
# (the compiled layout, or the order with the handlers that go back)
SOURCE_BLOCK_ORDER = "source-block-order"
# 3.12+: a try/finally whose handler also protects cold code after the warm code (the
# cleanups of handlers of statements in its body, an await's throw path): does the try body
# end where the warm code it protects does (answer 1), or where the last protected range
# ends (handlers.do_try); asked where the try body is not itself a try statement
FINALLY_WARM_END = "finally-warm-end"
# kind -> how many readings it has (answer 0 is the default, today's)
KINDS = {ELSE_AFTER_EXIT: 2, ELSE_FOR_DEAD_RETURN: 2, SOURCE_BLOCK_ORDER: 2,
         FINALLY_WARM_END: 2}
# the kinds whose other reading changes only the code at and after their offset (the `if`'s
# test stays, its body's end and what follows change): a retry skips those past the first
# difference of their code object (verify.Difference.reach), which they cannot remove.
# ELSE_FOR_DEAD_RETURN's offset is the dead return's, after what it changes.
AFTER_OFFSET = frozenset([ELSE_AFTER_EXIT])

# the order a retry tries the kinds in, by the share of their flips that made a code object
# exact on the whole stdlib (functions alone, 3.8-3.13, every point flipped on its own): the
# block order about half, finally-warm-end 1 in 20, else-after-exit 3 to 10 in 230 per
# version, else-for-dead-return none (docs/decompiler.md, "Choice points")
ORDER = (SOURCE_BLOCK_ORDER, FINALLY_WARM_END, ELSE_AFTER_EXIT, ELSE_FOR_DEAD_RETURN)
# attempts per failing code object at the points of one kind, tried most promising first
# (_promise): every else-after-exit fix found on the stdlib was among the first 3
KIND_BUDGET = {ELSE_AFTER_EXIT: 3}

BUDGET = 8       # attempts per code object that did not come back exact
MOST = 16        # attempts per decompile() call, whatever the number of such code objects


class Decisions(object):
    """The answers for one ``decompile()`` call, and the choice points its walk met."""

    __slots__ = ("answers", "asked")

    def __init__(self, answers=None):
        self.answers = dict(answers or ())  # (id(code), kind, offset) -> answer
        self.asked = {}  # id(code) -> [(kind, offset), ...] in the order first met

    def choose(self, code, kind, offset):
        key = (id(code), kind, offset)
        points = self.asked.setdefault(id(code), [])
        if (kind, offset) not in points:
            points.append((kind, offset))
        return self.answers.get(key, 0)


def choose(walker, kind, offset):
    """The reading to take at ``offset`` (0: the default) for the choice ``kind``."""
    decisions = walker.decisions
    if decisions is None:  # a walker made outside decompile() (tests, helpers)
        return 0
    return decisions.choose(walker.code, kind, offset)


class Attempt(object):
    """One rendering and what verifying it found: ``failed`` the ids of the code objects
    not exact (None when the rendering raised ``error``), ``codes`` those code objects by id,
    ``result`` whatever the caller needs to finish from it."""

    __slots__ = ("decisions", "failed", "result", "error", "codes", "reach", "at")

    def __init__(self, decisions, failed, result=None, error=None, codes=None, reach=None,
                 at=None):
        self.decisions, self.failed, self.result, self.error = decisions, failed, result, error
        self.codes = codes or {}
        # id(code) -> the offset past which no change of reading removes its first difference
        # (verify.Difference.reach); a code object not in it has no such bound
        self.reach = reach or {}
        # id(code) -> the offset of its first differing instruction (verify.Difference.at):
        # the points nearest to it are flipped first
        self.at = at or {}

    def better_than(self, other):
        if self.failed is None:
            return False
        if other.failed is None:
            return True
        return self.failed < other.failed  # strictly fewer, and none new


def retry(attempt, first, alone=None, top=None):
    """The best of ``first`` and the attempts ``attempt(decisions)`` makes with alternatives
    at the choice points ``first`` met (see the module docstring).

    A nested code object that failed (``first.codes``, other than ``top``) is searched on its
    own, ``alone(code)`` (its rendering only, not the whole's), and the answers that make it
    exact are tried together in one more rendering of the whole; then only ``top``'s own
    points are flipped in renderings of the whole."""
    best = first
    only = None
    # (in program order; only those whose walk met a choice: nothing to flip in the others)
    nested = [code for key, code in first.codes.items()
              if key != top and key in first.decisions.asked][:MOST]
    if alone is not None and nested:
        answers = dict(best.decisions.answers)
        for code in nested:
            found = alone(code)
            if found.failed == frozenset():
                answers.update(found.decisions.answers)
        if answers != best.decisions.answers:
            made = attempt(Decisions(answers))
            if made.better_than(best):
                best = made
        only = top
    tried = set()
    spent = {}  # attempts so far: per code object (its id), and per (id, kind)
    total = 0
    while best.failed != frozenset() and total < MOST:
        candidate = _next_flip(best, tried, spent, only)
        if candidate is None:
            break
        code_id, key, answer = candidate
        tried.add((code_id,) + key + (answer,))
        spent[code_id] = spent.get(code_id, 0) + 1
        spent[(code_id, key[0])] = spent.get((code_id, key[0]), 0) + 1
        total += 1
        answers = dict(best.decisions.answers)
        answers[(code_id,) + key] = answer
        made = attempt(Decisions(answers))
        if made.better_than(best):
            best = made
    return best


def _next_flip(best, tried, spent, only=None):
    """The most promising untried alternative at a point of a failing code object with
    budget left (of ``only`` when given): the kinds in ``ORDER``, and an ``AFTER_OFFSET``
    kind's points nearest to the first difference first (``_promise``), within its
    ``KIND_BUDGET``; points that lie past what the first difference involves are skipped
    (``AFTER_OFFSET``)."""
    failing = best.failed
    for code_id, points in best.decisions.asked.items():
        if failing is not None and code_id not in failing or \
                only is not None and code_id != only:
            continue
        if spent.get(code_id, 0) >= BUDGET:
            continue
        reach = best.reach.get(code_id)
        at = best.at.get(code_id)
        candidates = []
        for position, (kind, offset) in enumerate(points):
            if reach is not None and offset > reach and kind in AFTER_OFFSET:
                continue
            if spent.get((code_id, kind), 0) >= KIND_BUDGET.get(kind, BUDGET):
                continue
            current = best.decisions.answers.get((code_id, kind, offset), 0)
            for answer in range(KINDS[kind]):
                if answer != current and (code_id, kind, offset, answer) not in tried:
                    candidates.append((_promise(kind, offset, position, at), kind, offset,
                                       answer))
        if candidates:
            _, kind, offset, answer = min(candidates)
            return code_id, (kind, offset), answer
    return None


def _promise(kind, offset, position, at):
    """The sort key of a point: its kind's rank in ``ORDER``, then for an ``AFTER_OFFSET``
    kind the points at or before the first difference (``at``) nearest first, then those
    after it from the furthest (the first difference's jump target) back; other kinds in the
    order the walk met them. On the whole stdlib an else-after-exit flip that made a code
    object exact was the nearest point before its first difference, or one just before the
    target of the differing jump."""
    rank = ORDER.index(kind) if kind in ORDER else len(ORDER)
    if kind not in AFTER_OFFSET:
        return (rank, 0, position)
    if at is not None and offset <= at:
        return (rank, 0, at - offset)
    return (rank, 1, -offset)
