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
except the module import a plain attribute call (``mod.f()``) notes, or ``super().x``: the
look ahead notes the first itself, as the trial's call would (the walk gets there: every
handler before it is one that pushes a node and cannot fail, a load of a compiler-made
name, which fails, answering False); a call of the second shape answers False.

Inside an ``except ... as name`` clause the walk skips the clause's ``name = None; del
name`` (``StatementWalker._skip``) and in a ``finally`` body that the compiler copied it
skips the copies: the look ahead answers False where the walk would skip, and reads on
elsewhere, where the walk does what it does outside them.
"""

import ast

from .comprehension_bodies import op_LOAD_FAST
from .instructions import NULL_FIRST
from .registry import OPCODES
from .statements import StatementWalker

# what a slot of the modelled stack holds, as far as a later handler cares: a name (with
# its id), NULL, an attribute read off a name without the method form (with the name), a
# value a statement of its own is made of when popped (a call, a yield), an in-place
# operation's marker (`x += 1` before its store), anything else
_NAME, _NULL, _PLAIN_ATTR, _STATEMENT_VALUE, _AUG, _OTHER = (
    "name:", "null", "plain-attr:", "statement-value", "aug", "other")
_SUPER = _NAME + "super"

# what the look ahead does at each audited opname (see cannot_start)
_LOAD, _CONST, _PUSH_NULL, _POPS, _ATTR, _METHOD, _COUNTED, _CALL, _CALLABLE_CALL, \
    _YIELD, _BINARY, _FORMAT, _STATEMENT, _STORE, _POP_TOP = range(15)
_ACTIONS = dict(
    [(op, _LOAD) for op in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF",
                            "LOAD_ASSERTION_ERROR")] +
    [("LOAD_CONST", _CONST), ("PUSH_NULL", _PUSH_NULL), ("LOAD_ATTR", _ATTR),
     ("LOAD_METHOD", _METHOD), ("BINARY_OP", _BINARY), ("FORMAT_VALUE", _FORMAT),
     ("YIELD_VALUE", _YIELD), ("POP_TOP", _POP_TOP)] +
    # pop a fixed number, push one node
    [(op, _POPS) for op in ("BINARY_SUBSCR", "BINARY_SLICE", "COMPARE_OP", "IS_OP",
                            "CONTAINS_OP", "UNARY_NOT", "UNARY_NEGATIVE", "UNARY_INVERT",
                            "UNARY_POSITIVE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC")] +
    # pop as many as the argument says (times, plus), push one node
    [(op, _COUNTED) for op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_STRING", "BUILD_SLICE",
                               "BUILD_MAP", "BUILD_CONST_KEY_MAP")] +
    [(op, _CALL) for op in ("CALL_FUNCTION", "CALL_FUNCTION_KW")] +
    # calls that pop the callable and the slot beside it (expressions._callable)
    [(op, _CALLABLE_CALL) for op in ("CALL", "CALL_METHOD", "CALL_KW")] +
    # always a statement (or a failure), whatever they pop
    [(op, _STATEMENT) for op in ("RETURN_VALUE", "RAISE_VARARGS")] +
    # a statement when what they pop was made in the look ahead
    [(op, _STORE) for op in ("STORE_FAST", "STORE_NAME", "STORE_ATTR", "STORE_SUBSCR",
                             "DELETE_SUBSCR")])
_FIXED = {"BINARY_SUBSCR": 2, "BINARY_SLICE": 3, "COMPARE_OP": 2, "IS_OP": 2,
          "CONTAINS_OP": 2, "UNARY_NOT": 1, "UNARY_NEGATIVE": 1, "UNARY_INVERT": 1,
          "UNARY_POSITIVE": 1, "FORMAT_SIMPLE": 1, "FORMAT_WITH_SPEC": 2,
          "STORE_FAST": 1, "STORE_NAME": 1, "STORE_ATTR": 2, "STORE_SUBSCR": 3,
          "DELETE_SUBSCR": 2}
# opname -> (values popped per unit of the argument, values popped besides)
_COUNTS = {"BUILD_TUPLE": (1, 0), "BUILD_LIST": (1, 0), "BUILD_STRING": (1, 0),
           "BUILD_SLICE": (1, 0), "BUILD_MAP": (2, 0), "BUILD_CONST_KEY_MAP": (1, 1),
           "CALL_FUNCTION": (1, 1), "CALL_FUNCTION_KW": (1, 2), "CALL": (1, 2),
           "CALL_METHOD": (1, 2), "CALL_KW": (1, 3)}

_MOST = 64  # instructions looked at before giving up (a statement is rarely longer)

_tables = []  # [{opname: action}, for the opnames whose registered handler was read here]


def _audited():
    """The actions of the opnames whose registered handler is the one this module was written
    against (a family that takes one over takes it out of the look ahead)."""
    if not _tables:
        expected = {"LOAD_FAST": op_LOAD_FAST}
        for op in _ACTIONS:
            if op not in expected:
                expected[op] = getattr(StatementWalker, "op_" + op, None)
        _tables.append(dict((op, _ACTIONS[op]) for op, handler in expected.items()
                            if handler is not None and OPCODES.get(op) is handler))
    return _tables[0]


def cannot_start(walker, k, stack, limit):
    """True when no chunk can start at ``k`` (read up to ``limit``, on ``stack``): the trial
    parse of ``branches.read_chunk`` would fail. False: it must run."""
    ctx = walker.ctx
    if limit > walker.n:
        return False  # (past the end the walk would not stop)
    handler_name, copies = ctx.handler_name, ctx.finally_copies
    skipping = handler_name or copies  # (asked once, not at every instruction)
    for value in reversed(stack):
        # the walk numbers the values it finds unnumbered on top of the stack (_made): a
        # trial does that too, and a look ahead must leave things as the trial would
        if isinstance(value, ast.expr):
            if getattr(value, "_made", None) is None:
                return False
            break
    actions = _tables[0] if _tables else _audited()
    instrs = walker.instrs
    detached, cleanups = walker.exits.ends, walker.cleanup_starts
    model = []  # the values made since k, as slot kinds
    notes = []  # the module names the trial's calls would note (imported_names)
    j = k
    last = min(limit, k + _MOST)
    while j < last:
        ins = instrs[j]
        action = actions.get(ins.op)
        if action is None or j in detached or j in cleanups:
            return False  # (conditional jumps are never audited: the trial decides)
        if skipping and _skipped(walker, j, handler_name, copies):
            return False
        if action == _LOAD:
            loaded = ins.argval
            if loaded.__class__ is not str:
                loaded = "AssertionError" if ins.op == "LOAD_ASSERTION_ERROR" else str(loaded)
            if loaded[:1] == ".":
                return False  # (a compiler-made name: the walk fails there, or marks .0)
            model.append(_NAME + loaded)
        elif action == _CONST:
            if hasattr(ins.argval, "co_code"):
                return False
            model.append(_OTHER)
        elif action == _PUSH_NULL:
            model.append(_NULL)
        elif action == _STATEMENT:
            return _noted(walker, notes)
        elif action == _STORE:
            needed = _FIXED[ins.op]
            return len(model) >= needed and _NULL not in model[-needed:] and \
                _noted(walker, notes)
        elif action == _POP_TOP:
            return bool(model) and model[-1] == _STATEMENT_VALUE and _noted(walker, notes)
        else:
            if action == _POPS or action == _ATTR or action == _METHOD or action == _BINARY \
                    or action == _YIELD:
                popped = _FIXED.get(ins.op, 2 if action == _BINARY else 1)
            elif action == _FORMAT:
                popped = 2 if (ins.arg or 0) & 0x04 else 1
            else:
                argval = ins.argval
                if not isinstance(argval, int):
                    return False
                per, besides = _COUNTS[ins.op]
                popped = per * argval + besides
            if popped > len(model):
                return False  # (a value the trial was handed: the look ahead stops)
            taken = model[len(model) - popped:]
            del model[len(model) - popped:]
            if action == _ATTR:
                model.append(_PLAIN_ATTR + taken[0][len(_NAME):] if taken[0].startswith(_NAME)
                             else _OTHER)
            elif action == _METHOD:
                model += [_NULL, _OTHER]
            elif action == _CALLABLE_CALL:
                if taken[0] == _SUPER or taken[1] == _SUPER:
                    return False  # (the call may note `super`: the trial's walk must run)
                # (expressions._callable: the callable beside NULL, a plain attribute of a
                # name, notes the name as a module's)
                func, beside = (taken[1], taken[0]) if NULL_FIRST else (taken[0], taken[1])
                if beside == _NULL and func.startswith(_PLAIN_ATTR):
                    notes.append(func[len(_PLAIN_ATTR):])
                model.append(_STATEMENT_VALUE)
            elif action == _CALL or action == _YIELD:
                model.append(_STATEMENT_VALUE)
            elif action == _BINARY and str(ins.argval).endswith("="):
                model.append(_AUG)  # (a marker, not a node: popped, it makes no statement)
            else:
                model.append(_OTHER)
        j += 1
    # the range ends before any conditional jump: the walk ends without one
    return j == limit and _noted(walker, notes)


def _noted(walker, notes):
    """True, once the module names the trial's calls would have noted are (see above)."""
    if notes:
        walker.imported_names.update(notes)
    return True


def _skipped(walker, j, handler_name, copies):
    """Whether the walk, in an except clause's or finally copy's context, skips code at
    ``j`` (``StatementWalker._skip``, asked in the same order)."""
    for start, length, handler in copies:
        if length and handler not in [e.target for e in walker.chain(j)] and \
                walker._same_code(j, start, length):
            return True
    if handler_name and j + 2 < walker.n:
        return walker._unbinds_handler_name(j)
    return False
