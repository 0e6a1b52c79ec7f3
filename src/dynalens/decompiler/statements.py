"""Structuring: normalized instructions -> ``ast.stmt`` lists.

The structurer walks a range of instruction indexes with a symbolic stack (the handlers of
:class:`~.expressions.StackMachine`) and, where an instruction starts a construct, recognises the
template CPython's compiler emits for it:

* ``if``/``elif``/``else``, conditional expressions and ``and``/``or`` chains from runs of
  conditional jumps (*chunks*: an expression followed by a conditional jump), parsed into a
  boolean tree by the targets the jumps share;
* ``for`` from ``FOR_ITER``; ``while`` from its back edge (3.11+ repeats the test at the bottom);
* ``try``/``except``/``else``/``finally`` and ``with`` from the exception table: the outermost
  handler not yet open at an instruction starts a ``try``; ``finally`` bodies that the compiler
  copies onto every exit are matched against the handler's copy and skipped;
* ``break``/``continue`` from jumps to the enclosing loop's exit and head.

Everything the compiler pushes for itself (iterators, ``__exit__``, the previous exception) is a
marker on the stack, so its unwinding before ``return``/``break`` needs no template.
"""

import ast
import copy
import dis

from .annotate import CO_FUTURE_ANNOTATIONS, unstringify
from .comparison_keys import same_argument
from .cold_blocks import exception_only_code
from .evaluation_order import first_out_of_order, made
from .errors import DecompilationError
from .expressions import (
    STORE, AugValue, ClassValue, CurrentExc, FunctionValue, ImportFromValue, ImportValue,
    IterMarker, LoopItem, Marker, Null, PrevExc, StackMachine, TypeAliasValue, UnpackBuilder,
    UnpackSlot, WithEnter, name)
from .instructions import (IMPORT_FLAGS, POP_JUMPS, instruction_lines, legacy_layout,
                           raw_instructions)
from .line_breaks import STORE_LINE
from .profile import PROFILE
from . import empty_tries
from .registry import DECLINE, ENTRY, OPCODES, STRUCTURE_POINTS

# the last instruction of a block that does not fall through (a chain's cleanup block ends
# with one of these: the way out of the loop)
_LEAVES = frozenset(["JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"])


def _defines(function_name, stored_name):
    """Whether storing a function (or class) under ``stored_name`` is what ``def
    function_name`` does: the same name, or its private-name mangled form inside a class
    (``_C__name``)."""
    if function_name == stored_name:
        return function_name != "<lambda>"
    return (function_name.startswith("__") and not function_name.endswith("__") and
            stored_name.startswith("_") and stored_name.endswith(function_name) and
            not stored_name.startswith("__"))


_SIDE_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.BinOp,
                 ast.Subscript, ast.Attribute)


def _substitute(node, names):
    """``node`` with the nodes whose ids ``names`` maps replaced by those temporaries' names.
    Nodes on the way are copied, never changed: stacks of other branches may share them."""
    temp = names.get(id(node))
    if temp is not None:
        ref = name(temp)
        ref._temp = True
        return ref
    changed = {}
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            new = _substitute(value, names)
            if new is not value:
                changed[field] = new
        elif isinstance(value, list):
            new = [_substitute(v, names) if isinstance(v, ast.AST) else v for v in value]
            if any(a is not b for a, b in zip(new, value)):
                changed[field] = new
    if not changed:
        return node
    node = copy.copy(node)
    for field, value in changed.items():
        setattr(node, field, value)
    return node


# what spill() may hold in a temporary, or whose parts (a slice: not an expression before 3.9)
_VALUES = (ast.expr, ast.Slice)


def _spillable(value, emitted):
    """Can this value on the stack be held in a temporary (and does it need to be)?"""
    return isinstance(value, ast.expr) and not isinstance(value, ast.Constant) and \
        id(value) not in emitted and getattr(value, "_const", None) is None and \
        not getattr(value, "_temp", False)


def _bare_temp(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name) and \
        getattr(stmt.value, "_temp", False)


def _made_or(node, default):
    stamp = made(node)
    return default if stamp is None else stamp


# the last instruction of an exit block that flowgraph.c copies into the jumps to it
_COPIED_EXITS = frozenset(["RETURN_VALUE", "RAISE_VARARGS"])
_SAME_AS_REPR = frozenset([str, int, bool, bytes, type(None)])
_CODE_TYPE = type((lambda: None).__code__)  # (types.CodeType; final: no subclass)


class ExitBlocks(object):
    """Copies of one small exit block (straight code ending in ``RETURN_VALUE``).

    CPython copies an exit block without a line number into every predecessor, so one
    ``return None`` (or the end of an ``except`` body plus that return) appears several times,
    each copy reached by jumps from a different branch.  Copies that can only be reached by a
    jump are *detached*: the walk skips them and treats a jump to one as a jump to the end of
    the construct it is in (which leads to the same exit).  The copy that code falls into
    stays where it is.
    """

    MAX_LENGTH = 10
    _KEY_OPS = frozenset(["LOAD_CONST", "RETURN_VALUE", "POP_EXCEPT", "STORE_FAST", "STORE_NAME",
                          "DELETE_FAST", "DELETE_NAME", "POP_TOP", "SWAP", "LOAD_FAST",
                          "LOAD_GLOBAL", "LOAD_NAME"])
    _TERMINAL = frozenset(["RETURN_VALUE", "RERAISE", "RAISE_VARARGS", "JUMP"])
    _REDIRECTED = frozenset(["JUMP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
                             "POP_JUMP_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"])

    def __init__(self, instrs):
        self.instrs = instrs
        self.virtual = {}   # detached copy start -> virtual label beyond the code
        self.ends = {}      # detached copy start -> index after it
        blocks = {}
        blocks_at = set()
        n = len(instrs)
        self.canon = {}
        # (an instruction's index is its place in the list: read for the returns alone, a
        # third cheaper than enumerate()'s pair for every instruction)
        returns = [ins.index for ins in instrs if ins.op == "RETURN_VALUE"]
        if len(returns) < 2:
            # one return (the usual case): no block can be a copy of another, and no lone
            # copy follows a return (the keys are worked out if someone asks)
            return
        # (only the blocks ending at returns that may share one are keyed: another block
        # starts once whatever its key; the keys of all are worked out if someone asks)
        keys = self._keys(self._sharing_returns(returns))
        for k in sorted(keys):
            blocks.setdefault(keys[k], []).append(k)
            blocks_at.add(k)
        if PROFILE.setup_blocks:
            # (3.11+ match the copy's jumps against the finally handler's: handlers.py)
            self._lone_returns()
        if all(len(starts) < 2 for starts in blocks.values()):
            return  # no block is copied (the usual case): nothing below would find one
        # only copies of line-less blocks are the compiler's: a written statement starts a
        # line after everything before it
        written = set()
        # jump targets that are not copies: of a jump that is not redirected to a copy's
        # label, and where 3.8-3.11 copy no exit block with a line, of a jump over a chained
        # comparison's cleanup (3.8/3.9 copy a lone RETURN_VALUE only, 3.10's copies are
        # folded back, 3.11 copies line-less blocks): what it goes to is the body of
        # `if a < b < c: return x`, also when the same `return x` came before on the same
        # line as its own if (stringprep.in_table_a1)
        pinned = set()
        redirected = self._REDIRECTED
        chains = not PROFILE.lined_exit_copies
        best = -1
        for k, ins in enumerate(instrs):  # (one pass for both)
            line = ins.line
            if line is not None and line > best:
                if ins.index in blocks_at:
                    written.add(ins.index)
                best = line
            target = ins.target
            if target is not None:
                op = ins.op
                if op not in redirected:
                    pinned.add(target)
                elif chains and op == "JUMP" and 0 < k < n - 1 and \
                        instrs[k + 1].op == "POP_TOP" and instrs[k - 1].op in POP_JUMPS:
                    pinned.add(target)
        pinned |= written
        labels = {}
        for key, starts in list(blocks.items()):
            starts = blocks[key] = [k for k in starts if k not in written]
            if len(starts) < 2:
                continue
            label = n + 1 + len(labels)
            labels[key] = label
            for k in starts:
                if k > 0 and instrs[k - 1].op in self._TERMINAL and instrs[k].is_target and \
                        k not in pinned:
                    self.virtual[k] = label
                    self.ends[k] = k + len(key)
        for key, starts in blocks.items():
            if key in labels:
                for k in starts:
                    self.canon[k] = labels[key]

    def _lone_returns(self):
        """A ``RETURN_VALUE`` alone, jumped to, right after a ``RETURN_VALUE`` that code falls
        into: the compiler's copy of a line-less exit, the return of a value computed before
        a branch (``return x`` in a ``try`` whose ``finally`` body is an ``if``: the value
        waits on the stack through the finally copy). A jump to it is a jump to the copy
        before, the end of the branch; the copy itself is skipped."""
        instrs = self.instrs
        first = {}  # lone copy -> the return code falls into, first of the run
        for k in range(1, len(instrs)):
            if instrs[k].op == "RETURN_VALUE" and instrs[k].is_target and \
                    instrs[k - 1].op == "RETURN_VALUE":
                j = first.get(k - 1, k - 1)
                if not instrs[j].is_target:
                    first[k] = j
        if not first:
            return
        for ins in instrs:
            if ins.target in first and ins.op in self._REDIRECTED:
                if ins.original_target is None:
                    ins.original_target = ins.target
                ins.target = first[ins.target]
        for k, j in first.items():
            if not any(ins.target == k for ins in instrs):
                instrs[k].is_target = False
                self.ends[k] = k + 1
        for j in set(first.values()):
            instrs[j].is_target = True

    def _sharing_returns(self, returns):
        """Those of ``returns`` whose exit blocks may have the key of another return's: a key
        (:meth:`_keys`) ends with the item of the instruction right before its return, so two
        equal keys end at returns with equal items there (one return's blocks all differ in
        length). One item per return: most returns share none, and their runs go unread."""
        instrs = self.instrs
        key_ops = self._KEY_OPS
        first = {}  # item -> the first return ending on it
        sharing = []
        for q in returns:
            if not q or instrs[q].is_target:
                continue  # (no block ends here)
            before = instrs[q - 1]
            op = before.op
            value = before.argval
            kind = type(value)
            if op not in key_ops or op == "RETURN_VALUE" or kind is _CODE_TYPE:
                continue
            item = (op, kind, value if kind in _SAME_AS_REPR else repr(value))
            other = first.setdefault(item, q)
            if other != q:
                if other >= 0:
                    sharing.append(other)
                    first[item] = -1  # (listed)
                sharing.append(q)
        return sorted(sharing)

    def _keys(self, returns=None):
        """{start: key} for every exit block: a run of at most MAX_LENGTH key operations
        ending at the first RETURN_VALUE after its start, no instruction inside it jumped to,
        no code object loaded. The key is the run's (op, type, value) items, keyed by repr
        where equal values can have different reprs; 3.12+ adds the line of a written
        ``return value`` (see below). Read backwards from each return (``returns``: their
        indexes, when known), each item made once."""
        instrs = self.instrs
        key_ops = self._KEY_OPS
        keys = {}
        if returns is None:
            returns = [k for k, ins in enumerate(instrs) if ins.op == "RETURN_VALUE"]
        for q in returns:
            ret = instrs[q]
            if ret.is_target:
                continue
            last = (ret.op, type(ret.argval), repr(ret.argval))
            run = ()  # the items of the run before the return, first first
            line = ret.line
            # 3.12+ copies a written `return value` with its line: the same code on another
            # line is another statement (`return fallback` in two handlers; only a line-less
            # exit, the implicit `return None`, takes its lines from where it was copied)
            before = instrs[q - 1] if q else None
            lined = PROFILE.lined_exit_copies and not (
                before is not None and before.op == "LOAD_CONST" and before.argval is None)
            for k in range(q - 1, max(-1, q - self.MAX_LENGTH), -1):
                ins = instrs[k]
                op = ins.op
                if op not in key_ops or op == "RETURN_VALUE":
                    break
                value = ins.argval
                kind = type(value)
                if kind is _CODE_TYPE:  # (a code object loaded; the type, not a failed hasattr)
                    break
                # equal values of these types are equal reprs (not floats: 0.0 == -0.0)
                run = ((op, kind, value if kind in _SAME_AS_REPR else repr(value)),) + run
                if ins.line is not None:
                    line = ins.line  # the first line of the run [k, q]
                keys[k] = run + ((last + (line,) if lined and line is not None else last),)
                if ins.is_target:
                    break  # (only as the run's first instruction)
        return keys

    _found_keys = None

    @property
    def keys(self):
        """{start: key} of the exit blocks (:meth:`_keys`), worked out once."""
        if self._found_keys is None:
            self._found_keys = self._keys()
        return self._found_keys

    def _key(self, k):
        """The key of the exit block starting at ``k``, or None where none starts."""
        return self.keys.get(k)

    def label(self, index):
        return self.canon.get(index, index)

    def target(self, index):
        """Where a jump to ``index`` goes, detached copies replaced by their virtual label."""
        return self.virtual.get(index, index)



def _falls_through(stmt):
    """Whether control can go on after ``stmt`` (conservatively: yes unless it plainly ends
    every way out)."""
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return False
    if isinstance(stmt, ast.If):
        return not stmt.orelse or not stmt.body or _falls_through(stmt.body[-1]) or \
            _falls_through(stmt.orelse[-1])
    return True


class NotAChunk(Exception):
    """Raised while reading a condition chunk when the code is not a pure expression."""


class ChunkEnd(Exception):
    """Raised in chunk mode at the conditional jump that ends the chunk."""

    def __init__(self, ins):
        self.ins = ins


class _NoStatements(list):
    def append(self, item):
        raise NotAChunk()

    def extend(self, items):
        raise NotAChunk()


class Chunk(object):
    __slots__ = ("start", "expr", "jump")

    def __init__(self, start, expr, jump):
        self.start, self.expr, self.jump = start, expr, jump

    def __repr__(self):
        return "<chunk %s %s %s>" % (self.start, ast.dump(self.expr)[:40], self.jump)


class Loop(object):
    __slots__ = ("head", "continue_targets", "break_target", "last", "kind", "iterator", "exit",
                 "body_start", "body_end", "inlined_after", "threaded_breaks")

    def __init__(self, head, continue_targets, break_target, last, kind, iterator=None, exit=None,
                 body_start=None):
        self.body_start = body_start
        self.body_end = None  # (set where known: falling off there goes back to the head)
        self.head = head
        self.continue_targets = continue_targets
        self.break_target = break_target
        self.last = last
        self.kind = kind
        self.iterator = iterator
        self.exit = exit
        # (start, length) of the code after the loop that a `break` was replaced by (the
        # compiler inlines a short returning block into the jumps to it): see op_POP_TOP
        self.inlined_after = None
        # the enclosing loop's head, where a `break` goes when the loop (and its else) ends
        # the enclosing loop's body: the compiler threads the jump there (op_POP_TOP)
        self.threaded_breaks = ()


class Context(object):
    """What the walk of a range knows about its surroundings."""

    __slots__ = ("loop", "open", "finally_copies", "handler_name")

    def __init__(self, loop=None, open=frozenset(), finally_copies=(), handler_name=None):
        self.loop = loop
        self.open = open
        self.finally_copies = finally_copies
        self.handler_name = handler_name

    def but(self, **kw):
        new = Context(self.loop, self.open, self.finally_copies, self.handler_name)
        for k, v in kw.items():
            setattr(new, k, v)
        return new


# The context of a walk with no surroundings: shared, as no context is changed in place (a
# walk that knows more makes a new one, Context.but)
NO_CONTEXT = Context()


class AppendStmt(ast.stmt):
    """LIST_APPEND/SET_ADD/MAP_ADD/YIELD inside a comprehension body (never rendered)."""
    _fields = ("value", "key")


KEEPS_DEAD_CODE = PROFILE.keeps_dead_code


class WalkState(object):
    """What a parse changes on a walker (and its session) as it goes, copied at a fork.

    Restored after a rejected trial: the counters that number values and temporaries, the
    blocks a recogniser consumed (cleanups, cold joins, fall-through targets, returning
    copies), annotations found, and the stubs recorded for nested code that failed (a stale
    stub would hide a difference from marking). Not restored: what the bytecode itself says
    whatever the parse (a STORE_GLOBAL means ``global x``; ``mod.f()`` compiled without the
    method form means a module-level ``import mod``), so a trial that read it found a fact.
    Containers are restored in place: an enclosing walk holds some in locals (``walk`` reads
    ``cleanup_starts`` once) and a session's are shared with the walkers of nested code. The
    state a recogniser saves and restores around itself (``ctx``, the range,
    ``finally_reraise_ends``, ``range_joins``, ``comprehension_result``) is back in place by
    the time a trial returns; what a walk never changes (instructions, handlers, the loops
    found before walking) is not copied."""

    __slots__ = ("made", "copied", "disordered", "annotations_found", "returning_copies",
                 "cold_joins", "temp_count", "dicts")

    def __init__(self, walker):
        self.made, self.copied, self.disordered = walker.made, walker.copied, walker.disordered
        self.annotations_found = getattr(walker, "annotations_found", None)
        self.returning_copies = getattr(walker, "returning_copies", None)
        cold_joins = walker.cold_joins
        self.cold_joins = set(cold_joins) if isinstance(cold_joins, set) else cold_joins
        session = getattr(walker, "session", None)
        self.temp_count = getattr(session, "temp_count", None)
        # the dicts changed in place during a walk (a trial is taken every few instructions:
        # written out, not looped over)
        cleanups, fallthrough = walker.cleanup_starts, walker.fallthrough
        fallbacks = getattr(session, "fallbacks", None)
        if fallbacks is None:
            self.dicts = ((cleanups, dict(cleanups)), (fallthrough, dict(fallthrough)))
        else:
            self.dicts = ((cleanups, dict(cleanups)), (fallthrough, dict(fallthrough)),
                          (fallbacks, dict(fallbacks)))

    def restore(self, walker):
        walker.made, walker.copied, walker.disordered = self.made, self.copied, self.disordered
        if self.annotations_found is not None:
            walker.annotations_found = self.annotations_found
        if self.returning_copies is not None:
            walker.returning_copies = self.returning_copies
        if isinstance(self.cold_joins, set):
            walker.cold_joins.clear()
            walker.cold_joins.update(self.cold_joins)
        else:
            walker.cold_joins = self.cold_joins
        if self.temp_count is not None:
            walker.session.temp_count = self.temp_count
        for target, saved in self.dicts:
            if target != saved:
                target.clear()
                target.update(saved)


# A bound on the work of one code object's walks, so that no input makes decompile() hang.
# Every walk() call adds the length of its range; trial parses re-walk ranges, and a construct
# whose trials nest (try/finally bodies copied per exit inside one another) could re-walk them
# without end. Past the bound the walk fails like any other (a DecompilationError): a trial
# that catches it fails again at its next walk, so the whole walk unwinds to the fallback,
# which marks or stubs the code object. On the whole stdlib the largest ratio of work to
# instructions is far below this: 24-27 on 3.8, 3.11 and 3.12 when it was set (the regular
# expression parsers' _parse functions), so the bound leaves about 7x headroom.
WORK_PER_INSTRUCTION = 200
WORK_FLOOR = 20000


def _entry_length(entry):
    return entry.end - entry.start


# 3.11+: a handler's first instruction, at an even offset of co_code (an opcode's byte; an
# argument's is at an odd one, a cache unit's is 0)
_PUSH_EXC_INFO = bytes([dis.opmap["PUSH_EXC_INFO"]]) if "PUSH_EXC_INFO" in dis.opmap else None


def _handler_left_untargeted(code, instrs, entries):
    """Whether a ``PUSH_EXC_INFO`` of ``instrs`` (``code``'s instructions, in any layout) may
    be one no entry of ``entries`` targets: where an empty try's dead handler may be
    (empty_tries.find, which reads every instruction to find one). Not where as many of them
    as ``code`` holds are targets, as in nearly all code with handlers."""
    n = len(instrs)
    targeted = set(e.target for e in entries
                   if e.target < n and instrs[e.target].op == "PUSH_EXC_INFO")
    return len(targeted) < code.co_code[::2].count(_PUSH_EXC_INFO)


class StatementWalker(StackMachine):
    """Walks instruction ranges into statements; one instance per code object."""

    def __init__(self, code, instrs, entries, decompile_nested):
        self.code = code
        self.instrs = instrs
        self.entries = entries
        self.n = len(instrs)
        # the walks' work so far: never restored by a rejected trial (see WORK_PER_INSTRUCTION)
        self.work = 0
        self.walks = 0  # walks begun, numbering them (walk_serial)
        self.work_limit = WORK_FLOOR + WORK_PER_INSTRUCTION * self.n
        self.decompile_nested = decompile_nested
        handler_at = self.handler_at = [None] * self.n
        # (innermost last: the longest ranges first, each written over by those inside it; one
        # slice per entry rather than an item per instruction)
        for e in sorted(entries, key=_entry_length, reverse=True) if entries else ():
            start, end = e.start, min(e.end, self.n)
            if start < end:
                handler_at[start:end] = [e] * (end - start)
        self.lines = instruction_lines(code, instrs)  # (line_breaks.py, loop_exits.py)
        # try statements with an empty body: their handlers have no entry (empty_tries.py)
        self.empty_tries = empty_tries.find(code, instrs, entries, self.lines) \
            if not PROFILE.setup_blocks and entries and \
            _handler_left_untargeted(code, instrs, entries) else {}
        self.empty_tries_read = set()  # handlers of the empty tries being read now
        self.empty_try_read_at = None  # an empty try read here took no instruction
        if self.empty_tries:
            self.entries = entries = list(entries) + [
                e for found in self.empty_tries.values() for e in found]
        self.exits = ExitBlocks(instrs)
        virtual = self.exits.virtual
        for ins in instrs if virtual else ():  # (no detached copy: nothing to redirect)
            if ins.target is not None and ins.target in virtual:
                ins.original_target = ins.target
                ins.target = self.exits.virtual[ins.target]
        self.cleanup_starts = self._find_cleanups()
        self.while_loops = {}
        self.back_jumps = {}
        self._find_loops()
        self.chunk_mode = False
        self.fallthrough = {}
        self.ctx = NO_CONTEXT
        self.range_start = 0
        self.range_end = self.n
        self.globals_declared = set()
        self.nonlocals_declared = set()

    # -- analysis --------------------------------------------------------------------------
    def _find_cleanups(self):
        """Targets of ``lasti`` handlers that only re-raise: the exits of ``except`` bodies."""
        starts = {}
        for e in self.entries:
            if not e.lasti or e.target in starts:
                continue
            k = e.target
            while k < self.n and self.instrs[k].op not in ("RERAISE",) and k - e.target < 6:
                if self.instrs[k].op in ("PUSH_EXC_INFO", "WITH_EXCEPT_START"):
                    break
                k += 1
            if k < self.n and self.instrs[k].op == "RERAISE":
                starts[e.target] = k + 1
        return starts

    def _find_loops(self):
        instrs = self.instrs
        # 3.12+: a handler laid out after the code jumps back to its join: not a loop
        cold = ()
        if PROFILE.cold_handlers:
            # (kept for cold_blocks.cold_code: the jumps are fixed by now)
            cold = self._cold_code = exception_only_code(instrs)
        cold_backs = []
        for ins in instrs:
            t = ins.target
            if t is None or t > ins.index:
                continue
            if ins.index in cold and t not in cold:
                # (a loop inside a handler jumps back inside it: that one counts)
                if ins.op == "JUMP":
                    cold_backs.append(ins)
                elif ins.op in POP_JUMPS:
                    # the bottom test of a while whose body ends with a try that only its
                    # except clauses leave: only the handler reaches it (`while n: try:
                    # return f() / except E: n -= 1`)
                    self._find_while(ins)
                continue
            if ins.op == "JUMP":
                self.back_jumps.setdefault(t, []).append(ins.index)
            elif ins.op in POP_JUMPS:
                self._find_while(ins)
                if PROFILE.while_tested_at_top_only_again and \
                        self.while_loops.get(t, (None, None))[1] != ins.index:
                    # 3.14 tests a while at the top only: a backward conditional jump is
                    # the back edge of a body that ends with `if c: break`
                    self.back_jumps.setdefault(t, []).append(ins.index)
        for ins in cold_backs:
            if ins.target not in self.back_jumps and ins.target not in self.while_loops and \
                    instrs[ins.target].op != "FOR_ITER" and self._handler_loops_back(ins, cold):
                # the only way back to the head of a loop whose body ends with a try: from
                # an except clause, laid out after everything (`while True: try: ...
                # except E: ... else: break`)
                self.back_jumps[ins.target] = [ins.index]

    def _handler_loops_back(self, ins, cold):
        """Whether the cold jump ``ins`` goes back to (or before) the start of the try body
        whose handler it follows: a loop's back edge, not a clause's way to its join."""
        k = ins.index
        while k > 0 and k in cold and self.instrs[k].op != "PUSH_EXC_INFO":
            k -= 1
        # (an empty try's entry, empty_tries.py, starts at the code its clauses jump back
        # to: the code after the statement, not a loop's head)
        starts = [e.start for e in self.entries if e.target == k and e.end > e.start]
        return bool(starts) and self.instrs[k].op == "PUSH_EXC_INFO" and \
            min(starts) not in cold and ins.target <= min(starts)

    def _find_while(self, ins):
        """A 3.11+ ``while cond:``: bottom test [bs, j] jumps back to the body start b."""
        instrs = self.instrs
        b, j = ins.target, ins.index
        exit_ = j + 1
        length = 0
        relaxed = False
        # the top copy ends right before the body, or (a chained comparison last in the test)
        # with a jump over the chain's cleanup (POP_TOP, then the way out) into the body
        top_end = self._chain_cleanup_before(b)
        while True:
            top, bottom = top_end - 1 - length, j - length
            if top < 0 or bottom < b:  # (== b: the body is empty, `while c: pass`)
                break
            x, y = instrs[top], instrs[bottom]
            if length == 0:
                if x.op not in POP_JUMPS or not self._same_exit(x.target, exit_):
                    break
            elif not (x.op == y.op and self._same_line(top, bottom) and (
                    same_argument(x, y) if x.target is None else
                    y.target is not None and self.exits.label(x.target) == self.exits.label(y.target))):
                if top_end < b and x.op == y.op and x.target == top_end + 1 and \
                        y.target is not None and y.target > j and \
                        instrs[y.target].op == "POP_TOP":
                    length += 1  # the chain's test jumping to its cleanup (each copy its own)
                    continue
                if not (x.op == y.op and self._same_line(top, bottom) and
                        x.target is not None and y.target is not None and
                        top < x.target < b and bottom < y.target <= j and
                        x.target - top == y.target - bottom):
                    break
                relaxed = True  # inside each copy, the same way on (`while (a if b else c)
                # and d:`); no test runs through handler code (a with's exit, matched
                # by chance), which such jumps would let the match run into
            length += 1
        if relaxed:
            handlers = self._cold_code  # (3.12+: _find_loops worked it out, as it asks this)
            if handlers is None:
                handlers = exception_only_code(instrs)
            for q in range(top_end - 1, top_end - 1 - length, -1):
                if q in handlers:
                    length = top_end - 1 - q
                    break
        # both copies of the test start the `while` line: trim a statement that matched by chance
        best = length
        while best > 0 and not (instrs[top_end - best].line is not None and
                                instrs[top_end - best].line == self._line_in_effect(j + 1 - best)
                                or self._handler_entry(top_end - best)):
            best -= 1
        if best:
            length = best
        if length == 0:
            return
        head = top_end - length
        prev = self.while_loops.get(head)
        if prev is None or prev[1] < j:
            self.while_loops[head] = (b, j, exit_, length)

    def _chain_cleanup_before(self, b):
        """Where the top copy of a while test ends when the loop body starts at ``b``: ``b``
        itself, or the jump into the body over a chained comparison's cleanup (``POP_TOP``
        and the way out of the loop, a few instructions) when the test ends with a chain
        (`while a == b == c:`)."""
        instrs = self.instrs
        if b < 3 or instrs[b - 1].op not in _LEAVES:
            return b
        for k in range(b - 3, max(b - 12, 0), -1):
            if instrs[k].op == "JUMP" and instrs[k].target == b and \
                    instrs[k + 1].op == "POP_TOP":
                return k
            if instrs[k].target is not None:
                break  # (the way out is straight code: a jump or a copy of a short exit)
        return b

    def _same_line(self, top, bottom):
        instrs = self.instrs
        if instrs[top].line == instrs[bottom].line or self._handler_entry(top):
            return True
        # a body on the while's own line (`while c: i += 1`): the bottom copy starts no line
        # of its own, it runs on the line in effect there
        return instrs[bottom].line is None and instrs[top].line is not None and \
            self._line_in_effect(bottom) == instrs[top].line

    def _line_in_effect(self, k):
        """The line instruction ``k`` runs on: its own, or the last one started before it."""
        instrs = self.instrs
        while k >= 0 and instrs[k].line is None:
            k -= 1
        return instrs[k].line if k >= 0 else None

    def _handler_entry(self, k):
        """The first instruction of a handler (after PUSH_EXC_INFO) starts no line when the
        code before the handler ended on the same line (a finally body copied there)."""
        return k > 0 and self.instrs[k].line is None and self.instrs[k - 1].op == "PUSH_EXC_INFO"

    def _same_exit(self, target, exit_):
        """Whether a jump to ``target`` leaves a loop the way falling into ``exit_`` does: the
        same label, or the jump there threaded (3.12+: a while's top test in a for body goes
        straight to the for's head, where the jump after the bottom test goes)."""
        label = self.exits.label  # (branches.label: copies of one exit block are one label)
        if label(target) == label(exit_):
            return True
        after = self.instrs[exit_] if exit_ < self.n else None
        if after is None:
            return False
        if after.op == "JUMP" and after.target is not None:
            return label(target) == label(after.target)
        there = self.instrs[target] if target < self.n else None
        if there is not None and self._same_exit_block(exit_, target):
            # two copies of a short exit (3.12+: `while a == b == c:` leaves through the one
            # after its chain's cleanup at the top and the one after its bottom test; 3.10:
            # a while ending a with body leaves through a copy of the with's exit each way)
            return True
        # 3.12+: a copy of a re-raise (a loop in a finally body leaves through either)
        return there is not None and there.op == after.op == "RERAISE" and \
            there.arg == after.arg and [e.target for e in self.chain(target)] == \
            [e.target for e in self.chain(exit_)]

    def _through_jumps(self, t):
        """Where a jump to ``t`` ends up, through unconditional jumps (a few)."""
        for _ in range(4):
            if t >= self.n or self.instrs[t].op != "JUMP" or self.instrs[t].target is None:
                break
            t = self.instrs[t].target
        return t

    def _same_exit_block(self, a, b):
        """Whether the straight blocks at ``a`` and ``b`` (up to 8 instructions, same lines)
        do the same and leave the same way: a return, or a jump to one label."""
        instrs, label = self.instrs, self.exits.label
        if a == b or instrs[a].line != instrs[b].line:
            return False
        for k in range(8):
            if max(a, b) + k >= self.n:
                return False
            x, y = instrs[a + k], instrs[b + k]
            if x.op != y.op:
                return False
            if x.op == "JUMP":
                return x.target is not None and y.target is not None and \
                    label(self._through_jumps(x.target)) == label(self._through_jumps(y.target))
            if x.target is not None or y.target is not None or not same_argument(x, y):
                return False
            if x.op in _LEAVES:
                return x.op == "RETURN_VALUE"
        return False

    _chains = None  # i -> chain(i): the table is fixed once the walker is made

    def chain(self, i):
        """Exception entries that handle an exception at ``i``, innermost first (callers
        must not change the list: it is kept for the next asker, as the walk asks for every
        instruction inside a try)."""
        chains = self._chains
        if chains is None:
            chains = self._chains = {}
        result = chains.get(i)
        if result is None:
            result = chains[i] = self._chain(i)
        return result

    _try_starts = None  # exception entry -> try_starts()[entry], worked out on the first walk
    # where a loop or an empty try may start (while_loops, back_jumps, empty_tries), in one
    # set for walk() to ask, made on the first walk: those are found before walking (a
    # back jump dropped since stays in it, and _structure_at, asking again, declines there)
    _heads = None

    def structure_heads(self):
        """The indexes where a loop or an empty try may start (``_heads``, see above). A
        ``for`` loop's head is a back jump's target too, but no structure point reads a loop
        at a FOR_ITER (its handler reads the ``for``; _loop_heads finds no back edges there):
        left out unless a ``while`` loop or an empty try starts there as well, so that a walk
        asks _structure_at nothing at the head of every ``for`` it meets."""
        heads = self._heads
        if heads is None:  # (once per walker)
            heads = self._heads = set(self.while_loops)
            if self.back_jumps:
                instrs, n = self.instrs, self.n
                for k in self.back_jumps:
                    if k >= n or instrs[k].op not in _FOR_HEADS:
                        heads.add(k)
            if self.empty_tries:
                heads.update(self.empty_tries)
        return heads

    def try_starts(self):
        """{exception entry: the frozenset of the handlers that :meth:`try_here` would read
        as a try starting at an instruction whose innermost entry it is}: the ``PUSH_EXC_INFO``
        handlers without ``lasti`` of its chain (:meth:`chain` depends on that entry alone).
        ``try_here`` declines where every one of them is open already (``ctx.open``: the
        walk is inside those trys), which is most instructions of a try body: ``walk`` asks
        this table first and spares the calls. Fixed once the walker is made."""
        table = self._try_starts
        if table is None:
            table = self._try_starts = {}
            instrs, n = self.instrs, self.n
            for e in self.entries:
                # (a handler past the code: try_here is asked, as before, and fails there)
                table[e] = frozenset(x.target for x in self._chain_from(e) if not x.lasti and (
                    x.target >= n or instrs[x.target].op == "PUSH_EXC_INFO"))
        return table

    def _chain(self, i):
        return self._chain_from(self.handler_at[i] if i < self.n else None)

    def _chain_from(self, e):
        result = []
        seen = set()
        while e is not None and e.target not in seen:
            result.append(e)
            seen.add(e.target)
            e = self.handler_at[e.target] if e.target < self.n else None
        return result

    # -- the walk --------------------------------------------------------------------------
    def walk(self, start, end, stack, ctx, out=None, chunk_mode=False):
        """Statements for [start, end); returns (statements, index where the walk stopped)."""
        if out is None:
            out = []
        first = len(out)
        length = end - start
        self.work += length if length > 1 else 1  # (at least 1: max() is a call, every walk)
        if self.work > self.work_limit:
            self.fail("too much work: the walks of this code object cover %d instructions, more "
                      "than %d per instruction it has" % (self.work, WORK_PER_INSTRUCTION),
                      self.instrs[min(start, self.n - 1)] if self.n else None)
        saved = (self.ctx, self.range_start, self.range_end, self.chunk_mode, self.walk_serial)
        self.ctx, self.range_start, self.range_end, self.chunk_mode = ctx, start, end, chunk_mode
        self.walks += 1
        self.walk_serial = self.walks  # (expressions._literal_target)
        try:
            i = start
            instrs = self.instrs
            handlers = OPCODES  # opname -> handler(walker, ...) (registry.py, recognisers.py)
            # _skip and _structure_at have nothing to do at most instructions: their first
            # tests are repeated here, so those pay no call
            n = self.n
            detached, cleanups = self.exits.ends, self.cleanup_starts
            plain = not ctx.finally_copies and not ctx.handler_name
            handler_at = self.handler_at
            heads = self._heads
            if heads is None:
                heads = self.structure_heads()  # (made on the first walk)
            lines = self.lines
            expr = ast.expr
            try_starts = None
            if not chunk_mode and self.entries:
                try_starts = self._try_starts or self.try_starts()  # (made on the first walk)
            open_ = ctx.open
            while i < end:
                if not plain or i in detached or i in cleanups or i >= n:
                    i = self._skip(i, ctx)
                    if i >= end:
                        break
                # a construct may start here: a loop head, a protected range whose try the
                # walk is not inside yet (try_starts: try_here declines everywhere else), or
                # a try with an empty body (empty_tries.py)
                if not chunk_mode and ((i < n and handler_at[i] is not None and
                                        not try_starts[handler_at[i]] <= open_) or
                                       i in heads):
                    nxt = self._structure_at(i, stack, out, ctx)
                    if nxt is not None and nxt == i and self.empty_try_read_at == i:
                        self.empty_try_read_at = None  # (empty_tries.py) on with i
                    elif nxt is not None:
                        if nxt <= i:
                            # a construct that resumes at or before its own start would be
                            # read again and again
                            self.fail("a construct resumes where it started", instrs[i])
                        i = nxt
                        continue
                ins = instrs[i]
                before = len(out)
                try:
                    handler = handlers[ins.op]
                except KeyError:
                    self.fail("unsupported opcode", ins)
                nxt = handler(self, ins, stack, out)
                # number new values in the order they were made: after SWAPs the stack order
                # is not that order, and spilled values are assigned in it. Down from the top
                # to the first value numbered before (by index: a quarter cheaper than
                # reversed(), whose iterator is made at every instruction)
                made = self.made = self.made + 1
                k = len(stack)
                while k:
                    k -= 1
                    value = stack[k]
                    if isinstance(value, expr):
                        if getattr(value, "_made", None) is not None:
                            break
                        value._made = made
                        value._line = lines[i]  # (line_breaks.py)
                if len(out) > before:
                    if self.copied:
                        self.hoist_copies(out, before, stack)
                        # a copy still waiting on the stack may reach a later statement
                        self.copied = any(isinstance(v, _SIDE_EFFECTS) for v in stack)
                    if (stack or self.disordered) and self.kind != "comprehension":
                        self.spill(stack, out, before)
                        # values reordered by SWAP may still wait on the stack
                        self.disordered = self.disordered and any(
                            isinstance(v, ast.expr) and not getattr(v, "_temp", False)
                            for v in stack)
                i = ins.index + 1 if nxt is None else nxt
            if KEEPS_DEAD_CODE and len(out) > first and isinstance(out[-1], ast.Return):
                # (3.8/3.9) rebuild the else a range's last compound statement lost
                ENTRY.compound_end(self, out, first, end)
            return out, i
        finally:
            self.ctx, self.range_start, self.range_end, self.chunk_mode, self.walk_serial = saved

    annotations_found = ()  # 3.14+: annotations of an __annotate__ function (annotate.py)
    # the list/set/dict an inline comprehension being read adds to (None outside one;
    # inline_comprehensions.py)
    comprehension_result = None
    # 3.8-3.10 (handlers_legacy.py): finally handler -> (start of its normal path's returning
    # copy, None or (start, length) of the code after the statement that the copy has at each
    # exit instead of `return None`)
    returning_copies = {}
    # 3.12+ (cold_blocks.py): jump targets that end a cold handler's clause (no statement),
    # and the exception-only code, worked out on first use
    cold_joins = frozenset()
    _cold_code = None
    _warm_protected = None  # (h, start) -> cold_blocks._last_warm_protected, once per walker
    # 3.12+: the instructions read are in the source-like block order (block_order.py,
    # render.CodeWalker), handlers back at the end of their statements
    source_order = False
    # handlers.py: index of a copied RERAISE in a finally body -> its end
    finally_reraise_ends = {}
    # branches.py: the targets of the chunks beside the one being read; end of a range ->
    # where the code goes on after it, when that is not the range's end (an if body whose way
    # over the else is a jump from inside it, see op_FOR_ITER); line -> how many instructions
    # are on it (_shares_line)
    _sibling_targets = frozenset()
    _operand_end = -1  # reading an operand of a value and/or that joins here (read_chunk)
    _chunk_depth = 1 << 30  # the stack's depth when the chunk being read ends
    range_joins = {}
    _line_counts = None
    _lone_nops = None  # offsets right after a NOP alone on its line (branches._break_line_at)
    kind = "function"
    decisions = None  # choices.Decisions of the decompile() call (None: the default readings)
    made = 0
    disordered = False  # a SWAP reordered values: statements may run parts out of order

    # -- trial parses: fork, then restore what a rejected trial changed ----------------------
    def fork(self):
        """A snapshot of everything a walk changes on the walker and its session as it goes
        (:class:`WalkState`), taken before a trial parse (a chunk, a value, a match). A
        rejected trial hands it to :meth:`restore`, so it leaves nothing of its parse behind (a
        consumed cold block, a temporary's number, a stub); a trial that is taken keeps its
        changes, as the walk it stands for would have made them."""
        return WalkState(self)

    def restore(self, state):
        """Undo every change made since ``state = self.fork()`` (see :meth:`fork`)."""
        state.restore(self)

    def spill(self, stack, out, at):
        """Values still on the stack when a statement is emitted were computed *before* it
        (generated code does that; people don't): keep that order by assigning them to
        temporaries ahead of the statement."""
        if not self.disordered:
            for value in stack:
                if isinstance(value, _VALUES):
                    break
            else:
                return  # (only markers wait: an iterator, a with's exit... most statements)
        # a chained assignment's value stays on the stack for its next target (an expression
        # statement's value left there too is a COPY'd value: that one is spilled)
        emitted = set(id(getattr(stmt, "value", None)) for stmt in out[at:]
                      if not isinstance(stmt, ast.Expr))
        spill = {}  # id -> (stack positions, node)
        slices = []  # stack positions of slices: their parts are spilled, not the slice
        for k, value in enumerate(stack):
            if isinstance(value, ast.Slice):
                # BUILD_SLICE's value has no source of its own (`__temp_1 = a:b` is no
                # Python): the slice stays on the stack, what it is made of is held
                slices.append(k)
                for part in (value.lower, value.upper, value.step):
                    if _spillable(part, emitted):
                        spill.setdefault(id(part), ([], part))
                continue
            if not _spillable(value, emitted):
                continue
            spill.setdefault(id(value), ([], value))[0].append(k)
        hoisted = [node for _, node in spill.values()]
        if self.disordered or hoisted:
            # parts of the new statements made before a spilled value (or before another part
            # that runs ahead of them) must run first too
            for _ in range(64):
                late = first_out_of_order(hoisted, out[at:])
                if late is None:
                    break
                hoisted.append(late)
        if not hoisted:
            return
        temps, spilled = self._assign_temps(hoisted)
        for positions, node in spill.values():
            for k in positions:
                stack[k] = name(spilled[id(node)])
                stack[k]._temp = True
        for k in slices:
            stack[k] = _substitute(stack[k], spilled)
        # ... or in the statements just emitted, which run after the temporaries (an
        # expression statement that became a bare temporary does nothing: dropped)
        out[at:] = temps + [stmt for stmt in (_substitute(stmt, spilled) for stmt in out[at:])
                            if not _bare_temp(stmt)]

    copied = False

    def hoist_copies(self, out, at, stack):
        """A value COPY'd and then used twice would be evaluated twice as source: assign it
        to a temporary first (generated code only; people's code merges its copies into
        chained assignments, walruses and augmented assignments)."""
        seen, repeated = set(), {}
        for stmt in out[at:]:
            for node in ast.walk(stmt):
                if isinstance(node, _SIDE_EFFECTS):
                    if id(node) in seen:
                        repeated[id(node)] = node
                    seen.add(id(node))
        if not repeated:
            return
        temps, names = self._assign_temps(list(repeated.values()))
        out[at:] = temps + [_substitute(stmt, names) for stmt in out[at:]]
        # a copy still waiting on the stack is the same value: the temporary too
        stack[:] = [_substitute(v, names) if isinstance(v, ast.expr) else v for v in stack]

    def _assign_temps(self, nodes):
        """Bind each node to a new temporary, in the order the values were made; returns the
        assignments and {id(node): temporary} for _substitute. A node that sits inside another
        is bound first and named in the other's assignment, so each is evaluated once."""
        never = self.made + 1
        temps, names = [], {}
        for node in sorted(nodes, key=lambda n: _made_or(n, never)):
            temp = self.new_temp()
            value = _substitute(node, names) if names else node
            temps.append(ast.Assign(targets=[name(temp, ast.Store())], value=value, lineno=0))
            names[id(node)] = temp
        return temps, names

    def new_temp(self):
        self.session.temp_count += 1
        return "%s%d" % (self.session.temp_prefix, self.session.temp_count)

    def _skip(self, i, ctx):
        """Skip code that has no statement form: re-raise cleanups, copied finally bodies."""
        while i < self.n:
            detached = self.exits.ends.get(i)
            if detached is not None:
                i = detached
                continue
            stop = self.cleanup_starts.get(i)
            if stop is not None and not self.chunk_mode:
                i = stop
                continue
            if ctx.finally_copies:
                moved = False
                for (start, length, handler) in ctx.finally_copies:
                    if length and handler not in [e.target for e in self.chain(i)] and \
                            self._same_code(i, start, length):
                        i += length
                        moved = True
                        break
                if moved:
                    continue
            ins = self.instrs[i]
            if ins.op == "LOAD_CONST" and ins.argval is None and ctx.handler_name and i + 2 < self.n:
                a, b = self.instrs[i + 1], self.instrs[i + 2]
                if a.op.startswith("STORE_") and b.op.startswith("DELETE_") and \
                        a.argval == ctx.handler_name == b.argval:
                    i += 3
                    continue
            return i
        return i

    def _same_code(self, i, start, length):
        instrs = self.instrs
        if i + length > self.n or i == start:
            return False
        for k in range(length):
            a, b = instrs[i + k], instrs[start + k]
            if a.op != b.op:
                return False
            if a.target is not None:
                if b.target is None:
                    return False
                inside_a = i <= a.target < i + length
                inside_b = start <= b.target < start + length
                if inside_a != inside_b or (inside_a and a.target - i != b.target - start):
                    return False
            elif not same_argument(a, b):
                return False
        return True

    def end_with_detached_exit(self, stmts):
        """Write the exit block that a function's top level falls into, when only detached
        copies of it are left (statements.ExitBlocks).

        3.12+ copies a ``return v`` that ends a function into every branch that falls into
        it, with the statement's line number: the first copy reads as the written one and the
        others are detached, so jumps to the real end (``if a: ... elif b: ...; return v``
        where the last test jumps there) read as going to the end of the function, and falling
        off it would return None. ``stmts`` is the walked top level; the exit (one label, a
        return of anything but a constant None) is appended when the last statement can fall
        through. The compiler drops it again where it is dead, and verify() judges the rest.
        """
        if not self.exits.virtual:
            return  # (a jump past the code goes to a detached copy's label: none without one)
        n = self.n
        labels = set()
        for ins in self.instrs:
            if ins.target is not None and ins.target > n:
                labels.add(ins.target)
        if len(labels) != 1 or (stmts and not _falls_through(stmts[-1])):
            return
        label = labels.pop()
        start = min(k for k, v in self.exits.virtual.items() if v == label)
        stop = self.exits.ends[start]
        first = self.instrs[start]
        if first.op == "LOAD_CONST" and first.argval is None and stop - start == 2:
            return  # falling off the end returns None already
        del self.exits.ends[start]  # (the walk would step over it)
        state = self.fork()
        try:
            block, _ = self.walk(start, stop, [], Context())
        except DecompilationError:
            self.restore(state)
            return  # an exit that needs the stack of where it was copied (a with's)
        finally:
            self.exits.ends[start] = stop
        if len(block) == 1 and isinstance(block[0], ast.Return):
            stmts.extend(block)
        else:
            self.restore(state)

    def _structure_at(self, i, stack, out, ctx):
        """Start a construct at ``i`` if one starts here: the first of the structure points
        (registry.STRUCTURE_POINTS, in the order recognisers.py gives) that applies reads it;
        where it goes on, or None."""
        loop_head = i in self.while_loops or i in self.back_jumps
        if not loop_head and (i >= self.n or self.handler_at[i] is None) and \
                i not in self.empty_tries:
            return None  # most instructions: nothing starts here (checked before any work)
        for starts_here in STRUCTURE_POINTS:
            if not loop_head and starts_here in _LOOP_HEAD_POINTS:
                continue  # (inside a protected range, asked at every instruction)
            nxt = starts_here(self, i, stack, out, ctx)
            if nxt is not DECLINE:
                return nxt
        return None

    # -- structure points (registered in recognisers.py): each reads the construct that starts
    # at ``i`` through the registry, or returns DECLINE when none of its kind does
    def try_here(self, i, stack, out, ctx):
        """A try whose protected range starts at ``i``, unless a loop starting here holds it
        (that loop is read first, the try inside its body)."""
        entries = self.chain(i)
        empty = [e for e in self.empty_tries.get(i, ()) if e.target not in ctx.open]
        for e in reversed(entries):
            if e.target in ctx.open:
                continue
            if e.lasti or self.instrs[e.target].op != "PUSH_EXC_INFO":
                continue
            if empty and not self._encloses(e, empty[0]):
                break  # an empty try holds this one in its else (or finally copy)
            if not self._loop_encloses(i, e.target, ctx):
                return ENTRY.do_try(self, i, e, stack, out, ctx)
            return DECLINE
        if empty and empty[0].target not in self.empty_tries_read and \
                not self._loop_encloses(i, empty[0].target, ctx):
            # (its else starts where its body does: read while the try is, it is not again)
            self.empty_tries_read.add(empty[0].target)
            try:
                nxt = ENTRY.do_try(self, i, empty[0], stack, out, ctx)
                if nxt == i:
                    # nothing consumed (3.12+: no else, the handler laid out after the
                    # code that follows): what else starts here, then the instruction
                    again = self._structure_at(i, stack, out, ctx)
                    if again is not None:
                        return again
                    self.empty_try_read_at = i
                return nxt
            finally:
                self.empty_tries_read.discard(empty[0].target)
        return DECLINE

    def _encloses(self, outer, empty):
        """Whether the try of ``outer``'s handler encloses the empty try of ``empty``: its
        handler is on the way out of the empty try's handler (empty_tries.py)."""
        seen = set()
        e = self.handler_at[empty.target]
        while e is not None and e.target not in seen:
            if e.target == outer.target:
                return True
            seen.add(e.target)
            e = self.handler_at[e.target] if e.target < self.n else None
        return False

    def _loop_heads(self, i, ctx):
        """(tested while at ``i`` or None, back edges to ``i`` of a loop without a bottom test,
        whether a `while True:` encloses a tested `while` that both start here, whether the
        walk is inside the loop at ``i`` already)."""
        loop = self.while_loops.get(i)
        backs = self.back_jumps.get(i)
        if backs and self.instrs[i].op in _FOR_HEADS:
            backs = None
        # `while True:` whose body starts with a tested `while`: both start here, and the
        # enclosing one's back edge lies past the inner one's bottom test
        outer_first = loop is not None and backs and max(backs) > loop[1]
        inside = ctx.loop is not None and ctx.loop.head == i
        return loop, backs, outer_first, inside

    def tested_while_here(self, i, stack, out, ctx):
        """``while test:`` (its test copied to the bottom) starting at ``i``, unless a
        `while True:` starting here encloses it."""
        loop, backs, outer_first, inside = self._loop_heads(i, ctx)
        if loop is not None and not outer_first and not inside:
            return ENTRY.do_while(self, i, loop, stack, out, ctx)
        return DECLINE

    def while_true_here(self, i, stack, out, ctx):
        """A loop without a bottom test (``while True:``, or a body that never ends) at ``i``."""
        loop, backs, outer_first, inside = self._loop_heads(i, ctx)
        if backs and not inside:
            return ENTRY.do_while_true(self, i, self._last_back_edge(i, max(backs)), stack, out,
                                       ctx)
        return DECLINE

    def enclosed_tested_while_here(self, i, stack, out, ctx):
        """The tested ``while`` that starts a `while True:` body at the same index, once the
        walk is inside the enclosing loop."""
        loop, backs, outer_first, inside = self._loop_heads(i, ctx)
        if outer_first and inside and ctx.loop.kind == "while" and ctx.loop.last > loop[1]:
            return ENTRY.do_while(self, i, loop, stack, out, ctx)
        return DECLINE

    def _last_back_edge(self, head, last):
        """The back edge that ends the loop at ``head``: ``last``, or (3.14+, where an inner
        loop's test jumps back to the outer head when the inner loop ends the outer body) the
        back edge of a loop that starts inside and runs on past it; 3.8/3.9, where the back
        edge after a body that ends in a `break` is dead, what comes before it)."""
        if PROFILE.keeps_dead_code:
            return self._before_dead_back_edge(head, last)
        if not PROFILE.while_tested_at_top_only_again:
            return last
        grown = True
        while grown:
            grown = False
            for inner, edges in self.back_jumps.items():
                if head < inner <= last and max(edges) > last:
                    last, grown = max(edges), True
        return last

    def _before_dead_back_edge(self, head, last):
        """3.8/3.9: the last instruction of the body of the endless loop at ``head`` whose
        last live jump back is ``last``: the back edge after a body that ends in a ``break``
        is dead, normalization dropped it, and the body runs on past ``last`` (a
        ``continue``) up to it (multiprocessing.shared_memory.SharedMemory.__init__)."""
        raws = raw_instructions(self.code)
        live = legacy_layout(raws)[1]
        start, head_offset = self.instrs[last].offset, self.instrs[head].offset
        dead = [raw.offset for raw in raws if raw.offset > start and raw.offset not in live and
                raw.opname == "JUMP_ABSOLUTE" and raw.argval == head_offset]
        if not dead:
            return last
        end = last
        while end + 1 < self.n and self.instrs[end + 1].offset < max(dead):
            end += 1
        if self.instrs[end].op != "JUMP" or self.instrs[end].target <= end:
            return last  # (only a body that ends in a break)
        return end

    def _loop_encloses(self, i, handler, ctx):
        """A loop starting at ``i`` whose back edge comes after the try's handler holds it."""
        if ctx.loop is not None and ctx.loop.head == i:
            return False
        limit = handler
        if PROFILE.cold_handlers and handler in ENTRY.cold_code(self):
            # the handler lies past everything: the loop holds the try if it goes on after
            # the try body
            limit = ENTRY.warm_protected_end(self, handler) - 1
        loop = self.while_loops.get(i)
        if loop is not None:
            return loop[1] > limit
        backs = self.back_jumps.get(i)
        return bool(backs) and max(backs) > limit

    # -- statements ------------------------------------------------------------------------
    def emit_assign(self, target, value, out, ins):
        if isinstance(value, UnpackSlot):
            builder = value.builder
            builder.targets[value.position] = target
            if not getattr(getattr(self, "session", None), "generated", False):
                setattr(target, STORE_LINE, self.lines[ins.index])  # (line_breaks.py)
            if builder.complete():
                tgt = builder.as_target()
                if builder.parent is not None:
                    self.emit_assign(tgt, builder.parent, out, ins)
                else:
                    ENTRY.assign(self, tgt, builder.value, out, ins)
            return
        ENTRY.assign(self, target, value, out, ins)

    def _assign(self, target, value, out, ins):
        """The core's step of the store chain ENTRY.assign (recognisers.py), the last: stores
        reach it through the chain (emit_assign), so the families' steps run first."""
        if isinstance(value, Marker):  # (an expression is none of these: straight to the end)
            if isinstance(value, AugValue):
                out.append(ast.AugAssign(target=target, op=value.op, value=self.value(value.value, ins)))
                return
            if isinstance(value, FunctionValue) and isinstance(target, ast.Name) and \
                    _defines(value.code.co_name, target.id):
                out.append(ENTRY.function_def(self, value, value.code.co_name, ins))
                return
            if isinstance(value, ClassValue) and isinstance(target, ast.Name) and \
                    _defines(value.name, target.id):
                out.append(ENTRY.class_def(self, value, ins))
                return
            if isinstance(value, ImportValue):
                out.append(self.import_stmt(value, target, ins))
                return
            if isinstance(value, TypeAliasValue) and isinstance(target, ast.Name) and \
                    value.name == target.id:
                out.append(ast.TypeAlias(name=target, type_params=value.type_params, value=value.value))
                return
            if isinstance(value, ImportFromValue) and value.source.fromlist is None:
                # `import a.b.c as d`: IMPORT_NAME a.b.c, then IMPORT_FROM down to c
                source = value.source
                out.append(_lazy_if(source, ast.Import(names=[ast.alias(name=source.module,
                                                                      asname=target.id)])))
                source.names.append(None)
                return
            if isinstance(value, ImportFromValue):
                value.source.names.append(ast.alias(name=value.name, asname=None if value.name == target.id else target.id))
                return
            if isinstance(value, WithEnter):
                value.exit_marker.target = target
                return
            if isinstance(value, LoopItem):
                value.target = target
                return
            if isinstance(value, CurrentExc):
                value.target = target
                return
        if out and isinstance(out[-1], ast.Assign) and out[-1].value is value:
            out[-1].targets.append(target)
            return
        # (positional: a third cheaper than keywords, here and in the commonest statements;
        # value() asked only of what is not a node already)
        out.append(ast.Assign([target], value if isinstance(value, ast.AST) else
                              self.value(value, ins), lineno=0))

    def _store(self, target, ins, stack, out):
        if not stack:
            self.fail("stack underflow", ins)
        value = stack.pop()
        if not isinstance(value, ast.expr):
            self.emit_assign(target, value, out, ins)
            return
        if stack and stack[-1] is value and isinstance(target, ast.Name) \
                and not self._next_is_store(ins.index + 1) and \
                not (out and isinstance(out[-1], ast.Assign) and out[-1].value is value):
            # (a name between attribute or subscript targets of a chained assignment, `a.x =
            # b = c.y = v`, is one more of its targets: a walrus stores before any target)
            stack[-1] = ast.NamedExpr(target=target, value=value)
            return
        # (an expression is no UnpackSlot, emit_assign's own case: straight to the chain)
        ENTRY.assign(self, target, value, out, ins)

    def _next_is_store(self, k):
        if k >= self.n:
            return False
        op = self.instrs[k].op
        return op.startswith("STORE_") or op in ("COPY", "UNPACK_SEQUENCE", "UNPACK_EX")

    def op_STORE_FAST(self, ins, stack, out):
        following = ins.index + 1
        # (a group is two stores or more: most stores are followed by something else)
        group = self._store_group(ins, stack) if following < self.n and \
            self.instrs[following].op == "STORE_FAST" else None
        if group:
            targets, values = group
            out.append(ast.Assign(targets=[ast.Tuple(elts=targets, ctx=ast.Store())],
                                  value=ast.Tuple(elts=values, ctx=ast.Load()), lineno=0))
            return ins.index + len(targets)
        identifier = ins.argval
        # (name(), written out as expressions._load_global does: only a compiler-made name,
        # `.x`, needs its check)
        self._store(ast.Name(identifier, STORE) if identifier[:1] != "." else
                    name(identifier, STORE), ins, stack, out)

    def _store_group(self, ins, stack):
        """``x, y = y, x`` after 3.11's swap elimination: the values are pushed in order, then
        stored to the targets last to first with no SWAP left.  Stores that pop plain values
        left by the same statement are one tuple assignment."""
        k = ins.index
        count = 0
        while k + count < self.n and self.instrs[k + count].op == "STORE_FAST" and \
                count < len(stack) and isinstance(stack[-1 - count], ast.expr):
            count += 1
        if count < 2:
            return None
        values = stack[-count:]
        if len(set(map(id, values))) != count:
            return None  # a COPY: chained assignment, not a tuple
        names = [self.instrs[k + q].argval for q in range(count)]
        if len(set(names)) != count:
            return None
        del stack[-count:]
        targets = [name(n, ast.Store()) for n in reversed(names)]
        return targets, list(values)

    def op_STORE_NAME(self, ins, stack, out):
        self._store(name(ins.argval, STORE), ins, stack, out)

    def op_STORE_GLOBAL(self, ins, stack, out):
        self.globals_declared.add(ins.argval)
        self._store(name(ins.argval, STORE), ins, stack, out)

    def op_STORE_DEREF(self, ins, stack, out):
        if ins.argval in self.code.co_freevars:
            self.nonlocals_declared.add(ins.argval)
        self._store(name(ins.argval, STORE), ins, stack, out)

    def op_STORE_ATTR(self, ins, stack, out):
        obj = self.pop(stack, ins)
        self.emit_assign(ast.Attribute(value=self.value(obj, ins), attr=ins.argval, ctx=ast.Store()),
                         self.pop(stack, ins), out, ins)

    def op_STORE_SUBSCR(self, ins, stack, out):
        index = self.pop(stack, ins)
        container = self.pop(stack, ins)
        value = self.pop(stack, ins)
        if isinstance(container, ast.Name) and container.id == "__annotations__" and \
                isinstance(index, ast.Constant) and isinstance(index.value, str):
            self._annotation(index.value, value, out, ins)
            return
        target = ast.Subscript(value=container, slice=self._slice_expr(index), ctx=ast.Store())
        self.emit_assign(target, value, out, ins)

    def op_STORE_SLICE(self, ins, stack, out):
        upper = self.pop(stack, ins)
        lower = self.pop(stack, ins)
        container = self.pop(stack, ins)
        value = self.pop(stack, ins)
        none = lambda v: None if isinstance(v, ast.Constant) and v.value is None else v
        target = ast.Subscript(value=container, slice=ast.Slice(lower=none(lower), upper=none(upper), step=None),
                               ctx=ast.Store())
        self.emit_assign(target, value, out, ins)

    def _annotation(self, key, annotation, out, ins):
        target = name(key, ast.Store())
        if self.code.co_flags & CO_FUTURE_ANNOTATIONS:
            annotation = unstringify(annotation)  # the compiler made it a string
        if out and isinstance(out[-1], ast.Assign) and len(out[-1].targets) == 1 and \
                isinstance(out[-1].targets[0], ast.Name) and out[-1].targets[0].id == key:
            value = out.pop().value
            out.append(ast.AnnAssign(target=target, annotation=annotation, value=value, simple=1))
        else:
            out.append(ast.AnnAssign(target=target, annotation=annotation, value=None, simple=1))

    def op_SETUP_ANNOTATIONS(self, ins, stack, out):
        pass

    def _delete(self, target, out):
        if out and isinstance(out[-1], ast.Delete):
            out[-1].targets.append(target)
        else:
            out.append(ast.Delete(targets=[target]))

    def op_DELETE_FAST(self, ins, stack, out):
        self._delete(name(ins.argval, ast.Del()), out)

    op_DELETE_NAME = op_DELETE_FAST

    def op_DELETE_GLOBAL(self, ins, stack, out):
        self.globals_declared.add(ins.argval)
        self._delete(name(ins.argval, ast.Del()), out)

    def op_DELETE_DEREF(self, ins, stack, out):
        if ins.argval in self.code.co_freevars:
            self.nonlocals_declared.add(ins.argval)
        self._delete(name(ins.argval, ast.Del()), out)

    def op_DELETE_ATTR(self, ins, stack, out):
        obj = self.pop(stack, ins)
        self._delete(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Del()), out)

    def op_DELETE_SUBSCR(self, ins, stack, out):
        index = self.pop(stack, ins)
        container = self.pop(stack, ins)
        self._delete(ast.Subscript(value=container, slice=self._slice_expr(index), ctx=ast.Del()), out)

    _TARGET_LOADS = frozenset(["LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF",
                               "LOAD_CONST", "PUSH_NULL"])

    def targets_follow(self, k, count):
        """Whether the instructions from ``k`` store ``count`` stack values to assignment
        targets (names, attributes, subscripts, nested unpacking) and nothing else: how
        people's unpacking looks, as opposed to generated code that keeps using the values."""
        instrs = self.instrs
        extra = 0
        while count > 0:
            if k >= self.n:
                return False
            ins = instrs[k]
            op = ins.op
            if op in self._TARGET_LOADS:
                extra += 1
            elif op in ("LOAD_ATTR", "UNARY_NEGATIVE", "UNARY_INVERT"):
                if extra < 1:
                    return False
            elif op == "BINARY_SUBSCR" or (op == "BINARY_OP" and
                                           not str(ins.argval).endswith("=")):
                if extra < 2:  # (an index or object computed in the target: a[n - i - 1])
                    return False
                extra -= 1
            elif op in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"):
                if extra:
                    return False
                count -= 1
            elif op == "STORE_ATTR":
                if extra != 1:
                    return False
                extra = 0
                count -= 1
            elif op == "STORE_SUBSCR":
                if extra != 2:
                    return False
                extra = 0
                count -= 1
            elif op == "BUILD_SLICE":  # a slice target before 3.12: a[i:j] = ...
                if extra < ins.argval:
                    return False
                extra -= ins.argval - 1
            elif op == "BINARY_SLICE":  # 3.12+: a[i:j][k] = ...
                if extra < 3:
                    return False
                extra -= 2
            elif op == "STORE_SLICE":  # 3.12+: a[i:j] = ...
                if extra != 3:
                    return False
                extra = 0
                count -= 1
            elif op == "UNPACK_SEQUENCE" and not extra:
                count += ins.argval - 1
            elif op == "POP_TOP" and not extra and PROFILE.repeated_store_pops and \
                    self._repeated_store(k + 1) is not None:
                count -= 1  # (3.13+: a store the next store to the same local replaced)
            elif op == "UNPACK_EX" and not extra:
                count += (ins.arg & 0xFF) + (ins.arg >> 8)
            else:
                return False
            k += 1
        return True

    def _unpack_is_stored(self, ins):
        """Whether the values an UNPACK_* pushes go to assignment targets (people's code) or
        are used as values (generated code)."""
        count = ins.argval if ins.op == "UNPACK_SEQUENCE" else (ins.arg & 0xFF) + 1 + (ins.arg >> 8)
        return self.targets_follow(ins.index + 1, count)

    def _unpack_to_temps(self, ins, value, count, stack, out, star_index=None):
        temps = [self.new_temp() for _ in range(count)]
        elts = [ast.Starred(value=name(t, ast.Store()), ctx=ast.Store()) if q == star_index
                else name(t, ast.Store()) for q, t in enumerate(temps)]
        out.append(ast.Assign(targets=[ast.Tuple(elts=elts, ctx=ast.Store())],
                              value=self.value(value, ins), lineno=0))
        for t in reversed(temps):
            ref = name(t)
            ref._temp = True
            stack.append(ref)

    def op_UNPACK_SEQUENCE(self, ins, stack, out):
        value = self.pop(stack, ins)
        if not isinstance(value, UnpackSlot) and not self._unpack_is_stored(ins):
            return self._unpack_to_temps(ins, value, ins.argval, stack, out)
        builder = UnpackBuilder(value, ins.argval)
        if isinstance(value, UnpackSlot):
            builder.parent = value
            builder.value = None
        for k in reversed(range(ins.argval)):
            stack.append(UnpackSlot(builder, k))

    def op_UNPACK_EX(self, ins, stack, out):
        value = self.pop(stack, ins)
        before, after = ins.arg & 0xFF, ins.arg >> 8
        count = before + 1 + after
        if not isinstance(value, UnpackSlot) and not self._unpack_is_stored(ins):
            return self._unpack_to_temps(ins, value, count, stack, out, star_index=before)
        builder = UnpackBuilder(value, count, star_index=before)
        if isinstance(value, UnpackSlot):
            builder.parent = value
            builder.value = None
        for k in reversed(range(count)):
            stack.append(UnpackSlot(builder, k))

    def op_POP_TOP(self, ins, stack, out):
        if not stack:
            self.fail("stack underflow", ins)
        value = stack.pop()
        if isinstance(value, ImportFromValue) and value.source.fromlist is None:
            return
        if isinstance(value, ImportValue):
            if value.names and value.names[0] is not None:
                out.append(_lazy_if(value, ast.ImportFrom(module=value.module or None,
                                                          names=value.names, level=value.level)))
            return
        if isinstance(value, UnpackSlot) and PROFILE.repeated_store_pops:
            store = self._repeated_store(ins.index + 1)
            if store is not None:  # `a, _, _ = t`: the first `_` was a store
                stack.append(value)
                self._store(name(store.argval, ast.Store()), ins, stack, out)
                return
        if isinstance(value, (Marker,)) and not isinstance(value, (FunctionValue, ClassValue)):
            loop = self.ctx.loop
            if loop is not None and value is loop.iterator and ins.index + 1 == loop.exit:
                out.append(ast.Break())  # a break that falls into the loop's exit
            elif loop is not None and value is loop.iterator and ins.index + 1 < self.n and \
                    self.instrs[ins.index + 1].op == "JUMP" and \
                    self.instrs[ins.index + 1].target in loop.threaded_breaks:
                out.append(ast.Break())
                return ins.index + 2
            elif loop is not None and value is loop.iterator and \
                    loop.break_target != loop.exit and \
                    ENTRY.clause_exit_break(self, ins.index + 1):
                out.append(ast.Break())  # a copy of the except clause's exit
                return ENTRY.clause_exit_break(self, ins.index + 1)
            elif loop is not None and value is loop.iterator and loop.exit is not None:
                copied = self._inlined_exit(ins.index + 1, loop.exit)
                if copied:  # 3.12+: a break whose jump became a copy of the short exit
                    out.append(ast.Break())
                    return ins.index + 1 + copied
                copied = self._inlined_break(ins.index + 1, loop)
                if copied:
                    out.append(ast.Break())
                    return ins.index + 1 + copied
            return
        if isinstance(value, ast.Name) and getattr(value, "_temp", False):
            return  # a temporary dropped from the stack: the statement `__temp_3` does nothing
        if isinstance(value, ast.Constant):
            # no compiler writes a constant statement (it compiles to nothing), so a popped
            # constant comes from generated code: Dynamo's try/finally and suppressed `with`
            # exit push None, jump to their join and pop it there. Written out it would be a
            # stray `None` line; left out, the source compiles the same
            return
        out.append(ast.Expr(self.value(value, ins)))

    def _repeated_store(self, k):
        """The ``STORE_FAST`` that the ``POP_TOP`` before ``k`` stands in for: 3.13+ turns the
        first of two stores to one local in a row into ``POP_TOP`` (each such ``POP_TOP`` in
        a row stands for the store that ends the run); None when no store follows."""
        while k < self.n and self.instrs[k].op == "POP_TOP":
            k += 1
        if k < self.n and self.instrs[k].op == "STORE_FAST" and not self.instrs[k].is_target:
            return self.instrs[k]
        return None

    def _inlined_exit(self, k, exit_):
        """Length of the code from ``k`` that copies the exit block at ``exit_`` (straight
        code ending in a return or a raise: flowgraph.c copies a small block that leaves the
        code into the jumps to it), or 0."""
        if not PROFILE.lined_exit_copies or exit_ >= self.n or k == exit_:
            return 0
        length = 1
        while exit_ + length - 1 < self.n and length <= 6 and \
                self.instrs[exit_ + length - 1].op not in _COPIED_EXITS:
            length += 1
        if exit_ + length - 1 < self.n and \
                self.instrs[exit_ + length - 1].op in _COPIED_EXITS and \
                self._same_code(k, exit_, length):
            return length
        return 0

    def _inlined_break(self, k, loop):
        """Length of the returning block at ``k`` (just after the loop's iterator was popped)
        when it is the code after the loop copied into a ``break``, or 0.

        A ``return`` inside a ``for`` computes its value before it pops the iterator; only a
        constant is loaded after. So a non-constant return right after the pop is the code
        that follows the loop, inlined into the break's jump (3.10, 3.12+: blocks of up to
        four instructions are copied; the original goes when only breaks reached it, after
        a loop ``else`` that returns). op_FOR_ITER places it after the loop.
        """
        length = 0
        while k + length < self.n and length < 6:
            instr = self.instrs[k + length]
            if instr.is_target or instr.target is not None:
                return 0
            length += 1
            if instr.op == "RETURN_VALUE":
                break
        else:
            return 0
        first_op = self.instrs[k].op
        if self.instrs[k + length - 1].op != "RETURN_VALUE" or not first_op.startswith("LOAD_") \
                or (length == 2 and first_op == "LOAD_CONST"):
            return 0  # a return whose value is below the iterator, or a constant
        first = loop.inlined_after
        if first is None:
            loop.inlined_after = (k, length)
        elif first[1] != length or (first[0] != k and not self._same_code(k, first[0], length)):
            return 0
        return length

    def _copied_break(self, ins):
        """Whether the return or raise ``ins`` ends a copy of the exit block after the
        enclosing while loop, in place of a ``break`` that jumped there (3.12+ copies a small
        block that leaves the code into the jumps to it, its line included). A written
        ``return`` in the loop body has a line of its own; the copy has the exit's."""
        loop = self.ctx.loop
        if loop is None or loop.iterator is not None or not PROFILE.lined_exit_copies:
            return False
        if loop.inlined_after is not None:
            # an endless while whose exit is left only in copies (clause_breaks.py)
            start, length = loop.inlined_after
            begin = ins.index + 1 - length
            return begin >= self.range_start and \
                self.instrs[begin].line == self.instrs[start].line and \
                (begin == start or self._same_code(begin, start, length))
        target = loop.break_target
        if target is None or target >= self.n or self.instrs[target].line is None:
            return False
        stop = target
        while stop < self.n and stop - target < 6 and self.instrs[stop].op not in _COPIED_EXITS:
            stop += 1
        if stop >= self.n or self.instrs[stop].op != ins.op:
            return False
        length = stop + 1 - target
        start = ins.index + 1 - length
        if start < self.range_start or self.instrs[start].line != self.instrs[target].line or \
                any(i.op == "POP_TOP" or i.op.startswith("STORE_")
                    for i in self.instrs[start:ins.index]):
            return False
        return self._same_code(start, target, length)

    def op_RETURN_VALUE(self, ins, stack, out):
        if not stack:
            self.fail("stack underflow", ins)
        value = stack.pop()
        if self._copied_break(ins):
            out.append(ast.Break())
            return None
        node = ast.Return(self.value(value, ins))
        k = ins.index - 1
        while k > 1 and self.instrs[k].op == "POP_TOP" and self.instrs[k - 1].op == "SWAP":
            k -= 2  # (in a loop: the value swapped over the iterator, which is popped; a
            #         written `return <constant>` pops it first, then RETURN_CONST)
        if ins.argval == "split" and ins.index > 0 and not ins.is_target and \
                self.instrs[k].op == "LOAD_CONST":
            # (a return jumped to returns the value of an and/or: its constant is an operand)
            node._split = True  # see conditional_returns.py
        elif isinstance(value, ast.Constant) and value.value is None and ins.index > 0:
            node._implicit = ENTRY.is_implicit_return(self, self.instrs[ins.index - 1])
        if ins.index > 0 and self.instrs[ins.index - 1].offset == ins.offset:
            # one raw instruction (RETURN_CONST) read as LOAD_CONST; RETURN_VALUE: a return
            # statement as written, never a copy folded back by conditional_returns.py
            node._written = True
        if PROFILE.implicit_return_at_end_only and self._ifexp_branch_return(ins):
            node._split = True  # see conditional_returns.py
        out.append(node)

    def _ifexp_branch_return(self, ins):
        """3.8/3.9: whether the return ``ins`` is the first branch of a returned conditional
        expression, whose jump to the shared RETURN_VALUE the peephole pass replaced by a
        copy of it: the other branch follows at once, on the same line (a written
        ``if c: return a`` leaves a dead jump after its return, or a new line follows)."""
        instrs = self.instrs
        k = ins.index + 1
        if k >= self.n or not instrs[k].is_target or instrs[k].line is not None or \
                instrs[k].target is not None:
            return False
        # the test that jumps to the other branch, with no line started since it (the raw
        # instructions: an unwinding POP_BLOCK that normalization drops may start one)
        test = ins.index - 1
        while test >= 0 and not (instrs[test].op in POP_JUMPS and instrs[test].target == k):
            if instrs[test].target is not None:
                return False
            test -= 1
        if test < 0 or ENTRY.dead_after(self.code, ins.offset) is not None:
            return False
        first, last = instrs[test].offset, instrs[k].offset
        return not any(first < raw.offset <= last and raw.starts_line is not None
                       for raw in raw_instructions(self.code))

    def _is_implicit_return(self, load):
        """Whether ``return None`` was added by the compiler rather than written.

        A written ``return`` starts a line of its own after everything before it; the
        compiler's implicit return (and its copies) inherit a line already seen.
        """
        if load.line is None:
            return True  # (no line of its own: the table below is not needed)
        lines = self._max_line
        if lines is None:
            lines = self._max_line = []
            best = -1
            for ins in self.instrs:
                lines.append(best)
                if ins.line is not None and ins.line > best:
                    best = ins.line
        if load.line > lines[load.index]:
            return False
        if PROFILE.lined_exit_copies and load.line == lines[load.index]:
            # 3.12+ copies a written return with its line into jumps to it (a `break` whose
            # loop is followed by it): only such copies may share its line before it
            return not all(i.line is None or i.line < load.line or
                           (i.op in ("LOAD_CONST", "RETURN_VALUE") and i.argval is None)
                           for i in self.instrs[:load.index])
        return True

    _max_line = None

    def op_RAISE_VARARGS(self, ins, stack, out):
        cause = exc = None
        if ins.arg == 2:
            cause = self.pop(stack, ins)
        if ins.arg >= 1:
            exc = self.pop(stack, ins)
        if self._copied_break(ins):
            out.append(ast.Break())
            return
        assertion, msg = exc, None
        if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords:
            assertion, msg = exc.func, exc.args[0]
        if getattr(assertion, "_assertion", False) and cause is None:
            # `assert False, msg`: the compiler drops the constant test
            out.append(ast.Assert(test=ast.Constant(value=False), msg=msg))
            return
        out.append(ast.Raise(exc=exc, cause=cause))

    def op_RERAISE(self, ins, stack, out):
        out.append(ast.Raise(exc=None, cause=None))

    def op_LOAD_ASSERTION_ERROR(self, ins, stack, out):
        node = name("AssertionError")
        node._assertion = True
        stack.append(node)

    # -- imports ---------------------------------------------------------------------------
    def op_IMPORT_NAME(self, ins, stack, out):
        fromlist = self.pop(stack, ins)
        level = self.pop(stack, ins)
        names = getattr(fromlist, "_const", None)
        value = ImportValue(ins.argval, names, level.value if isinstance(level, ast.Constant) else 0)
        value.lazy = bool(IMPORT_FLAGS and (ins.arg or 0) & 1)
        stack.append(value)

    def op_IMPORT_FROM(self, ins, stack, out):
        source = stack[-1]
        if isinstance(source, ImportFromValue):  # `import a.b.c as d` walks down a.b.c
            source = source.source
        stack.append(ImportFromValue(source, ins.argval))

    def op_IMPORT_STAR(self, ins, stack, out):
        value = self.pop(stack, ins)
        out.append(ast.ImportFrom(module=value.module or None, names=[ast.alias(name="*", asname=None)],
                                  level=value.level))

    def op_CALL_INTRINSIC_1(self, ins, stack, out):
        kind = ins.argval
        if kind in ("INTRINSIC_IMPORT_STAR", 2):
            self.op_IMPORT_STAR(ins, stack, out)
            stack.append(Null())  # 3.12+: the intrinsic's result, popped right after
            return None
        return StackMachine.op_CALL_INTRINSIC_1(self, ins, stack, out)

    def import_stmt(self, value, target, ins):
        if value.fromlist is None or value.fromlist == ():
            module = value.module
            top = module.split(".")[0]
            if target.id == top and value.level == 0:
                return _lazy_if(value, ast.Import(names=[ast.alias(name=module, asname=None)]))
            return _lazy_if(value, ast.Import(names=[ast.alias(name=module, asname=target.id)]))
        self.fail("unexpected import form", ins)

    # -- generators ------------------------------------------------------------------------
    def op_YIELD_VALUE(self, ins, stack, out):
        value = self.pop(stack, ins)
        if isinstance(value, FunctionValue):
            value = self.value(value, ins)  # `(lambda a=a: a for a in x)`
        if isinstance(value, ast.Constant) and value.value is None:
            value = None
        stack.append(ast.Yield(value=value))

    def op_SEND_LOOP(self, ins, stack, out):
        it = self.pop(stack, ins)
        if not isinstance(it, IterMarker):
            stack.append(it)
            return
        if ins.argval == "await" and getattr(it.iterable, "_awaited_by_compiler", False):
            stack.append(it.iterable)
        elif ins.argval == "await":
            stack.append(ast.Await(value=it.iterable))
        else:
            stack.append(ast.YieldFrom(value=it.iterable))

    def op_GEN_START(self, ins, stack, out):
        pass

    # -- exceptions ------------------------------------------------------------------------
    def op_PUSH_EXC_INFO(self, ins, stack, out):
        exc = self.pop(stack, ins)
        stack.append(PrevExc())
        stack.append(exc)

    def op_POP_EXCEPT(self, ins, stack, out):
        value = self.pop(stack, ins)
        if not isinstance(value, PrevExc):
            self.fail("POP_EXCEPT without a handled exception", ins)
        loop = self.ctx.loop
        if loop is not None and loop.iterator is None and loop.break_target is not None:
            # a `break` in an except clause of a while loop whose jump became a copy of the
            # short exit after the loop (3.12+; a for loop pops its iterator first: op_POP_TOP)
            k = ins.index + 1
            if self._unbinds_handler_name(k):
                k += 3
            copied = self._inlined_exit(k, loop.break_target)
            if copied:
                out.append(ast.Break())
                return k + copied
        return None

    def _unbinds_handler_name(self, k):
        """Whether ``instrs[k:k + 3]`` is ``name = None; del name`` for the except clause's
        ``as name``."""
        handler_name = self.ctx.handler_name
        if handler_name is None or k + 2 >= self.n:
            return False
        load, store, delete = self.instrs[k:k + 3]
        return load.op == "LOAD_CONST" and load.argval is None and \
            store.op.startswith("STORE_") and delete.op.startswith("DELETE_") and \
            store.argval == handler_name == delete.argval


def _lazy_if(value, node):
    """``node`` (an import statement) as ``lazy import`` when ``value``'s IMPORT_NAME said so
    (3.15+, PEP 810)."""
    if getattr(value, "lazy", False):
        node.is_lazy = 1
    return node


# the opcodes at the head of a for loop (an async one: GET_ANEXT), read by their handlers
_FOR_HEADS = ("FOR_ITER", "GET_ANEXT")

# The structure points that decline where no loop starts (neither ``while_loops`` nor
# ``back_jumps`` holds the index: _loop_heads finds nothing there); _structure_at does not
# ask them at the other instructions of a protected range.
_LOOP_HEAD_POINTS = frozenset([StatementWalker.tested_while_here,
                               StatementWalker.while_true_here,
                               StatementWalker.enclosed_tested_while_here])
