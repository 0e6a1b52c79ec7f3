"""A conditional expression inside a returned expression: 3.12+ copy the rest of the return
(the operation that takes the conditional's value, RETURN_VALUE) into both branches, which
then read like `if c: return ...` with a value left on the stack."""


def length_of(data):
    groups, leftover = divmod(len(data), 3)
    return groups * 4 + (4 if leftover else 0)


def font_of(family, size, bold):
    return (family, size, "bold" if bold else "normal")


def call_with(f, items, flag):
    return f(items, [1] if flag else [])
