"""Every expression form, each in a function of its own."""
import os.path
import os.path as osp
from collections import OrderedDict as OD, deque
from . import sibling
from .. import parent as p


def calls(f, a, b, *args, **kwargs):
    f()
    f(a, b)
    f(a, key=b)
    f(*args)
    f(a, *args, key=b, **kwargs)
    f(**kwargs)
    a.method(b, c=1)
    return f(*args, *a, **kwargs, **b)


def literals():
    x = (1, 2.5, 'three', b'four', None, True, ..., -1, 1j)
    y = [1, 2, [3, 4]]
    z = {1: 'a', 'b': 2}
    w = {1, 2, 3}
    e = ()
    d = {}
    return x, y, z, w, e, d


def starred(a, b):
    x = [*a, *b, 1]
    y = (*a, 2)
    z = {*a, 3}
    d = {**a, 'k': 1, **b}
    first, *rest = a
    *init, last = b
    p, (q, r) = a
    return x, y, z, d, first, rest, init, last, p, q, r


def fstrings(a, b, width):
    return f'{a}', f'{a!r}', f'{a!s:>10}', f'{a:{width}.{b}}', f'x{a}y{b!a}z', f'{a=}'


def slices(a, i, j):
    return a[i], a[i:j], a[i:], a[:j], a[::2], a[i:j:2], a[i, j], a[i:j, ::2], a[...]


def operators(a, b):
    return (a + b, a - b, a * b, a / b, a // b, a % b, a ** b, a @ b, a << b, a >> b, a & b,
            a | b, a ^ b, -a, +a, ~a, not a, a < b, a <= b, a == b, a != b, a > b, a >= b,
            a is b, a is not b, a in b, a not in b, (a + b) * 2, a - (b - 1), 2 ** -a)


def chained(a, b, c, d):
    x = a < b < c
    y = a < b <= c < d
    if a < b < c:
        return x
    return y


def boolean(a, b, c, d):
    w = a and b
    x = a or b or c
    y = a and b or c
    z = (a or b) and c
    v = not a and (b or not c)
    return w, x, y, z, v


def conditional(a, b, c):
    x = a if b else c
    y = (a if b else c) if a else (b if c else a)
    return x, y, [a if b else c for a in c]


def walrus(data):
    if (n := len(data)) > 10:
        return n
    return [y for x in data if (y := x * 2)]


def lambdas(a):
    f = lambda: 0
    g = lambda x, y=1, *args, z, **kw: x + y
    h = lambda x: lambda y: x + y
    return f, g, h(a)


def comprehensions(xs, ys):
    a = [x for x in xs]
    b = [x * y for x in xs for y in ys if x if y]
    c = {x: y for x, y in zip(xs, ys)}
    d = {x for x in xs if x > 1}
    e = (x for x in xs)
    f = [[y for y in range(x)] for x in xs]
    return a, b, c, d, list(e), f


def subscripts_and_attributes(obj, key, value):
    obj.attr = value
    obj.a.b.c = value
    obj[key] = value
    obj[key][0] = value
    obj[1:2] = value
    del obj.attr
    del obj[key]
    del obj[1:2]
    return obj.a.b, obj[key].c
