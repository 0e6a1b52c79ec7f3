"""A value ``or`` as the left operand of an operation inside an ``if`` test that has several
parts (pydoc's HTMLDoc.docmodule: ``if (all is not None or (inspect.getmodule(value) or
object) is object):``). In a test the compiler joins conditions with plain jumps, so an
``or`` that keeps its value is an operand; it was read as the end of the test, and the
rest as statements of their own."""


def docmodule(object, all):
    classes = []
    for key, value in getmembers(object):
        if (all is not None or
                (getmodule(value) or object) is object):
            if visiblename(key, all, object):
                classes.append((key, value))
    return classes


def attribute(a, b, c):
    if a or (b or c).ready:
        return 1
    return 0


def negated(a, b, c, d):
    while a and -(b or c) < d:
        a = step(a)
