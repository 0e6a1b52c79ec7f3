# min-python: 3.14
"""Shapes CPython 3.14+ compiles differently: annotations in __annotate__ functions (PEP 649),
subscript as BINARY_OP, LOAD_COMMON_CONSTANT, LOAD_SPECIAL for with, the all()/any() fast
path, CALL_FUNCTION_EX's kwargs slot, docstrings flagged by CO_HAS_DOCSTRING."""
LIMIT: int = 3


class Point:
    x: int
    y: 'Point | None' = None

    def moved(self, dx: int, dy: int = 0) -> 'Point':
        """Return a moved copy."""
        return Point(self.x + dx, self.y)

    def first(self, items):
        return super().first(items[0])


def label(x):
    return 'text' + x


def checks(items, n):
    assert items, 'empty'
    found = all(item > n for item in items)
    return found and any(item is None for item in items)


def call(g, a, k):
    g(*a, **k)
    return g(*a)


def reading(path):
    with open(path) as fh:
        data = fh.read()
    return data[1:], data[0]


def comprehensions(xs, ys):
    pairs = [(x, y) for x in xs for y in ys if x != y]
    return {x for x in xs if x}, pairs


def values(a, b, c):
    return a and b or c
