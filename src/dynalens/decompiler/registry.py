"""The registry of recognisers: where the walker finds the handler of an opcode, and where code
below a recogniser family reaches into it.

The recogniser families (``branches``, ``handlers``, ``patterns`` ...) are modules of plain
functions that take the walker (the walk state, ``statements.StatementWalker``) as their first
argument and keep no state of their own. They sit above the walker core in the import order;
the core and the few families that call a family above them reach it through this module, which
imports none of them: ``recognisers.py`` fills it, once, in the order written there.

``OPCODES``: opname -> handler(walker, ins, stack, out), the families' opcode handlers (the
walker core's own ``op_*`` methods serve the rest). A family that refines another's handler
(an inline comprehension's ``FOR_ITER`` before the plain ``for`` loop's) calls the one it
refines by name, so the precedence is read in one place: ``recognisers.py``.

``ENTRY``: the families' functions that code below them calls (the core asks ``ENTRY.do_try``
to read a ``try`` that starts where it walks), each set by ``recognisers.py``.

Where several families may each take over one step of the walk (a store: an ``__annotate__``
function, a local an inline comprehension saved), the entry is a :func:`chain`: each step either
does the work or returns :data:`DECLINE`, and the next one runs; the walker core's own step
comes last. That replaces the method resolution order (and its ``super()`` calls) of the mixins
the walker was once assembled from: the order is the one written in ``recognisers.py``.
"""

# returned by a step of a chain that does not apply: the next step runs
DECLINE = object()


def chain(*steps):
    """One function running ``steps`` (each ``step(walker, *args)``) in order until one does
    not return :data:`DECLINE`; the last step must never decline."""
    if len(steps) == 2:  # the common case, without the loop
        first, last = steps

        def run_two(walker, *args):
            result = first(walker, *args)
            return last(walker, *args) if result is DECLINE else result
        return run_two

    def run(walker, *args):
        for step in steps:
            result = step(walker, *args)
            if result is not DECLINE:
                return result
        raise AssertionError("the last step of a chain declined")
    return run

OPCODES = {}


class Entries(object):
    """The entry points into the recogniser families, set by ``recognisers.py``."""


ENTRY = Entries()
