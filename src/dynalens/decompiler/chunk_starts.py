"""Where no condition chunk can start: a cheap look ahead before a trial parse.

After each test of a condition, ``branches.conditional`` asks ``read_chunk`` whether one more
test starts at the instruction after the jump. Most of the time that instruction begins the
``if`` body (``x = f(a)``, ``return y``, ``self.log(z)``), and the trial walks the body's
first statement as an expression until the statement it makes ends it: a fork, a walk that
builds nodes, an exception, a restore, for every ``if``.

A chunk is found only when that walk, in chunk mode, dispatches a conditional jump
(``branches.conditional`` raises ``ChunkEnd`` there and nowhere else). :func:`cannot_start`
reads the instructions from there without walking them and says True only when the walk
cannot get that far: every instruction up to a statement's end is one whose handler (the
one registered, checked against the handler read for this) pushes expression nodes and
returns nothing, so the walk dispatches each in turn, and the one that ends the range
either makes a statement (chunk mode refuses it: ``NotAChunk``) or, at the range's end,
ends the walk with no jump met. The values those handlers pop are followed with a model of
the stack made during the look ahead, so a store or a popped call takes a value made there,
never one the trial was handed (a saved local, an iterator, a ``with`` exit). Anything else
(a conditional jump, an opcode outside the tables, a skipped block, a context that skips
copies, a value the walk would number that is not numbered yet) answers False, and the
trial runs as before: the look ahead changes how much work is done, never what is read.

What a rejected trial leaves behind on purpose (facts the bytecode states whatever the
parse, ``statements.WalkState``) would be left by the walk of the same statement for real,
except the module import a plain attribute call (``mod.f()``) or ``super().x`` notes: a
call of those shapes answers False.
"""

import ast

from .comprehension_bodies import op_LOAD_FAST
from .registry import OPCODES
from .statements import StatementWalker

_CONDITIONAL = frozenset(["POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
                          "POP_JUMP_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"])

# what a slot of the modelled stack holds (the handlers' nodes, as far as a later handler
# cares): a name (with its id), NULL, an attribute read off a name without the method form,
# a call's result, anything else
_NAME, _NULL, _PLAIN_ATTR, _CALL, _AUG, _OTHER = "name", "null", "plain-attr", "call", "aug", \
    "other"

# opname -> how many values its handler pops (None: from the argument, see _pops)
_LOADS = ("LOAD_FAST", "LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF",
          "LOAD_ASSERTION_ERROR", "PUSH_NULL")
_FIXED = {"LOAD_ATTR": 1, "LOAD_METHOD": 1, "BINARY_OP": 2, "BINARY_SUBSCR": 2,
          "BINARY_SLICE": 3}
_COUNTED = ("BUILD_TUPLE", "BUILD_LIST", "BUILD_STRING", "BUILD_SLICE")
_CALLS = ("CALL", "CALL_METHOD", "CALL_KW", "CALL_FUNCTION", "CALL_FUNCTION_KW")
# the handlers that always make a statement (or fail), whatever they pop
_ALWAYS_STATEMENTS = ("RETURN_VALUE", "RAISE_VARARGS")
# opname -> how many values, made in the look ahead, its handler must pop to make a statement
_STORES = {"STORE_FAST": 1, "STORE_NAME": 1, "STORE_ATTR": 2, "STORE_SUBSCR": 3}

_MOST = 64  # instructions looked at before giving up (a statement is rarely longer)

_tables = []  # [set of opnames whose registered handler is the one read for this module]


def _audited():
    """The opnames of the tables above whose registered handler is the one this module was
    written against (a family that takes one over takes it out of the look ahead)."""
    if not _tables:
        expected = {"LOAD_FAST": op_LOAD_FAST}
        for op in _LOADS + tuple(_FIXED) + _COUNTED + _CALLS + _ALWAYS_STATEMENTS + \
                tuple(_STORES) + ("FORMAT_VALUE", "POP_TOP"):
            if op not in expected:
                expected[op] = getattr(StatementWalker, "op_" + op, None)
        _tables.append(frozenset(op for op, handler in expected.items()
                                 if handler is not None and OPCODES.get(op) is handler))
    return _tables[0]


def cannot_start(walker, k, stack, limit):
    """True when no chunk can start at ``k`` (read up to ``limit``, on ``stack``): the trial
    parse of ``branches.read_chunk`` would fail. False: it must run."""
    ctx = walker.ctx
    if ctx.finally_copies or ctx.handler_name or limit > walker.n:
        return False  # (the walk skips copies there; past the end it would not stop)
    for value in reversed(stack):
        # the walk numbers the values it finds unnumbered on top of the stack (_made): a
        # trial does that too, and a look ahead must leave things as the trial would
        if isinstance(value, ast.expr):
            if getattr(value, "_made", None) is None:
                return False
            break
    audited = _audited()
    instrs = walker.instrs
    detached, cleanups = walker.exits.ends, walker.cleanup_starts
    model = []  # the values made since k, as slot kinds
    j = k
    while j < limit:
        if j - k >= _MOST or j in detached or j in cleanups:
            return False
        ins = instrs[j]
        op = ins.op
        if op not in audited:
            return False  # (conditional jumps are never audited: the trial decides)
        if op in _ALWAYS_STATEMENTS:
            return True
        needed = _STORES.get(op)
        if needed is not None:
            return len(model) >= needed and _NULL not in model[-needed:]
        if op == "POP_TOP":
            return bool(model) and model[-1] == _CALL
        if op in _LOADS:
            if op == "LOAD_CONST" and hasattr(ins.argval, "co_code"):
                return False
            model.append(_NULL if op == "PUSH_NULL" else _NAME + ":" + str(ins.argval)
                         if op != "LOAD_CONST" else _OTHER)
        else:
            popped = _pops(op, ins)
            if popped is None or popped > len(model):
                return False  # (a value the trial was handed: the look ahead stops)
            taken = model[len(model) - popped:]
            del model[len(model) - popped:]
            if op in ("CALL", "CALL_METHOD", "CALL_KW") and any(
                    slot == _PLAIN_ATTR or slot == _NAME + ":super" for slot in taken[:2]):
                return False  # (the call notes a module name: the trial's walk must run)
            if op == "LOAD_ATTR":
                model.append(_PLAIN_ATTR if taken[0].startswith(_NAME) else _OTHER)
            elif op == "LOAD_METHOD":
                model += [_NULL, _OTHER]
            elif op in _CALLS:
                model.append(_CALL)
            elif op == "BINARY_OP" and str(ins.argval).endswith("="):
                model.append(_AUG)  # (`x += 1` before its store: a marker, not a node)
            else:
                model.append(_OTHER)
        j += 1
    return True  # the range ends before any conditional jump: the walk ends without one


def _pops(op, ins):
    """How many values the handler of ``op`` pops (None: not known here)."""
    if op in _FIXED:
        return _FIXED[op]
    if op == "FORMAT_VALUE":
        return 2 if (ins.arg or 0) & 0x04 else 1
    argval = ins.argval
    if not isinstance(argval, int):
        return None
    if op in _COUNTED or op == "CALL_FUNCTION":
        return argval + (op == "CALL_FUNCTION")
    if op in ("CALL", "CALL_METHOD"):
        return argval + 2
    if op == "CALL_KW":
        return argval + 3
    if op == "CALL_FUNCTION_KW":
        return argval + 2
    return None
