"""A returned and/or whose last operand is a conditional expression: 3.12+ copy the return into
the conditional's first branch, so the operand reads as `if c: return x` then `y`."""


def or_ifexp(a, x, c, y):
    return a or (x if c else y)


def and_ifexp(a, x, c, y):
    return a and (x if c else y)


def or_or_ifexp(a, b, x, c, y):
    return a or b or (x if c else y)


def or_ifexp_and_test(a, x, c, d, y):
    return a or (x if c and d else y)


def or_nested_ifexp(a, x, c, d, y, z):
    return a or (x if c else y if d else z)


def in_loop(items, x, c, y):
    for a in items:
        if a:
            return a or (x if c else y)
    return None
