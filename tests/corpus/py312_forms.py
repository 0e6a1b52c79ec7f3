# min-python: 3.12
# max-python: 3.13
# (3.14 changed several of these shapes again: py314_forms.py)
"""Shapes CPython 3.12+ compiles differently from 3.11: inline comprehensions (PEP 709),
handlers laid out after the code that follows them, expanded backward jumps, value tests
without JUMP_IF_*_OR_POP, returns copied into the branches of a conditional expression."""
from os.path import *

SQUARES = [n * n for n in range(10) if n % 2]


class Table:
    names = {name: len(name) for name in ('a', 'bb')}

    def __init__(self, rows):
        super().__init__()
        self.rows = rows

    def keys(self):
        return super().keys() + super(Table, self).extra


def comprehensions(xs, ys):
    pairs = [(x, y) for x in xs for y in ys if x != y]
    seen = {x for x in xs if x}
    index = {k: [v for v in ys] for k, q in xs if q}
    return len([a for a in xs]), pairs, seen, index


def handlers(self):
    try:
        self.a()
    except AttributeError:
        return
    try:
        self.close()
    except (OSError, ValueError) as exc:
        self.log(exc)
    self.done()


def loop_with_try(self):
    data = None
    for filename in self.files:
        try:
            with open(filename) as fp:
                data = fp.read()
            break
        except OSError:
            pass
    return data


def withs(path):
    with open(path) as a, open(path) as b:
        data = a.read() + b.read()
    with open(path) as c:
        return c.read() + data


def finally_return(f, g):
    try:
        return f()
    finally:
        g()


def values(a, b, c):
    x = a or b
    if (a or b) and c:
        return x
    return a and b or c


def conditional_returns(x, y):
    return 0 if x == y else 1 if x > y else -1


def chains(month, items, table):
    assert 1 <= month <= 12, month
    out = []
    for item in items:
        if item not in table and item:
            out.append(item)
    while month > 1:
        month -= 1
    return out


def text(x, y, width):
    return f"{x!r} and {y} {x:>{width}} {y!a:3}"


async def waiting(session, urls):
    results = []
    async for item in session.stream(urls):
        results.append(await item)
    async with session.lock() as lock:
        await lock.wait()
    return results


def delegating(items):
    yield from items
    return (yield)
