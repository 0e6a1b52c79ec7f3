"""The registry of recognisers: where the walker finds the handler of an opcode, and where code
below a recogniser family reaches into it.

The recogniser families (``branches``, ``handlers``, ``patterns`` ...) are modules of plain
functions that take the walker (the walk state: ``statements.StatementWalker``) as their first
argument and keep no state of their own. They sit above the walker core in the import order;
the core, and the few families that call a family above them, reach it through this module,
which imports none of them: ``recognisers.py`` fills it, once, in the order written there.

``OPCODES``: opname -> handler(walker, ins, stack, out), the one table ``walk()`` dispatches
on: the walker core's ``op_*`` methods (:func:`register_core`), then each family's handlers
(:func:`register`), which replace the core's. A family that refines another family's handler
(an inline comprehension's ``FOR_ITER`` before the plain ``for`` loop's) registers its own and
calls the one it refines by name, so two families never claim one opname.

``STRUCTURE_POINTS``: where a construct starts at an index rather than at an opcode (a
protected range, a loop head), the ordered list of the walker core's tests that hand it to the
family that reads it.

``ENTRY``: the families' functions that code below them calls (the core asks ``ENTRY.do_try``
to read a ``try`` that starts where it walks), each set by ``recognisers.py``.

Where several families may each take over one step of the walk (a store: an ``__annotate__``
function, a local an inline comprehension saved), the entry is a :func:`chain`: each step either
does the work or returns :data:`DECLINE`, and the next one runs; the walker core's own step
comes last. That replaces the method resolution order (and its ``super()`` calls) of the mixins
the walker was once assembled from: the order is the one written in ``recognisers.py``.
"""

OPCODES = {}
_CORE = set()  # opnames whose handler is still the walker core's


def register_core(walker_class):
    """The walker core's handlers: every ``op_<OPNAME>`` of ``walker_class`` and its base."""
    for attr in dir(walker_class):
        if attr.startswith("op_"):
            OPCODES[attr[len("op_"):]] = getattr(walker_class, attr)
            _CORE.add(attr[len("op_"):])


def register(handlers):
    """A family's handlers ({opname: handler}); each replaces the core's, never another
    family's."""
    for opname, handler in handlers.items():
        if opname in OPCODES and opname not in _CORE:
            raise ValueError("two recogniser families claim %s" % opname)
        OPCODES[opname] = handler
        _CORE.discard(opname)


# the structure points, in order: fn(walker, i, stack, out, ctx) -> where the walk goes on after
# the construct that starts at i, or DECLINE (statements._structure_at asks them in this order)
STRUCTURE_POINTS = []


class Entries(object):
    """The entry points into the recogniser families, set by ``recognisers.py``."""


ENTRY = Entries()

# returned by a step of a chain that does not apply: the next step runs
DECLINE = object()


def chain(*steps):
    """One function running ``steps`` (each ``step(walker, *args)``) in order until one does
    not return :data:`DECLINE`; the last step must never decline. A step given as None is
    left out (one that cannot apply on the running version); a chain left with one step is
    that step, called with no chain around it.

    Steps that all take four arguments besides the walker (the store chain, ENTRY.assign:
    every store of every walk) are called with them spelled out: a call through ``*args``
    packs a tuple, and on 3.11+ runs the step in a fresh interpreter call rather than inline,
    which made the chain's own line 1.7% of a 3.11 decompilation."""
    steps = tuple(step for step in steps if step is not None)
    if len(steps) == 1:
        return steps[0]
    if all(_positional_count(step) == 5 for step in steps):
        def run4(walker, a, b, c, d):
            for step in steps:
                result = step(walker, a, b, c, d)
                if result is not DECLINE:
                    return result
            raise AssertionError("the last step of a chain declined")
        return run4

    def run(walker, *args):
        for step in steps:
            result = step(walker, *args)
            if result is not DECLINE:
                return result
        raise AssertionError("the last step of a chain declined")
    return run


def _positional_count(step):
    """How many arguments plain function ``step`` takes, when exactly that many (no defaults,
    no ``*args``, no keyword-only ones); None for anything else."""
    code = getattr(step, "__code__", None)
    if code is None or getattr(step, "__defaults__", None) or code.co_kwonlyargcount or \
            code.co_flags & 0x0C:  # (CO_VARARGS, CO_VARKEYWORDS)
        return None
    return code.co_argcount
