"""Same operations, same order, same operands: equivalence where values may wait in temporaries.

Bytecode comparison (:mod:`verify`) cannot accept source for code that no source compiles to.
Dynamo writes such code: it leaves values on the value stack across what would be statements,
shuffles them with SWAP/COPY, deletes locals between a value's push and its use. The decompiler
keeps those values in temporaries (``__temp_3 = ...``), so the recompiled bytecode has stores
and loads where the original had stack traffic, and nothing else should differ.

This module checks exactly that claim. Both code objects are run symbolically in lockstep. A
value is an opaque identity; every instruction that can observe or change the world (a call, an
attribute or subscript access, building a container, storing a real local, a branch, a return)
is an *event*. The two sides must perform the same events, in the same order, on the same
operands (by identity), with the same exception handlers, along every control-flow path. What
may differ is only what cannot be observed: stack shuffles (SWAP, COPY, POP_TOP, PUSH_NULL),
loads of constants and locals, and stores to *temporaries* -- local names that only one side
has. A value stored in a temporary is the same value when loaded back, so ``t = f(); g(t)``
matches ``f()`` left on the stack for ``g``. Identity tests and slices run no code and cannot
fail, so they are values made of their operands, not events: ``x is None`` then a truth jump
is the one-instruction None jump, and ``x[a:b]`` in one instruction (3.12+) is BUILD_SLICE and
the subscript. A method-form attribute load for a call is the plain load and a NULL (torch
2.15 writes calls that way): the call then does the same. A list just built that nobody else
has seen is followed by its contents until an event takes it (:mod:`dataflow_lists`): the
shuffling Dynamo does with the lists it hands to a resume function is then the same as
building the final lists at the call.

Paths are explored once per distinct state (values renamed canonically), so loops and joins
terminate. Anything the model does not know is a difference, never a pass: an instruction not
in the tables below, an unsupported CPython version, a temporary read before it is written.
The tables are checked against ``dis.stack_effect`` on every use.

Supported: CPython 3.11 to 3.13 (the versions torch's Dynamo writes this kind of code for and
whose stack layouts the tables describe); other versions report that they are not supported.
"""

import dis
import functools
import sys

from dynalens.decompiler.comparison_keys import (
    const_key as _const_key, jump_target as _jump_target,
    split_superinstructions as _split_superinstructions)
from dynalens.decompiler.dataflow_lists import (canonical_lists, encode, is_list, list_contents,
                                                list_step, LIST_STEP_OPS, loop_instructions,
                                                materialize)
from dynalens.decompiler.decode import exception_table
from dynalens.decompiler.instructions import (CLOSURE_IS_LOAD_FAST, NULL_FIRST,
                                              raw_instructions, shared_cache)

__all__ = ["dataflow_difference", "SUPPORTED"]

SUPPORTED = (3, 11) <= sys.version_info[:2] <= (3, 13)
_PY311 = sys.version_info[:2] == (3, 11)
_NULL_AFTER_GLOBAL = not NULL_FIRST  # 3.13 pushes `f + NULL`, 3.11/3.12 `NULL + f`
_CELL_BY_LOAD_FAST = CLOSURE_IS_LOAD_FAST  # 3.13: LOAD_CLOSURE is LOAD_FAST of a cell
_MAX_STATES = 20000
_MAX_PURE_STEPS = 100000

NULL = ("null",)
_NONE = ("const", _const_key(None))
LASTI = ("lasti",)
EXHAUSTED = ("exhausted",)  # what 3.12+ FOR_ITER leaves for END_FOR when the iterator is done

# Instructions that change nothing anyone can observe.
_SKIPPED = frozenset(["NOP", "RESUME", "EXTENDED_ARG", "CACHE", "PRECALL", "MAKE_CELL",
                      "COPY_FREE_VARS", "NOT_TAKEN"])
_UNCONDITIONAL = frozenset(["JUMP_FORWARD", "JUMP_BACKWARD", "JUMP", "JUMP_ABSOLUTE",
                            "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_NO_INTERRUPT"])
_LOCAL_LOADS = frozenset(["LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW"])
# (taken when the condition holds?, kind): POP_JUMP_IF_FALSE jumps when truth does not hold
_CONDITIONAL = {}
for _form in ("POP_JUMP_IF_%s", "POP_JUMP_FORWARD_IF_%s", "POP_JUMP_BACKWARD_IF_%s"):
    _CONDITIONAL[_form % "TRUE"] = (True, "truth")
    _CONDITIONAL[_form % "FALSE"] = (False, "truth")
    _CONDITIONAL[_form % "NONE"] = (True, "is None")
    _CONDITIONAL[_form % "NOT_NONE"] = (False, "is None")
_OR_POP = {"JUMP_IF_TRUE_OR_POP": True, "JUMP_IF_FALSE_OR_POP": False}
# Appending to a container further down the stack: (values popped); the container is then
# found at depth `arg` and is an operand, though it stays where it is.
_APPENDS = {"LIST_APPEND": 1, "LIST_EXTEND": 1, "SET_ADD": 1, "SET_UPDATE": 1,
            "DICT_UPDATE": 1, "DICT_MERGE": 1, "MAP_ADD": 2}
# ... and the method each one is, called on that container: source has no syntax that
# extends an existing list in place, so the decompiler writes `temp.extend(values)`. The
# instruction only runs on the exact built-in type (CPython does not even check), whose
# methods nobody can replace, so the call does the same, and looking the method up does
# nothing observable: it is deferred to the call. (DICT_MERGE differs from dict.update: it
# rejects repeated keys.)
_APPEND_METHODS = {"LIST_APPEND": "append", "LIST_EXTEND": "extend", "SET_ADD": "add",
                   "SET_UPDATE": "update", "DICT_UPDATE": "update"}
_CONTAINER_METHODS = frozenset(_APPEND_METHODS.values())


def _flags_popped(arg):
    return bin(arg & 0x0F).count("1")


# Events: opname -> (popped, peeked, pushed), each an int or a function of the argument.
# Peeked values are operands that stay on the stack under the pushed results.
_EVENTS = {
    "UNARY_POSITIVE": (1, 0, 1), "UNARY_NEGATIVE": (1, 0, 1), "UNARY_NOT": (1, 0, 1),
    "UNARY_INVERT": (1, 0, 1), "TO_BOOL": (1, 0, 1), "GET_ITER": (1, 0, 1),
    "BINARY_OP": (2, 0, 1), "BINARY_SUBSCR": (2, 0, 1), "COMPARE_OP": (2, 0, 1),
    "IS_OP": (2, 0, 1), "CONTAINS_OP": (2, 0, 1), "BINARY_SLICE": (3, 0, 1),
    "STORE_SLICE": (4, 0, 0), "STORE_SUBSCR": (3, 0, 0), "DELETE_SUBSCR": (2, 0, 0),
    "STORE_ATTR": (2, 0, 0), "DELETE_ATTR": (1, 0, 0),
    "STORE_GLOBAL": (1, 0, 0), "DELETE_GLOBAL": (0, 0, 0), "STORE_NAME": (1, 0, 0),
    "DELETE_NAME": (0, 0, 0), "STORE_DEREF": (1, 0, 0), "DELETE_DEREF": (0, 0, 0),
    "STORE_FAST": (1, 0, 0), "DELETE_FAST": (0, 0, 0),
    "LOAD_NAME": (0, 0, 1), "LOAD_DEREF": (0, 0, 1), "LOAD_CLASSDEREF": (0, 0, 1),
    "LOAD_FROM_DICT_OR_DEREF": (1, 0, 1), "LOAD_FROM_DICT_OR_GLOBALS": (1, 0, 1),
    "LOAD_ASSERTION_ERROR": (0, 0, 1), "LOAD_BUILD_CLASS": (0, 0, 1),
    "LOAD_FAST_AND_CLEAR": (0, 0, 1),
    "LOAD_ATTR": (1, 0, (lambda arg: 1) if _PY311 else (lambda arg: 1 + (arg & 1))),
    "LOAD_METHOD": (1, 0, 2), "LOAD_SUPER_ATTR": (3, 0, lambda arg: 1 + (arg & 1)),
    "BUILD_TUPLE": (lambda n: n, 0, 1), "BUILD_LIST": (lambda n: n, 0, 1),
    "BUILD_SET": (lambda n: n, 0, 1), "BUILD_MAP": (lambda n: 2 * n, 0, 1),
    "BUILD_CONST_KEY_MAP": (lambda n: n + 1, 0, 1), "BUILD_STRING": (lambda n: n, 0, 1),
    "BUILD_SLICE": (lambda n: n, 0, 1), "LIST_TO_TUPLE": (1, 0, 1),
    "CALL": (lambda n: n + 2, 0, 1), "CALL_KW": (lambda n: n + 3, 0, 1),
    "CALL_FUNCTION_EX": (lambda flags: 3 + (flags & 1), 0, 1),
    "CALL_INTRINSIC_1": (1, 0, 1), "CALL_INTRINSIC_2": (2, 0, 1),
    "MAKE_FUNCTION": ((lambda flags: 1 + _flags_popped(flags)) if sys.version_info < (3, 13)
                      else 1, 0, 1),
    "SET_FUNCTION_ATTRIBUTE": (2, 0, 1),
    "FORMAT_VALUE": (lambda arg: 2 if arg & 4 else 1, 0, 1), "FORMAT_SIMPLE": (1, 0, 1),
    "FORMAT_WITH_SPEC": (2, 0, 1), "CONVERT_VALUE": (1, 0, 1),
    "BUILD_INTERPOLATION": (lambda arg: 3 if arg & 1 else 2, 0, 1), "BUILD_TEMPLATE": (2, 0, 1),
    "UNPACK_SEQUENCE": (1, 0, lambda n: n),
    "UNPACK_EX": (1, 0, lambda arg: (arg & 0xFF) + (arg >> 8) + 1),
    "IMPORT_NAME": (2, 0, 1), "IMPORT_FROM": (0, 1, 1), "IMPORT_STAR": (1, 0, 0),
    "PUSH_EXC_INFO": (1, 0, 2), "POP_EXCEPT": (1, 0, 0), "CHECK_EXC_MATCH": (1, 1, 1),
    "CHECK_EG_MATCH": (2, 0, 2), "PREP_RERAISE_STAR": (2, 0, 1),
    "BEFORE_WITH": (1, 0, 2), "WITH_EXCEPT_START": (0, 4, 1),
    "GET_LEN": (0, 1, 1), "MATCH_MAPPING": (0, 1, 1), "MATCH_SEQUENCE": (0, 1, 1),
    "MATCH_KEYS": (0, 2, 1), "MATCH_CLASS": (3, 0, 1), "COPY_DICT_WITHOUT_KEYS": (1, 1, 1),
    "SETUP_ANNOTATIONS": (0, 0, 0), "PRINT_EXPR": (1, 0, 0),
}
# These end the path (after their exception edge, where one is active).
_ENDS = {"RETURN_VALUE": 1, "RETURN_CONST": 0, "RAISE_VARARGS": lambda n: n, "RERAISE": 1}


def _count(entry, arg):
    return entry(arg or 0) if callable(entry) else entry


class _Unsupported(Exception):
    """The model cannot follow this code; reported as a difference."""


class _State(object):
    """One side's position: instruction index, value stack, locals (name -> value), the
    keyword names a 3.11/3.12 KW_NAMES left for the next CALL, and the contents of the fresh
    lists this path follows (list id -> tuple of values, and under None the last id given;
    see :mod:`dataflow_lists`)."""

    __slots__ = ("pc", "stack", "names", "kwnames", "lists")

    def __init__(self, pc, stack, names, kwnames=None, lists=None):
        self.pc = pc
        self.stack = stack
        self.names = names
        self.kwnames = kwnames
        self.lists = {} if lists is None else lists

    def copy(self, pc=None):
        return _State(self.pc if pc is None else pc, list(self.stack), dict(self.names),
                      self.kwnames, dict(self.lists))


class _Side(object):
    """One code object, decoded once, and how to run its unobservable instructions."""

    def __init__(self, code, private, const_names=None, global_names=None):
        self.code = code
        self.private = private
        # reserved constants (see dataflow_difference's ``reserved``): the expected side loads
        # the objects with LOAD_CONST (by identity), the recompiled side by their global names
        self.const_names = const_names or ()
        self.global_names = global_names or {}
        self.cells = frozenset(code.co_cellvars + code.co_freevars)
        # what follows depends on the code object alone: worked out once per code object
        # within a shared_disassembly block (the lens checks every rewrite of one file
        # against the same original)
        made = shared_cache("dataflow sides")
        entry = made.get(id(code)) if made is not None else None
        if entry is not None and entry[0] is code:
            self.instructions, self.index_at, self.in_loop, self.handlers = entry[1]
            return
        raw = _split_superinstructions(raw_instructions(code))
        self.instructions = [ins for ins in raw if ins.opname not in ("CACHE",)]
        self.index_at = {}
        for number, ins in enumerate(self.instructions):
            self.index_at.setdefault(ins.offset, number)
        self.in_loop = loop_instructions(self.instructions, self.target)
        self.handlers = []
        for start, end, target, depth, lasti in exception_table(code):
            self.handlers.append((start, end, self._index(target), depth, lasti))
        if made is not None:
            made[id(code)] = (code, (self.instructions, self.index_at, self.in_loop,
                                     self.handlers))

    def _index(self, offset):
        if offset in self.index_at:
            return self.index_at[offset]
        later = [o for o in self.index_at if o >= offset]
        return self.index_at[min(later)] if later else len(self.instructions)

    def target(self, ins):
        return self._index(_jump_target(ins))

    def handler_at(self, pc):
        offset = self.instructions[pc].offset
        for start, end, target, depth, lasti in self.handlers:
            if start <= offset < end:
                return target, depth, lasti
        return None

    def initial(self):
        names = {name: ("arg", name) for name in _argument_names(self.code)}
        return _State(0, [], names)

    def advance(self, state):
        """Run unobservable instructions; stop at the next event (state.pc points at it)."""
        stack, names = state.stack, state.names
        for _ in range(_MAX_PURE_STEPS):
            if state.pc >= len(self.instructions):
                raise _Unsupported("runs off the end of the code")
            ins = self.instructions[state.pc]
            op = ins.opname
            if op in _SKIPPED:
                pass
            elif op in _UNCONDITIONAL:
                state.pc = self.target(ins)
                continue
            elif op == "POP_TOP":
                self._need(stack, 1, ins)
                stack.pop()
            elif op == "END_FOR":
                popped = -dis.stack_effect(ins.opcode)
                self._need(stack, popped, ins)
                del stack[len(stack) - popped:]
            elif op == "COPY":
                self._need(stack, ins.arg, ins)
                stack.append(stack[-ins.arg])
            elif op == "SWAP":
                self._need(stack, ins.arg, ins)
                stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
            elif op == "PUSH_NULL":
                stack.append(NULL)
            elif op == "LOAD_CONST" and self._reserved_const(ins.argval) is not None:
                stack.append(("reserved", self._reserved_const(ins.argval)))
            elif op == "LOAD_GLOBAL" and ins.argval in self.global_names \
                    and not (_PY311 and ins.arg & 1):
                stack.append(("reserved", ins.argval))
            elif op in ("LOAD_CONST", "LOAD_SMALL_INT") and not hasattr(ins.argval, "co_code"):
                stack.append(("const", _const_key(ins.argval)))
            elif op == "LOAD_CLOSURE" or (_CELL_BY_LOAD_FAST and op in _LOCAL_LOADS
                                          and ins.argval in self.cells):
                # the cell itself (3.13+ spells LOAD_CLOSURE as LOAD_FAST on the cell's slot)
                stack.append(("cell", ins.argval))
                state.pc += _spelled_cell_length(self.instructions, state.pc, ins.argval)
            elif (op in ("LOAD_METHOD", "LOAD_ATTR") and ins.argval in _CONTAINER_METHODS
                  and stack and (length := _container_method_length(self.instructions, state.pc))):
                receiver = stack.pop()
                stack.append(("method", ins.argval))
                stack.append(receiver)
                state.pc += length - 1
            elif op == "BUILD_LIST" and not ins.arg and _argument_list(self.instructions,
                                                                       state.pc):
                stack.append(("arglist", ()))
            elif op == "LIST_APPEND" and ins.arg == 1 and len(stack) >= 2 \
                    and stack[-2][0] == "arglist":
                value = stack.pop()
                stack[-1] = ("arglist", stack[-1][1] + (value,))
            elif _is_list_to_tuple(ins) and stack and stack[-1][0] == "arglist":
                stack.append(("argtuple", stack.pop()[1]))
            elif op in LIST_STEP_OPS and state.pc not in self.in_loop \
                    and list_step(state, ins, self.instructions, state.pc):
                pass  # an operation on a fresh list nobody else has seen (dataflow_lists)
            elif (op == "LIST_TO_TUPLE" or (op == "CALL_INTRINSIC_1"
                                            and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE")) \
                    and stack and self._feeds_call(state.pc + 1):
                # the star-arguments of a call: CALL_FUNCTION_EX, next, makes the same tuple
                # itself (nothing can change the list in between)
                stack.append(("tuple-of", stack.pop()))
            elif op == "BUILD_MAP" and ins.arg == 0 and self._copied_kwargs(state):
                state.pc += 1
                continue
            elif op == "KW_NAMES":
                # the tuple of keyword names is the constant the argument indexes (3.11's dis
                # leaves argval UNKNOWN: every call's names would read alike)
                state.kwnames = self.code.co_consts[ins.arg]
            elif op in _LOCAL_LOADS:
                if ins.argval in names:
                    stack.append(names[ins.argval])
                elif ins.argval in self.private:
                    raise _Unsupported("reads temporary %r before it is set (#%d)"
                                       % (ins.argval, state.pc))
                else:
                    return  # reading an unbound local raises: an event
            elif op == "STORE_FAST" and ins.argval in self.private:
                self._need(stack, 1, ins)
                names[ins.argval] = stack.pop()
            elif op == "DELETE_FAST" and ins.argval in self.private:
                if names.pop(ins.argval, None) is None:
                    raise _Unsupported("deletes temporary %r that is not set (#%d)"
                                       % (ins.argval, state.pc))
            elif op == "BUILD_TUPLE" and len(stack) >= (ins.arg or 0) and all(
                    value[0] == "const" for value in stack[len(stack) - (ins.arg or 0):]):
                # a tuple of constants is a constant (the compiler folds some, Dynamo builds
                # them): it has no identity anyone relies on
                items = [item[1] for item in stack[len(stack) - ins.arg:]] if ins.arg else []
                del stack[len(stack) - len(items):]
                stack.append(("const", ("tuple", tuple(items))))
            elif op == "IS_OP":
                # identity runs no code and cannot fail: a value made of its operands
                self._need(stack, 2, ins)
                right, left = stack.pop(), stack.pop()
                stack.append(("is", left, right, bool(ins.arg)))
            elif op == "TO_BOOL" and stack and stack[-1][0] == "is":
                pass  # already a bool
            elif op == "BUILD_SLICE" and len(stack) >= ins.arg:
                # building a slice runs no code and cannot fail: a value made of its parts
                # (3.12+ compiles `x[a:b]` to BINARY_SLICE, which builds the same slice)
                items = stack[len(stack) - ins.arg:]
                del stack[len(stack) - ins.arg:]
                stack.append(_slice_value(items))
            else:
                return
            state.pc += 1
        raise _Unsupported("runs %d instructions without doing anything" % _MAX_PURE_STEPS)

    def _reserved_const(self, value):
        for name, obj in self.const_names:
            if obj is value:
                return name
        return None

    def _feeds_call(self, pc):
        """Is the instruction at ``pc`` a CALL_FUNCTION_EX, or the start of a ``**kw`` copy
        that ends in one?"""
        return self.instructions[pc].opname == "CALL_FUNCTION_EX" \
            or self._kwargs_copy(pc) is not None

    def _kwargs_copy(self, pc):
        """The load of ``kw`` when ``f(**kw)``'s copy starts at ``pc``: BUILD_MAP 0, a local
        load, DICT_MERGE 1, CALL_FUNCTION_EX with kwargs; else None."""
        rest = self.instructions[pc:pc + 4]
        if len(rest) == 4 and rest[0].opname == "BUILD_MAP" and rest[0].arg == 0 \
                and rest[1].opname in _LOCAL_LOADS \
                and rest[2].opname == "DICT_MERGE" and rest[2].arg == 1 \
                and rest[3].opname == "CALL_FUNCTION_EX" and rest[3].arg & 1:
            return rest[1]
        return None

    def _copied_kwargs(self, state):
        """The call gets a fresh dict either way (CALL_FUNCTION_EX unpacks the mapping into
        the callee's own), so ``f(**kw)``'s copy is dropped and kw goes to the call, as
        generated code passes it. True when that copy starts at ``state.pc`` with kw a set
        local: kw is then pushed and pc left at the DICT_MERGE, for the caller to step past."""
        load = self._kwargs_copy(state.pc)
        if load is None or load.argval not in state.names:
            return False
        state.stack.append(state.names[load.argval])
        state.pc += 2
        return True

    @staticmethod
    def _need(stack, count, ins):
        if len(stack) < count:
            raise _Unsupported("stack underflow at %s (offset %d)" % (ins.opname, ins.offset))


_TWO_DEEP = frozenset(["SWAP", "CHECK_EG_MATCH"])


def _argument_list(instructions, pc):
    """Is the BUILD_LIST 0 at ``pc`` the compiler's form of a call with many arguments?

    Past 30 arguments CPython does not push them for CALL: it builds an empty list, appends
    each argument as it is evaluated (LIST_APPEND 1), turns the list into a tuple and calls
    with CALL_FUNCTION_EX; Dynamo's code calls a graph with all its tensors as one CALL. Both
    evaluate the same arguments in the same order, and nobody else sees that list: True when
    the code from ``pc`` is exactly that (each argument straight-line code that leaves one
    value and never reaches the list), so the list can be followed as the arguments it
    collects rather than as an object.
    """
    depth = 0  # values above the list
    for number in range(pc + 1, len(instructions)):
        ins = instructions[number]
        op = ins.opname
        if op in _SKIPPED or op == "KW_NAMES":
            continue
        if op == "LIST_APPEND":
            if ins.arg == 1 and depth == 1:
                depth = 0
                continue
            if not 1 <= ins.arg < depth:     # into the list with values still above it
                return False
            depth -= 1
            continue
        if _is_list_to_tuple(ins):
            following = [i for i in instructions[number + 1:] if i.opname not in _SKIPPED]
            return depth == 0 and bool(following) \
                and following[0].opname == "CALL_FUNCTION_EX" and not following[0].arg & 1
        if (op in _CONDITIONAL or op in _OR_POP or op in _UNCONDITIONAL or op in _ENDS
                or op in _TWO_DEEP or op == "FOR_ITER"
                or (ins.opcode < dis.HAVE_ARGUMENT and op not in _STRAIGHT_NO_ARG)
                or (op == "COPY" and ins.arg > depth)):
            return False
        try:
            effect = dis.stack_effect(ins.opcode, ins.arg if ins.opcode >= dis.HAVE_ARGUMENT
                                      else None, jump=False)
        except ValueError:
            return False
        if _PY311 and op == "CALL":
            effect -= ins.arg  # 3.11's PRECALL accounts for the arguments
        depth += effect
        if depth < 1:
            return False
    return False


def _is_list_to_tuple(ins):
    """LIST_TO_TUPLE (3.11), CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE (3.12+)."""
    return ins.opname == "LIST_TO_TUPLE" or (
        ins.opname == "CALL_INTRINSIC_1" and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE")


# Instructions without an argument that may appear inside an argument (their pops stay above
# the list whenever the depth stays positive)
_STRAIGHT_NO_ARG = frozenset(["BINARY_SUBSCR", "BINARY_SLICE", "PUSH_NULL", "POP_TOP",
                              "UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE",
                              "GET_ITER", "STORE_SUBSCR", "TO_BOOL", "FORMAT_SIMPLE",
                              "LOAD_ASSERTION_ERROR", "LOAD_BUILD_CLASS", "GET_LEN"])


def _container_method_length(instructions, pc):
    """How many instructions at ``pc`` load a container method (``append``, ``extend``, ...) to
    call it: 1 for the method form (LOAD_METHOD, or 3.12's LOAD_ATTR with its low bit), 2 for
    3.13+'s plain LOAD_ATTR followed by PUSH_NULL (torch 2.15's Dynamo writes calls that way;
    it calls the same bound method), else 0. Either way the lookup is deferred to the call,
    as for LIST_APPEND & co, or `x.append(v)` would be an attribute load on one side only.
    """
    ins = instructions[pc]
    if ins.opname == "LOAD_METHOD" or (ins.opname == "LOAD_ATTR" and not _PY311 and ins.arg & 1):
        return 1
    if (ins.opname == "LOAD_ATTR" and _NULL_AFTER_GLOBAL and pc + 1 < len(instructions)
            and instructions[pc + 1].opname == "PUSH_NULL"):
        return 2
    return 0


def _spelled_cell_length(instructions, pc, name):
    """How many instructions after ``LOAD_CLOSURE name`` at ``pc`` spell the cell as a value.

    Generated code passes a closure cell itself as an argument (Dynamo hands cells to resume
    functions); source has no syntax for that and the decompiler writes
    ``(lambda: name).__closure__[0]``, which is that very cell: LOAD_CLOSURE, BUILD_TUPLE 1,
    LOAD_CONST <lambda>, MAKE_FUNCTION (closure), LOAD_ATTR __closure__, LOAD_CONST 0,
    BINARY_SUBSCR (3.13: SET_FUNCTION_ATTRIBUTE 8 after MAKE_FUNCTION). Returns the length
    of the rest of that sequence when it follows, else 0.
    """
    spelling = ["BUILD_TUPLE", "LOAD_CONST", "MAKE_FUNCTION", "LOAD_ATTR", "LOAD_CONST",
                "BINARY_SUBSCR"]
    if _CELL_BY_LOAD_FAST:  # 3.13: MAKE_FUNCTION takes the closure from the next instruction
        spelling.insert(3, "SET_FUNCTION_ATTRIBUTE")
    rest = instructions[pc + 1:pc + 1 + len(spelling)]
    if [ins.opname for ins in rest] != spelling:
        return 0
    if _CELL_BY_LOAD_FAST:
        if rest[3].arg != 8:  # the closure
            return 0
        rest = rest[:3] + rest[4:]
    lambda_code = rest[1].argval
    if (rest[0].arg != 1 or not hasattr(lambda_code, "co_code")
            or lambda_code.co_name != "<lambda>" or lambda_code.co_freevars != (name,)
            or lambda_code.co_argcount or rest[3].argval != "__closure__"
            or rest[4].argval != 0 or type(rest[4].argval) is not int):
        return 0
    body = [ins.opname for ins in dis.get_instructions(lambda_code)
            if ins.opname not in ("COPY_FREE_VARS", "RESUME", "CACHE", "NOP")]
    if body != ["LOAD_DEREF", "RETURN_VALUE"]:
        return 0
    return len(spelling)


def _none_test(value):
    """(x, negated) when ``value`` is ``x is None`` (negated: ``is not``), else None."""
    if value[0] != "is":
        return None
    _, left, right, negated = value
    none = ("const", _const_key(None))
    if right == none:
        return left, negated
    if left == none:
        return right, negated
    return None


def _slice_value(items):
    """The value of ``slice(*items)`` (2 or 3 stack values): a constant when they all are."""
    items = list(items) + [("const", _const_key(None))] * (3 - len(items))
    if all(item[0] == "const" for item in items):
        return ("const", ("slice",) + tuple(item[1] for item in items))
    return ("slice-of",) + tuple(items)


def _event_key(ins, state):
    """What an event does, without its operands: (name, argument)."""
    op = ins.opname
    if op in ("STORE_FAST", "DELETE_FAST", "LOAD_FAST_AND_CLEAR") or op in _LOCAL_LOADS:
        return (op if op not in _LOCAL_LOADS else "LOAD_FAST", ins.argval)
    if op == "LOAD_GLOBAL":
        return (op, ins.argval)
    if op in ("LOAD_ATTR", "LOAD_METHOD"):  # one event whether or not in method form
        return ("LOAD_ATTR", ins.argval)
    if op in ("CALL", "CALL_KW"):
        return (op, ins.arg, state.kwnames)
    if op == "LOAD_CONST":
        return (op, _const_key(ins.argval))
    if ins.arg is None:
        return (op,)
    if op in dis.hasconst:
        return (op, _const_key(ins.argval))
    return (op, _const_key(ins.argval), ins.argrepr)


class _Step(object):
    """One side's event: what it is, on which values, and how to go on from it."""

    __slots__ = ("key", "operands", "successors", "raises")

    def __init__(self, key, operands, successors, raises=True):
        self.key = key
        self.operands = operands
        # label -> (next pc or None at the end, values popped, values pushed: count, fixed
        # values to push before and after the results)
        self.successors = successors
        self.raises = raises


def _describe(side, state):
    ins = side.instructions[state.pc]
    op = ins.opname
    stack = state.stack
    pc = state.pc
    if op in _CONDITIONAL:
        taken_when, kind = _CONDITIONAL[op]
        side._need(stack, 1, ins)
        target = side.target(ins)
        yes, no = (target, pc + 1) if taken_when else (pc + 1, target)
        operand = stack[-1]
        tested = _none_test(operand) if kind == "truth" else None
        if tested is not None:
            # `if x is None` / `if x is not None` as IS_OP and a truth test: the same branch
            # as the one-instruction None test 3.11+ compiles it to
            operand, negated = tested
            kind = "is None"
            if negated:
                yes, no = no, yes
        return _Step(("branch", kind), [operand],
                     {"yes": (yes, 1, 0, (), ()), "no": (no, 1, 0, (), ())})
    if op in _OR_POP:
        side._need(stack, 1, ins)
        target = side.target(ins)
        keep = (target, 0, 0, (), ())
        drop = (pc + 1, 1, 0, (), ())
        jumps_when_true = _OR_POP[op]
        return _Step(("branch", "truth"), [stack[-1]],
                     {"yes": keep if jumps_when_true else drop,
                      "no": drop if jumps_when_true else keep})
    if op == "FOR_ITER":
        side._need(stack, 1, ins)
        done = (side.target(ins), 1, 0, (), ()) if _PY311 else \
            (side.target(ins), 0, 0, (), (EXHAUSTED,))
        return _Step(("FOR_ITER",), [stack[-1]], {"next": (pc + 1, 0, 1, (), ()), "done": done})
    if op in _ENDS:
        popped = _count(_ENDS[op], ins.arg)
        side._need(stack, popped, ins)
        operands = stack[len(stack) - popped:] if popped else []
        if op == "RETURN_CONST":
            operands = [("const", _const_key(ins.argval))]
        return _Step(("end", "RETURN" if op.startswith("RETURN") else op, ins.arg
                      if op == "RAISE_VARARGS" else None),
                     operands, {}, raises=not op.startswith("RETURN"))
    if op == "LOAD_CONST":  # only code objects reach here: their bodies are compared too
        return _Step(_event_key(ins, state), [], {"next": (pc + 1, 0, 1, (), ())},
                     raises=False)
    if op in _APPENDS:
        popped = _APPENDS[op]
        _check_effect(ins, popped, 0)
        side._need(stack, popped + ins.arg, ins)
        container = stack[-(popped + ins.arg)]
        key = ("container.%s" % _APPEND_METHODS[op],) if op in _APPEND_METHODS \
            else _event_key(ins, state)
        return _Step(key, [container] + stack[len(stack) - popped:],
                     {"next": (pc + 1, popped, 0, (), ())})
    if (op == "CALL" and ins.arg == 1 and not state.kwnames and len(stack) >= 3
            and stack[-3][0] == "method"):
        _check_effect(ins, 3, 1)
        return _Step(("container.%s" % stack[-3][1],), [stack[-2], stack[-1]],
                     {"next": (pc + 1, 3, 0, (), (("const", _const_key(None)),))})
    if op in ("BINARY_SLICE", "STORE_SLICE"):
        # 3.12+: `x[a:b]` in one instruction, the same as BUILD_SLICE 2 and the subscript
        popped, pushed = (3, 1) if op == "BINARY_SLICE" else (4, 0)
        _check_effect(ins, popped, pushed)
        side._need(stack, popped, ins)
        operands = stack[len(stack) - popped:len(stack) - 2] + [_slice_value(stack[-2:])]
        key = ("BINARY_SUBSCR",) if op == "BINARY_SLICE" else ("STORE_SUBSCR",)
        return _Step(key, operands, {"next": (pc + 1, popped, pushed, (), ())})
    if op == "CALL_FUNCTION_EX" and not ins.arg & 1 and len(stack) >= 3 \
            and (stack[-1][0] == "argtuple" or is_list(stack[-1])):
        # a call with more arguments than the compiler keeps on the stack, or with its
        # arguments in a fresh list (Dynamo's resume calls): the same call as CALL with those
        # arguments (see _argument_list, dataflow_lists)
        _check_effect(ins, 3, 1)
        args = list(list_contents(state, stack[-1]) if is_list(stack[-1]) else stack[-1][1])
        return _Step(("CALL", len(args), None), list(stack[-3:-1]) + args,
                     {"next": (pc + 1, 3, 1, (), ())})
    if op == "CALL_FUNCTION_EX":
        popped = 3 + (ins.arg & 1)
        _check_effect(ins, popped, 1)
        side._need(stack, popped, ins)
        operands = [value[1] if value[0] == "tuple-of" else value
                    for value in stack[len(stack) - popped:]]
        return _Step(_event_key(ins, state), operands,
                     {"next": (pc + 1, popped, 1, (), ())})
    if op == "LOAD_METHOD" or (op == "LOAD_ATTR" and not _PY311 and ins.arg & 1):
        # the method form of an attribute load only ever feeds a call, and calling what it
        # pushes (method + self, or NULL + attribute) is calling the attribute: Dynamo loads
        # it as an attribute behind a NULL, source `obj.name(...)` with the method form
        side._need(stack, 1, ins)
        _check_effect(ins, 1, 2)
        before, after = ((), (NULL,)) if _NULL_AFTER_GLOBAL else ((NULL,), ())
        return _Step(_event_key(ins, state), [stack[-1]],
                     {"next": (pc + 1, 1, 1, before, after)})
    if op in ("BUILD_MAP", "BUILD_CONST_KEY_MAP"):
        keys, values = _dict_display(ins, stack)
        if keys is not None:
            # a dict with constant keys, as Dynamo builds it (BUILD_MAP, each key loaded
            # before its value) or as source compiles it (values, then the keys' tuple):
            # loading a constant does nothing, so both evaluate the same values in order
            popped = (ins.arg or 0) * 2 if op == "BUILD_MAP" else (ins.arg or 0) + 1
            _check_effect(ins, popped, 1)
            return _Step(("BUILD_DICT", keys), values, {"next": (pc + 1, popped, 1, (), ())})
    if op in _LOCAL_LOADS:  # an unbound local: raises, and nothing follows
        return _Step(("LOAD_FAST", ins.argval, "unbound"), [], {})
    if op == "LOAD_GLOBAL":
        before, after = (), ()
        if ins.arg & 1:
            before, after = ((), (NULL,)) if _NULL_AFTER_GLOBAL else ((NULL,), ())
        _check_effect(ins, 0, 1 + len(before) + len(after))
        return _Step(_event_key(ins, state), [], {"next": (pc + 1, 0, 1, before, after)})
    if op in _EVENTS:
        popped, peeked, pushed = (_count(entry, ins.arg) for entry in _EVENTS[op])
        _check_effect(ins, popped, pushed)
        side._need(stack, popped + peeked, ins)
        operands = stack[len(stack) - popped - peeked:] if popped + peeked else []
        return _Step(_event_key(ins, state), list(operands),
                     {"next": (pc + 1, popped, pushed, (), ())})
    raise _Unsupported("instruction %s at offset %d is not modelled" % (op, ins.offset))


def _dict_display(ins, stack):
    """(keys, values) of a BUILD_MAP / BUILD_CONST_KEY_MAP whose keys are all constants, as
    a tuple of constant keys and the list of values; (None, None) otherwise."""
    n = ins.arg or 0
    if ins.opname == "BUILD_MAP":
        if len(stack) < 2 * n:
            return None, None
        items = stack[len(stack) - 2 * n:]
        keys, values = items[0::2], items[1::2]
        if not all(k[0] == "const" for k in keys):
            return None, None
        return tuple(k[1] for k in keys), list(values)
    if len(stack) < n + 1 or stack[-1][0] != "const" or stack[-1][1][0] != "tuple" \
            or len(stack[-1][1][1]) != n:
        return None, None
    return tuple(stack[-1][1][1]), list(stack[len(stack) - 1 - n:-1])


def _check_effect(ins, popped, pushed):
    try:
        effect = dis.stack_effect(ins.opcode, ins.arg if ins.opcode >= dis.HAVE_ARGUMENT
                                  else None, jump=False)
    except ValueError:
        raise _Unsupported("no stack effect for %s" % ins.opname)
    if _PY311 and ins.opname == "CALL":
        effect -= ins.arg  # 3.11's PRECALL accounts for the arguments, CALL for the callable
    if effect != pushed - popped:
        raise _Unsupported("stack table disagrees with dis for %s %s (%d != %d)"
                           % (ins.opname, ins.arg, pushed - popped, effect))


def _apply(state, successor, results, kwnames_used):
    pc, popped, _pushed, before, after = successor
    new = state.copy(pc)
    if popped:
        del new.stack[len(new.stack) - popped:]
    new.stack.extend(before)
    new.stack.extend(results)
    new.stack.extend(after)
    if kwnames_used:
        new.kwnames = None
    return new


# values made of other values (renamed part by part)
_COMPOSITE = frozenset(["slice-of", "tuple-of", "is"])


def _canonical(pair):
    """The pair of states with fresh values renamed in order of appearance (hashable)."""
    rename = functools.partial(_renamed, names={})
    parts = []
    for state in pair:
        full, contents = canonical_lists(state, rename)
        parts.append(state.pc)
        parts.append(tuple(full(v) for v in state.stack))
        parts.append(tuple((k, full(v)) for k, v in sorted(state.names.items())))
        parts.append(state.kwnames)
        parts.append(contents())
    return tuple(parts)


def _renamed(value, names):
    """``value`` with each fresh value in it named in order of appearance (``names``: those
    named so far). (Not a nested function of _canonical: calling itself, it would be a
    reference cycle, left for the garbage collector.)"""
    if not isinstance(value, tuple):
        return value
    if value and value[0] == "v":
        if value not in names:
            names[value] = ("c", len(names))
        return names[value]
    if value and value[0] in _COMPOSITE:
        return (value[0],) + tuple(_renamed(part, names) for part in value[1:])
    if value and value[0] in ("argtuple", "arglist"):
        return (value[0], tuple(_renamed(part, names) for part in value[1]))
    return value


def _header_difference(a, b):
    for field in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_cellvars",
                  "co_freevars"):
        if getattr(a, field, None) != getattr(b, field, None):
            return "%s differs: %r != %r" % (field, getattr(a, field, None),
                                             getattr(b, field, None))
    if (a.co_flags ^ b.co_flags) & 0x3AC:  # VARARGS VARKEYWORDS GENERATOR COROUTINE ...
        return "flags differ"
    if _argument_names(a) != _argument_names(b):
        return "argument names differ"
    return None


def _argument_names(code):
    """The parameters, *args and **kwargs included: the locals bound when the frame starts."""
    count = code.co_argcount + code.co_kwonlyargcount \
        + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return code.co_varnames[:count]


def dataflow_difference(expected, got, nested_check=None, reserved=None):
    """None when ``got`` does what ``expected`` does (see the module docstring), else the first
    difference found, as text.

    ``nested_check(a, b)`` compares nested code objects that both sides load as constants at
    the same event; it returns None or a difference (default: this function).

    ``reserved`` maps global names to objects: ``expected`` loads such an object as a constant
    (LOAD_CONST, which no source can write for an object with no literal form, such as
    Dynamo's ``torch.float32``) where ``got`` loads the global of that name. The two loads are
    the same value only for that very object (identity); nothing else is relaxed.
    """
    if not SUPPORTED:
        return "the dataflow check supports CPython 3.11 to 3.13, not %d.%d" \
            % sys.version_info[:2]
    nested_check = nested_check or dataflow_difference
    header = _header_difference(expected, got)
    if header:
        return header
    shared = set(expected.co_varnames) & set(got.co_varnames) - _untouched_locals(expected)
    reserved = dict(reserved or {})
    left = _Side(expected, set(expected.co_varnames) - shared,
                 const_names=tuple(reserved.items()))
    right = _Side(got, set(got.co_varnames) - shared, global_names=reserved)
    try:
        return _explore(left, right, nested_check)
    except _Unsupported as exc:
        return str(exc)


def _untouched_locals(code):
    """Locals ``code`` never loads, stores or deletes (not its arguments): Dynamo keeps the
    user's local names in the transformed code though its code uses few of them. The other
    side may hold a value under such a name as it would in a temporary (a readable rewrite
    names values after the user's variables); ``code`` itself can never observe it."""
    made = shared_cache("untouched locals")
    entry = made.get(id(code)) if made is not None else None
    if entry is not None and entry[0] is code:
        return entry[1]
    used = set(_argument_names(code))
    for ins in _split_superinstructions(raw_instructions(code)):
        if "FAST" in ins.opname:
            used.add(ins.argval)
    untouched = frozenset(code.co_varnames) - used
    if made is not None:
        made[id(code)] = (code, untouched)
    return untouched


class _SeenStates(object):
    """The state pairs explored so far, keyed canonically (:func:`_canonical`) -- lazily.

    Only a pair at the same two instructions as an earlier one can have the same key, and
    most pairs are the only one at their instructions (straight-line code; joins and loops
    are few): a pair's key is computed when a second pair arrives at its instructions, not
    on arrival. Which pairs are explored is exactly what keying every pair would give."""

    def __init__(self):
        self.keys = set()
        self.first = {}    # (pc, pc) -> the first pair there, not keyed yet (or None)
        self.count = 0

    def add(self, a, b):
        """True (and recorded) when no pair explored so far has the key of ``(a, b)``."""
        pcs = (a.pc, b.pc)
        if pcs not in self.first:
            self.first[pcs] = (a, b)
        else:
            self._key_first(pcs)
            key = _canonical((a, b))
            if key in self.keys:
                return False
            self.keys.add(key)
        self.count += 1
        return True

    def settle(self, a, b):
        """Key ``(a, b)`` now if it is still waiting (before anything changes it in place)."""
        waiting = self.first.get((a.pc, b.pc))
        if waiting is not None and waiting[0] is a:
            self._key_first((a.pc, b.pc))

    def _key_first(self, pcs):
        if self.first[pcs] is not None:
            self.keys.add(_canonical(self.first[pcs]))
            self.first[pcs] = None


def _explore(left, right, nested_check):
    fresh = [0]
    seen = _SeenStates()
    nested = {}
    work = [(left.initial(), right.initial())]
    while work:
        a, b = work.pop()
        try:
            left.advance(a)
        except _Unsupported as exc:
            return "expected side: %s" % exc
        try:
            right.advance(b)
        except _Unsupported as exc:
            return "recompiled side: %s" % exc
        if not seen.add(a, b):
            continue
        if seen.count > _MAX_STATES:
            raise _Unsupported("more than %d states to explore" % _MAX_STATES)
        step_a, step_b = _describe(left, a), _describe(right, b)
        if step_a.key != step_b.key:
            return "%s: expected %s, got %s" % (_at(left, a, right, b), _key_text(step_a.key),
                                                _key_text(step_b.key))
        encoded_a, lists_a = encode(a, step_a.operands)
        encoded_b, lists_b = encode(b, step_b.operands)
        if encoded_a != encoded_b:
            return "%s: %s on different values" % (_at(left, a, right, b),
                                                   _key_text(step_a.key))
        if lists_a:
            # fresh lists escape here: from now on the same opaque value on both sides
            seen.settle(a, b)   # (a and b change below: key them as they were reached)
            mapping_a, mapping_b = {}, {}
            for list_a, list_b in zip(lists_a, lists_b):
                fresh[0] += 1
                mapping_a[list_a] = mapping_b[list_b] = ("v", fresh[0], "list")
            step_a.operands = materialize(a, mapping_a, step_a.operands)
            step_b.operands = materialize(b, mapping_b, step_b.operands)
        code_a = _loaded_code(left, a)
        if code_a is not None:
            nested[id(code_a)] = (code_a, _loaded_code(right, b))
        ins_a = left.instructions[a.pc]
        if step_a.raises:
            handler_a, handler_b = left.handler_at(a.pc), right.handler_at(b.pc)
            if (handler_a is None) != (handler_b is None):
                return "%s: an exception here is handled on one side only" \
                    % _at(left, a, right, b)
            if handler_a is not None:
                fresh[0] += 1
                exc = ("v", fresh[0])
                work.append((_unwind(a, handler_a, exc), _unwind(b, handler_b, exc)))
        for label in sorted(step_a.successors):
            succ_a, succ_b = step_a.successors[label], step_b.successors[label]
            if succ_a[2] != succ_b[2]:
                return "%s: results differ in number" % _at(left, a, right, b)
            fresh[0] += 1
            results = [("v", fresh[0], n) for n in range(succ_a[2])]
            kw = ins_a.opname in ("CALL", "CALL_KW")
            next_a = _apply(a, succ_a, results, kw)
            next_b = _apply(b, succ_b, results, kw)
            _store_shared(ins_a, step_a, next_a)
            _store_shared(right.instructions[b.pc], step_b, next_b)
            work.append((next_a, next_b))
    for code_a, code_b in nested.values():
        difference = nested_check(code_a, code_b)
        if difference:
            return "in nested %s: %s" % (code_a.co_name, difference)
    return None


def _store_shared(ins, step, state):
    """A store or delete of a local both sides have (an event) changes what loads see."""
    if ins.opname == "STORE_FAST":
        state.names[ins.argval] = step.operands[0]
    elif ins.opname in ("DELETE_FAST", "LOAD_FAST_AND_CLEAR"):
        state.names.pop(ins.argval, None)


def _loaded_code(side, state):
    ins = side.instructions[state.pc]
    return ins.argval if ins.opname == "LOAD_CONST" and hasattr(ins.argval, "co_code") else None


def _unwind(state, handler, exc):
    target, depth, lasti = handler
    new = state.copy(target)
    del new.stack[depth:]
    if lasti:
        new.stack.append(LASTI)
    new.stack.append(exc)
    new.kwnames = None
    return new


def _at(left, a, right, b):
    """Where a difference is, for its text (made only when there is one)."""
    return "at expected %s / recompiled %s" % (_where(left, a), _where(right, b))


def _where(side, state):
    ins = side.instructions[state.pc]
    return "%s (offset %d)" % (ins.opname, ins.offset)


def _key_text(key):
    return " ".join(str(part) for part in key if part is not None)
