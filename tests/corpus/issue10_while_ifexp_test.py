# max-python: 3.13
"""A while loop tested on a conditional expression among and/or (the test is laid out at the
top and again at the bottom, 3.11+; its conditional's jumps stay inside each copy). 3.14+ test
a while at the top only: not rebuilt there yet (marked not exact), hence the bound."""


def ifexp_and(a, b, c, d):
    while (a if b else c) and d:
        d = d - 1
    return d


def ifexp_or(a, b, c, d):
    while (a if b else c) or d:
        d = d - 1
        if d < 0:
            break
    return d
