"""Every statement form."""
import sys

counter = 0


def assignments(a, b):
    x = y = a
    x, y = y, x
    a, b, c = b, a, x
    x += 1
    a.attr -= 2
    a[b] *= 3
    a.b[c] //= 4
    x: int = 5
    return x, y


def branches(a, b, c):
    if a:
        x = 1
    elif b:
        x = 2
    elif c:
        x = 3
    else:
        x = 4
    if a and b:
        x += 1
    if not (a or b):
        x -= 1
    if a:
        pass
    return x


def loops(items, n):
    total = 0
    for item in items:
        if item is None:
            continue
        if item < 0:
            break
        total += item
    else:
        total = -1
    while n > 0:
        n -= 1
        if n == 5:
            break
    else:
        total += 1
    while True:
        n += 1
        if n > 10:
            break
    for i, (a, b) in enumerate(items):
        total += a * b
    return total


def exceptions(f, g):
    try:
        f()
    except ValueError:
        g(1)
    except (KeyError, TypeError) as exc:
        g(exc)
    except Exception:
        raise
    else:
        g(2)
    finally:
        g(3)
    try:
        f()
    except:
        pass
    try:
        return f()
    finally:
        g()


def raising(x):
    if x:
        raise ValueError('bad')
    if x is None:
        raise TypeError('none') from x
    assert x, 'message'
    assert x > 1
    raise


def withs(path, lock):
    with open(path) as fh:
        data = fh.read()
    with lock:
        pass
    with open(path) as a, open(path) as b:
        data = a.read() + b.read()
    with lock:
        return data


def scopes():
    global counter
    counter += 1
    value = 0

    def inner():
        nonlocal value
        value += 1
        return value

    return inner


def deletes(a, b):
    del a
    del b.attr, b[0]


def imports():
    import os
    import os.path
    import xml.etree.ElementTree as ET
    from os import path, sep as separator

    return os, ET, path, separator


def generators(items):
    yield 1
    x = yield
    yield from items
    y = yield from items
    return x, y


def keyword_only(a, b=2, *args, c, d=4, **kwargs):
    return a, b, args, c, d, kwargs


def positional_only(a, b, /, c, *, d):
    return a, b, c, d


def annotated(a: int, b: 'str' = 'x', *args: int, c: float = 1.0, **kw: dict) -> list:
    return [a, b, args, c, kw]


def decorated(fn):

    @staticmethod
    @fn
    def inner(x):
        return x

    return inner
