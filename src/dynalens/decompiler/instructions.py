"""Code object -> a version-neutral list of instructions.

Every difference between CPython versions in what an opcode is called or how its argument is
encoded is translated here, so that the stack machine (``expressions.py``) and the structurer
(``statements.py``) read one instruction set.  The normalized set is close to CPython 3.11's:

* jumps have one name per condition (``POP_JUMP_IF_FALSE``, ``JUMP``...) whatever their
  direction, and carry ``target``: the *index* of the instruction they jump to;
* instructions that only exist for the interpreter (``CACHE``, ``PRECALL``, ``RESUME``,
  ``EXTENDED_ARG``, ``NOP``, ``MAKE_CELL``, ``COPY_FREE_VARS``...) are dropped; ``NOP`` only
  carries line numbers, and the verifier ignores line numbers;
* super-instructions (``LOAD_FAST_LOAD_FAST``...) are split, ``KW_NAMES`` becomes a
  ``LOAD_CONST`` of the names tuple followed by ``CALL_KW`` (the 3.13 form), the NULL pushed by
  ``LOAD_GLOBAL``/``LOAD_ATTR`` becomes an explicit ``PUSH_NULL``.

The exception table (3.11+) is parsed into :class:`ExceptionEntry` records over instruction
indexes.
"""

import dis
import sys
import threading

from . import decode as _decoding
from .decode import RAW_TUPLES, carried_lines, decode, exception_table, unit_lines
from .legacy_blocks import (block_stacks, inlined_exits, legacy_reads, raw_position,
                            unthread_with_stacks)

_UNKNOWN = dis.UNKNOWN if hasattr(dis, "UNKNOWN") else None  # (3.11's unresolved constants)

PY = sys.version_info[:2]
# Where CALL finds the NULL / self slot: below the callable before 3.13, above it after.
NULL_FIRST = PY < (3, 13)
# 3.15+: IMPORT_NAME's argument carries flags below the name index (1: `lazy import`, PEP 810)
IMPORT_FLAGS = PY >= (3, 15)

# `x is None` tests jump with POP_JUMP_IF_[NOT_]NONE from 3.11 on (so `is`/`is not` read the
# same either way); before, they are IS_OP/COMPARE_OP with a polarity to keep.
NONE_JUMPS = PY >= (3, 11)
# 3.13 made LOAD_CLOSURE a pseudo-instruction: the cell of a closure variable is loaded with
# LOAD_FAST on its slot (generated code, Dynamo's, does it to pass cells to resume functions)
CLOSURE_IS_LOAD_FAST = PY >= (3, 13)

# Conditional jumps that pop their operand, by normalized name -> value that makes them jump.
POP_JUMPS = {
    "POP_JUMP_IF_FALSE": False,
    "POP_JUMP_IF_TRUE": True,
    "POP_JUMP_IF_NONE": None,
    "POP_JUMP_IF_NOT_NONE": "not None",
}
# Conditional jumps that keep their operand when they jump (value-context `and` / `or`).
KEEP_JUMPS = {"JUMP_IF_FALSE_OR_POP": False, "JUMP_IF_TRUE_OR_POP": True}

_RENAMED = {
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "JUMP_FORWARD": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "JUMP_ABSOLUTE": "JUMP",
    "JUMP_NO_INTERRUPT": "JUMP",
    "LOAD_FAST_CHECK": "LOAD_FAST",
    "LOAD_FAST_BORROW": "LOAD_FAST",
    "LOAD_CLOSURE": "LOAD_CLOSURE",
    "POP_ITER": "POP_TOP",
}

_DROPPED = frozenset([
    "CACHE", "PRECALL", "RESUME", "EXTENDED_ARG", "NOP", "MAKE_CELL", "COPY_FREE_VARS",
    "TO_BOOL", "NOT_TAKEN", "RESUME_CHECK", "INSTRUMENTED_LINE", "ASYNC_GEN_WRAP",
    # 3.12+: FOR_ITER's exit target; an exhausted FOR_ITER jumps past it (and, 3.13+, past the
    # POP_TOP/POP_ITER after it: see normalize), so the loop exit reads as on 3.11
    "END_FOR",
])
# 3.12+ intrinsics that only do the interpreter's bookkeeping
_DROPPED_INTRINSICS = frozenset(["INTRINSIC_ASYNC_GEN_WRAP"])

_SPLIT = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
}

# Pre-3.11 operator opcodes -> the BINARY_OP symbol they became.
_BINARY = {
    "ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "MATRIX_MULTIPLY": "@", "TRUE_DIVIDE": "/",
    "FLOOR_DIVIDE": "//", "MODULO": "%", "POWER": "**", "LSHIFT": "<<", "RSHIFT": ">>",
    "AND": "&", "OR": "|", "XOR": "^",
}


class Instr(object):
    """One normalized instruction.

    ``target`` is the index of the jump target for jumps (``None`` otherwise); ``argval`` is
    what ``dis`` resolved (a name, a constant, an operator symbol) after normalization.
    """

    __slots__ = ("index", "offset", "op", "arg", "argval", "target", "line", "is_target",
                 "original_target")

    def __init__(self, op, arg, argval, offset, line=None, index=-1):
        # (_normalize_code sets these same fields itself for most instructions)
        self.op = op
        self.arg = arg
        self.argval = argval
        self.offset = offset
        self.line = line
        self.target = None
        self.original_target = None  # set when structuring redirects a jump
        self.index = index
        self.is_target = False

    def __repr__(self):
        extra = " ->%d" % self.target if self.target is not None else ""
        return "<%d %s %r%s>" % (self.index, self.op, self.argval, extra)


class ExceptionEntry(object):
    """One exception-table row over instruction indexes: [start, end) -> target."""

    __slots__ = ("start", "end", "target", "depth", "lasti")

    def __init__(self, start, end, target, depth, lasti):
        self.start, self.end, self.target, self.depth, self.lasti = start, end, target, depth, lasti

    def __repr__(self):
        return "<exc [%d,%d) -> %d depth=%d%s>" % (
            self.start, self.end, self.target, self.depth, " lasti" if self.lasti else "")


def _jump_target_offset(raw):
    """The absolute byte offset a ``dis`` jump instruction goes to, on every version."""
    target = getattr(raw, "jump_target", None)  # 3.13+
    if target is not None:
        return target
    return raw.argval


_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _is_jump(raw):
    return raw.opcode in _JUMP_OPCODES


# 3.13+: dis says which line every instruction is on (``line_number``); before, only the
# first instruction of a line carries it (``starts_line``).
_LINE_NUMBERS = PY >= (3, 13)
_END_FOR_POPS = PY >= (3, 13)  # END_FOR is followed by a POP_TOP (3.14: POP_ITER)


def _line_of(raw):
    return raw.line_number if _LINE_NUMBERS else raw.starts_line


def raw_lines(raws):
    """The line of each raw instruction (the last one given carries on before 3.13)."""
    return carried_lines(_line_of(raw) for raw in raws)


# shared_cache name: id(code) -> (code, the carried line at each instruction's offset), kept
# by _normalize_code (3.11/3.12) and _normalize_legacy_tuples (3.8-3.10), which read every
# line start anyway: instruction_lines then needs no second pass over ``co_lines()``
# (decode.unit_lines) or the raw instructions for the walker's lines. A list indexed by byte
# offset (None between instructions): a store and a look-up by a small int index cost about
# half what a dict's do, and the dict grew by resizing (every instruction of every code
# object decompiled goes through both)
_CARRIED = "carried lines"


def instruction_lines(code, instrs):
    """The line of each of ``instrs`` (``code`` normalized): that of the raw instruction it
    came from. Before 3.13 only the first instruction of a line says it, and that one may be
    dropped (an ``EXTENDED_ARG`` prefix, a ``NOP``): carried over the normalized list alone,
    the line of the instruction before would stand for it."""
    if _LINE_NUMBERS:
        return [ins.line for ins in instrs]
    cache = shared_cache(_CARRIED)
    entry = cache.get(id(code)) if cache is not None else None
    if entry is not None and entry[0] is code:
        # (every normalized instruction has the offset of a raw one, which the list holds a
        # line for: relayouts and _collapse copy the offset of an instruction they replace)
        carried_at = entry[1]
        return [carried_at[ins.offset] for ins in instrs]
    by_unit = unit_lines(code)
    if by_unit is not None:
        return [by_unit[ins.offset // 2] for ins in instrs]
    raws = raw_instructions(code)
    line_at = dict(zip([raw.offset for raw in raws], raw_lines(raws)))
    return [line_at.get(ins.offset) for ins in instrs]


def _cell_loads(new, code):
    """3.13+: a LOAD_FAST of a cell or free variable loads the cell itself (the compiler turns
    LOAD_CLOSURE into it; reads of the value are LOAD_DEREF): say LOAD_CLOSURE, as before."""
    cells = code.co_cellvars + code.co_freevars
    for ins in new:
        if ins.op == "LOAD_FAST" and ins.argval in cells:
            ins.op = "LOAD_CLOSURE"


def _comprehension_locals_in_cells(out):
    """3.13+: an inlined comprehension's variable whose name is a cell of the function
    (``for base in ...: any(... base ...)``, then ``[f(base) for base in bases]``) is a plain
    local inside the comprehension, read with LOAD_FAST on the cell's slot (saved first with
    LOAD_FAST_AND_CLEAR), which _cell_loads took for a closure load. A closure load builds a
    closure tuple (a run of them, then BUILD_TUPLE) or a class cell (COPY, then the store of
    ``__classcell__``); any other load of a name a comprehension saves reads its value."""
    saved = set(ins.argval for ins in out if ins.op == "LOAD_FAST_AND_CLEAR")
    if not saved:
        return
    n = len(out)
    for k, ins in enumerate(out):
        if ins.op != "LOAD_CLOSURE" or ins.argval not in saved:
            continue
        j = k + 1
        while j < n and out[j].op == "LOAD_CLOSURE":
            j += 1
        if j < n and (out[j].op == "BUILD_TUPLE" or (out[j].op == "COPY" and j == k + 1)):
            continue
        ins.op = "LOAD_FAST"


# Opnames that _normalize_one translates by more than a rename (3.11+: before, every
# instruction goes through the legacy translation first): normalize() renames any other
# itself, without the call.
_TRANSLATED = frozenset(
    set(_DROPPED) | set(_SPLIT) | set("BINARY_" + n for n in _BINARY) |
    set("INPLACE_" + n for n in _BINARY) | set([
        "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_SUPER_ATTR", "CALL_INTRINSIC_1", "KW_NAMES", "CALL",
        "RETURN_CONST", "RETURN_VALUE", "GET_ITER", "POP_ITER", "LOAD_SMALL_INT", "DUP_TOP",
        "DUP_TOP_TWO", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N", "BINARY_OP",
        "LOAD_COMMON_CONSTANT", "CALL_FUNCTION_EX", "COMPARE_OP"]))


def _normalize_one(raw, kw_names_pending, consts, legacy_state=None):
    """Translate one ``dis.Instruction`` to zero or more normalized ``Instr``."""
    name = raw.opname
    off = raw.offset
    line = _line_of(raw)
    if name in _DROPPED:
        return []
    if legacy_state is not None:
        legacy = _normalize_legacy(raw, name, off, line, legacy_state)
        if legacy is not None:
            return legacy
    if name not in _TRANSLATED:  # only renamed (the tests below are all for _TRANSLATED)
        return [Instr(_RENAMED.get(name, name), raw.arg, raw.argval, off, line)]
    if name in _SPLIT:
        first, second = _SPLIT[name]
        a, b = raw.argval
        return [Instr(first, raw.arg, a, off, line), Instr(second, raw.arg, b, off, line)]
    if name in ("LOAD_GLOBAL",) and PY >= (3, 11) and raw.arg is not None and raw.arg & 1:
        glob = Instr("LOAD_GLOBAL", raw.arg, raw.argval, off, line)
        null = Instr("PUSH_NULL", None, None, off, line)
        return [null, glob] if PY < (3, 13) else [glob, null]
    if name == "LOAD_ATTR" and PY >= (3, 12) and raw.arg is not None and raw.arg & 1:
        return [Instr("LOAD_METHOD", raw.arg, raw.argval, off, line)]
    if name == "LOAD_SUPER_ATTR":
        # arg bit 0: method form (pushes a NULL/self slot like LOAD_ATTR's); bit 1: the
        # two-argument super(cls, self)
        return [Instr("LOAD_SUPER_ATTR", raw.arg & 3, raw.argval, off, line)]
    if name == "CALL_INTRINSIC_1":
        # dis names the intrinsic in argrepr (3.12+); the argument number alone differs
        # between versions
        kind = raw.argrepr or raw.argval
        if kind in _DROPPED_INTRINSICS:
            return []
        return [Instr("CALL_INTRINSIC_1", raw.arg, kind, off, line)]
    if name == "KW_NAMES":
        # 3.11's dis leaves argval unresolved for KW_NAMES: read the constant ourselves
        names = consts[raw.arg]
        kw_names_pending.append(names)
        return [Instr("LOAD_CONST", None, names, off, line)]
    if name == "CALL" and kw_names_pending:
        kw_names_pending.pop()
        return [Instr("CALL_KW", raw.arg, raw.arg, off, line)]
    if name == "RETURN_CONST":
        return [Instr("LOAD_CONST", raw.arg, raw.argval, off, line),
                Instr("RETURN_VALUE", None, None, off, line)]
    if name == "RETURN_VALUE" and (3, 12) <= PY < (3, 14):
        # 3.12/3.13 write `return <constant>` as RETURN_CONST: a plain RETURN_VALUE of a
        # constant returns an expression whose return the compiler copied into its branches
        return [Instr("RETURN_VALUE", None, "split", off, line)]
    if name == "GET_ITER" and raw.arg and PY >= (3, 15):
        # 3.15: GET_ITER with an argument starts a `yield from` (3.14's GET_YIELD_FROM_ITER)
        return [Instr("GET_YIELD_FROM_ITER", raw.arg, None, off, line)]
    if name == "POP_ITER" and PY >= (3, 15):
        # the iterator takes two stack slots since 3.15 (see expressions.ITER_SLOTS)
        return [Instr("POP_TOP", None, None, off, line), Instr("POP_TOP", None, None, off, line)]
    if name == "LOAD_SMALL_INT":
        return [Instr("LOAD_CONST", raw.arg, raw.argval, off, line)]
    if name == "DUP_TOP":
        return [Instr("COPY", 1, 1, off, line)]
    if name == "DUP_TOP_TWO":
        return [Instr("COPY", 2, 2, off, line), Instr("COPY", 2, 2, off, line)]
    if name == "ROT_TWO":
        return [Instr("SWAP", 2, 2, off, line)]
    if name == "ROT_THREE":
        return [Instr("ROT", 3, 3, off, line)]
    if name == "ROT_FOUR":
        return [Instr("ROT", 4, 4, off, line)]
    if name == "ROT_N":
        return [Instr("ROT", raw.arg, raw.arg, off, line)]
    if name.startswith("BINARY_") and name[7:] in _BINARY:
        return [Instr("BINARY_OP", None, _BINARY[name[7:]], off, line)]
    if name.startswith("INPLACE_") and name[8:] in _BINARY:
        return [Instr("BINARY_OP", None, _BINARY[name[8:]] + "=", off, line)]
    if name == "BINARY_OP":
        if raw.argrepr == "[]":  # 3.14+: subscript is a binary operator
            return [Instr("BINARY_SUBSCR", None, None, off, line)]
        return [Instr("BINARY_OP", raw.arg, raw.argrepr, off, line)]
    if name == "LOAD_COMMON_CONSTANT":
        return [_common_constant(raw, off, line)]
    if name == "CALL_FUNCTION_EX" and raw.arg is None:
        # 3.14+: no flag; the kwargs slot is always there (a NULL when there are none)
        return [Instr("CALL_FUNCTION_EX", 1, 1, off, line)]
    if name == "COMPARE_OP":
        symbol = raw.argval
        if isinstance(symbol, str) and symbol.startswith("bool("):
            symbol = symbol[5:-1]
        return [Instr("COMPARE_OP", raw.arg, symbol, off, line)]
    op = _RENAMED.get(name, name)
    return [Instr(op, raw.arg, raw.argval, off, line)]


# 3.8-3.10 only.  ``POP_BLOCK``'s work is done by the block-stack pass (legacy_blocks.py);
# ``GEN_START`` only checks what a generator was sent.
_LEGACY_DROPPED = frozenset(["POP_BLOCK", "GEN_START"])


# The opnames _normalize_legacy translates (any other only has its one-instruction states
# forgotten, unless its offset is an inlined exit or a 3.8 assertion load).
_LEGACY_NAMES = _LEGACY_DROPPED | frozenset([
    "ROT_TWO", "DUP_TOP", "ROT_THREE", "COMPARE_OP", "POP_JUMP_IF_FALSE", "CALL_FUNCTION_EX",
    "BEFORE_ASYNC_WITH", "ROT_FOUR", "POP_EXCEPT"])


class _LegacyState(object):
    """What the translation of one 3.8-3.10 instruction needs from the ones before it."""

    def __init__(self, raws):
        retarget, reachable, picked = _legacy_layout_entry(raws)
        # (changed below: copies; 3.10 changes no reachable offset)
        self.retarget = dict(retarget)
        self.reachable = dict(reachable) if PY < (3, 10) else reachable
        if PY < (3, 10):
            # a dead JUMP_FORWARD right after a return, raise, break or continue is the jump
            # over an else branch: it keeps the if/else (elif) shape of the source, and its
            # target is where the else ends (self.reachable: a copy already, changed here)
            last_back = {}
            # (what the passes below read: the JUMP_ABSOLUTEs, and the SETUP_FINALLYs'
            # handlers; among those unthread_with_stacks read)
            absolute = [k for k in picked if raws[k].opname == "JUMP_ABSOLUTE"]
            setups = [raws[k] for k in picked if raws[k].opname == "SETUP_FINALLY"]
            for k in absolute:
                raw = raws[k]
                if raw.offset in self.reachable and raw.argval < raw.offset:
                    last_back[raw.argval] = raw.offset
            handlers = set(raw.argval for raw in setups)
            for k in absolute:
                if k < 1:
                    continue
                raw = raws[k]
                body_exit = _else_break_exit(raws, k, self.reachable, handlers)
                if body_exit is not None:
                    # `else: break` ending a loop body after a try's handlers: the try body's
                    # exit was threaded to the loop exit past it; the dead break and the dead
                    # back edge after it keep the shape
                    self.reachable[raw.offset] = self.reachable[raws[k - 1].offset]
                    self.reachable[raws[k + 1].offset] = self.reachable[raws[k - 1].offset]
                    self.retarget[body_exit] = raw.offset
                    last_back[raws[k + 1].argval] = raws[k + 1].offset
                elif raw.opname == "JUMP_ABSOLUTE" and raw.offset not in self.reachable and \
                        raws[k - 1].offset in self.reachable and \
                        raws[k - 1].opname in ("RERAISE", "RAISE_VARARGS") and \
                        raw.argval < last_back.get(raw.argval, raw.offset) < raw.offset:
                    # the loop's true last back edge after handlers that all re-raise: the
                    # loop (and the try statement in it) ends there
                    self.reachable[raw.offset] = self.reachable[raws[k - 1].offset]
                    last_back[raw.argval] = raw.offset
                elif raw.opname == "JUMP_ABSOLUTE" and raw.offset not in self.reachable and \
                        raws[k - 1].offset in self.reachable and \
                        raws[k - 1].opname == "RERAISE" and raw.argval < raw.offset and \
                        k + 1 < len(raws) and raws[k + 1].opname == "JUMP_FORWARD" and \
                        raws[k + 1].offset not in self.reachable:
                    # a `continue` after a try statement whose handlers all re-raise, ending
                    # an if body with an else (the dead jump over it follows): the try body's
                    # exit was threaded to the loop head past it
                    self.reachable[raw.offset] = self.reachable[raws[k - 1].offset]
            sent_to = set(self.retarget.values())
            # (only dead instructions change below, and the reachable map only grows: those
            # dead now, none at all in most code)
            dead = [k for k, raw in enumerate(raws) if k and raw.offset not in self.reachable] \
                if len(self.reachable) < len(raws) else ()
            for k in dead:
                if raws[k].offset in self.reachable or raws[k - 1].offset not in self.reachable:
                    continue
                if raws[k].offset in sent_to and raws[k].opname == "JUMP_ABSOLUTE" and \
                        raws[k - 1].opname in ("JUMP_ABSOLUTE", "RETURN_VALUE", "RAISE_VARARGS",
                                               "RERAISE"):
                    # a dead loop back edge unthread() sends an if body's end to (every way
                    # through the loop body left it)
                    self.reachable[raws[k].offset] = self.reachable[raws[k - 1].offset]
                    continue
                if (raws[k].opname == "JUMP_FORWARD" and
                        (raws[k - 1].opname in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE") or
                         raws[k - 1].opname == "JUMP_ABSOLUTE")) or \
                        raws[k].offset in self.retarget:  # a jump unthread() sends elsewhere
                    self.reachable[raws[k].offset] = self.reachable[raws[k - 1].offset]
                elif raws[k].opname == "POP_EXCEPT" and k + 1 < len(raws) and \
                        raws[k + 1].opname == "JUMP_FORWARD" and \
                        raws[k - 1].opname in ("RAISE_VARARGS", "RERAISE"):
                    # an except clause's exit after its raise: the jump says where the try ends
                    self.reachable[raws[k].offset] = self.reachable[raws[k - 1].offset]
                    self.reachable[raws[k + 1].offset] = self.reachable[raws[k - 1].offset]
                elif raws[k].opname == "POP_EXCEPT" and k + 1 < len(raws) and \
                        (raws[k + 1].opname == "JUMP_FORWARD" or
                         raws[k + 1].opname == "JUMP_ABSOLUTE" and
                         raws[k + 1].argval < raws[k + 1].offset and
                         not _live_jump_after_handlers(raws, k + 1, self.reachable)) and \
                        k >= 2 and \
                        raws[k - 1].opname == "JUMP_ABSOLUTE" and \
                        _after_blocks_popped(raws, k - 2).opname == "POP_EXCEPT":
                    # after a `continue` or `break` that left the clause (and the blocks of
                    # the try statements around it): only the jump (where the try ends,
                    # back to the loop head when the try ends the loop body, unless 3.8
                    # left that jump live after its END_FINALLY)
                    self.reachable[raws[k + 1].offset] = self.reachable[raws[k - 1].offset]
                elif _named_clause_exit(raws, k):
                    # a named clause's exit after its raise (`except E as e: ... raise`):
                    # only the jump (where the try ends), not the name's cleanup
                    self.reachable[raws[k + 5].offset] = self.reachable[raws[k - 1].offset]
        if PY == (3, 10):
            # (what inlined_exits and _async_for_setups read, found in one pass)
            picked = [k for k, raw in enumerate(raws) if raw.opname in _EXIT_READS]
            setups = [raws[k] for k in picked if raws[k].opname == "SETUP_FINALLY"]
            self.exit_copies, self.exit_copy_rest = inlined_exits(raws, picked)
        else:
            self.exit_copies, self.exit_copy_rest = {}, ()
        self.retarget.update(self.exit_copies)
        self.async_for = _async_for_setups(setups, raws)
        self.assertions = _assertion_loads(raws) if PY < (3, 9) else ()
        self.exception_match = False
        self.rot_four = None
        self.dup_top = None
        self.rot_three = None

    def skips(self, raw):
        """Unreachable code (3.8/3.9 leave dead jumps and returns after ``break`` and
        ``RERAISE``; the recompiled source leaves them again) and ``async for``'s SETUP_FINALLY."""
        return raw.offset not in self.reachable or raw.offset in self.async_for or \
            raw.offset in self.exit_copy_rest


# 3.10: what _LegacyState's passes read (inlined_exits' returns and raises, SETUP_FINALLY)
_EXIT_READS = frozenset(["RETURN_VALUE", "RAISE_VARARGS", "SETUP_FINALLY"])


def _else_break_exit(raws, k, reachable, handlers):
    """3.8/3.9: the offset of a try body's exit jump (``POP_BLOCK; JUMP_ABSOLUTE exit``, right
    before a handler) when ``raws[k]`` is the dead ``break`` of the try's ``else`` after the
    handlers' re-raise, followed by the loop's dead back edge; else None."""
    raw = raws[k]
    # (3.8's END_FINALLY is no jump to the block stack pass: what follows it counts as reached)
    if raw.opname != "JUMP_ABSOLUTE" or raw.argval < raw.offset or \
            raws[k - 1].opname not in ("RERAISE", "END_FINALLY") or \
            raws[k - 1].offset not in reachable or k + 1 >= len(raws) or \
            raw.offset in reachable and raws[k - 1].opname != "END_FINALLY":
        return None
    back = raws[k + 1]
    if back.opname != "JUMP_ABSOLUTE" or back.argval >= raw.offset or \
            back.offset in reachable and raws[k - 1].opname != "END_FINALLY":
        return None
    for j in range(k - 2, 0, -1):
        jump = raws[j]
        if jump.offset <= back.argval:
            return None
        if jump.opname == "JUMP_ABSOLUTE" and jump.argval == raw.argval and \
                jump.offset in reachable and raws[j - 1].opname == "POP_BLOCK" and \
                raws[j + 1].offset in handlers:
            return jump.offset
    return None


def _live_jump_after_handlers(raws, k, reachable):
    """3.8: whether the end of the handler chain after ``raws[k]`` (a dead jump back to a
    loop head after a clause's ``break``) is followed by a live jump to the same head: the
    try statement's end is known without it."""
    for q in range(k + 1, min(k + 24, len(raws) - 1)):
        if raws[q].opname in ("END_FINALLY", "RERAISE"):
            after = raws[q + 1]
            return after.opname == "JUMP_ABSOLUTE" and after.argval == raws[k].argval and \
                after.offset in reachable
    return False


def _named_clause_exit(raws, k):
    """3.9: whether ``raws[k:k + 6]`` is the exit of a named except clause (``POP_BLOCK;
    POP_EXCEPT; e = None; del e; JUMP_FORWARD``) right after a raise."""
    if k + 5 >= len(raws) or raws[k - 1].opname not in ("RAISE_VARARGS", "RERAISE"):
        return False
    names = [raw.opname for raw in raws[k:k + 6]]
    return names[:3] == ["POP_BLOCK", "POP_EXCEPT", "LOAD_CONST"] and \
        raws[k + 2].argval is None and names[3].startswith("STORE_") and \
        names[4].startswith("DELETE_") and names[5] == "JUMP_FORWARD"


def _after_blocks_popped(raws, k):
    """The raw instruction at or before ``k`` that precedes its run of POP_BLOCKs."""
    while k > 0 and raws[k].opname == "POP_BLOCK":
        k -= 1
    return raws[k]


def _normalize_legacy(raw, name, off, line, state):
    """3.8-3.10 forms that have a 3.11 equivalent (None: no legacy translation applies)."""
    if off in state.exit_copies:  # 3.10: an inlined exit block is the jump it replaced
        return [Instr("JUMP", None, None, off, line)]  # (also when it starts at a POP_BLOCK)
    if name in _LEGACY_DROPPED:
        return []
    if off in state.assertions:
        return [Instr("LOAD_ASSERTION_ERROR", None, None, off, line)]
    rot_four, state.rot_four = state.rot_four, None
    dup_top, state.dup_top = state.dup_top, None
    rot_three, state.rot_three = state.rot_three, None
    if name == "ROT_TWO" and rot_three is not None:
        # `a, b, c = x, y, z`: ROT_THREE; ROT_TWO is 3.11's SWAP 3
        rot_three.op, rot_three.arg, rot_three.argval = "SWAP", 3, 3
        return []
    if name == "DUP_TOP":
        state.dup_top = Instr("COPY", 1, 1, off, line)
        return [state.dup_top]
    if name == "ROT_THREE" and dup_top is not None:
        # a chained comparison's link: [a, b] -> [b, a, b], written SWAP 2; COPY 2 on 3.11
        dup_top.op, dup_top.arg, dup_top.argval = "SWAP", 2, 2
        return [Instr("COPY", 2, 2, off, line)]
    if name == "ROT_THREE":
        state.rot_three = Instr("ROT", 3, 3, off, line)
        return [state.rot_three]
    if name == "COMPARE_OP" and raw.argval == "exception match":  # 3.8
        state.exception_match = True
        return []
    if name == "POP_JUMP_IF_FALSE" and state.exception_match:
        state.exception_match = False
        return [Instr("JUMP_IF_NOT_EXC_MATCH", raw.arg, raw.argval, off, line)]
    if name == "CALL_FUNCTION_EX":
        # no NULL below the callable before 3.11
        return [Instr("CALL_FUNCTION_EX_NO_NULL", raw.arg, raw.argval, off, line)]
    if name == "BEFORE_ASYNC_WITH":  # the 3.8-3.10 form: SETUP_ASYNC_WITH follows
        return [Instr("BEFORE_ASYNC_WITH_LEGACY", raw.arg, raw.argval, off, line)]
    if name == "ROT_FOUR":
        state.rot_four = Instr("ROT", 4, 4, off, line)
        return [state.rot_four]
    if name == "POP_EXCEPT" and rot_four is not None:
        # the previous exception fills three slots before 3.11, one value here (as on 3.11):
        # a `return` inside `except` moves its value past it with one swap
        rot_four.op, rot_four.arg, rot_four.argval = "SWAP", 2, 2
    return None


def _assertion_loads(raws):
    """Offsets of 3.8's ``LOAD_GLOBAL AssertionError`` in an ``assert`` (3.9 made it
    LOAD_ASSERTION_ERROR): right after the test's jump, which skips to just past the
    ``RAISE_VARARGS 1`` that follows with no jump between, or where the jump there goes
    (the peephole threads it: an ``assert`` ending a loop body jumps to the loop head)."""
    found = set()
    for k in range(1, len(raws)):
        raw = raws[k]
        if raw.opname != "LOAD_GLOBAL" or raw.argval != "AssertionError" or \
                raws[k - 1].opname not in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"):
            continue
        j = k + 1
        while j < len(raws) and raws[j].opname != "RAISE_VARARGS" and not _is_jump(raws[j]):
            j += 1
        message_call = raws[j - 1].opname == "CALL_FUNCTION" and raws[j - 1].arg == 1
        if j + 1 >= len(raws) or raws[j].opname != "RAISE_VARARGS" or raws[j].arg != 1:
            continue
        after, skip_to = raws[j + 1], raws[k - 1].argval
        threaded = after.opname in ("JUMP_ABSOLUTE", "JUMP_FORWARD") and after.argval == skip_to
        if (skip_to == after.offset or threaded) and (j == k + 1 or message_call):
            found.add(raw.offset)
    return found


def _async_for_setups(candidates, raws):
    """Offsets of the SETUP_FINALLY that opens each 3.8-3.10 ``async for`` step (its handler is
    END_ASYNC_FOR): dropped, so the loop starts at GET_ANEXT as on 3.11. ``candidates``: the
    instructions of ``raws`` to look at (all of them, or the SETUP_FINALLYs already found)."""
    found = set()
    for raw in candidates:
        if raw.opname == "SETUP_FINALLY":
            k = raw_position(raws, raw.argval)  # (the handler, where an instruction is there)
            if k < len(raws) and raws[k].offset == raw.argval and \
                    raws[k].opname == "END_ASYNC_FOR":
                found.add(raw.offset)
    return found


def _common_constant(raw, off, line):
    """3.14+ ``LOAD_COMMON_CONSTANT``: builtins (3.14) and, since 3.15, small constants."""
    table = getattr(dis, "_common_constants", None)
    try:
        value = table[raw.arg]
    except (TypeError, LookupError):
        value = raw.argval
    if value is AssertionError:
        return Instr("LOAD_ASSERTION_ERROR", None, None, off, line)
    if isinstance(value, (type, type(len))):
        return Instr("LOAD_GLOBAL", None, value.__name__, off, line)
    return Instr("LOAD_CONST", None, value, off, line)


def _raw_rewrites(raws):
    """3.14+ multi-instruction forms (and 3.13+'s lone ``TO_BOOL``, _lone_to_bool):
    ({offset: [Instr]} replacing one raw instruction, {offsets dropped}).

    * ``with``: ``COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__;
      CALL 0`` is 3.11's ``BEFORE_WITH`` (``__aexit__``: ``BEFORE_ASYNC_WITH``);
    * ``all(genexpr)``/``any``/``tuple``: the compiler adds a fast path guarded by
      ``COPY 1; LOAD_COMMON_CONSTANT f; IS_OP; POP_JUMP_IF_FALSE generic`` (the builtin is
      still ``f``); the generic call it jumps to is what the source says;
    * class bodies start with ``LOAD_LOCALS; STORE_DEREF __classdict__`` (compiler-made);
    * module and class bodies keep a set of the annotations that ran,
      ``__conditional_annotations__`` (compiler-made: ``x: T`` written back makes it again;
      each ``__conditional_annotations__.add(i)`` is one pseudo-instruction ``ANNOTATED i``).
    """
    replace, skip = {}, set()
    if PY < (3, 13):
        return replace, skip
    n = len(raws)
    for k, raw in enumerate(raws):
        name = raw.opname
        if name == "TO_BOOL":
            if _lone_raw_to_bool(raws, k + 1):  # `not not x` (3.13+, see _lone_to_bool)
                replace[raw.offset] = [Instr("UNARY_NOT", None, None, raw.offset, _line_of(raw)),
                                       Instr("UNARY_NOT", None, None, raw.offset, _line_of(raw))]
        elif PY < (3, 14):
            continue
        elif name == "LOAD_SPECIAL" and 1 <= k and k + 4 < n and raws[k - 1].opname == "COPY" \
                and [r.opname for r in raws[k + 1:k + 5]] == ["SWAP", "SWAP", "LOAD_SPECIAL",
                                                              "CALL"]:
            copy = raws[k - 1]
            op = "BEFORE_ASYNC_WITH" if raw.argrepr == "__aexit__" else "BEFORE_WITH"
            replace[copy.offset] = [Instr(op, None, None, copy.offset, _line_of(copy))]
            skip.update(r.offset for r in raws[k:k + 5])
        elif name == "LOAD_COMMON_CONSTANT" and 1 <= k and k + 2 < n and \
                raws[k - 1].opname == "COPY" and raws[k + 1].opname == "IS_OP" and \
                raws[k + 2].opname == "POP_JUMP_IF_FALSE" and \
                _common_constant(raw, raw.offset, None).op == "LOAD_GLOBAL":
            # (3.15: `case True:` is COPY 1; LOAD_COMMON_CONSTANT True; IS_OP too)
            generic = _jump_target_offset(raws[k + 2])
            skip.update(r.offset for r in raws[k - 1:] if r.offset < generic)
        elif name == "LOAD_LOCALS" and k + 1 < n and raws[k + 1].opname == "STORE_DEREF" and \
                raws[k + 1].argval == "__classdict__":
            skip.update((raw.offset, raws[k + 1].offset))
        elif raw.argval == "__conditional_annotations__" and name.startswith("LOAD_") and \
                k + 3 < n and raws[k + 2].opname == "SET_ADD" and raws[k + 3].opname == "POP_TOP":
            # an annotation's bookkeeping: where annotation number i ran (module level, or
            # inside a block of a class body); annotate.py puts `x: T` back there
            index = raws[k + 1].argval
            replace[raw.offset] = [Instr("ANNOTATED", index, index, raw.offset, _line_of(raw))]
            skip.update(r.offset for r in raws[k + 1:k + 4])
        elif name == "BUILD_SET" and raw.arg == 0 and k + 1 < n and \
                raws[k + 1].argval == "__conditional_annotations__":
            skip.update((raw.offset, raws[k + 1].offset))
    return replace, skip


_SHARED = threading.local()


class shared_disassembly(object):
    """``with shared_disassembly():`` -- within it, :func:`raw_instructions` disassembles each
    code object once: the decompiler and the verification of its output (verify.py) read the
    same original code objects, and ``dis`` is a large share of what both cost."""

    def __enter__(self):
        self.outer = getattr(_SHARED, "cache", None)
        if self.outer is None:
            _SHARED.cache = {}
        return self

    def __exit__(self, *exc):
        if self.outer is None:
            _SHARED.cache = None
        return False


def shared_cache(name):
    """A dict that lives as long as the outermost :class:`shared_disassembly` (None outside
    one): keyed by ``id`` of a code object with the object kept in the value, so that a
    recycled id never matches (verify.py keeps normalized code objects here)."""
    cache = getattr(_SHARED, "cache", None)
    if cache is None:
        return None
    named = cache.get(name)
    if named is None:  # (not setdefault: its new dict would be made on every call)
        named = cache[name] = {}
    return named


def legacy_layout(raws):
    """3.8-3.10: (jumps unthread() sends back to their dead jump (3.8/3.9; {} on 3.10),
    block_stacks() with them) for ``raws``, worked out once per list of raw instructions
    within :class:`shared_disassembly` (the instruction pass, the exception regions and the
    dead-return check all need them). Callers must not change either."""
    return _legacy_layout_entry(raws)[:2]


def _legacy_layout_entry(raws):
    """legacy_layout(), and the legacy_reads() of ``raws`` it read (3.8/3.9; None on 3.10)."""
    cache = shared_cache("legacy layout")
    entry = cache.get(id(raws)) if cache is not None else None
    if entry is None or entry[0] is not raws:
        if PY < (3, 10):
            reads = legacy_reads(raws)
            retarget, stacks = unthread_with_stacks(raws, reads)
            if retarget:  # (jumps sent elsewhere reach other code)
                stacks = block_stacks(raws, retarget)
        else:
            retarget, reads = {}, None
            stacks = block_stacks(raws, retarget)
        entry = (raws, (retarget, stacks, reads))
        if cache is not None:
            cache[id(raws)] = entry
    return entry[1]


def raw_instructions(code):
    """The instructions of ``code`` as ``dis.get_instructions`` describes them (decode.py reads
    them faster), shared within :class:`shared_disassembly`. Callers must not change the
    list."""
    cache = getattr(_SHARED, "cache", None)
    if cache is None:
        return decode(code)
    entry = cache.get(id(code))
    if entry is None or entry[0] is not code:
        entry = cache[id(code)] = (code, decode(code))
    return entry[1]


def normalize(code):
    """Return (instructions, offset_to_index) for ``code``.

    ``offset_to_index`` maps every raw byte offset (also of dropped instructions) to the index of
    the first normalized instruction at or after it, so that jumps to a dropped ``NOP`` land on
    what follows it.
    """
    if _READS_CODE and RAW_TUPLES:
        return _normalize_code(code)
    raws = raw_instructions(code)
    if RAW_TUPLES and PY < (3, 11):
        return _normalize_legacy_tuples(code, raws)
    out = []
    offset_to_index = {}
    raw_jump_targets = []
    pending = []
    kw_names_pending = []
    after_end_for = False
    legacy = _LegacyState(raws) if PY < (3, 11) else None
    legacy_names = _LEGACY_NAMES
    legacy_offsets = set(legacy.exit_copies) | set(legacy.assertions) if legacy else ()
    replace, skip = _raw_rewrites(raws)
    consts = code.co_consts
    cells = code.co_cellvars + code.co_freevars if CLOSURE_IS_LOAD_FAST else ()
    translated, renamed, jump_opcodes = _TRANSLATED, _RENAMED, _JUMP_OPCODES
    for raw in raws:
        offset = raw.offset
        pending.append(offset)
        if legacy is not None and legacy.skips(raw):
            continue
        if offset in skip:
            continue
        if offset in replace:
            new = replace[offset]
            for off in pending:
                offset_to_index[off] = len(out)
            pending = []
            for ins in new:
                ins.index = len(out)
                out.append(ins)
            continue
        name = raw.opname
        if after_end_for and name in ("POP_TOP", "POP_ITER"):
            # 3.13+: END_FOR; POP_TOP (3.14: POP_ITER) at a loop exit is skipped as a whole by
            # an exhausted FOR_ITER, which has already dropped the iterator
            after_end_for = False
            continue
        after_end_for = _END_FOR_POPS and name == "END_FOR"
        index = len(out)
        state = legacy
        if legacy is not None and name not in legacy_names and offset not in legacy_offsets:
            # _normalize_legacy has no translation for it: it only forgets the states it
            # keeps for one instruction (done here, without the call)
            legacy.rot_four = legacy.dup_top = legacy.rot_three = None
            state = None
        if state is None and name not in translated:
            # most instructions are only renamed (any opname not in _TRANSLATED)
            ins = Instr(renamed.get(name, name), raw.arg, raw.argval, offset,
                        raw.line_number if _LINE_NUMBERS else raw.starts_line)
            if cells and ins.op == "LOAD_FAST" and ins.argval in cells:
                ins.op = "LOAD_CLOSURE"  # (see _cell_loads)
            ins.index = index
            out.append(ins)
            new = None
        else:
            new = _normalize_one(raw, kw_names_pending, consts, state)
            if not new:
                continue
            if CLOSURE_IS_LOAD_FAST:
                _cell_loads(new, code)
            for ins in new:
                ins.index = len(out)
                out.append(ins)
        for off in pending:
            offset_to_index[off] = index
        pending = []
        if raw.opcode in jump_opcodes or (legacy is not None and offset in legacy.retarget):
            target = _jump_target_offset(raw)
            if legacy is not None:
                target = legacy.retarget.get(offset, target)
            raw_jump_targets.append((out[-1], target))
    return _finish_normalize(code, out, offset_to_index, pending, raw_jump_targets)


def _finish_normalize(code, out, offset_to_index, pending, raw_jump_targets, firsts=None):
    """Map the offsets still pending (dropped at the end) and the code's end, resolve the jump
    targets to indexes, fold the idioms (_collapse; ``firsts``: the indexes where one may
    start, when the loop noted them)."""
    end = len(out)
    for off in pending:
        offset_to_index[off] = end
    code_len = len(code.co_code)
    offset_to_index[code_len] = end
    for ins, target_offset in raw_jump_targets:
        idx = offset_to_index.get(target_offset)
        ins.target = idx if idx is not None else _index_at(offset_to_index, target_offset, end)
    if CLOSURE_IS_LOAD_FAST and code.co_cellvars:
        _comprehension_locals_in_cells(out)
    if firsts is not None and not firsts:  # (nothing to fold: the jump targets alone)
        for ins, _ in raw_jump_targets:
            if ins.target < end:
                out[ins.target].is_target = True
        return out, offset_to_index
    return _collapse(out, offset_to_index, [ins for ins, _ in raw_jump_targets], firsts)


def _normalize_legacy_tuples(code, raws):
    """normalize() on 3.8-3.10 for decode.py's RawInstruction tuples: the general loop with
    what cannot happen there left out (3.13+'s END_FOR pops and cell loads, 3.14+'s
    rewrites), each tuple unpacked once, and _normalize_legacy called only for the opnames
    and offsets it translates."""
    out = []
    offset_to_index = {}
    raw_jump_targets = []
    kw_names_pending = []
    legacy = _LegacyState(raws)
    # (legacy.skips: the reachable instructions but the async for SETUP_FINALLYs and the
    # rest of 3.10's copied exits, in one map, each of those sets empty in most code)
    kept = legacy.reachable
    if legacy.async_for or legacy.exit_copy_rest:
        dropped_here = set(legacy.async_for) | set(legacy.exit_copy_rest)
        kept = {offset: blocks for offset, blocks in kept.items() if offset not in dropped_here}
    retarget = legacy.retarget
    legacy_names = _LEGACY_NAMES
    legacy_offsets = set(legacy.exit_copies) | set(legacy.assertions)
    consts = code.co_consts
    translated, renamed, jump_opcodes = _TRANSLATED, _RENAMED, _JUMP_OPCODES
    renamed_here, dropped, binary = _LEGACY_RENAMED_HERE, _DROPPED, _LEGACY_BINARY
    make = object.__new__
    append = out.append
    carried = None
    # (the line each instruction is on, for instruction_lines: see _CARRIED)
    carried_at = [None] * len(code.co_code)
    firsts = []  # (where an idiom of _collapse may start, as _normalize_code notes them)
    only_renamed = _LEGACY_ONLY_RENAMED
    armed = False  # (whether _normalize_legacy may have kept a state for the next one)
    # (a SEND loop, LOAD_CONST None; YIELD_FROM, only where a YIELD_FROM is: the byte may be
    # an argument's, which only asks _collapse to look)
    sends = _YIELD_FROM_BYTE in code.co_code
    collapse_starts = _COLLAPSE_STARTS
    for raw in raws:
        name, opcode, arg, argval, _, offset, starts, _, jump_target, _, _ = raw
        if starts is not None:
            carried = starts
        carried_at[offset] = carried
        if offset not in kept:
            offset_to_index[offset] = len(out)  # (see _normalize_code)
            continue  # (legacy.skips)
        index = len(out)
        new_op = only_renamed.get(name)
        if new_op is not None and offset not in legacy_offsets:
            # (as below: no legacy translation, the states kept for one instruction forgotten)
            if armed:
                legacy.rot_four = legacy.dup_top = legacy.rot_three = None
                armed = False
            ins = make(Instr)  # (as _normalize_code: the fields set here, without a call)
            ins.op = new_op
            ins.arg = arg
            ins.argval = argval
            ins.offset = offset
            ins.line = starts
            ins.target = ins.original_target = None
            ins.index = index
            ins.is_target = False
            append(ins)
            if new_op in collapse_starts and (new_op != "LOAD_CONST" or argval is None and sends):
                firsts.append(index)
            offset_to_index[offset] = index
            if opcode in jump_opcodes or offset in retarget:
                target = jump_target if jump_target is not None else argval
                raw_jump_targets.append((ins, retarget.get(offset, target)))
            continue
        state = legacy
        if name not in legacy_names and offset not in legacy_offsets:
            # (see normalize)
            if armed:
                legacy.rot_four = legacy.dup_top = legacy.rot_three = None
                armed = False
            state = None
        if state is None and name in dropped:
            offset_to_index[offset] = index
            continue  # (_normalize_one's [] for it)
        elif state is None and name in binary:
            append(Instr("BINARY_OP", None, binary[name], offset, starts, index))
        else:
            new = _normalize_one(raw, kw_names_pending, consts, state)
            armed = armed or state is not None  # (_normalize_legacy may keep a state)
            if not new:
                offset_to_index[offset] = index
                continue
            for ins in new:
                if ins.op in collapse_starts and (
                        ins.op != "LOAD_CONST" or ins.argval is None and sends):
                    firsts.append(len(out))
                ins.index = len(out)
                append(ins)
        offset_to_index[offset] = index
        if opcode in jump_opcodes or offset in retarget:
            target = jump_target if jump_target is not None else argval
            raw_jump_targets.append((out[-1], retarget.get(offset, target)))
    cache = shared_cache(_CARRIED)
    if cache is not None:
        cache[id(code)] = (code, carried_at)
    return _finish_normalize(code, out, offset_to_index, (), raw_jump_targets, firsts)


_YIELD_FROM_BYTE = bytes([dis.opmap["YIELD_FROM"]]) if "YIELD_FROM" in dis.opmap else None

# Opnames in _TRANSLATED that _normalize_one only renames on this version, whatever their
# argument: LOAD_ATTR before 3.12 (no method bit in it), RETURN_VALUE where no RETURN_CONST
# exists, GET_ITER before 3.15 (no argument).
_RENAMED_HERE = frozenset((["LOAD_ATTR"] if PY < (3, 12) else []) +
                          (["RETURN_VALUE"] if not (3, 12) <= PY < (3, 14) else []) +
                          (["GET_ITER"] if PY < (3, 15) else []))

# Before 3.11: the opnames of _TRANSLATED that _normalize_one only renames there (those of
# _RENAMED_HERE, and LOAD_GLOBAL, whose NULL bit is 3.11's), and the operator opcodes with the
# BINARY_OP symbol it gives them: _normalize_legacy_tuples makes these itself (each LOAD_GLOBAL,
# LOAD_ATTR and RETURN_VALUE went through the call: two thirds of its calls there)
_LEGACY_RENAMED_HERE = _RENAMED_HERE | frozenset(["LOAD_GLOBAL"])
_LEGACY_BINARY = dict([("BINARY_" + name, symbol) for name, symbol in _BINARY.items()] +
                      [("INPLACE_" + name, symbol + "=") for name, symbol in _BINARY.items()])
# Before 3.11: opname -> its normalized name, for those _normalize_legacy_tuples only renames
# (neither translated by _normalize_legacy nor by _normalize_one; any opcode's name)
_LEGACY_ONLY_RENAMED = dict(
    (name, _RENAMED.get(name, name)) for name in set(dis.opname) | set(dis.opmap)
    if name not in _LEGACY_NAMES and (name not in _TRANSLATED or name in _LEGACY_RENAMED_HERE))

# 3.11-3.13, where decode.py reads co_code itself and no 3.14+ multi-instruction rewrite exists:
# normalize() reads co_code straight into Instr (_normalize_code)
_READS_CODE = RAW_TUPLES and (3, 11) <= PY <= (3, 13)


# Instructions of _TRANSLATED that _normalize_code translates itself, as _normalize_one
# would (tests/test_normalize_paths.py compares the two): the commonest ones on 3.12/3.13
# (LOAD_ATTR with its method bit, returns, operators, comparisons, LOAD_GLOBAL without a
# NULL), which would otherwise each get a record and a call (a sixth of normalizing there).
# Not the 3.14+ forms (_READS_CODE ends at 3.13).
_INLINE_TRANSLATED = frozenset(name for name in (
    ["LOAD_ATTR", "LOAD_GLOBAL", "BINARY_OP", "COMPARE_OP"] +
    (["RETURN_CONST", "RETURN_VALUE"] if (3, 12) <= PY < (3, 14) else []))
    if name not in _RENAMED_HERE)


def _normalize_code(code):
    """normalize() on 3.11-3.13: ``co_code`` read straight into the normalized instructions,
    the same instructions and offset map as the general loop over :func:`decode`'s records,
    without a record per instruction (this runs for every code object decompiled). Each
    argument is resolved as decode.py resolves it, with its tables; the instructions that
    _normalize_one translates get their record (``argrepr`` where _normalize_one reads it:
    operators and intrinsics; elsewhere computed by the record on demand).

    Most instructions are only renamed: what to do with each opcode is read from
    _opcode_tables' lists, and the tests by name are made for the others alone. The indexes
    where an idiom of _collapse can start are noted on the way (_collapse then looks at no
    other instruction)."""
    data = code.co_code
    consts, names = code.co_consts, code.co_names
    local_name = code._varname_from_oparg
    (by_opcode, opnames, extended,
     int_overflow, plain, local, name_kind, const_kind, jrel, jback, jabs, load_const, call,
     end_for, send, global_kind, attr_kind, nb_ops) = _OPCODE_TABLES
    only_load_const = PY == (3, 11)  # (as decode: 3.11's dis resolves LOAD_CONST only)
    jump_after_caches = PY >= (3, 12)
    carry_lines = _LINE_NUMBERS
    cells = code.co_cellvars + code.co_freevars if CLOSURE_IS_LOAD_FAST else ()
    # (no SEND, no SEND loop: a LOAD_CONST None starts no idiom then; the byte may be an
    # argument's, which only asks _collapse to look)
    sends = send in data
    make = object.__new__
    out = []
    append = out.append
    firsts = []  # (the indexes where an idiom _collapse folds may start)
    # (a dropped instruction's offset maps to the next kept one's index: the length of ``out``
    # when it is dropped, as nothing is made before that one)
    offset_to_index = {}
    raw_jump_targets = []
    kw_names_pending = []
    extended_arg = 0
    line = carried = None
    offset = 0
    end = len(data)
    # (before 3.13: the line each instruction is on, for instruction_lines: see _CARRIED)
    carried_cache = shared_cache(_CARRIED) if not carry_lines else None
    carried_at = [None] * end if carried_cache is not None else None
    # the line starts of decode._line_starts, read here from the ranges of co_lines() as the
    # instructions reach them: most ranges hold one instruction, and a dict of the starts
    # would be a second pass, and a look-up per instruction
    ranges = iter(code.co_lines())
    range_end = 0  # (the end of the range last read)
    last_line = False if carry_lines else None  # (the last start's line, as _line_starts)
    start_at = -1  # (the offset of the last line start an instruction was at)
    while offset < end:
        op = data[offset]
        takes_arg, size, kind, action, new_op, starts, jumps = by_opcode[op]
        if takes_arg:
            arg = data[offset + 1] | extended_arg
            if op == extended:
                extended_arg = arg << 8
                if extended_arg >= int_overflow:
                    extended_arg -= 2 * int_overflow
            else:
                extended_arg = 0
        else:
            arg = None
            extended_arg = 0
        # 3.13+: every instruction's line (the last start's); before, the line that starts at
        # the instruction (None where none does), and the last start's kept for _CARRIED
        if offset >= range_end:
            if not carry_lines:
                line = None
            for range_start, range_end, range_line in ranges:
                # (a start at an offset no instruction is at, inside caches, is not any
                # instruction's: as a look-up of decode._line_starts at instruction offsets)
                if carry_lines:
                    if range_line is not last_line:  # (3.13's _line_starts: None is a line)
                        last_line = range_line
                        if range_start == offset:
                            line = range_line
                            start_at = offset
                elif range_line is not None and range_line != last_line:
                    last_line = range_line
                    if range_start == offset:
                        line = carried = range_line
                if range_end > offset:
                    break
            else:
                range_end = end  # (no range left)
        elif not carry_lines:
            line = None
        if action == 1:  # _DROPPED_OP (what _normalize_one drops)
            offset_to_index[offset] = len(out)
            offset += size
            continue
        if carried_at is not None:  # (no instruction has a dropped one's offset)
            carried_at[offset] = carried
        argval = arg
        target = None
        if arg is None:
            kind = plain
        else:
            if kind == plain:
                pass
            elif kind == local:
                argval = local_name(arg)
            elif kind == name_kind:
                argval = names[arg]
            elif kind == const_kind:
                argval = _UNKNOWN if only_load_const and op != load_const else consts[arg]
            elif kind == jrel or kind == jback:
                # (relative to the end of the instruction's caches on 3.12+)
                target = offset + (size if jump_after_caches else 2) + \
                    (arg if kind == jrel else -arg) * 2
                argval = target
            elif kind == jabs:
                target = argval = arg * 2
            elif kind == global_kind or kind == attr_kind:
                argval = names[arg >> 1]  # (as other_argval: the low bit is a flag)
            else:
                argval = _decoding.other_argval(kind, arg, names, local_name)
        index = len(out)
        if action == 0 and not (kw_names_pending and op == call):  # _PLAIN_OP
            if cells and new_op == "LOAD_FAST" and argval in cells:
                new_op = "LOAD_CLOSURE"  # (see _cell_loads)
            elif starts and (starts == 1 or argval is None and sends):
                firsts.append(index)
            # (Instr's fields set here rather than by a call of the class: the call is about a
            # twentieth of normalizing, on 3.11-3.13 alike; keep the two in step)
            last = make(Instr)
            last.op = new_op
            last.arg = arg
            last.argval = argval
            last.offset = offset
            last.line = line
            last.target = last.original_target = None
            last.index = index
            last.is_target = False
            append(last)
        elif action >= _GLOBAL_OP:
            # (what _normalize_one makes of these common ones, without a record: see
            # _INLINE_TRANSLATED)
            if action == _GLOBAL_OP:
                if arg & 1:  # (the NULL it pushes made explicit, on its side of the global)
                    if NULL_FIRST:
                        append(Instr("PUSH_NULL", None, None, offset, line, index))
                        last = Instr("LOAD_GLOBAL", arg, argval, offset, line, index + 1)
                    else:
                        append(Instr("LOAD_GLOBAL", arg, argval, offset, line, index))
                        last = Instr("PUSH_NULL", None, None, offset, line, index + 1)
                else:
                    last = Instr("LOAD_GLOBAL", arg, argval, offset, line, index)
            elif action == _ATTR_OP:
                last = Instr("LOAD_METHOD" if arg & 1 else "LOAD_ATTR", arg, argval, offset,
                             line, index)
            elif action == _BINARY_OP:
                last = Instr("BINARY_OP", arg, nb_ops[arg], offset, line, index)
            elif action == _COMPARE_OP:
                if isinstance(argval, str) and argval.startswith("bool("):
                    argval = argval[5:-1]
                last = Instr("COMPARE_OP", arg, argval, offset, line, index)
            elif action == _RETURN_CONST_OP:
                if argval is None and sends:  # (LOAD_CONST None may start a SEND loop)
                    firsts.append(index)
                append(Instr("LOAD_CONST", arg, argval, offset, line, index))
                last = Instr("RETURN_VALUE", None, None, offset, line, index + 1)
            else:  # _RETURN_OP
                last = Instr("RETURN_VALUE", None, "split", offset, line, index)
            append(last)
        else:
            name = opnames[op]
            if name == "TO_BOOL" and _lone_to_bool(data, offset + size, opnames):
                # `not not x` (see _lone_to_bool)
                append(Instr("UNARY_NOT", None, None, offset, line, index))
                last = Instr("UNARY_NOT", None, None, offset, line, index + 1)
                append(last)
            elif name == "TO_BOOL" or (
                    _END_FOR_POPS and (name == "POP_TOP" or name == "POP_ITER") and
                    offset >= 2 and data[offset - 2] == end_for):
                # dropped (TO_BOOL), or END_FOR's POP_TOP / POP_ITER (see normalize; END_FOR
                # has neither argument nor caches: the code unit before is the instruction)
                offset_to_index[offset] = index
                offset += size
                continue
            elif name not in _TRANSLATED or name in _RENAMED_HERE or \
                    (name == "CALL" and not kw_names_pending):
                # (3.13's POP_TOP, an instruction between KW_NAMES and its CALL: none of them
                # starts an idiom)
                new_op = _RENAMED.get(name, name)
                if cells and new_op == "LOAD_FAST" and argval in cells:
                    new_op = "LOAD_CLOSURE"  # (see _cell_loads)
                last = Instr(new_op, arg, argval, offset, line, index)
                append(last)
            else:
                raw = _decoding.record(code, name, op, arg, argval, kind, offset,
                                       start_at == offset if carry_lines else line,
                                       line if carry_lines else None, target)
                new = _normalize_one(raw, kw_names_pending, consts)
                if not new:
                    offset_to_index[offset] = index
                    offset += size
                    continue
                if cells:
                    _cell_loads(new, code)
                for ins in new:
                    if ins.op in _COLLAPSE_STARTS and (
                            ins.op != "LOAD_CONST" or ins.argval is None and sends):
                        firsts.append(len(out))
                    ins.index = len(out)
                    append(ins)
                last = new[-1]
        offset_to_index[offset] = index
        if jumps:
            raw_jump_targets.append((last, target if target is not None else argval))
        offset += size
    if carried_at is not None:
        carried_cache[id(code)] = (code, carried_at)
    return _finish_normalize(code, out, offset_to_index, (), raw_jump_targets, firsts)


def _lone_to_bool(data, following, opnames):
    """Whether the ``TO_BOOL`` (3.13+) before the instruction at byte offset ``following``
    of ``data`` stands alone: what is left of ``not not x`` (the compiler folds the two
    ``UNARY_NOT`` away). Elsewhere it feeds a conditional jump or ``UNARY_NOT`` and is
    dropped; alone, it reads back as the two ``not`` (two ``UNARY_NOT``)."""
    while following < len(data) and opnames[data[following]] == "EXTENDED_ARG":
        following += 2
    return following < len(data) and opnames[data[following]] not in _TO_BOOL_USERS


_TO_BOOL_USERS = frozenset(["POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "UNARY_NOT"])


def _lone_raw_to_bool(raws, following):
    """_lone_to_bool over raw instruction records (3.14+: normalize's general loop)."""
    while following < len(raws) and raws[following].opname in ("EXTENDED_ARG", "CACHE"):
        following += 1
    return following < len(raws) and raws[following].opname not in _TO_BOOL_USERS


# The instruction before a SEND loop says what the loop implements.
_SEND_KINDS = {"GET_AWAITABLE": "await", "GET_YIELD_FROM_ITER": "yield from",
               "GET_ANEXT": "await", "BEFORE_ASYNC_WITH": "await"}


def _send_loop_length(out, k):
    """Length of the ``yield from`` / ``await`` loop starting at ``out[k]`` (0 if none).

    3.11: LOAD_CONST None; SEND exit; YIELD_VALUE; JUMP send  (RESUME dropped)
    3.12+: LOAD_CONST None; SEND exit; YIELD_VALUE; JUMP send; END_SEND
    """
    if k + 1 < len(out) and out[k + 1].op == "YIELD_FROM" and out[k].op == "LOAD_CONST" and \
            out[k].argval is None:
        return 2  # 3.8-3.10: LOAD_CONST None; YIELD_FROM
    if k + 3 >= len(out) or out[k].op != "LOAD_CONST" or out[k].argval is not None:
        return 0
    send, yld, jump = out[k + 1], out[k + 2], out[k + 3]
    if send.op != "SEND" or yld.op != "YIELD_VALUE" or jump.op != "JUMP" or jump.target != k + 1:
        return 0
    if k + 4 < len(out) and out[k + 4].op == "END_SEND":
        return 5
    if k + 5 < len(out) and out[k + 4].op == "CLEANUP_THROW" and out[k + 5].op == "END_SEND":
        return 6  # 3.12+ async with: the throw path of __aexit__() falls into END_SEND
    return 4


_INVERTED = {"POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE", "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
             "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
             "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}


def _expanded_backward_jump(out, k, targeted):
    """Whether ``out[k]`` and ``out[k + 1]`` are a 3.12+ expansion of one backward conditional
    jump: 3.12 dropped ``POP_JUMP_BACKWARD_IF_*`` and emits the inverted condition jumping over
    a ``JUMP`` back, with the conditional's own location (so the ``JUMP`` starts no line).
    Folding it back gives the 3.11 shape that ``while`` loops are recognised by."""
    if PY < (3, 12) or k + 1 >= len(out):
        return False
    cond, jump = out[k], out[k + 1]
    return (cond.op in _INVERTED and cond.target == k + 2 and jump.op == "JUMP" and
            jump.target is not None and jump.target <= k and k + 1 not in targeted and
            (jump.line is None or jump.line == cond.line) and
            # a for loop's last back edge stays a JUMP: the loop's end is found by it
            (out[jump.target].op != "FOR_ITER" or any(
                ins.op == "JUMP" and ins.target == jump.target for ins in out[k + 2:])))


def _expanded_keep_jump(out, k, targeted):
    """The 3.11 jump that ``out[k:k + 3]`` expands, or None: 3.12 dropped
    ``JUMP_IF_FALSE_OR_POP``/``JUMP_IF_TRUE_OR_POP`` (value-context ``and``/``or``) for
    ``COPY 1; POP_JUMP_IF_FALSE|TRUE target; POP_TOP``."""
    if PY < (3, 12) or k + 2 >= len(out):
        return None
    copy, cond, pop = out[k], out[k + 1], out[k + 2]
    if copy.op != "COPY" or copy.argval != 1 or pop.op != "POP_TOP" or \
            cond.op not in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") or \
            cond.target is None or cond.target <= k + 2 or \
            k + 1 in targeted or k + 2 in targeted:
        return None
    return "JUMP_IF_FALSE_OR_POP" if cond.op == "POP_JUMP_IF_FALSE" else "JUMP_IF_TRUE_OR_POP"


def _fold_popped_tests(out, jumps, firsts):
    """3.14+ threads a value test into the ``POP_TOP`` of the next one: ``COPY 1;
    POP_JUMP_IF_X t; POP_TOP`` where ``t`` is a ``POP_TOP`` keeps nothing on either path, so it
    is ``POP_JUMP_IF_X t + 1`` (as 3.11 writes it).  Retargets the jumps; returns the indexes
    of the COPY and POP_TOP to drop. ``jumps``: every instruction of ``out`` with a target;
    ``firsts``: the indexes where an idiom may start (every COPY among them), ascending."""
    drop = set()
    if PY < (3, 12):
        return drop
    targeted = None
    last = len(out) - 2
    for k in firsts:
        if k >= last:
            break
        copy, cond, pop = out[k], out[k + 1], out[k + 2]
        if copy.op == "COPY" and copy.argval == 1 and cond.op in POP_JUMPS and \
                pop.op == "POP_TOP" and cond.target is not None and cond.target > k + 2 and \
                cond.target < len(out) and out[cond.target].op == "POP_TOP":
            if targeted is None:
                targeted = {ins.target for ins in jumps}
            if k + 2 not in targeted and not drop & {k, k + 1, k + 2}:
                cond.target += 1
                drop.update((k, k + 2))
    return drop


# Where an idiom _collapse folds can start (a SEND loop: at LOAD_CONST None, 3.15 a PUSH_NULL
# before it; 3.12+'s expanded jumps: at COPY and at an inverted conditional jump).
_COLLAPSE_STARTS = frozenset(["COPY", "RETURN_GENERATOR", "LOAD_CONST"] +
                             (["PUSH_NULL"] if PY >= (3, 15) else []) +
                             (list(_INVERTED) if PY >= (3, 12) else []) +
                             (["POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"] if NONE_JUMPS else []))
_CHAIN_COMPARES = frozenset(["COMPARE_OP", "IS_OP", "CONTAINS_OP"])

# Per opcode, what _normalize_code does with it (3.11-3.13): _PLAIN_OP, only renamed (the
# normalized name; the commonest case, made without any test by name), _DROPPED_OP (no
# instruction, the offset pending), one of _INLINE_TRANSLATED's (from _GLOBAL_OP on), or
# _OTHER_OP (each test of the general path in turn)
(_PLAIN_OP, _DROPPED_OP, _OTHER_OP, _GLOBAL_OP, _ATTR_OP, _BINARY_OP, _COMPARE_OP,
 _RETURN_CONST_OP, _RETURN_OP) = range(9)
_INLINE_ACTIONS = {"LOAD_GLOBAL": _GLOBAL_OP, "LOAD_ATTR": _ATTR_OP, "BINARY_OP": _BINARY_OP,
                   "COMPARE_OP": _COMPARE_OP, "RETURN_CONST": _RETURN_CONST_OP,
                   "RETURN_VALUE": _RETURN_OP}


def _opcode_tables():
    """(what to do with each opcode, its normalized name when only renamed, whether that name
    can start an idiom _collapse folds, whether it jumps), as lists indexed by opcode, for
    _normalize_code: one list index per instruction instead of the tests by opname."""
    actions, names, starts, jumps = [], [], [], []
    for op in range(256):
        name = _decoding.OPNAME[op]
        renamed = _RENAMED.get(name, name)
        if name in _DROPPED and name != "TO_BOOL":  # (TO_BOOL: see _lone_to_bool)
            action = _DROPPED_OP
        elif _END_FOR_POPS and name in ("POP_TOP", "POP_ITER"):
            action = _OTHER_OP  # (after END_FOR: see normalize)
        elif name not in _TRANSLATED or name in _RENAMED_HERE or name == "CALL":
            action = _PLAIN_OP  # (CALL: when no KW_NAMES is pending)
        elif name in _INLINE_TRANSLATED:
            action = _INLINE_ACTIONS[name]
        else:
            action = _OTHER_OP
        actions.append(action)
        names.append(renamed if action == _PLAIN_OP else None)
        # (LOAD_CONST: only None, only in code with a SEND, starts a SEND loop)
        starts.append(0 if renamed not in _COLLAPSE_STARTS else 2 if renamed == "LOAD_CONST"
                      else 1)
        jumps.append(op in _JUMP_OPCODES)
    return actions, names, starts, jumps


# what _normalize_code reads, in one tuple (set up once per code object: most are small); by
# opcode, in one tuple each: whether it takes an argument, its size in bytes with its caches
# (the step to the next instruction), its argument's kind, then _opcode_tables' facts
_OPCODE_TABLES = ((list(zip(_decoding.HAS_ARG, [2 + 2 * caches for caches in _decoding.CACHES],
                            _decoding.KIND,
                            *_opcode_tables())),
                   _decoding.OPNAME, _decoding.EXTENDED_ARG, _decoding.INT_OVERFLOW,
                   _decoding.PLAIN, _decoding.LOCAL, _decoding.NAME, _decoding.CONST,
                   _decoding.JREL, _decoding.JBACK, _decoding.JABS, _decoding.LOAD_CONST,
                   dis.opmap["CALL"], dis.opmap.get("END_FOR"), bytes([dis.opmap["SEND"]]),
                   _decoding.GLOBAL, _decoding.ATTR, _decoding.NB_OPS)
                  if _READS_CODE else None)


def _none_test_ending_chain(out, k):
    """The test that ``out[k]``, a POP_JUMP_IF_[NOT_]NONE right after a link of a chained
    comparison (``SWAP 2; COPY 2; <compare>; POP_JUMP_IF_FALSE cleanup``), stands for: 3.11+
    fold the last comparison of ``a is b is None`` into the jump, so the chain has no final
    compare. Returns ``LOAD_CONST None; IS_OP 0|1; POP_JUMP_IF_FALSE|TRUE`` (the shape of
    every other chain: a jump to where the chain goes on when false tests ``is None`` when
    taken on not None; a jump elsewhere, to an ``or``'s body, is taken when true), or None."""
    if k < 4:
        return None
    swap, copy, compare, link = out[k - 4:k]
    if swap.op != "SWAP" or swap.argval != 2 or copy.op != "COPY" or copy.argval != 2 or \
            compare.op not in _CHAIN_COMPARES or link.op != "POP_JUMP_IF_FALSE" or \
            link.target is None or link.target <= k:
        return None
    ins = out[k]
    # where the chain goes on when it is false: after the cleanup's POP_TOP (or its jump)
    cleanup = link.target
    failed = None
    if cleanup < len(out) and out[cleanup].op == "POP_TOP":
        failed = cleanup + 1
        if failed < len(out) and out[failed].op == "JUMP":
            failed = out[failed].target
    nxt = out[k + 1] if k + 1 < len(out) else None
    taken_if_true = nxt is not None and nxt.op == "JUMP" and nxt.target == failed and \
        ins.target != failed  # (`if a is b is None or c`: the jump goes to the body)
    negated = 1 if (ins.op == "POP_JUMP_IF_NONE") != taken_if_true else 0
    jump = Instr("POP_JUMP_IF_TRUE" if taken_if_true else "POP_JUMP_IF_FALSE", ins.arg,
                 ins.argval, ins.offset, ins.line)
    jump.target = ins.target
    return [Instr("LOAD_CONST", None, None, ins.offset, ins.line),
            Instr("IS_OP", negated, negated, ins.offset, ins.line), jump]


def _collapse(out, offset_to_index, jumps, firsts=None):
    """Fold multi-instruction idioms into one pseudo-instruction each.

    ``SEND_LOOP`` stands for the whole await / yield-from loop; ``RETURN_GENERATOR; POP_TOP``
    at the start of a generator is dropped; 3.12+'s expanded backward conditional jumps are
    folded back into one.

    Only the instructions an idiom can start at are looked at (in order; the runs between them
    are copied as they are): most code has none that folds, and then ``out`` is kept as is.
    ``jumps``: every instruction of ``out`` with a target; ``firsts``: the indexes where an
    idiom may start, ascending (found here when not given).
    """
    new = []
    remap = []  # old index -> new index (and n -> the new end)
    n = len(out)
    if firsts is None:
        starts = _COLLAPSE_STARTS
        # (a SEND loop starts with LOAD_CONST None: no other constant starts an idiom)
        firsts = [k for k, ins in enumerate(out) if ins.op in starts and (
            ins.argval is None or ins.op != "LOAD_CONST")]
    drop = _fold_popped_tests(out, jumps, firsts)
    expanded = False
    targeted = {ins.target for ins in jumps} if PY >= (3, 12) \
        else None  # (only 3.12+'s expanded jumps ask)
    if drop:
        firsts = sorted(set(firsts) | drop)
    # what folds, in order: (first index, how many instructions, what stands for them, the
    # new index of each relative to the first), without a copy of ``out`` while none does
    folds = []
    k = 0  # (the end of the last fold)
    for first in firsts:
        if first < k:  # inside an idiom folded already
            continue
        ins = out[first]
        op = ins.op
        if first in drop:
            folds.append((first, 1, (), (0,)))
            k = first + 1
            continue
        keep = _expanded_keep_jump(out, first, targeted) if op == "COPY" else None
        if keep is not None:
            jump = Instr(keep, None, out[first + 1].argval, ins.offset, ins.line)
            jump.target = out[first + 1].target
            folds.append((first, 3, (jump,), (0, 1, 1)))
            k = first + 3
            continue
        expansion = None
        if op in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE") and not (
                PY >= (3, 12) and _expanded_backward_jump(out, first, targeted)):
            expansion = _none_test_ending_chain(out, first)
        if expansion is not None:
            folds.append((first, 1, expansion, (0,)))
            expanded = True
            k = first + 1
            continue
        if op in _INVERTED and _expanded_backward_jump(out, first, targeted):
            ins.op = _INVERTED[ins.op]
            ins.target = out[first + 1].target
            folds.append((first, 2, (ins,), (0, 1)))
            k = first + 2
            continue
        if op == "RETURN_GENERATOR" and first + 1 < n and out[first + 1].op == "POP_TOP":
            folds.append((first, 2, (), (0, 0)))
            k = first + 2
            continue
        # (a SEND loop starts with LOAD_CONST None: no call for any other constant)
        length = _send_loop_length(out, first) if op == "LOAD_CONST" and ins.argval is None \
            else 0
        if not length and op == "PUSH_NULL" and PY >= (3, 15):
            length = _send_loop_length(out, first + 1)  # 3.15: PUSH_NULL; LOAD_CONST None; SEND
            length = length and length + 1
        if length:
            prev = out[first - 1].op if first else None
            kind = _SEND_KINDS.get(prev, "yield from")
            loop = Instr("SEND_LOOP", None, kind, ins.offset, ins.line)
            folds.append((first, length, (loop,), (0,) * length))
            k = first + length
    if not folds:
        new = out  # nothing folded, nothing dropped
    else:
        k = 0
        for first, length, replacement, where in folds:
            if first > k:  # (the run before it, as it is)
                remap.extend(range(len(new), len(new) + first - k))
                new.extend(out[k:first])
            base = len(new)
            remap.extend([base + at for at in where])
            new.extend(replacement)
            k = first + length
        if k < n:
            remap.extend(range(len(new), len(new) + n - k))
            new.extend(out[k:])
    if len(new) != n or expanded:
        remap.append(len(new))
        for index, ins in enumerate(new):
            ins.index = index
            if ins.target is not None:
                ins.target = remap[ins.target]
        for off in offset_to_index:
            offset_to_index[off] = remap[offset_to_index[off]]
    count = len(new)
    for ins in jumps if new is out else new:  # (unchanged: the jumps are all there is to read)
        target = ins.target
        if target is not None and target < count:
            new[target].is_target = True
    return new, offset_to_index


def _index_at(offset_to_index, offset, end):
    idx = offset_to_index.get(offset)
    if idx is None:
        # A target inside an instruction's cache entries cannot happen for valid code; map to
        # the next known offset so malformed input still decodes deterministically.
        later = [o for o in offset_to_index if o >= offset]
        idx = offset_to_index[min(later)] if later else end
    return idx


def exception_entries(code, offset_to_index):
    """The exception table of ``code`` as :class:`ExceptionEntry` over instruction indexes
    (before 3.11: the regions of the SETUP_* blocks, see legacy_blocks.py)."""
    if PY < (3, 11):
        return _legacy_entries(code, offset_to_index)
    if not code.co_exceptiontable:
        return []  # (most code objects: no table to decode)
    rows = exception_table(code)
    if not rows:
        return []
    end_index = offset_to_index[len(code.co_code)]
    index_of = offset_to_index.get
    entries = []
    for start_off, end_off, target_off, depth, lasti in rows:
        start, end, target = index_of(start_off), index_of(end_off), index_of(target_off)
        if start is None or end is None or target is None:  # (see _index_at)
            start, end, target = [_index_at(offset_to_index, offset, end_index)
                                  for offset in (start_off, end_off, target_off)]
        entries.append(ExceptionEntry(start, end, target, depth, lasti))
    return entries


def _legacy_entries(code, offset_to_index):
    """One entry per run of instructions whose innermost SETUP_* block is the same."""
    raws = raw_instructions(code)
    stacks = legacy_layout(raws)[1]
    if not any(stacks.values()):  # (no block anywhere: most code)
        return []
    end_index = offset_to_index[len(code.co_code)]
    handler_of = {}
    for k, raw in enumerate(raws):
        blocks = stacks.get(raw.offset)
        if not blocks:
            continue
        first = offset_to_index.get(raw.offset, end_index)
        nxt = raws[k + 1].offset if k + 1 < len(raws) else len(code.co_code)
        last = offset_to_index.get(nxt, end_index)
        if first < last:
            handler = (_index_at(offset_to_index, blocks[-1], end_index), len(blocks))
            for index in range(first, last):
                handler_of[index] = handler
    entries = []
    for index in sorted(handler_of):
        target, depth = handler_of[index]
        if entries and entries[-1].end == index and entries[-1].target == target:
            entries[-1].end = index + 1
        else:
            entries.append(ExceptionEntry(index, index + 1, target, depth, False))
    return entries
