# min-python: 3.14
"""A loop body that ends with ``if c: <statements>; break`` before a small exit (found on
3.14, _pyrepl.readline's backspace_dedent): 3.14 tests a ``while`` at the top only, lays the
if's body out after the loop's back edges, and lets its ``break`` fall into a copy of the
return the loop's test leaves to, so the statements read as code after the loop."""


def one_test(b, ls, indent, g):
    while ls > 0:
        ls, pi = g(b, ls - 1)
        if pi < indent:
            repeat = indent - pi
            break
    return 1


def and_test(b, ls, indent, g):
    while ls > 0:
        ls, pi = g(b, ls - 1)
        if pi is not None and pi < indent:
            repeat = indent - pi
            break
    return 1


def inside_if(b, ls, indent, g):
    if indent > 0:
        while ls > 0:
            ls, pi = g(b, ls - 1)
            if pi is not None and pi < indent:
                repeat = indent - pi
                break
    return 1


def returning_value(items, key):
    i = 0
    while i < len(items):
        if items[i] == key:
            items.pop(i)
            found = key
            break
        i += 1
    return None
