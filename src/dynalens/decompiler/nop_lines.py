"""Lines that hold nothing but a line-number NOP: the ``if __debug__:`` they stand for, and
the ``try:`` lines that have none.

Why: a statement the compiler folds away entirely (``if __debug__:``, ``if 1:``, ``pass``, a
string on a line of its own) leaves only a NOP carrying its line (3.10+; the peephole pass of
3.8/3.9 drops them). ``verify()`` ignores NOPs, so an output without the statement is exact,
but only one with it is exact under ``verify(strict=True)`` (issue 12's strict figure). The
stdlib's case is ``if __debug__:`` around a logging block (imaplib, wsgiref): a NOP on the line
just before a statement, past everything before it.

How we know: :class:`NopLines` reads the lines on which the original has a NOP and no other
instruction; the walker stamps each value with the line of the instruction that made it
(``_line``; line_breaks.py). A statement whose first stamped line comes after such a line, that
itself comes after everything stamped before the statement (and after no statement that makes
NOPs of its own: ``pass``, ``break``, ``continue``, ``try``, ``while``), was inside the
folded-away ``if``: :func:`debug_blocks` writes ``if __debug__:`` around it, which compiles to
the statement alone and the NOP. Each such line is used once.

The other way round, ``try:`` makes a NOP on its line (3.8/3.9: a ``SETUP_FINALLY``) unless its
body starts on that very line (``try: return f(x)``): a ``try`` whose one-statement body
follows no instruction after the statement before it was written so, and is marked for the
unparser (``INLINE_BODY``, fast_unparse.py).
"""

import ast

from .emit import statement_blocks
from .line_breaks import INLINE_BODY
from .decode import NOP_LINES_READ, holds_nop, nop_lines, try_nops
from .instructions import raw_instructions, raw_lines

# statements that make NOPs of their own, or whose first stamped line is not their first line
_OWN_NOPS = (ast.Pass, ast.Break, ast.Continue, ast.While, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef) + tuple(
                 getattr(ast, name) for name in ("TryStar",) if hasattr(ast, name))


# statements that hold no block of statements (and are no try)
_BLOCKLESS = frozenset([ast.Expr, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign,
                        ast.Raise, ast.Delete, ast.Import, ast.ImportFrom, ast.Global,
                        ast.Nonlocal, ast.Assert, ast.Pass, ast.Break, ast.Continue])

# statements a `try:` line may hold as its whole body
_SIMPLE = (ast.Expr, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise,
           ast.Delete, ast.Import, ast.ImportFrom)


class NopLines(object):
    """The lines of ``code``'s line-number NOPs (``nop``) and those where a NOP is the only
    instruction (``alone``), read when first asked. ``known``: lines known to hold an
    instruction (the ``try:`` NOPs' lines), which answer :meth:`any_between` without a read
    when one lies between."""

    def __init__(self, code, known=()):
        self.code = code
        self.known = known
        self._nop = self._alone = self._all = None

    def _read(self):
        found = nop_lines(self.code)
        if found is not None:
            nop, other = found
        else:
            raws = raw_instructions(self.code)
            nop, other = [], set()
            for raw, line in zip(raws, raw_lines(raws)):
                if line is None:
                    continue
                if raw.opname == "NOP":
                    nop.append(line)
                else:
                    other.add(line)
        self._nop = nop
        self._alone = sorted(set(nop) - other)
        self._all = sorted(other.union(nop))

    def any_between(self, low, high):
        """Whether any instruction lies on a line strictly between ``low`` and ``high``."""
        if self._nop is None:
            for line in self.known:
                if low < line < high:
                    return True
            self._read()
        return any(low < line < high for line in self._all)

    def between(self, low, high):
        """Whether a NOP lies on a line strictly between ``low`` and ``high``."""
        if self._nop is None:
            self._read()
        return any(low < line < high for line in self._nop)

    def alone(self):
        if self._alone is None:
            if not holds_nop(self.code):
                return []  # (most code: no NOP, nothing to read)
            self._read()
        return self._alone


def debug_blocks(stmts, code):
    """Wrap, in place, each statement of function ``code``'s walked body ``stmts`` (nested
    blocks included) that followed a folded-away ``if __debug__:`` in one, and mark each
    ``try`` written with its body on its line (see the module docstring)."""
    nops = NopLines(code)
    free = ()
    if holds_nop(code):
        # most lines left free are ``try:`` lines: a try read back as written holds what
        # follows its line, and each of its blocks starts the walk afresh, so no statement
        # there is wrapped; one compiled more than once (in a finally body: one NOP per copy)
        # may be read elsewhere, after what came before it, and stays. Where every NOP is
        # such a try's, on a line of its own, none is left and no line need be read for them
        tries, every = try_nops(code)
        if NOP_LINES_READ:  # (a try's line holds its NOP: mostly what _mark_tries asks)
            nops.known = tries
        if not every:
            free = set(nops.alone())
            if free and tries:
                free.difference_update([line for line in tries
                                        if nops._nop.count(line) == 1])
    if not free:
        # nothing to wrap: most functions. Only a try may need its mark (3.11+ code without
        # an exception table holds none), and only the statements around one are read
        if getattr(code, "co_exceptiontable", True):
            _mark_tries(stmts, code.co_firstlineno, None, nops, _Lines())
        return
    _block(stmts, code.co_firstlineno, free, nops)


def _mark_tries(stmts, low, header_of, nops, lines):
    """What :func:`_block` does when no line is free, the ``try`` marks alone: the line
    before a ``try`` (``previous`` there) is read from the statements before it, nearest
    first, instead of from every statement in turn. ``low``, or the last line of the test
    of ``header_of`` (an ``if`` whose body ``stmts`` is), is the line before the first."""
    for k, stmt in enumerate(stmts):
        if stmt.__class__ in _BLOCKLESS:
            continue  # (most statements: no block, no try)
        for block in statement_blocks(stmt):
            if block is getattr(stmt, "body", None) and isinstance(stmt, ast.If):
                _mark_tries(block, None, stmt, nops, lines)
            else:
                _mark_tries(block, None, None, nops, lines)
        if isinstance(stmt, ast.Try) and len(stmt.body) == 1 and \
                isinstance(stmt.body[0], _SIMPLE):
            previous = _line_before(stmts, k, low, header_of, lines)
            if previous is None:
                continue
            start = lines.of(stmt.body[0])[0]
            if start is not None and start > previous and \
                    not nops.any_between(previous, start):
                setattr(stmt, INLINE_BODY, True)


def _line_before(stmts, k, low, header_of, lines):
    """``previous`` of :func:`_block` at ``stmts[k]``: the last line of the nearest statement
    before it that has one, None past a statement with NOPs of its own, else the block's
    header line."""
    for j in range(k - 1, -1, -1):
        _, last, own_nops = lines.of(stmts[j])
        if own_nops:
            return None
        if last is not None:
            return last
    if header_of is not None:
        return lines.of(header_of.test)[1]
    return low


def _block(stmts, low, free, nops, lines=None):
    lines = lines or _Lines()
    previous = low
    for k, stmt in enumerate(stmts):
        if stmt.__class__ not in _BLOCKLESS:  # (most statements: no block, not a try)
            for block, header in _inner(stmt, lines):
                _block(block, header, free, nops, lines)
            if isinstance(stmt, ast.Try) and len(stmt.body) == 1 and \
                    isinstance(stmt.body[0], _SIMPLE) and previous is not None:
                start = lines.of(stmt.body[0])[0]
                if start is not None and start > previous and \
                        not nops.any_between(previous, start):
                    setattr(stmt, INLINE_BODY, True)
        start, last, own_nops = lines.of(stmt)
        if own_nops:
            previous = None  # (its NOPs may lie anywhere after it)
            continue
        # (the last free line between the two is the one right before the statement)
        if start is not None and previous is not None and start - 1 in free and \
                previous < start - 1:
            free.discard(start - 1)
            stmts[k] = ast.If(test=ast.Name(id="__debug__", ctx=ast.Load()), body=[stmt],
                              orelse=[])
        previous = last if last is not None else previous


def _inner(stmt, lines):
    """The blocks of ``stmt`` whose first statement comes right after a stamped header (an
    ``if``'s test: its body), each with that header's last line; others get None."""
    blocks = statement_blocks(stmt)
    header = lines.of(stmt.test)[1] if isinstance(stmt, ast.If) else None
    return [(block, header if block is getattr(stmt, "body", None) else None)
            for block in blocks]


# the commonest nodes that hold no node (a Name's ctx is not read here): names, constants,
# operators
_LEAVES = frozenset([ast.Name, ast.Constant] + [
    cls for base in (ast.operator, ast.cmpop, ast.unaryop, ast.boolop)
    for cls in base.__subclasses__()])
_FIELDS = {}  # node class -> the fields that may hold nodes, as emit.child_nodes, less _NO_LINES
# fields that never hold an expression (nor anything holding one): the context, operators
_NO_LINES = frozenset(["ctx", "op", "ops"])


class _Lines(object):
    """(first line, last line, holds a statement with NOPs of its own) of a node and all
    inside it, worked out once per node for the whole body: asking each statement at each
    nesting level with a walk of its own was quadratic in the nesting.

    The lines of a statement that makes NOPs of its own, or holds one, are never read
    (:func:`_block` and :func:`_line_before` stop at it, and every statement around it holds
    it too): it is (None, None, True), found without reading the rest of it. That spares
    the walk over nested function bodies, ``try`` and ``while`` statements, at every level
    of the nesting."""

    def __init__(self):
        self._memo = {}

    def of(self, node):
        memo = self._memo
        found = memo.get(id(node))
        if found is not None:
            return found
        if isinstance(node, _OWN_NOPS):
            found = memo[id(node)] = _OWN
            return found
        # min and max of ``_line`` over the subtree: statements inside are asked (and kept)
        # one by one, what else is inside is read in one loop (deep expressions need no
        # recursion); only statements make NOPs of their own. Only expressions carry a
        # ``_line`` (the walk stamps them): operator fields are not read (_FIELDS)
        low = high = None
        todo = [node]
        stmt, node_type, leaves, fields_of = ast.stmt, ast.AST, _LEAVES, _FIELDS
        while todo:
            current = todo.pop()
            cls = current.__class__
            leaf = cls in leaves
            if not leaf and current is not node and isinstance(current, stmt):
                child_low, child_high, child_own = self.of(current)
                if child_own:
                    found = memo[id(node)] = _OWN
                    return found
                if child_low is not None and (low is None or child_low < low):
                    low = child_low
                if child_high is not None and (high is None or child_high > high):
                    high = child_high
                continue
            # (an expression asked before, an if's test, is read again: the same lines)
            line = getattr(current, "_line", None)
            if line is not None:
                if low is None or line < low:
                    low = line
                if high is None or line > high:
                    high = line
            if leaf:
                continue
            # (emit.child_nodes, written out: this loop meets every node of the body)
            fields = fields_of.get(cls)
            if fields is None:
                fields = fields_of[cls] = tuple(f for f in cls._fields if f not in _NO_LINES)
            for field in fields:
                value = getattr(current, field, None)
                if value.__class__ is list:
                    for item in value:
                        if isinstance(item, node_type):
                            todo.append(item)
                elif isinstance(value, node_type):
                    todo.append(value)
        found = memo[id(node)] = (low, high, False)
        return found


_OWN = (None, None, True)  # (_Lines.of: a statement with NOPs of its own, or holding one)


def break_line_at(walker, k):
    """Whether a ``break`` that falls into the code after its loop comes right before
    instruction ``k``: a line-number NOP alone on its line (normalization drops it;
    3.14 lays an `else: break` out that way, branches.if_statement, cold_blocks.cold_try_exit)."""
    if k >= walker.n:
        return False
    found = walker._lone_nops
    if found is None:
        found = walker._lone_nops = set()
        raws = raw_instructions(walker.code)
        lines = raw_lines(raws)
        for j in range(1, len(raws) - 1):
            if raws[j].opname == "NOP" and lines[j] is not None and \
                    lines[j - 1] != lines[j] != lines[j + 1]:
                found.add(raws[j + 1].offset)
    return walker.instrs[k].offset in found
