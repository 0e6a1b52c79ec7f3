"""Shapes found going wrong on other projects' code (issue 10), each in a function of its own."""


def ifexp_of_or(a, c):
    return 1 if a or c else 2


def ifexp_of_and(a, c):
    return 1 if a and c else 2


def ifexp_of_or_value(a, c):
    x = 1 if a or c else 2
    return x


def if_then_while(x, y):
    if x:
        y = 1
    while y:
        y -= 1
    return y


def if_then_while_true(x):
    if x:
        x = 1
    while True:
        if x > 3:
            break
        x += 1
    return x


def or_lambda(v):
    return v or (lambda: 0)


def genexp_of_constant(x):
    return (None for _ in x)


def elif_chain_in_loop(items):
    out = []
    for i in items:
        if i == 1:
            out.append('one')
        elif i == 2:
            out.append('two')
        elif i == 3:
            out.append('three')
        out.append(i)
    return out


def elif_after_raise(a):
    if a is None:
        raise ValueError(a)
    elif a > 1:
        a = 1
    else:
        a = 0
    return a


def lambda_or(v):
    return (lambda: 0) or v


async def async_listcomp_await(xs, f):
    return [await f(x) for x in xs]


def tuple_slice_targets(a, b):
    a[1:2], b[:3] = (b, a)
    return a, b


def slice_swap(a, i, j, k):
    a[i:j], a[j:k] = a[j:k], a[i:j]
    a[i:j:2], a[0] = a[0], a[i:j:2]
    return a


def negative_imaginary():
    return (-1j, -2.5j, 1 - 2j, 0 - 2j, -(0 - 2j), -1.5 + 0.5j)


def elif_after_break(items):
    for i in items:
        if i is None:
            break
        elif i > 1:
            i = 1
        print(i)
    return items


def try_finally_with_if_else(a):
    try:
        a.run()
    finally:
        if a.ok:
            a.close()
        else:
            a.abort()


def try_finally_with_elif(a):
    try:
        a.run()
    finally:
        if a.ok:
            a.close()
        elif a.retry:
            a.run()
        else:
            a.abort()


def ifexp_tested_with_and(a, b, c, d):
    if (a if b else c) and d:
        return 1
    return 0


def ifexp_tested_negated_with_or(a, b, c, d):
    if not (a if b else c) or d:
        return 2
    if e(a) and (b if c and d else a or c) and e(d):
        return 3
    return 0


def ifexp_or_value(a, b, c, d):
    x = (a if b else c) and d
    return ((b if a else c) or d), x


def compare_or_chain(a, b, c):
    if (a or b) == c:
        return 1
    return (a or b) == c
