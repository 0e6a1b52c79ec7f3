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
never one the trial was handed (a saved local, an iterator, a ``with`` exit), save an
expression that a name store, first in the look ahead, makes a statement of
(``_stores_handed_expression``: ``x = y = value`` read for a match's guard at its second
store). Anything else (a conditional jump, an opcode outside the tables, a skipped block, a
context that skips copies, a value the walk would number that is not numbered yet) answers
False, and the trial runs as before: the look ahead changes how much work is done, never
what is read.

What a rejected trial leaves behind on purpose (facts the bytecode states whatever the
parse, ``statements.WalkState``) would be left by the walk of the same statement for real,
except the module import a plain attribute call (``mod.f()``) notes, or ``super().x``: the
look ahead notes the first itself, as the trial's call would (the walk gets there: every
handler before it is one that pushes a node and cannot fail, a load of a compiler-made
name, which fails, answering False); a call of the second shape answers False. So too the
``global``/``nonlocal`` declarations that ``STORE_GLOBAL``/``STORE_DEREF`` note.

Some shapes cost a trial far more than their one statement, so the look ahead follows them
too: a function made there (``def g(): ...``, ``x = lambda: y``, a closure's cells loaded
for it, a comprehension called on its iterator up to 3.11: the trial decompiles the nested
code object before the statement is refused, and the walk for real decompiles it again),
an unpacking (``a, b = f()``: its stores fill the targets one by one, the last makes the
statement; an unpacking whose values go to temporaries, generated code, makes its
statement at once), a ``for`` over an iterator just made (``branches.op_FOR_ITER`` refuses
it in a trial) and a ``with`` statement (its handler walks the whole body before it makes
the statement). Facts that the nested code or the with body notes (imports) are noted
again by the walk for real of the same statement.

An unconditional jump (``branches.op_JUMP``, asked as in the trial's range) ends the look
ahead too: a ``continue`` or a ``break`` that starts an if body is a statement, and a jump the
walk cannot follow (over the else of ``x if c else y``, met as a chunk) fails the trial; a
jump the walk passes, and the loop's own back edge, are left to the trial.

Two statements that follow an ``if`` often enough to be read too: ``import m`` (IMPORT_NAME
pushes the module, its store makes the statement) and, in a comprehension's body, the element
added to the comprehension's result (``[x for x in a if x]``: LIST_APPEND, SET_ADD or MAP_ADD
of values made in the look ahead onto the result handed to the trial, which
``comprehension_bodies._element`` makes an ``AppendStmt``; an add to anything else, a display
built in the body, is the core's and left to the trial).

Inside an ``except ... as name`` clause the walk skips the clause's ``name = None; del
name`` (``StatementWalker._skip``) and in a ``finally`` body that the compiler copied it
skips the copies: the look ahead answers False where the walk would skip, and reads on
elsewhere, where the walk does what it does outside them.
"""

import ast

from .comprehension_bodies import op_LIST_APPEND, op_LOAD_FAST, op_MAP_ADD, op_SET_ADD
from .expressions import ITER_SLOTS
from .instructions import NULL_FIRST
from .registry import OPCODES
from .statements import StatementWalker

# what a slot of the modelled stack holds, as far as a later handler cares: a name (its id,
# a str), an attribute read off a name without the method form (the name, in a 1-tuple),
# or one of these kinds: NULL, a value a statement of its own is made of when popped (a
# call, a yield), an in-place operation's marker (`x += 1` before its store), a code object
# constant, the function MAKE_FUNCTION makes of it, one target of an unpacking (a store
# fills it), the iterator GET_ITER makes, anything else
_NULL, _STATEMENT_VALUE, _AUG, _CODE, _FUNCTION, _SLOT, _ITER, _OTHER = range(8)

# what the look ahead does at each audited opname (see cannot_start)
# (the actions that pop values and push one node come first: one test reaches them all)
_POPS, _ATTR, _METHOD, _COUNTED, _CALL, _CALLABLE_CALL, _YIELD, _BINARY, _FORMAT, \
    _LOAD, _CONST, _PUSH_NULL, _STATEMENT, _STORE, _POP_TOP, _CELL, _MAKE_FUNCTION, \
    _FUNCTION_ATTRIBUTE, _UNPACK, _GET_ITER, _FOR_ITER, _JUMP, _ELEMENT, _COPY, \
    _SWAP = range(25)
_LAST_PUSHING = _FORMAT
_ACTIONS = dict(
    [(op, _LOAD) for op in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF",
                            "LOAD_ASSERTION_ERROR")] +
    [("LOAD_CONST", _CONST), ("PUSH_NULL", _PUSH_NULL), ("LOAD_ATTR", _ATTR),
     ("LOAD_METHOD", _METHOD), ("BINARY_OP", _BINARY), ("FORMAT_VALUE", _FORMAT),
     ("YIELD_VALUE", _YIELD), ("POP_TOP", _POP_TOP), ("LOAD_CLOSURE", _CELL),
     ("MAKE_FUNCTION", _MAKE_FUNCTION), ("SET_FUNCTION_ATTRIBUTE", _FUNCTION_ATTRIBUTE),
     ("UNPACK_SEQUENCE", _UNPACK), ("UNPACK_EX", _UNPACK), ("GET_ITER", _GET_ITER),
     ("FOR_ITER", _FOR_ITER), ("JUMP", _JUMP), ("LIST_APPEND", _ELEMENT),
     ("SET_ADD", _ELEMENT), ("MAP_ADD", _ELEMENT), ("COPY", _COPY), ("SWAP", _SWAP)] +
    # pop a fixed number, push one node
    [(op, _POPS) for op in ("BINARY_SUBSCR", "BINARY_SLICE", "COMPARE_OP", "IS_OP",
                            "CONTAINS_OP", "UNARY_NOT", "UNARY_NEGATIVE", "UNARY_INVERT",
                            "UNARY_POSITIVE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC",
                            "IMPORT_NAME")] +
    # pop as many as the argument says (times, plus), push one node
    [(op, _COUNTED) for op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_STRING", "BUILD_SLICE",
                               "BUILD_MAP", "BUILD_CONST_KEY_MAP")] +
    [(op, _CALL) for op in ("CALL_FUNCTION", "CALL_FUNCTION_KW")] +
    # calls that pop the callable and the slot beside it (expressions._callable)
    [(op, _CALLABLE_CALL) for op in ("CALL", "CALL_METHOD", "CALL_KW")] +
    # always a statement (or a failure), whatever they pop
    [(op, _STATEMENT) for op in ("RETURN_VALUE", "RAISE_VARARGS", "BEFORE_WITH")] +
    # a statement when what they pop was made in the look ahead
    [(op, _STORE) for op in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF",
                             "STORE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR")])
_FIXED = {"BINARY_SUBSCR": 2, "BINARY_SLICE": 3, "COMPARE_OP": 2, "IS_OP": 2,
          "CONTAINS_OP": 2, "UNARY_NOT": 1, "UNARY_NEGATIVE": 1, "UNARY_INVERT": 1,
          "UNARY_POSITIVE": 1, "FORMAT_SIMPLE": 1, "FORMAT_WITH_SPEC": 2, "IMPORT_NAME": 2,
          "STORE_FAST": 1, "STORE_NAME": 1, "STORE_GLOBAL": 1, "STORE_DEREF": 1,
          "STORE_ATTR": 2, "STORE_SUBSCR": 3, "DELETE_SUBSCR": 2}
# names whose store of a function makes no statement in a module or class body (3.14+,
# annotate.assign_annotate_function)
_ANNOTATE_NAMES = ("__annotate__", "__annotate_func__")
_ITER_SLOTS = [_ITER] + [_OTHER] * (ITER_SLOTS - 1)  # (what GET_ITER pushes)
# opname -> (values popped per unit of the argument, values popped besides)
_COUNTS = {"BUILD_TUPLE": (1, 0), "BUILD_LIST": (1, 0), "BUILD_STRING": (1, 0),
           "BUILD_SLICE": (1, 0), "BUILD_MAP": (2, 0), "BUILD_CONST_KEY_MAP": (1, 1),
           "CALL_FUNCTION": (1, 1), "CALL_FUNCTION_KW": (1, 2), "CALL": (1, 2),
           "CALL_METHOD": (1, 2), "CALL_KW": (1, 3)}

_MOST = 64  # instructions looked at before giving up (a statement is rarely longer)

_tables = []  # [{opname: action}, for the opnames whose registered handler was read here]
# opname -> (module, function) of the handlers read here that modules importing this one
# (through branches) define: known by name, not imported (no import cycle)
_REGISTERED_ELSEWHERE = {"STORE_DEREF": ("definitions", "op_STORE_DEREF"),
                         "BEFORE_WITH": ("handlers", "op_BEFORE_WITH"),
                         "FOR_ITER": ("inline_comprehensions", "op_FOR_ITER"),
                         "JUMP": ("branches", "op_JUMP"),
                         "COPY": ("patterns", "op_COPY"),
                         "SWAP": ("branches", "op_SWAP")}


def _audited():
    """The actions of the opnames whose registered handler is the one this module was written
    against (a family that takes one over takes it out of the look ahead)."""
    if not _tables:
        expected = {"LOAD_FAST": op_LOAD_FAST, "LIST_APPEND": op_LIST_APPEND,
                    "SET_ADD": op_SET_ADD, "MAP_ADD": op_MAP_ADD}
        for op in _ACTIONS:
            if op not in expected and op not in _REGISTERED_ELSEWHERE:
                expected[op] = getattr(StatementWalker, "op_" + op, None)
        table = dict((op, _ACTIONS[op]) for op, handler in expected.items()
                     if handler is not None and OPCODES.get(op) is handler)
        for op, (module, function) in _REGISTERED_ELSEWHERE.items():
            handler = OPCODES.get(op)
            if getattr(handler, "__module__", None) == __package__ + "." + module and \
                    getattr(handler, "__qualname__", None) == function:
                table[op] = _ACTIONS[op]
        _tables.append(table)
    return _tables[0]


def cannot_start(walker, k, stack, limit):
    """True when no chunk can start at ``k`` (read up to ``limit``, on ``stack``): the trial
    parse of ``branches.read_chunk`` would fail. False: it must run."""
    ctx = walker.ctx
    if limit > walker.n:
        return False  # (past the end the walk would not stop)
    handler_name, copies = ctx.handler_name, ctx.finally_copies
    skipping = handler_name or copies  # (asked once, not at every instruction)
    for value in reversed(stack) if stack else ():
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
    declared = []  # the global/nonlocal declarations the trial's stores would note
    slots = 0  # targets of an unpacking not stored yet
    j = k
    last = min(limit, k + _MOST)
    while j < last:
        ins = instrs[j]
        action = actions.get(ins.op)
        if action is None or j in detached or j in cleanups:
            return False  # (conditional jumps are never audited: the trial decides)
        if skipping and _skipped(walker, j, handler_name, copies):
            return False
        if action <= _LAST_PUSHING:
            if action == _COUNTED or action == _CALL or action == _CALLABLE_CALL:
                argval = ins.argval
                if not isinstance(argval, int):
                    return False
                per, besides = _COUNTS[ins.op]
                popped = per * argval + besides
            elif action == _FORMAT:
                popped = 2 if (ins.arg or 0) & 0x04 else 1
            else:
                popped = _FIXED.get(ins.op, 2 if action == _BINARY else 1)
            if popped > len(model):
                return False  # (a value the trial was handed: the look ahead stops)
            taken = model[len(model) - popped:]
            if slots and _SLOT in taken:
                return False  # (an unpacking's target used as a value: generated code)
            del model[len(model) - popped:]
            if action == _ATTR:
                model.append((taken[0],) if taken[0].__class__ is str else _OTHER)
            elif action == _CALLABLE_CALL:
                if taken[0] == "super" or taken[1] == "super":
                    return False  # (the call may note `super`: the trial's walk must run)
                # (expressions._callable: the callable beside NULL, a plain attribute of a
                # name, notes the name as a module's)
                func, beside = (taken[1], taken[0]) if NULL_FIRST else (taken[0], taken[1])
                if beside == _NULL and func.__class__ is tuple:
                    notes.append(func[0])
                model.append(_STATEMENT_VALUE)
            elif action == _METHOD:
                model += [_NULL, _OTHER]
            elif action == _CALL or action == _YIELD:
                model.append(_STATEMENT_VALUE)
            elif action == _BINARY and str(ins.argval).endswith("="):
                model.append(_AUG)  # (a marker, not a node: popped, it makes no statement)
            else:
                model.append(_OTHER)
        elif action == _LOAD:
            loaded = ins.argval
            if loaded.__class__ is not str:
                loaded = "AssertionError" if ins.op == "LOAD_ASSERTION_ERROR" else str(loaded)
            if loaded[:1] == ".":
                return False  # (a compiler-made name: the walk fails there, or marks .0)
            model.append(loaded)
        elif action == _CONST:
            model.append(_CODE if hasattr(ins.argval, "co_code") else _OTHER)
        elif action == _CELL:
            model.append(_OTHER)
        elif action == _PUSH_NULL:
            model.append(_NULL)
        elif action == _STATEMENT:
            return _noted(walker, notes, declared)
        elif action == _STORE:
            needed = _FIXED[ins.op]
            if not model and ins.op in _NAME_STORES and _stores_handed_expression(ins, stack):
                model.append(_OTHER)  # (the handed value: a plain store of it, below)
            if len(model) < needed or _NULL in model[-needed:]:
                return False
            taken = model[len(model) - needed:]
            del model[len(model) - needed:]
            if ins.op == "STORE_GLOBAL":
                declared.append((walker.globals_declared, ins.argval))
            elif ins.op == "STORE_DEREF" and ins.argval in walker.code.co_freevars:
                declared.append((walker.nonlocals_declared, ins.argval))
            if taken[0] == _FUNCTION and ins.argval in _ANNOTATE_NAMES:
                return False  # (3.14+: may be no statement)
            if slots:
                # the stores after an unpacking fill its targets: the last one makes the
                # statement (the value stored, first popped; never a target's own part)
                if _SLOT in taken[1:] or ins.op == "DELETE_SUBSCR" or taken[0] != _SLOT:
                    return False
                slots -= 1
                if slots:
                    j += 1
                    continue
            return _noted(walker, notes, declared)
        elif action == _POP_TOP:
            return bool(model) and model[-1] == _STATEMENT_VALUE and \
                _noted(walker, notes, declared)
        elif action == _MAKE_FUNCTION:
            # (expressions.op_MAKE_FUNCTION pops the code object, up to 3.10 from under its
            # qualified name, then one value per flag set)
            code_at = 1 if model and model[-1] == _CODE else 2
            popped = code_at + bin((ins.arg or 0) & 0x0F).count("1")
            if popped > len(model) or model[-code_at] != _CODE or \
                    (slots and _SLOT in model[len(model) - popped:]):
                return False
            del model[len(model) - popped:]
            model.append(_FUNCTION)
        elif action == _FUNCTION_ATTRIBUTE:
            if len(model) < 2 or model[-1] != _FUNCTION or model[-2] == _SLOT:
                return False
            del model[-2:]
            model.append(_FUNCTION)
        elif action == _UNPACK:
            if not model or model[-1] == _SLOT or slots:
                return False  # (a nested unpacking, or one more while one is filled)
            del model[-1]
            if not walker._unpack_is_stored(ins):
                return _noted(walker, notes, declared)  # (the values go to temporaries)
            slots = ins.argval if ins.op == "UNPACK_SEQUENCE" else \
                (ins.arg & 0xFF) + 1 + (ins.arg >> 8)
            if not isinstance(slots, int) or slots < 1:
                return False
            model += [_SLOT] * slots
        elif action == _GET_ITER:
            if not model or model[-1] == _ITER or model[-1] == _SLOT:
                return False
            del model[-1]
            model += _ITER_SLOTS
        elif action == _JUMP:
            # branches.op_JUMP in the trial's range [k, limit): a `continue` or a `break` is
            # a statement, and a jump to where the walk cannot go fails the trial; a jump it
            # passes (to the next instruction or a cleanup, past the range, to a cold
            # clause's join) and the loop's own back edge (no statement) are left to it
            target = ins.target
            loop = ctx.loop
            if loop is not None and target in loop.continue_targets:
                if j == loop.last or j + 1 == loop.last:
                    return False  # (the back edge, or the copy of it before it)
            elif loop is None or target != loop.break_target:
                if target == j + 1 or target == cleanups.get(j + 1) or target >= limit or \
                        target in walker.cold_joins:
                    return False
            return _noted(walker, notes, declared)
        elif action == _COPY:
            # `a.b += v`: COPY 1 of a value made here, whose attribute is read at once (the
            # trial's patterns.op_COPY, in chunk mode the core's, pushes the same node; the
            # attribute read takes it, so no handler sees the one node twice)
            if ins.argval != 1 or j + 1 >= last or instrs[j + 1].op != "LOAD_ATTR" or \
                    not model or not _plain(model[-1]):
                return False
            model.append(model[-1])
        elif action == _SWAP:
            # ... then SWAP 2 right before the attribute's (or an item's) store: branches.op_SWAP
            # hands that to the core's swap (no chained comparison: no COPY follows; no tuple
            # assignment: _swap_is_unpack refuses a store of an attribute or an item)
            if ins.argval != 2 or j + 1 >= last or len(model) < 2 or \
                    instrs[j + 1].op not in ("STORE_ATTR", "STORE_SUBSCR"):
                return False
            model[-1], model[-2] = model[-2], model[-1]
        elif action == _ELEMENT:
            return _appends_element(walker, ins, stack, model) and \
                _noted(walker, notes, declared)
        elif action == _FOR_ITER:
            # a for statement over the iterator just made: branches.op_FOR_ITER refuses it
            # in a trial, or fails (inline_comprehensions.op_FOR_ITER hands it there: its
            # comprehension starts with a SWAP, never audited)
            return j > k and instrs[j - 1].op == "GET_ITER" and \
                _noted(walker, notes, declared)
        j += 1
    # the range ends before any conditional jump: the walk ends without one
    return j == limit and _noted(walker, notes, declared)


_NAME_STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


def _stores_handed_expression(ins, stack):
    """Whether the name store ``ins``, first in the look ahead, stores an expression handed
    to the trial in a statement of its own (``x = y = value`` read for a match's guard at
    its second store): StatementWalker._store (after STORE_FAST's group, a statement too)
    passes an expression, no marker, to the store chain, whose steps before the core's
    decline it (a saved local, an ``__annotate__`` function: markers), and the core's
    makes an Assign; unless the value is also the one below it, where the store may be a
    walrus, or an ``__annotate__`` name (3.14+), both left to the trial."""
    if not stack or ins.argval in _ANNOTATE_NAMES:
        return False
    value = stack[-1]
    return isinstance(value, ast.expr) and not (len(stack) > 1 and stack[-2] is value)


# the slot kinds walker.value hands back as they are (a node; a lambda would be decompiled)
_PLAIN_VALUES = (_STATEMENT_VALUE, _OTHER)


def _plain(value):
    """Whether a slot of the model holds a value that walker.value hands back as it is."""
    return value.__class__ is str or value.__class__ is tuple or value in _PLAIN_VALUES


def _appends_element(walker, ins, stack, model):
    """Whether the LIST_APPEND / SET_ADD / MAP_ADD ``ins`` adds the element of the
    comprehension being read (comprehension_bodies._element: a statement) with values made in
    the look ahead, to the comprehension's result handed to the trial."""
    depth = ins.argval
    if walker.kind != "comprehension" or not isinstance(depth, int):
        return False
    popped = 2 if ins.op == "MAP_ADD" else 1
    depth += popped
    if popped > len(model) or depth <= len(model) or depth - len(model) > len(stack):
        return False
    for value in model[len(model) - popped:]:
        if not _plain(value):
            return False
    result = walker.comprehension_result
    if result is None:
        result = stack[0]  # (a comprehension's own code object builds it first)
    return stack[len(stack) - (depth - len(model))] is result


def _noted(walker, notes, declared):
    """True, once the module names the trial's calls would have noted are, and the global and
    nonlocal declarations its stores would have (see above)."""
    if notes:
        walker.imported_names.update(notes)
    for names, declaration in declared:
        names.add(declaration)
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
