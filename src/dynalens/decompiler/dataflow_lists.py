"""Fresh lists in the dataflow check: followed by their contents until someone else sees them.

Dynamo hands a frame's values to a resume function through lists it builds, slices, extends,
slice-assigns and deletes items from (``live_values[0:] = [...]``, ``del frames[-1]``) before
the one call that receives them. Read as opaque objects, every one of those operations is an
event, so source that builds the final lists directly (``__resume_at_30_1([], [], b, x)``)
could never match. But a list that was just built (BUILD_LIST: an exact ``list``, whose methods
nobody can replace) and that no one else holds yet cannot be observed: indexing it, slicing
it, extending it with another such list or with constants, assigning a slice or an item of
it, deleting an item -- with constant indices in range -- runs no user code and cannot fail.
So such a list is a *value with known contents* here: ``(LIST, id)``, its contents (a tuple of
values) in the path's state, and those operations are applied to the contents, not events.

The list *escapes* at the first event that has it as an operand (a call it is passed to, a
store to a real local, a truth test, a return, an operation this module does not model): both
sides must then hand over lists of the same contents with the same sharing (which list holds
which, a list held twice), compared by :func:`encode`; from there on each is an ordinary opaque
value, the same fresh identity on both sides (:func:`materialize`). So nothing about the lists
is relaxed: two programs pass only if every event sees the same list contents, built from the
same values; the order in which the contents were shuffled together is what cannot be seen.

Inside a loop (an instruction between a backward jump and its target) lists stay events: a
list growing once per iteration would give every iteration a new state.
"""

import dis

from dynalens.decompiler.comparison_keys import const_key as _const_key

__all__ = ["LIST", "is_list", "list_step", "LIST_STEP_OPS", "encode", "materialize",
           "loop_instructions", "list_contents"]

LIST = "fresh-list"
_INT = ("builtins", "int")
_NONE_KEY = _const_key(None)
_ARGS_EX = frozenset(["CALL_FUNCTION_EX"])


def is_list(value):
    return isinstance(value, tuple) and len(value) == 2 and value[0] == LIST


def _follows_lists(state):
    """Does ``state`` follow a fresh list? Only then can one of its values be one (or hold
    one): a list's id leaves ``lists`` only where :func:`materialize` has replaced it
    everywhere. (Under None is the id counter, not a list.)"""
    lists = state.lists
    return len(lists) > (None in lists)


def _new(state, items):
    number = state.lists.get(None, 0) + 1  # the id counter lives under None in the state
    state.lists[None] = number
    state.lists[number] = tuple(items)
    return (LIST, number)


def list_contents(state, value):
    """The contents of ``value`` when it is a fresh list this path follows, else None."""
    return state.lists.get(value[1]) if is_list(value) else None


def _int(value):
    if value[0] == "const" and value[1][:2] == _INT:
        return value[1][2]
    return None


def _slice(value):
    """The constant slice ``value`` is (ints or None, step not 0), else None."""
    if value[0] != "const" or value[1][0] != "slice":
        return None
    parts = []
    for key in value[1][1:]:
        if key == _NONE_KEY:
            parts.append(None)
        elif key[:2] == _INT:
            parts.append(key[2])
        else:
            return None
    if parts[2] == 0:
        return None
    return slice(*parts)


def _index(value, size):
    """An int constant in range for a list of ``size`` items, or a constant slice, else None."""
    number = _int(value)
    if number is not None:
        return number if -size <= number < size else None
    return _slice(value)


def _items(state, value, extend):
    """What appending (``extend``: extending with) ``value`` adds, or None if not modelled."""
    if not extend:
        return (value,)
    contents = list_contents(state, value)
    if contents is not None:
        return contents
    if value[0] == "const" and value[1][0] == "tuple":  # extending with a tuple constant
        return tuple(("const", key) for key in value[1][1])
    return None


def _assigned(contents, index, value, items):
    """contents with ``contents[index] = value`` done (``items``: value's items, for a slice),
    or None when Python would raise (an extended slice of another length)."""
    new = list(contents)
    if isinstance(index, slice):
        if items is None:
            return None
        try:
            new[index] = list(items)
        except ValueError:
            return None
    else:
        new[index] = value
    return tuple(new)


# the only instructions list_step may apply (for any other it returns False, changing nothing)
LIST_STEP_OPS = frozenset(["BUILD_LIST", "LIST_APPEND", "LIST_EXTEND", "CALL", "BINARY_SUBSCR",
                           "BINARY_SLICE", "STORE_SUBSCR", "STORE_SLICE", "DELETE_SUBSCR",
                           "LIST_TO_TUPLE", "CALL_INTRINSIC_1"])


def list_step(state, ins, instructions, pc):
    """Apply ``ins`` to the fresh lists it works on and return True, or return False (then it
    is handled as before: an event where a list is an operand makes it escape)."""
    op = ins.opname
    stack, lists = state.stack, state.lists
    if op == "BUILD_LIST":
        count = ins.arg or 0
        if len(stack) < count:
            return False
        items = stack[len(stack) - count:]
        del stack[len(stack) - count:]
        stack.append(_new(state, items))
        return True
    if op in ("LIST_APPEND", "LIST_EXTEND"):
        if len(stack) < ins.arg + 1 or not is_list(stack[-1 - ins.arg]):
            return False
        items = _items(state, stack[-1], op == "LIST_EXTEND")
        if items is None:
            return False
        target = stack[-1 - ins.arg][1]
        stack.pop()
        lists[target] = lists[target] + items
        return True
    if (op == "CALL" and ins.arg == 1 and not state.kwnames and len(stack) >= 3
            and stack[-3][0] == "method" and stack[-3][1] in ("append", "extend")
            and is_list(stack[-2])):
        # list.append / list.extend on a fresh list, looked up in method form
        items = _items(state, stack[-1], stack[-3][1] == "extend")
        if items is None:
            return False
        target = stack[-2][1]
        del stack[-3:]
        lists[target] = lists[target] + items
        stack.append(("const", _NONE_KEY))
        return True
    if op in ("BINARY_SUBSCR", "BINARY_SLICE"):
        width = 2 if op == "BINARY_SUBSCR" else 3
        if len(stack) < width or not is_list(stack[-width]):
            return False
        contents = lists[stack[-width][1]]
        index = _index(stack[-1], len(contents)) if width == 2 else \
            _slice(("const", ("slice",) + tuple(v[1] for v in stack[-2:]) + (_NONE_KEY,))) \
            if all(v[0] == "const" for v in stack[-2:]) else None
        if index is None:
            return False
        del stack[len(stack) - width:]
        if isinstance(index, slice):
            stack.append(_new(state, contents[index]))
        else:
            stack.append(contents[index])
        return True
    if op in ("STORE_SUBSCR", "STORE_SLICE"):
        width = 3 if op == "STORE_SUBSCR" else 4
        if len(stack) < width or not is_list(stack[-width + 1]):
            return False
        target = stack[-width + 1][1]
        contents = lists[target]
        if width == 3:
            index = _index(stack[-1], len(contents))
        elif all(v[0] == "const" for v in stack[-2:]):
            index = _slice(("const", ("slice",) + tuple(v[1] for v in stack[-2:])
                            + (_NONE_KEY,)))
        else:
            index = None
        if index is None:
            return False
        value = stack[-width]
        items = _items(state, value, True) if isinstance(index, slice) else None
        new = _assigned(contents, index, value, items)
        if new is None:
            return False
        del stack[len(stack) - width:]
        lists[target] = new
        return True
    if op == "DELETE_SUBSCR":
        if len(stack) < 2 or not is_list(stack[-2]):
            return False
        target = stack[-2][1]
        contents = list(lists[target])
        index = _index(stack[-1], len(contents))
        if index is None:
            return False
        del contents[index]
        del stack[-2:]
        lists[target] = tuple(contents)
        return True
    if (op == "LIST_TO_TUPLE" or (op == "CALL_INTRINSIC_1"
                                  and ins.argrepr == "INTRINSIC_LIST_TO_TUPLE")) \
            and stack and is_list(stack[-1]) and _calls_next(instructions, pc):
        # the star-arguments of a call with no ``**``: the arguments themselves
        stack.append(("argtuple", lists[stack.pop()[1]]))
        return True
    return False


def _calls_next(instructions, pc):
    following = [i for i in instructions[pc + 1:pc + 4] if i.opname not in ("NOP", "CACHE")]
    return bool(following) and following[0].opname in _ARGS_EX and not following[0].arg & 1


def _walk(value, on_list):
    """``value`` with every fresh list in it (inside composite values too) replaced by
    ``on_list(value)``."""
    if not isinstance(value, tuple) or not value:
        return value
    if is_list(value):
        return on_list(value)
    tag = value[0]
    if tag in ("argtuple", "arglist"):
        return (tag, tuple(_walk(v, on_list) for v in value[1]))
    if tag in ("tuple-of", "slice-of", "is"):
        return (tag,) + tuple(_walk(v, on_list) for v in value[1:])
    return value


def encode(state, values):
    """(comparable form of ``values``, [list ids in order of first appearance]): each fresh
    list written out as its contents, one held again as a reference to its first place."""
    if not _follows_lists(state):
        return list(values), []   # (what the walk below gives then)
    encoder = _Encoder(state.lists)
    encoded = [_walk(v, encoder.on_list) for v in values]
    order = encoder.order
    return encoded, sorted(order, key=order.get)


class _Encoder(object):
    """:func:`encode`'s walk into lists. (A class: a nested function that calls itself is a
    reference cycle, and it would keep the state alive until the garbage collector ran; the
    check encodes twice per event.)"""

    __slots__ = ("lists", "order")

    def __init__(self, lists):
        self.lists = lists
        self.order = {}

    def on_list(self, value):
        number = value[1]
        order = self.order
        if number in order:
            return ("list-again", order[number])
        order[number] = len(order)
        return ("list", order[number],
                tuple(_walk(v, self.on_list) for v in self.lists.get(number, ())))


def materialize(state, mapping, values):
    """The lists in ``mapping`` (list id -> opaque value) have escaped: ``state`` holds that
    value wherever it held the list; returns ``values`` likewise replaced."""
    if not mapping:
        return values

    def on_list(value):
        return mapping.get(value[1], value)

    state.stack = [_walk(v, on_list) for v in state.stack]
    state.names = {k: _walk(v, on_list) for k, v in state.names.items()}
    for number in mapping:
        state.lists.pop(number, None)
    for number, contents in list(state.lists.items()):
        if number is not None:
            state.lists[number] = tuple(_walk(v, on_list) for v in contents)
    return [_walk(v, on_list) for v in values]


def canonical_lists(state, rename):
    """(rename function that also names lists in order of appearance, function returning the
    contents of the lists named so far): for :func:`dataflow._canonical`."""
    if not _follows_lists(state):
        return rename, tuple   # (what the walk below gives then: no list to name)
    names, order = {}, []

    def on_list(value):
        if value[1] not in names:
            names[value[1]] = len(names)
            order.append(value[1])
        return ("L", names[value[1]])

    def full(value):
        value = _walk(value, on_list)
        return rename(value)

    def contents():
        out, position = [], 0
        while position < len(order):
            out.append(tuple(full(v) for v in state.lists.get(order[position], ())))
            position += 1
        return tuple(out)

    return full, contents


_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)  # (dis keeps them in lists)


def loop_instructions(instructions, target):
    """Indices of the instructions inside a loop: between a backward jump and its target."""
    inside = set()
    for number, ins in enumerate(instructions):
        if ins.opcode in _JUMPS:
            try:
                goes = target(ins)
            except Exception:
                continue
            if goes <= number:
                inside.update(range(goes, number + 1))
    return inside
